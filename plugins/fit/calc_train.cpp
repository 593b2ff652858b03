// fit train: mixed-precision training state sharded by ZeRO, activation memory, per device.
#include <cmath>
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "units/counts.hpp"
#include "plugins/fit/fit_calculators.hpp"
#include "plugins/fit/fit_math.hpp"
#include "plugins/fit/fit_model.hpp"

namespace infracalc::fit {

namespace {

Bytes b(double v) { return from_base<Bytes>(v); }

Bytes dtype_bytes(const std::string& s) { return b(s == "fp32" ? 4.0 : 2.0); }

void run_train(Context& ctx) {
  const ResolvedModel m = resolve_model(ctx, false);
  const Optimizer opt = optimizer_of(ctx.text("optimizer"));
  const std::string& wd = ctx.text("weights_dtype");
  bool master = ctx.text("master") == "yes";
  if (wd == "fp32" && master) {
    master = false;
    ctx.note("FP32 weights are their own master copy: no separate master weights");
  }
  const double hidden = m.arch ? m.arch->hidden_size : 0.0;
  const StatePerParam per = state_per_param(opt, dtype_bytes(wd), dtype_bytes(ctx.text("grads_dtype")), master, hidden);
  const int zero = ctx.count("zero");
  const int tp = ctx.count("tp");
  const int pp = ctx.count("pp");
  int dp = ctx.count("dp");
  if (ctx.has("devices")) {
    const auto devices = ctx.integer("devices");
    if (devices % (static_cast<std::int64_t>(tp) * pp) != 0)
      throw UserError{{fmt::format("--devices {} is not a multiple of tp x pp = {}", devices, tp * pp), "devices = dp x tp x pp"}};
    if (ctx.origin("dp") == Origin::flag && static_cast<std::int64_t>(dp) * tp * pp != devices)
      throw UserError{{fmt::format("--devices {} contradicts --dp {} x --tp {} x --pp {}", devices, dp, tp, pp), "give one of --devices and --dp"}};
    dp = whole_int(static_cast<double>(devices / (static_cast<std::int64_t>(tp) * pp)), Rounding::down,
                   {"--devices", "data-parallel ranks", "give fewer --devices or a larger --tp / --pp"}, 1 << 30);
  }
  if (m.arch && m.arch->attention_heads % tp != 0)
    throw UserError{{fmt::format("--tp {} does not divide the {} attention heads", tp, m.arch->attention_heads), "use a divisor of the head count"}};
  if (zero > 0 && dp == 1) ctx.note("ZeRO shards over data-parallel ranks; with --dp 1 there is nothing to shard over");

  const Bytes state_total = m.params * per.total;
  const double params_per_rank = m.params / (static_cast<double>(tp) * pp);  // Megatron splits matrices over tp, layers over pp
  const ShardedState sh = zero_shard(per, params_per_rank, zero, dp);

  ctx.set_number("params", m.params);
  ctx.set("state_bytes_per_param", per.total);
  ctx.set("state_total", state_total);
  ctx.set_number("ratio_vs_fp16_weights", per.total.value() / 2.0);
  ctx.set("weights_per_device", sh.weights);
  ctx.set("grads_per_device", sh.grads);
  ctx.set("optimizer_per_device", sh.optimizer);
  ctx.set("state_per_device", sh.total);

  Bytes act = b(0);
  if (m.arch && m.arch->hidden_size > 0) {
    ActivationShape a = training_activation_shape(ctx, *m.arch, tp, pp);
    a.sequence_parallel = ctx.text("sequence_parallel") == "yes" && tp > 1;
    const Recompute r = recompute_of(ctx.text("recompute"));
    act = activation_per_device(a, r);
    ctx.set("activations_per_layer", activation_per_layer(a, r));
    ctx.note(fmt::format("activations: Korthikanti et al. 2022 table 2 for '{}' recomputation{}, s = {}, b = {}, h = {}, a = {}, "
                         "16-bit activations; the first 1F1B stage holds all {} layers' worth",
                         ctx.text("recompute"), a.sequence_parallel ? " with sequence parallelism" : "", ctx.quote(a.seq),
                         ctx.quote_count(a.micro_batch), ctx.quote_count(a.hidden), ctx.quote_count(a.heads), ctx.quote_count(a.layers)));
    ctx.note("the formula counts a GPT-style layer (MHA, 4h GeLU MLP, dropout); grouped-query attention and gated MLPs change "
             "the 34 sbh term by tens of percent; FlashAttention removes the 5as/h term, as selective recomputation does");
  } else {
    ctx.note("activations not counted: give --model or --layers, --hidden-size and --heads");
  }
  ctx.set("activations_per_device", act);
  const Bytes reserve = ctx.get<Bytes>("framework_reserve");
  const Bytes total = sh.total + act + reserve;
  ctx.set("framework_reserve", reserve);
  ctx.set("total_per_device", total);

  Table t{"state", "training state per parameter", {{"part", {}, {}}, {"bytes_per_param", dims::information, {}},
                                                    {"sharded_by_zero", {}, {}}}, {}};
  t.rows.push_back({std::string("weights (" + wd + ")"), to_quantity(per.weights), std::string(zero >= 3 ? "yes" : "no")});
  t.rows.push_back({std::string("gradients (" + ctx.text("grads_dtype") + ")"), to_quantity(per.grads), std::string(zero >= 2 ? "yes" : "no")});
  t.rows.push_back({std::string("master weights (fp32)"), to_quantity(per.master), std::string(zero >= 1 ? "yes" : "no")});
  t.rows.push_back({std::string("optimizer moments (" + ctx.text("optimizer") + ")"), to_quantity(per.moments), std::string(zero >= 1 ? "yes" : "no")});
  ctx.add_table(std::move(t));
  ctx.note(fmt::format("state per parameter: {} weights + {} gradients + {} master + {} moments = {} "
                       "(ZeRO, Rajbhandari et al. 2020: 2 + 2 + 12 = 16 for mixed-precision Adam)",
                       ctx.quote(per.weights), ctx.quote(per.grads), ctx.quote(per.master), ctx.quote(per.moments), ctx.quote(per.total)));

  if (const auto mem = device_memory(ctx)) {
    ctx.set("memory", *mem);
    ctx.set("headroom", *mem - total);
    ctx.set_number("min_devices_state", static_cast<double>(min_devices(state_total, *mem)));
    ctx.note(fmt::format("min_devices_state = ceil({} / {}): the state alone, sharded perfectly, nothing else resident",
                         ctx.quote(state_total), ctx.quote(*mem)));
    // Fewest devices with this layout: grow dp until the sharded state plus activations fit (only ZeRO shards with dp).
    int need = 0;
    for (int d = 1; d <= 1 << 20; d = d < 64 ? d + 1 : d * 2) {
      const ShardedState z = zero_shard(per, params_per_rank, zero, d);
      if (z.total + act + reserve <= *mem) {
        need = d;
        break;
      }
      if (zero == 0) break;
    }
    if (need > 0) {
      ctx.set_number("min_devices", static_cast<double>(need) * tp * pp);
      ctx.note(fmt::format("min_devices: dp {} x tp {} x pp {} with ZeRO-{}, activations and the framework reserve included", need, tp, pp, zero));
    } else {
      ctx.note(fmt::format("no data-parallel degree fits with ZeRO-{} at tp {} x pp {}: raise the ZeRO stage, tp or pp, or recompute more",
                           zero, tp, pp));
    }
    const bool ok = total <= *mem;
    ctx.verdict("fits", ok, fmt::format("{} per device of {}", ctx.quote(total), ctx.quote(*mem)));
    if (!ok && ctx.flag("require_fit")) ctx.fail_check();
  } else if (ctx.flag("require_fit")) {
    throw UserError{{"--require-fit needs device memory", "give --gpu ID or --memory 80GB"}};
  }
}

}  // namespace

Calculator train_calculator() {
  Calculator c;
  c.name = "train";
  c.summary = "training memory per device: mixed-precision state sharded by ZeRO, activations, minimum devices";
  c.description =
      "state/param = weights + gradients + FP32 master + optimizer moments (mixed-precision Adam: 2 + 2 + 4 + 8 = 16 B). "
      "ZeRO-1 shards master and moments over dp ranks, ZeRO-2 also gradients, ZeRO-3 also weights; tp and pp split the "
      "parameters. Activations per layer (Korthikanti et al. 2022): sbh(34 + 5as/h) without parallelism, sbh(10 + 24/t + "
      "5as/(ht)) under tensor parallelism, /t with sequence parallelism; selective recomputation drops the 5as/h term; "
      "full recomputation keeps 2sbh per layer.";
  c.refs = {{"model", {"model"}, "model id: architecture and parameter count"},
            {"gpu", {"accelerator"}, "accelerator id: device memory"}};
  c.inputs = model_inputs();
  for (auto& in : optimizer_inputs()) c.inputs.push_back(in);
  c.inputs.push_back({.name = "grads_dtype", .kind = InputKind::choice, .help = "gradient format", .default_value = "bf16",
                      .choices = {"bf16", "fp16", "fp32"}});
  c.inputs.push_back({.name = "zero", .kind = InputKind::integer, .help = "ZeRO stage: 0 none, 1 optimizer, 2 + gradients, 3 + weights",
                      .default_value = "0", .example = "3", .bound = Bound::non_negative, .most = 3, .most_why = "ZeRO stages are 0, 1, 2 and 3"});
  c.inputs.push_back({.name = "dp", .kind = InputKind::integer, .help = "data-parallel ranks (ZeRO shards over them)",
                      .default_value = "1", .example = "64", .most = 1'000'000'000});
  c.inputs.push_back({.name = "tp", .kind = InputKind::integer, .help = "tensor-parallel ranks", .default_value = "1", .example = "8", .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "pp", .kind = InputKind::integer, .help = "pipeline stages", .default_value = "1", .example = "4", .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "devices", .kind = InputKind::integer, .help = "total devices (sets dp = devices / (tp x pp))",
                      .example = "1024", .optional = true});
  c.inputs.push_back({.name = "recompute", .kind = InputKind::choice, .help = "activation recomputation: none, selective, full",
                      .default_value = "selective", .choices = {"none", "selective", "full"}});
  c.inputs.push_back({.name = "sequence_parallel", .kind = InputKind::choice, .help = "Megatron sequence parallelism with tp > 1",
                      .default_value = "yes", .choices = {"yes", "no"}});
  c.inputs.push_back({.name = "seq", .kind = InputKind::quantity, .dim = dims::token, .help = "sequence length",
                      .default_value = "4096", .example = "8k"});
  c.inputs.push_back({.name = "micro_batch", .kind = InputKind::integer, .help = "micro-batch size (sequences per step per device)",
                      .default_value = "1", .example = "2", .most = kMaxBatch, .most_why = kBatchWhy});
  for (auto& in : training_device_inputs()) c.inputs.push_back(in);
  c.outputs = {
      {"params", dims::none, "parameters"},
      {"state_bytes_per_param", dims::information, "training state per parameter"},
      {"state_total", dims::information, "training state of the whole model"},
      {"ratio_vs_fp16_weights", dims::none, "state per parameter / 2 B of FP16 inference weights"},
      {"weights_per_device", dims::information, "weights on one device"},
      {"grads_per_device", dims::information, "gradients on one device"},
      {"optimizer_per_device", dims::information, "master weights and moments on one device"},
      {"state_per_device", dims::information, "training state on one device"},
      {"activations_per_layer", dims::information, "activations of one layer, one micro-batch"},
      {"activations_per_device", dims::information, "activations on the busiest device"},
      {"framework_reserve", dims::information, "framework reserve"},
      {"total_per_device", dims::information, "state + activations + reserve on one device"},
      {"memory", dims::information, "device memory"},
      {"headroom", dims::information, "memory - total per device"},
      {"min_devices_state", dims::none, "ceil(state_total / memory): perfect sharding, state only"},
      {"min_devices", dims::none, "fewest devices with this tp, pp and ZeRO stage, activations included"},
  };
  c.run = run_train;
  c.source = __FILE__;
  c.tables = {
      {"state", "training state per parameter"},
  };
  c.verdicts = {
      {"fits", "the training state fits device memory"},
  };
  return c;
}

}  // namespace infracalc::fit
