// The Llama 3 70B H100 worksheet states weights, KV per token, devices, the decode ceiling, tokens/s,
// requests/s, rack kW, coolant L/min, the owner's $/GPU-hour and $/Mtok; each must equal what the single
// plugin prints for the same inputs (run here through run_calculator, the function `infracalc PLUGIN CALC`
// calls).
#include <catch2/catch.hpp>
#include <cmath>

#include "plan_test_util.hpp"
#include "host/context.hpp"
#include "plugins/registry.hpp"
#include "units/format.hpp"

using namespace infracalc;

namespace {

double output_of(const char* plugin, const char* calc, const RawInputs& raw, const char* output) {
  const Plugin* p = find_plugin(plugin);
  REQUIRE(p != nullptr);
  const Calculator* c = p->find(calc);
  REQUIRE(c != nullptr);
  const Result r = run_calculator(*p, *c, raw);
  const Value* v = r.find(output);
  INFO(plugin << " " << calc << " " << output);
  REQUIRE(v != nullptr);
  return v->q.value;
}

std::string machine_text(double v) { return format_machine(v); }

}  // namespace

TEST_CASE("the Llama 3 70B H100 worksheet agrees with the single plugins", "[plan]") {
  auto l = plan_test::load_example("llama3-70b-h100.toml");
  INFO(l->problems.text());
  REQUIRE(l->problems.empty());
  for (const auto& e : l->sheet.errors) FAIL(e);
  const std::string model = "llama-3-70b";
  const std::string gpu = "h100-sxm";
  CHECK(l->text("gpu") == gpu);
  const double tp = l->q("tp");
  const double batch = l->q("batch");
  CHECK(tp == 8);

  // weights
  CHECK(l->q("weights") == output_of("fit", "weights", {{"model", model}, {"dtype", "bf16"}}, "weights"));
  CHECK(l->q("weights") == Approx(141.1e9).epsilon(1e-3));
  // KV per token
  CHECK(l->q("kv_bytes_per_token") == output_of("kv", "size", {{"model", model}, {"dtype", "bf16"}, {"tokens", "2500"}}, "kv_bytes_per_token"));
  CHECK(l->q("kv_bytes_per_token") == 327680);
  // devices: the fewest devices, and the fleet from the rate
  CHECK(l->q("min_devices") ==
        output_of("fit", "inference", {{"model", model}, {"gpu", gpu}, {"dtype", "bf16"}, {"kv_dtype", "bf16"}, {"tokens", "2500"}}, "min_devices"));
  const double rps = l->q("requests_per_second");
  const double replicas_needed = std::ceil(20.0 / (rps * 0.8));
  CHECK(l->q("gpus") == std::ceil(replicas_needed * tp / 8) * 8);
  // decode ceiling: one stream at the full context on the replica's tp
  CHECK(l->q("decode_ceiling") == output_of("decode", "ceiling",
                                      {{"model", model}, {"gpu", gpu}, {"dtype", "bf16"}, {"kv_dtype", "bf16"}, {"batch", "1"},
                                       {"tokens", "2500"}, {"tp", "8"}},
                                      "tokens_per_second_per_stream"));
  // tokens/s of the replica at the operating batch and the average context (prompt + output/2)
  // The plan works with the expected (calibrated) figures by default (hardware.performance = expected).
  CHECK(l->text("performance") == "expected");
  const RawInputs decode_in = {{"model", model}, {"gpu", gpu},       {"dtype", "bf16"}, {"kv_dtype", "bf16"},
                               {"batch", machine_text(batch)}, {"tokens", "2250"}, {"tp", "8"},    {"mbu", "1"}, {"mfu", "1"}};
  CHECK(l->q("tokens_per_second") == Approx(output_of("decode", "ceiling", decode_in, "expected_tokens_per_second")).epsilon(1e-12));
  // requests/s: the serve plugin's simulated replica within the p95 targets; the static model beside it
  // (one prefill plus output/batch decode steps per request) from decode's step and prefill times.
  const double step = output_of("decode", "ceiling", decode_in, "expected_step_time");
  const double prefill = output_of("decode", "prefill",
                             {{"model", model}, {"gpu", gpu}, {"dtype", "bf16"}, {"kv_dtype", "bf16"}, {"tokens", "2000"}, {"batch", "1"},
                              {"tp", "8"}, {"mfu", "1"}, {"mbu", "1"}},
                             "expected_prefill_time");
  CHECK(l->q("requests_per_second_static") == Approx(1.0 / (prefill + 500 * step / batch)).epsilon(1e-12));
  if (find_plugin("serve") != nullptr) {
    CHECK(rps == output_of("serve", "capacity",
                     {{"model", model}, {"gpu", gpu}, {"dtype", "bf16"}, {"kv_dtype", "bf16"}, {"tp", "8"}, {"mbu", "1"}, {"mfu", "1"},
                      {"memory_utilization", "0.9"}, {"max_batch", machine_text(batch)}, {"prompt_tokens", "2000"}, {"tokens_per_answer", "500"},
                      {"ttft_target", "1 s"}, {"tpot_target", "50 ms"}, {"target_rate", "20/s"}, {"simulate_with", "expected"}},
                     "replica_max_rate"));
    CHECK(l->q("ttft") == l->q("ttft_p95"));
  } else {
    CHECK(rps == l->q("requests_per_second_static"));
  }
  // rack kW: four DGX H100 nodes of 10.2 kW
  CHECK(l->q("rack_power") ==
        output_of("power", "rack", {{"rack_power", "40800 W"}, {"gpus", "32"}, {"gpu", gpu}, {"gpus_per_host", "8"}}, "rack_power"));
  CHECK(l->q("rack_power") == Approx(40800));
  // coolant L/min for the rack's heat at a 10 K rise from a 30 degC supply
  CHECK(l->q("coolant_flow_per_rack") ==
        output_of("cooling", "flow", {{"heat", "40800 W"}, {"delta_t", "10 K"}, {"supply", "30 degC"}, {"coolant", "water"}}, "volume_flow"));
  // owner $/GPU-hour for the capex with the fabric's share and the all-in power per GPU
  const double capex = 40000 + l->q("network_cost_used") / l->q("gpus");
  // Electricity at the in-service average draw: the DGX H100's idle floor (2.4 kW of 10.2 kW) plus the fleet's load x
  // (full load - idle) (issue 19, item 7); the same energy the bill counts.
  const double idle = 2400.0 / 10200.0;
  const double power = l->q("it_power") / l->q("gpus") * (idle + l->q("utilisation") * (1 - idle));
  CHECK(l->q("electricity_per_hour") * l->q("gpus") * l->q("sold_share") * 8766 * 3600 == Approx(l->q("energy_bill")).epsilon(1e-12));
  CHECK(l->q("owner_cost") == Approx(output_of("tco", "hour",
                                  {{"capex_per_gpu", machine_text(capex) + " USD"},
                                   {"life", "4 yr"},
                                   {"sold_share", "1"},
                                   {"power_per_gpu", machine_text(power) + " W"},
                                   {"pue", "1.3"},
                                   {"tariff", machine_text(l->q("tariff")) + " USD/J"},
                                   {"maintenance", "$0.30/h"},
                                   {"cost_of_capital", "0.08"}},
                                  "owner_cost")).epsilon(1e-12));
  // $/Mtok: one replica of tp accelerators at the owner's price, its throughput and the fleet's utilisation
  const double price = output_of("cost", "token",
                           {{"gpu_hour", machine_text(l->q("owner_cost")) + " USD/s"},
                            {"gpus", machine_text(tp)},
                            {"throughput", machine_text(l->q("replica_tokens_per_second")) + " tok/s"},
                            {"utilisation", machine_text(l->q("utilisation"))}},
                           "price_per_token");
  CHECK(l->q("cost_per_mtok") == Approx(price).epsilon(1e-12));
  // The worksheet's own cross-checks ran and agree.
  CHECK(l->sheet.crosses.size() >= 8);
  for (const auto& x : l->sheet.crosses) CHECK(x.ok);
}

TEST_CASE("the plan uses the memory software sees, the idle floor and one energy figure", "[plan][issue19]") {
  auto l = plan_test::load_example("llama3-70b-h100.toml");
  REQUIRE(l->problems.empty());
  // Item 5: the H100's 81,559 MiB as nvidia-smi reports it, beside the marketed 80 GB label.
  CHECK(l->q("gpu_memory") == 81559.0 * 1024 * 1024);
  CHECK(l->q("gpu_memory_marketed") == 80e9);
  CHECK(l->q("memory_usable") == Approx(0.9 * 81559.0 * 1024 * 1024));
  // Item 7: the DGX H100's idle floor (2.4 kW of 10.2 kW); average IT power between it and full load.
  CHECK(l->q("idle_fraction") == Approx(2400.0 / 10200.0));
  const double full = l->q("it_power");
  CHECK(l->q("average_it_power") == Approx(full * (2400.0 / 10200.0 + l->q("utilisation") * (1 - 2400.0 / 10200.0))));
  CHECK(l->q("facility_power_full_load") == Approx(full * 1.3));
  CHECK(l->q("facility_power_full_load") > l->q("facility_power_average"));
  // One energy figure: a year's electricity in the owner's cost is the energy bill (period 1 yr, all hours in service).
  CHECK(l->q("electricity_per_hour") * l->q("gpus") * 8766 * 3600 == Approx(l->q("energy_bill")).epsilon(1e-12));
  // Item 12: maintenance per installed hour spread over the in-service hours.
  CHECK(l->q("maintenance_per_hour") * l->q("sold_share") == Approx(0.30 / 3600));
}

TEST_CASE("the planner plans with expected figures by default and with ceilings when asked", "[plan]") {
  // Issue 18 item 4: expected (calibrated) figures by default; hardware.performance = ceiling (--ideal) plans with
  // 100% of the datasheet, which serves more per replica and so needs no more accelerators.
  auto expected = plan_test::load_example("llama3-70b-h100.toml");
  auto ceiling = plan_test::load_example("llama3-70b-h100.toml", {"hardware.performance=ceiling"});
  REQUIRE(expected->problems.empty());
  REQUIRE(ceiling->problems.empty());
  CHECK(expected->q("step_time") == expected->q("step_time_expected"));
  CHECK(ceiling->q("step_time") == ceiling->q("step_time_ceiling"));
  CHECK(expected->q("step_time") > ceiling->q("step_time"));
  CHECK(expected->q("prefill_time") > ceiling->q("prefill_time"));
  CHECK(expected->q("requests_per_second") < ceiling->q("requests_per_second"));
  CHECK(expected->q("gpus") >= ceiling->q("gpus"));
}
