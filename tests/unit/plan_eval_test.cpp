// The chain and its evaluation: bindings to the registered plugins, memoized steps, incremental sweeps,
// sweeps and the Pareto front.
#include <catch2/catch.hpp>
#include <random>

#include "cli/plan_sweep.hpp"
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
  for (const char* f : {"llama3-70b-h100.toml", "llama3-405b-train-16k-h100.toml"}) {
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
                        "llama3-405b-train-16k-h100.toml"}) {
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
  const auto rows = run_sweep(*l->ev, l->spec, l->in, sw, stats);
  REQUIRE(rows.size() == 6);
  CHECK(rows[0].labels == std::vector<std::string>{"4", "1"});
  CHECK(rows[5].labels == std::vector<std::string>{"8", "64"});
  // Each row equals a single evaluation of the same point.
  auto single = plan_test::load_example("llama3-70b-h100.toml", {"hardware.tp=8", "workload.batch=8"});
  REQUIRE(single->problems.empty());
  CHECK(std::get<Quantity>(*rows[4].values[0]).value == Approx(single->q("cost_per_mtok")).epsilon(1e-12));
  const auto front = pareto_front(rows, sw);
  REQUIRE_FALSE(front.empty());
  for (const auto& f : front)
    for (const auto& r : rows) {
      const double fc = std::get<Quantity>(*f.values[0]).value, ft = std::get<Quantity>(*f.values[1]).value;
      const double rc = std::get<Quantity>(*r.values[0]).value, rt = std::get<Quantity>(*r.values[1]).value;
      CHECK_FALSE((rc <= fc && rt <= ft && (rc < fc || rt < ft)));
    }
  // Batch 1 has the shortest time per token; batch 64 the lowest cost: both are on the front.
  CHECK(front.size() >= 2);
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
  REQUIRE(a.cells.size() == 10);
  CHECK(std::get<Quantity>(a.cells[9]).value == Approx(100));
  CHECK(a.labels[1] == "20/s");
  const Axis g = parse_axis("workload.max_batch=1..1024:11:log", "serve", l->spec, problems);
  REQUIRE(g.cells.size() == 11);
  CHECK(std::get<Quantity>(g.cells[10]).value == 1024);
  CHECK(std::get<Quantity>(g.cells[1]).value == 2);
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
