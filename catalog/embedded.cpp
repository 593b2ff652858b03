#include "catalog/embedded.hpp"

#include <string>

#include "documents/node_bytes.hpp"
#include "documents/toml_reader.hpp"

namespace infracalc {

Expected<Node> embedded_tree(const EmbeddedFile& file) {
  if (!file.tree.empty()) return node_from_bytes(file.tree);
  return read_toml(file.text, "data/" + std::string(file.path));
}

}  // namespace infracalc
