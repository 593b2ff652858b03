#include "host/plugin.hpp"

#include <stdexcept>
#include <string>

namespace infracalc {

Plugin assemble_plugin(std::string_view name, std::string_view doc, std::span<const CalculatorFactory> table, std::vector<Kernel> kernels) {
  Plugin p;
  p.name = name;
  p.doc = doc;
  p.calculators.reserve(table.size());
  for (const auto& row : table) p.calculators.push_back(row.build());
  p.kernels = std::move(kernels);
  return p;
}

const Plugin* plugin_with_only(std::string_view name, std::string_view doc, std::span<const CalculatorFactory> table,
                               std::span<std::optional<Plugin>> built, std::string_view calculator) {
  if (built.size() != table.size()) throw std::logic_error(std::string(name) + ": one built slot per calculator is needed");
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].name != calculator) continue;
    if (!built[i]) {
      Plugin p;
      p.name = name;
      p.doc = doc;
      p.calculators.push_back(table[i].build());
      // The table's name is what a query is matched against; the descriptor's is what the query then finds.
      if (p.calculators.front().name != calculator)
        throw std::logic_error(std::string(name) + ": the table names '" + std::string(calculator) + "' a calculator that calls itself '" +
                               std::string(p.calculators.front().name) + "'");
      built[i] = std::move(p);
    }
    return &*built[i];
  }
  return nullptr;
}

}  // namespace infracalc
