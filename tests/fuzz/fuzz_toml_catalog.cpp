// libFuzzer target: a data file through the TOML reader, the entry loader, every field's quantity parse,
// and the model-architecture reader.
#include <cstddef>
#include <cstdint>
#include <string>

#include "catalog/check.hpp"
#include "catalog/model_arch.hpp"
#include "documents/toml_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto node = infracalc::read_toml(text, "fuzz.toml");
  if (!node) return 0;
  auto entry = infracalc::Entry::from_node(std::move(node).value(), "fuzz.toml", true);
  if (!entry) return 0;
  const infracalc::Entry& e = *entry.value();
  infracalc::for_each_field(e, [&](const std::string& path, const infracalc::FieldRef& ref) {
    (void)infracalc::node_quantity(*ref.value, {infracalc::dims::information, false}, path);
    (void)infracalc::node_quantity(*ref.value, {infracalc::dims::none, false}, path);
  });
  (void)e.dated("on_demand", {});
  auto arch = infracalc::read_model_arch(e);
  if (arch) (void)infracalc::count_params(*arch);
  return 0;
}
