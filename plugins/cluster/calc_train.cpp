// cluster train: training FLOPs (6·N·D plus the attention term), the device count for a deadline or the
// time for a count, accelerator-hours, and MFU against HFU under activation recomputation.
#include <cmath>
#include <fmt/format.h>

#include "plugins/cluster/cluster_calculators.hpp"
#include "plugins/cluster/cluster_hw.hpp"
#include "plugins/cluster/cluster_math.hpp"
#include "plugins/cluster/train_work.hpp"
#include "host/catalog_input.hpp"
#include "units/counts.hpp"
#include "plugins/fit/fit_model.hpp"
#include "units/format.hpp"

namespace infracalc::cluster {

namespace {

// Above this many accelerators a constant MFU gets a warning: the largest published runs (Llama 3 405B on
// 16,384 H100s, 38-43% MFU) already lose MFU and goodput to scale.
constexpr double kMfuScaleWarning = 10'000;

// The training work: the model's 6·N·D plus attention over --tokens, or --training-flops.
struct Work {
  std::optional<fit::ResolvedModel> model;
  Flops dense;
  Flops attention;
  Flops total;
};

Work resolve_work(Context& ctx) {
  const bool sized = ctx.ref("model") != nullptr || ctx.has("params") || ctx.has("layers");
  if (!sized && !ctx.has("training_flops"))
    throw UserError{{"missing the work", "give --params N --tokens D (e.g. --params 70e9 --tokens 15e12), --model ID --tokens D, "
                                         "or --training-flops 6.3e24"}};
  std::optional<fit::ResolvedModel> model;
  if (sized) model = fit::resolve_model(ctx, false);
  const Flops zero = from_base<Flops>(0);
  Flops dense = zero, attention = zero;
  if (model) {
    if (!ctx.has("tokens")) throw UserError{{"missing --tokens (training tokens D)", "e.g. --tokens 15e12 or --tokens 15T"}};
    const Tokens d = ctx.get<Tokens>("tokens");
    const TrainingWork w = training_work(ctx, *model, d);
    dense = w.dense;
    attention = w.attention;
    ctx.set_number("params", model->params);
    ctx.set_number("active_params", model->active);
    ctx.set("flops_6nd", dense);
    if (w.attention_counted) ctx.set("attention_flops", attention);
    if (model->active < model->params)
      ctx.note(fmt::format("MoE: 6·N·D uses the {} active parameters per token, not the {} total", ctx.quote_count(model->active),
                           ctx.quote_count(model->params)));
    const double chinchilla = 20.0 * model->params;
    ctx.set("chinchilla_tokens", from_base<Tokens>(chinchilla));
    ctx.set_number("tokens_per_param", d.value() / model->params);
  }
  const Flops work = ctx.has("training_flops") ? ctx.get<Flops>("training_flops") : dense + attention;
  if (ctx.has("training_flops") && model)
    ctx.note(fmt::format("--training-flops {} replaces the {} the model and tokens give", ctx.quote(work), ctx.quote(dense + attention)));
  ctx.set("training_flops", work);
  if (ctx.has("tokens")) ctx.set("flops_per_token", work / ctx.get<Tokens>("tokens"));
  return {std::move(model), dense, attention, work};

}

// The MFU: --mfu, or the one an --achieved-token-rate on --gpus implies (model FLOP/s over peak FLOP/s).
double resolve_mfu(Context& ctx, Flops work, FlopsPerSecond peak) {
  double mfu = ctx.number("mfu");
  if (ctx.has("achieved_token_rate")) {
    // MFU = achieved model FLOP/s / peak FLOP/s (Chowdhery et al. 2022, PaLM, appendix B).
    if (!ctx.has("gpus")) throw UserError{{"--achieved-token-rate needs --gpus (the accelerators that reached it)", "e.g. --gpus 4096"}};
    if (!ctx.has("tokens")) throw UserError{{"--achieved-token-rate needs --tokens (for the FLOPs per token)", "e.g. --tokens 15T"}};
    if (ctx.origin("mfu") == Origin::flag) throw UserError{{"give --mfu or --achieved-token-rate, not both", "the rate implies the MFU"}};
    const FlopsPerToken per_token = work / ctx.get<Tokens>("tokens");
    mfu = (per_token * ctx.get<TokensPerSecond>("achieved_token_rate") / (static_cast<double>(ctx.integer("gpus")) * peak)).value();
    ctx.note(fmt::format("MFU from the achieved rate: {} x {} / ({} x {}) = {}", ctx.quote(per_token),
                         ctx.quote(ctx.quantity("achieved_token_rate")), ctx.quote_count(static_cast<double>(ctx.integer("gpus"))),
                         ctx.quote(peak), ctx.quote_percent(mfu)));
    if (mfu > 1.0)
      throw UserError{{fmt::format("--achieved-token-rate implies {:.3g}% of the peak", 100 * mfu),
                       "above 100%: check the rate, --gpus, --precision and the model"}};
  }

  return mfu;
}

// A note when the training state cannot fit the accelerators even fully sharded.
void note_state_fits(Context& ctx, const fit::ResolvedModel& model, const Entry& gpu, double gpus) {
  // The training state must fit somewhere: mixed-precision AdamW holds 2 + 2 + 4 + 8 = 16 bytes per parameter
  // (ZeRO, Rajbhandari et al. 2020, section 3.1), even with every byte sharded across all accelerators (ZeRO-3).
  const double hidden = model.arch ? static_cast<double>(model.arch->hidden_size) : 0.0;
  const fit::StatePerParam per = fit::state_per_param(fit::Optimizer::adamw, from_base<Bytes>(2), from_base<Bytes>(2), true, hidden);
  const Bytes state = per.total * model.params;
  if (const auto mem = device_memory_of(ctx, gpu); mem && state > mem->bytes * gpus)
    ctx.note(fmt::format("implausible: the mixed-precision Adam training state of {} parameters ({} each: "
                         "weights, gradients, FP32 master and moments; ZeRO, Rajbhandari et al. 2020) is {}, more than the {} "
                         "of --gpus {} ({} each of {}) even fully sharded (ZeRO-3), before activations: holding it takes at "
                         "least {} accelerators (see fit train)",
                         ctx.quote_count(model.params), ctx.quote(per.total), ctx.quote(state), ctx.quote(mem->bytes * gpus),
                         ctx.quote_count(gpus), ctx.quote(mem->bytes), gpu.id(), ctx.quote_count(std::ceil((state / mem->bytes).value()))));
}

// Published model and hardware FLOPs utilisation beside this run's.
Table utilisation_table(const Context& ctx, double mfu, double hw_ratio, const Entry* gpu) {
  Table t{"utilisation", "published model and hardware FLOPs utilisation",
          {{"run"}, {"hardware"}, {"mfu", dims::none}, {"mfu_published"}, {"hfu", dims::none}, {"source"}}, {}};
  for (const auto& ref : utilisation_references()) {
    const std::string published = ref.mfu_low == ref.mfu_high ? ctx.quote_percent(ref.mfu_low)
                                                              : ctx.quote_number(100 * ref.mfu_low) + "-" + ctx.quote_percent(ref.mfu_high);
    // A run that published no HFU shows "-", never a 0 that reads as a measurement.
    const Cell hfu = ref.hfu > 0 ? Cell{Quantity::number(ref.hfu)} : Cell{std::string("-")};
    t.rows.push_back({std::string(ref.run), std::string(ref.hardware), Quantity::number(ref.mfu_high), published, hfu,
                      std::string(ref.source)});
  }
  t.rows.push_back({std::string("this run"), std::string(gpu ? gpu->id() : "--peak"), Quantity::number(mfu),
                    std::string("--mfu"), Quantity::number(mfu * hw_ratio), std::string("--recompute " + ctx.text("recompute"))});
  return t;
}

void run_train(Context& ctx) {
  const Work w = resolve_work(ctx);
  const std::optional<fit::ResolvedModel>& model = w.model;
  const Flops dense = w.dense, attention = w.attention, work = w.total;
  std::optional<FlopsPerSecond> peak_opt;
  const Entry* gpu = ctx.ref("gpu");
  if (ctx.has("peak")) peak_opt = ctx.get<FlopsPerSecond>("peak");
  else if (gpu) peak_opt = catalog_peak(ctx, *gpu, ctx.text("precision"));
  if (!peak_opt) throw UserError{{"missing the accelerator's peak", "give --gpu ID (dense peak at --precision) or --peak 989TFLOP/s"}};
  const FlopsPerSecond peak = *peak_opt;
  ctx.set("peak", peak);
  const double mfu = resolve_mfu(ctx, work, peak);
  const bool has_count = ctx.has("gpus");
  std::optional<Seconds> deadline;
  if (ctx.has("days") && ctx.has("duration"))
    throw UserError{{"--days and --duration both set the deadline", "give one of them"}};
  if (ctx.has("days")) deadline = from_base<Seconds>(ctx.number("days") * 86400.0);
  if (ctx.has("duration")) deadline = ctx.get<Seconds>("duration");
  if (!has_count && !deadline)
    throw UserError{{"missing the device count or the deadline", "give --gpus N for the time, or --days T / --duration 90d for the count"}};

  double gpus = 0;
  Seconds duration = from_base<Seconds>(0);
  if (has_count) {
    gpus = static_cast<double>(ctx.integer("gpus"));
    duration = run_time(work, gpus, peak, mfu);
    if (deadline) {
      const double need = (work / (gpus * *deadline * peak)).value();
      ctx.set_number("mfu_required", need);
      const bool ok = need <= mfu;
      ctx.verdict("meets_deadline", ok,
                  fmt::format("{} accelerators need {} MFU to finish in {}; --mfu is {}", ctx.quote_count(gpus), ctx.quote_percent(need),
                              ctx.quote(*deadline, "d"), ctx.quote_percent(mfu)));
      if (need > 1.0) ctx.note("the deadline needs more than 100% of peak: add accelerators or time");
    }
  } else {
    const double exact = devices_for(work, *deadline, peak, mfu);
    gpus = static_cast<double>(whole_count(exact, Rounding::up,
                                           {ctx.has("days") ? "--days" : "--duration", "accelerators",
                                            "a later deadline, or less work (--tokens, --training-flops)"}));
    duration = run_time(work, gpus, peak, mfu);
    ctx.set_number("gpus_unrounded", exact);
    ctx.note(fmt::format("{} accelerators would finish exactly on the deadline (gpus_unrounded); rounded up to whole accelerators, {} "
                         "take {}",
                         format_number(exact, 7), ctx.quote_count(gpus), ctx.quote(duration, "d")));
  }
  ctx.set_number("gpus", gpus);
  ctx.set("duration", duration);
  if (model && gpu != nullptr) note_state_fits(ctx, *model, *gpu, gpus);
  if (gpus > kMfuScaleWarning)
    ctx.note(fmt::format("implausible at this scale: --mfu {} is held constant, but above {} accelerators MFU falls with "
                         "scale (more communication per step, stragglers: Llama 3 405B ran 43% on 8,192 H100s and 38-41% on 16,384, "
                         "Llama Team 2024 table 4) and goodput falls with the fleet's failure rate (419 unexpected interruptions "
                         "in 54 days on those 16,384): size the goodput with cluster failures and lower --mfu",
                         ctx.quote_percent(mfu), ctx.quote_count(kMfuScaleWarning)));
  const Seconds gpu_time = work / (peak * mfu);
  ctx.set("gpu_time", gpu_time);
  ctx.note(fmt::format("gpu_time is {} accelerator-hours", ctx.quote_count(std::round(gpu_time.value() / 3600.0))));
  ctx.set("sustained_rate", gpus * peak * mfu);
  if (ctx.has("tokens")) ctx.set("token_rate", ctx.get<Tokens>("tokens") / duration);

  const fit::Recompute r = fit::recompute_of(ctx.text("recompute"));
  const double hw_ratio = hardware_per_model_flop(r, ctx.has("training_flops") ? work : dense + attention, attention);
  ctx.set_number("mfu", mfu);
  ctx.set_number("hfu", mfu * hw_ratio);
  ctx.set("hardware_flops", work * hw_ratio);
  ctx.note(fmt::format("MFU counts the model's FLOPs (6·N·D + attention) against peak; HFU counts what the hardware executes, "
                       "recomputation included: '{}' recomputation runs {}x the model FLOPs{}",
                       ctx.text("recompute"), ctx.quote_number(hw_ratio),
                       r == fit::Recompute::full ? " (every forward twice)"
                       : r == fit::Recompute::selective ? (attention.value() > 0 ? " (the attention-score forward twice)"
                                                                                 : " (it re-runs attention scores, which count only with a model)")
                                                        : ""));
  ctx.note("the MFU is a whole-run average: failures, restarts, checkpoints and slow steps are inside it (see cluster failures)");

  Table t = utilisation_table(ctx, mfu, hw_ratio, gpu);
  ctx.note("utilisation table: hfu \"-\" where the run published none");
  ctx.add_table(std::move(t));
}

}  // namespace

Calculator train_calculator() {
  Calculator c;
  c.name = "train";
  c.summary = "training FLOPs (6·N·D + attention), accelerators for a deadline or days for a count, accelerator-hours, MFU vs HFU";
  c.description =
      "FLOPs = 6·N·D (2 forward + 4 backward per parameter per token; Kaplan et al. 2020, Hoffmann et al. 2022 appendix F), "
      "N the active parameters for MoE, plus, when the architecture is known, the attention scores: 3 x 2 x context x heads x "
      "(d_qk + d_v) per layer per token (PaLM's 12·L·H·Q·T; --attention-count causal halves it roughly). time = FLOPs / "
      "(gpus x peak x MFU); gpus = ceil(FLOPs / (deadline x peak x MFU)). HFU = MFU x hardware/model FLOPs: full "
      "recomputation adds one forward (x4/3), selective only the attention-score forward. Leaves out embeddings lookups, "
      "norms, softmax and optimizer FLOPs; MFU is a whole-run average.";
  c.refs = {{"model", {"model"}, "model id: parameters (active for MoE) and the architecture for the attention term"},
            {"gpu", {"accelerator"}, "accelerator id: dense peak at --precision"}};
  c.inputs = fit::model_inputs();
  c.inputs.push_back({.name = "tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "training tokens D",
                      .example = "15e12", .optional = true});
  c.inputs.push_back({.name = "training_flops", .kind = InputKind::quantity, .dim = dims::flop,
                      .help = "the run's total FLOPs, replacing 6·N·D + attention", .example = "6.3e24", .optional = true});
  for (auto& in : training_work_inputs()) c.inputs.push_back(std::move(in));
  c.inputs.push_back(precision_input());
  for (auto& in : hardware_inputs())
    if (in.name == "peak") c.inputs.push_back(in);
  c.inputs.push_back({.name = "gpus", .kind = InputKind::integer, .help = "accelerators in the run (gives the time)",
                      .example = "4096", .optional = true});
  c.inputs.push_back({.name = "days", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "deadline in days (gives the accelerator count)", .example = "90", .optional = true});
  c.inputs.push_back({.name = "duration", .kind = InputKind::quantity, .dim = dims::time,
                      .help = "deadline as a time (gives the accelerator count)", .example = "90d", .optional = true});
  c.inputs.push_back({.name = "mfu", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "model FLOPs utilisation averaged over the run (frontier runs: 38-46%)", .default_value = "0.4",
                      .example = "40%", .bound = Bound::fraction});
  c.inputs.push_back({.name = "achieved_token_rate", .kind = InputKind::quantity, .dim = dims::token_rate,
                      .help = "measured training tokens per second of the whole run: gives the MFU it implies (with --gpus and "
                              "--tokens) instead of --mfu",
                      .example = "2.5Mtok/s", .optional = true});
  c.inputs.push_back({.name = "recompute", .kind = InputKind::choice,
                      .help = "activation recomputation, for HFU: none, selective (attention scores), full (every layer)",
                      .default_value = "selective", .choices = {"none", "selective", "full"}});
  c.outputs = {
      {"params", dims::none, "total parameters"},
      {"active_params", dims::none, "parameters each token uses (N in 6·N·D)"},
      {"flops_6nd", dims::flop, "6 x active parameters x tokens"},
      {"attention_flops", dims::flop, "attention-score FLOPs over the run (forward and backward)"},
      {"chinchilla_tokens", dims::token, "20 tokens per parameter (Hoffmann et al. 2022's compute-optimal ratio)"},
      {"tokens_per_param", dims::none, "training tokens per parameter"},
      {"training_flops", dims::flop, "model FLOPs of the run"},
      {"flops_per_token", dims::flop_per_token, "model FLOPs per training token"},
      {"peak", dims::flop_rate, "dense peak of one accelerator"},
      {"mfu_required", dims::none, "MFU the given count needs to meet the deadline"},
      {"gpus_unrounded", dims::none, "accelerators that finish exactly on the deadline, before rounding up to whole ones (fractional)"},
      {"gpus", dims::none, "accelerators (rounded up for a deadline)"},
      {"duration", dims::time, "wall time of the run"},
      {"gpu_time", dims::time, "accelerator time: FLOPs / (peak x MFU), independent of the count (a note gives it in accelerator-hours)"},
      {"sustained_rate", dims::flop_rate, "model FLOP/s the whole cluster sustains"},
      {"token_rate", dims::token_rate, "training tokens per second"},
      {"mfu", dims::none, "model FLOPs utilisation"},
      {"hfu", dims::none, "hardware FLOPs utilisation (recomputation counted)"},
      {"hardware_flops", dims::flop, "FLOPs the hardware executes, recomputation included"},
  };
  c.run = run_train;
  c.source = __FILE__;
  c.tables = {
      {"utilisation", "published model and hardware FLOPs utilisation beside this run's"},
  };
  c.verdicts = {
      {"meets_deadline", "the run finishes within --deadline at the given MFU"},
  };
  return c;
}

}  // namespace infracalc::cluster
