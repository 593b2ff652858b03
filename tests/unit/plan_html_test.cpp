// plan --html: one self-contained page with the worksheet, its charts and sources, escaped, referring to nothing
// outside itself.
#include <catch2/catch.hpp>

#include "plan/plan_html.hpp"
#include "plan/plan_svg.hpp"
#include "plan_test_util.hpp"
#include "xml_check.hpp"

using namespace infracalc;

namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("the HTML page holds the summary, checks, every chart and the sources, and nothing from outside", "[plan][html]") {
  for (const char* ex : {"llama3-70b-h100.toml", "llama3-405b-train-16k-h100.toml", "llama3.1-70b-qlora-h100.toml"}) {
    INFO(ex);
    auto l = plan_test::load_example(ex);
    REQUIRE(l->problems.empty());
    const plan::Worksheet w{l->spec, *l->program, l->sheet};
    const std::string page = plan::render_html(w, FormatOptions{});
    REQUIRE(page.rfind("<!DOCTYPE html>\n", 0) == 0);
    CHECK(xml_problem(page.substr(page.find('\n') + 1)).empty());
    for (const std::string outside : {" src=", " href=", "<script", "@import", "url("}) CHECK(page.find(outside) == std::string::npos);
    CHECK(count(page, "<svg ") == plan::chart_svgs(w).size());
    CHECK(count(page, "<svg ") >= 2);
    for (int i : plan::headline_lines(w)) {
      const auto& line = l->program->lines[static_cast<std::size_t>(i)];
      CHECK(page.find("<td>" + line.key + "</td>") != std::string::npos);
      CHECK(page.find(plan::show_value(line, l->sheet.values[static_cast<std::size_t>(i)], FormatOptions{})) != std::string::npos);
    }
    CHECK(count(page, "<li><span class=\"") >= l->program->checks.size() / 2);
    CHECK(page.find("<h2>Sources</h2>") != std::string::npos);
  }
}

TEST_CASE("text from the plan reaches the page as text, not markup", "[plan][html]") {
  auto l = plan_test::load_example("llama3-70b-h100.toml", {"plan.name=<script>alert(1)</script> & co"});
  REQUIRE(l->problems.empty());
  const std::string page = plan::render_html({l->spec, *l->program, l->sheet}, FormatOptions{});
  CHECK(page.find("<script>") == std::string::npos);
  CHECK(page.find("<h1>&lt;script&gt;alert(1)&lt;/script&gt; &amp; co</h1>") != std::string::npos);
}
