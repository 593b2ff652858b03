// The tco plugin descriptor: cost of ownership from capex, power and money to a price per sold
// accelerator-hour and a site's annual TCO.
#pragma once

#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// The tco plugin: owner cost per sold accelerator-hour, facility TCO, energy bills, siting, the ledger.
[[nodiscard]] const Plugin& tco_plugin();
/// The tco plugin holding only the calculator called `calculator`, or nullptr when it has none by that name.
[[nodiscard]] const Plugin* tco_plugin_with_only(std::string_view calculator);

/// The tco reference kernels (defined in tco_kernels.cpp).
[[nodiscard]] std::vector<Kernel> tco_kernels();

}  // namespace infracalc
