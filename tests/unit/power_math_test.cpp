// The power plugin's typed formulas: rack load, the linear utilisation model, supply current and
// conduction loss, conductors, energy, the weighted PUE, the swing, and the ledger, bus bar and swing
// simulations behind the kernels.
#include <catch2/catch.hpp>
#include <cmath>

#include "plugins/power/busbar.hpp"
#include "plugins/power/conductor.hpp"
#include "plugins/power/ledger.hpp"
#include "plugins/power/power_math.hpp"
#include "plugins/power/swing_sim.hpp"

using namespace infracalc;

namespace {
Watts W(double v) { return from_base<Watts>(v); }
Volts V(double v) { return from_base<Volts>(v); }
Number N(double v) { return Number::from_value(v); }
}  // namespace

TEST_CASE("a rack sums its parts", "[power]") {
  pwr::RackParts p{N(72), W(1200), N(18), W(1200), N(72), W(30), N(9), W(1700), W(500)};
  const auto l = pwr::rack_load(p);
  CHECK(l.gpus.value() == 86400.0);
  CHECK(l.hosts.value() == 21600.0);
  CHECK(l.nics.value() == 2160.0);
  CHECK(l.switches.value() == 15300.0);
  CHECK(l.it.value() == Approx(125960.0));
}

TEST_CASE("the linear utilisation model", "[power]") {
  CHECK(pwr::average_power(W(1000), N(0.5), N(0.0)).value() == 500.0);
  CHECK(pwr::average_power(W(1000), N(0.0), N(0.3)).value() == 300.0);
  CHECK(pwr::average_power(W(1000), N(1.0), N(0.3)).value() == 1000.0);
  CHECK(pwr::average_power(W(1000), N(0.6), N(0.3)).value() == Approx(720.0));
  CHECK(pwr::input_power(W(960), N(0.96)).value() == Approx(1000.0));
}

TEST_CASE("supply current for DC, single- and three-phase AC", "[power]") {
  CHECK(pwr::supply_current(W(18000), V(48), pwr::Supply::dc, N(1)).value() == 375.0);
  CHECK(pwr::supply_current(W(2300), V(230), pwr::Supply::ac_single, N(0.5)).value() == Approx(20.0));
  CHECK(pwr::supply_current(W(132000), V(415), pwr::Supply::ac_three, N(0.95)).value() == Approx(193.30).epsilon(1e-4));
}

TEST_CASE("conduction loss: out and back for DC, three conductors for three-phase", "[power]") {
  const Ohms r = from_base<Ohms>(1e-3);
  CHECK(pwr::path_resistance(r, pwr::Supply::dc).value() == 2e-3);
  CHECK(pwr::path_resistance(r, pwr::Supply::ac_three).value() == 1e-3);
  const Amperes i = from_base<Amperes>(100.0);
  CHECK(pwr::conduction_loss(i, from_base<Ohms>(2e-3), pwr::Supply::dc, N(1)).value() == Approx(20.0));
  CHECK(pwr::conduction_loss(i, from_base<Ohms>(1e-3), pwr::Supply::ac_three, N(1)).value() == Approx(30.0));
  CHECK(pwr::voltage_drop(i, from_base<Ohms>(2e-3), pwr::Supply::dc, N(1), N(1)).value() == Approx(0.2));
}

TEST_CASE("raising the voltage: current falls linearly, loss quadratically", "[power]") {
  CHECK(pwr::loss_ratio(V(12), V(48)).value() == Approx(1.0 / 16.0));
  CHECK(pwr::loss_ratio(V(800), V(48)).value() == Approx(277.777777778));
}

TEST_CASE("distributed taps lose a third in the limit", "[power]") {
  CHECK(pwr::distributed_loss_factor(1).value() == 1.0);
  CHECK(pwr::distributed_drop_factor(1).value() == 1.0);
  CHECK(pwr::distributed_loss_factor(2).value() == Approx(5.0 / 8.0));  // (I^2 + (I/2)^2) / 2 / I^2
  CHECK(pwr::distributed_loss_factor(100000).value() == Approx(1.0 / 3.0).epsilon(1e-4));
  CHECK(pwr::distributed_drop_factor(100000).value() == Approx(0.5).epsilon(1e-4));
}

TEST_CASE("conductors: AWG areas and resistivity with temperature", "[power]") {
  CHECK(pwr::awg_area("4/0").value().value() == Approx(107.2e-6).epsilon(1e-3));
  CHECK(pwr::awg_area("0000").value().value() == pwr::awg_area("4/0").value().value());
  CHECK(pwr::awg_area("10").value().value() == Approx(5.261e-6).epsilon(1e-3));
  CHECK(pwr::awg_area("AWG 12").value().value() == Approx(3.309e-6).epsilon(1e-3));
  CHECK_FALSE(pwr::awg_area("12mm").ok());
  CHECK_FALSE(pwr::awg_area("50").ok());
  const auto* cu = pwr::find_conductor_material("copper");
  REQUIRE(cu != nullptr);
  CHECK(pwr::resistivity_at(*cu, TemperaturePoint::from_value(293.15)).value() == Approx(1.7241e-8).epsilon(1e-4));
  CHECK(pwr::resistivity_at(*cu, TemperaturePoint::from_value(363.15)).value() == Approx(1.7241e-8 * (1 + 0.00393 * 70)).epsilon(1e-4));
  CHECK(pwr::find_conductor_material("aluminum") == pwr::find_conductor_material("aluminium"));
  CHECK(pwr::find_conductor_material("gold") == nullptr);
}

TEST_CASE("energy, cost, energy per token", "[power]") {
  const Joules e = pwr::energy(W(1000), from_base<Seconds>(3600));
  CHECK(e.value() == 3.6e6);
  CHECK(pwr::energy_cost(e, from_base<UsdPerJoule>(0.10 / 3.6e6)).value() == Approx(0.10));
  CHECK(pwr::energy_per_token(W(700), from_base<TokensPerSecond>(1400)).value() == 0.5);
}

TEST_CASE("PUE is weighted by energy", "[power]") {
  const std::vector<Joules> it = {from_base<Joules>(120.0), from_base<Joules>(40.0)};
  const std::vector<Number> pue = {N(1.1), N(1.6)};
  CHECK(pwr::weighted_pue(it, pue).value() == Approx(1.225));
}

TEST_CASE("a synchronous job swings between its low and high load", "[power]") {
  const auto s = pwr::training_swing(W(1e9), N(0.3), N(1.0), from_base<Seconds>(0.02));
  CHECK(s.step.value() == Approx(7e8));
  CHECK(s.low.value() == Approx(3e8));
  CHECK(s.ramp_rate.value() == Approx(3.5e10));
}

TEST_CASE("the swing simulation matches the formula when synchronous and shrinks with skew", "[power]") {
  pwr::SwingSetup s;
  s.gpus = 64;
  s.gpu_power = W(1000);
  s.compute = from_base<Seconds>(0.2);
  s.wait = from_base<Seconds>(0.05);
  s.ramp = from_base<Seconds>(0.01);
  s.skew = from_base<Seconds>(0.0);
  s.dt = from_base<Seconds>(0.001);
  const auto m = pwr::simulate_swing(s, 1);
  CHECK((m.max - m.min).value() == Approx(64 * 700.0));
  s.skew = from_base<Seconds>(0.1);
  const auto skewed = pwr::simulate_swing(s, 1);
  CHECK((skewed.max - skewed.min).value() < 0.8 * 64 * 700.0);
}

TEST_CASE("the bus bar sweep agrees with the closed form for constant-current loads", "[power]") {
  const auto sol = pwr::solve_busbar(W(120e3), V(48), from_base<Ohms>(20e-6), 18, pwr::LoadModel::constant_current);
  const Amperes i = pwr::supply_current(W(120e3), V(48), pwr::Supply::dc, N(1));
  CHECK(sol.loss.value() == Approx(pwr::conduction_loss(i, from_base<Ohms>(20e-6), pwr::Supply::dc, pwr::distributed_loss_factor(18)).value()));
  const auto cp = pwr::solve_busbar(W(120e3), V(48), from_base<Ohms>(20e-6), 18, pwr::LoadModel::constant_power);
  CHECK(cp.loss.value() > sol.loss.value());
  CHECK(cp.feed_current.value() > i.value());
}

TEST_CASE("the ledger sums a year and splits it by month", "[power]") {
  pwr::YearProfile p;
  p.peak = W(1e6);
  p.utilisation = 1.0;
  p.daily_swing = p.pue_seasonal = p.pue_daily = 0.0;
  p.pue = 1.5;
  const auto rows = pwr::synthetic_year(p, from_base<UsdPerJoule>(1e-8), from_base<KilogramsPerJoule>(1e-7), from_base<JoulesPerToken>(1.0), 1);
  REQUIRE(rows.size() == 8760);
  const auto t = pwr::run_ledger(rows);
  CHECK(t.it.value() == Approx(1e6 * 8760 * 3600));
  CHECK(t.facility.value() == Approx(1.5e6 * 8760 * 3600));
  CHECK(t.month_it[1].value() == Approx(1e6 * 28 * 24 * 3600));  // February
  CHECK(t.month_it[11].value() == Approx(1e6 * 31 * 24 * 3600));
}
