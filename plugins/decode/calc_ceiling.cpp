// `decode ceiling`: how fast a model can decode on a device: bytes per step over bandwidth, or the
// arithmetic over the peak, whichever is longer.
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

void calculate_ceiling(Context& ctx) {
  const DecodeCase dc = decode_case(ctx, false);
  const Workload& w = dc.w;
  const Roof& roof = dc.roof;
  const double batch = dc.batch;
  const Tokens tokens = dc.tokens;
  const int tp = dc.tp;
  const StepDetail& d = dc.d;
  const TpComm& tc = dc.tc;
  const Seconds comm = tc.ceiling;
  const Seconds overhead = dc.overhead;
  const StepTime t = step_time(d.cost(), roof, comm, overhead);
  ctx.set("weights_bytes", w.weights_resident);
  ctx.set("weights_read", d.weights);
  ctx.set("kv_read", d.kv_read);
  ctx.set("kv_write", d.kv_write);
  if (w.arch && w.arch->ssm)
    ctx.note(kv::state_space_note(*w.arch, kv::cache_size(*w.arch, w.kv_format, tokens, Number::from_value(1.0)).ssm_state_per_sequence) +
             "; each step reads every sequence's state (kv_read) and writes it back (kv_write)");
  ctx.set("bytes_per_step", d.cost().bytes);
  ctx.set("flops_per_step", d.cost().flops);
  ctx.set("intensity", intensity(d.cost()));
  ctx.set("memory_time", t.memory);
  if (roof.peak) ctx.set("compute_time", t.compute);
  if (comm.value() > 0) ctx.set("communication_time", comm);
  ctx.set("step_time", t.total);
  ctx.set("tokens_per_second_per_stream", from_base<Tokens>(1.0) / t.total);
  ctx.set("tokens_per_second", from_base<Tokens>(batch) / t.total);
  if (expected_wanted(ctx)) {
    const Engine engine = engine_of(ctx);
    const StepShape shape{batch, batch, precision_bits(compute_precision(ctx)), d.attention_flops};
    const StepTime x = calibrated_step_time(efficiency(), engine, d.cost(), shape, roof, tc.expected);
    ctx.set("expected_step_time", x.total);
    ctx.set("expected_tokens_per_second_per_stream", from_base<Tokens>(1.0) / x.total);
    ctx.set("expected_tokens_per_second", from_base<Tokens>(batch) / x.total);
    expected_note(ctx, engine);
  }
  if (roof.peak) {
    if (auto rb = ridge_batch(w, roof, tokens, tp)) ctx.set_number("ridge_batch", *rb);
    else ctx.note("no batch makes this step compute-bound at this context: its KV reads grow as fast as its arithmetic");
    const char* binding = comm > std::max(t.memory, t.compute) ? "communication" : t.memory_bound ? "memory" : "compute";
    ctx.verdict("memory_bound", t.memory_bound && comm <= t.memory,
                fmt::format("binding term: {} (memory {}, compute {}, communication {})", binding, ctx.quote(t.memory),
                            ctx.quote(t.compute), ctx.quote(comm)));
  }
  fit_note(ctx, w, batch, tokens, tp);
  ceiling_notes(ctx, w, roof, tokens, tp, comm.value() > 0);
}

}  // namespace

Calculator ceiling_calculator() {
  Calculator c;
  c.name = "ceiling";
  c.summary = "decode ceiling: bytes per step, step time, tokens per second per stream and in total";
  c.description =
      "bytes per step = weights read (for MoE, the experts the batch touches: E(1-(1-k/E)^B) per layer) + the KV cache of B "
      "sequences at --tokens context + the new tokens' K and V; step time = max(bytes / bandwidth, operations / peak) "
      "[+ tensor-parallel all-reduces when --link-bandwidth is given] [+ --overhead]; tokens/s per stream = 1 / step time, "
      "in total = batch / step time. From raw inputs: --weights-bytes 140GB --bandwidth 3.35TB/s gives 23.9 tok/s. "
      "Ignores kernel-launch overhead unless --overhead is given, communication unless asked for, activation traffic, and "
      "efficiency unless --mbu/--mfu are given.";
  c.refs = model_gpu_refs();
  c.refs.push_back({"link", {"interconnect"}, "scale-up link from the catalog (sets --link-bandwidth)"});
  c.refs.push_back(system_ref("node or rack from the catalog: sets --gpu (its accelerator) and --link (its scale-up interconnect)",
                              {{"link", "scaleup_interconnect"}}));
  c.inputs = join(join(join(model_inputs(), device_inputs(true)), step_inputs()), link_inputs());
  c.inputs.push_back(engine_input());
  c.outputs = {
      {"weights_bytes", dims::information, "weights stored (all devices together)"},
      {"weights_read", dims::information, "weight bytes one device reads per step"},
      {"kv_read", dims::information, "KV-cache bytes one device reads per step"},
      {"kv_write", dims::information, "KV-cache bytes one device writes per step (the new tokens, and a hybrid's whole Mamba state)"},
      {"bytes_per_step", dims::information, "bytes one device moves per step"},
      {"flops_per_step", dims::flop, "operations one device does per step"},
      {"intensity", dims::intensity, "operations per byte of the step"},
      {"memory_time", dims::time, "bytes / bandwidth"},
      {"compute_time", dims::time, "operations / peak"},
      {"communication_time", dims::time, "tensor-parallel all-reduces per step, when modelled"},
      {"step_time", dims::time, "time per decode step (time per output token of each stream)"},
      {"tokens_per_second_per_stream", dims::token_rate, "tokens per second one sequence sees"},
      {"tokens_per_second", dims::token_rate, "tokens per second of the whole batch"},
      {"ridge_batch", dims::none, "batch at which this step would become compute-bound"},
      {"expected_step_time", dims::time, "calibrated step time: the efficiencies real engines reach, collectives, per-step overhead"},
      {"expected_tokens_per_second_per_stream", dims::token_rate, "calibrated tokens per second one sequence sees"},
      {"expected_tokens_per_second", dims::token_rate, "calibrated tokens per second of the whole batch"},
  };
  c.run = calculate_ceiling;
  c.source = __FILE__;
  c.verdicts = {
      {"memory_bound", "the decode step is bound by memory traffic, not compute or communication"},
  };
  return c;
}

}  // namespace infracalc::decode
