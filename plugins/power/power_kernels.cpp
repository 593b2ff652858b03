// Reference kernels for the power plugin: an hourly energy ledger over a whole year, a time-stepped
// simulation of a synchronous training job's power, and a node-by-node solution of a tapped bus bar.
#include <fmt/format.h>
#include <numeric>

#include "plugins/power/busbar.hpp"
#include "plugins/power/conductor.hpp"
#include "plugins/power/ledger.hpp"
#include "plugins/power/power_math.hpp"
#include "plugins/power/power_plugin.hpp"
#include "plugins/power/swing_sim.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

Quantity q(const auto& x) { return to_quantity(x); }

// Constant and swinging years: the ledger's totals against `power energy`'s closed forms.
std::vector<KernelCheck> run_ledger_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const UsdPerJoule tariff = from_base<UsdPerJoule>(0.08 / 3.6e6);
  const KilogramsPerJoule carbon = from_base<KilogramsPerJoule>(0.4 / 3.6e6);
  const JoulesPerToken per_token = from_base<JoulesPerToken>(0.5);  // 0.5 J of IT energy per token
  const Seconds year = from_base<Seconds>(pwr::kHoursPerYear * 3600.0);

  // A constant year: 10 MW at PUE 1.3.
  {
    pwr::YearProfile p;
    p.peak = from_base<Watts>(10e6);
    p.utilisation = 1.0;
    p.daily_swing = p.pue_seasonal = p.pue_daily = 0.0;
    p.pue = 1.3;
    const auto rows = pwr::synthetic_year(p, tariff, carbon, per_token, 1);
    const auto t = pwr::run_ledger(rows);
    const Joules it = pwr::energy(p.peak, year);
    const Joules fac = it * 1.3;
    out.push_back({"constant year: IT energy, 10 MW x 8760 h", q(it), q(t.it), 1e-12});
    out.push_back({"constant year: facility energy at PUE 1.3", q(fac), q(t.facility), 1e-12});
    out.push_back({"constant year: bill at $0.08/kWh", q(pwr::energy_cost(fac, tariff)), q(t.bill), 1e-12});
    out.push_back({"constant year: emissions at 400 g/kWh", q(fac * carbon), q(t.emissions), 1e-12});
    const JoulesPerToken formula = pwr::energy_per_token(p.peak, p.peak / per_token) * 1.3;
    out.push_back({"constant year: facility energy per token", q(formula), q(t.facility / t.tokens), 1e-12});
  }

  // A swinging year: utilisation u0 + a cos(day) and PUE p0 + s cos(season) + b cos(day), peaking
  // together in the afternoon. Over whole days and one whole year the cross terms vanish except the
  // daily one: sum(u x PUE) = N (u0 p0 + a b / 2), so the energy-weighted PUE is p0 + a b / (2 u0),
  // above the plain mean p0.
  {
    pwr::YearProfile p;
    p.peak = from_base<Watts>(50e6);
    const auto rows = pwr::synthetic_year(p, tariff, carbon, per_token, 2);
    const auto t = pwr::run_ledger(rows);
    const Joules it = pwr::energy(pwr::average_power(p.peak, Number::from_value(p.utilisation), Number::from_value(0.0)), year);
    const double pue_w = p.pue + p.daily_swing * p.pue_daily / (2.0 * p.utilisation);
    out.push_back({"swinging year: IT energy = mean utilisation x peak x 8760 h", q(it), q(t.it), 1e-12});
    out.push_back({"swinging year: facility energy = IT x energy-weighted PUE", q(it * pue_w), q(t.facility), 1e-12});
    std::vector<Joules> m_it(t.month_it.begin(), t.month_it.end());
    std::vector<Number> m_pue;
    double mean_pue = 0.0;
    for (std::size_t m = 0; m < 12; ++m) {
      m_pue.push_back(t.month_facility[m] / t.month_it[m]);
      mean_pue += m_pue.back().value() / 12.0;
    }
    out.push_back({"swinging year: PUE of 12 months weighted by energy (fleet formula) = annual PUE",
                   Quantity::number(pwr::weighted_pue(m_it, m_pue).value()), Quantity::number((t.facility / t.it).value()), 1e-12});
    if (opt.trace) {
      fmt::print(stderr, "ledger: month   IT energy     PUE\n");
      for (std::size_t m = 0; m < 12; ++m)
        fmt::print(stderr, "ledger: {:5}  {:>12}  {:.4f}\n", m + 1, format_human(q(t.month_it[m])), m_pue[m].value());
      fmt::print(stderr, "ledger: annual PUE by energy {:.5f}, plain mean of months {:.5f}, hourly-weighted closed form {:.5f}\n",
                 (t.facility / t.it).value(), mean_pue, pue_w);
    }
  }

  // A noisy year: random hour-to-hour utilisation; the linear power model makes the mean exact.
  {
    pwr::YearProfile p;
    p.peak = from_base<Watts>(20e6);
    p.noise = 0.15;
    const auto rows = pwr::synthetic_year(p, tariff, carbon, per_token, 3);
    const auto t = pwr::run_ledger(rows);
    double u_sum = 0.0;
    for (const auto& r : rows) u_sum += (r.it / p.peak).value();
    const Number mean_u = Number::from_value(u_sum / static_cast<double>(rows.size()));
    const Joules it = pwr::energy(pwr::average_power(p.peak, mean_u, Number::from_value(0.0)), year);
    out.push_back({"noisy year: IT energy from the mean utilisation", q(it), q(t.it), 1e-11});
  }
  return out;
}

// The aggregate of a simulated synchronous job against the swing and ramp-rate formulas.
std::vector<KernelCheck> run_swing_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  pwr::SwingSetup s;
  s.gpus = opt.quick ? 256 : 4096;
  s.gpu_power = from_base<Watts>(700.0);
  s.low_fraction = 0.3;
  s.compute = from_base<Seconds>(0.400);
  s.wait = from_base<Seconds>(0.100);
  s.ramp = from_base<Seconds>(0.020);
  s.skew = from_base<Seconds>(0.0);
  s.iterations = 3;
  s.dt = from_base<Seconds>(0.001);
  const Watts it = static_cast<double>(s.gpus) * s.gpu_power;
  const pwr::Swing f = pwr::training_swing(it, Number::from_value(0.3), Number::from_value(1.0), s.ramp);
  const pwr::SwingMeasured m = pwr::simulate_swing(s, 7);
  out.push_back({fmt::format("synchronous job, {} x 700 W: swing", s.gpus), q(f.step), q(m.max - m.min), 1e-12});
  out.push_back({"synchronous job: ramp rate over a 20 ms ramp", q(f.ramp_rate), q(m.max_ramp), 1e-9});
  // Time-average: compute, wait and the two ramps at their mean level.
  const double period = 0.4 + 0.1 + 2 * 0.02;
  const Watts mean = it * ((0.4 + 0.1 * 0.3 + 2 * 0.02 * 0.65) / period);
  out.push_back({"synchronous job: time-average power", q(mean), q(m.mean), 1e-3});
  if (opt.trace) {
    for (double skew_ms : {0.0, 5.0, 20.0, 50.0}) {
      s.skew = from_base<Seconds>(skew_ms / 1000.0);
      const auto r = pwr::simulate_swing(s, 7);
      fmt::print(stderr, "swing: skew {:>4} ms: swing {} ({:.0f}% of the synchronous one), ramp {}\n", skew_ms,
                 format_human(q(r.max - r.min)), 100 * ((r.max - r.min) / f.step).value(), format_human(q(r.max_ramp)));
    }
  }
  return out;
}

// A rack bus bar at 12, 48 and 800 V: node-by-node losses against I^2 R with the tap factor.
std::vector<KernelCheck> run_busbar_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const Watts load = from_base<Watts>(120e3);
  const int taps = 18;
  const Number k_loss = pwr::distributed_loss_factor(taps);
  const Number k_drop = pwr::distributed_drop_factor(taps);
  const Ohms path = from_base<Ohms>(20e-6);  // 20 µΩ out and back: a short, heavy bar
  auto formula_loss = [&](Volts v) {
    return pwr::conduction_loss(pwr::supply_current(load, v, pwr::Supply::dc, Number::from_value(1.0)), path,
                                  pwr::Supply::dc, k_loss);
  };
  const Volts v48 = from_base<Volts>(48.0), v12 = from_base<Volts>(12.0), v800 = from_base<Volts>(800.0);
  const auto cc = pwr::solve_busbar(load, v48, path, taps, pwr::LoadModel::constant_current);
  out.push_back({"48 V bar, 18 trays, constant-current loads: loss", q(formula_loss(v48)), q(cc.loss), 1e-12});
  const Amperes i48 = pwr::supply_current(load, v48, pwr::Supply::dc, Number::from_value(1.0));
  out.push_back({"48 V bar, 18 trays: drop to the far tray", q(pwr::voltage_drop(i48, path, pwr::Supply::dc, Number::from_value(1.0), k_drop)),
                 q(v48 - cc.far_voltage), 1e-12});
  // Constant-power trays draw more current as their voltage sags: the closed form is low by about
  // twice the relative drop, so the tolerance is set from the solved drop.
  const auto cp48 = pwr::solve_busbar(load, v48, path, taps, pwr::LoadModel::constant_power);
  const auto cp12 = pwr::solve_busbar(load, v12, path, taps, pwr::LoadModel::constant_power);
  const auto cp800 = pwr::solve_busbar(load, v800, path, taps, pwr::LoadModel::constant_power);
  const double sag12 = ((v12 - cp12.far_voltage) / v12).value();
  out.push_back({"12 V -> 48 V, constant-power trays: loss ratio", Quantity::number(pwr::loss_ratio(v48, v12).value()),
                 Quantity::number((cp12.loss / cp48.loss).value()), 4.0 * sag12});
  const double sag48 = ((v48 - cp48.far_voltage) / v48).value();
  out.push_back({"48 V -> 800 V, constant-power trays: loss ratio", Quantity::number(pwr::loss_ratio(v800, v48).value()),
                 Quantity::number((cp48.loss / cp800.loss).value()), 4.0 * sag48});
  if (opt.trace)
    for (const auto& [v, s] : {std::pair{v12, cp12}, std::pair{v48, cp48}, std::pair{v800, cp800}})
      fmt::print(stderr, "busbar: {} feed {} loss {} far tray at {} ({} sweeps)\n", format_human(q(v)), format_human(q(s.feed_current)),
                 format_human(q(s.loss)), format_human(q(s.far_voltage)), s.sweeps);
  return out;
}

}  // namespace

std::vector<Kernel> power_kernels() {
  return {
      {"energy-ledger", "sums a year of hourly load, PUE, tariff and carbon and checks the energy, bill and PUE closed forms",
       run_ledger_kernel},
      {"sync-swing", "simulates every accelerator of a synchronous job at 1 ms steps and measures the swing and ramp rate",
       run_swing_kernel},
      {"busbar", "solves a tapped DC bus bar node by node and checks I^2R loss, drop and the 12/48/800 V ratios",
       run_busbar_kernel},
  };
}

}  // namespace infracalc
