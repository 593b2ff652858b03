// Charts: every SVG the planner writes is well-formed XML with labelled axes and units.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "plan/plan_svg.hpp"
#include "plan_test_util.hpp"
#include "svg_text_boxes.hpp"
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

TEST_CASE("no two labels of a plan's charts overlap", "[plan][svg]") {
  const fs::path dir = fs::temp_directory_path() / ("infracalc-plan-svg-boxes-" + std::to_string(::getpid()));
  for (const char* ex : {"llama3-70b-h100.toml", "deepseek-v3-gb200-nvl72.toml", "llama3-405b-train-16k-h100.toml",
                         "llama3.1-70b-qlora-h100.toml", "llama3-70b-h200-fp8.toml"}) {
    auto l = plan_test::load_example(ex);
    REQUIRE(l->problems.empty());
    fs::remove_all(dir);
    const plan::Worksheet w{l->spec, *l->program, l->sheet};
    for (const auto& file : plan::write_plots(w, dir.string(), false, {})) {
      const std::string svg = slurp(file);
      INFO(ex << ": " << file);
      CHECK(svg_check::text_boxes(svg).size() > 3);
      CHECK(svg_check::overlapping_text(svg) == std::vector<std::string>{});
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("the text-box check finds labels drawn over each other", "[plan][svg]") {
  const std::string svg = "<svg font-size=\"12\"><text x=\"10\" y=\"20\">decode at batch 8</text>"
                          "<text x=\"40\" y=\"24\">prefill</text><text x=\"10\" y=\"60\">apart</text>"
                          "<text x=\"5\" y=\"100\" text-anchor=\"middle\" transform=\"rotate(-90 5 100)\">axis</text></svg>";
  CHECK(svg_check::overlapping_text(svg) == std::vector<std::string>{"decode at batch 8 / prefill"});
}
