#include "plugins/cooling/cooling_math.hpp"

#include <cmath>

namespace infracalc::cooling {

KilogramsPerSecond mass_flow_for(Watts heat, JoulesPerKilogramKelvin cp, Kelvin rise) { return heat / (cp * rise); }

Kelvin rise_for(Watts heat, KilogramsPerSecond m, JoulesPerKilogramKelvin cp) { return heat / (m * cp); }

CubicMetersPerSecond volume_flow(KilogramsPerSecond m, KilogramsPerCubicMeter density) { return m / density; }

KilogramsPerSecond mass_flow(CubicMetersPerSecond v, KilogramsPerCubicMeter density) { return v * density; }

Expected<FlowPoint> flow_for_rise(const Coolant& c, Watts heat, TemperaturePoint supply, Kelvin rise) {
  auto s = c.at(supply);
  if (!s) return s.error();
  const TemperaturePoint outlet = shifted(supply, rise);
  auto m = c.at(shifted(supply, 0.5 * rise));
  if (!m) return m.error();
  if (auto o = c.at(outlet); !o) return o.error();
  FlowPoint p{};
  p.supply = supply;
  p.outlet = outlet;
  p.rise = rise;
  p.at_supply = *s;
  p.at_mean = *m;
  p.mass_flow = mass_flow_for(heat, m->specific_heat, rise);
  p.volume_flow = volume_flow(p.mass_flow, s->density);
  return p;
}

Expected<FlowPoint> rise_for_flow(const Coolant& c, Watts heat, TemperaturePoint supply, CubicMetersPerSecond flow) {
  auto s = c.at(supply);
  if (!s) return s.error();
  FlowPoint p{};
  p.supply = supply;
  p.at_supply = *s;
  p.volume_flow = flow;
  p.mass_flow = mass_flow(flow, s->density);
  // Fixed point on the mean temperature: c_p varies by a fraction of a percent over the range, so
  // this contracts fast.
  CoolantState mean = *s;
  Kelvin rise = rise_for(heat, p.mass_flow, mean.specific_heat);
  for (p.iterations = 1; p.iterations <= 100; ++p.iterations) {
    auto m = c.at(shifted(supply, 0.5 * rise));
    if (!m) return m.error();
    mean = *m;
    const Kelvin next = rise_for(heat, p.mass_flow, mean.specific_heat);
    const bool done = std::fabs((next - rise).value()) <= 1e-12 * std::max(1.0, next.value());
    rise = next;
    if (done) break;
  }
  p.rise = rise;
  p.at_mean = mean;
  p.outlet = shifted(supply, rise);
  if (auto o = c.at(p.outlet); !o) return o.error();
  return p;
}

}  // namespace infracalc::cooling
