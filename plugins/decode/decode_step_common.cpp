#include "plugins/decode/decode_step_common.hpp"

#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "plugins/decode/decode_inputs.hpp"
#include "plugins/kv/kv_arch.hpp"
#include "plugins/kv/kv_layout.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::decode {

std::vector<Input> step_inputs() {
  return {
      {.name = "batch", .kind = InputKind::integer, .help = "sequences decoded together", .default_value = "1", .example = "64", .most = kMaxBatch, .most_why = kBatchWhy},
      {.name = "tokens", .kind = InputKind::quantity, .dim = dims::token,
       .help = "context held in the KV cache per sequence (0: weights only)", .default_value = "0", .example = "8k",
       .bound = Bound::non_negative},
      {.name = "tp", .kind = InputKind::integer,
       .help = "tensor-parallel devices: weights, KV heads and arithmetic are split across them", .default_value = "1",
       .example = "8", .most = kMaxParallel, .most_why = kParallelWhy},
  };
}

void check_tp(Context& ctx, const Workload& w, int tp) {
  if (tp < 1) throw UserError{{"--tp: expected at least 1 device, got " + std::to_string(tp), ""}};
  if (tp == 1 || !w.arch) return;
  const ModelArch& m = *w.arch;
  if (m.attention_heads % tp != 0)
    throw UserError{{fmt::format("--tp {} does not divide the {} query heads", tp, m.attention_heads),
                     "tensor parallelism splits whole heads: pick a divisor of the head count"}};
  if (!m.mla && m.kv_heads < tp)
    ctx.note(fmt::format("--tp {} exceeds the {} KV heads: each KV head is replicated on {} devices", tp, m.kv_heads, tp / m.kv_heads));
  if (m.mla && tp > 1) ctx.note("MLA's latent cache cannot be split by heads: every tensor-parallel device holds all of it");
}

int tp_degree(Context& ctx, const Workload& w) {
  const auto tp = ctx.integer("tp");
  if (tp < 1 || tp > 1 << 20) throw UserError{{"--tp: expected a whole number of devices of at least 1", "e.g. --tp 8"}};
  check_tp(ctx, w, static_cast<int>(tp));
  return static_cast<int>(tp);
}

TpComm tp_comm_time(Context& ctx, const Workload& w, double tokens, int tp) {
  if (tp <= 1) return {};
  const auto link = resolve_link(ctx);
  if (!link) return {};
  if (!w.arch || w.arch->hidden_size <= 0)
    throw UserError{{"tensor-parallel communication needs the model width and layer count", "give --model, or --layers and --hidden-size"}};
  const Bytes act = activation_bytes(ctx);
  const TpCommunication c = tp_communication(w.arch->layers, w.arch->hidden_size, tokens, act, tp, *link);
  ctx.note(fmt::format("communication: {} ring all-reduces of {} per step (2 per layer), {} each", c.allreduces,
                       ctx.quote(c.message), ctx.quote(c.each)));
  return {c.total, tp_communication_expected(efficiency(), w.arch->layers, w.arch->hidden_size, tokens, act, tp, link->bandwidth)};
}

DecodeCase decode_case(Context& ctx, bool need_peak) {
  DecodeCase c;
  c.w = *resolve_workload(ctx, true);
  c.roof = resolve_roof(ctx, need_peak);
  c.batch = batch_of(ctx);
  c.tokens = ctx.get<Tokens>("tokens");
  c.tp = tp_degree(ctx, c.w);
  c.d = decode_step(c.w, c.batch, c.tokens, c.tp);
  c.tc = tp_comm_time(ctx, c.w, c.batch, c.tp);
  if (ctx.has("overhead")) c.overhead = ctx.get<Seconds>("overhead");
  return c;
}

Input engine_input() {
  return {.name = "engine", .kind = InputKind::choice,
          .help = "serving engine class the expected figures are calibrated for (per-step overhead, kernel efficiency, default max batch)",
          .default_value = "generic", .example = "trtllm", .choices = {"generic", "trtllm", "vllm", "sglang", "llamacpp"}};
}

Engine engine_of(Context& ctx) { return parse_engine(ctx.text("engine")).value_or(Engine::generic); }

std::string compute_precision(Context& ctx) {
  return ctx.has("compute_dtype") ? ctx.text("compute_dtype") : std::string(ctx.text("dtype"));
}

bool expected_wanted(Context& ctx) {
  for (const char* k : {"mbu", "mfu", "peak", "bandwidth"})
    if (ctx.has(k) && ctx.origin(k) != Origin::catalog && !((std::string_view(k) == "mbu" || std::string_view(k) == "mfu") && ctx.number(k) == 1.0)) {
      ctx.note(fmt::format("no expected figures: {} replaces the datasheet roof the calibration applies to", Context::flag_name(k)));
      return false;
    }
  return true;
}

void expected_note(Context& ctx, Engine engine) {
  const Efficiency& e = efficiency();
  ctx.note(fmt::format("expected figures: calibrated on published measurements (data/calibration/efficiency.toml; engine {}): "
                       "{} of the bandwidth for large steps, {}/{}/{} of the 16/8/4-bit peak for large "
                       "matrix multiplies, {} per step; {}",
                       engine_name(engine), ctx.quote_percent(e.bandwidth_fraction * e.engine(engine).bandwidth_scale),
                       ctx.quote_percent(e.matmul_fraction_16 * e.engine(engine).compute_scale),
                       ctx.quote_percent(e.matmul_fraction_8 * e.engine(engine).compute_scale),
                       ctx.quote_percent(e.matmul_fraction_4 * e.engine(engine).compute_scale),
                       ctx.quote(e.engine(engine).step_overhead), band_text("inference")));
}

void fit_note(Context& ctx, const Workload& w, double batch, Tokens tokens, int tp) {
  const Entry* g = ctx.ref("gpu");
  if (g == nullptr) return;
  const auto dm = device_memory_of(ctx, *g);  // what software sees, else the marketed capacity
  if (!dm) return;
  const Bytes* cap = &dm->bytes;
  Bytes need = w.weights_resident / static_cast<double>(tp);
  if (w.arch) need += kv::cache_size(*w.arch, w.kv_format, tokens, Number::from_value(batch), {tp, 1}).per_device;
  if (need > *cap)
    ctx.note(fmt::format("does not fit: {} of weights and KV per device against {} of {} memory; the ceiling is hypothetical "
                         "(see `fit`, or raise --tp)",
                         ctx.quote(need), ctx.quote(*cap), g->id()));
}

void ceiling_notes(Context& ctx, const Workload& w, const Roof& roof, Tokens tokens, int tp, bool communication) {
  ctx.note("step time = max(memory, compute): assumes they overlap perfectly; activations and temporaries are not counted");
  if (!ctx.has("overhead")) ctx.note("the ceiling ignores kernel-launch and scheduling overhead (the expected figures count it; or give --overhead)");
  if (!ctx.has("mbu")) ctx.note("the ceiling is at 100% of the memory bandwidth (the expected figures use the calibrated share; or give --mbu)");
  if (!roof.peak) ctx.note("no peak given: compute time not modelled (give --peak or --gpu)");
  else if (!ctx.has("mfu")) ctx.note("the ceiling is at 100% of the peak arithmetic rate (the expected figures use the calibrated share; or give --mfu)");
  if (tp > 1 && !communication)
    ctx.note("tensor-parallel all-reduces not counted: no link known (give --link-bandwidth or --link, or a --gpu with a scale-up link)");
  if (w.arch && tokens.value() == 0) ctx.note("--tokens 0: no KV-cache reads counted (give --tokens for the context)");
  if (w.arch) kv::note_context_limit(ctx, *w.arch, tokens);
  if (w.moe_layers > 0)
    ctx.note("experts touched per layer assume uniform, independent routing: E(1 - (1 - k/E)^tokens); real routers are skewed");
}

}  // namespace infracalc::decode
