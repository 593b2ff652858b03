// fit weights: parameters × bits per value, scales included, against device memory.
#include <cmath>
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "plugins/fit/fit_calculators.hpp"
#include "plugins/fit/fit_math.hpp"
#include "plugins/fit/fit_model.hpp"

namespace infracalc::fit {

namespace {

void run_weights(Context& ctx) {
  const ResolvedModel m = resolve_model(ctx, false);
  fill_weight_format(ctx, "dtype", "expert_dtype");
  const StorageFormat& dtype = storage_format_of(ctx.text("dtype"), "--dtype");
  const StorageFormat& edtype = ctx.has("expert_dtype") ? storage_format_of(ctx.text("expert_dtype"), "--expert-dtype") : dtype;
  double experts = m.experts;
  if (ctx.has("expert_params")) experts = ctx.number("expert_params");
  if (experts > m.params) throw UserError{{"--expert-params exceeds the total parameters", "expert parameters are part of the total"}};
  if (ctx.has("expert_dtype") && experts == 0)
    throw UserError{{"--expert-dtype needs routed experts", "give --model with experts, --experts N, or --expert-params N"}};
  const Bytes weights = weight_bytes(m.params, experts, dtype, edtype);
  const Bytes naive = element_bytes(m.params - experts, dtype) + element_bytes(experts, edtype);
  ctx.set_number("params", m.params);
  if (m.active != m.params) ctx.set_number("active_params", m.active);
  if (experts > 0) ctx.set_number("expert_params", experts);
  ctx.set("weights", weights);
  ctx.set("bytes_per_param", weights / m.params);
  ctx.set("naive_weights", naive);
  ctx.set("scale_overhead", weights - naive);
  if (dtype.bits_per_value != dtype.element_bits)
    ctx.note(fmt::format("{} stores {} bits per value ({} bit elements + scales: {}), so the weights take {}, not the "
                         "{} of a naive {} B/param",
                         dtype.name, dtype.bits_per_value, dtype.element_bits, dtype.note, ctx.quote(weights),
                         ctx.quote(naive), dtype.element_bits / 8));
  if (experts > 0 && ctx.has("expert_dtype"))
    ctx.note(fmt::format("routed experts ({} parameters) in {}, the other {} in {}", ctx.quote_count(experts), edtype.name,
                         ctx.quote_count(m.params - experts), dtype.name));
  if (const auto mem = device_memory(ctx)) {
    const double devices = ctx.has("devices") ? static_cast<double>(ctx.integer("devices")) : 1.0;
    const Bytes capacity = devices * *mem;
    ctx.set("memory", *mem);
    ctx.set("capacity", capacity);
    ctx.set("headroom", capacity - weights);
    ctx.set_number("min_devices", static_cast<double>(min_devices(weights, *mem)));
    const bool fits = weights <= capacity;
    ctx.verdict("fits", fits,
                fmt::format("weights {} {} of {}{}; KV cache, activations and runtime overhead come on top (fit inference)",
                            fits ? "fit in" : "exceed", ctx.quote(weights), ctx.quote(capacity),
                            devices > 1 ? fmt::format(" ({} devices)", ctx.quote_count(devices)) : ""));
    ctx.note(fmt::format("min_devices = ceil({} / {}) assumes the weights shard evenly with nothing else resident", ctx.quote(weights),
                         ctx.quote(*mem)));
    if (!fits && ctx.flag("require_fit")) ctx.fail_check();
  } else if (ctx.flag("require_fit")) {
    throw UserError{{"--require-fit needs device memory", "give --gpu ID or --memory 80GB"}};
  }
}

}  // namespace

Calculator weights_calculator() {
  Calculator c;
  c.name = "weights";
  c.summary = "weight bytes at a precision (block scales included), the fit verdict and the minimum devices";
  c.description =
      "weights = parameters x bits per value / 8, where bits per value includes block and group scales (NVFP4 4.5, MXFP4 "
      "4.25, INT4 with an FP16 scale per 128: 4.125). min_devices = ceil(weights / device memory). MoE routed experts may "
      "use their own format (--expert-dtype). Parameters come from --params, or are counted from the architecture with "
      "untied input and output embeddings counted twice.";
  c.refs = {{"model", {"model"}, "model id: architecture and parameter count"},
            {"gpu", {"accelerator"}, "accelerator id: device memory"},
            system_ref("node or rack from the catalog: sets --gpu (its accelerator) and --devices (its accelerators)")};
  c.inputs = model_inputs();
  c.inputs.push_back({.name = "dtype", .kind = InputKind::choice,
                      .help = "weight storage format (default: the model's native checkpoint format, else bf16)", .example = "nvfp4",
                      .choices = storage_format_names(), .optional = true});
  c.inputs.push_back({.name = "expert_dtype", .kind = InputKind::choice, .help = "storage format of routed MoE experts",
                      .example = "mxfp4", .choices = storage_format_names(), .optional = true});
  c.inputs.push_back({.name = "expert_params", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "routed-expert parameters (when the architecture is not given)", .example = "114e9", .optional = true});
  c.inputs.push_back({.name = "memory", .kind = InputKind::quantity, .dim = dims::information, .help = "memory per device",
                      .example = "80GB", .catalog = kGpuMemoryCatalog, .optional = true});
  c.inputs.push_back({.name = "devices", .kind = InputKind::integer, .help = "devices the weights are spread over", .example = "72",
                      .catalog = "system.accelerators", .optional = true});
  c.inputs.push_back({.name = "require_fit", .kind = InputKind::flag, .help = "exit 1 when the weights do not fit"});
  c.outputs = {
      {"params", dims::none, "total parameters"},
      {"active_params", dims::none, "parameters one token uses (MoE)"},
      {"expert_params", dims::none, "routed-expert parameters (MoE)"},
      {"weights", dims::information, "weight bytes, scales included"},
      {"bytes_per_param", dims::information, "average bytes per parameter"},
      {"naive_weights", dims::information, "weight bytes counting element bits only (no scales)"},
      {"scale_overhead", dims::information, "bytes of block and group scales"},
      {"memory", dims::information, "memory per device"},
      {"capacity", dims::information, "memory of all --devices"},
      {"headroom", dims::information, "capacity - weights (negative: does not fit)"},
      {"min_devices", dims::none, "devices needed for the weights alone: ceil(weights / memory)"},
  };
  c.run = run_weights;
  c.source = __FILE__;
  c.verdicts = {
      {"fits", "the weights alone fit device memory"},
  };
  return c;
}

}  // namespace infracalc::fit
