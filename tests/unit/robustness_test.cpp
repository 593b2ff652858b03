// Every input of every calculator rejects bad values with a UserError that names the flag: wrong
// dimensions, NaN, infinity, absurd magnitudes, empty text. Nothing crashes or escapes as another exception.
#include <catch2/catch.hpp>

#include "host/context.hpp"
#include "plugins/registry.hpp"
#include "units/format.hpp"

#include <fmt/format.h>

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

TEST_CASE("every integer input declares a bound and rejects values past it, naming the input and the bound", "[robustness]") {
  std::size_t checked = 0;
  for (const auto& entry : plugin_table()) {
    const Plugin& p = entry.get();
    for (const auto& c : p.calculators) {
      for (const auto& in : c.inputs) {
        if (in.kind != InputKind::integer) continue;
        const std::string flag = Context::flag_name(in.name);
        INFO(std::string(p.name) + " " + std::string(c.name) + " " + flag);
        CHECK(in.most >= 1);
        CHECK(in.most <= kMaxSeed);  // every bound is exact in a double
        // Values that once wrapped at 32 bits (2^31 and 2^32 + 1), one past the bound, and a huge one.
        std::vector<double> bad = {static_cast<double>(in.most) + 1, 1e16};
        for (double v : {2147483648.0, 4294967297.0})
          if (v > static_cast<double>(in.most)) bad.push_back(v);
        for (double v : bad) {
          const std::string value = fmt::format("{:.0f}", v);
          INFO(value);
          try {
            (void)run_calculator(p, c, {{std::string(in.name), value}});
            FAIL("accepted a value past the bound");
          } catch (const UserError& e) {
            CHECK_THAT(e.error.message, Catch::Contains(flag));
            if (v < 9e15) CHECK_THAT(e.error.message, Catch::Contains(format_count(static_cast<double>(in.most), 15)));
            CHECK_FALSE(e.error.hint.empty());
          }
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 200);
}
