// `cost train`: accelerator rent for a training run, from a fleet and a duration or from the work it must do.
#include <fmt/format.h>

#include "plugins/cluster/train_work.hpp"
#include "plugins/cost/cost_calculators.hpp"
#include "plugins/cost/cost_math.hpp"
#include "plugins/fit/fit_model.hpp"
#include "plugins/tco/tco_inputs.hpp"
#include "plugins/tco/tco_math.hpp"
#include "units/format.hpp"

namespace infracalc::cost {

namespace {


void run_train(Context& ctx) {
  fill_gpu_hour(ctx);
  if (!ctx.has("gpu_hour")) tco::missing(ctx, "gpu_hour", "price of one accelerator-hour", "$2/h", "rental");
  const UsdPerHour price = ctx.get<UsdPerHour>("gpu_hour");
  const double goodput = ctx.number("goodput");
  const bool sized = ctx.ref("model") != nullptr || ctx.has("params") || ctx.has("layers");
  const bool has_work = ctx.has("training_flops") || sized || ctx.has("tokens");
  if (has_work && ctx.has("duration"))
    throw UserError{{"give --duration or the work (--training-flops, or the model with --tokens), not both",
                     "with the work, the duration follows from --gpus, --peak and --mfu"}};
  if (!has_work && !ctx.has("duration"))
    throw UserError{{"missing --duration or the work",
                     "give --gpus N --duration 30d, or --model ID --tokens 15T (or --training-flops 6.3e24) with --peak and --mfu"}};

  Seconds paid;  // accelerator time paid for
  std::optional<double> gpus;
  if (ctx.has("gpus")) {
    gpus = static_cast<double>(ctx.integer("gpus"));
    if (*gpus < 1) throw UserError{{"--gpus must be at least 1", ""}};
  }
  if (ctx.has("duration")) {
    if (!gpus) tco::missing(ctx, "gpus", "accelerators rented", "4096");
    const Seconds wall = ctx.get<Seconds>("duration");
    paid = wall * *gpus;
    ctx.set("duration_used", wall);
    ctx.set("useful_accelerator_time", paid * goodput);
  } else {
    Flops work;
    if (ctx.has("training_flops")) {
      if (sized || ctx.has("tokens"))
        throw UserError{{"give --training-flops or the model with --tokens, not both",
                         "the model and --tokens give the training FLOPs (6·N·D plus the attention term)"}};
      work = ctx.get<Flops>("training_flops");
    } else {
      if (!sized || !ctx.has("tokens"))
        throw UserError{{"the model and --tokens go together (training FLOPs = 6·N·D plus the attention term)",
                         "e.g. --model llama-3.1-405b --tokens 15.6T, or --params 70e9 --tokens 15e12"}};
      // The same work model as cluster train, so the two commands price and time the same run alike.
      work = cluster::training_work(ctx, fit::resolve_model(ctx, false), ctx.get<Tokens>("tokens")).total();
    }
    if (!ctx.has("peak")) tco::missing(ctx, "peak", "peak rate of one accelerator at the training precision", "989TFLOP/s", "gpu");
    if (!ctx.has("mfu")) tco::missing(ctx, "mfu", "achieved share of peak over the run", "40%");
    const Seconds useful = accelerator_time(work, ctx.get<FlopsPerSecond>("peak"), ctx.number("mfu"));
    paid = useful / goodput;
    ctx.set("training_flops_used", work);
    ctx.set("useful_accelerator_time", useful);
    if (gpus) ctx.set("duration_used", paid / *gpus);
  }
  const Usd total = paid * price;
  ctx.set("accelerator_time", paid);
  ctx.set("rent", total);
  if (gpus) ctx.set("burn_rate", price * *gpus);

  ctx.note(fmt::format("rent = {} accelerator-hours x {}", ctx.quote(paid / tco::hour()), ctx.quote(ctx.quantity("gpu_hour"), "$/h")));
  if (has_work)
    ctx.note("accelerator time = FLOPs / (peak x MFU); the rent does not depend on how many accelerators share the work");
  if (goodput < 1)
    ctx.note(fmt::format("{} of the paid time is useful (failures, restarts, checkpoints)", ctx.quote_percent(goodput)));
  ctx.note("left out: storage, networking, staff, data preparation, evaluation and failed runs");
}

}  // namespace

Calculator train_calculator() {
  Calculator c;
  c.name = "train";
  c.summary = "training rent: accelerators x hours x price, or from the run's FLOPs, peak and MFU";
  c.description =
      "rent = gpus x duration x gpu_hour; or accelerator time = FLOPs / (peak x MFU) / goodput with FLOPs = "
      "--training-flops or, from the model and --tokens, cluster train's work model (6·N·D over the active parameters plus "
      "the attention-score term when the architecture is known), and rent = accelerator time x gpu_hour (then duration = accelerator "
      "time / gpus).";
  c.refs = {{"model", {"model"}, "model id: active parameters and the architecture for the attention term"},
            {"gpu", {"accelerator"}, "accelerator id: sets --peak from peak.bf16_dense"},
            rental_ref()};
  c.inputs = {
      {.name = "gpus", .kind = InputKind::integer, .help = "accelerators rented", .example = "4096", .optional = true},
      {.name = "duration", .kind = InputKind::quantity, .dim = dims::time, .help = "wall-clock time they are rented",
       .example = "44.5d", .optional = true},
      {.name = "gpu_hour", .kind = InputKind::quantity, .dim = dims::money_rate, .help = "price of one accelerator-hour; or --rental",
       .example = "$2/h", .optional = true},
      tier_input(),
      {.name = "training_flops", .kind = InputKind::quantity, .dim = dims::flop, .help = "total training work",
       .example = "6.3e24", .optional = true},
      {.name = "tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "training tokens (with the model)",
       .example = "15e12", .optional = true},
      {.name = "peak", .kind = InputKind::quantity, .dim = dims::flop_rate,
       .help = "peak rate of one accelerator at the training precision, dense", .example = "989TFLOP/s",
       .catalog = "gpu.peak.bf16_dense", .optional = true},
      {.name = "mfu", .kind = InputKind::quantity, .dim = dims::none, .help = "achieved share of peak over the whole run",
       .example = "40%", .bound = Bound::fraction, .optional = true},
      {.name = "goodput", .kind = InputKind::quantity, .dim = dims::none,
       .help = "share of the paid time that is useful (failures, restarts)", .default_value = "100%", .example = "90%",
       .bound = Bound::fraction},
  };
  for (auto& in : fit::model_inputs()) c.inputs.push_back(std::move(in));
  for (auto& in : cluster::training_work_inputs()) c.inputs.push_back(std::move(in));
  c.outputs = {
      {"accelerator_time", dims::time, "accelerator-hours paid for", "h"},
      {"rent", dims::currency, "rent for the run"},
      {"duration_used", dims::time, "wall-clock duration (given, or from the work and --gpus)"},
      {"useful_accelerator_time", dims::time, "accelerator-hours of useful work", "h"},
      {"training_flops_used", dims::flop, "training work"},
      {"burn_rate", dims::money_rate, "what the fleet costs per day", "$/d"},
  };
  c.run = run_train;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc::cost
