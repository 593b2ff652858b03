// A document tree as bytes and back. The build stores the data files it embeds already parsed
// (cmake/embed_data.cpp), so that a query reads its catalog entries without running the TOML parser.
#pragma once

#include <string>
#include <string_view>

#include "documents/node.hpp"
#include "units/expected.hpp"

namespace infracalc {

/// The whole tree, every field of every node (positions included), as bytes that node_from_bytes reads back.
[[nodiscard]] std::string node_to_bytes(const Node& node);
/// The tree node_to_bytes wrote, equal to it field for field; an error when the bytes are not such a tree.
[[nodiscard]] Expected<Node> node_from_bytes(std::string_view bytes);

}  // namespace infracalc
