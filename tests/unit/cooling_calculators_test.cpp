// The cooling calculators end to end: catalog fill-in (ladders, coolants, benchmarks, grids), the
// temperature point/difference rule, and the errors users see.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "catalog/catalog.hpp"
#include "host/context.hpp"
#include "plugins/registry.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;
namespace fs = std::filesystem;

namespace {
bool has_verdict(const Result& r, const std::string& key, bool ok) {
  for (const auto& v : r.verdicts)
    if (v.key == key) return v.ok == ok;
  return false;
}
}  // namespace

TEST_CASE("cooling choose walks the ladder from the catalog", "[cooling]") {
  Catalog::instance().reset();
  CHECK(has_verdict(run("cooling", "choose", {{"rack_power", "10kW"}}), "recommended_air", true));
  CHECK(has_verdict(run("cooling", "choose", {{"rack_power", "45kW"}}), "recommended_rear_door", true));
  CHECK(has_verdict(run("cooling", "choose", {{"rack_power", "132kW"}}), "recommended_direct_liquid", true));
  const Result far = run("cooling", "choose", {{"rack_power", "2MW"}});
  CHECK(has_verdict(far, "within_catalog", false));
}

TEST_CASE("temperatures: a point is not a difference", "[cooling]") {
  CHECK_THAT(error_of("cooling", "flow", {{"heat", "130kW"}, {"delta_t", "10degC"}}), Catch::Contains("K"));
  CHECK_THAT(error_of("cooling", "flow", {{"heat", "130kW"}, {"delta_t", "10K"}, {"supply", "300K"}}), Catch::Contains("degC"));
  CHECK_THAT(error_of("cooling", "flow", {{"heat", "130kW"}, {"supply", "40degC"}, {"return", "30degC"}}), Catch::Contains("warmer"));
  CHECK_THAT(error_of("cooling", "flow", {{"heat", "130kW"}}), Catch::Contains("--delta-t"));
  CHECK_THAT(error_of("cooling", "flow", {{"heat", "130kW"}, {"delta_t", "10K"}, {"flow", "59L/min"}}), Catch::Contains("only one"));
}

TEST_CASE("cooling flow: overrides replace the table", "[cooling]") {
  const Result r = run("cooling", "flow", {{"heat", "100kW"}, {"delta_t", "10K"}, {"density", "1000kg/m3"}, {"cp", "4000J/(kg*K)"}});
  CHECK(value(r, "mass_flow") == Approx(2.5));
  CHECK(value(r, "volume_flow") == Approx(2.5e-3));
}

TEST_CASE("cooling facility and carbon read their catalog series", "[cooling]") {
  Catalog::instance().reset();
  const Result f = run("cooling", "facility", {{"it_power", "1MW"}, {"site", "efficiency-google-fleet"}, {"grid", "norway"}});
  CHECK(value(f, "facility_power") == Approx(1.09e6));
  CHECK(value(f, "cue") * 3.6e6 * 1000 == Approx(1.09 * 30));
  CHECK_THAT(error_of("cooling", "facility", {{"it_power", "1MW"}}), Catch::Contains("--pue"));
  const Result c = run("cooling", "carbon", {{"gpu", "h100-sxm"}, {"grid", "poland"}, {"utilisation", "60%"}});
  CHECK(value(c, "embodied_carbon") == Approx(162.5));
  CHECK(value(c, "operational_carbon") == Approx(0.7 * 0.6 * 5 * 8766 * 0.662).epsilon(1e-9));
  bool table = false;
  for (const auto& t : c.tables) table = table || t.name == "grids";
  CHECK(table);
  CHECK_THAT(error_of("cooling", "carbon", {{"gpu", "b200"}}), Catch::Contains("--embodied"));
}

TEST_CASE("cooling fleet parses sites and rejects nonsense", "[cooling]") {
  const Result r = run("cooling", "fleet", {{"sites", "120GWh@1.1, 40GWh@1.6"}});
  CHECK(value(r, "fleet_pue") == Approx(1.225));
  CHECK(value(r, "mean_pue") == Approx(1.35));
  CHECK_THAT(error_of("cooling", "fleet", {{"sites", "120GWh"}}), Catch::Contains("ENERGY@PUE"));
  CHECK_THAT(error_of("cooling", "fleet", {{"sites", "120GWh@0.9"}}), Catch::Contains("below 1"));
  CHECK_THAT(error_of("cooling", "fleet", {{"sites", "120GW@1.2"}}), Catch::Contains("energy"));
}

TEST_CASE("cooling cdu: racks above the unit, wrong entry kinds, plurals", "[cooling]") {
  CHECK(error_of("cooling", "cdu", {{"capacity", "1MW"}, {"rack_power", "2MW"}, {"racks", "8"}}).find("more than the CDU's capacity") !=
        std::string::npos);
  CHECK(error_of("cooling", "cdu", {{"cdu", "cooling-air"}, {"rack_power", "130kW"}}).find("not a coolant distribution unit") !=
        std::string::npos);
  CHECK(error_of("cooling", "facility", {{"it_power", "10MW"}, {"site", "cooling-air"}}).find("not an efficiency benchmark") !=
        std::string::npos);
  const Result r = run("cooling", "cdu", {{"capacity", "1MW"}, {"rack_power", "1MW"}, {"racks", "1"}, {"spares", "1"}});
  CHECK(value(r, "racks_per_cdu") == 1);
  CHECK(value(r, "cdus_needed") == 2);
  bool said = false;
  for (const auto& n : r.notes)
    if (n.find("1 CDU for 1 rack, rounded up, plus 1 spare (N+1)") != std::string::npos) said = true;
  CHECK(said);
}

TEST_CASE("cooling pressure: one scaling method only", "[cooling]") {
  const std::string e = error_of("cooling", "pressure",
                                 {{"flow", "177L/min"}, {"reference_flow", "59L/min"}, {"reference_dp", "2.3psi"}, {"exponent", "1.9"},
                                  {"fit_flow", "177L/min"}, {"fit_dp", "18.4psi"}});
  CHECK(e.find("give only one") != std::string::npos);
  CHECK(error_of("cooling", "pressure", {{"flow", "177L/min"}, {"reference_flow", "59L/min"}, {"reference_dp", "2.3psi"}})
            .find("say how the drop scales") != std::string::npos);
}
