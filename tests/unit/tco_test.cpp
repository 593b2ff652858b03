// The tco plugin: closed forms, the ledger, input helpers and the calculators.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "catalog/catalog.hpp"
#include "host/context.hpp"
#include "plugins/registry.hpp"
#include "plugins/tco/tco_inputs.hpp"
#include "plugins/tco/tco_ledger.hpp"
#include "plugins/tco/tco_math.hpp"
#include "units/format.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;
using namespace infracalc::tco;

namespace {
Usd usd(double v) { return from_base<Usd>(v); }
UsdPerJoule per_kwh(double v) { return from_base<UsdPerJoule>(v / 3.6e6); }
double dollars_per_hour(UsdPerHour v) { return v.value() * 3600.0; }

}  // namespace

TEST_CASE("a year is the parser's Julian year", "[tco]") {
  CHECK(year() / hour() == Approx(8766.0));
}

TEST_CASE("equipment per sold hour doubles when the sold share halves", "[tco]") {
  const UsdPerHour at70 = equipment_per_sold_hour(usd(40000), usd(0), year() * 4.0, 0.7);
  const UsdPerHour at35 = equipment_per_sold_hour(usd(40000), usd(0), year() * 4.0, 0.35);
  CHECK(dollars_per_hour(at70) == Approx(1.62967).epsilon(1e-5));
  CHECK(at35 / at70 == Approx(2.0));
  CHECK(dollars_per_hour(equipment_per_sold_hour(usd(40000), usd(8000), year() * 4.0, 1.0)) == Approx(32000.0 / 35064.0));
}

TEST_CASE("electricity per sold hour carries idle draw in unsold hours", "[tco]") {
  const Watts kw = from_base<Watts>(1200);
  CHECK(dollars_per_hour(electricity_per_sold_hour(kw, 1.0, per_kwh(0.08), 0.7, 0.0)) == Approx(0.096));
  CHECK(dollars_per_hour(electricity_per_sold_hour(kw, 1.0, per_kwh(0.08), 0.5, 0.5)) == Approx(0.096 * 1.5));
  CHECK(dollars_per_hour(electricity_per_sold_hour(kw, 1.25, per_kwh(0.08), 1.0, 0.9)) == Approx(0.12));
}

TEST_CASE("the annuity factor and capital recovery", "[tco]") {
  CHECK(annuity_factor(0.0, 4) == 4.0);
  CHECK(annuity_factor(0.08, 4) == Approx(3.3121268));
  CHECK(annuity_factor(1e-12, 5) == Approx(5.0));
  // $40k over 4 years at 8%: $12,076.83 a year.
  CHECK((capital_recovery(usd(40000), usd(0), 0.08, year() * 4.0) * year()).value() == Approx(12076.832178));
  // At 0% the capital charge is straight-line depreciation, so financing is zero.
  CHECK(financing_per_sold_hour(usd(40000), usd(5000), 0.0, year() * 4.0, 0.7).value() == Approx(0.0).margin(1e-15));
  // A residual worth its full price costs only the interest on it.
  const UsdPerHour interest_only = capital_recovery(usd(1000), usd(1000), 0.1, year() * 3.0);
  CHECK((interest_only * year()).value() == Approx(100.0));
}

TEST_CASE("energy bills and shares", "[tco]") {
  const Joules e = energy_over(from_base<Watts>(1e9), 1.0, 1.0, year());
  CHECK(e.value() / 3.6e15 == Approx(8.766));  // TWh
  const Joules eight = from_base<Joules>(8e12 * 3600);
  CHECK(energy_bill(eight, from_base<UsdPerJoule>(30.0 / 3.6e9)).value() == Approx(240e6));
  const UsdPerHour other = from_base<Usd>(6.5e9) / year();
  const Watts avg = eight / year();
  const UsdPerJoule half = tariff_for_energy_share(0.5, other, avg);
  CHECK(energy_share(energy_bill(eight, half) / year(), other) == Approx(0.5));
}

TEST_CASE("depreciation schedules write off cost less residual", "[tco]") {
  const auto sl = depreciation_schedule(usd(40000), usd(4000), 4, Depreciation::straight_line, 2.0);
  REQUIRE(sl.size() == 4);
  for (const auto& d : sl) CHECK(d.value() == Approx(9000));
  const auto ddb = depreciation_schedule(usd(40000), usd(0), 5, Depreciation::declining, 2.0);
  REQUIRE(ddb.size() == 5);
  // 200% declining balance with a switch to straight line: 16000, 9600, 5760, then 4320 twice.
  CHECK(ddb[0].value() == Approx(16000));
  CHECK(ddb[1].value() == Approx(9600));
  CHECK(ddb[2].value() == Approx(5760));
  CHECK(ddb[3].value() == Approx(4320));
  CHECK(ddb[4].value() == Approx(4320));
  const auto high_residual = depreciation_schedule(usd(40000), usd(30000), 5, Depreciation::declining, 2.0);
  double sum = 0;
  for (const auto& d : high_residual) {
    CHECK(d.value() >= 0);
    sum += d.value();
  }
  CHECK(sum == Approx(10000));
}

TEST_CASE("the ledger replaces equipment and values a cut-short life at book", "[tco]") {
  LedgerInputs in;
  in.capex_per_unit = usd(40000);
  in.residual_per_unit = usd(8000);
  in.life_years = 4;
  in.horizon_years = 6;
  in.power_per_unit = from_base<Watts>(1000);
  in.tariff = per_kwh(0.1);
  in.sold_share = 1.0;
  const Ledger L = run_ledger(in);
  REQUIRE(L.rows.size() == 7);
  CHECK(L.rows[4].purchases.value() == 40000);
  CHECK(L.rows[4].residual.value() == 8000);
  // Two years into the second life the book value is 40000 - 2 x 8000.
  CHECK(L.rows[6].residual.value() == Approx(24000));
  CHECK(L.rows[6].book_value.value() == Approx(24000));
  CHECK(L.total_depreciation.value() == Approx(32000 + 16000));
  CHECK(L.sold_time / hour() == Approx(6 * 8766.0));
}

TEST_CASE("ranges and lists parse with the unit parser", "[tco]") {
  const auto r = parse_series("$30/MWh..$120/MWh", expectation_of<UsdPerJoule>(), "--x", 4);
  REQUIRE(r.size() == 4);
  CHECK(r[1].value * 3.6e9 == Approx(60));
  const auto l = parse_series("3yr, 5yr,7yr", expectation_of<Seconds>(), "--x", 0);
  REQUIRE(l.size() == 3);
  CHECK(l[2].value / year().value() == Approx(7));
  CHECK_THROWS_AS(parse_series("3yr,,5yr", expectation_of<Seconds>(), "--x", 0), UserError);
  CHECK_THROWS_AS(parse_range("$30/MWh-$120/MWh", expectation_of<UsdPerJoule>(), "--x"), UserError);
  CHECK_THROWS_AS(parse_range("$30/MWh..8 TWh", expectation_of<UsdPerJoule>(), "--x"), UserError);
  CHECK(whole_years(year() * 3.0, "--life") == 3);
  CHECK_THROWS_AS(whole_years(year() * 2.5, "--life"), UserError);
}

TEST_CASE("tco hour end to end", "[tco]") {
  const Result r = run("tco", "hour", {{"capex-per-gpu", "$40000"}, {"life", "4yr"}, {"sold-share", "70%"}, {"power-per-gpu", "1.2kW"},
                                {"tariff", "$0.08/kWh"}, {"maintenance", "$0.21/h"}, {"financing", "$0.45/h"}});
  // $0.21 per installed hour is the source's $0.30 per sold hour at 70% sold (issue 19, item 12).
  CHECK(r.find("owner_cost")->q.value * 3600 == Approx(2.4756731));
  CHECK(r.find("maintenance")->q.value * 3600 == Approx(0.30));
  CHECK(r.find("equipment_at_half_share")->q.value == Approx(2 * r.find("equipment")->q.value));
  REQUIRE(!r.tables.empty());
  CHECK(r.tables[0].rows.size() == 5);
  CHECK(r.verdicts.at(0).ok);
}

TEST_CASE("tco hour takes dated catalog prices and records them", "[tco]") {
  Catalog::instance().reset();
  const Plugin* p = find_plugin("tco");
  RunOptions opt;
  opt.as_of = Date::parse("2024-01-01");
  const Result r = run_calculator(*p, *p->find("hour"),
                                  {{"purchase", "h100-sxm-purchase"}, {"grid", "us-ohio"}, {"life", "5yr"},
                                   {"sold-share", "100%"}, {"power-per-gpu", "1kW"}},
                                  opt);
  CHECK(r.find("electricity")->q.value * 3600 == Approx(0.0703));
  bool tariff_from_catalog = false;
  for (const auto& in : r.inputs)
    if (in.key == "tariff") tariff_from_catalog = in.origin == Origin::catalog && in.from == "us-ohio";
  CHECK(tariff_from_catalog);
  bool cited = false;
  for (const auto& pv : r.provenance) cited = cited || (pv.id == "us-ohio" && pv.as_of == "2023-12-31");
  CHECK(cited);
}

TEST_CASE("tco errors name the input and the fix", "[tco]") {
  CHECK_THAT(error_of("tco", "hour", {{"capex-per-gpu", "$40000"}, {"life", "4yr"}, {"sold-share", "70%"}, {"power-per-gpu", "1.2kW"},
                               {"tariff", "$0.08/kWh"}, {"pue", "0.9"}}),
             Catch::Contains("--pue must be at least 1"));
  CHECK_THAT(error_of("tco", "hour", {{"capex-per-gpu", "$40000"}, {"residual-value", "$50000"}, {"life", "4yr"}, {"sold-share", "70%"},
                               {"power-per-gpu", "1.2kW"}, {"tariff", "$0.08/kWh"}}),
             Catch::Contains("--residual-value"));
  CHECK_THAT(error_of("tco", "facility", {{"life", "5yr"}}), Catch::Contains("missing --capex"));
  CHECK_THAT(error_of("tco", "facility", {{"capex", "$1e9"}, {"accelerators", "10"}, {"life", "5yr"}, {"energy-cost", "$1/yr"}}),
             Catch::Contains("not both"));
  CHECK_THAT(error_of("tco", "energy", {{"tariff", "$0.1/kWh"}}), Catch::Contains("missing --energy"));
  CHECK_THAT(error_of("tco", "ledger", {{"capex-per-gpu", "$40000"}, {"life", "4yr"}, {"horizon", "2.5yr"}, {"sold-share", "70%"},
                                 {"power-per-gpu", "1.2kW"}, {"tariff", "$0.08/kWh"}}),
             Catch::Contains("whole years"));
}

TEST_CASE("money keeps its cents below a dollar", "[tco]") {
  auto h = [](const char* text, const char* hint = "") { return format_human(*parse_quantity(text), {}, hint); };
  CHECK(h("$0.30/h") == "$0.30/h");
  CHECK(h("$0.096/h") == "$0.096/h");
  CHECK(h("$0.5") == "$0.50");
  CHECK(h("$2.48/h") == "$2.48/h");
  CHECK(h("$0.2444/Mtok") == "$0.2444/Mtok");
  CHECK(h("$10M/MW") == "$10M/MW");
  CHECK(h("$4.50/(Mtok*h)") == "$4.50/(Mtok*h)");
  CHECK(h("$7.1e9/yr", "$/yr") == "$7.1B/yr");
}

TEST_CASE("tco reads purchase prices per accelerator, per rack through the system, and refuses other units", "[tco]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("infracalc-tco-purchase-" + std::to_string(::getpid()));
  fs::create_directories(dir / "prices");
  std::ofstream(dir / "prices" / "test-pod-purchase.toml") << R"toml(id = "test-pod-purchase"
name = "A pod price whose item is no system (test overlay)"
kind = "price"
item = "a pod of something"
unit_of_sale = "pod"
purchase = [{ as_of = 2024-01-01, value = "$1000000" }]

[meta]
as_of = 2024-01-01
sources = ["test fixture"]
basis = "estimate"
)toml";
  Catalog::instance().reset();
  Catalog::instance().add_overlay_dir(dir.string());
  const RawInputs base = {{"grid", "us-ohio"}, {"life", "5yr"}, {"sold-share", "100%"}, {"power-per-gpu", "1kW"}};
  RawInputs rack = base;
  rack.push_back({"purchase", "gb200-nvl72-purchase"});
  const Result r = run("tco", "hour", rack);
  double capex = 0;
  for (const auto& in : r.inputs)
    if (in.key == "capex_per_gpu") capex = std::get<Quantity>(in.value).value;
  CHECK(capex == Approx(3e6 / 72));
  bool counted = false;
  for (const auto& pv : r.provenance) counted = counted || (pv.id == "gb200-nvl72" && pv.field == "accelerators");
  CHECK(counted);
  RawInputs pod = base;
  pod.push_back({"purchase", "test-pod-purchase"});
  CHECK_THAT(error_of("tco", "hour", pod), Catch::Contains("prices one pod") && Catch::Contains("--capex-per-gpu"));
  RawInputs rental = base;
  rental.push_back({"purchase", "h100-sxm-rental-aws"});
  CHECK_THAT(error_of("tco", "hour", rental), Catch::Contains("has no 'purchase' price series"));
  Catalog::instance().reset();
  fs::remove_all(dir);
}

TEST_CASE("tco hour: the cost of capital is at most 100% a year, and its note reads right", "[tco]") {
  const RawInputs base = {{"capex_per_gpu", "$40000"}, {"life", "4yr"}, {"sold_share", "70%"}, {"power_per_gpu", "1.2kW"},
                          {"tariff", "$0.08/kWh"}};
  RawInputs huge = base;
  huge.push_back({"cost_of_capital", "1e6%"});
  CHECK(error_of("tco", "hour", huge).find("above the 100%") != std::string::npos);
  RawInputs eight = base;
  eight.push_back({"cost_of_capital", "8%"});
  const Result r = run("tco", "hour", eight);
  bool an = false;
  for (const auto& n : r.notes) {
    CHECK(n.find("a 8%") == std::string::npos);
    if (n.find("from an 8% cost of capital") != std::string::npos) an = true;
  }
  CHECK(an);
  RawInputs full = base;
  full.push_back({"cost_of_capital", "100%"});
  CHECK(run("tco", "hour", full).find("financing") != nullptr);
}
