// The built-in commands other than plugin calculators; main.cpp parses their flags and calls these.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "host/context.hpp"
#include "host/plugin.hpp"

namespace infracalc::cli {

/// `calc EXPR`: evaluates a unit-checked expression.
ExitStatus run_calc(const std::string& expression, const GlobalOptions& g);
/// `calc --units`: every unit symbol and word the parser accepts, with its dimension, size and prefixes.
ExitStatus run_calc_units(const GlobalOptions& g);
/// `list`: plugins and their calculators.
ExitStatus run_list(const GlobalOptions& g);
/// Filters for `hw list` and `model list`.
struct ListFilter {
  /// --vendor (case-insensitive), "" for any.
  std::string vendor;
  /// --kind (entry kind or the file's `type` field), "" for any.
  std::string kind;
  /// --min-memory as text ("100GB"), "" for none.
  std::string min_memory;
  /// hw list --available-by YYYY-MM: drop parts whose first availability (`launch`) is later; "" for none.
  std::string available_by;
  /// hw list --sort FIELD: rank by this field, largest first ("bf16" for peak.bf16_dense); "" for none.
  std::string sort;
};
/// The entries of `kinds` that pass the filter's --vendor, --kind and --min-memory, by kind and id.
[[nodiscard]] std::vector<const Entry*> listed_entries(const std::vector<std::string_view>& kinds, const ListFilter& f);
/// `hw list --available-by YYYY-MM --sort FIELD` (either or both): `entries` less those not available by the month
/// (listed, with why), ranked by FIELD.
ExitStatus run_hw_rank(const std::vector<const Entry*>& entries, const ListFilter& f, const GlobalOptions& g);
/// `hw list`: accelerators and systems in the catalog.
ExitStatus run_hw_list(const ListFilter& f, const GlobalOptions& g);
/// `hw show ID`, `model show ID` and `data show ID` (empty `kinds`): every field with its source and
/// date, the entry of each dated series that --as-of picks, and for models the derived parameter counts.
ExitStatus run_entry_show(const std::string& id, const std::vector<std::string_view>& kinds, const GlobalOptions& g);
/// `hw compare ID ID...`: parts side by side.
ExitStatus run_hw_compare(const std::vector<std::string>& ids, const GlobalOptions& g);
/// `model list`.
ExitStatus run_model_list(const ListFilter& f, const GlobalOptions& g);
/// `data list`: every catalog entry (any kind), filtered like `hw list`.
ExitStatus run_data_list(const ListFilter& f, const GlobalOptions& g);
/// Options of `model import`.
struct ImportOptions {
  /// The Hugging Face config.json to read.
  std::string file;
  /// --out PATH for the model TOML ("" = ID.toml in the current directory).
  std::string out;
  /// --id for the new entry ("" = from --out, the config's _name_or_path or its folder).
  std::string id;
  /// --name for the new entry ("" = from the id).
  std::string name;
  /// --force: replace an existing output file.
  bool force = false;
};
/// `model import FILE`: writes a model data file from a Hugging Face config.json.
ExitStatus run_model_import(const ImportOptions& o, const GlobalOptions& g);
/// `data check`: lints every data file.
ExitStatus run_data_check(const GlobalOptions& g);
/// `verify [PLUGIN...]`: runs the reference kernels.
ExitStatus run_verify(const std::vector<std::string>& plugins, const KernelOptions& k, const GlobalOptions& g);
/// `batch [FILE|-]`: JSON Lines of {"plugin", "calculator", "inputs", "id"?} in, one result (or error) per line out;
/// each record runs through process_batch_record (plan/batch_record.hpp).
ExitStatus run_batch(const std::string& path, bool fail_fast, const std::string& files_from, const GlobalOptions& g);
/// `verify decode --calibrate`: writes the measured figures to accelerators/this-host.toml in the user data
/// dir (temporary file, then rename); call after run_verify has run the decode kernels.
void write_calibration(const KernelOptions& k);
/// Options of `validate`.
struct ValidateOptions {
  /// --kind inference|training|power ("" for all).
  std::string kind;
  /// --file F: measurements in the format of data/measured ("" for the shipped corpus).
  std::string file;
};
/// `validate`: every measurement predicted through the calculators, with its error and the summary.
ExitStatus run_validate(const ValidateOptions& o, const GlobalOptions& g);
/// Options of `calibrate`.
struct CalibrateOptions {
  /// --published: fit on data/measured.
  bool published = false;
  /// --out F: where to write the fitted parameters ("" prints only).
  std::string out;
  /// --no-loo skips the leave-one-out refits.
  bool loo = true;
  /// Levenberg-Marquardt iterations of the full fit and of each leave-one-out refit.
  int iterations = 40, loo_iterations = 6;
};
/// `calibrate --published`: fits the efficiency parameters and reports residuals and leave-one-out errors.
ExitStatus run_calibrate(const CalibrateOptions& o, const GlobalOptions& g);
/// `plan init serve|train|finetune|site`: a commented starting scenario (every key the kind of plan reads, from the plan
/// schema, with a working example set); throws UserError for another kind.
[[nodiscard]] std::string plan_template(std::string_view kind);
/// Writes plan_template(kind) to `out_file` (never over an existing file without `force`), or to stdout when empty.
ExitStatus run_plan_init(std::string_view kind, const std::string& out_file, bool force);
/// The JSON Schema (draft 2020-12) of infracalc's JSON output: with a calculator, its result document (every
/// declared input and output by name, each in the unit its JSON carries); without, the general result document or
/// a failed batch record. Pretty-printed, as docs/schema/ holds them.
[[nodiscard]] std::string result_schema(const Plugin* p, const Calculator* c);
/// `schema [PLUGIN CALC]`: prints result_schema.
ExitStatus run_schema(const std::vector<std::string>& words);
/// `completions bash|zsh|fish`: a script that asks `infracalc __complete` for its candidates.
ExitStatus run_completions(const std::string& shell);
/// `__complete WORD...` (what the completion scripts run): the candidates for the last word, one per line, after
/// the words before it (the arguments after "infracalc"); a first line ":files" or ":dirs" asks the shell to complete
/// paths.
[[nodiscard]] std::string completion_text(const std::vector<std::string>& words);
/// The entry kinds `hw list/show/compare` cover (prices, grids and facility data are under `data`).
[[nodiscard]] std::vector<std::string_view> hardware_kinds();

/// The placeholder for an input's value in help and the man page: VALUE, N, CHOICE, TEXT, TEMP (empty for a flag).
[[nodiscard]] std::string value_word(const Input& in);
/// An input's kind, range, default, source and example in brackets, as help and the man page show them.
[[nodiscard]] std::string details(const Input& in);
/// The manual page infracalc.1 (roff), generated from the command table and every calculator's descriptor: one
/// section per plugin. `version` and `date` go in its title line.
[[nodiscard]] std::string man_page(std::string_view version, std::string_view date);
/// Help for one calculator, generated from its descriptor.
[[nodiscard]] std::string calculator_help(const Plugin& p, const Calculator& c);
/// Help for one plugin: its calculators.
[[nodiscard]] std::string plugin_help(const Plugin& p);
/// The output options, as listed in every help text.
[[nodiscard]] std::string output_options_help();

}  // namespace infracalc::cli
