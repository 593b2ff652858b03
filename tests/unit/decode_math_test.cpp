// The decode plugin's formulas: roofline, step costs, MoE routing, speculation, attention, communication.
#include <catch2/catch.hpp>
#include <cmath>

#include "plugins/decode/decode_attention.hpp"
#include "plugins/decode/decode_parallel.hpp"
#include "plugins/decode/decode_roofline.hpp"
#include "plugins/decode/decode_speculative.hpp"
#include "plugins/decode/decode_math.hpp"
#include "plugins/decode/efficiency.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/kv/kv_layout.hpp"

using namespace infracalc;
using namespace infracalc::decode;

namespace {
ModelArch llama70b_arch() {
  ModelArch m;
  m.id = "llama70b";
  m.layers = 80;
  m.hidden_size = 8192;
  m.attention_heads = 64;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn_size = 28672;
  m.vocab_size = 128256;
  m.layer_types.assign(80, LayerAttention::full);
  return m;
}
ModelArch mixtral() {
  ModelArch m = llama70b_arch();
  m.layers = 32;
  m.hidden_size = 4096;
  m.attention_heads = 32;
  m.ffn_size = 14336;
  m.vocab_size = 32000;
  m.layer_types.assign(32, LayerAttention::full);
  m.moe = MoeDims{8, 2, 0, 14336, 0};
  return m;
}
const StorageFormat& fmt(const char* n) { return *find_storage_format(n); }
}  // namespace

TEST_CASE("ridge point and attainable rate", "[decode]") {
  const auto peak = from_base<FlopsPerSecond>(1000);
  const auto bw = from_base<BytesPerSecond>(100);
  CHECK(ridge_point(peak, bw).value() == 10);
  CHECK(attainable(peak, bw, from_base<FlopsPerByte>(2)).value() == 200);
  CHECK(attainable(peak, bw, from_base<FlopsPerByte>(20)).value() == 1000);
}

TEST_CASE("step time is the longer of memory and compute plus what does not overlap", "[decode]") {
  const StepCost c{from_base<Flops>(1e12), from_base<Bytes>(1e9)};
  const Roof r{from_base<BytesPerSecond>(1e12), from_base<FlopsPerSecond>(1e14)};
  const StepTime t = step_time(c, r, from_base<Seconds>(1e-3), from_base<Seconds>(2e-3));
  CHECK(t.memory.value() == Approx(1e-3));
  CHECK(t.compute.value() == Approx(1e-2));
  CHECK_FALSE(t.memory_bound);
  CHECK(t.total.value() == Approx(1e-2 + 3e-3));
  const StepTime no_peak = step_time(c, Roof{from_base<BytesPerSecond>(1e12), std::nullopt});
  CHECK(no_peak.compute.value() == 0);
  CHECK(no_peak.memory_bound);
}

TEST_CASE("a dense workload reads every weight but the input-embedding table", "[decode]") {
  const ModelArch m = llama70b_arch();
  const Workload w = workload_from_arch(m, fmt("fp16"), fmt("fp16"));
  const ParamCount pc = count_params(m);
  CHECK(w.weights_resident.value() == Approx(2.0 * pc.total));
  CHECK(w.weights_always_read.value() == Approx(2.0 * (pc.total - 128256.0 * 8192)));
  CHECK(w.matmul_flops_per_token.value() == Approx(2.0 * (pc.total - pc.norms - 128256.0 * 8192)));
  const StepDetail d = decode_step(w, 1, from_base<Tokens>(0));
  CHECK(d.weights.value() == Approx(w.weights_always_read.value() + 2.0 * 8192));
  CHECK(d.kv_read.value() == 0);
  CHECK(d.kv_write.value() == 327680);
}

TEST_CASE("decode step at a context reads the KV cache kv::cache_size gives", "[decode]") {
  const ModelArch m = llama70b_arch();
  const Workload w = workload_from_arch(m, fmt("fp16"), fmt("fp16"));
  const StepDetail d = decode_step(w, 4, from_base<Tokens>(8000));
  CHECK(d.kv_read.value() == kv::cache_size(m, fmt("fp16"), from_base<Tokens>(8000), Number::from_value(4)).total.value());
  // 4 x heads x head_dim per attended position, 8001 positions, 80 layers, 4 sequences.
  CHECK(d.attention_flops.value() == Approx(4.0 * 4 * 64 * 128 * 8001 * 80));
  const StepDetail tp8 = decode_step(w, 4, from_base<Tokens>(8000), 8);
  CHECK(tp8.weights.value() == Approx(d.weights.value() / 8));
  CHECK(tp8.kv_read.value() == Approx(d.kv_read.value() / 8));
}

TEST_CASE("prefill counts 4 N^2 d per layer, or the causal half", "[decode]") {
  const Workload w = workload_from_arch(llama70b_arch(), fmt("fp16"), fmt("fp16"));
  const double n = 1000;
  CHECK(attention_flops_prefill(w, from_base<Tokens>(n), false).value() == Approx(4.0 * n * n * 64 * 128 * 80));
  CHECK(attention_flops_prefill(w, from_base<Tokens>(n), true).value() == Approx(2.0 * n * (n + 1) * 64 * 128 * 80));
  const StepDetail p = prefill_step(w, 2, from_base<Tokens>(n), false);
  CHECK(p.matmul_flops.value() == Approx(2 * n * w.matmul_flops_per_token.value()));
  CHECK(p.kv_read.value() == 0);
}

TEST_CASE("ridge batch of a dense model is the ridge point in bytes per parameter", "[decode]") {
  const Workload w = workload_from_params(70e9, fmt("fp16"));
  const Roof r{from_base<BytesPerSecond>(3.35e12), from_base<FlopsPerSecond>(989.4e12)};
  // 2 B per parameter, 2 operations per parameter: batch = ridge point.
  CHECK(*ridge_batch(w, r, from_base<Tokens>(0)) == Approx(989.4 / 3.35).epsilon(1e-6));
  const Workload a = workload_from_arch(llama70b_arch(), fmt("fp16"), fmt("fp16"));
  CHECK_FALSE(ridge_batch(a, r, from_base<Tokens>(8000)).has_value());  // KV reads keep it memory-bound
  CHECK_FALSE(ridge_batch(w, Roof{r.bandwidth, std::nullopt}, from_base<Tokens>(0)).has_value());
}

TEST_CASE("ridge batch: the first batch at which a step is compute-bound, to nine digits, dense and mixture-of-experts", "[decode]") {
  const Roof r{from_base<BytesPerSecond>(3.35e12), from_base<FlopsPerSecond>(989.4e12)};
  const auto gap = [&](const Workload& w, double b, double context, int tp) {
    const StepCost c = decode_step(w, b, from_base<Tokens>(context), tp).cost();
    return (c.flops / *r.peak - c.bytes / r.bandwidth).value();
  };
  const Workload dense = workload_from_arch(llama70b_arch(), fmt("fp16"), fmt("fp16"));
  const Workload moe = workload_from_arch(mixtral(), fmt("fp16"), fmt("fp16"));
  const Workload fp8 = workload_from_arch(mixtral(), fmt("fp8-e4m3"), fmt("fp8-e4m3"));
  for (const Workload* w : {&dense, &moe, &fp8})
    for (const double context : {0.0, 16.0, 300.0})
      for (const int tp : {1, 8}) {
        INFO("workload " << (w == &dense ? "dense" : w == &moe ? "moe" : "moe fp8") << ", context " << context << ", tp " << tp);
        const auto b = ridge_batch(*w, r, from_base<Tokens>(context), tp);
        REQUIRE(b.has_value());
        // Compute-bound at the answer, memory-bound a relative 2e-9 below it: the crossing, not just near it.
        CHECK(gap(*w, *b, context, tp) >= 0);
        CHECK(gap(*w, *b * (1 - 2e-9), context, tp) < 0);
      }
}

TEST_CASE("experts touched by a batch", "[decode][moe]") {
  CHECK(expected_experts_touched(8, 2, 1) == Approx(2));
  CHECK(expected_experts_touched(256, 8, 64) == Approx(256 * (1 - std::pow(1 - 8.0 / 256, 64))));
  CHECK(expected_experts_touched(256, 8, 1e6) == Approx(256));
  const Workload w = workload_from_arch(mixtral(), fmt("fp16"), fmt("fp16"));
  CHECK(w.params_total == Approx(46.7e9).epsilon(0.01));
  CHECK(w.params_active == Approx(12.9e9).epsilon(0.01));
  const Bytes one = weights_read(w, 1), many = weights_read(w, 1000);
  CHECK(one.value() == Approx(w.weights_always_read.value() + 32 * 2 * w.expert_bytes.value() + 2.0 * 4096));
  CHECK(many.value() > one.value());
  CHECK(many.value() < w.weights_resident.value() + 1000 * 2.0 * 4096);
}

TEST_CASE("speculative decoding expectations", "[decode][speculative]") {
  CHECK(expected_tokens_per_pass(0.5, 4) == Approx(1.9375));
  CHECK(expected_tokens_per_pass(0.8, 4) == Approx(3.3616));
  CHECK(expected_tokens_per_pass(0.9, 4) == Approx(4.0951));
  CHECK(expected_tokens_per_pass(1.0, 4) == 5);
  CHECK(speculative_speedup(3.3616, 4, 0.05) == Approx(3.3616 / 1.2));
  CHECK(tree_candidates(2, 4) == 16);
  CHECK(tree_nodes(2, 4) == 30);
  CHECK(tree_nodes(3, 3) == 39);
}

TEST_CASE("speculation stops paying once the batch fills the compute", "[decode][speculative]") {
  const Workload w = workload_from_params(8e9, fmt("fp16"));
  const Roof r{from_base<BytesPerSecond>(3.35e12), from_base<FlopsPerSecond>(989.4e12)};
  const double tau = expected_tokens_per_pass(0.8, 4);
  const SpeculativePoint small = speculative_at(w, r, from_base<Tokens>(0), 1, 4, tau, 0.0, 5);
  CHECK(small.speedup == Approx(tau));
  const auto cross = speculative_crossover(w, r, from_base<Tokens>(0), 4, tau, 0.0, 5);
  REQUIRE(cross.has_value());
  CHECK(speculative_at(w, r, from_base<Tokens>(0), *cross, 4, tau, 0.0, 5).speedup < 1.0);
  CHECK(speculative_at(w, r, from_base<Tokens>(0), *cross - 1, 4, tau, 0.0, 5).speedup >= 1.0);
}

TEST_CASE("attention operations and traffic", "[decode][attention]") {
  const AttentionShape s{1000, 64, false, from_base<Bytes>(2)};
  CHECK(attention_flops(s).value() == 4.0 * 1000 * 1000 * 64);
  const AttentionShape c{1000, 64, true, from_base<Bytes>(2)};
  CHECK(attention_flops(c).value() == 2.0 * 64 * 1000 * 1001);
  CHECK(windowed_attention_flops(s, 100).value() == 4.0 * 1000 * 100 * 64);
  CHECK(naive_attention_traffic(s).value() == (4.0 * 1000 * 64 + 4.0 * 1000 * 1000) * 2);
  const int b = flash_block_rows(s, from_base<Bytes>(64 * 1024));
  CHECK((b * b + (4.0 * 64 + 2) * b) * 2 <= 64 * 1024);
  CHECK(((b + 1.0) * (b + 1) + (4.0 * 64 + 2) * (b + 1)) * 2 > 64 * 1024);
  CHECK(flash_attention_traffic(s, 100).value() == (2.0 * 1000 * 64 + 2.0 * 64 * 1000 * 10) * 2);
  CHECK(flash_attention_traffic(c, 100).value() < flash_attention_traffic(s, 100).value());
  CHECK(flash_block_rows(s, from_base<Bytes>(16)) == 0);
}

TEST_CASE("tensor-parallel all-reduces: two per layer whatever the batch", "[decode][tp]") {
  const Link link{from_base<BytesPerSecond>(450e9), from_base<Seconds>(1e-6)};
  const auto one = tp_communication(80, 8192, 1, from_base<Bytes>(2), 8, link);
  const auto big = tp_communication(80, 8192, 256, from_base<Bytes>(2), 8, link);
  CHECK(one.allreduces == 160);
  CHECK(big.allreduces == 160);
  CHECK(big.message.value() == 256 * one.message.value());
  CHECK(one.each.value() == Approx(14e-6 + 2.0 * 7 / 8 * 16384 / 450e9));
  CHECK(tp_communication(80, 8192, 1, from_base<Bytes>(2), 1, link).total.value() == 0);
  CHECK(ring_allreduce_time(from_base<Bytes>(1e6), 1, link).value() == 0);
}

TEST_CASE("expert-parallel all-to-all volume", "[decode][moe]") {
  const auto a = expert_all_to_all(58, 7168, 8, 64, from_base<Bytes>(2), 8, nullptr);
  // Per token per MoE layer: 2 (dispatch and combine) x 8 experts x 7168 x 2 B x 7/8 leave the device.
  CHECK(a.per_token.value() == Approx(58 * 2.0 * 8 * 7168 * 2 * 7 / 8));
  CHECK(a.time.value() == 0);
  CHECK(expert_all_to_all(58, 7168, 8, 64, from_base<Bytes>(2), 1, nullptr).per_token.value() == 0);
}

TEST_CASE("sliding-window layers attend to at most their window", "[decode][attention]") {
  ModelArch m = llama70b_arch();
  m.layers = 4;
  m.sliding_window = 1000;
  m.layer_types = {LayerAttention::sliding, LayerAttention::sliding, LayerAttention::sliding, LayerAttention::full};
  const Workload w = workload_from_arch(m, fmt("fp16"), fmt("fp16"));
  const double per_pos = 4.0 * 64 * 128;
  CHECK(attention_flops_per_token(w, from_base<Tokens>(5000)).value() == Approx(per_pos * (3 * 1000 + 5001)));
  CHECK(attention_flops_per_token(w, from_base<Tokens>(10)).value() == Approx(per_pos * 4 * 11));
  // Causal prefill of 3000 tokens: sliding layers keep w(w+1)/2 + (N - w) w pairs.
  const double sliding_pairs = 1000.0 * 1001 / 2 + 2000.0 * 1000, full_pairs = 3000.0 * 3001 / 2;
  CHECK(attention_flops_prefill(w, from_base<Tokens>(3000), true).value() == Approx(per_pos * (3 * sliding_pairs + full_pairs)));
  const StepDetail d = decode_step(w, 1, from_base<Tokens>(5000));
  CHECK(d.kv_read.value() == kv::cache_size(m, fmt("fp16"), from_base<Tokens>(5000), Number::from_value(1)).total.value());
}

TEST_CASE("MLA decodes in the absorbed form", "[decode][attention]") {
  ModelArch m = llama70b_arch();
  m.layers = 2;
  m.layer_types.assign(2, LayerAttention::full);
  m.attention_heads = 128;
  m.kv_heads = 128;
  m.mla = MlaDims{512, 64, 128, 128, 1536};
  const Workload w = workload_from_arch(m, fmt("fp16"), fmt("fp16"));
  CHECK(attention_flops_per_token(w, from_base<Tokens>(99)).value() == Approx(2.0 * 128 * (2 * 512 + 64) * 100 * 2));
  CHECK(attention_flops_prefill(w, from_base<Tokens>(100), false).value() == Approx(2.0 * 128 * (128 + 64 + 128) * 100 * 100 * 2));
}

TEST_CASE("expected step: a few rows run as a GEMV on the vector units when a tensor-core tile would waste more", "[decode]") {
  Efficiency e = prior_efficiency();
  e.ideal = false;
  e.matmul_half_tokens = 64;
  e.matmul_fraction_16 = 0.5;
  // An 8e9-parameter layer stack at batch 1 on a part with weak tensor cores (RTX 4090-like: 165 TFLOP/s, 83 TFLOP/s FP32).
  const StepCost cost{from_base<Flops>(16e9), from_base<Bytes>(16e9)};
  Roof roof{from_base<BytesPerSecond>(1e12), from_base<FlopsPerSecond>(165e12)};
  StepShape one;
  one.tokens = 1;
  const double scale = std::min(1.0, 0.5 * e.engine(Engine::generic).compute_scale);
  const StepTime tile = calibrated_step_time(e, Engine::generic, cost, one, roof, Seconds{});
  // Without the vector rate the tile pads 1 row to 65: 65 x the work at the share.
  CHECK(tile.compute.value() == Approx(16e9 / (165e12 * scale / 65.0)).epsilon(1e-9));
  roof.vector_peak = from_base<FlopsPerSecond>(83e12);
  const StepTime gemv = calibrated_step_time(e, Engine::generic, cost, one, roof, Seconds{});
  CHECK(gemv.compute.value() == Approx(16e9 / (83e12 * scale)).epsilon(1e-9));
  CHECK(gemv.memory_bound);
  // At 512 rows the tensor cores win again: the vector units would take longer.
  StepShape wide;
  wide.tokens = 512;
  const StepCost big{from_base<Flops>(16e9 * 512), from_base<Bytes>(16e9)};
  const StepTime tensor = calibrated_step_time(e, Engine::generic, big, wide, roof, Seconds{});
  CHECK(tensor.compute.value() == Approx(16e9 * 512 / (165e12 * scale * 512.0 / 576.0)).epsilon(1e-9));
  // The ceiling (ideal parameters) never uses it.
  const StepTime ceiling = calibrated_step_time(ideal_efficiency(), Engine::generic, cost, one, roof, Seconds{});
  CHECK(ceiling.compute.value() == Approx(16e9 / 165e12).epsilon(1e-12));
}
