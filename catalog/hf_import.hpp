// `model import`: turns a Hugging Face config.json into a model data file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/model_arch.hpp"
#include "documents/node.hpp"
#include "units/expected.hpp"

namespace infracalc {

/// What the caller decides about the new entry.
struct HfImportOptions {
  /// Entry id (also the file name without .toml); "" derives one from the config.
  std::string id;
  /// Human name; "" derives one from the id.
  std::string name;
  /// How the source is cited in [meta] sources, e.g. the path of config.json.
  std::string source;
  /// The as-of date written to [meta] (the import date).
  Date as_of;
};

/// A converted config.
struct HfImport {
  /// The entry id used.
  std::string id;
  /// The model data file, TOML text.
  std::string toml;
  /// The architecture as the catalog will read it back.
  ModelArch arch;
  /// Parameter counts computed from it (written as derived params_total / params_active).
  ParamCount params;
  /// Assumptions the importer made (defaults for absent fields), one sentence each.
  std::vector<std::string> notes;
};

/// The architectures (config `model_type`) the importer understands.
[[nodiscard]] const std::vector<std::string>& hf_supported_model_types();

/// The model name a config gives itself: the last path part of `_name_or_path`, else of `name_or_path`
/// ("meta-llama/Meta-Llama-3-8B" gives "Meta-Llama-3-8B"); "" when neither names anything usable (absent, "./").
[[nodiscard]] std::string hf_name_of(const Node& config);

/// A catalog id suggested by a config: hf_name_of(config), else `fallback` (e.g. the folder name),
/// lower-cased with anything but letters, digits, '.' and '-' turned into '-'.
[[nodiscard]] std::string hf_suggest_id(const Node& config, std::string_view fallback);

/// Converts a parsed config.json. Missing or contradictory fields are errors that name the config
/// field (e.g. "config.json: num_key_value_heads (6) must divide num_attention_heads (32)").
[[nodiscard]] Expected<HfImport> import_hf_config(const Node& config, const HfImportOptions& opt);

}  // namespace infracalc
