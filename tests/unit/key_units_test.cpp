// No JSON key names a unit its value is not in (issue 20, item 2): every input and output of every calculator, and
// every line of the planner's worksheets, is written in the unit its key names (energy_per_bit in J/bit,
// cost_per_mtok in USD/Mtok) and in base units otherwise, and the unit string reads back to the same quantity.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "plan/machine_units.hpp"
#include "plan/output.hpp"
#include "plan_test_util.hpp"
#include "plugins/registry.hpp"
#include "units/parse.hpp"

using namespace infracalc;
using infracalc::writers::kForbiddenKeyUnitWords;
using infracalc::writers::kKeyUnitWords;
using infracalc::writers::machine_quantity;

namespace {

std::vector<std::string> parts_of(std::string_view key) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= key.size();) {
    const std::size_t end = std::min(key.find('_', start), key.size());
    out.emplace_back(key.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<std::string> symbols_of(std::string_view unit) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : unit) {
    if (std::isalpha(static_cast<unsigned char>(c)) != 0) {
      cur += c;
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool has_symbol(std::string_view unit, std::string_view symbol) {
  const auto s = symbols_of(unit);
  return std::find(s.begin(), s.end(), symbol) != s.end();
}

// Every rule for one key and its dimension; returns how many unit words it checked.
int check_key(std::string_view key, const Dim& dim, bool point) {
  INFO("key " << key);
  const Quantity q{1234.5, dim, point};
  const writers::MachineQuantity m = writers::machine_quantity(key, q);
  // The unit string reads back to the same quantity: value x unit == q.
  auto u = parse_unit(m.unit);
  REQUIRE(u.ok());
  CHECK(u->dim == dim);
  if (!point) CHECK(m.value * u->factor == Approx(q.value).epsilon(1e-12));
  int words = 0;
  bool converted = false;
  for (const auto& part : parts_of(key)) {
    INFO("part " << part);
    CHECK(std::find(writers::kForbiddenKeyUnitWords.begin(), writers::kForbiddenKeyUnitWords.end(), part) == writers::kForbiddenKeyUnitWords.end());
    for (const auto& w : writers::kKeyUnitWords) {
      if (w.word != part || point) continue;
      ++words;
      if (w.base_symbol.empty()) {
        // A whole unit (gpm, gallons): only for a value of that very dimension.
        auto whole = parse_unit(w.symbol);
        REQUIRE(whole.ok());
        CHECK(whole->dim == dim);
        CHECK(m.unit == w.symbol);
        converted = true;
      } else if (has_symbol(writers::machine_unit(q), w.base_symbol)) {
        // The value's unit has the base symbol the word renames: it must now read in the word's unit.
        CHECK(has_symbol(m.unit, w.symbol));
        if (w.symbol != w.base_symbol) CHECK_FALSE(has_symbol(m.unit, w.base_symbol));
        converted = converted || w.symbol != w.base_symbol;
      }
    }
  }
  // A key without a converting word is carried in base units.
  if (!converted) CHECK(m.unit == writers::machine_unit(q));
  return words;
}

}  // namespace

TEST_CASE("every calculator key is in the unit it names", "[output][units]") {
  int keys = 0, words = 0;
  for (const auto& entry : plugin_table()) {
    const Plugin& p = entry.get();
    for (const auto& c : p.calculators) {
      INFO(std::string(p.name) + " " + std::string(c.name));
      for (const auto& in : c.inputs) {
        if (in.kind != InputKind::quantity && in.kind != InputKind::integer) continue;
        words += check_key(in.name, in.dim, in.point);
        ++keys;
      }
      for (const auto& o : c.outputs) {
        words += check_key(o.name, o.dim, o.point);
        ++keys;
      }
    }
  }
  CHECK(keys > 1500);
  // The words are used: bits in formats and network, hours and years in tco, days in cluster.
  CHECK(words > 30);
}

TEST_CASE("every plan worksheet line is in the unit its key names", "[output][units][plan]") {
  for (const char* example : {"llama3-70b-h100.toml", "llama3-405b-train-16k-h100.toml", "site-100mw.toml"}) {
    INFO(example);
    auto p = plan_test::load_example(example);
    REQUIRE(p->problems.empty());
    for (std::size_t i = 0; i < p->program->lines.size(); ++i)
      if (const auto& v = p->sheet.values[i])
        if (const auto* q = std::get_if<Quantity>(&*v)) (void)check_key(p->program->lines[i].key, q->dim, q->point);
  }
}

TEST_CASE("the fast test for converting words knows every one of them", "[output][units]") {
  for (const auto& w : writers::kKeyUnitWords)
    if (w.symbol != w.base_symbol) CHECK(writers::kConvertingInitials.find(w.word.front()) != std::string_view::npos);
}

TEST_CASE("the named units, value by value", "[output][units]") {
  // 1.5e-10 J/B is 18.75 pJ/bit.
  auto e = writers::machine_quantity("energy_per_bit", Quantity{1.5e-10, dims::energy_per_bit});
  CHECK(e.unit == "J/bit");
  CHECK(e.value == Approx(1.875e-11));
  // One FP8 code is one byte: 8 bits.
  auto b = writers::machine_quantity("bits", Quantity{1, dims::information});
  CHECK(b.unit == "bit");
  CHECK(b.value == Approx(8));
  auto r = writers::machine_quantity("per_direction_bits", Quantity{100e9, dims::data_rate});
  CHECK(r.unit == "bit/s");
  CHECK(r.value == Approx(800e9));
  // $2 per million tokens is 2e-6 USD/tok.
  auto t = writers::machine_quantity("cost_per_mtok", Quantity{2e-6, Dim(Base::currency, 1) / Dim(Base::token, 1)});
  CHECK(t.unit == "USD/Mtok");
  CHECK(t.value == Approx(2));
  auto h = writers::machine_quantity("cost_per_hour", Quantity{2.0 / 3600, dims::money_rate});
  CHECK(h.unit == "USD/h");
  CHECK(h.value == Approx(2));
  auto y = writers::machine_quantity("tco_per_year", Quantity{1, dims::money_rate});
  CHECK(y.unit == "USD/yr");
  CHECK(y.value == Approx(31557600));
  auto d = writers::machine_quantity("days_to_train", Quantity{86400 * 3, dims::time});
  CHECK(d.unit == "d");
  CHECK(d.value == Approx(3));
  // A basis, not a unit: energy per sold hour is energy; a count of exponent bits is a count.
  CHECK(writers::machine_quantity("energy_per_sold_hour", Quantity{5, dims::energy}).unit == "J");
  CHECK(writers::machine_quantity("exponent_bits", Quantity{4, dims::none}).unit == "1");
  // "bitrate" and "hours_x" parts are whole words only: "orbit" holds no bit.
  CHECK(writers::machine_quantity("orbit", Quantity{1, dims::information}).unit == "B");
  // A temperature point stays in K whatever its key says.
  CHECK(writers::machine_quantity("hour_peak", Quantity{300, dims::temperature, true}).unit == "K");
}
