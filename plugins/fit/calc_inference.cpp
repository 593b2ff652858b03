// fit inference: the per-device memory waterfall of a served model and the limits it implies.
#include <cmath>
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "units/counts.hpp"
#include "plugins/fit/fit_calculators.hpp"
#include "plugins/fit/fit_model.hpp"
#include "plugins/fit/fit_serving.hpp"
#include "plugins/fit/fit_serving_inputs.hpp"
#include "plugins/kv/kv_arch.hpp"
#include "plugins/kv/kv_layout.hpp"

namespace infracalc::fit {

namespace {

Quantity gb(Bytes b) { return to_quantity(b); }

void run_inference(Context& ctx) {
  const ResolvedModel m = resolve_model(ctx, true);
  InferenceSetup s;
  s.arch = *m.arch;
  s.params = m.params;
  s.experts = m.experts;
  fill_weight_format(ctx, "dtype", "expert_dtype");
  s.dtype = &storage_format_of(ctx.text("dtype"), "--dtype");
  s.expert_dtype = ctx.has("expert_dtype") ? &storage_format_of(ctx.text("expert_dtype"), "--expert-dtype") : s.dtype;
  s.kv_dtype = find_storage_format(ctx.text("kv_dtype"));
  read_reserve(ctx, s);
  const int tp = ctx.count("tp");
  const int pp = ctx.count("pp");
  if (s.arch.attention_heads % tp != 0)
    throw UserError{{fmt::format("--tp {} does not divide the {} attention heads", tp, s.arch.attention_heads), "use a divisor of the head count"}};
  if (pp > s.arch.layers) throw UserError{{fmt::format("--pp {} exceeds the {} layers", pp, s.arch.layers), "use at most one stage per layer"}};
  const Tokens context = ctx.get<Tokens>("tokens");
  const double batch = static_cast<double>(ctx.integer("batch"));
  const auto mem = device_memory(ctx);
  if (!mem) throw UserError{{"missing device memory", "give --gpu ID or --memory 80GB"}};
  const double util = ctx.number("memory_utilization");
  const Bytes usable = util * *mem;
  const Waterfall w = inference_waterfall(s, context, batch, tp, pp);

  ctx.set("weights", w.weights);
  ctx.set("kv_cache", w.kv);
  ctx.set("activations", w.activations);
  ctx.set("framework_reserve", w.framework);
  ctx.set("comm_buffers", w.comm);
  ctx.set("total", w.total);
  ctx.set("memory", *mem);
  ctx.set("usable", usable);
  ctx.set("headroom", usable - w.total);
  const auto per_seq = kv::cache_size(s.arch, *s.kv_dtype, context, Number::from_value(1), {tp, pp});
  ctx.set("kv_per_sequence", per_seq.per_device);
  const std::int64_t best_batch = max_batch(s, context, tp, pp, usable);
  ctx.set_number("max_batch", static_cast<double>(best_batch));
  const double best_ctx = max_context(s, batch, tp, pp, usable).value();
  ctx.set("max_context", from_base<Tokens>(best_ctx));
  const int devices_used = tp * pp;
  if (ctx.has("devices")) {
    const auto devices = ctx.integer("devices");
    if (devices % devices_used != 0)
      throw UserError{{fmt::format("--devices {} is not a multiple of tp x pp = {}", devices, devices_used), "each replica needs tp x pp devices"}};
    ctx.set_number("replicas", static_cast<double>(devices / devices_used));
    ctx.set_number("max_batch_all_replicas", static_cast<double>(best_batch * (devices / devices_used)));
  }
  if (const auto lay = min_layout(s, context, batch, usable)) {
    ctx.set_number("min_devices", lay->tp * lay->pp);
    ctx.note(fmt::format("fewest devices for batch {} at {}: {} (tp {} x pp {})", ctx.quote_count(batch), ctx.quote(context), lay->tp * lay->pp,
                         lay->tp, lay->pp));
  } else {
    ctx.note("no layout of up to 4096 devices fits this batch and context");
  }

  Table t{"waterfall", "memory per device", {{"item", {}, {}}, {"bytes", dims::information, {}}, {"cumulative", dims::information, {}},
                                            {"share_of_usable", dims::none, {}}}, {}};
  Bytes cum = from_base<Bytes>(0.0);
  auto row = [&](const char* name, Bytes b) {
    cum += b;
    t.rows.push_back({std::string(name), gb(b), gb(cum), Quantity::number(b.value() / usable.value())});
  };
  row("weights", w.weights);
  row("kv cache", w.kv);
  row("activations + workspace", w.activations);
  row("framework reserve", w.framework);
  row("communication buffers", w.comm);
  ctx.add_table(std::move(t));

  const bool ok = w.total <= usable;
  ctx.verdict("fits", ok,
              fmt::format("{} needed per device of {} usable ({} of {})", ctx.quote(w.total), ctx.quote(usable),
                          ctx.quote_percent(util), ctx.quote(*mem)));
  if (!ok && ctx.flag("require_fit")) ctx.fail_check();

  ctx.note(fmt::format("weights: {} parameters in {} ({} bit/value){}, split over tp {} x pp {}", ctx.quote_count(m.params), s.dtype->name,
                       s.dtype->bits_per_value, s.expert_dtype != s.dtype ? fmt::format(", routed experts in {}", s.expert_dtype->name) : "",
                       tp, pp));
  if (!s.arch.tied_embeddings && s.arch.vocab_size > 0) ctx.note("untied embeddings: the input embedding and the output head are counted as two matrices");
  ctx.note(fmt::format("KV cache: {} layout in {}, {} sequences x {} (kv::cache_size: sliding windows, MLA and TP head split applied)",
                       layout_name(s.arch.layout), s.kv_dtype->name, ctx.quote_count(batch), ctx.quote(context)));
  if (per_seq.ssm_layers > 0) ctx.note(kv::state_space_note(s.arch, per_seq.ssm_state_per_sequence));
  if (!s.activations)
    ctx.note(fmt::format("activations: estimate of one forward step's live tensors, {} per step (decode tokens, or a prefill "
                         "chunk of at most --step-tokens) in BF16, plus FP32 logits; override with --activations",
                         ctx.quote(from_base<Tokens>(std::max(batch, std::min(s.step_tokens.value(), batch * context.value()))))));
  ctx.note("framework reserve, communication buffers and memory utilization are planning defaults (docs/fit.md); override them "
           "with --framework-reserve, --comm-buffers and --memory-utilization");
  if (s.arch.max_context > 0 && best_ctx > static_cast<double>(s.arch.max_context))
    ctx.note(fmt::format("max_context {} is what memory allows; the model is trained for {} tokens", ctx.quote(from_base<Tokens>(best_ctx)),
                         ctx.quote_count(static_cast<double>(s.arch.max_context))));
  kv::note_context_limit(ctx, s.arch, context);
}

}  // namespace

Calculator inference_calculator() {
  Calculator c;
  c.name = "inference";
  c.summary = "per-device memory waterfall of a served model: weights, KV, activations, overhead; largest batch and context";
  c.description =
      "Per device under tp x pp: weights (parameters x bits/value, layers split over stages, matrices over tp) + KV cache "
      "(kv::cache_size) + activations of one forward step + framework reserve + communication buffers, against memory x "
      "memory utilization. Reports the verdict, the largest batch that fits at --tokens, the longest context at --batch, "
      "and the fewest devices.";
  c.refs = {{"model", {"model"}, "model id: architecture and parameter count"},
            {"gpu", {"accelerator"}, "accelerator id: device memory"},
            system_ref("node or rack from the catalog: sets --gpu (its accelerator) and --devices (its accelerators)")};
  c.inputs = model_inputs();
  const auto names = storage_format_names();
  c.inputs.push_back({.name = "dtype", .kind = InputKind::choice,
                      .help = "weight storage format (default: the model's native checkpoint format, else bf16)", .example = "fp8",
                      .choices = names, .optional = true});
  c.inputs.push_back({.name = "expert_dtype", .kind = InputKind::choice, .help = "storage format of routed MoE experts",
                      .example = "mxfp4", .choices = names, .optional = true});
  c.inputs.push_back({.name = "kv_dtype", .kind = InputKind::choice, .help = "KV-cache storage format", .default_value = "bf16",
                      .example = "fp8", .choices = names});
  c.inputs.push_back({.name = "tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "context length per sequence",
                      .example = "8k"});
  c.inputs.push_back({.name = "batch", .kind = InputKind::integer, .help = "sequences resident at once (per replica)",
                      .default_value = "1", .example = "32", .most = kMaxBatch, .most_why = kBatchWhy});
  c.inputs.push_back({.name = "tp", .kind = InputKind::integer, .help = "tensor-parallel devices", .default_value = "1", .example = "8", .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "pp", .kind = InputKind::integer, .help = "pipeline stages", .default_value = "1", .example = "2", .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "devices", .kind = InputKind::integer, .help = "devices in the deployment (a multiple of tp x pp)",
                      .example = "16", .catalog = "system.accelerators", .optional = true});
  for (auto& in : serving_memory_inputs()) c.inputs.push_back(in);
  c.inputs.push_back({.name = "require_fit", .kind = InputKind::flag, .help = "exit 1 when it does not fit"});
  c.outputs = {
      {"weights", dims::information, "weight bytes on the busiest device"},
      {"kv_cache", dims::information, "KV-cache bytes on the busiest device"},
      {"activations", dims::information, "activation and workspace bytes of one forward step"},
      {"framework_reserve", dims::information, "framework reserve"},
      {"comm_buffers", dims::information, "communication buffers (0 on a single device)"},
      {"total", dims::information, "sum per device"},
      {"memory", dims::information, "device memory"},
      {"usable", dims::information, "memory x memory utilization"},
      {"headroom", dims::information, "usable - total (negative: does not fit)"},
      {"kv_per_sequence", dims::information, "KV-cache bytes of one sequence on the busiest device"},
      {"max_batch", dims::none, "largest batch that fits at --tokens (per replica)"},
      {"max_context", dims::token, "longest context per sequence that fits at --batch"},
      {"replicas", dims::none, "model replicas in --devices"},
      {"max_batch_all_replicas", dims::none, "largest batch over all replicas"},
      {"min_devices", dims::none, "fewest devices that fit this batch and context"},
  };
  c.run = run_inference;
  c.source = __FILE__;
  c.tables = {
      {"waterfall", "memory per device, item by item"},
  };
  c.verdicts = {
      {"fits", "weights, KV cache, activations and overhead fit usable device memory"},
  };
  return c;
}

}  // namespace infracalc::fit
