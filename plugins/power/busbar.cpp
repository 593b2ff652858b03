#include "plugins/power/busbar.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace infracalc::pwr {

BusbarSolution solve_busbar(Watts power, Volts source, Ohms path, int taps, LoadModel model) {
  const auto n = static_cast<std::size_t>(taps);
  const double r_seg = path.value() / static_cast<double>(taps);
  const double p_tap = power.value() / static_cast<double>(taps);
  const double vs = source.value();
  std::vector<double> v(n, vs), i_tap(n), i_seg(n);
  BusbarSolution sol;
  for (sol.sweeps = 1; sol.sweeps <= 200; ++sol.sweeps) {
    // Backward sweep: tap currents at the present node voltages, summed from the far end.
    for (std::size_t k = 0; k < n; ++k) i_tap[k] = p_tap / (model == LoadModel::constant_power ? v[k] : vs);
    double acc = 0.0;
    for (std::size_t k = n; k-- > 0;) {
      acc += i_tap[k];
      i_seg[k] = acc;
    }
    // Forward sweep: node voltages from the feed.
    double change = 0.0, vk = vs;
    for (std::size_t k = 0; k < n; ++k) {
      vk -= i_seg[k] * r_seg;
      if (vk <= 0.0) throw std::runtime_error("bus bar collapses: the drop exceeds the supply voltage");
      change = std::max(change, std::fabs(vk - v[k]));
      v[k] = vk;
    }
    if (change <= 1e-13 * vs) break;
  }
  double loss = 0.0;
  for (std::size_t k = 0; k < n; ++k) loss += i_seg[k] * i_seg[k] * r_seg;
  sol.loss = from_base<Watts>(loss);
  sol.far_voltage = from_base<Volts>(v[n - 1]);
  sol.feed_current = from_base<Amperes>(i_seg[0]);
  return sol;
}

}  // namespace infracalc::pwr
