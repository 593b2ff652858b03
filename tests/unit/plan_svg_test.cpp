// Charts: every SVG the planner writes is well-formed XML with labelled axes and units.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "cli/plan_svg.hpp"
#include "plan_test_util.hpp"

using namespace infracalc;
namespace fs = std::filesystem;

namespace {

// A strict check of the XML the charts use: one root, balanced and properly nested tags, quoted
// attributes without duplicates, only the five predefined entities, nothing after the root.
std::string xml_problem(const std::string& s) {
  std::size_t i = 0;
  if (s.rfind("<?xml", 0) == 0) i = s.find("?>") + 2;
  std::vector<std::string> stack;
  bool root_done = false;
  while (i < s.size()) {
    if (s[i] == '<') {
      if (root_done) return "content after the root element";
      if (s.compare(i, 4, "<!--") == 0) {
        i = s.find("-->", i);
        if (i == std::string::npos) return "unterminated comment";
        i += 3;
        continue;
      }
      const bool closing = s[i + 1] == '/';
      std::size_t j = i + (closing ? 2 : 1);
      std::string name;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) != 0 || s[j] == ':' || s[j] == '-')) name += s[j++];
      if (name.empty()) return "a tag without a name at " + std::to_string(i);
      if (closing) {
        if (stack.empty() || stack.back() != name) return "</" + name + "> does not close <" + (stack.empty() ? "" : stack.back()) + ">";
        stack.pop_back();
        i = s.find('>', j) + 1;
        if (stack.empty()) root_done = true;
        continue;
      }
      std::vector<std::string> attrs;
      while (true) {
        while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j])) != 0) ++j;
        if (s.compare(j, 2, "/>") == 0) {
          j += 2;
          if (stack.empty()) root_done = true;
          break;
        }
        if (s[j] == '>') {
          ++j;
          stack.push_back(name);
          break;
        }
        std::string a;
        while (j < s.size() && s[j] != '=' && std::isspace(static_cast<unsigned char>(s[j])) == 0) a += s[j++];
        if (s[j] != '=' || s[j + 1] != '"') return "attribute " + a + " of <" + name + "> is not quoted";
        const std::size_t end = s.find('"', j + 2);
        if (end == std::string::npos) return "unterminated attribute";
        const std::string value = s.substr(j + 2, end - j - 2);
        if (value.find('<') != std::string::npos) return "'<' in an attribute";
        if (std::find(attrs.begin(), attrs.end(), a) != attrs.end()) return "duplicate attribute " + a;
        attrs.push_back(a);
        j = end + 1;
      }
      i = j;
      continue;
    }
    if (s[i] == '&') {
      const std::size_t semi = s.find(';', i);
      const std::string ent = s.substr(i, semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;") return "unknown entity " + ent;
    }
    if (stack.empty() && std::isspace(static_cast<unsigned char>(s[i])) == 0) return "text outside the root";
    ++i;
  }
  if (!stack.empty()) return "<" + stack.back() + "> is never closed";
  if (!root_done) return "no root element";
  return {};
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

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
