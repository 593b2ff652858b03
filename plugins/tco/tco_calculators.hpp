// The tco calculators, one file each; tco_plugin.cpp gathers them into the plugin.
#pragma once

#include "host/plugin.hpp"

namespace infracalc::tco {

/// `tco hour`: owner cost per sold accelerator-hour, line by line.
[[nodiscard]] Calculator hour_calculator();
/// `tco facility`: annual TCO split into depreciation, energy and overheads, with sensitivity tables.
[[nodiscard]] Calculator facility_calculator();
/// `tco energy`: an energy bill over a tariff range and its swing.
[[nodiscard]] Calculator energy_calculator();
/// `tco siting`: the delivered-price threshold above which power cost leads siting, and a site's energy share.
[[nodiscard]] Calculator siting_calculator();
/// `tco ledger`: the year-by-year cash-flow ledger with NPV and levelised cost.
[[nodiscard]] Calculator ledger_calculator();

/// A money-rate column shown per hour.
[[nodiscard]] Column money_rate_column(std::string key, std::string hint = "$/h");

}  // namespace infracalc::tco
