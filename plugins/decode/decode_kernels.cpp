// Reference kernels for the decode plugin: attention computed two ways, routing and acceptance
// simulated, a tensor-parallel step among simulated ranks, and a real decode loop on this CPU, timed
// against the ceiling the formulas predict from this machine's measured bandwidth and peak.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>

#include "plugins/decode/decode_attention.hpp"
#include "plugins/decode/decode_host.hpp"
#include "plugins/decode/decode_parallel.hpp"
#include "plugins/decode/decode_plugin.hpp"
#include "plugins/decode/decode_speculative.hpp"
#include "plugins/decode/decode_math.hpp"
#include "plugins/decode/kernel_attention.hpp"
#include "plugins/decode/kernel_decode_loop.hpp"
#include "plugins/decode/kernel_montecarlo.hpp"
#include "plugins/decode/kernel_tp.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/kernels/rng.hpp"
#include "plugins/kernels/simd.hpp"
#include "plugins/kv/kv_layout.hpp"
#include "units/bridge.hpp"

namespace infracalc {

namespace {

using namespace decode;

Quantity num(double v) { return Quantity::number(v); }

float max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  float m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

// ---------------------------------------------------------------- attention

std::vector<KernelCheck> run_attention(const KernelOptions& opt) {
  struct Case {
    std::size_t n, d;
    bool causal;
    double sram;
  };
  std::vector<Case> cases = {{256, 64, false, 48.0 * 1024}, {200, 32, true, 16.0 * 1024}, {97, 16, false, 4.0 * 1024}};
  if (!opt.quick) cases.push_back({1024, 128, true, 228.0 * 1024});
  std::vector<KernelCheck> out;
  for (const auto& c : cases) {
    const AttentionShape shape{static_cast<double>(c.n), static_cast<int>(c.d), c.causal, from_base<Bytes>(4.0)};
    const int block = flash_block_rows(shape, from_base<Bytes>(c.sram));
    const HeadInputs in = random_head(c.n, c.d, static_cast<unsigned>(c.n * 31 + c.d));
    const AttentionRun naive = naive_attention(in, c.causal);
    const AttentionRun tiled = tiled_attention(in, c.causal, static_cast<std::size_t>(block));
    const std::string tag = fmt::format("N={} d={}{}, {:.0f} KiB on chip, {}-row tiles", c.n, c.d, c.causal ? " causal" : "",
                                        c.sram / 1024, block);
    if (opt.trace)
      fmt::print(stderr, "attention {}: naive {} B, tiled {} B, {} FLOP\n", tag, naive.traffic.value(), tiled.traffic.value(),
                 tiled.flops.value());
    out.push_back({"naive vs tiled online-softmax output, max |difference|: " + tag, num(0.0),
                   num(max_abs_diff(naive.out, tiled.out)), 0.0, 1e-5});
    out.push_back({"attention operations, naive kernel count vs 4N^2d rule: " + tag, to_quantity(attention_flops(shape)),
                   to_quantity(naive.flops), 0.0});
    out.push_back({"attention operations, tiled kernel count vs 4N^2d rule: " + tag, to_quantity(attention_flops(shape)),
                   to_quantity(tiled.flops), 0.0});
    out.push_back({"naive HBM bytes: counted vs (4Nd + 4N^2) x 4 B: " + tag, to_quantity(naive_attention_traffic(shape)),
                   to_quantity(naive.traffic), 0.0});
    out.push_back({"tiled HBM bytes: counted vs FlashAttention-2 formula: " + tag, to_quantity(flash_attention_traffic(shape, block)),
                   to_quantity(tiled.traffic), 0.0});
    out.push_back({"tiles fit on chip (1 = yes): " + tag, num(1.0), num(tiled.on_chip.value() <= c.sram ? 1.0 : 0.0), 0.0});
  }
  return out;
}

// ---------------------------------------------------------------- MoE routing, speculation, trees

std::vector<KernelCheck> run_routing(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const int trials = opt.quick ? 400 : 4000;
  struct Case {
    int experts, k, tokens;
  };
  for (const Case c : {Case{8, 2, 1}, Case{8, 2, 4}, Case{64, 6, 16}, Case{256, 8, 64}, Case{256, 8, 512}}) {
    const double sim = simulate_experts_touched(c.experts, c.k, c.tokens, trials, static_cast<std::uint64_t>(c.experts * 7 + c.tokens));
    // The mean of `trials` draws of a count bounded by E: a 2% tolerance is several standard errors.
    out.push_back({fmt::format("distinct experts per layer, E={} k={} batch={} ({} simulated steps)", c.experts, c.k, c.tokens, trials),
                   num(expected_experts_touched(c.experts, c.k, c.tokens)), num(sim), 0.02});
  }
  return out;
}

std::vector<KernelCheck> run_speculation(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const int passes = opt.quick ? 100000 : 1000000;
  struct Case {
    double alpha;
    int k;
  };
  for (const Case c : {Case{0.5, 4}, Case{0.8, 4}, Case{0.9, 4}, Case{0.7, 8}}) {
    const double sim = simulate_tokens_per_pass(c.alpha, c.k, passes, static_cast<std::uint64_t>(c.k * 100 + c.alpha * 10));
    out.push_back({fmt::format("tokens per target pass, alpha={} k={} ({} simulated passes)", c.alpha, c.k, passes),
                   num(expected_tokens_per_pass(c.alpha, c.k)), num(sim), 0.01});
  }
  for (const auto& [m, depth] : {std::pair{2, 4}, std::pair{3, 3}, std::pair{4, 2}}) {
    const TreeCount t = build_tree(m, depth);
    out.push_back({fmt::format("tree candidates m^K, m={} K={} (tree built node by node)", m, depth), num(tree_candidates(m, depth)),
                   num(t.leaves), 0.0});
    out.push_back({fmt::format("tree tokens verified per pass, m={} K={}", m, depth), num(tree_nodes(m, depth)), num(t.nodes), 0.0});
  }
  return out;
}

// ---------------------------------------------------------------- tensor parallelism

std::vector<KernelCheck> run_tp(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const ModelArch m = tp_kernel_arch();
  const StorageFormat& fp32 = *find_storage_format("fp32");
  const int context = opt.quick ? 12 : 64;
  const Link link{from_base<BytesPerSecond>(1e11), from_base<Seconds>(1e-6)};
  const ParamCount pc = count_params(m);
  for (int batch : {1, 8}) {
    const TpRun one = tp_step(m, 1, batch, context);
    for (int tp : {4, 8}) {
      const TpRun r = tp_step(m, tp, batch, context);
      const TpCommunication c = tp_communication(m.layers, m.hidden_size, batch, from_base<Bytes>(4.0), tp, link);
      const std::string tag = fmt::format("TP={} batch={}, {} layers", tp, batch, m.layers);
      out.push_back({"all-reduces per decode step (2 per layer): " + tag, num(c.allreduces), num(r.allreduces), 0.0});
      out.push_back({"bytes per all-reduce (batch x hidden x 4 B): " + tag, to_quantity(c.message), to_quantity(r.allreduce_bytes), 0.0});
      out.push_back({"split step equals the one-device step, max |difference|: " + tag, num(0.0), num(max_abs_diff(one.out, r.out)), 0.0, 1e-4});
      out.push_back({"KV bytes per device (kv::cache_size, heads replicated past the KV-head count): " + tag,
                     to_quantity(kv::cache_size(m, fp32, from_base<Tokens>(context), Number::from_value(batch), {tp, 1}).per_device),
                     to_quantity(r.rank_kv), 0.0});
      if (batch == 1 && tp <= m.kv_heads)
        out.push_back({"matrix weight bytes per device (1/TP of them): " + tag,
                       to_quantity(storage_bytes((pc.attention + pc.mlp) / tp, fp32)), to_quantity(r.rank_weights), 0.0});
    }
  }
  return out;
}

// ---------------------------------------------------------------- the decode loop

// Deterministic checks: the loop's own tallies of bytes and operations against the step formulas, and the
// matrix kernels against a double-precision reference.
std::vector<KernelCheck> decode_loop_counts(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const kernels::Isa isa = kernels::best_isa();
  for (const auto& [batch, rows, cols] : {std::tuple{3, 50, 300}, std::tuple{9, 61, 200}, std::tuple{37, 45, 515}, std::tuple{130, 20, 70}}) {
    std::vector<float> w(static_cast<std::size_t>(rows * cols)), x(static_cast<std::size_t>(batch * cols)), y(static_cast<std::size_t>(batch * rows));
    kernels::fill_uniform(w, 5, -1.0f, 1.0f);
    kernels::fill_uniform(x, 6, -1.0f, 1.0f);
    std::vector<float> scratch(kernels::gemm_scratch_floats(static_cast<std::size_t>(cols), static_cast<std::size_t>(rows), static_cast<std::size_t>(batch)));
    kernels::GemmBlock g;
    g.w = w.data();
    g.cols = static_cast<std::size_t>(cols);
    g.row_end = static_cast<std::size_t>(rows);
    g.x = x.data();
    g.ldx = static_cast<std::size_t>(cols);
    g.batch = static_cast<std::size_t>(batch);
    g.y = y.data();
    g.ldy = static_cast<std::size_t>(rows);
    kernels::gemm_block(isa, g, scratch.data());
    double err = 0, scale = 0;
    for (int b = 0; b < batch; ++b)
      for (int r = 0; r < rows; ++r) {
        double ref = 0;
        for (int c = 0; c < cols; ++c) ref += static_cast<double>(w[static_cast<std::size_t>(r * cols + c)]) * x[static_cast<std::size_t>(b * cols + c)];
        err = std::max(err, std::fabs(ref - y[static_cast<std::size_t>(b * rows + r)]));
        scale = std::max(scale, std::fabs(ref));
      }
    out.push_back({fmt::format("decode-loop matrix kernel ({}) vs double reference, batch {}, {}x{}: max relative error",
                               kernels::host_info().vector_isa, batch, rows, cols),
                   num(0.0), num(err / scale), 0.0, 1e-5});
  }
  SyntheticShape shape;  // small: a few hundred kB
  const int context = 24;
  kernels::ThreadTeam team;
  SyntheticDecoder dec(shape, 20, context + 8, team);
  const ModelArch arch = synthetic_arch(shape);
  const StorageFormat& fp32 = *find_storage_format("fp32");
  const Workload w = workload_from_arch(arch, fp32, fp32);
  out.push_back({"synthetic model weights allocated vs storage_bytes(count_params(arch).total, fp32)", to_quantity(w.weights_resident),
                 Quantity{4.0 * static_cast<double>(dec.weight_floats()), dims::information}, 0.0});
  for (int batch : {1, 5, 20}) {
    dec.prefill_cache(batch, context);
    const StepCount c = dec.step(batch);
    const StepDetail f = decode_step(w, batch, from_base<Tokens>(context));
    const std::string tag = fmt::format("batch {}, {} tokens of context", batch, context);
    out.push_back({"decode step bytes (weights + KV read + KV written), loop tally vs formula: " + tag, to_quantity(f.cost().bytes),
                   to_quantity(c.weights + c.kv_read + c.kv_write), 0.0});
    out.push_back({"decode step operations (matrices + attention), loop tally vs formula: " + tag, to_quantity(f.cost().flops),
                   to_quantity(c.matmul_flops + c.attention_flops), 0.0});
    if (batch == 5) {
      out.push_back({"KV-cache bytes read, loop tally vs kv::cache_size: " + tag, to_quantity(f.kv_read), to_quantity(c.kv_read), 0.0});
      out.push_back({"attention operations, loop tally vs formula: " + tag, to_quantity(f.attention_flops), to_quantity(c.attention_flops), 0.0});
    }
  }
  (void)opt;
  return out;
}

// The knee of a measured curve: where the memory line through batch 1 meets the compute line through
// the largest batch, both taken from measurement and extended with the step formulas' shapes.
double measured_ridge(const Workload& w, const HostMeasurement& m) {
  const Tokens ctx = from_base<Tokens>(m.context);
  const BatchTiming& first = m.timings.front();
  const BatchTiming& last = m.timings.back();
  const StepCost c1 = decode_step(w, first.batch, ctx).cost();
  const StepCost cn = decode_step(w, last.batch, ctx).cost();
  const Roof measured{c1.bytes / first.step, cn.flops / last.step};
  return ridge_batch(w, measured, ctx).value_or(0.0);
}

std::vector<KernelCheck> run_decode_loop(const KernelOptions& opt) {
  std::vector<KernelCheck> out = decode_loop_counts(opt);
  if (opt.quick) {
    std::fprintf(stderr,
                 "verify decode: timing checks skipped in --quick mode (this machine is shared and timing is not "
                 "deterministic); `infracalc verify decode` runs them with repeated runs and medians\n");
    return out;
  }
  const HostMeasurement& m = measure_host(opt);
  const StorageFormat& fp32 = *find_storage_format("fp32");
  const Workload w = workload_from_arch(synthetic_arch(m.shape), fp32, fp32);
  const Tokens ctx = from_base<Tokens>(m.context);
  const Roof roof{decode_bandwidth(m), decode_peak(m)};
  const StepCost c1 = decode_step(w, 1, ctx).cost();
  const StepTime t1 = step_time(c1, roof);
  const std::string model = fmt::format("{}-layer FP32 decoder, {:.2f} GB read per step, {} tokens of context", m.shape.layers,
                                        c1.bytes.value() / 1e9, m.context);
  out.push_back({fmt::format("decode tokens/s at batch 1, predicted from the measured read bandwidth {:.1f} GB/s and matrix-product "
                             "peak {:.0f} GFLOP/s (FMA ceiling {:.0f}): {}",
                             roof.bandwidth.value() / 1e9, roof.peak->value() / 1e9, m.peak.fma.value() / 1e9, model),
                 to_quantity(from_base<Tokens>(1.0) / t1.total), to_quantity(from_base<Tokens>(1.0) / m.timings.front().step), 0.25});
  out.back().timing = true;  // a busy machine slows the loop: reported, never a failure
  const double predicted = ridge_batch(w, roof, ctx).value_or(0.0);
  const double measured = measured_ridge(w, m);
  out.push_back({fmt::format("ridge batch, log2(measured {:.1f} / predicted {:.1f}): the measured curve turns from memory- to "
                             "compute-bound within a factor of 2 of the prediction",
                             measured, predicted),
                 num(0.0), num(measured > 0 && predicted > 0 ? std::log2(measured / predicted) : 99.0), 0.0, 1.0});
  out.back().timing = true;
  if (opt.progress) {
    const Roof ceiling{roof.bandwidth, m.peak.fma};
    std::fprintf(stderr, "  predicted ridge batch %.1f with the matrix-product peak, %.1f with the FMA ceiling; measured %.1f\n", predicted,
                 ridge_batch(w, ceiling, ctx).value_or(0.0), measured);
    std::fprintf(stderr, "  %6s %12s %12s %12s %12s\n", "batch", "step (ms)", "predicted", "tok/s", "predicted");
    for (const auto& t : m.timings) {
      const StepTime p = step_time(decode_step(w, t.batch, ctx).cost(), roof);
      std::fprintf(stderr, "  %6d %12.2f %12.2f %12.1f %12.1f\n", t.batch, t.step.value() * 1e3, p.total.value() * 1e3,
                   t.batch / t.step.value(), t.batch / p.total.value());
    }
  }
  return out;
}

}  // namespace

std::vector<Kernel> decode_kernels() {
  return {
      {"attention", "naive vs tiled online-softmax attention: outputs agree, operations and HBM bytes match the formulas", run_attention},
      {"moe-routing", "routes tokens to experts at random and counts the distinct experts each layer reads", run_routing},
      {"speculative", "simulates draft acceptance and builds draft trees, against the expected tokens per pass", run_speculation},
      {"tp-split", "a tensor-parallel decode step among simulated ranks: all-reduces, bytes per device, same result", run_tp},
      {"decode-loop", "a real decode loop over a synthetic transformer: tallies vs formulas; timed against this machine's roofline",
       run_decode_loop, true},
  };
}

}  // namespace infracalc
