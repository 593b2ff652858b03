#include "plugins/cooling/facility_math.hpp"

namespace infracalc::cooling {

Watts facility_power(Watts it, Number pue) { return it * pue; }

Number overhead_share(Number pue) { return (pue - Number::from_value(1.0)) / pue; }

CubicMeters site_water(Joules it_energy, CubicMetersPerJoule wue) { return it_energy * wue; }

KilogramsPerJoule cue(Number pue, KilogramsPerJoule grid_intensity) { return pue * grid_intensity; }

Number ere(Joules it, Joules total, Joules reused) { return (total - reused) / it; }

Number erf(Joules total, Joules reused) { return reused / total; }

Joules lifetime_energy(Watts power, Number utilisation, Seconds life, Number pue) { return power * utilisation * life * pue; }

KilogramsPerJoule parity_intensity(Kilograms embodied, Joules lifetime) { return embodied / lifetime; }

}  // namespace infracalc::cooling
