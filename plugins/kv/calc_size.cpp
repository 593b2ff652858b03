// `kv size`: the cache of any layout from the model file or flags, per device under TP/PP.
#include <fmt/format.h>

#include "plugins/formats/storage.hpp"
#include "plugins/kv/kv_arch.hpp"
#include "plugins/kv/kv_calculators.hpp"
#include "units/bridge.hpp"

namespace infracalc::kv {

namespace {

void run_size(Context& ctx) {
  const ModelArch m = *resolve_arch(ctx, true);
  const KvPrecision prec = resolve_precision(ctx);
  const Parallelism par = resolve_parallel(ctx, m);
  const Tokens tokens = ctx.get<Tokens>("tokens");
  const Number batch = Number::from_value(static_cast<double>(ctx.integer("batch")));
  const CacheSize c = cache_size(m, prec, tokens, batch, par);

  ctx.set("kv_bytes_per_token", c.per_token);
  ctx.set("kv_per_sequence", c.per_sequence);
  ctx.set("kv_total", c.total);
  ctx.set("kv_per_device", c.per_device);
  ctx.set("kv_bytes_per_token_per_device", c.per_token_per_device);
  if (c.scales_per_token.value() > 0) ctx.set("scale_bytes_per_token", c.scales_per_token);
  ctx.set_number("devices", static_cast<double>(par.tp * par.pp));
  ctx.set_number("cached_layers", c.cached_layers);
  ctx.set_number("sliding_layers", c.sliding_layers);
  if (!m.mla) ctx.set_number("kv_heads_used", m.kv_heads);
  const Bytes mha = mha_position_bytes(m, prec);
  if (mha.value() > 0) ctx.set_number("factor_vs_mha", mha / bytes_per_position(m, prec, 1));
  const double growing = c.per_token.value() * tokens.value();
  ctx.set_number("window_saving", growing > 0 ? 1.0 - (c.per_sequence - c.ssm_state_per_sequence).value() / growing : 0.0);
  if (c.ssm_layers > 0) {
    ctx.set("ssm_state_per_sequence", c.ssm_state_per_sequence);
    ctx.set_number("ssm_layers", c.ssm_layers);
  }

  if (ctx.has("budget")) {
    const Bytes budget = ctx.get<Bytes>("budget");
    const bool per_device = par.tp * par.pp > 1;
    const Bytes need = per_device ? c.per_device : c.total;
    const bool fits = need <= budget;
    ctx.set("budget_headroom", budget - need);
    ctx.verdict("fits", fits,
                fits ? std::string(per_device ? "the busiest device's cache fits in --budget" : "the cache fits in --budget")
                     : "the cache exceeds --budget; shorten the context, shrink the batch, use a smaller dtype or more ranks");
    if (!fits && ctx.flag("require_fit")) ctx.fail_check();
  } else if (ctx.flag("require_fit")) {
    throw UserError{{"--require-fit needs --budget (the memory the cache may use)", "e.g. --budget 40GB"}};
  }

  // Per-layer-kind breakdown.
  Table t{"layers", "cache by layer kind (one sequence)",
          {{"kind"}, {"layers", dims::none}, {"positions", dims::token}, {"bytes", dims::information}, {"share", dims::none}},
          {}};
  const Bytes pos = bytes_per_position(m, prec, 1);
  const double win = static_cast<double>(m.sliding_window);
  const double full_pos = tokens.value();
  const double slide_pos = std::min(tokens.value(), win);
  const double seq = c.per_sequence.value();
  auto row = [&](const char* kind, int n, double positions) {
    if (n == 0) return;
    const double bytes = n * positions * pos.value();
    t.rows.push_back({std::string(kind), Quantity::number(n), Quantity{positions, dims::token}, Quantity{bytes, dims::information},
                      Quantity::number(seq > 0 ? bytes / seq : 0.0)});
  };
  row("full attention", c.full_layers, full_pos);
  row("sliding window", c.sliding_layers, slide_pos);
  row("shared (no cache)", m.layers - c.cached_layers - c.ssm_layers, 0.0);
  if (c.ssm_layers > 0)
    t.rows.push_back({std::string("state space (fixed state)"), Quantity::number(c.ssm_layers), Quantity{0.0, dims::token},
                      to_quantity(c.ssm_state_per_sequence), Quantity::number(seq > 0 ? c.ssm_state_per_sequence.value() / seq : 0.0)});
  ctx.add_table(std::move(t));

  ctx.note("layout: " + describe(m));
  note_context_limit(ctx, m, tokens);
  if (m.mla)
    ctx.note(fmt::format("bytes per token = {} cached layers x ({} latent + {} RoPE key) x {} ({}); one latent per layer serves "
                         "every head, so tensor parallelism replicates it",
                         c.cached_layers, m.mla->kv_lora_rank, m.mla->qk_rope_head_dim, ctx.quote(bytes_per_value(*prec.format)),
                         prec.format->name));
  else
    ctx.note(fmt::format("bytes per token = 2 (K and V) x {} cached layers x {} KV heads x {} head dim x {} ({})", c.cached_layers,
                         m.kv_heads, m.head_dim, ctx.quote(bytes_per_value(*prec.format)), prec.format->name));
  if (prec.scales != ScaleGranularity::tensor)
    ctx.note(fmt::format("scales: one {} of {} each per {} adds {} per token ({} of the cache)",
                         prec.zero_point ? "scale and zero point" : "scale", ctx.quote(prec.scale_bytes),
                         prec.scales == ScaleGranularity::group ? fmt::format("{} elements", prec.group_size) : std::string("cached vector"),
                         ctx.quote(c.scales_per_token), ctx.quote_percent((c.scales_per_token / c.per_token).value())));
  else if (std::string_view(prec.format->name) == "int8" || std::string_view(prec.format->name) == "int4" ||
           std::string_view(prec.format->name) == "fp8")
    ctx.note("per-tensor scales only (nothing stored per token); --kv-scales head|group counts per-token scale overhead");
  if (c.sliding_layers > 0)
    ctx.note(fmt::format("{} sliding-window layers hold at most {} positions; bytes per token counts every layer while all still grow",
                         c.sliding_layers, m.sliding_window));
  if (par.tp * par.pp > 1) {
    if (m.mla && par.tp > 1) ctx.note(fmt::format("per device: each of {} tp ranks holds the whole MLA latent", par.tp));
    else if (!m.mla && m.kv_heads < par.tp)
      ctx.note(fmt::format("per device: {} KV heads over {} tp ranks: each rank holds one head, replicated {} times", m.kv_heads,
                           par.tp, par.tp / m.kv_heads));
    else if (par.tp > 1)
      ctx.note(fmt::format("per device: {} of {} KV heads on each of {} tp ranks", kv_heads_per_rank(m, par.tp), m.kv_heads, par.tp));
    if (par.pp > 1)
      ctx.note(fmt::format("per device: the busiest of {} pipeline stages holds ceil({}/{}) = {} layers", par.pp, m.layers, par.pp,
                           (m.layers + par.pp - 1) / par.pp));
  }
  if (c.ssm_layers > 0) ctx.note(state_space_note(m, c.ssm_state_per_sequence));
  ctx.note("paging waste, prefix sharing and compression are separate calculators: kv paged, kv prefix, kv compress");
}

}  // namespace

Calculator size_calculator() {
  Calculator c;
  c.name = "size";
  c.summary = "KV-cache bytes per token, per sequence, in total and per device (MHA/GQA/MQA/MLA, sliding windows)";
  c.description =
      "Per layer that keeps a cache, each position stores 2 x kv_heads x head_dim elements (MHA: kv_heads = heads, MQA: 1, "
      "GQA: a divisor) or, for MLA, kv_lora_rank + rope_dim elements shared by all heads. Sliding-window layers hold at "
      "most the window; shared layers hold nothing. kv_total = sum over layers of positions x bytes per position x batch. "
      "Quantized caches add their scales (--kv-scales). Per device: KV heads split over --tp ranks (replicated past the "
      "KV head count, MLA replicated), layers over --pp stages (busiest stage). Leaves out paging waste and runtime "
      "buffers.";
  c.refs = {model_ref()};
  c.inputs = arch_inputs();
  for (auto& in : precision_inputs()) c.inputs.push_back(in);
  c.inputs.push_back({.name = "tokens", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "tokens held per sequence (context length)", .example = "128k"});
  c.inputs.push_back({.name = "batch", .kind = InputKind::integer, .help = "sequences held at once", .default_value = "1", .example = "32", .most = kMaxBatch, .most_why = kBatchWhy});
  for (auto& in : parallel_inputs()) c.inputs.push_back(in);
  c.inputs.push_back({.name = "budget", .kind = InputKind::quantity, .dim = dims::information,
                      .help = "memory the cache may use (per device when --tp or --pp > 1); adds a fits verdict", .example = "40GB",
                      .optional = true});
  c.inputs.push_back({.name = "require_fit", .kind = InputKind::flag, .help = "exit 1 when the cache does not fit in --budget"});
  c.outputs = {
      {"kv_bytes_per_token", dims::information, "bytes one more token adds while every cached layer grows (all layers, K and V or latent, scales)"},
      {"kv_per_sequence", dims::information, "bytes of one sequence of --tokens tokens (sliding layers capped at the window)"},
      {"kv_total", dims::information, "bytes for --batch sequences"},
      {"kv_per_device", dims::information, "bytes the busiest device holds under --tp/--pp"},
      {"kv_bytes_per_token_per_device", dims::information, "bytes one more token adds on the busiest device"},
      {"scale_bytes_per_token", dims::information, "of kv_bytes_per_token, the quantization scales and zero points"},
      {"devices", dims::none, "devices one model replica spans (tp x pp)"},
      {"cached_layers", dims::none, "layers that store their own cache"},
      {"sliding_layers", dims::none, "cached layers with a sliding window"},
      {"kv_heads_used", dims::none, "KV heads per layer after applying the attention layout (not set for MLA)"},
      {"factor_vs_mha", dims::none, "how many times smaller per layer than full MHA of the same heads"},
      {"window_saving", dims::none, "share of the cache sliding windows save at --tokens (0 without sliding layers)"},
      {"ssm_state_per_sequence", dims::information,
       "of kv_per_sequence, the fixed recurrent state of the state-space (Mamba) layers: conv and SSM state, constant in --tokens"},
      {"ssm_layers", dims::none, "state-space (Mamba) layers, which keep a recurrent state instead of a KV cache"},
      {"budget_headroom", dims::information, "--budget minus the cache (per device under tp/pp; negative when it does not fit)"},
  };
  c.run = run_size;
  c.source = __FILE__;
  c.tables = {
      {"layers", "cache by layer kind, one sequence"},
  };
  c.verdicts = {
      {"fits", "the cache fits --budget"},
  };
  return c;
}

}  // namespace infracalc::kv
