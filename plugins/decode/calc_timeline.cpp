// `decode timeline`: the same GPUs cut several ways (TP8, TP4xPP2, DP8, ...): who computes, who
// communicates, who waits over one steady-state decode round or one prefill, and how often each sequence
// gets a token.
#include <fmt/format.h>

#include "host/context.hpp"
#include "host/number_list.hpp"
#include "plugins/decode/decode_calculators.hpp"
#include "plugins/decode/decode_inputs.hpp"
#include "plugins/decode/decode_step_common.hpp"
#include "plugins/decode/decode_timeline.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::decode {

namespace {

const char* state_name(GpuState s) {
  return s == GpuState::compute ? "compute" : s == GpuState::communicate ? "communicate" : "wait";
}

std::vector<Layout> layouts_of(Context& ctx, const Workload& w, int gpus, double batch) {
  std::vector<Layout> out;
  for (const std::string& item : split_list(ctx.text("layouts"))) {
    auto l = parse_layout(item);
    if (!l) throw UserError{{"--layouts: " + l.error().message, l.error().hint}};
    const std::int64_t n = static_cast<std::int64_t>(l->tp) * l->pp * l->dp;
    if (n != gpus)
      throw UserError{{fmt::format("--layouts: {} uses {} GPUs, not --gpus {}", layout_name(*l), n, gpus), "tp x pp x dp must equal --gpus"}};
    if (w.arch && w.arch->attention_heads % l->tp != 0)
      throw UserError{{fmt::format("--layouts: {} splits {} query heads {} ways", layout_name(*l), w.arch->attention_heads, l->tp),
                       "tensor parallelism splits whole heads: a TP that divides the head count"}};
    if (w.arch && l->pp > w.arch->layers)
      throw UserError{{fmt::format("--layouts: {} has more stages than the {} layers", layout_name(*l), w.arch->layers), "fewer pipeline stages"}};
    if (batch < l->dp)
      throw UserError{{fmt::format("--batch {:g} leaves {} of {}'s replicas without a sequence", batch, l->dp - static_cast<int>(batch), layout_name(*l)),
                       "give at least one sequence per replica"}};
    out.push_back(*l);
  }
  if (out.empty()) throw UserError{{"--layouts names no layout", "e.g. TP8,TP4xPP2,DP8"}};
  return out;
}

void run_timeline(Context& ctx) {
  const Workload w = *resolve_workload(ctx, true);
  const Roof roof = resolve_roof(ctx, false);
  const std::optional<Link> link = resolve_link(ctx);
  const double batch = batch_of(ctx);
  const Tokens tokens = ctx.get<Tokens>("tokens");
  const bool prefill = ctx.text("phase") == "prefill";
  if (prefill && tokens.value() < 1) throw UserError{{"--tokens: a prefill needs a prompt of at least one token", "e.g. --tokens 2k"}};
  const int gpus = ctx.count("gpus");
  const std::vector<Layout> layouts = layouts_of(ctx, w, gpus, batch);
  const int micro = ctx.has("micro_batches") ? ctx.count("micro_batches") : 0;

  Table summary{"layouts", prefill ? "one prefill of every prompt, each layout" : "one steady-state decode round, each layout",
                {{"layout", {}, {}}, {"replica_batch", dims::none, {}}, {"micro_batches", dims::none, {}}, {"stage_compute", dims::time, {}},
                 {"stage_communicate", dims::time, {}}, {"hand_over", dims::time, {}}, {"round", dims::time, {}},
                 {"per_sequence", dims::frequency, prefill ? "1/s" : "tok/s"}, {"total", dims::token_rate, {}},
                 {"compute", dims::none, "%"}, {"communicate", dims::none, "%"}, {"wait", dims::none, "%"}},
                {}};
  Table timeline{"timeline", "each GPU over one round (times from the start of the round)",
                 {{"layout", {}, {}}, {"gpu", dims::none, {}}, {"start", dims::time, {}}, {"end", dims::time, {}}, {"state", {}, {}},
                  {"micro_batch", dims::none, {}}},
                 {}};
  std::size_t best = 0;
  std::vector<LayoutRound> rounds;
  for (const auto& l : layouts) {
    if (micro > 0 && l.pp > 1 && micro < l.pp)
      ctx.note(fmt::format("{}: {} micro-batches cannot fill {} stages: stages wait", layout_name(l), micro, l.pp));
    rounds.push_back(simulate_layout(w, roof, link, l, batch, tokens, prefill, l.pp > 1 ? micro : 1));
    const LayoutRound& r = rounds.back();
    if (r.total > rounds[best].total) best = rounds.size() - 1;
    summary.rows.push_back({layout_name(l), Quantity::number(r.replica_batch), Quantity::number(r.micro_batches), to_quantity(r.stage_compute),
                            to_quantity(r.stage_communicate), to_quantity(r.hand_over), to_quantity(r.round), to_quantity(r.per_sequence),
                            to_quantity(r.total), Quantity::number(r.compute_share), Quantity::number(r.communicate_share),
                            Quantity::number(r.wait_share)});
    for (const auto& s : r.segments)
      timeline.rows.push_back({layout_name(l), Quantity::number(s.gpu), to_quantity(s.start), to_quantity(s.end), std::string(state_name(s.state)),
                               s.micro_batch >= 0 ? Cell{Quantity::number(s.micro_batch)} : Cell{std::string("-")}});
  }
  ctx.add_table(std::move(summary));
  ctx.add_table(std::move(timeline));
  const LayoutRound& b = rounds[best];
  ctx.set("best_total", b.total);
  ctx.set("best_round", b.round);
  ctx.set("best_per_sequence", b.per_sequence);
  ctx.note(fmt::format("most {} per second: {} ({}); each sequence gets {} every {}", prefill ? "prompt tokens" : "tokens", layout_name(b.layout),
                       ctx.quote(b.total), prefill ? "its first token" : "a token", ctx.quote(b.round)));
  ctx.note("stages split the layers evenly, the embedding and output head with them; compute = max(bytes / bandwidth, operations / "
           "peak) of a stage's share of the step (the ceiling roof); all-reduces follow the ring model over the link; a pipeline "
           "hands each micro-batch's activations to the next stage over the same link");
  if (!link && gpus > 1) ctx.note("no link known: communication and hand-overs cost nothing (give --link or --link-bandwidth)");
  if (!prefill)
    ctx.note("decode: the round is the time between two tokens of one sequence once the pipeline is full (three rounds simulated, "
             "the last shown); with pp stages each micro-batch reads its stage's weights once per round");
}

}  // namespace

Calculator timeline_calculator() {
  Calculator c;
  c.name = "timeline";
  c.summary = "the same GPUs as TP8, TP4xPP2, DP8 (any layouts): who computes, communicates and waits; tokens per sequence per second";
  c.description =
      "For each layout (tp x pp x dp = --gpus) an event simulation of one replica: --batch sequences split over the dp replicas "
      "and over micro-batches (default pp), each stage computing its 1/pp of the layers for a micro-batch at the roofline "
      "(max of bytes / bandwidth and operations / peak on tp devices), then its tensor-parallel all-reduces, then handing the "
      "activations to the next stage. Decode runs three rounds and shows the last, steady-state one: the round is the time "
      "between two tokens of one sequence. Prefill shows one pass of every prompt.";
  c.refs = model_gpu_refs();
  c.refs.push_back({"link", {"interconnect"}, "scale-up link from the catalog (sets --link-bandwidth)"});
  c.inputs = join(join(model_inputs(), device_inputs(true)), link_inputs());
  c.inputs.push_back({.name = "gpus", .kind = InputKind::integer, .help = "GPUs the layouts share", .default_value = "8", .example = "16",
                      .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "layouts", .kind = InputKind::text, .help = "comma-separated layouts, tp x pp x dp = --gpus",
                      .default_value = "TP8,TP4xPP2,DP8", .example = "TP8,TP2xPP4,TP2xDP4"});
  c.inputs.push_back({.name = "batch", .kind = InputKind::integer, .help = "sequences in flight over all GPUs", .default_value = "64",
                      .example = "256", .most = kMaxBatch, .most_why = kBatchWhy});
  c.inputs.push_back({.name = "tokens", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "context per sequence (decode) or prompt length (prefill)", .default_value = "2048", .example = "8k",
                      .bound = Bound::non_negative});
  c.inputs.push_back({.name = "phase", .kind = InputKind::choice, .help = "decode (steady-state rounds) or prefill (one pass)",
                      .default_value = "decode", .choices = {"decode", "prefill"}});
  c.inputs.push_back({.name = "micro_batches", .kind = InputKind::integer,
                      .help = "micro-batches per replica under pipeline parallelism (default: the stage count)", .example = "8",
                      .optional = true, .most = kMaxBatch, .most_why = kBatchWhy});
  c.outputs = {
      {"best_total", dims::token_rate, "tokens per second of the best layout, all GPUs together"},
      {"best_round", dims::time, "the best layout's round: time between two tokens of a sequence (prefill: the pass)"},
      {"best_per_sequence", dims::frequency, "tokens each sequence gets per second under the best layout", "1/s"},
  };
  c.run = run_timeline;
  c.source = __FILE__;
  c.chart = Chart::timeline;  // --plot FILE.svg: one row per GPU from the table `timeline`
  c.tables = {
      {"layouts", "one round of each layout: busy, waiting and communicating time, tokens per request"},
      {"timeline", "each GPU over one round, interval by interval"},
  };
  return c;
}

}  // namespace infracalc::decode
