// The cooling plugin descriptor: heat flux at the die, technology by rack density, coolant flow and
// rise, pressure drop and pumping, CDU sizing, facility metrics (PUE, WUE, CUE, ERE) and carbon.
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// The cooling plugin.
[[nodiscard]] const Plugin& cooling_plugin();

/// The cooling reference kernels (cooling_kernels.cpp).
[[nodiscard]] std::vector<Kernel> cooling_kernels();

/// `cooling flux` (cooling_flux.cpp).
[[nodiscard]] Calculator cooling_flux_calculator();
/// `cooling choose` (cooling_choose.cpp).
[[nodiscard]] Calculator cooling_choose_calculator();
/// `cooling flow` (cooling_flow.cpp).
[[nodiscard]] Calculator cooling_flow_calculator();
/// `cooling pressure` (cooling_pressure.cpp).
[[nodiscard]] Calculator cooling_pressure_calculator();
/// `cooling cdu` (cooling_cdu.cpp).
[[nodiscard]] Calculator cooling_cdu_calculator();
/// `cooling facility` (cooling_facility.cpp).
[[nodiscard]] Calculator cooling_facility_calculator();
/// `cooling fleet` (cooling_fleet.cpp).
[[nodiscard]] Calculator cooling_fleet_calculator();
/// `cooling carbon` (cooling_carbon.cpp).
[[nodiscard]] Calculator cooling_carbon_calculator();
/// `cooling climate`: a site's typical year through a plant: economiser and chiller hours, PUE and WUE.
[[nodiscard]] Calculator cooling_climate_calculator();
/// `cooling loop` (cooling_loop.cpp).
[[nodiscard]] Calculator cooling_loop_calculator();

}  // namespace infracalc
