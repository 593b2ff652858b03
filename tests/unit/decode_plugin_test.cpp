// The decode calculators through the host: inputs, catalog fill-in, outputs and errors.
#include <catch2/catch.hpp>

#include "host/context.hpp"
#include "plugins/decode/decode_inputs.hpp"
#include "plan/output.hpp"
#include "plugins/decode/decode_plugin.hpp"
#include "plugins/registry.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;

TEST_CASE("decode ceiling from raw inputs", "[decode][plugin]") {
  const Result r = run("decode", "ceiling", {{"weights_bytes", "140GB"}, {"bandwidth", "3.35TB/s"}});
  CHECK(value(r, "tokens_per_second_per_stream") == Approx(3.35e12 / 140e9));
  CHECK(r.find("compute_time") == nullptr);  // no peak: not modelled, and said so
  bool said = false;
  for (const auto& n : r.notes) said = said || n.find("compute time not modelled") != std::string::npos;
  CHECK(said);
}

TEST_CASE("decode ceiling with --mbu and --overhead", "[decode][plugin]") {
  const Result r = run("decode", "ceiling", {{"weights_bytes", "140GB"}, {"bandwidth", "3.35TB/s"}, {"mbu", "50%"}, {"overhead", "1ms"}});
  CHECK(value(r, "step_time") == Approx(140e9 / (0.5 * 3.35e12) + 1e-3));
}

TEST_CASE("the peak follows the weight format on a catalog GPU", "[decode][plugin]") {
  const Result fp8 = run("decode", "roofline", {{"gpu", "h100-sxm"}, {"dtype", "fp8"}});
  CHECK(value(fp8, "peak") == Approx(1978.9e12));
  const Result int4 = run("decode", "roofline", {{"gpu", "h100-sxm"}, {"dtype", "int4"}});
  CHECK(value(int4, "peak") == Approx(989.4e12));  // weight-only int4 multiplies at 16 bits
  const Result sparse = run("decode", "roofline", {{"gpu", "h100-sxm"}, {"sparse", ""}});
  CHECK(value(sparse, "peak") == Approx(1978.9e12));
  CHECK_THROWS_AS(run("decode", "roofline", {{"gpu", "h100-sxm"}, {"compute_dtype", "fp4"}}), UserError);
}

TEST_CASE("roofline sweep produces one row per batch", "[decode][plugin]") {
  const Result r = run("decode", "roofline", {{"model", "llama-3-8b"}, {"gpu", "h100-sxm"}, {"sweep", "batch=1..1024"}});
  REQUIRE(r.tables.size() == 1);
  CHECK(r.tables[0].rows.size() == 11);
  CHECK_THROWS_AS(run("decode", "roofline", {{"model", "llama-3-8b"}, {"gpu", "h100-sxm"}, {"sweep", "heads=1..4"}}), UserError);
  CHECK_THROWS_AS(run("decode", "roofline", {{"gpu", "h100-sxm"}, {"sweep", "batch=1..8"}}), UserError);
}

TEST_CASE("tp table and its errors", "[decode][plugin]") {
  const Result r = run("decode", "tp", {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"tp", "1..8"}});
  REQUIRE(r.tables.size() == 1);
  CHECK(r.tables[0].rows.size() == 4);
  CHECK(value(r, "allreduces_per_step") == 160);
  CHECK(value(r, "speedup") > 1);
  CHECK(value(r, "speedup") < 8);  // the all-reduces flatten it
  CHECK_THROWS_AS(run("decode", "tp", {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"tp", "3"}}), UserError);
}

TEST_CASE("prefill is compute-bound for long prompts", "[decode][plugin]") {
  const Result r = run("decode", "prefill", {{"model", "llama-3-8b"}, {"gpu", "h100-sxm"}, {"tokens", "8k"}});
  CHECK(r.verdicts.size() == 1);
  CHECK(r.verdicts[0].ok);
  CHECK(value(r, "ttft") == value(r, "prefill_time"));
  CHECK_THROWS_AS(run("decode", "prefill", {{"model", "llama-3-8b"}, {"gpu", "h100-sxm"}}), UserError);
}

TEST_CASE("attention needs a head width", "[decode][plugin]") {
  CHECK_THROWS_AS(run("decode", "attention", {{"tokens", "1k"}}), UserError);
  CHECK_THROWS_AS(run("decode", "attention", {{"tokens", "1k"}, {"hidden_size", "1000"}, {"heads", "3"}}), UserError);
  const Result r = run("decode", "attention", {{"model", "llama-3-70b"}, {"tokens", "8k"}, {"sram", "228KiB"}});
  CHECK(value(r, "head_dim") == 128);
  CHECK(value(r, "decode_intensity") == Approx(2.0 * 8 / 2));  // 2 x group / element bytes
}

TEST_CASE("speculative inputs are checked", "[decode][plugin]") {
  CHECK_THROWS_AS(run("decode", "speculative", {{"k", "4"}, {"alpha", "1"}}), UserError);
  CHECK_THROWS_AS(run("decode", "speculative", {{"k", "0"}, {"alpha", "0.5"}}), UserError);
  CHECK_THROWS_AS(run("decode", "speculative", {{"k", "12"}, {"alpha", "0.5"}, {"tree_width", "8"}}), UserError);
}

TEST_CASE("moe needs experts", "[decode][plugin]") {
  CHECK_THROWS_AS(run("decode", "moe", {{"batch", "8"}}), UserError);
  CHECK_THROWS_AS(run("decode", "moe", {{"model", "llama-3-70b"}}), UserError);
  const Result r = run("decode", "moe", {{"experts", "8"}, {"experts_per_token", "2"}, {"batch", "4"}});
  CHECK(value(r, "experts_touched") == Approx(8 * (1 - 0.75 * 0.75 * 0.75 * 0.75)));
}

TEST_CASE("sweep and list parsing", "[decode][plugin]") {
  const auto s = decode::parse_sweep("tokens=1k..8k", {"batch", "tokens"}, "--sweep");
  CHECK(s.key == "tokens");
  CHECK(s.values == std::vector<double>{1000, 2000, 4000, 8000});
  CHECK(decode::parse_int_list("1,2,4", "--tp") == std::vector<int>{1, 2, 4});
  CHECK(decode::parse_int_list("1..6", "--tp") == std::vector<int>{1, 2, 4, 6});
  CHECK_THROWS_AS(decode::parse_sweep("batch=8..1", {"batch"}, "--sweep"), UserError);
  CHECK_THROWS_AS(decode::parse_sweep("batch=1.5", {"batch"}, "--sweep"), UserError);
  CHECK_THROWS_AS(decode::parse_sweep("batch", {"batch"}, "--sweep"), UserError);
}

TEST_CASE("decode ceiling notes a context past the model's trained one", "[decode][plugin]") {
  const Result r = run("decode", "ceiling", {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"tokens", "1M"}});
  bool said = false;
  for (const auto& n : r.notes) said = said || n.find("--tokens 1,000,000 exceeds the 8,192-token context") != std::string::npos;
  CHECK(said);
}

TEST_CASE("the memory_bound verdict does not repeat its key", "[decode][plugin]") {
  const Result r = run("decode", "ceiling", {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"tokens", "8k"}});
  REQUIRE(!r.verdicts.empty());
  CHECK(r.verdicts.front().key == "memory_bound");
  CHECK(r.verdicts.front().text.rfind("binding term: memory (", 0) == 0);
  CHECK(r.verdicts.front().text.find("memory-bound") == std::string::npos);
}

TEST_CASE("decode ceiling under TP counts the all-reduces over the GPU's link and names the binding term", "[decode][plugin]") {
  // Issue 19 item 9: --tp 8 on a part with a known scale-up link counts communication by default.
  const Result r = run("decode", "ceiling", {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"tp", "8"}, {"batch", "1"}});
  CHECK(value(r, "communication_time") > 0);
  // A slow link makes communication the binding term: the verdict must not call the step memory-bound.
  const Result slow = run("decode", "ceiling", {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"tp", "8"}, {"batch", "64"},
                                      {"link_bandwidth", "1GB/s"}});
  REQUIRE(!slow.verdicts.empty());
  CHECK_FALSE(slow.verdicts.front().ok);
  CHECK(slow.verdicts.front().text.rfind("binding term: communication", 0) == 0);
}

TEST_CASE("decode ceiling reports an expected figure below the ceiling, and none when --mbu replaces the roof", "[decode][plugin]") {
  const Result r = run("decode", "ceiling", {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"batch", "16"}, {"tokens", "4k"}});
  CHECK(value(r, "expected_tokens_per_second") > 0);
  CHECK(value(r, "expected_tokens_per_second") < value(r, "tokens_per_second"));
  const Result m = run("decode", "ceiling", {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"batch", "16"}, {"mbu", "70%"}});
  CHECK(m.find("expected_tokens_per_second") == nullptr);
}

TEST_CASE("decode moe: --ep divides the experts", "[decode][plugin]") {
  CHECK(value(run("decode", "moe", {{"model", "deepseek-v3"}, {"ep", "8"}}), "experts_per_device") == 32);
  CHECK_THROWS_AS(run("decode", "moe", {{"model", "deepseek-v3"}, {"ep", "7"}}), UserError);
}

TEST_CASE("prefill attention is causal by default in prefill and roofline; --non-causal counts every pair", "[decode][plugin]") {
  // Issue 19, item 6: a decoder's prefill is causal; the old default counted every query-key pair.
  const RawInputs base = {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"tokens", "1000"}};
  const double n = 1000, per_pair = 4.0 * 128 * 64 * 80;  // 4 d per (query, key) pair (QK^T and PV), 64 heads, 80 layers
  const Result causal = run("decode", "prefill", base);
  CHECK(value(causal, "attention_flops") == Approx(n * (n + 1) / 2 * per_pair));
  RawInputs full_raw = base;
  full_raw.push_back({"non_causal", ""});
  const Result full = run("decode", "prefill", full_raw);
  CHECK(value(full, "attention_flops") == Approx(n * n * per_pair));
  const Result roof = run("decode", "roofline", base);
  CHECK(value(roof, "prefill_flops") == Approx(value(causal, "prefill_flops")));
  const Result roof_full = run("decode", "roofline", full_raw);
  CHECK(value(roof_full, "prefill_flops") == Approx(value(full, "prefill_flops")));
  CHECK_THROWS_AS(run("decode", "prefill", {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"tokens", "1000"}, {"causal", ""}}), UserError);
}
