// The chain and its evaluation: bindings to the registered plugins, memoized steps, incremental sweeps,
// sweeps and the Pareto front.
#include <catch2/catch.hpp>
#include <random>

#include "plan/plan_output.hpp"
#include "plan/plan_sweep.hpp"
#include "plan_test_util.hpp"
#include "plugins/registry.hpp"
#include "units/format.hpp"
#include "units/parse.hpp"

using namespace infracalc;
using namespace infracalc::plan;

namespace {

bool same_cell(const std::optional<Cell>& a, const std::optional<Cell>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  if (a->index() != b->index()) return false;
  if (const auto* q = std::get_if<Quantity>(&*a)) {
    const auto& r = std::get<Quantity>(*b);
    return q->dim == r.dim && (q->value == r.value || std::fabs(q->value - r.value) <= 1e-12 * std::fabs(q->value));
  }
  return std::get<std::string>(*a) == std::get<std::string>(*b);
}

}  // namespace

TEST_CASE("every step of a registered plugin binds to inputs and outputs it declares", "[plan]") {
  for (const char* f : {"llama3-70b-h100.toml", "llama3-405b-train-16k-h100.toml", "llama3.1-70b-qlora-h100.toml"}) {
    auto l = plan_test::load_example(f);
    INFO(f << ": " << l->problems.text());
    REQUIRE(l->problems.empty());
    for (const auto& s : l->program->steps) {
      INFO(s.key << ": " << s.unavailable);
      CHECK(s.unavailable.find("out of date") == std::string::npos);
      if (find_plugin(s.plugin) != nullptr && find_plugin(s.plugin)->find(s.calculator) != nullptr) CHECK(s.unavailable.empty());
    }
  }
}

TEST_CASE("every example evaluates without errors", "[plan]") {
  for (const char* f : {"llama3-70b-h100.toml", "llama3-70b-h200-fp8.toml", "deepseek-v3-gb200-nvl72.toml",
                        "llama3-405b-train-16k-h100.toml", "llama3.1-70b-qlora-h100.toml"}) {
    auto l = plan_test::load_example(f);
    INFO(f << ": " << l->problems.text());
    REQUIRE(l->problems.empty());
    for (const auto& e : l->sheet.errors) FAIL(f << ": " << e);
    for (std::size_t i = 0; i < l->program->lines.size(); ++i)
      if (l->program->lines[i].headline) {
        INFO(f << ": " << l->program->lines[i].key << ": " << l->sheet.why[i]);
        CHECK(l->sheet.values[i].has_value());
      }
    for (const auto& x : l->sheet.crosses) CHECK(x.ok);
  }
}

TEST_CASE("every line's declared unit measures its value", "[plan]") {
  // A unit of another dimension scaled the value wherever it was converted: cost_per_year, a sum of money
  // declared "$/yr", came out 31,557,600x too large in the workbook (issue 19).
  for (const char* f : {"llama3-70b-h100.toml", "llama3-70b-h200-fp8.toml", "deepseek-v3-gb200-nvl72.toml",
                        "llama3-405b-train-16k-h100.toml", "llama3.1-70b-qlora-h100.toml"}) {
    auto l = plan_test::load_example(f);
    REQUIRE(l->problems.empty());
    int declared = 0;
    for (std::size_t i = 0; i < l->program->lines.size(); ++i) {
      const Line& line = l->program->lines[i];
      const auto& v = l->sheet.values[i];
      if (line.unit.empty() || !v || !std::holds_alternative<Quantity>(*v)) continue;
      ++declared;
      const Quantity& q = std::get<Quantity>(*v);
      INFO(f << ": " << line.key << " (" << dim_formula(q.dim) << ") declared in " << line.unit);
      CHECK(unit_fits(line.unit, q));
      CHECK(display_unit(line, q) == line.unit);
    }
    CHECK(declared > 10);
  }
}

TEST_CASE("steps are memoized on their inputs", "[plan]") {
  auto l = plan_test::load_example("llama3-70b-h100.toml");
  REQUIRE(l->problems.empty());
  const std::size_t runs = l->ev->runs();
  CHECK(runs > 10);
  const Sheet again = l->ev->evaluate(l->in);
  CHECK(l->ev->runs() == runs);
  for (std::size_t i = 0; i < l->program->lines.size(); ++i) CHECK(same_cell(again.values[i], l->sheet.values[i]));
}

TEST_CASE("incremental updates equal full evaluations", "[plan]") {
  auto l = plan_test::load_example("llama3-70b-h100.toml");
  REQUIRE(l->problems.empty());
  l->ev->set_cross_checks(false);
  std::mt19937_64 rng(7);
  Sheet inc = l->ev->evaluate(l->in);
  InputSet cur = l->in;
  const std::vector<std::pair<std::string, std::vector<std::string>>> choices = {
      {"workload.rate", {"1/s", "20/s", "75/s", "400/s"}},
      {"workload.max_load", {"50%", "80%", "95%"}},
      {"site.tariff", {"$0.05/kWh", "$0.12/kWh"}},
      {"workload.batch", {"auto", "16", "64"}},
      {"hardware.tp", {"4", "8"}},
      {"hardware.system", {"dgx-h100", "dgx-h200"}},
      {"money.life", {"3 yr", "5 yr"}}};
  for (int step = 0; step < 40; ++step) {
    const auto& [path, values] = choices[rng() % choices.size()];
    const std::string v = values[rng() % values.size()];
    const KeyDef* key = find_key(path);
    REQUIRE(key != nullptr);
    REQUIRE_FALSE(l->ev->set_input(cur, *key, v, "test"));
    l->ev->update(cur, {l->program->find(path)}, inc);
    const Sheet full = l->ev->evaluate(cur);
    for (std::size_t i = 0; i < l->program->lines.size(); ++i) {
      INFO("after " << path << " = " << v << ": line " << l->program->lines[i].key);
      CHECK(same_cell(inc.values[i], full.values[i]));
    }
  }
}

TEST_CASE("a sweep gives one row per point, and the Pareto front keeps the undominated ones", "[plan]") {
  auto l = plan_test::load_example("llama3-70b-h100.toml");
  REQUIRE(l->problems.empty());
  Problems problems;
  const SweepPlan sw = make_sweep(l->spec, *l->program, {"hardware.tp=4,8", "batch=1,8,64"}, "cost_per_mtok,tpot", "cost_per_mtok,tpot", problems);
  INFO(problems.text());
  REQUIRE(problems.empty());
  l->ev->set_cross_checks(false);
  SweepStats stats;
  std::vector<SweepRow> rows;
  run_sweep(*l->ev, l->spec, l->in, sw, stats, [&](SweepRow&& r) { rows.push_back(std::move(r)); });
  REQUIRE(rows.size() == 6);
  CHECK(rows[0].labels == std::vector<std::string>{"4", "1"});
  CHECK(rows[5].labels == std::vector<std::string>{"8", "64"});
  // Each row equals a single evaluation of the same point.
  auto single = plan_test::load_example("llama3-70b-h100.toml", {"hardware.tp=8", "workload.batch=8"});
  REQUIRE(single->problems.empty());
  CHECK(std::get<Quantity>(*rows[4].values[0]).value == Approx(single->q("cost_per_mtok")).epsilon(1e-12));
  ParetoFront pf(sw);
  for (auto r : rows) pf.add(std::move(r));
  const auto front = pf.take_rows();
  REQUIRE_FALSE(front.empty());
  auto dominated = [&](const SweepRow& r) {
    const double rc = std::get<Quantity>(*r.values[0]).value, rt = std::get<Quantity>(*r.values[1]).value;
    return std::any_of(rows.begin(), rows.end(), [&](const SweepRow& o) {
      const double oc = std::get<Quantity>(*o.values[0]).value, ot = std::get<Quantity>(*o.values[1]).value;
      return oc <= rc && ot <= rt && (oc < rc || ot < rt);
    });
  };
  // The front is exactly the undominated rows, in grid order.
  std::vector<std::size_t> want, got;
  for (const auto& r : rows)
    if (!dominated(r)) want.push_back(r.point);
  for (const auto& f : front) got.push_back(f.point);
  CHECK(got == want);
  // Batch 1 has the shortest time per token; batch 64 the lowest cost: both are on the front.
  CHECK(front.size() >= 2);
}

TEST_CASE("the Pareto front keeps every tied point and drops the dominated ones", "[plan]") {
  SweepPlan sw;
  sw.columns = {"a", "b"};
  sw.pareto = {"a", "b:max"};
  ParetoFront pf(sw);
  auto row = [](std::size_t p, double a, double b) {
    SweepRow r;
    r.point = p;
    r.values = {Cell{Quantity::number(a)}, Cell{Quantity::number(b)}};
    return r;
  };
  // 10,000 points tied at (1, 5), one that beats them (1, 6) arriving last, and one that nothing beats on a.
  for (std::size_t p = 0; p < 10000; ++p) pf.add(row(p, 1, 5));
  pf.add(row(10000, 0.5, 1));
  auto tied = ParetoFront(sw);
  for (std::size_t p = 0; p < 10000; ++p) tied.add(row(p, 1, 5));
  CHECK(tied.take_rows().size() == 10000);
  pf.add(row(10001, 1, 6));
  const auto front = pf.take_rows();
  REQUIRE(front.size() == 2);
  CHECK(front[0].point == 10000);
  CHECK(front[1].point == 10001);
}

namespace {

// A sweep of the Llama 3 70B H100 example (with `sets`) and the problems making it found.
struct SweepRun {
  std::unique_ptr<plan_test::Loaded> l;
  Problems problems;
  SweepPlan sw;
  std::vector<SweepRow> rows;
};

SweepRun sweep_example(const std::vector<std::string>& sets, const std::vector<std::string>& axes, const std::string& columns) {
  SweepRun r;
  r.l = plan_test::load_example("llama3-70b-h100.toml", sets);
  REQUIRE(r.l->problems.empty());
  r.sw = make_sweep(r.l->spec, *r.l->program, axes, columns, "", r.problems);
  if (!r.problems.empty()) return r;
  r.l->ev->set_cross_checks(false);
  SweepStats stats;
  run_sweep(*r.l->ev, r.l->spec, r.l->in, r.sw, stats, [&](SweepRow&& row) { r.rows.push_back(std::move(row)); });
  return r;
}

double column(const SweepRun& r, std::size_t row, const std::string& key) {
  const auto it = std::find(r.sw.columns.begin(), r.sw.columns.end(), key);
  REQUIRE(it != r.sw.columns.end());
  const auto& v = r.rows.at(row).values[static_cast<std::size_t>(it - r.sw.columns.begin())];
  INFO("row " << row << " column " << key << ": " << r.rows.at(row).error);
  REQUIRE(v.has_value());
  return std::get<Quantity>(*v).value;
}

}  // namespace

TEST_CASE("a swept system is priced as itself, never as the plan's own system", "[plan]") {
  // Issue 19: --sweep hardware.system=dgx-h100,dgx-b200 priced the B200 rows with the H100's capex and rental.
  const std::string cols = "capex_per_gpu,owner_cost,cost_per_mtok,cost_per_year";
  SECTION("the catalog's purchase price of the swept system's accelerator replaces the plan's capex") {
    auto r = sweep_example({"money.rental="}, {"hardware.system=dgx-h100,dgx-b200"}, cols);
    INFO(r.problems.text());
    REQUIRE(r.problems.empty());
    REQUIRE(r.rows.size() == 2);
    auto own = plan_test::load_example("llama3-70b-h100.toml", {"money.rental="});
    auto b200 = plan_test::load_example("llama3-70b-h100.toml",
                                        {"money.rental=", "hardware.system=dgx-b200", "money.capex_per_gpu=", "money.purchase=b200-purchase"});
    REQUIRE(own->problems.empty());
    REQUIRE(b200->problems.empty());
    CHECK(column(r, 0, "capex_per_gpu") == own->q("capex_per_gpu"));
    CHECK(column(r, 1, "capex_per_gpu") == b200->q("capex_per_gpu"));
    CHECK(column(r, 1, "capex_per_gpu") != own->q("capex_per_gpu"));
    for (const char* key : {"owner_cost", "cost_per_mtok", "cost_per_year"}) {
      CHECK(column(r, 0, key) == Approx(own->q(key)).epsilon(1e-12));
      CHECK(column(r, 1, key) == Approx(b200->q(key)).epsilon(1e-12));
    }
    REQUIRE(r.sw.notes.size() == 1);
    CHECK(r.sw.notes[0].find("b200-purchase") != std::string::npos);
    // The first point (the workbook's and the charts' plan) is the file's own system at its own price.
    const InputSet first = first_point(*r.l->ev, r.l->spec, r.l->in, r.sw);
    CHECK(first.values[static_cast<std::size_t>(r.l->program->find("money.capex_per_gpu"))].has_value());
  }
  SECTION("a rental follows the swept accelerator, the same provider and tier first") {
    auto r = sweep_example({"money.rental_tier=capacity-block"}, {"hardware.system=dgx-h100,dgx-h200", "money.capex_per_gpu=$40000"},
                           "rental_price,rent_cost_per_mtok");
    INFO(r.problems.text());
    REQUIRE(r.problems.empty());
    REQUIRE(r.rows.size() == 2);
    auto h200 = plan_test::load_example("llama3-70b-h100.toml", {"money.rental_tier=capacity-block", "hardware.system=dgx-h200",
                                                                 "money.rental=h200-sxm-rental-aws"});
    auto own = plan_test::load_example("llama3-70b-h100.toml", {"money.rental_tier=capacity-block"});
    REQUIRE(h200->problems.empty());
    CHECK(column(r, 0, "rental_price") == own->q("rental_price"));
    CHECK(column(r, 1, "rental_price") == h200->q("rental_price"));
    CHECK(column(r, 1, "rent_cost_per_mtok") == Approx(h200->q("rent_cost_per_mtok")).epsilon(1e-12));
  }
  SECTION("a price the catalog lacks stops the sweep, naming it and how to give it") {
    auto r = sweep_example({}, {"hardware.system=dgx-h100,hgx-b300,gb200-nvl72"}, cols);
    const std::string t = r.problems.text();
    INFO(t);
    CHECK(r.rows.empty());
    CHECK(t.find("--sweep hardware.system=hgx-b300: no purchase price for hgx-b300 (b300)") != std::string::npos);
    CHECK(t.find("money.capex_per_gpu") != std::string::npos);
    CHECK(t.find("--data-dir") != std::string::npos);
    CHECK(t.find("--sweep hardware.system=gb200-nvl72: no on-demand rental price for gb200-nvl72 (gb200)") != std::string::npos);
    CHECK(t.find("--set money.rental=") != std::string::npos);
    CHECK(t.find("gb200-nvl72: no purchase price") == std::string::npos);  // the catalog prices the GB200 NVL72
  }
  SECTION("prices the sweep sets itself stay as given") {
    auto r = sweep_example({"money.rental="}, {"hardware.system=dgx-h100,dgx-h200", "money.capex_per_gpu=$30000,$45000"}, cols);
    INFO(r.problems.text());
    REQUIRE(r.problems.empty());
    REQUIRE(r.rows.size() == 4);
    CHECK(column(r, 2, "capex_per_gpu") == 30000);
    CHECK(column(r, 3, "capex_per_gpu") == 45000);
    CHECK(r.sw.notes.empty());
  }
}

TEST_CASE("sweep axes and columns are validated", "[plan]") {
  auto l = plan_test::load_example("llama3-70b-h100.toml");
  Problems problems;
  (void)make_sweep(l->spec, *l->program, {"gpuu=h100-sxm", "hardware.gpu=h100", "rate=10..100:1", "batch=1,x"}, "cost_per_mtk", "", problems);
  const std::string t = problems.text();
  INFO(t);
  CHECK(t.find("unknown plan key 'gpuu'") != std::string::npos);
  CHECK(t.find("did you mean 'gpu'") != std::string::npos);
  CHECK(t.find("h100-sxm") != std::string::npos);
  CHECK(t.find("range points") != std::string::npos);
  CHECK(t.find("workload.batch") != std::string::npos);
  CHECK(t.find("no worksheet line 'cost_per_mtk'") != std::string::npos);
}

TEST_CASE("ranges give evenly spaced points", "[plan]") {
  auto l = plan_test::load_example("llama3-70b-h100.toml");
  Problems problems;
  const Axis a = parse_axis("workload.rate=10/s..100/s:10", "serve", l->spec, problems);
  REQUIRE(problems.empty());
  REQUIRE(a.size() == 10);
  CHECK(a.cells.empty());  // a quantity range is computed point by point, not held
  CHECK(std::get<Quantity>(a.cell(9)).value == Approx(100));
  CHECK(a.label(1) == "20/s");
  const Axis g = parse_axis("workload.max_batch=1..1024:11:log", "serve", l->spec, problems);
  REQUIRE(g.cells.size() == 11);
  CHECK(std::get<Quantity>(g.cells[10]).value == 1024);
  CHECK(std::get<Quantity>(g.cells[1]).value == 2);
}

TEST_CASE("a linear range's whole steps are exact, so token counts swept by a range stay whole", "[plan]") {
  auto l = plan_test::load_example("llama3-70b-h100.toml");
  Problems problems;
  // 500 + 4700 x (27 / 47) is 3200.0000000000005 in doubles, which serve capacity refused as --prompt-tokens.
  const Axis prompt = parse_axis("workload.prompt=500..5200:48", "serve", l->spec, problems);
  REQUIRE(problems.empty());
  for (std::size_t i = 0; i < prompt.size(); ++i) CHECK(std::get<Quantity>(prompt.cell(i)).value == 500.0 + 100.0 * static_cast<double>(i));
  const Axis rate = parse_axis("workload.rate=1/s..1000/s:1000", "serve", l->spec, problems);
  REQUIRE(problems.empty());
  for (std::size_t i = 0; i < rate.size(); ++i) CHECK(rate.label(i) == std::to_string(i + 1) + "/s");
  // Ends that are not whole: the first and last points are the ends as given.
  const Axis tariff = parse_axis("site.tariff=$0.03/kWh..$0.15/kWh:7", "serve", l->spec, problems);
  REQUIRE(problems.empty());
  const Axis tariff_ends = parse_axis("site.tariff=$0.03/kWh,$0.15/kWh", "serve", l->spec, problems);
  REQUIRE(problems.empty());
  CHECK(std::get<Quantity>(tariff.cell(0)).value == std::get<Quantity>(tariff_ends.cells[0]).value);
  CHECK(std::get<Quantity>(tariff.cell(6)).value == std::get<Quantity>(tariff_ends.cells[1]).value);
}

TEST_CASE("quantities cross to plugins as text that reads back exactly", "[plan]") {
  const std::vector<Quantity> qs = {
      {1.41107412992e11, dims::information, false}, {0.000540742766732317, dims::money_rate, false},
      {5.89e-7, dims::money_per_token, false},      {303.15, dims::temperature, true},
      {10, dims::temperature, false},                {50, dims::frequency, false},
      {0.0032, dims::volume_flow, false},            {2.7e-10, dims::water_intensity, false},
      {7.8e-8, dims::carbon_intensity, false},       {0.08, dims::none, false}};
  for (const auto& q : qs) {
    const std::string t = machine_text(q);
    auto back = parse_quantity(t);
    INFO(t);
    REQUIRE(back.ok());
    CHECK(back->value == q.value);
    CHECK(back->dim == q.dim);
    CHECK(back->point == q.point);
  }
}

TEST_CASE("a failed step empties what depends on it instead of defaulting", "[plan]") {
  // 12 GPUs of a 64-GPU-per-rack system cannot be wired rail-optimised: the fabric fails, and the fabric
  // power must not silently fall back to 0 W.
  auto l = plan_test::load_example("llama3-70b-h100.toml", {"hardware.gpus=12", "workload.rate=1/s"});
  REQUIRE(l->problems.empty());
  REQUIRE_FALSE(l->sheet.errors.empty());
  CHECK_FALSE(l->has("network_power_used"));
  CHECK_FALSE(l->has("it_power"));
  CHECK_FALSE(l->has("cost_per_mtok"));
}

TEST_CASE("a power budget is filled with whole units and the fabric for them", "[plan]") {
  auto l = plan_test::load_example("llama3-70b-h200-fp8.toml", {"site.it_power=2 MW"});
  INFO(l->problems.text());
  REQUIRE(l->problems.empty());
  for (const auto& e : l->sheet.errors) FAIL(e);
  const double gpus = l->q("gpus");
  CHECK(std::fmod(gpus, 8) == 0);
  CHECK(l->q("it_power") <= 2e6);
  // One more node would not fit.
  CHECK((gpus + 8) * l->q("per_gpu_all_in") > 2e6 - l->q("network_power_used"));
  REQUIRE(l->sheet.checks.size() == l->program->checks.size());
}

TEST_CASE("the run cache answers a repeated run, keyed by the run options too, and keeps refusals", "[plan][eval]") {
  const Plugin* kv = find_plugin("kv");
  REQUIRE(kv != nullptr);
  const Calculator& size = *kv->find("size");
  const RawInputs raw = {{"model", "llama-3-70b"}, {"tokens", "8000"}};
  RunCache cache;
  bool ran = false;
  const auto first = cache.run(*kv, size, raw, {}, &ran);
  CHECK(ran);
  REQUIRE(first->result.has_value());
  const auto again = cache.run(*kv, size, raw, {}, &ran);
  CHECK_FALSE(ran);
  CHECK(again == first);
  RunOptions two_digits;
  two_digits.number.digits = 2;
  const auto other = cache.run(*kv, size, raw, two_digits, &ran);
  CHECK(ran);
  CHECK(other != first);
  RunOptions dated;
  dated.as_of = Date{2024, 1, 1};
  CHECK(RunCache::key("kv", "size", raw, dated) != RunCache::key("kv", "size", raw, {}));
  const RawInputs bad = {{"model", "llama-3-70b"}, {"tokens", "-5"}};
  const auto refused = cache.run(*kv, size, bad, {}, &ran);
  CHECK(ran);
  CHECK_FALSE(refused->result.has_value());
  REQUIRE(refused->error.has_value());
  CHECK(cache.run(*kv, size, bad, {}, &ran) == refused);
  CHECK_FALSE(ran);
}
