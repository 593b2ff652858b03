// Charts: every SVG the planner writes is well-formed XML with labelled axes and units.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "plan/plan_svg.hpp"
#include "plan_test_util.hpp"
#include "xml_check.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;
namespace fs = std::filesystem;

TEST_CASE("the XML check rejects what it should", "[plan]") {
  CHECK(xml_problem("<svg><g></svg>").find("does not close") != std::string::npos);
  CHECK(xml_problem("<svg a=\"1\" a=\"2\"/>").find("duplicate") != std::string::npos);
  CHECK(xml_problem("<svg><text>R&D</text></svg>").find("entity") != std::string::npos);
  CHECK(xml_problem("<svg/><svg/>").find("after the root") != std::string::npos);
  CHECK(xml_problem("<?xml version=\"1.0\"?>\n<svg><text x=\"1\">a &amp; b</text></svg>\n").empty());
}

TEST_CASE("the plan's charts are well-formed SVG with labelled axes", "[plan]") {
  auto l = plan_test::load_example("llama3-70b-h100.toml");
  REQUIRE(l->problems.empty());
  const fs::path dir = fs::temp_directory_path() / ("infracalc-plan-svg-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const plan::Worksheet w{l->spec, *l->program, l->sheet};
  const auto files = plan::write_plots(w, dir.string(), false, {});
  CHECK(files.size() == 5);
  const std::vector<std::pair<std::string, std::vector<std::string>>> want = {
      {"roofline.svg", {"arithmetic intensity (FLOP/B)", "attainable rate (FLOP/s)", "decode at the plan's batch"}},
      {"memory.svg", {"GB (10^9 bytes)", "weights", "KV cache"}},
      {"cost.svg", {"USD per million output tokens", "equipment", "electricity"}},
      {"rack-power.svg", {"kW", "accelerators"}},
      {"occupancy.svg", {"time (s)", "occupancy (%)", "KV-cache pool in use"}}};
  for (const auto& [name, texts] : want) {
    const std::string svg = slurp(dir / name);
    INFO(name);
    REQUIRE_FALSE(svg.empty());
    CHECK(xml_problem(svg).empty());
    CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
    CHECK(svg.find("<script") == std::string::npos);
    for (const auto& t : texts) {
      INFO(t);
      CHECK(svg.find(t) != std::string::npos);
    }
  }
  CHECK_THROWS_AS(plan::write_plots(w, dir.string(), false, {}), UserError);  // no overwrite without --force
  CHECK(plan::write_plots(w, dir.string(), true, {}).size() == 5);
  fs::remove_all(dir);
}
