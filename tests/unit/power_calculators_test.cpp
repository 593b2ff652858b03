// The power calculators end to end: catalog fill-in (systems, grids), --as-of on dated series, and
// the errors users see.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "catalog/catalog.hpp"
#include "host/context.hpp"
#include "plugins/power/conductor.hpp"
#include "plugins/registry.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;
namespace fs = std::filesystem;

TEST_CASE("power rack reads a catalog system and its accelerator", "[power]") {
  const fs::path dir = fs::temp_directory_path() / ("infracalc-power-" + std::to_string(::getpid()));
  fs::create_directories(dir / "systems");
  std::ofstream(dir / "systems" / "test-nvl72.toml") << R"(id = "test-nvl72"
name = "Test NVL72"
kind = "system"
vendor = "nvidia"
accelerator = "b200"
accelerators = 72
power = "132 kW"

[meta]
as_of = 2025-01-01
sources = ["test"]
)";
  Catalog::instance().reset();
  Catalog::instance().add_overlay_dir(dir.string());
  const Result r = run("power", "rack", {{"system", "test-nvl72"}, {"racks_per_row", "8"}});
  CHECK(value(r, "rack_power") == 132e3);
  CHECK(value(r, "per_gpu_all_in") == Approx(132e3 / 72));
  CHECK(value(r, "row_power") == Approx(1.056e6));
  Catalog::instance().reset();
  fs::remove_all(dir);
}

TEST_CASE("power energy honours --as-of on the grid's tariff series", "[power]") {
  Catalog::instance().reset();
  RunOptions old;
  old.as_of = Date::parse("2023-06-01");
  const Result a = run("power", "energy", {{"power", "1MW"}, {"grid", "us-average"}}, old);
  CHECK(value(a, "bill") == Approx(8766 * 1000 * 0.0832));
  const Result b = run("power", "energy", {{"power", "1MW"}, {"grid", "us-average"}});
  CHECK(value(b, "bill") == Approx(8766 * 1000 * 0.0806));
  bool cited = false;
  for (const auto& p : b.provenance) cited = cited || (p.id == "us-average" && p.field == "tariff");
  CHECK(cited);
  RunOptions ancient;
  ancient.as_of = Date::parse("2010-01-01");
  CHECK_THROWS_AS(run("power", "energy", {{"power", "1MW"}, {"grid", "us-average"}}, ancient), UserError);
  // A flag wins over the catalog.
  const Result c = run("power", "energy", {{"power", "1MW"}, {"grid", "us-average"}, {"tariff", "$0.05/kWh"}});
  CHECK(value(c, "bill") == Approx(8766 * 1000 * 0.05));
}

TEST_CASE("power distribution refuses contradictions", "[power]") {
  CHECK_THAT(error_of("power", "distribution", {{"power", "10kW"}, {"voltage", "48V"}, {"resistance", "1mohm"}, {"length", "2m"}, {"cross_section", "50mm2"}}),
             Catch::Contains("not both"));
  CHECK_THAT(error_of("power", "distribution", {{"power", "10kW"}, {"voltage", "48V"}, {"length", "2m"}}), Catch::Contains("--gauge"));
  CHECK_THAT(error_of("power", "distribution", {{"power", "10kW"}, {"voltage", "48V"}, {"gauge", "7mm"}, {"length", "2m"}}),
             Catch::Contains("AWG"));
  CHECK_THAT(error_of("power", "distribution", {{"power", "10kW"}, {"voltage", "48"}}), Catch::Contains("--voltage"));
}

TEST_CASE("power grid sizes reactive support and storage", "[power]") {
  const Result r = run("power", "grid", {{"it_power", "500MW"}, {"event_duration", "10min"}});
  CHECK(value(r, "swing") == Approx(350e6));
  CHECK(value(r, "reactive_support_low") == Approx(50e6));
  CHECK(value(r, "reactive_support_high") == Approx(100e6));
  CHECK(value(r, "storage_energy") == Approx(350e6 * 600));
  CHECK_THAT(error_of("power", "grid", {{"it_power", "1GW"}, {"low_fraction", "100%"}}), Catch::Contains("below"));
}

// Issue 19, item 15: a current density no conductor is rated for is warned about, naming the rating.
TEST_CASE("power distribution warns above the building-wire ampacity of the conductor", "[power][implausible]") {
  auto says = [](const Result& res, const std::string& what) {
    for (const auto& note : res.notes)
      if (note.find(what) != std::string::npos) return true;
    return false;
  };
  CHECK(pwr::building_wire_ampacity(*pwr::find_conductor_material("copper"), from_base<SquareMeters>(107.2e-6)).value() == Approx(260));
  CHECK(pwr::building_wire_ampacity(*pwr::find_conductor_material("copper"), from_base<SquareMeters>(2.08e-6)).value() == Approx(25));
  // 132 kW at 48 V is 2,750 A: in one 4/0 cable that is 25.6 A/mm², ten times the 260 A rating.
  const Result hot = run("power", "distribution", {{"power", "132kW"}, {"voltage", "48V"}, {"length", "2m"}, {"gauge", "4/0"}});
  CHECK(says(hot, "implausible: the conductor carries 2.75 kA"));
  CHECK(says(hot, "NEC Table 310.16"));
  // Twelve 4/0 conductors in parallel carry 229 A each: within the rating.
  const Result ok =
      run("power", "distribution", {{"power", "132kW"}, {"voltage", "48V"}, {"length", "2m"}, {"gauge", "4/0"}, {"parallel", "12"}});
  CHECK_FALSE(says(ok, "implausible"));
  // A 5% loss budget at 48 V sizes a conductor far too thin to carry 2,750 A.
  const Result thin = run("power", "distribution", {{"power", "132kW"}, {"voltage", "48V"}, {"length", "2m"}, {"loss_budget", "5%"}});
  CHECK(says(thin, "the conductor of the loss-budget size"));
}
