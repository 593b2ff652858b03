// cluster pipeline: the bubble of a pipeline schedule in closed form and simulated, the activations the
// first stage keeps in flight, and how layers split over stages.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "plugins/cluster/cluster_calculators.hpp"
#include "plugins/cluster/pipeline.hpp"
#include "plugins/fit/fit_math.hpp"
#include "plugins/fit/fit_model.hpp"

namespace infracalc::cluster {

namespace {

Schedule schedule_of(const std::string& s) {
  if (s == "gpipe") return Schedule::gpipe;
  if (s == "interleaved") return Schedule::interleaved;
  return Schedule::one_f_one_b;
}


// One row per device: a slot per chunk-forward time, "F3" for a forward of micro-batch 3, "B3" for a
// backward (twice as long by default), "--" idle.
Table timeline(const PipeSimResult& r, int stages, double slot) {
  Table t{"timeline", "schedule per device (one column per chunk-forward time; F forward, B backward, -- idle)", {{"device", dims::none}, {"slots"}}, {}};
  const int width = static_cast<int>(std::ceil(r.makespan / slot - 1e-9));
  for (int d = 0; d < stages; ++d) {
    std::vector<std::string> cells(static_cast<std::size_t>(width), "--");
    for (const auto& op : r.ops) {
      if (op.device != d) continue;
      const int a = static_cast<int>(std::llround(op.start / slot)), b = static_cast<int>(std::llround(op.end / slot));
      for (int k = a; k < b && k < width; ++k)
        cells[static_cast<std::size_t>(k)] = fmt::format("{}{}{}", op.backward ? 'B' : 'F', op.microbatch,
                                                         op.chunk > 0 ? fmt::format(".{}", op.chunk) : std::string());
    }
    std::string line;
    for (const auto& c : cells) line += (line.empty() ? "" : " ") + c;
    t.rows.push_back({Quantity::number(d), line});
  }
  return t;
}

// The pipeline's shape as the inputs give it: stages, micro-batches, schedule and model chunks per device.
struct Pipeline {
  int p = 1;
  int m = 1;
  Schedule s = Schedule::one_f_one_b;
  int v = 1;
  double ratio = 2.0;
};

Pipeline read_pipeline(Context& ctx) {
  Pipeline pl;
  pl.p = ctx.count("stages");
  pl.m = ctx.count("microbatches");
  pl.s = schedule_of(ctx.text("schedule"));
  pl.v = pl.s == Schedule::interleaved ? ctx.count("chunks") : 1;
  if (pl.s == Schedule::interleaved && pl.v < 2)
    throw UserError{{"--schedule interleaved needs --chunks 2 or more (model chunks per device)", "e.g. --chunks 2; --chunks 1 is plain 1f1b"}};
  pl.ratio = ctx.number("backward_ratio");
  return pl;
}

// The model's layers when a model or --layers is given (0 otherwise), checked against the stages and chunks.
int read_layers(Context& ctx, const Pipeline& pl, std::optional<fit::ResolvedModel>& model) {
  if (!ctx.ref("model") && !ctx.has("layers")) return 0;
  if (ctx.ref("model") || ctx.has("hidden_size")) model = fit::resolve_model(ctx, false);
  const int layers = model && model->arch ? model->arch->layers : ctx.count("layers");
  if (layers < pl.p)
    throw UserError{{fmt::format("--stages {} exceeds the {} layers", pl.p, layers), "each stage needs at least one layer"}};
  if (pl.s == Schedule::interleaved && layers < pl.p * pl.v)
    throw UserError{{fmt::format("{} stages x {} chunks = {} model chunks, more than the {} layers", pl.p, pl.v, pl.p * pl.v, layers),
                     "lower --chunks"}};
  return layers;
}

// Activations of one micro-batch through one stage, from --activation-per-stage or the fit plugin's per-layer formula.
std::optional<Bytes> activation_per_stage(Context& ctx, const std::optional<fit::ResolvedModel>& model, int layers, int p) {
  if (ctx.has("activation_per_stage")) return ctx.get<Bytes>("activation_per_stage");
  if (!model || !model->arch || model->arch->hidden_size <= 0) return std::nullopt;
  const int tp = ctx.count("tp");
  const fit::ActivationShape a =
      fit::activation_shape(*model->arch, ctx.get<Tokens>("seq"), static_cast<double>(ctx.integer("micro_batch")), tp, p, tp > 1);
  const Bytes per_layer = fit::activation_per_layer(a, fit::recompute_of(ctx.text("recompute")));
  ctx.set("activation_per_layer", per_layer);
  ctx.note(fmt::format("activations per layer from the fit plugin (Korthikanti et al. 2022, '{}' recomputation, seq {}, "
                       "micro-batch {}, tp {}{})",
                       ctx.text("recompute"), ctx.quote(a.seq), ctx.quote_count(a.micro_batch), a.tp, a.sequence_parallel ? " with sequence parallelism" : ""));
  return std::ceil(static_cast<double>(layers) / p) * per_layer;
}

void report_schedules(Context& ctx, const Pipeline& pl, std::optional<Bytes> per_stage) {
  Table cmp{"schedules", "the same pipeline under each schedule",
            {{"schedule"}, {"chunks", dims::none}, {"bubble", dims::none}, {"in_flight", dims::none}}, {}};
  if (per_stage) cmp.columns.push_back({"activations", dims::information});
  auto row = [&](Schedule sc, int chunks) {
    const double f = stage_activations_in_flight(sc, pl.p, pl.m, chunks);
    std::vector<Cell> r = {std::string(schedule_name(sc)), Quantity::number(chunks), Quantity::number(bubble_fraction(pl.p, pl.m, chunks)),
                           Quantity::number(f)};
    if (per_stage) r.push_back(Quantity{f * per_stage->value(), dims::information});
    cmp.rows.push_back(std::move(r));
  };
  row(Schedule::gpipe, 1);
  row(Schedule::one_f_one_b, 1);
  row(Schedule::interleaved, std::max(2, pl.v));
  ctx.add_table(std::move(cmp));
}

void report_stages(Context& ctx, int layers, int p) {
  ctx.set_number("layers_per_stage", std::ceil(static_cast<double>(layers) / p));
  Table st{"stages", "layers on each stage", {{"stage", dims::none}, {"layers"}, {"count", dims::none}}, {}};
  const int shown = std::min(p, 64);
  for (int i = 0; i < shown; ++i) {
    const auto [first, last] = stage_layers(layers, p, i);
    st.rows.push_back({Quantity::number(i + 1), first == last ? fmt::format("{}", first) : fmt::format("{}–{}", first, last),
                       Quantity::number(last - first + 1)});
  }
  ctx.add_table(std::move(st));
  if (layers % p != 0)
    ctx.note(fmt::format("{} layers do not divide over {} stages: the first {} stages hold one more; the slowest stage sets the pace",
                         layers, p, layers % p));
}

void note_schedule(Context& ctx, const Pipeline& pl) {
  ctx.note(fmt::format("bubble = (P - 1) / (v·M + P - 1) = ({} - 1) / ({}·{} + {} - 1) (Narayanan et al. 2021; GPipe and 1F1B have "
                       "the same bubble, 1F1B keeps fewer micro-batches in flight)",
                       pl.p, pl.v, pl.m, pl.p));
  if (pl.m < pl.p)
    ctx.note(fmt::format("{} micro-batches cannot fill {} stages: most of every step is idle; use M >= P, ideally M >= 4P", pl.m, pl.p));
  if (pl.s == Schedule::interleaved)
    ctx.note(fmt::format("interleaving multiplies point-to-point sends between stages by {} and keeps (P - 1)/v extra micro-batches' "
                         "activations on the first device", pl.v));
  ctx.note("the simulator runs one forward of a stage in 1 time unit and a backward in --backward-ratio units; communication is free");
}

void run_pipeline(Context& ctx) {
  const Pipeline pl = read_pipeline(ctx);
  std::optional<fit::ResolvedModel> model;
  const int layers = read_layers(ctx, pl, model);

  const double bubble = bubble_fraction(pl.p, pl.m, pl.v);
  ctx.set_number("bubble_fraction", bubble);
  ctx.set_number("bubble_overhead", bubble / (1.0 - bubble));
  ctx.set_number("efficiency", 1.0 - bubble);

  const bool simulate = static_cast<long>(pl.p) * pl.m * pl.v <= 200'000;
  PipeSimResult sim;
  if (simulate) {
    sim = simulate_pipeline(pl.s, pl.p, pl.m, pl.v, 1.0, pl.ratio);
    ctx.set_number("bubble_simulated", sim.bubble);
    ctx.set_number("in_flight_simulated", static_cast<double>(sim.peak_in_flight[0]) / pl.v);
  } else {
    ctx.note("simulation skipped: stages x micro-batches x chunks above 200,000 operations");
  }
  const double in_flight = stage_activations_in_flight(pl.s, pl.p, pl.m, pl.v);
  ctx.set_number("in_flight", in_flight);

  if (ctx.has("forward_time")) {
    const Seconds tf = ctx.get<Seconds>("forward_time");
    const Seconds ideal = static_cast<double>(pl.m) * (1.0 + pl.ratio) * tf;
    ctx.set("ideal_time", ideal);
    ctx.set("step_time", ideal / (1.0 - bubble));
    ctx.set("bubble_time", ideal / (1.0 - bubble) - ideal);
  }

  const std::optional<Bytes> per_stage = activation_per_stage(ctx, model, layers, pl.p);
  if (per_stage) {
    ctx.set("activation_per_stage", *per_stage);
    ctx.set("activations_in_flight", in_flight * *per_stage);
  }
  report_schedules(ctx, pl, per_stage);
  if (layers > 0) report_stages(ctx, layers, pl.p);
  if (ctx.flag("trace")) {
    if (!simulate || sim.makespan * pl.v > 4000) ctx.note("--trace: too many slots to show; lower --microbatches or --stages");
    else ctx.add_table(timeline(sim, pl.p, 1.0 / pl.v));
  }
  note_schedule(ctx, pl);
}

}  // namespace

Calculator pipeline_calculator() {
  Calculator c;
  c.name = "pipeline";
  c.summary = "pipeline bubble for GPipe, 1F1B and interleaved schedules, simulated step by step; activations in flight";
  c.description =
      "bubble = (P - 1) / (v·M + P - 1) for P stages, M micro-batches and v model chunks per device (v = 1 for GPipe and 1F1B; "
      "Huang et al. 2019, Narayanan et al. 2021). The first stage keeps M micro-batches of activations under GPipe, min(P, M) "
      "under 1F1B and P + (P - 1)/v (in one stage's layers) interleaved (Korthikanti et al. 2022, section 4.3). A simulator "
      "executes the schedule (Megatron-LM's order for interleaving) and measures both. Leaves out communication between "
      "stages, uneven stages and zero-bubble schedules.";
  c.refs = {{"model", {"model"}, "model id: layers (stage split) and the shape for activation memory"}};
  c.inputs = {
      {.name = "stages", .kind = InputKind::integer, .help = "pipeline stages P (devices in one pipeline)", .example = "8", .most = 4096},
      {.name = "microbatches", .kind = InputKind::integer, .help = "micro-batches per step M", .example = "32", .most = 65'536},
      {.name = "schedule", .kind = InputKind::choice, .help = "gpipe, 1f1b or interleaved (1F1B over --chunks model chunks per device)",
       .default_value = "1f1b", .choices = {"gpipe", "1f1b", "interleaved"}},
      {.name = "chunks", .kind = InputKind::integer, .help = "model chunks per device v for --schedule interleaved", .default_value = "2",
       .example = "4", .most = 256},
      {.name = "backward_ratio", .kind = InputKind::quantity, .dim = dims::none, .help = "backward time / forward time",
       .default_value = "2", .example = "3"},
      {.name = "forward_time", .kind = InputKind::quantity, .dim = dims::time,
       .help = "forward time of one micro-batch through one stage (gives step and bubble times)", .example = "20ms", .optional = true},
      {.name = "activation_per_stage", .kind = InputKind::quantity, .dim = dims::information,
       .help = "activations one micro-batch leaves on one stage (default: from --model via the fit plugin)", .example = "4GB",
       .optional = true},
  };
  for (auto& in : fit::model_inputs()) c.inputs.push_back(in);
  c.inputs.push_back({.name = "seq", .kind = InputKind::quantity, .dim = dims::token, .help = "sequence length (activation memory)",
                      .default_value = "4096", .example = "8192"});
  c.inputs.push_back({.name = "micro_batch", .kind = InputKind::integer, .help = "sequences per micro-batch", .default_value = "1", .most = kMaxBatch, .most_why = kBatchWhy});
  c.inputs.push_back({.name = "tp", .kind = InputKind::integer, .help = "tensor-parallel ranks per stage (activation memory)",
                      .default_value = "1", .example = "8", .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "recompute", .kind = InputKind::choice, .help = "activation recomputation: none, selective, full",
                      .default_value = "selective", .choices = {"none", "selective", "full"}});
  c.inputs.push_back({.name = "trace", .kind = InputKind::flag, .help = "add the simulated schedule, slot by slot, as a table"});
  c.outputs = {
      {"bubble_fraction", dims::none, "idle share of a step: (P - 1) / (v·M + P - 1)"},
      {"bubble_overhead", dims::none, "bubble time / useful time: (P - 1) / (v·M)"},
      {"efficiency", dims::none, "1 - bubble"},
      {"bubble_simulated", dims::none, "idle share the simulator measured"},
      {"in_flight", dims::none, "micro-batches' activations (one stage's layers each) the first stage holds at its peak"},
      {"in_flight_simulated", dims::none, "the same, measured by the simulator"},
      {"ideal_time", dims::time, "M x (forward + backward) of one stage"},
      {"step_time", dims::time, "ideal time / (1 - bubble)"},
      {"bubble_time", dims::time, "idle time per step"},
      {"activation_per_layer", dims::information, "activations of one layer for one micro-batch"},
      {"activation_per_stage", dims::information, "activations of one micro-batch on one stage"},
      {"activations_in_flight", dims::information, "activations the first stage holds at its peak"},
      {"layers_per_stage", dims::none, "layers on the busiest stage"},
  };
  c.run = run_pipeline;
  c.source = __FILE__;
  c.tables = {
      {"schedules", "the same pipeline under each schedule"},
      {"stages", "layers on each stage"},
      {"timeline", "the simulated schedule per device, slot by slot (--trace)"},
  };
  return c;
}

}  // namespace infracalc::cluster
