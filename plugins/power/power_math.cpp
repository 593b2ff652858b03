#include "plugins/power/power_math.hpp"

#include <cmath>
#include <stdexcept>

namespace infracalc::pwr {

RackLoad rack_load(const RackParts& p) {
  RackLoad l;
  l.gpus = p.gpus * p.gpu_power;
  l.hosts = p.hosts * p.host_power;
  l.nics = p.nics * p.nic_power;
  l.switches = p.switches * p.switch_power;
  l.other = p.other;
  l.it = l.gpus + l.hosts + l.nics + l.switches + l.other;
  return l;
}

Watts average_power(Watts peak, Number utilisation, Number idle_fraction) {
  const Watts idle = idle_fraction * peak;
  return idle + utilisation * (peak - idle);
}

Watts input_power(Watts output, Number efficiency) { return output / efficiency; }

Amperes supply_current(Watts load, Volts voltage, Supply supply, Number power_factor) {
  switch (supply) {
    case Supply::dc: return load / voltage;
    case Supply::ac_single: return load / (voltage * power_factor);
    case Supply::ac_three: return load / (std::sqrt(3.0) * voltage * power_factor);
  }
  throw std::logic_error("unknown supply");
}

Ohms path_resistance(Ohms conductor, Supply supply) { return supply == Supply::ac_three ? conductor : 2.0 * conductor; }

Watts conduction_loss(Amperes current, Ohms path, Supply supply, Number distribution_factor) {
  const double phases = supply == Supply::ac_three ? 3.0 : 1.0;
  return phases * distribution_factor * current * current * path;
}

Volts voltage_drop(Amperes current, Ohms path, Supply supply, Number power_factor, Number distribution_factor) {
  // For evenly spread taps the drop to the far end is (N+1)/(2N) of the lumped drop, not the loss
  // factor; callers pass the factor that applies to what they ask for.
  if (supply == Supply::ac_three) return std::sqrt(3.0) * distribution_factor * power_factor * current * path;
  return distribution_factor * current * path;
}

Number loss_ratio(Volts from, Volts to) {
  const Number r = from / to;
  return r * r;
}

Joules energy(Watts power, Seconds period) { return power * period; }

Usd energy_cost(Joules energy, UsdPerJoule tariff) { return energy * tariff; }

JoulesPerToken energy_per_token(Watts power, TokensPerSecond throughput) { return power / throughput; }

Number weighted_pue(std::span<const Joules> it_energy, std::span<const Number> pue) {
  if (it_energy.size() != pue.size()) throw std::logic_error("weighted_pue: sizes differ");
  Joules it = from_base<Joules>(0.0);
  Joules total = from_base<Joules>(0.0);
  for (std::size_t i = 0; i < pue.size(); ++i) {
    it += it_energy[i];
    total += it_energy[i] * pue[i];
  }
  return total / it;
}

Swing training_swing(Watts it_peak, Number low_fraction, Number high_fraction, Seconds ramp_time) {
  Swing s;
  s.high = high_fraction * it_peak;
  s.low = low_fraction * it_peak;
  s.step = s.high - s.low;
  s.ramp_rate = s.step / ramp_time;
  return s;
}

}  // namespace infracalc::pwr
