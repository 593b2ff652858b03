#include "plugins/cooling/hydraulics.hpp"

#include <cmath>

namespace infracalc::cooling {

namespace {
constexpr double kLaminarLimit = 2300.0;
}

Number reynolds(KilogramsPerCubicMeter density, MetersPerSecond velocity, Meters diameter, PascalSeconds viscosity) {
  return density * velocity * diameter / viscosity;
}

Number friction_factor(Number re_n, Number relative_roughness) {
  const double re = re_n.value();
  if (re < kLaminarLimit) return Number::from_value(64.0 / re);
  const double a = relative_roughness.value() / 3.7;
  const double b = 2.51 / re;
  // Start from Swamee-Jain (1976), then Newton on x = 1/sqrt(f): g(x) = x + 2 log10(a + b x) = 0.
  const double sj = 0.25 / std::pow(std::log10(a + 5.74 / std::pow(re, 0.9)), 2.0);
  double x = 1.0 / std::sqrt(sj);
  for (int i = 0; i < 50; ++i) {
    const double g = x + 2.0 * std::log10(a + b * x);
    const double dg = 1.0 + 2.0 * b / ((a + b * x) * std::log(10.0));
    const double step = g / dg;
    x -= step;
    if (std::fabs(step) <= 1e-15 * x) break;
  }
  return Number::from_value(1.0 / (x * x));
}

MetersPerSecond mean_velocity(CubicMetersPerSecond flow, Meters diameter) { return flow / (M_PI / 4.0 * diameter * diameter); }

Meters diameter_for_velocity(CubicMetersPerSecond flow, MetersPerSecond velocity) {
  return from_base<Meters>(std::sqrt((4.0 * flow / (M_PI * velocity)).value()));
}

PipeFlow pipe_flow(CubicMetersPerSecond flow, const Pipe& pipe, const CoolantState& s) {
  PipeFlow p{};
  p.velocity = mean_velocity(flow, pipe.diameter);
  p.reynolds = reynolds(s.density, p.velocity, pipe.diameter, s.viscosity);
  p.friction = friction_factor(p.reynolds, pipe.roughness / pipe.diameter);
  p.pressure_drop = p.friction * (pipe.length / pipe.diameter) * s.density * p.velocity * p.velocity / 2.0;
  return p;
}

Number local_exponent(CubicMetersPerSecond flow, const Pipe& pipe, const CoolantState& s) {
  // Central difference of ln f against ln Re; Re is proportional to Q at fixed geometry and fluid.
  const Number re = reynolds(s.density, mean_velocity(flow, pipe.diameter), pipe.diameter, s.viscosity);
  const Number rr = pipe.roughness / pipe.diameter;
  if (re.value() < kLaminarLimit) return Number::from_value(1.0);
  const double h = 1e-4;
  const double up = std::log(friction_factor(re * std::exp(h), rr).value());
  const double dn = std::log(friction_factor(re * std::exp(-h), rr).value());
  return Number::from_value(2.0 + (up - dn) / (2.0 * h));
}

Number exponent_between(Pascals dp1, CubicMetersPerSecond q1, Pascals dp2, CubicMetersPerSecond q2) {
  return Number::from_value(std::log((dp2 / dp1).value()) / std::log((q2 / q1).value()));
}

Pascals scale_pressure_drop(Pascals dp_ref, CubicMetersPerSecond q_ref, CubicMetersPerSecond q, Number n) {
  return dp_ref * std::pow((q / q_ref).value(), n.value());
}

Watts hydraulic_power(CubicMetersPerSecond flow, Pascals dp) { return flow * dp; }

}  // namespace infracalc::cooling
