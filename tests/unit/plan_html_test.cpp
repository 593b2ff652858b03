// plan --html: one self-contained page with the worksheet, its charts and sources, escaped, referring to nothing
// outside itself.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "plan/plan_file.hpp"
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
    CHECK(count(page, "<li data-line=\"check.") >= l->program->checks.size() / 2);
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

namespace {

// Every value of attribute `name` in the page.
std::vector<std::string> attribute_values(const std::string& page, const std::string& name) {
  std::vector<std::string> out;
  const std::string open = " " + name + "=\"";
  for (std::size_t at = page.find(open); at != std::string::npos; at = page.find(open, at + 1)) {
    const std::size_t from = at + open.size();
    out.push_back(page.substr(from, page.find('"', from) - from));
  }
  return out;
}

}  // namespace

TEST_CASE("without the WebAssembly engine the page is the report plus one line saying the panel needs make web", "[plan][html]") {
  auto l = plan_test::load_example("llama3-70b-h100.toml");
  REQUIRE(l->problems.empty());
  const plan::Worksheet w{l->spec, *l->program, l->sheet};
  const std::string plain = plan::render_html(w, FormatOptions{});
  plan::WhatIf none;
  none.plan_text = "[plan]\n";
  const std::string page = plan::render_html(w, FormatOptions{}, &none);
  const std::size_t line = page.find("<p>The what-if panel");
  REQUIRE(line != std::string::npos);
  CHECK(page.find("<code>make web</code>") != std::string::npos);
  const std::size_t end = page.find("</p>\n", line) + 5;
  CHECK(page.substr(0, line) + page.substr(end) == plain);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("what-if\"") == std::string::npos);
}

TEST_CASE("with the engine the page carries the what-if panel, the engine and the plan, and still nothing from outside", "[plan][html]") {
  for (const char* ex : {"llama3-70b-h100.toml", "llama3-405b-train-16k-h100.toml", "site-100mw.toml"}) {
    INFO(ex);
    auto l = plan_test::load_example(ex, {"money.life=3 yr"});
    REQUIRE(l->problems.empty());
    const plan::Worksheet w{l->spec, *l->program, l->sheet};
    // Bytes no text escaping leaves alone: the engine travels as base64.
    plan::WhatIf engine;
    engine.engine_js = "var createInfracalcEngine = function () { return '</script>&'; };";
    engine.engine_wasm_gz = std::string("\x1f\x8b\x08\x00\xff\x00<&>", 9);
    engine.engine_loader = "async function loadInfracalcEngine() { return '</script>'; }";
    engine.plan_text = "[plan]\nname = \"</script><!-- & ]]>\"\n";
    engine.sets = {"money.life=3 yr"};
    const std::string page = plan::render_html(w, FormatOptions{}, &engine);
    CHECK(page == plan::render_html(w, FormatOptions{}, &engine));
    CHECK(xml_problem(page.substr(page.find('\n') + 1)).empty());
    for (const std::string outside : {" src=", " href=", "@import", "url(", "</script><", "]]>"}) CHECK(page.find(outside) == std::string::npos);
    CHECK(count(page, "<script>") == 1);
    CHECK(count(page, "<script ") == 1);
    CHECK(page.find("<section id=\"what-if\">") != std::string::npos);
    CHECK(page.find("<div id=\"report\">") > page.find("</section>"));
    CHECK(page.find("\"js\": \"dmFyIGNyZWF0ZUluZnJhY2FsY0VuZ2luZSA9IGZ1bmN0aW9uICgpIHsgcmV0dXJuICc8L3NjcmlwdD4mJzsgfTs=\"") != std::string::npos);
    CHECK(page.find("<script type=\"application/gzip\" id=\"infracalc-engine-wasm\">H4sIAP8APCY+</script>") != std::string::npos);
    CHECK(page.find("\"loader\": \"YXN5bmMgZnVuY3Rpb24gbG9hZEluZnJhY2FsY0VuZ2luZSgpIHsgcmV0dXJuICc8L3NjcmlwdD4nOyB9\"") != std::string::npos);
    CHECK(page.find("\"plan\": \"[plan]\\nname = \\\"\\u003c/script\\u003e\\u003c!-- \\u0026 ]]\\u003e\\\"\\n\"") != std::string::npos);
    CHECK(page.find("\"set\": {\"money.life\": \"3 yr\"}") != std::string::npos);
    // One control per key the plan gives (not its name, its workload type or what a sweep sets), each with a label.
    const auto ids = attribute_values(page, "id");
    const auto labels = attribute_values(page, "for");
    std::vector<std::string> controls;
    for (const auto& id : ids)
      if (id.rfind("wi-", 0) == 0 && id != "wi-status" && id != "wi-fields" && id != "wi-reset") controls.push_back(id);
    CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == ids.size());
    CHECK(controls == labels);
    std::vector<std::string> expected;
    for (const auto& [path, value] : l->spec.values) {
      const plan::KeyDef* k = plan::find_key(path, l->program->mode);
      if (k == nullptr || k->section == "plan" || path == "workload.type" || k->kind == plan::KeyKind::text) continue;
      bool swept = false;
      for (const auto& ax : l->spec.sweeps) swept = swept || ax.key == path;
      for (const auto& v : l->spec.variants)
        for (const auto& set : v.sets) swept = swept || set.first == path;
      if (!swept) expected.push_back("wi-" + std::string(k->section) + "-" + std::string(k->name));
    }
    CHECK(controls == expected);
    CHECK(controls.size() >= 8);
    CHECK(page.find("id=\"wi-money-life\" name=\"money.life\" data-key=\"money.life\" data-unit=\"yr\" data-initial=\"3\" value=\"3\"") !=
          std::string::npos);
    // Every summary line and check verdict is a value the panel updates.
    for (int i : plan::headline_lines(w)) CHECK(page.find("data-line=\"" + l->program->lines[static_cast<std::size_t>(i)].key + "\">") != std::string::npos);
    for (std::size_t c = 0; c < l->program->checks.size(); ++c)
      if (l->sheet.checks[c]) CHECK(page.find("<li data-line=\"check." + l->program->checks[c].key + "\">") != std::string::npos);
  }
  // A catalog id is a list of the catalog's ids of its kinds, the plan's selected: every control moves by a key.
  auto l = plan_test::load_example("llama3-70b-h100.toml");
  plan::WhatIf engine;
  engine.engine_js = "x";
  engine.engine_wasm_gz = "x";
  engine.engine_loader = "x";
  const std::string page = plan::render_html({l->spec, *l->program, l->sheet}, FormatOptions{}, &engine);
  CHECK(page.find("type=\"text\"") == std::string::npos);
  const std::size_t model = page.find("<select id=\"wi-model-id\" name=\"model.id\" data-key=\"model.id\" data-initial=\"llama-3-70b\">");
  REQUIRE(model != std::string::npos);
  const std::string models = page.substr(model, page.find("</select>", model) - model);
  CHECK(models.find("<option selected=\"selected\">llama-3-70b</option>") != std::string::npos);
  CHECK(count(models, "<option") == plan::catalog_ids(*plan::find_key("model.id", "serve")).size());
  CHECK(count(models, "<option") >= 20);
  const std::size_t gpu = page.find("<select id=\"wi-hardware-system\"");
  REQUIRE(gpu != std::string::npos);
  CHECK(page.substr(gpu, page.find("</select>", gpu) - gpu).find(">dgx-b200</option>") != std::string::npos);
}

TEST_CASE("a sweep's page whose first point failed a step says which steps failed before its values", "[plan][html]") {
  // tp 5 does not divide the 64 heads of Llama 3 70B: fit_tp fails, and everything that needs it has no value.
  auto l = plan_test::load_example("site-100mw.toml", {"hardware.tp=5"});
  REQUIRE(l->problems.empty());
  REQUIRE_FALSE(l->sheet.errors.empty());
  const std::string page = plan::render_html({l->spec, *l->program, l->sheet}, FormatOptions{});
  const std::size_t failed = page.find("<h2>Failed steps</h2>\n<ul id=\"failed-steps\">\n<li class=\"fail\">step fit_tp (fit inference): --tp 5 does not divide");
  REQUIRE(failed != std::string::npos);
  CHECK(failed < page.find("<h2>Summary</h2>"));
  CHECK(xml_problem(page.substr(page.find('\n') + 1)).empty());
  // A plan that runs has no such block.
  auto ok = plan_test::load_example("site-100mw.toml");
  CHECK(plan::render_html({ok->spec, *ok->program, ok->sheet}, FormatOptions{}).find("failed-steps") == std::string::npos);
}
