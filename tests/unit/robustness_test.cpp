// Every input of every calculator rejects bad values with a UserError that names the flag: wrong
// dimensions, NaN, infinity, absurd magnitudes, empty text. Nothing crashes or escapes as another exception.
#include <catch2/catch.hpp>

#include "plugins/core/context.hpp"
#include "plugins/registry.hpp"

using namespace infracalc;

namespace {

// A value of a different dimension than `d`.
std::string wrong_dimension(const Dim& d) { return d == dims::time ? "5 GB" : "5 s"; }

}  // namespace

TEST_CASE("every quantity input rejects bad values and names itself", "[robustness]") {
  std::size_t checked = 0;
  for (const auto& entry : plugin_table()) {
    const Plugin& p = entry.get();
    for (const auto& c : p.calculators) {
      for (const auto& in : c.inputs) {
        if (in.kind != InputKind::quantity && in.kind != InputKind::integer) continue;
        std::vector<std::string> bad = {"nan", "inf", "1e400", "", "x", "3,000", "--"};
        if (!in.dim.dimensionless() || in.kind == InputKind::integer) bad.push_back(wrong_dimension(in.dim));
        if (in.kind == InputKind::integer) bad.push_back("1.5");
        if (in.bound == Bound::positive || in.bound == Bound::fraction) bad.push_back(in.point ? "30 K" : "0");
        for (const auto& value : bad) {
          INFO(std::string(p.name) + " " + std::string(c.name) + " --" + std::string(in.name) + " " + value);
          const std::string flag = Context::flag_name(in.name);
          try {
            (void)run_calculator(p, c, {{std::string(in.name), value}});
            FAIL("accepted a bad value");
          } catch (const UserError& e) {
            CHECK_THAT(e.error.message, Catch::Contains(flag));
          }
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 100);
}

TEST_CASE("every choice input rejects unknown values with the list of choices", "[robustness]") {
  for (const auto& entry : plugin_table()) {
    const Plugin& p = entry.get();
    for (const auto& c : p.calculators) {
      for (const auto& in : c.inputs) {
        if (in.kind != InputKind::choice) continue;
        INFO(std::string(p.name) + " " + std::string(c.name) + " --" + std::string(in.name));
        try {
          (void)run_calculator(p, c, {{std::string(in.name), "no-such-choice"}});
          FAIL("accepted an unknown choice");
        } catch (const UserError& e) {
          CHECK_THAT(e.error.message, Catch::Contains("expected one of"));
        }
      }
    }
  }
}

TEST_CASE("running a calculator with no inputs fails cleanly or succeeds with defaults", "[robustness]") {
  for (const auto& entry : plugin_table()) {
    const Plugin& p = entry.get();
    for (const auto& c : p.calculators) {
      INFO(std::string(p.name) + " " + std::string(c.name));
      try {
        const Result r = run_calculator(p, c, {});
        for (const auto& v : r.values) CHECK(std::isfinite(v.q.value));
      } catch (const UserError& e) {
        CHECK_FALSE(e.error.message.empty());
      }
    }
  }
}
