// Tables and verdicts are declared in the descriptor like inputs and outputs (issue 21, item 2): the host refuses an
// undeclared one, and every table name and verdict key written in a plugin's sources is declared by one of its
// calculators, and every declared one is written somewhere in them.
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>

#include "host/context.hpp"
#include "plugins/registry.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;

namespace {

Calculator declaring_calculator(std::function<void(Context&)> run) {
  Calculator c;
  c.name = "declared";
  c.summary = "test";
  c.tables = {{"rows", "a table"}};
  c.verdicts = {{"fits", "a verdict"}, {"*_fits", "one per tier"}, {"recommended_*", "the pick"}};
  c.run = std::move(run);
  return c;
}

Result run_declaring(const Calculator& c) {
  Plugin p;
  p.name = "test";
  return run_calculator(p, c, {}, RunOptions{});
}

// The plugin's sources, concatenated.
std::string plugin_sources(std::string_view plugin) {
  std::string all;
  for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(INFRACALC_SOURCE_DIR) / "plugins" / std::string(plugin)))
    if (f.path().extension() == ".cpp" || f.path().extension() == ".hpp") all += calc_test::slurp(f.path().string()) + "\n";
  return all;
}

}  // namespace

TEST_CASE("a verdict pattern's star stands for one or more characters", "[host][declarations]") {
  CHECK(key_matches("fits", "fits"));
  CHECK_FALSE(key_matches("fits", "fit"));
  CHECK(key_matches("*_fits", "hbm_fits"));
  CHECK_FALSE(key_matches("*_fits", "_fits"));
  CHECK_FALSE(key_matches("*_fits", "hbm_fit"));
  CHECK(key_matches("recommended_*", "recommended_air"));
  CHECK_FALSE(key_matches("recommended_*", "recommended_"));
  CHECK(key_matches("*", "air"));
  CHECK_FALSE(key_matches("*", ""));
}

TEST_CASE("the host refuses a table or verdict its calculator did not declare", "[host][declarations]") {
  const auto table = [](const char* name) {
    return [name](Context& ctx) { ctx.add_table(Table{name, "t", {{"a", dims::none, {}}}, {{Quantity::number(1)}}}); };
  };
  const auto verdict = [](const char* key) { return [key](Context& ctx) { ctx.verdict(key, true, "text"); }; };
  CHECK(run_declaring(declaring_calculator(table("rows"))).tables.size() == 1);
  CHECK_THROWS_WITH(run_declaring(declaring_calculator(table("other"))),
                    Catch::Contains("undeclared table 'other'") && Catch::Contains("test declared"));
  for (const char* ok : {"fits", "hbm_fits", "recommended_air"}) CHECK(run_declaring(declaring_calculator(verdict(ok))).verdicts.size() == 1);
  for (const char* bad : {"fit", "_fits", "recommended_", "headroom"})
    CHECK_THROWS_AS(run_declaring(declaring_calculator(verdict(bad))), std::logic_error);
}

TEST_CASE("every table and verdict a plugin's sources write is declared, and every declared one is written", "[declarations]") {
  const std::regex table_literal(R"re((?:Table\s+\w*\s*\{\s*|\b\w\.name = )"([a-z0-9_]+)")re");
  const std::regex verdict_literal(R"re(verdict\(\s*"([a-z0-9_]+)"(\s*\+)?)re");
  const std::regex verdict_call(R"re(\bverdict\(\s*([^")\s][^,]*),)re");
  std::size_t tables = 0, verdicts = 0;
  for (const auto& e : plugin_table()) {
    const Plugin& p = e.get();
    INFO("plugin " << p.name);
    const std::string src = plugin_sources(p.name);
    std::set<std::string> declared_tables, calculator_names;
    std::vector<std::string_view> verdict_keys;
    for (const auto& c : p.calculators) {
      calculator_names.insert(std::string(c.name));
      for (const auto& t : c.tables) declared_tables.insert(std::string(t.name));
      for (const auto& v : c.verdicts) verdict_keys.push_back(v.key);
    }
    for (auto it = std::sregex_iterator(src.begin(), src.end(), table_literal); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1];
      if (calculator_names.count(name) != 0 || name == p.name) continue;  // `c.name = "size"` names a calculator
      INFO("table " << name);
      CHECK(declared_tables.count(name) == 1);
      ++tables;
    }
    for (auto it = std::sregex_iterator(src.begin(), src.end(), verdict_literal); it != std::sregex_iterator(); ++it) {
      const std::string key = (*it)[1];
      INFO("verdict " << key);
      if ((*it)[2].matched) {  // "recommended_" + a name: a pattern that begins with it
        CHECK(std::any_of(verdict_keys.begin(), verdict_keys.end(), [&](std::string_view k) { return k == key + "*"; }));
      } else {
        CHECK(std::any_of(verdict_keys.begin(), verdict_keys.end(), [&](std::string_view k) { return key_matches(k, key); }));
      }
      ++verdicts;
    }
    // A key formed at run time needs a pattern.
    for (auto it = std::sregex_iterator(src.begin(), src.end(), verdict_call); it != std::sregex_iterator(); ++it) {
      INFO("verdict call " << (*it)[1]);
      CHECK(std::any_of(verdict_keys.begin(), verdict_keys.end(), [](std::string_view k) { return k.find('*') != std::string_view::npos; }));
    }
    // No stale declaration: each exact name is written in the sources.
    for (const auto& name : declared_tables) {
      INFO("declared table " << name);
      CHECK(src.find('"' + name + '"') != std::string::npos);
    }
    for (const auto key : verdict_keys) {
      if (key.find('*') != std::string_view::npos) continue;
      INFO("declared verdict " << key);
      CHECK(src.find("verdict(\"" + std::string(key) + '"') != std::string::npos);
    }
  }
  CHECK(tables >= 60);
  CHECK(verdicts >= 50);
}

TEST_CASE("every plugin has the same files in the same places, and a command's code is in calc_<name>.cpp", "[declarations]") {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(INFRACALC_SOURCE_DIR) / "plugins";
  for (const auto& e : plugin_table()) {
    const Plugin& p = e.get();
    const std::string name(p.name);
    INFO("plugin " << name);
    for (const std::string& f : {name + "_plugin.hpp", name + "_plugin.cpp", name + "_calculators.hpp", name + "_kernels.cpp", name + "_math.hpp",
                                 name + "_math.cpp"}) {
      INFO("file " << f);
      CHECK(fs::is_regular_file(root / name / f));
    }
    CHECK(fs::is_regular_file(fs::path(INFRACALC_SOURCE_DIR) / std::string(p.doc)));
    std::set<std::string> expected;
    for (const auto& c : p.calculators) {
      const std::string file = "calc_" + std::string(c.name) + ".cpp";
      INFO("calculator " << c.name);
      CHECK(c.source_file() == "plugins/" + name + "/" + file);
      expected.insert(file);
    }
    // No calculator file without its calculator.
    for (const auto& f : fs::directory_iterator(root / name)) {
      const std::string file = f.path().filename().string();
      if (file.rfind("calc_", 0) != 0) continue;
      INFO("file " << file);
      CHECK(expected.count(file) == 1);
    }
  }
}
