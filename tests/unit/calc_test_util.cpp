#include "tests/unit/calc_test_util.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "plugins/registry.hpp"

namespace calc_test {

using namespace infracalc;

Result run(std::string_view plugin, std::string_view calc, const RawInputs& raw, RunOptions opt) {
  const Plugin* p = find_plugin(plugin);
  INFO(plugin);
  REQUIRE(p != nullptr);
  const Calculator* c = p->find(calc);
  INFO(calc);
  REQUIRE(c != nullptr);
  return run_calculator(*p, *c, raw, opt);
}

double value(const Result& r, std::string_view key) {
  const Value* v = r.find(key);
  INFO(key);
  REQUIRE(v != nullptr);
  return v->q.value;
}

std::string error_of(std::string_view plugin, std::string_view calc, const RawInputs& raw) {
  try {
    (void)run(plugin, calc, raw);
  } catch (const UserError& e) {
    return e.error.text();
  }
  return "no error";
}

bool has_note(const Result& r, std::string_view text) {
  return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace calc_test
