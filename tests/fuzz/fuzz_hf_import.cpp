// libFuzzer target: a Hugging Face config.json through the JSON reader, the importer and back through the
// catalog loader (the TOML it writes must read back).
#include <cstddef>
#include <cstdint>
#include <string>

#include "catalog/hf_import.hpp"
#include "catalog/model_arch.hpp"
#include "documents/json.hpp"
#include "documents/toml_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto json = infracalc::read_json(text, "config.json");
  if (!json) return 0;
  infracalc::HfImportOptions opt;
  opt.id = "fuzz-model";
  opt.source = "config.json";
  auto imp = infracalc::import_hf_config(json.value(), opt);
  if (!imp) return 0;
  // What the importer writes must load again: a failure here is a bug, so abort loudly.
  auto node = infracalc::read_toml(imp->toml, "fuzz-model.toml");
  if (!node) __builtin_trap();
  auto entry = infracalc::Entry::from_node(std::move(node).value(), "fuzz-model.toml", true);
  if (!entry) __builtin_trap();
  auto arch = infracalc::read_model_arch(*entry.value());
  if (!arch) __builtin_trap();
  (void)infracalc::count_params(arch.value());
  return 0;
}
