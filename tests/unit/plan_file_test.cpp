// Plan files: reading, --set, and validation that reports every problem at once with file:line:col.
#include <catch2/catch.hpp>

#include "plan_test_util.hpp"

using namespace infracalc;
using namespace infracalc::plan;

namespace {

const char* kBase = R"([model]
id = "llama-3-70b"
[hardware]
system = "dgx-h100"
[workload]
type = "serve"
rate = "10/s"
prompt = 1000
output = 200
[site]
tariff = "$0.08/kWh"
pue = 1.2
[money]
capex_per_gpu = "$40000"
life = "4 yr"
)";

std::string all(const Problems& p) { return p.text(); }

}  // namespace

TEST_CASE("a complete plan loads without problems", "[plan]") {
  Problems problems;
  const PlanSpec spec = parse_plan_text(kBase, "p.toml", problems);
  validate(spec, problems);
  INFO(all(problems));
  CHECK(problems.empty());
  CHECK(spec.mode() == "serve");
  REQUIRE(spec.get("workload.rate") != nullptr);
  CHECK(spec.get("workload.rate")->where == "p.toml:7:8");
}

TEST_CASE("unknown keys get a position and a did-you-mean", "[plan]") {
  Problems problems;
  (void)parse_plan_text("[workload]\ntype = \"serve\"\nrat = \"10/s\"\n[hardwre]\ngpu = \"h100-sxm\"\n[site]\nbatch = 8\n", "p.toml", problems);
  const std::string t = all(problems);
  CHECK(t.find("p.toml:3:7: unknown key 'rat' in [workload]; hint: did you mean 'rate'?") != std::string::npos);
  CHECK(t.find("p.toml:4:1: unknown section or key 'hardwre'; hint: did you mean 'hardware'?") != std::string::npos);
  CHECK(t.find("'batch' belongs in [workload]") != std::string::npos);
}

TEST_CASE("every problem is reported at once", "[plan]") {
  Problems problems;
  const PlanSpec spec = parse_plan_text(R"([model]
id = "llama-3-70"
[hardware]
gpu = "h100"
[workload]
type = "serve"
rate = "50 GB"
output = 200
mbu = "120%"
[site]
pue = 0.9
[money]
capex_per_gpu = "$40000"
life = "4 yr"
)",
                                        "bad.toml", problems);
  validate(spec, problems);
  const std::string t = all(problems);
  INFO(t);
  CHECK(t.find("bad.toml:2:6:") != std::string::npos);   // unknown model, with a suggestion
  CHECK(t.find("llama-3-70b") != std::string::npos);
  CHECK(t.find("bad.toml:4:7:") != std::string::npos);   // unknown accelerator
  CHECK(t.find("bad.toml:7:8: workload.rate: expected") != std::string::npos);  // a unit mistake
  CHECK(t.find("'mbu' belongs in [hardware]") != std::string::npos);
  CHECK(t.find("a PUE is at least 1") != std::string::npos);
  CHECK(t.find("missing workload.prompt") != std::string::npos);
  CHECK(t.find("missing the electricity price") != std::string::npos);
  CHECK(t.find("missing hardware.host_power") != std::string::npos);
  CHECK(problems.list().size() >= 8);
}

TEST_CASE("set overrides a value, by path or by a unique key", "[plan]") {
  Problems problems;
  PlanSpec spec = parse_plan_text(kBase, "p.toml", problems);
  apply_sets(spec, {"workload.rate=50/s", "max_load=70%", "site.tarif=$0.1/kWh"}, problems);
  CHECK(spec.get("workload.rate")->text == "50/s");
  CHECK(spec.get("workload.rate")->where == "--set workload.rate");
  CHECK(spec.get("workload.max_load")->text == "70%");
  REQUIRE(problems.list().size() == 1);
  CHECK(problems.list()[0].error.text().find("did you mean 'site.tariff'?") != std::string::npos);
}

TEST_CASE("request rates read in several ways", "[plan]") {
  const KeyDef* rate = find_key("workload.rate");
  REQUIRE(rate != nullptr);
  for (const char* t : {"50/s", "50 req/s", "3000/min", "50 Hz", "50 1/s", "180000/h"}) {
    auto c = parse_value(*rate, t, "rate");
    INFO(t);
    REQUIRE(c.ok());
    CHECK(std::get<Quantity>(c.value()).value == Approx(50));
  }
  CHECK_FALSE(parse_value(*rate, "50 GB/s", "rate").ok());
  CHECK_FALSE(parse_value(*rate, "-5/s", "rate").ok());
}

TEST_CASE("keys of the other workload are errors, not silently ignored", "[plan]") {
  Problems problems;
  const PlanSpec spec = parse_plan_text(std::string(kBase) + "[workload]\n", "p.toml", problems);
  (void)spec;
  Problems p2;
  PlanSpec s2 = parse_plan_text(kBase, "p.toml", p2);
  apply_sets(s2, {"workload.tokens=15e12"}, p2);
  validate(s2, p2);
  CHECK(all(p2).find("workload.tokens applies to train plans") != std::string::npos);
}

TEST_CASE("[[line]] expressions are checked against the worksheet", "[plan]") {
  auto l = plan_test::load_text(std::string(kBase) + "[[line]]\nname = \"cost_per_rack\"\nexpr = \"@capex_totl / @racks\"\n");
  CHECK(all(l->problems).find("refers to @capex_totl") != std::string::npos);
  CHECK(all(l->problems).find("did you mean 'capex_total'?") != std::string::npos);
  auto ok = plan_test::load_text(std::string(kBase) + "[[line]]\nname = \"cost_per_rack\"\nexpr = \"@capex_total / @racks\"\nunit = \"$\"\n");
  INFO(all(ok->problems));
  REQUIRE(ok->problems.empty());
  CHECK(ok->q("cost_per_rack") == Approx(ok->q("capex_total") / ok->q("racks")));
}

TEST_CASE("a TOML syntax error is one problem with its position", "[plan]") {
  Problems problems;
  (void)parse_plan_text("[model\nid = 1\n", "s.toml", problems);
  REQUIRE(problems.list().size() == 1);
  CHECK(problems.text().find("s.toml:1:") != std::string::npos);
}

TEST_CASE("variants and sweeps count as giving a key", "[plan]") {
  Problems problems;
  std::string text = kBase;
  text.replace(text.find("pue = 1.2\n"), 10, "");
  const PlanSpec spec = parse_plan_text(text + "[[variant]]\nname = \"a\"\n\"site.pue\" = 1.1\n[[variant]]\nname = \"b\"\n\"site.efficiency\" = \"efficiency-google-fleet\"\n",
                                        "v.toml", problems);
  validate(spec, problems);
  INFO(all(problems));
  CHECK(problems.empty());
  Problems p2;
  const PlanSpec s2 = parse_plan_text(text, "v.toml", p2);
  validate(s2, p2, {"site.pue"});
  CHECK(p2.empty());
}
