// The coolant of a calculation: the catalog table named by --coolant, with --density, --cp and
// --viscosity overrides when the calculator declares them, and its provenance recorded.
#pragma once

#include "plugins/cooling/coolant.hpp"
#include "host/context.hpp"

namespace infracalc::cooling {

/// Catalog id of a --coolant choice: "water" → "coolant-water".
[[nodiscard]] std::string coolant_id(std::string_view choice);
/// Loads the coolant chosen by the calculator's `coolant` input and applies overrides.
[[nodiscard]] Coolant coolant_from(Context& ctx);
/// The inputs --coolant, --density, --cp and --viscosity, for calculators that read a coolant table.
[[nodiscard]] std::vector<Input> coolant_inputs();
/// Throws UserError with the error of a property lookup.
template <class T>
const T& need(const Expected<T>& e) {
  return e.value_or_throw();
}

}  // namespace infracalc::cooling
