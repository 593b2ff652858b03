#include <fmt/format.h>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "documents/json.hpp"
#include "plugins/registry.hpp"

namespace infracalc::cli {

ExitStatus run_list(const GlobalOptions& g) {
  if (g.out.format == writers::OutputFormat::json) {
    std::string out = "{\"schema_version\": 1, \"plugins\": [";
    bool first = true;
    for (const auto& e : plugin_table()) {
      const Plugin& p = e.get();
      out += first ? "" : ", ";
      first = false;
      out += "{\"name\": ";
      append_json_string(out, p.name);
      out += ", \"summary\": ";
      append_json_string(out, e.summary);
      out += ", \"calculators\": [";
      for (std::size_t i = 0; i < p.calculators.size(); ++i) {
        out += i ? ", " : "";
        out += "{\"name\": ";
        append_json_string(out, p.calculators[i].name);
        out += ", \"summary\": ";
        append_json_string(out, p.calculators[i].summary);
        out += "}";
      }
      out += "], \"kernels\": " + std::to_string(p.kernels.size()) + "}";
    }
    emit(out + "]}\n");
    return ExitStatus::ok;
  }
  std::string out;
  for (const auto& e : plugin_table()) {
    const Plugin& p = e.get();
    out += fmt::format("{:<10} {}\n", p.name, e.summary);
    for (const auto& c : p.calculators) out += fmt::format("  {:<14} {}\n", c.name, c.summary);
  }
  std::string builtins;
  for (const auto& c : command_table()) builtins += (builtins.empty() ? "" : ", ") + std::string(c.name);
  out += "\nbuilt-in commands: " + builtins + "\n";
  emit(out);
  return ExitStatus::ok;
}

}  // namespace infracalc::cli
