// `decode prefill`: how long a prompt's prefill takes on a device: its arithmetic over the peak, or its bytes over
// the bandwidth, whichever is longer, and the prompt length at which it turns compute-bound.
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "host/context.hpp"
#include "plugins/decode/decode_calculators.hpp"
#include "plugins/decode/decode_inputs.hpp"
#include "plugins/decode/decode_step_common.hpp"
#include "plugins/kv/kv_arch.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::decode {

namespace {

// Smallest prompt (real-valued tokens per sequence) at which a prefill of `batch` prompts is compute-bound.
std::optional<double> prefill_ridge_tokens(const Workload& w, const Roof& roof, double batch, bool causal, int tp) {
  auto gap = [&](double n) {
    const StepCost c = prefill_step(w, batch, from_base<Tokens>(n), causal, tp).cost();
    return (c.flops / *roof.peak - c.bytes / roof.bandwidth).value();
  };
  if (gap(1) >= 0) return 1.0;
  double hi = 2;
  while (gap(hi) < 0) {
    hi *= 2;
    if (hi > 1e9) return std::nullopt;
  }
  double lo = hi / 2;
  for (int i = 0; i < 100 && hi - lo > 1e-6 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (gap(mid) < 0 ? lo : hi) = mid;
  }
  return hi;
}

void run_prefill(Context& ctx) {
  const Workload w = *resolve_workload(ctx, true);
  const Roof roof = resolve_roof(ctx, true);
  const double batch = batch_of(ctx);
  const Tokens prompt = ctx.get<Tokens>("tokens");
  if (prompt.value() < 1) throw UserError{{"--tokens: a prefill needs a prompt of at least one token", "e.g. --tokens 8k"}};
  if (w.arch) kv::note_context_limit(ctx, *w.arch, prompt);
  const bool causal = !ctx.flag("non_causal");
  const int tp = tp_degree(ctx, w);
  const StepDetail d = prefill_step(w, batch, prompt, causal, tp);
  const TpComm tc = tp_comm_time(ctx, w, batch * prompt.value(), tp);
  const Seconds comm = tc.ceiling;
  const Seconds overhead = ctx.has("overhead") ? ctx.get<Seconds>("overhead") : Seconds{};
  const StepTime t = step_time(d.cost(), roof, comm, overhead);
  ctx.set("prefill_flops", d.cost().flops);
  ctx.set("matmul_flops", d.matmul_flops);
  ctx.set("attention_flops", d.attention_flops);
  ctx.set("flops_per_token", d.cost().flops / from_base<Tokens>(batch * prompt.value()));
  ctx.set("prefill_bytes", d.cost().bytes);
  ctx.set("intensity", intensity(d.cost()));
  ctx.set("compute_time", t.compute);
  ctx.set("memory_time", t.memory);
  if (comm.value() > 0) ctx.set("communication_time", comm);
  ctx.set("prefill_time", t.total);
  ctx.set("ttft", t.total);
  ctx.set("prefill_tokens_per_second", from_base<Tokens>(batch * prompt.value()) / t.total);
  if (expected_wanted(ctx)) {
    const Engine engine = engine_of(ctx);
    const StepShape shape{batch * prompt.value(), batch, precision_bits(compute_precision(ctx)), d.attention_flops};
    const StepTime x = calibrated_step_time(efficiency(), engine, d.cost(), shape, roof, tc.expected);
    ctx.set("expected_prefill_time", x.total);
    ctx.set("expected_ttft", x.total);
    ctx.set("expected_prefill_tokens_per_second", from_base<Tokens>(batch * prompt.value()) / x.total);
    expected_note(ctx, engine);
  }
  if (auto pt = prefill_ridge_tokens(w, roof, batch, causal, tp)) ctx.set("compute_bound_from", from_base<Tokens>(*pt));
  if (auto rb = ridge_batch(w, roof, prompt, tp)) ctx.set_number("decode_ridge_batch", *rb);
  else ctx.note("decode at this context never becomes compute-bound: its KV reads grow as fast as its arithmetic");
  ctx.verdict("compute_bound", !t.memory_bound,
              fmt::format("the prefill's compute {} against its memory {}", ctx.quote(t.compute),
                          ctx.quote(t.memory)));
  ctx.note("TTFT = prefill time: ignores queueing, tokenisation, network, sampling and chunked-prefill interleaving with decode");
  ctx.note(causal ? "attention is causal, as in a decoder's prefill: only query-key pairs at or before each query, 2 N(N+1) d per "
                    "layer and head (--non-causal counts every pair)"
                  : "--non-causal: attention counted as 4 N^2 d per layer and head (every query against every key)");
  ctx.note("K and V re-reads inside attention are not counted as memory traffic (FlashAttention keeps them on chip; see `decode attention`)");
  if (!ctx.has("mfu")) ctx.note("at 100% of peak (give --mfu: prefill typically reaches 40-70%)");
}

}  // namespace

Calculator prefill_calculator() {
  Calculator c;
  c.name = "prefill";
  c.summary = "prefill operations, time and TTFT; where compute starts to bind";
  c.description =
      "prefill operations = B x N x 2 x (matmul parameters) + B x attention (causal: 2 N(N+1) d per layer and head; "
      "4 N^2 d with --non-causal); bytes = weights once + the prompt's KV written; time = max(operations / peak, bytes / bandwidth); "
      "TTFT = prefill time. compute_bound_from: the prompt length from which the prefill is compute-bound; "
      "decode_ridge_batch: the batch at which a decode step at this context leaves the memory roof.";
  c.refs = model_gpu_refs();
  c.refs.push_back({"link", {"interconnect"}, "scale-up link from the catalog (sets --link-bandwidth)"});
  std::vector<Input> own = step_inputs();
  for (auto& in : own)
    if (in.name == "tokens") {
      in.help = "prompt length (tokens per sequence)";
      in.default_value = {};
      in.example = "8k";
    }
  own.push_back({.name = "non_causal", .kind = InputKind::flag,
                 .help = "count attention over every query-key pair (an encoder); by default a decoder's causal mask halves it"});
  c.inputs = join(join(join(model_inputs(), device_inputs(true)), own), link_inputs());
  c.inputs.push_back(engine_input());
  c.outputs = {
      {"prefill_flops", dims::flop, "operations of the prefill on one device"},
      {"matmul_flops", dims::flop, "of which matrix products"},
      {"attention_flops", dims::flop, "of which attention"},
      {"flops_per_token", dims::flop / dims::token, "operations per prompt token", "FLOP/tok"},
      {"prefill_bytes", dims::information, "bytes the prefill moves on one device"},
      {"intensity", dims::intensity, "operations per byte"},
      {"compute_time", dims::time, "operations / peak"},
      {"memory_time", dims::time, "bytes / bandwidth"},
      {"communication_time", dims::time, "tensor-parallel all-reduces, when modelled"},
      {"prefill_time", dims::time, "time of the prefill"},
      {"ttft", dims::time, "time to first token (the prefill time)"},
      {"prefill_tokens_per_second", dims::token_rate, "prompt tokens processed per second"},
      {"compute_bound_from", dims::token, "prompt length from which the prefill is compute-bound"},
      {"decode_ridge_batch", dims::none, "batch at which a decode step at this context becomes compute-bound"},
      {"expected_prefill_time", dims::time, "calibrated prefill time: the efficiencies real kernels reach, collectives, overhead"},
      {"expected_ttft", dims::time, "calibrated time to first token (the expected prefill time)"},
      {"expected_prefill_tokens_per_second", dims::token_rate, "calibrated prompt tokens per second"},
  };
  c.run = run_prefill;
  c.source = __FILE__;
  c.verdicts = {
      {"compute_bound", "the prefill is bound by compute, not memory traffic"},
  };
  return c;
}

}  // namespace infracalc::decode
