// `kv work`: K/V projections over a generation with and without a cache, and the cached positions each
// step reads.
#include <fmt/format.h>

#include "host/token_inputs.hpp"
#include "units/counts.hpp"
#include "plugins/kv/kv_arch.hpp"
#include "plugins/kv/kv_calculators.hpp"
#include "plugins/kv/kv_work.hpp"

namespace infracalc::kv {

namespace {

void run_work(Context& ctx) {
  const std::int64_t n = whole_tokens(ctx, "tokens", 1, kMaxTokens);
  const std::int64_t prompt = whole_tokens(ctx, "prompt", 0, kMaxTokens);
  const std::int64_t step = ctx.has("step") ? ctx.integer("step") : n;
  if (step > n) throw UserError{{fmt::format("--step ({}) is past the last step ({})", step, n), "steps run from 1 to --tokens"}};
  const ProjectionWork w = projection_work(prompt, n);
  ctx.set_number("projections_without_cache", w.without_cache);
  ctx.set_number("projections_with_cache", w.with_cache);
  ctx.set_number("work_ratio", w.without_cache / w.with_cache);
  ctx.set_number("reads_total", w.reads);
  ctx.set_number("reads_at_step", static_cast<double>(reads_at_step(prompt, step)));
  ctx.set_number("computed_at_step", 1);
  ctx.set_number("computed_at_step_without_cache", static_cast<double>(positions_after_step(prompt, step)));
  ctx.set("positions_at_step", from_base<Tokens>(static_cast<double>(positions_after_step(prompt, step))));

  if (const auto arch = resolve_arch(ctx, false)) {
    const KvPrecision prec = resolve_precision(ctx);
    const CacheSize one = cache_size(*arch, prec, from_base<Tokens>(1.0), Number::from_value(1.0));
    // One K or V projection of one token is a (hidden x width) GEMV: 2 FLOP per weight (multiply and add).
    const auto width = static_cast<double>(vector_elements(position_vectors(*arch, 1)));
    if (arch->hidden_size <= 0 && !ctx.has("hidden")) {
      ctx.note("give --hidden (model width) or --model to count projection FLOPs");
    } else {
      const double hidden = ctx.has("hidden") ? static_cast<double>(ctx.integer("hidden")) : arch->hidden_size;
      const double per_token = 2.0 * hidden * width * one.cached_layers;
      ctx.set("flops_without_cache", from_base<Flops>(per_token * w.without_cache));
      ctx.set("flops_with_cache", from_base<Flops>(per_token * w.with_cache));
      ctx.note(fmt::format("projection FLOPs per token = 2 x hidden {} x {} cached K/V elements per layer x {} layers", hidden, width,
                           one.cached_layers));
    }
    ctx.set("bytes_read_total", one.per_token * w.reads);
    ctx.set("bytes_read_at_step", one.per_token * static_cast<double>(reads_at_step(prompt, step)));
    ctx.note("layout: " + describe(*arch) + "; bytes read assume every layer keeps every position");
  }

  const auto rows = std::min<std::int64_t>(n, std::max<std::int64_t>(2, ctx.integer("samples")));
  Table t{"steps", "work per decode step (per layer, per KV head)",
          {{"step", dims::none},
           {"positions", dims::token},
           {"read_from_cache", dims::none},
           {"computed_with_cache", dims::none},
           {"computed_without_cache", dims::none},
           {"cumulative_with", dims::none},
           {"cumulative_without", dims::none}},
          {}};
  std::int64_t last = 0;
  for (std::int64_t k = 0; k < rows; ++k) {
    const std::int64_t t_step = rows == 1 ? n : 1 + k * (n - 1) / (rows - 1);
    if (t_step == last) continue;
    last = t_step;
    const ProjectionWork upto = projection_work(prompt, t_step);
    t.rows.push_back({Quantity::number(static_cast<double>(t_step)),
                      Quantity{static_cast<double>(positions_after_step(prompt, t_step)), dims::token},
                      Quantity::number(static_cast<double>(reads_at_step(prompt, t_step))), Quantity::number(1),
                      Quantity::number(static_cast<double>(positions_after_step(prompt, t_step))), Quantity::number(upto.with_cache),
                      Quantity::number(upto.without_cache)});
  }
  ctx.add_table(std::move(t));
  ctx.note(fmt::format("step t attends to {}t positions: with a cache it reads the {}t - 1 earlier K/V pairs and projects one new "
                       "pair; without one it projects all of them again",
                       prompt > 0 ? fmt::format("{} + ", prompt) : "", prompt > 0 ? fmt::format("{} + ", prompt) : ""));
  ctx.note("counts are per layer and per KV head; the prompt is projected once with a cache (prefill)");
}

}  // namespace

Calculator work_calculator() {
  Calculator c;
  c.name = "work";
  c.summary = "K/V projections over a generation with and without a cache (N(N+1)/2 vs N), and reads per step";
  c.description =
      "Generating N tokens after a P-token prompt, step t attends to P + t positions. Without a cache every step projects "
      "K and V for all of them again: N·P + N(N+1)/2 projections. With a cache the prompt is projected once and each step "
      "adds one: P + N; step t reads P + t - 1 cached pairs (N·P + N(N-1)/2 in all). Counts are per layer and per KV head; "
      "with a model the FLOPs and bytes read are totalled.";
  c.refs = {model_ref()};
  c.inputs = {
      {.name = "tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "tokens generated (N)", .example = "50"},
      {.name = "prompt", .kind = InputKind::quantity, .dim = dims::token, .help = "prompt tokens before the first step (P)",
       .default_value = "0", .example = "1000", .bound = Bound::non_negative},
      {.name = "step", .kind = InputKind::integer, .help = "step to report (1-based; default: the last)", .example = "6", .optional = true},
      {.name = "samples", .kind = InputKind::integer, .help = "rows of the per-step table", .default_value = "10", .example = "50"},
      {.name = "hidden", .kind = InputKind::integer, .help = "model width for projection FLOPs (default: the model's hidden size)",
       .example = "8192", .catalog = "model.hidden_size", .optional = true, .most = kMaxWidth, .most_why = kModelLimitWhy},
  };
  for (auto& in : arch_inputs()) c.inputs.push_back(in);
  for (auto& in : precision_inputs()) c.inputs.push_back(in);
  c.outputs = {
      {"projections_without_cache", dims::none, "K/V pair projections without a cache: N·P + N(N+1)/2"},
      {"projections_with_cache", dims::none, "with a cache: P + N"},
      {"work_ratio", dims::none, "without / with"},
      {"reads_total", dims::none, "cached pairs read over the generation: N·P + N(N-1)/2"},
      {"reads_at_step", dims::none, "cached pairs step --step reads: P + t - 1"},
      {"computed_at_step", dims::none, "pairs step --step projects with a cache (1)"},
      {"computed_at_step_without_cache", dims::none, "pairs step --step projects without a cache: P + t"},
      {"positions_at_step", dims::token, "positions the cache holds after step --step: P + t"},
      {"flops_without_cache", dims::flop, "K/V projection FLOPs without a cache, all layers and heads"},
      {"flops_with_cache", dims::flop, "with a cache"},
      {"bytes_read_total", dims::information, "cache bytes read over the generation"},
      {"bytes_read_at_step", dims::information, "cache bytes step --step reads"},
  };
  c.run = run_work;
  c.source = __FILE__;
  c.tables = {
      {"steps", "work per decode step, per layer and KV head"},
  };
  return c;
}

}  // namespace infracalc::kv
