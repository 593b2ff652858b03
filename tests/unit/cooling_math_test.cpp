// The cooling plugin's formulas: coolant tables, the heat balance, pipe hydraulics, facility metrics,
// and the loop solver on small loops.
#include <catch2/catch.hpp>
#include <cmath>

#include "catalog/catalog.hpp"
#include "plugins/cooling/coolant.hpp"
#include "plugins/cooling/facility_math.hpp"
#include "plugins/cooling/cooling_math.hpp"
#include "plugins/cooling/hydraulics.hpp"
#include "plugins/cooling/loop_solver.hpp"

using namespace infracalc;
using namespace infracalc::cooling;

namespace {
Coolant catalog_coolant(const std::string& id) {
  Catalog::instance().reset();
  const Entry* e = Catalog::instance().find(id);
  REQUIRE(e != nullptr);
  return Coolant::from_entry(*e).value_or_throw();
}
CubicMetersPerSecond lpm(double v) { return from_base<CubicMetersPerSecond>(v / 60000.0); }
}  // namespace

TEST_CASE("water properties come from the table and interpolate linearly", "[cooling]") {
  const Coolant w = catalog_coolant("coolant-water");
  const auto at20 = w.at(from_celsius(20.0));
  REQUIRE(at20.ok());
  CHECK(at20->density.value() == Approx(998.21));
  CHECK(at20->specific_heat.value() == Approx(4184.4));
  CHECK(at20->viscosity.value() == Approx(1.0016e-3));
  const auto at22 = w.at(from_celsius(22.5));
  CHECK(at22->density.value() == Approx(0.5 * (998.21 + 997.05)));
  CHECK_FALSE(w.at(from_celsius(-5.0)).ok());
  CHECK_FALSE(w.at(from_celsius(120.0)).ok());
}

TEST_CASE("PG25 is denser and holds less heat than water", "[cooling]") {
  const Coolant pg = catalog_coolant("coolant-pg25");
  const Coolant w = catalog_coolant("coolant-water");
  const auto a = pg.at(from_celsius(30.0)).value();
  const auto b = w.at(from_celsius(30.0)).value();
  CHECK(a.density.value() > b.density.value());
  CHECK(a.specific_heat.value() < b.specific_heat.value());
  CHECK(a.viscosity.value() > 2.0 * b.viscosity.value());
  CHECK(pg.at(from_celsius(-5.0)).ok());  // liquid below 0 degC
}

TEST_CASE("enthalpy is the integral of the specific heat", "[cooling]") {
  Coolant w = catalog_coolant("coolant-water");
  const auto h = w.enthalpy_per_kg(from_celsius(40.0), from_celsius(30.0));
  REQUIRE(h.ok());
  CHECK(h->value() == Approx(10.0 * 4179.8).epsilon(1e-4));
  CHECK(w.enthalpy_per_kg(from_celsius(30.0), from_celsius(40.0))->value() == Approx(-h->value()));
  w.override_specific_heat(from_base<JoulesPerKilogramKelvin>(4000.0));
  CHECK(w.enthalpy_per_kg(from_celsius(40.0), from_celsius(30.0))->value() == Approx(40000.0));
}

TEST_CASE("flow for a rise and rise for a flow are inverses", "[cooling]") {
  const Coolant w = catalog_coolant("coolant-water");
  const Watts q = from_base<Watts>(130e3);
  const auto f = flow_for_rise(w, q, from_celsius(30.0), from_base<Kelvin>(10.0)).value();
  CHECK(f.volume_flow.value() * 60000.0 == Approx(187.44).epsilon(1e-4));
  const auto r = rise_for_flow(w, q, from_celsius(30.0), f.volume_flow).value();
  CHECK(r.rise.value() == Approx(10.0).epsilon(1e-9));
  const auto back = rise_for_flow(w, q, from_celsius(25.0), lpm(59.0)).value();
  CHECK(back.rise.value() == Approx(31.72).epsilon(1e-3));
  CHECK(back.iterations > 1);
  CHECK_FALSE(rise_for_flow(w, q, from_celsius(60.0), lpm(10.0)).ok());  // boils off the table
}

TEST_CASE("friction factor: laminar, Colebrook, and the Moody chart", "[cooling]") {
  CHECK(friction_factor(Number::from_value(1000), Number::from_value(0)).value() == Approx(0.064));
  // Smooth pipe at Re 1e5: Colebrook gives 0.01799 (Moody chart 0.018).
  CHECK(friction_factor(Number::from_value(1e5), Number::from_value(0)).value() == Approx(0.01799).epsilon(2e-3));
  // Fully rough, e/D 0.01: von Karman 1/sqrt(f) = -2 log10(e/3.7D) gives 0.0379.
  CHECK(friction_factor(Number::from_value(1e8), Number::from_value(0.01)).value() == Approx(0.0379).epsilon(5e-3));
}

TEST_CASE("pressure drop scaling and the exponent", "[cooling]") {
  const Pascals a = from_base<Pascals>(2.3 * 6894.757);
  const Pascals b = from_base<Pascals>(18.4 * 6894.757);
  const Number n = exponent_between(a, lpm(59), b, lpm(177));
  CHECK(n.value() == Approx(std::log(8.0) / std::log(3.0)));
  CHECK(scale_pressure_drop(a, lpm(59), lpm(177), n).value() == Approx(b.value()));
  const CoolantState s{from_base<KilogramsPerCubicMeter>(996), from_base<JoulesPerKilogramKelvin>(4180), from_base<PascalSeconds>(0.8e-3)};
  const Pipe smooth{from_base<Meters>(1), from_base<Meters>(0.05), from_base<Meters>(0)};
  const Pipe rough{from_base<Meters>(1), from_base<Meters>(0.05), from_base<Meters>(0.5e-3)};
  const double n_smooth = local_exponent(lpm(300), smooth, s).value();
  const double n_rough = local_exponent(lpm(3000), rough, s).value();
  CHECK(n_smooth > 1.7);
  CHECK(n_smooth < 1.9);
  CHECK(n_rough > 1.95);
  CHECK(n_rough <= 2.0);
  CHECK(diameter_for_velocity(lpm(177), from_base<MetersPerSecond>(2.0)).value() == Approx(0.043336).epsilon(1e-4));
  CHECK(hydraulic_power(lpm(60), from_base<Pascals>(100e3)).value() == Approx(100.0));
}

TEST_CASE("facility metrics", "[cooling]") {
  const Number pue = Number::from_value(1.54);
  CHECK(overhead_share(pue).value() == Approx(0.54 / 1.54));
  CHECK(facility_power(from_base<Watts>(1e6), pue).value() == Approx(1.54e6));
  const Joules it = from_base<Joules>(3.6e9);  // 1 MWh
  CHECK(site_water(it, from_base<CubicMetersPerJoule>(1.8e-3 / 3.6e6)).value() == Approx(1.8));
  CHECK(cue(Number::from_value(1.2), from_base<KilogramsPerJoule>(0.4 / 3.6e6)).value() * 3.6e6 == Approx(0.48));
  CHECK(ere(it, it * 1.3, it * 0.5).value() == Approx(0.8));
  CHECK(erf(it * 1.3, it * 0.5).value() == Approx(0.5 / 1.3));
  const Joules life = lifetime_energy(from_base<Watts>(700), Number::from_value(0.6), from_base<Seconds>(5 * 8760 * 3600.0),
                                      Number::from_value(1.0));
  CHECK(life.value() / 3.6e6 == Approx(18396.0));
  CHECK(parity_intensity(from_base<Kilograms>(150), life).value() * 3.6e6 * 1000 == Approx(8.154).epsilon(1e-3));
}

TEST_CASE("the loop solver splits evenly on a symmetric loop and favours the near racks on direct return", "[cooling]") {
  const Coolant w = catalog_coolant("coolant-water");
  const Pipe hose{from_base<Meters>(4), from_base<Meters>(0.038), from_base<Meters>(45e-6)};
  LoopSpec s;
  for (int i = 0; i < 4; ++i)
    s.racks.push_back({"r", from_base<Watts>(100e3), {from_base<Pascals>(20e3), lpm(150), Number::from_value(1.9)}, hose});
  s.header = {from_base<Meters>(0), from_base<Meters>(0.08), from_base<Meters>(45e-6)};
  s.total_flow = lpm(600);
  s.supply = from_celsius(30);
  const auto even = solve_loop(s, w);
  REQUIRE(even.ok());
  for (const auto& b : even->branches) CHECK(b.flow.value() * 60000 == Approx(150.0));
  s.header.length = from_base<Meters>(2.0);
  const auto direct = solve_loop(s, w).value();
  CHECK(direct.branches.front().flow.value() > direct.branches.back().flow.value());
  s.reverse_return = true;
  const auto reverse = solve_loop(s, w).value();
  const double spread_direct = direct.branches.front().flow.value() / direct.branches.back().flow.value() - 1;
  double qmin = 1e9, qmax = 0;
  for (const auto& b : reverse.branches) {
    qmin = std::min(qmin, b.flow.value());
    qmax = std::max(qmax, b.flow.value());
  }
  CHECK(qmax / qmin - 1 < spread_direct);
  double sum = 0;
  for (const auto& b : reverse.branches) sum += b.mass_flow.value();
  CHECK(sum == Approx(lpm(600).value() * w.at(from_celsius(30)).value().density.value()));
}
