// Input helpers shared by the tco and cost calculators: purchase prices and tariffs from dated catalog
// series (through host/catalog_input.hpp, honouring --as-of), lists and ranges of quantities,
// whole-year lives.
#pragma once

#include <string_view>
#include <vector>

#include "host/catalog_input.hpp"
#include "host/context.hpp"

namespace infracalc::tco {

/// What a price from --purchase stands for.
enum class PurchaseBasis {
  /// No --purchase entry was given (or the input was set by its flag).
  none,
  /// The entry prices one accelerator.
  accelerator,
  /// The entry prices a rack or system; the input is that price divided by the system's accelerators.
  system_share,
};

/// Fills input `key` (a price per accelerator) from the `purchase` series of the --purchase entry (newest
/// entry not after --as-of). An entry whose `unit_of_sale` is a rack or system and whose `item` is a system
/// id is divided by that system's `accelerators`, with a note; any other unit is a UserError.
PurchaseBasis fill_purchase(Context& ctx, std::string_view key);

/// Fills input `key` (a tariff) from the `tariff` series of the --grid entry (newest entry not after --as-of).
bool fill_tariff(Context& ctx, std::string_view key);

/// The --grid reference: a grid entry whose dated `tariff` series sets --tariff.
[[nodiscard]] CatalogRef grid_ref();

/// The --purchase reference: a price entry whose dated `purchase` series sets `flag` (a price per accelerator).
[[nodiscard]] CatalogRef purchase_ref(std::string_view flag);

/// A yearly rate (cost of capital, discount rate) from input `key`, checked to be at most 100% a year: a larger
/// figure is almost always a percent sign typed twice or a monthly rate given as a share. Throws UserError.
[[nodiscard]] double annual_rate(const Context& ctx, std::string_view key);

/// Throws the UserError for a missing input that a flag or the catalog reference `ref` can supply; when `ref` was
/// given and lacks the field, the message names that entry instead of suggesting the flag it already has.
[[noreturn]] void missing(const Context& ctx, std::string_view key, std::string_view what, std::string_view example,
                          std::string_view ref = {});

/// Parses a list "A,B,C" or a range "A..B" (then `steps` evenly spaced points, both ends included) of
/// quantities of one dimension with the project's unit parser. `label` names the input in errors.
[[nodiscard]] std::vector<Quantity> parse_series(std::string_view text, const Expectation& want,
                                                 std::string_view label, int steps);

/// Parses a range "A..B" into its two ends (A ≤ B is required).
[[nodiscard]] std::pair<Quantity, Quantity> parse_range(std::string_view text, const Expectation& want,
                                                        std::string_view label);

/// The number of whole years in `t`; a UserError naming `label` when `t` is not a whole number of years.
[[nodiscard]] int whole_years(Seconds t, std::string_view label);

/// The energy of a period: --energy, or --power x --pue x --load-factor x the period; nullopt when neither is given.
/// Checks --pue and notes an --energy that --power could not draw.
[[nodiscard]] std::optional<Joules> period_energy(Context& ctx, Seconds period);

/// The inputs of period_energy: --energy (described by `energy_help`), --power, --pue and --load-factor.
[[nodiscard]] std::vector<Input> energy_inputs(std::string_view energy_help);

}  // namespace infracalc::tco
