// Facility metrics of The Green Grid and ISO/IEC 30134: PUE and its overhead, WUE (site water per IT
// energy), CUE (carbon per IT energy), ERE and ERF (energy reuse), and the embodied-against-operational
// carbon of a device over its life.
#pragma once

#include "units/system.hpp"

namespace infracalc::cooling {

/// Facility power at a PUE: P_IT x PUE (ISO/IEC 30134-2).
[[nodiscard]] Watts facility_power(Watts it, Number pue);
/// Share of facility energy that is overhead: (PUE − 1) / PUE.
[[nodiscard]] Number overhead_share(Number pue);
/// Site water of an IT energy at a WUE (litres per IT kWh, ISO/IEC 30134-9).
[[nodiscard]] CubicMeters site_water(Joules it_energy, CubicMetersPerJoule wue);
/// CUE = total CO2 / IT energy = PUE x grid carbon intensity (ISO/IEC 30134-8), for grid-supplied sites.
[[nodiscard]] KilogramsPerJoule cue(Number pue, KilogramsPerJoule grid_intensity);
/// ERE = (total − reused) / IT (The Green Grid WP#29): below 1 when more heat is exported than the overhead uses.
[[nodiscard]] Number ere(Joules it, Joules total, Joules reused);
/// ERF = reused / total (ISO/IEC 30134-6).
[[nodiscard]] Number erf(Joules total, Joules reused);

/// Electric energy of a device over a life at a utilisation, with facility overhead: P u t PUE.
[[nodiscard]] Joules lifetime_energy(Watts power, Number utilisation, Seconds life, Number pue);
/// The grid intensity at which operational carbon equals embodied carbon: embodied / lifetime energy.
[[nodiscard]] KilogramsPerJoule parity_intensity(Kilograms embodied, Joules lifetime);

}  // namespace infracalc::cooling
