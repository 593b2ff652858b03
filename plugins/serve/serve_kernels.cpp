// Reference kernels for serve: the simulator run on small fixed cases whose answers are known by counting or
// by a closed form (static batching's idle slots, a saturated batch's throughput, Little's law, KV
// accounting), and the step model against the decode plugin's own step formulas.
#include <cmath>
#include <fmt/format.h>

#include "catalog/model_arch.hpp"
#include "plugins/decode/decode_math.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/serve/serve_math.hpp"
#include "plugins/serve/serve_plugin.hpp"
#include "plugins/serve/serve_sim.hpp"
#include "plugins/serve/serve_stats.hpp"
#include "units/bridge.hpp"

namespace infracalc {

namespace {

using namespace serve;

Seconds sec(double s) { return from_base<Seconds>(s); }
Quantity num(double v) { return Quantity::number(v); }

std::vector<Request> fixed(int n, std::int64_t prompt, std::int64_t output) {
  std::vector<Request> r(static_cast<std::size_t>(n));
  for (auto& q : r) {
    q.prompt = prompt;
    q.output = output;
  }
  return r;
}

decode::Workload catalog_workload(const char* id) {
  const Entry* e = Catalog::instance().find(id);
  if (e == nullptr) throw std::logic_error(std::string("serve kernels: missing catalog model ") + id);
  auto arch = read_model_arch(*e);
  if (!arch) throw std::logic_error(std::string("serve kernels: unreadable model ") + id);
  const StorageFormat& bf16 = *find_storage_format("bf16");
  return decode::workload_from_arch(*arch, bf16, bf16);
}

// An H100 SXM-like roof (3.35 TB/s, 989 TFLOP/s dense BF16): fixed here so the kernel does not depend on data edits.
decode::Roof h100_roof() { return {from_base<BytesPerSecond>(3.35e12), from_base<FlopsPerSecond>(989.4e12)}; }

// Static batching: idle slots counted by the simulator against the padding counted over the batches.
std::vector<KernelCheck> run_static(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const LinearStepModel step(sec(0.010), Seconds{}, Seconds{});
  EngineConfig e;
  e.batching = Batching::static_batch;
  e.max_batch = 2;
  SimInput in;
  in.requests = {{Seconds{}, 100, 50}, {Seconds{}, 100, 2000}};
  const SimResult a = simulate(in, e, step);
  const StaticPadding pa = static_padding({50, 2000}, 2);
  out.push_back({"idle decode slots, static batch of a 50- and a 2,000-token answer", num(static_cast<double>(pa.idle)),
                 num(static_cast<double>(a.idle_slot_steps)), 0.0});
  out.push_back({"slot utilisation of that batch: 2,050 / 4,000", num(pa.utilisation),
                 num(static_cast<double>(a.batch_slot_steps - a.idle_slot_steps) / static_cast<double>(a.batch_slot_steps)), 1e-12});
  out.push_back({"that batch's makespan: 1,999 lockstep decode steps of 10 ms", to_quantity(sec(1999 * 0.010)), to_quantity(a.makespan), 1e-12});
  if (opt.trace)
    fmt::print(stderr, "static {{50, 2000}}: {} steps, idle slot-steps {}, short request done at {:.3f} s (its last token at {:.3f} s)\n",
               a.steps.size(), a.idle_slot_steps, a.requests[0].done.value(), a.requests[0].last_token.value());

  // A seeded stream of uneven answers in batches of 8, all queued at once.
  const int n = opt.quick ? 64 : 1024;
  SimInput mix;
  mix.requests = draw_requests(n, 11, 200, 300, LengthDist::uniform, 1 << 30);
  std::vector<std::int64_t> outputs;
  for (const auto& q : mix.requests) outputs.push_back(q.output);
  e.max_batch = 8;
  const SimResult b = simulate(mix, e, step);
  const StaticPadding pb = static_padding(outputs, 8);
  out.push_back({fmt::format("idle decode slots, {} uneven answers in static batches of 8", n), num(static_cast<double>(pb.idle)),
                 num(static_cast<double>(b.idle_slot_steps)), 0.0});
  out.push_back({"static batches formed", num(static_cast<double>(pb.batches)), num(static_cast<double>(b.batches)), 0.0});
  // The same stream with continuous batching computes no padding.
  e.batching = Batching::continuous;
  e.step_tokens = 1 << 20;
  const SimResult c = simulate(mix, e, step);
  out.push_back({"idle decode slots, the same stream with continuous batching", num(0), num(static_cast<double>(c.idle_slot_steps)), 0.0,
                 0.0});
  if (opt.trace)
    fmt::print(stderr, "uneven answers: static makespan {:.2f} s, continuous {:.2f} s ({:.3g}x)\n", b.makespan.value(), c.makespan.value(),
               b.makespan / c.makespan);
  return out;
}

// Continuous batching at saturation: decode steps of a full batch yield batch / step time, and a cohort of
// constant-length requests repeats the closed-form cycle exactly.
std::vector<KernelCheck> run_saturated(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const Seconds tau = sec(0.020);
  const LinearStepModel step(tau, Seconds{}, Seconds{});
  EngineConfig e;
  e.max_batch = 16;
  SimInput in;
  in.requests = fixed(opt.quick ? 64 : 640, 100, 200);
  Seconds decode{};
  std::int64_t decoded = 0;
  const StepObserver watch = [&](const StepEvent& ev) {
    if (ev.sample->prefilling > 0) return;
    decode += ev.duration;
    decoded += ev.sample->output_tokens;
  };
  const SimResult r = simulate(in, e, step, watch);
  out.push_back({"decode rate of a full batch of 16 at 20 ms a step = batch / step time", to_quantity(batch_throughput(16, tau)),
                 to_quantity(from_base<Tokens>(static_cast<double>(decoded)) / decode), 1e-12});
  const SaturatedCycle cyc = saturated_cycle(step, 16, 100, 200, e.step_tokens);
  const Summary s = summarize(r, 0);
  out.push_back({"output rate of 200-token answers: 16 x 200 per (199 x 20 ms)", to_quantity(cyc.output_rate), to_quantity(s.output_rate), 1e-12});

  // The same with the roofline model of Llama 3.1 8B on an H100-like device: prefill groups and growing KV reads.
  const RooflineStepModel llama(catalog_workload("llama-3.1-8b"), h100_roof(), 1, std::nullopt, from_base<Bytes>(2.0), Seconds{});
  e.max_batch = 32;
  e.step_tokens = 4096;
  in.requests = fixed(opt.quick ? 64 : 320, 1000, 300);
  const SimResult r2 = simulate(in, e, llama);
  const SaturatedCycle c2 = saturated_cycle(llama, 32, 1000, 300, 4096);
  out.push_back({"Llama 3.1 8B, batch 32, 1,000 + 300 tokens: simulated vs closed-form cycle", to_quantity(c2.output_rate),
                 to_quantity(summarize(r2, 0).output_rate), 1e-9});

  // Staggered: uneven answers arriving one by one into the batch; the steady-state formula at the workload's
  // length moments, within 5% (ramp-up and drain at the ends of the run are outside it).
  const int n = opt.quick ? 600 : 4000;
  SimInput st;
  st.requests = draw_requests(n, 3, 1000, 300, LengthDist::uniform, 1 << 30);
  double steps = 0, ctx_sum = 0;
  for (const auto& q : st.requests) {
    const double d = static_cast<double>(q.output - 1);
    steps += d;
    ctx_sum += d * (d - 1) / 2;
  }
  e.max_batch = 16;
  const SimResult r3 = simulate(st, e, llama);
  const SteadyState ss = steady_state(llama, 16, 1000, steps / n, ctx_sum / n);
  out.push_back({fmt::format("Llama 3.1 8B, batch 16, {} uniform answers (mean 300): simulated vs steady state", n),
                 to_quantity(ss.request_rate), to_quantity(summarize(r3, 0).request_rate), 0.05});
  if (opt.trace)
    fmt::print(stderr, "saturated: llama cohort cycle {:.4f} s ({} prefill steps), staggered mean step {:.3f} ms at context {:.0f}\n",
               c2.cycle.value(), c2.prefill_steps, ss.decode_step.value() * 1e3, ss.mean_context);
  return out;
}

// Little's law: time-averaged occupancy integrated over the run against rate x time per request.
std::vector<KernelCheck> run_little(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const RooflineStepModel llama(catalog_workload("llama-3.1-8b"), h100_roof(), 1, std::nullopt, from_base<Bytes>(2.0), Seconds{});
  EngineConfig e;
  e.max_batch = 64;
  e.step_tokens = 4096;
  // Short answers, so the ramp-up and drain at the ends of the run are a small share of it.
  const int n = opt.quick ? 3000 : 30000;
  SimInput in;
  in.requests = draw_requests(n, 5, 400, 60, LengthDist::exponential, 1 << 30);
  const SaturatedCycle sat = saturated_cycle(llama, 64, 400, 60, 4096);
  const double rate = 0.6 * sat.request_rate.value();
  poisson_arrivals(in.requests, from_base<PerSecond>(rate), 5);
  const SimResult r = simulate(in, e, llama);
  const Summary s = summarize(r, 0);
  // Σ over steps of (sequences running × step length), independently of the per-request records.
  double area = 0;
  for (const auto& st : r.steps) area += st.running * st.duration;
  out.push_back({"sequences in the batch: time average vs answers/s x time in the batch (Poisson, 60% load)",
                 num(little_concurrency(s.request_rate, s.mean_residence)), num(area / r.makespan.value()), 1e-9});
  double lat = 0;
  for (const auto& q : r.requests) lat += q.latency().value();
  out.push_back({"requests in the system: arrival/answer sweep vs answers/s x mean latency",
                 num(little_concurrency(s.request_rate, from_base<Seconds>(lat / n))), num(s.mean_in_system), 1e-9});
  out.push_back({"answers per second = the Poisson rate below saturation (5%)", Quantity{rate, dims::frequency}, to_quantity(s.request_rate),
                 0.05});

  // A closed loop of 16 users thinking 2 s: throughput = users / (response + think).
  SimInput cl;
  cl.requests = draw_requests(opt.quick ? 2000 : 20000, 9, 400, 60, LengthDist::fixed, 1 << 30);
  cl.closed = ClosedLoop{16, sec(2.0), false};
  const SimResult rc = simulate(cl, e, llama);
  const Summary sc = summarize(rc, 0);
  out.push_back({"closed loop of 16 users, 2 s think: answers/s vs users / (latency + think) (5%)",
                 to_quantity(closed_loop_throughput(16, sc.latency.mean, sec(2.0))), to_quantity(sc.request_rate), 0.05});
  return out;
}

// KV accounting under pressure: a pool too small for the batch forces preemptions; every block handed out
// comes back, every requested token is generated once, and the pool is never overdrawn.
std::vector<KernelCheck> run_kv(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const LinearStepModel step(sec(0.020), sec(0.0002), sec(0.00005));
  for (const auto pre : {kv::Preemption::recompute, kv::Preemption::swap}) {
    EngineConfig e;
    e.max_batch = 32;
    e.kv_blocks = 400;  // 6,400 tokens: about 8 sequences of 800
    e.block_size = 16;
    e.preemption = pre;
    e.swap_time_per_block = sec(1e-5);
    SimInput in;
    in.requests = draw_requests(opt.quick ? 80 : 800, 21, 300, 500, LengthDist::uniform, 1 << 30);
    std::int64_t want = 0;
    for (const auto& q : in.requests) want += q.output;
    const SimResult r = simulate(in, e, step);
    const char* name = pre == kv::Preemption::swap ? "swap" : "recompute";
    out.push_back({fmt::format("output tokens generated = requested ({}, {} preemptions)", name, r.preemptions), num(static_cast<double>(want)),
                   num(static_cast<double>(r.output_tokens)), 0.0});
    out.push_back({fmt::format("KV blocks returned = blocks handed out ({})", name), num(static_cast<double>(r.pool.allocations)),
                   num(static_cast<double>(r.pool.frees)), 0.0});
    out.push_back({fmt::format("peak KV blocks within the pool of 400 ({})", name), num(400.0),
                   num(std::max(400.0, static_cast<double>(r.pool.peak_used))), 0.0});
    if (opt.trace)
      fmt::print(stderr, "kv {}: {} preemptions, {} recomputed tokens, {} swapped blocks, peak {} blocks\n", name, r.preemptions,
                 r.recomputed_tokens, r.swapped_blocks, r.pool.peak_used);
  }
  return out;
}

// The step model against decode::decode_step and decode::prefill_step for uniform batches: the same bytes and
// operations from an independent per-sequence sum.
std::vector<KernelCheck> run_step_model(const KernelOptions& /*opt*/) {
  std::vector<KernelCheck> out;
  for (const char* id : {"llama-3.1-8b", "gemma-3-27b", "deepseek-v3"}) {
    const decode::Workload w = catalog_workload(id);
    const int tp = id[0] == 'd' ? 8 : 2;
    const RooflineStepModel m(w, h100_roof(), tp, std::nullopt, from_base<Bytes>(2.0), Seconds{});
    for (const double ctx : {100.0, 9000.0}) {
      const std::vector<SeqWork> batch(24, SeqWork{static_cast<std::int64_t>(ctx), 1, false});
      const decode::StepCost a = decode::decode_step(w, 24, from_base<Tokens>(ctx), tp).cost();
      const decode::StepCost b = m.detail(batch).cost();
      out.push_back({fmt::format("{} decode step bytes, batch 24 at {:g} tokens, tp {}", id, ctx, tp), to_quantity(a.bytes), to_quantity(b.bytes), 1e-12});
      out.push_back({fmt::format("{} decode step operations", id), to_quantity(a.flops), to_quantity(b.flops), 1e-12});
    }
    const std::vector<SeqWork> prompts(3, SeqWork{0, 6000, true});
    const decode::StepCost a = decode::prefill_step(w, 3, from_base<Tokens>(6000), true, tp).cost();
    const decode::StepCost b = m.detail(prompts).cost();
    out.push_back({fmt::format("{} prefill of 3 x 6,000 tokens: bytes", id), to_quantity(a.bytes), to_quantity(b.bytes), 1e-12});
    out.push_back({fmt::format("{} prefill operations (causal)", id), to_quantity(a.flops), to_quantity(b.flops), 1e-12});
  }
  // A prompt in chunks costs the same attention as in one piece: Σ over chunks of the causal pairs.
  const decode::Workload w = catalog_workload("llama-3.1-8b");
  const RooflineStepModel m(w, h100_roof(), 1, std::nullopt, from_base<Bytes>(2.0), Seconds{});
  Flops chunked{};
  for (std::int64_t at = 0; at < 8192; at += 512) {
    const SeqWork c{at, 512, true};
    chunked += m.detail(std::span<const SeqWork>(&c, 1)).attention_flops;
  }
  const SeqWork whole{0, 8192, true};
  out.push_back({"attention of an 8,192-token prompt in 16 chunks vs in one", to_quantity(m.detail(std::span<const SeqWork>(&whole, 1)).attention_flops),
                 to_quantity(chunked), 1e-12});
  return out;
}

}  // namespace

std::vector<Kernel> serve_kernels() {
  return {
      {"static-idle-slots", "static batching simulated: idle decode slots and batches counted against the padding of each batch", run_static},
      {"saturated-throughput", "continuous batching at saturation: batch / step time, the closed-form cycle, the staggered steady state",
       run_saturated},
      {"littles-law", "occupancy integrated over a simulated run against rate x time (open Poisson and closed loops)", run_little},
      {"kv-accounting", "KV pool under pressure: preemption by recompute and swap, tokens and blocks conserved", run_kv},
      {"step-model", "the simulator's step cost against decode_step / prefill_step for uniform batches; chunked prefill attention", run_step_model},
  };
}

}  // namespace infracalc
