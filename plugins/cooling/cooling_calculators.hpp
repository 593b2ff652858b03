// The cooling plugin's calculators, one calc_<name>.cpp each (internal to the plugin: the descriptor lists them).
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// `cooling flux` (calc_flux.cpp).
[[nodiscard]] Calculator cooling_flux_calculator();
/// `cooling choose` (calc_choose.cpp).
[[nodiscard]] Calculator cooling_choose_calculator();
/// `cooling flow` (calc_flow.cpp).
[[nodiscard]] Calculator cooling_flow_calculator();
/// `cooling pressure` (calc_pressure.cpp).
[[nodiscard]] Calculator cooling_pressure_calculator();
/// `cooling cdu` (calc_cdu.cpp).
[[nodiscard]] Calculator cooling_cdu_calculator();
/// `cooling facility` (calc_facility.cpp).
[[nodiscard]] Calculator cooling_facility_calculator();
/// `cooling fleet` (calc_fleet.cpp).
[[nodiscard]] Calculator cooling_fleet_calculator();
/// `cooling carbon` (calc_carbon.cpp).
[[nodiscard]] Calculator cooling_carbon_calculator();
/// `cooling climate`: a site's typical year through a plant: economiser and chiller hours, PUE and WUE.
[[nodiscard]] Calculator cooling_climate_calculator();
/// `cooling loop` (calc_loop.cpp).
[[nodiscard]] Calculator cooling_loop_calculator();

}  // namespace infracalc
