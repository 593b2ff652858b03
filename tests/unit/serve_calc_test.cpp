// The serve calculators through the host: inputs, catalog fill-in, cross-checks with decode and fit, errors.
#include <catch2/catch.hpp>

#include <string>

#include "host/context.hpp"
#include "plugins/registry.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;

namespace {

Result serve(std::string_view calc, const RawInputs& raw) { return run("serve", calc, raw); }

}  // namespace

TEST_CASE("serve simulate: the 1,950 idle steps", "[serve][calc]") {
  const Result r = serve("simulate", {{"batching", "static"}, {"requests", "100+50,100+2000"}, {"step_time", "10ms"}});
  CHECK(value(r, "idle_slot_steps") == 1950);
  CHECK(value(r, "slot_utilization") == Approx(0.5125));
  CHECK(value(r, "makespan") == Approx(19.99));
  REQUIRE(!r.tables.empty());
  CHECK(r.tables[0].name == "occupancy");
}

TEST_CASE("one request's TTFT and TPOT are decode's prefill and step times", "[serve][calc]") {
  const RawInputs base = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}};
  RawInputs sim = base;
  sim.push_back({"requests", "4000+2"});
  const Result s = serve("simulate", sim);
  RawInputs pre = base;
  pre.push_back({"tokens", "4000"});
  const Result p = run("decode", "prefill", pre);
  CHECK(value(s, "ttft_p50") == Approx(value(p, "ttft")).epsilon(1e-12));
  RawInputs dec = base;
  dec.push_back({"tokens", "4000"});
  const Result d = run("decode", "ceiling", dec);
  CHECK(value(s, "tpot_p50") == Approx(value(d, "step_time")).epsilon(1e-12));
}

TEST_CASE("the KV budget is what fit's waterfall leaves", "[serve][calc]") {
  const Result s = serve("simulate", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"count", "5"}});
  const Result f = run("fit", "inference", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"batch", "256"}, {"tokens", "8192"}});
  const double budget = value(f, "usable") - (value(f, "total") - value(f, "kv_cache"));
  CHECK(value(s, "kv_budget") == Approx(budget).epsilon(1e-12));
  const double per_token = 32 * 2 * 8 * 128 * 2;  // layers x K,V x kv heads x head dim x 2 bytes
  CHECK(value(s, "kv_blocks") == std::floor(budget / (16 * per_token)));
  // An explicit pool overrides it.
  const Result t = serve("simulate", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"count", "5"}, {"kv_tokens", "16000"}});
  CHECK(value(t, "kv_blocks") == 1000);
}

TEST_CASE("serve simulate reports targets, goodput and cost", "[serve][calc]") {
  const Result r = serve("simulate", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"count", "200"}, {"prompt_tokens", "1000"},
                                      {"output_tokens", "200"}, {"rate", "5/s"}, {"ttft_target", "2s"}, {"gpu_hour", "$2.50/h"}});
  REQUIRE(r.verdicts.size() == 1);
  CHECK(r.verdicts[0].key == "ttft_p95_within_target");
  CHECK(r.verdicts[0].ok);
  CHECK(value(r, "slo_attainment") == 1);
  CHECK(value(r, "cost_per_hour") == Approx(2.5 / 3600));
  CHECK(value(r, "cost_per_output_token") == Approx(2.5 / 3600 / value(r, "output_tokens_per_second")));
  CHECK(!r.check_failed);
  const Result tight = serve("simulate", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"count", "200"}, {"rate", "5/s"},
                                          {"ttft_target", "1ms"}, {"require_slo", ""}});
  CHECK(tight.check_failed);
}

TEST_CASE("serve simulate prices the replica from a rental entry at --as-of", "[serve][calc]") {
  const RawInputs raw = {{"step_time", "10ms"}, {"count", "10"}, {"rental", "h100-sxm-rental-aws"}, {"tp", "8"}};
  const Plugin* p = find_plugin("serve");
  RunOptions old;
  old.as_of = Date{2024, 1, 1};
  const Result then = run_calculator(*p, *p->find("simulate"), raw, old);
  CHECK(value(then, "cost_per_hour") == Approx(8 * 12.29 / 3600));
  const Result now = serve("simulate", raw);
  CHECK(value(now, "cost_per_hour") < value(then, "cost_per_hour"));
}

TEST_CASE("serve simulate --trace adds the schedule", "[serve][calc]") {
  const Result r = serve("simulate", {{"requests", "100+3,50+2"}, {"step_time", "10ms"}, {"prefill_rate", "1000tok/s"}, {"trace", ""}});
  REQUIRE(r.tables.size() == 3);
  CHECK(r.tables[1].name == "schedule");
  CHECK(r.tables[1].rows.size() == 3);
  CHECK(value(r, "ttft_p50") == Approx(0.15));
  CHECK(r.tables[2].name == "requests");
}

TEST_CASE("serve capacity: rack and pod answers per second", "[serve][calc]") {
  const Result r = serve("capacity", {{"system", "gb200-nvl72"}, {"tokens_per_second_per_gpu", "3000tok/s"}, {"tokens_per_answer", "300"},
                                      {"reasoning_tokens_per_answer", "10000"}});
  CHECK(value(r, "pod_tokens_per_second") == 216000);
  CHECK(value(r, "requests_per_second") == Approx(720));
  CHECK(value(r, "reasoning_requests_per_second") == Approx(21.6));
  CHECK(value(r, "reasoning_drop") == Approx(100.0 / 3));
  CHECK(value(r, "rack_tokens_per_second") == 216000);
  CHECK(error_of("serve", "capacity", {{"system", "gb200-nvl72"}, {"model", "llama-3.1-8b"}}).find("--gpu gb200") != std::string::npos);
}

TEST_CASE("serve capacity: replicas under latency targets", "[serve][calc]") {
  const RawInputs replica = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"prompt_tokens", "2000"}, {"length_dist", "exponential"}};
  RawInputs cap = replica;
  for (auto kv : RawInputs{{"tokens_per_answer", "300"}, {"target_rate", "60/s"}, {"ttft_target", "150ms"}, {"tpot_target", "20ms"}})
    cap.push_back(kv);
  const Result c = serve("capacity", cap);
  const double rate = value(c, "replica_max_rate");
  CHECK(rate > 0);
  CHECK(value(c, "replicas") == std::ceil(60 / rate));
  CHECK(value(c, "replica_ttft_p95") <= 0.15);
  // The replica simulated at that rate meets the targets; much faster it does not.
  RawInputs sim = replica;
  for (auto kv : RawInputs{{"output_tokens", "300"}, {"count", "200"}, {"ttft_target", "150ms"}, {"tpot_target", "20ms"}}) sim.push_back(kv);
  RawInputs at = sim;
  at.push_back({"rate", std::to_string(rate) + "/s"});
  const Result ok = serve("simulate", at);
  for (const auto& v : ok.verdicts) CHECK(v.ok);
  RawInputs over = sim;
  over.push_back({"rate", std::to_string(rate * 3) + "/s"});
  const Result bad = serve("simulate", over);
  bool any_failed = false;
  for (const auto& v : bad.verdicts) any_failed |= !v.ok;
  CHECK(any_failed);
}

TEST_CASE("serve latency: reasoning tokens and the waterfall", "[serve][calc]") {
  const Result r = serve("latency", {{"base_turn", "5s"}, {"reasoning_tokens", "10000"}, {"tpot", "9.5ms"}});
  CHECK(value(r, "turn_time") == Approx(100));
  CHECK(value(r, "reasoning_slowdown") == Approx(20));
  const Result m = serve("latency", {{"base_turn", "5s"}, {"reasoning_tokens", "10000"}, {"weights_bytes", "140GB"}, {"bandwidth", "3.35TB/s"}});
  CHECK(value(m, "turn_time") == Approx(5 + 10000 * 140e9 / 3.35e12));
  const Result w = serve("latency", {{"network", "40ms"}, {"embed", "20ms"}, {"vector_search", "30ms"}, {"keyword_search", "10ms"},
                                     {"rerank", "140ms"}, {"prefill_time", "100ms"}, {"output_tokens", "101"}, {"tpot", "10ms"}});
  CHECK(value(w, "retrieval_time") == Approx(0.2));
  CHECK(value(w, "rerank_share_of_retrieval") == Approx(0.7));
  CHECK(value(w, "turn_time") == Approx(0.04 + 0.2 + 0.1 + 1.0));
  CHECK(value(w, "ttft") == Approx(0.34));
  REQUIRE(w.tables.size() == 1);
  double share = 0;
  for (const auto& row : w.tables[0].rows) share += std::get<Quantity>(row[4]).value;
  CHECK(share == Approx(1));
  CHECK(error_of("serve", "latency", {{"base_turn", "5s"}, {"network", "1ms"}}).find("--base-turn") != std::string::npos);
  CHECK(error_of("serve", "latency", {{"prompt_tokens", "100"}, {"cached_prefix_tokens", "200"}, {"prefill_rate", "1ktok/s"}}).find("exceeds") !=
        std::string::npos);
  CHECK(error_of("serve", "latency", {{"output_tokens", "100"}}).find("nothing prices") != std::string::npos);
}

TEST_CASE("serve latency: a prefix-cache hit", "[serve][calc]") {
  const Result r = serve("latency", {{"prompt_tokens", "300k"}, {"cached_prefix_tokens", "295k"}, {"prefill_rate", "10ktok/s"}});
  CHECK(value(r, "prefill_time_uncached") == Approx(30));
  CHECK(value(r, "prefill_time") == Approx(0.5));
  const Result m = serve("latency", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"prompt_tokens", "100k"}, {"cached_prefix_tokens", "98k"}});
  CHECK(value(m, "prefix_cache_speedup") > 10);
}

TEST_CASE("serve multimodal: patches, frames and the prefill they cost", "[serve][calc]") {
  const Result r = serve("multimodal", {{"images", "1"}});
  CHECK(value(r, "image_tokens") == 1024);
  const Result v = serve("multimodal", {{"video_duration", "30s"}, {"video_fps", "2/s"}, {"tokens_per_frame", "64"}, {"text_tokens", "100"},
                                        {"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}});
  CHECK(value(v, "frames") == 60);
  CHECK(value(v, "prompt_tokens") == 60 * 64 + 100);
  const Result p = run("decode", "prefill", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"tokens", "3940"}});
  CHECK(value(v, "prefill_time") == Approx(value(p, "ttft")).epsilon(1e-12));
  CHECK(value(v, "ttft_ratio") > 10);
}

TEST_CASE("serve disaggregate: pools and the KV transfer", "[serve][calc]") {
  const Result r = serve("disaggregate", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"prompt_tokens", "4000"},
                                          {"output_tokens", "400"}, {"fabric", "infiniband-ndr"}, {"target_rate", "10/s"}});
  const double kv = 80 * 2 * 8 * 128 * 2 * 4000.0;  // layers x K,V x kv heads x head dim x 2 B x tokens
  CHECK(value(r, "kv_transfer_bytes") == Approx(kv));
  CHECK(value(r, "kv_transfer_time") == Approx(kv / (4 * 50e9)));
  CHECK(value(r, "pool_ratio") == Approx(value(r, "prefill_device_seconds") / value(r, "decode_device_seconds")));
  CHECK(std::fmod(value(r, "decode_gpus"), 4) == 0);
  CHECK(value(r, "transfer_bandwidth_needed") == Approx(10 * kv));
}

TEST_CASE("serve diffusion: samplers and video", "[serve][calc]") {
  CHECK(value(serve("diffusion", {{"steps", "50"}, {"baseline_steps", "1000"}}), "step_reduction") == 20);
  CHECK(value(serve("diffusion", {{"steps", "4"}, {"baseline_steps", "25"}, {"baseline_cfg", ""}}), "speedup") == Approx(12.5));
  CHECK(value(serve("diffusion", {{"latency", "90ms"}, {"baseline_latency", "2.6s"}, {"baseline_steps", "50"}}), "speedup") ==
        Approx(28.889).epsilon(1e-4));
  const Result t = serve("diffusion", {{"steps", "4"}, {"pass_time", "50ms"}, {"fixed_time", "100ms"}, {"baseline_steps", "28"}, {"baseline_cfg", ""}});
  CHECK(value(t, "generation_time") == Approx(0.3));
  CHECK(value(t, "baseline_time") == Approx(2.9));
  const Result v = serve("diffusion", {{"video_duration", "1min"}, {"gpu_time", "12min"}});
  CHECK(value(v, "realtime_slowdown") == Approx(12));
  CHECK(value(v, "frames") == 1440);
  CHECK_THROWS_AS(serve("diffusion", {}), UserError);
}

TEST_CASE("serve input errors name the input", "[serve][calc]") {
  CHECK(error_of("serve", "simulate", {{"count", "10"}}).find("no step model") != std::string::npos);
  CHECK(error_of("serve", "simulate", {{"step_time", "10ms"}, {"rate", "1/s"}, {"users", "4"}}).find("not both") != std::string::npos);
  CHECK(error_of("serve", "simulate", {{"step_time", "10ms"}, {"requests", "10+10"}, {"count", "5"}}).find("seeded stream") != std::string::npos);
  CHECK(error_of("serve", "simulate", {{"model", "llama-3-8b"}, {"gpu", "h100-sxm"}, {"prompt_tokens", "8000"}, {"output_tokens", "500"}})
            .find("context") != std::string::npos);
  CHECK(error_of("serve", "simulate", {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"count", "2"}}).find("no memory left") != std::string::npos);
  CHECK(error_of("serve", "simulate", {{"step_time", "10ms"}, {"max_batch", "512"}, {"step_tokens", "256"}}).find("--step-tokens") != std::string::npos);
  CHECK(error_of("serve", "simulate", {{"step_time", "10ms"}, {"requests", "100+10"}, {"kv_tokens", "64"}}).find("KV blocks") != std::string::npos);
  CHECK(error_of("serve", "simulate", {{"step_time", "10ms"}, {"rate", "20"}}).find("--rate") != std::string::npos);
  CHECK(error_of("serve", "multimodal", {{"images", "1"}, {"patch_size", "0"}}).find("--patch-size") != std::string::npos);
}

TEST_CASE("swap preemption takes its copy time from the GPU's host link", "[serve][calc]") {
  const Result r = serve("simulate", {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}, {"count", "60"}, {"prompt_tokens", "500"},
                                      {"output_tokens", "1500"}, {"kv_tokens", "20k"}, {"preemption", "swap"}});
  CHECK(value(r, "preemptions") > 0);
  CHECK(value(r, "swapped_blocks") > 0);
  CHECK(has_note(r, "host link pcie-5"));
}

TEST_CASE("serve capacity: the notes agree on the request counts and say counts round up", "[serve][calc]") {
  const Result r = serve("capacity", {{"model", "llama-3-8b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"target_rate", "20/s"},
                                      {"tokens_per_answer", "300"}});
  // 256 sequences fit the pool, so the saturation run is raised from --count 200 to 4 full batches, and says so.
  CHECK(has_note(r, "replica simulated at saturation: 1,024 requests (--count 200 raised to 4 full batches of 256"));
  CHECK(has_note(r, "rounded up to whole replicas"));
  CHECK(has_note(r, "rounded up to whole pods"));
  CHECK_FALSE(has_note(r, "device(s)"));
  REQUIRE(!r.verdicts.empty());
  CHECK(r.verdicts.back().key == "headroom");
  CHECK_FALSE(r.verdicts.back().ok);
  CHECK(has_note(r, "(an 8192-token step, 256 sequences)"));
}

TEST_CASE("serve capacity: a pod is whole replicas", "[serve][calc]") {
  CHECK(error_of("serve", "capacity", {{"model", "llama-3-8b"}, {"gpu", "h100-sxm"}, {"gpus", "8"}, {"tp", "16"}})
            .find("does not fit in --gpus 8") != std::string::npos);
  CHECK(error_of("serve", "capacity", {{"model", "llama-3-8b"}, {"gpu", "h100-sxm"}, {"gpus", "12"}, {"tp", "8"}})
            .find("not a multiple of the replica size") != std::string::npos);
  CHECK(error_of("serve", "capacity", {{"tokens_per_second_per_gpu", "3000tok/s"}, {"tokens_per_answer", "300"}, {"target_rate", "1e300/s"}}) ==
        "--target-rate: needs more than 9e15 replicas; hint: lower --target-rate, or serve more per replica (a larger --tp or batch)");
}

// Issue 19, item 15: 57,000 requests/s from one H100 (1-token prompts and answers) gets a warning: a 1-token answer
// runs no decode step after its prefill, and its fixed per-request costs are nowhere in the rate.
TEST_CASE("serve capacity: 1-token answers are flagged, with the per-request costs the rate leaves out", "[serve][calc][implausible]") {
  const Result r = serve("capacity", {{"model", "llama-3-8b"}, {"gpu", "h100-sxm"}, {"prompt_tokens", "1"}, {"tokens_per_answer", "1"}, {"gpus", "1"}});
  CHECK(value(r, "requests_per_second") > 10'000);
  CHECK(has_note(r, "implausible: --tokens-per-answer 1 tok is answered by the step that prefills the prompt"));
  CHECK(has_note(r, "the API server took 33%"));
  // The same with a given token rate; two-token answers run a decode step and are not flagged.
  CHECK(has_note(serve("capacity", {{"tokens_per_second_per_gpu", "3000 tok/s"}, {"tokens_per_answer", "1"}, {"gpus", "8"}}), "implausible"));
  CHECK_FALSE(has_note(serve("capacity", {{"tokens_per_second_per_gpu", "3000 tok/s"}, {"tokens_per_answer", "2"}, {"gpus", "8"}}), "implausible"));
}
