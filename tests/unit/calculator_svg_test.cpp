// A calculator's chart (--plot FILE.svg): the decode timeline drawn back from its SVG has one row per GPU with
// one bar per interval of the table, the bars of a row fill the round the table reports, and text is escaped.
#include <catch2/catch.hpp>
#include <map>

#include "cli/calculator_svg.hpp"
#include "host/context.hpp"
#include "plugins/registry.hpp"
#include "svg_text_boxes.hpp"
#include "xml_check.hpp"

using namespace infracalc;

namespace {

Result timeline(const RawInputs& raw) {
  const Plugin* p = find_plugin("decode");
  REQUIRE(p != nullptr);
  return run_calculator(*p, *p->find("timeline"), raw);
}

const Table& table(const Result& r, const char* name) {
  for (const auto& t : r.tables)
    if (t.name == name) return t;
  FAIL("no table " << name);
  throw;
}

// The value of attribute `name` in the tag that starts at `at`.
std::string attribute(const std::string& svg, std::size_t at, const std::string& name) {
  const std::size_t end = svg.find('>', at);
  const std::size_t a = svg.find(" " + name + "=\"", at);
  if (a == std::string::npos || a > end) return {};
  const std::size_t v = a + name.size() + 3;
  return svg.substr(v, svg.find('"', v) - v);
}

struct Row {
  int bars = 0;
  double width = 0;  // pixels
};

// Every <g class="gpu"> of the SVG: its layout and GPU, how many bars it holds and their total width.
std::map<std::pair<std::string, int>, Row> rows_of(const std::string& svg) {
  std::map<std::pair<std::string, int>, Row> rows;
  for (std::size_t g = svg.find("<g class=\"gpu\""); g != std::string::npos; g = svg.find("<g class=\"gpu\"", g + 1)) {
    Row& row = rows[{attribute(svg, g, "data-layout"), std::stoi(attribute(svg, g, "data-gpu"))}];
    const std::size_t close = svg.find("</g>", g);
    for (std::size_t r = svg.find("<rect", g); r < close; r = svg.find("<rect", r + 1)) {
      ++row.bars;
      row.width += std::stod(attribute(svg, r, "width"));
    }
  }
  return rows;
}

}  // namespace

TEST_CASE("decode timeline --plot: one row per GPU, one bar per interval, each row as long as the round", "[decode][svg]") {
  for (const char* phase : {"decode", "prefill"}) {
    INFO(phase);
    const Result r = timeline({{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"link", "nvlink-4"}, {"phase", phase}, {"tokens", "1024"}});
    const Calculator& c = *find_plugin("decode")->find("timeline");
    REQUIRE(c.chart == Chart::timeline);
    const std::string svg = cli::calculator_svg(c, r);
    CHECK(xml_problem(svg).empty());
    CHECK(svg_check::overlapping_text(svg) == std::vector<std::string>{});
    for (const char* text : {"TP8", "TP4xPP2", "DP8", "time from the start of the round", "compute", "communicate", "wait",
                             "tokens/s per sequence", "passes/s per sequence"})
      if (std::string(text) != (std::string(phase) == "decode" ? "passes/s per sequence" : "tokens/s per sequence")) CHECK_THAT(svg, Catch::Contains(text));
    const std::size_t frame = svg.find("class=\"frame\"");
    REQUIRE(frame != std::string::npos);
    const double frame_px = std::stod(attribute(svg, svg.rfind("<rect", frame), "width"));
    const double axis_end = std::stod(attribute(svg, svg.rfind("<rect", frame), "data-axis-end-s"));
    const auto rows = rows_of(svg);
    std::map<std::pair<std::string, int>, int> intervals;
    const Table& events = table(r, "timeline");
    for (const auto& e : events.rows) ++intervals[{std::get<std::string>(e[0]), static_cast<int>(std::get<Quantity>(e[1]).value)}];
    CHECK(rows.size() == 24);  // 8 GPUs x 3 layouts
    CHECK(rows.size() == intervals.size());
    for (const auto& row : table(r, "layouts").rows) {
      const std::string layout = std::get<std::string>(row[0]);
      const double round = std::get<Quantity>(row[6]).value;
      for (int gpu = 0; gpu < 8; ++gpu) {
        INFO(layout << " GPU " << gpu);
        const auto it = rows.find({layout, gpu});
        REQUIRE(it != rows.end());
        CHECK(it->second.bars == intervals[{layout, gpu}]);
        // Widths are written to 0.01 px: each bar may be off by half of that.
        const double px_per_s = frame_px / axis_end;
        CHECK(it->second.width == Approx(round * px_per_s).margin(0.005 * it->second.bars + 1e-9));
      }
    }
  }
}

TEST_CASE("a calculator's chart escapes text from input", "[svg]") {
  Result r = timeline({{"model", "llama-3-8b"}, {"gpu", "h100-sxm"}, {"gpus", "2"}, {"layouts", "TP2"}, {"batch", "2"}});
  ResolvedInput model;
  model.key = "layers";
  model.origin = Origin::catalog;
  model.from = "R&D <x> \"q\"";
  r.inputs.insert(r.inputs.begin(), model);
  const std::string svg = cli::calculator_svg(*find_plugin("decode")->find("timeline"), r);
  CHECK(xml_problem(svg).empty());
  CHECK_THAT(svg, Catch::Contains("R&amp;D &lt;x&gt; &quot;q&quot;"));
}
