// The built-in commands other than plugin calculators; main.cpp parses their flags and calls these.
#pragma once

#include <string>
#include <vector>

#include "cli/app.hpp"
#include "plugins/plugin.hpp"

namespace infracalc::cli {

/// `calc EXPR`: evaluates a unit-checked expression.
ExitStatus run_calc(const std::string& expression, const GlobalOptions& g);
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
};
/// `hw list`: accelerators and systems in the catalog.
ExitStatus run_hw_list(const ListFilter& f, const GlobalOptions& g);
/// `hw show ID` and `model show ID`: every field with its source and date.
ExitStatus run_entry_show(const std::string& id, const std::vector<std::string_view>& kinds, const GlobalOptions& g);
/// `hw compare ID ID...`: parts side by side.
ExitStatus run_hw_compare(const std::vector<std::string>& ids, const GlobalOptions& g);
/// `model list`.
ExitStatus run_model_list(const ListFilter& f, const GlobalOptions& g);
/// `data check`: lints every data file.
ExitStatus run_data_check(const GlobalOptions& g);
/// `verify [PLUGIN...]`: runs the reference kernels.
ExitStatus run_verify(const std::vector<std::string>& plugins, const KernelOptions& k, const GlobalOptions& g);
/// `verify decode --calibrate`: writes the measured figures to accelerators/this-host.toml in the user data
/// dir (temporary file, then rename); call after run_verify has run the decode kernels.
void write_calibration(const KernelOptions& k);
/// `completions bash|zsh|fish`.
ExitStatus run_completions(const std::string& shell);

/// Help for one calculator, generated from its descriptor.
[[nodiscard]] std::string calculator_help(const Plugin& p, const Calculator& c);
/// Help for one plugin: its calculators.
[[nodiscard]] std::string plugin_help(const Plugin& p);
/// The output options, as listed in every help text.
[[nodiscard]] std::string output_options_help();

}  // namespace infracalc::cli
