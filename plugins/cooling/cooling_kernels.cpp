// Reference kernels for the cooling plugin: a hydraulic and heat-balance solution of CDU loops
// against the closed forms of `cooling flow` and `cooling pressure`, and an independent Colebrook
// solution against the friction factor the calculators use.
#include <cmath>
#include <fmt/format.h>

#include "plugins/cooling/coolant.hpp"
#include "plugins/cooling/cooling_plugin.hpp"
#include "plugins/cooling/cooling_math.hpp"
#include "plugins/cooling/hydraulics.hpp"
#include "plugins/cooling/loop_solver.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

using namespace cooling;

Quantity q(const auto& x) { return to_quantity(x); }

CubicMetersPerSecond lpm(double v) { return from_base<CubicMetersPerSecond>(v / 60000.0); }

Coolant water() {
  const Entry* e = Catalog::instance().find("coolant-water");
  if (e == nullptr) throw std::runtime_error("coolant-water is not in the catalog");
  return Coolant::from_entry(*e).value_or_throw();
}

LoopRack rack(std::string name, double kw, double scale, Pipe hose) {
  return {std::move(name), from_base<Watts>(kw * 1e3),
          PlateCurve{from_base<Pascals>(scale * 2.3 * 6894.757293168361), lpm(59.0), Number::from_value(1.893)}, hose};
}

std::vector<KernelCheck> run_loop_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const Coolant c = water();
  const TemperaturePoint supply = from_celsius(30.0);
  const Pipe none{from_base<Meters>(0.0), from_base<Meters>(0.038), from_base<Meters>(45e-6)};
  const Pipe hose{from_base<Meters>(4.0), from_base<Meters>(0.038), from_base<Meters>(45e-6)};

  // 1. One rack, nothing else: the rise against Q / (m c_p) with c_p at the mean temperature.
  {
    LoopSpec s;
    s.racks = {rack("r1", 130.0, 1.0, none)};
    s.header = none;
    s.total_flow = lpm(59.0);
    s.supply = supply;
    const auto sol = solve_loop(s, c).value_or_throw();
    const auto f = rise_for_flow(c, from_base<Watts>(130e3), supply, lpm(59.0)).value_or_throw();
    // c_p at the mean temperature against the enthalpy integral: they differ by the curvature of c_p
    // over the rise, about 2e-4 at 32 K.
    out.push_back({"one rack, 130 kW at 59 L/min: rise", q(f.rise), q(sol.branches[0].rise), 5e-4});
    // Unheated, the plate sees the supply density, so the drop at the reference flow is the curve's own.
    s.racks[0].heat = from_base<Watts>(0.0);
    const auto cold = solve_loop(s, c).value_or_throw();
    out.push_back({"one unheated rack: the plate curve's drop at its reference flow", q(from_base<Pascals>(2.3 * 6894.757293168361)),
                   q(cold.loop_dp), 1e-9});
  }
  // 2. One hose and no heat: the drop against Darcy-Weisbach with the calculators' Colebrook.
  {
    LoopSpec s;
    LoopRack r = rack("hose", 0.0, 0.0, hose);
    r.heat = from_base<Watts>(0.0);
    s.racks = {r};
    s.header = none;
    s.supply = supply;
    const CoolantState st = c.at(supply).value_or_throw();
    for (double flow : {59.0, 177.0}) {
      s.total_flow = lpm(flow);
      const auto sol = solve_loop(s, c).value_or_throw();
      const PipeFlow pf = pipe_flow(lpm(flow), hose, st);
      out.push_back({fmt::format("one 38 mm hose at {:.0f} L/min: Darcy-Weisbach drop", flow), q(pf.pressure_drop), q(sol.loop_dp), 1e-9});
    }
    s.total_flow = lpm(59.0);
    const double dp1 = solve_loop(s, c).value_or_throw().loop_dp.value();
    s.total_flow = lpm(59.0 * 1.01);
    const double dp2 = solve_loop(s, c).value_or_throw().loop_dp.value();
    s.total_flow = lpm(59.0 / 1.01);
    const double dp0 = solve_loop(s, c).value_or_throw().loop_dp.value();
    const double n_solver = std::log(dp2 / dp0) / (2.0 * std::log(1.01));
    out.push_back({"one hose: local exponent d ln dP / d ln Q", Quantity::number(local_exponent(lpm(59.0), hose, st).value()),
                   Quantity::number(n_solver), 2e-4});
    (void)dp1;
  }
  // 3. Identical racks on ideal headers: an even split and the single-rack rise.
  {
    const int racks = opt.quick ? 8 : 16;
    LoopSpec s;
    for (int i = 0; i < racks; ++i) s.racks.push_back(rack(fmt::format("r{}", i + 1), 120.0, 1.0, hose));
    s.header = none;
    s.total_flow = lpm(1.5 * 120.0 * racks);
    s.supply = supply;
    const auto sol = solve_loop(s, c).value_or_throw();
    const auto f = rise_for_flow(c, from_base<Watts>(120e3), supply, lpm(180.0)).value_or_throw();
    out.push_back({fmt::format("{} identical racks, ideal headers: flow of the last", racks), q(lpm(180.0)), q(sol.branches.back().flow), 1e-10});
    out.push_back({fmt::format("{} identical racks: rise of each", racks), q(f.rise), q(sol.branches.back().rise), 5e-4});
  }
  // 4. An uneven loop: direct-return headers, one restrictive rack, unequal heats.
  {
    LoopSpec s;
    const std::vector<double> kw = {130, 130, 130, 90, 130, 60, 130, 130};
    for (std::size_t i = 0; i < kw.size(); ++i) s.racks.push_back(rack(fmt::format("r{}", i + 1), kw[i], i == 3 ? 1.6 : 1.0, hose));
    s.header = {from_base<Meters>(0.6), from_base<Meters>(0.0779), from_base<Meters>(45e-6)};
    s.total_flow = lpm(1500.0);
    s.supply = supply;
    double heat = 0.0;
    for (double x : kw) heat += x * 1e3;
    const auto sol = solve_loop(s, c).value_or_throw();
    double m = 0.0;
    for (const auto& b : sol.branches) m += b.mass_flow.value();
    const double m_total = lpm(1500.0).value() * c.at(supply).value_or_throw().density.value();
    out.push_back({"uneven loop: rack flows add up to the CDU's (mass)", q(from_base<KilogramsPerSecond>(m_total)),
                   q(from_base<KilogramsPerSecond>(m)), 1e-10});
    out.push_back({"uneven loop: heat picked up = heat of the racks", q(from_base<Watts>(heat)), q(sol.heat_picked_up), 1e-9});
    const auto f = rise_for_flow(c, from_base<Watts>(heat), supply, lpm(1500.0)).value_or_throw();
    out.push_back({"uneven loop: mixed return against Q / (m c_p) for the whole loop", q(f.rise),
                   q(difference(sol.mixed_return, supply)), 1e-3});
    out.push_back({"uneven loop: mass imbalance at the worst node, share of the flow", Quantity::number(0.0), Quantity::number(sol.node_residual), 0.0, 1e-10});
    if (opt.trace) {
      fmt::print(stderr, "loop: direct return, 8 racks, 1500 L/min at 30 degC; rack 4 has a 1.6x restrictive plate\n");
      for (std::size_t i = 0; i < sol.branches.size(); ++i) {
        const auto& b = sol.branches[i];
        fmt::print(stderr, "loop: rack {}  {:>5} kW  {:>11}  dP {:>9}  rise {:>8}  out {}\n", i + 1, kw[i],
                   format_human(q(b.flow), {}, "L/min"), format_human(q(b.dp)), format_human(q(b.rise)), point_text(b.outlet));
      }
      fmt::print(stderr, "loop: mixed return {}, loop dP {}, {} outer / {} Newton iterations\n", point_text(sol.mixed_return),
                 format_human(q(sol.loop_dp)), sol.outer_iterations, sol.newton_iterations);
    }
  }
  return out;
}

// The calculators' Colebrook (Newton) against the solver's (fixed point), over the Moody chart.
std::vector<KernelCheck> run_colebrook_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const CoolantState st{from_base<KilogramsPerCubicMeter>(1000.0), from_base<JoulesPerKilogramKelvin>(4180.0),
                        from_base<PascalSeconds>(1e-3)};
  for (double re : {4e3, 1e5, 1e7}) {
    for (double rr : {0.0, 1e-4, 1e-2}) {
      // A 1 m pipe of 10 mm bore carrying the flow of this Reynolds number.
      const double d = 0.01;
      const double v = re * 1e-3 / (1000.0 * d);
      const KilogramsPerSecond m = from_base<KilogramsPerSecond>(1000.0 * v * M_PI * d * d / 4.0);
      const Pipe pipe{from_base<Meters>(1.0), from_base<Meters>(d), from_base<Meters>(rr * d)};
      const Pascals formula = pipe_flow(m / st.density, pipe, st).pressure_drop;
      out.push_back({fmt::format("Darcy-Weisbach drop at Re {:.0e}, e/D {:g}", re, rr), q(formula), q(solver_pipe_drop(pipe, m, st)), 1e-12});
      if (opt.trace)
        fmt::print(stderr, "colebrook: Re {:.0e} e/D {:g}: f = {:.6f}\n", re, rr, friction_factor(Number::from_value(re), Number::from_value(rr)).value());
    }
  }
  return out;
}

}  // namespace

std::vector<Kernel> cooling_kernels() {
  return {
      {"cdu-loop", "solves CDU loops (Newton on node pressures, enthalpy balances) against the flow, rise and drop closed forms",
       run_loop_kernel},
      {"colebrook", "an independent fixed-point Colebrook against the Newton solution the calculators use", run_colebrook_kernel},
  };
}

}  // namespace infracalc
