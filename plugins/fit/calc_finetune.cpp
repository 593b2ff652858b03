// fit finetune: full, LoRA and QLoRA fine-tuning memory per device, trainable parameters, and the
// accelerator-hours and cost of a dataset.
#include <cmath>
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "units/counts.hpp"
#include "host/words.hpp"
#include "plugins/fit/fit_calculators.hpp"
#include "plugins/fit/fit_lora.hpp"
#include "plugins/fit/fit_math.hpp"
#include "plugins/fit/fit_model.hpp"

namespace infracalc::fit {

namespace {

Bytes bytes_of(double v) { return from_base<Bytes>(v); }

FinetuneMethod finetune_method_of(const std::string& s) {
  if (s == "full") return FinetuneMethod::full;
  if (s == "qlora") return FinetuneMethod::qlora;
  return FinetuneMethod::lora;
}

LoraTargets lora_targets_of(const std::string& s) {
  if (s == "attn") return LoraTargets::attn;
  if (s == "mlp") return LoraTargets::mlp;
  if (s == "qv") return LoraTargets::qv;
  return LoraTargets::all;
}

// What the frozen base and the trained parameters need.
struct Plan {
  double trainable = 0;         // parameters that train
  double adapter_active = 0;    // adapter parameters one token passes through
  Bytes base_per_param;         // frozen base bytes per parameter (0 for full fine-tuning)
  std::string base_format;      // its name
};

Plan trainable_plan(Context& ctx, const ResolvedModel& m, FinetuneMethod method, std::vector<LoraMatrix>& mats) {
  Plan p;
  if (method == FinetuneMethod::full) {
    p.trainable = m.params;
    if (ctx.has("rank") || ctx.has("targets"))
      ctx.note("--rank and --targets describe adapters: full fine-tuning trains every parameter and ignores them");
    if (ctx.has("dtype")) ctx.note("--dtype is the frozen base's format: full fine-tuning has no frozen base (see --weights-dtype)");
    p.base_per_param = bytes_of(0);
    p.base_format = "none";
    return p;
  }
  const double rank = static_cast<double>(ctx.integer("rank"));
  mats = lora_matrices(*m.arch, lora_targets_of(ctx.text("targets")));
  if (mats.empty()) throw UserError{{"no matrix to adapt: the model has no MLP width for --targets mlp", "give --ffn-size, or --targets attn or all"}};
  const ParamCount counted = count_params(*m.arch);
  // When --params overrides the architecture's count, adapters still follow the architecture's matrices.
  p.trainable = lora_params(mats, rank);
  p.adapter_active = lora_params_active(mats, rank);
  if (p.trainable >= counted.total)
    throw UserError{{fmt::format("--rank {:g} gives adapters of {:.4g} parameters, no fewer than the model's {:.4g}", rank, p.trainable, counted.total),
                     "LoRA ranks are small (8-256); a rank near the matrix width is full fine-tuning"}};
  if (ctx.has("dtype")) {
    const StorageFormat& f = storage_format_of(ctx.text("dtype"), "--dtype");
    p.base_per_param = bytes_per_value(f);
    p.base_format = std::string(f.name);
  } else if (method == FinetuneMethod::qlora) {
    p.base_per_param = bytes_of(kNf4DoubleQuantBits / 8.0);
    p.base_format = "nf4 with double quantization";
    ctx.note(fmt::format("QLoRA base in 4-bit NormalFloat with double-quantized block constants: {} per parameter "
                         "(Dettmers et al. 2023, section 3: 4 + 8/64 + 32/(64 x 256)); the adapters and activations stay 16-bit",
                         ctx.quote(p.base_per_param, "bit")));
  } else {
    p.base_per_param = bytes_of(2);
    p.base_format = "bf16";
  }
  return p;
}

// One device's memory as a function of the data-parallel devices the state is sharded over.
struct DeviceMemory {
  StatePerParam per;
  double trainable = 0;
  int zero = 0;
  Bytes base;
  Bytes activations;
  Bytes reserve;
  // ZeRO-3 (FSDP) shards the frozen base with the trained weights.
  Bytes base_on(int devices) const { return zero >= 3 ? base / static_cast<double>(devices) : base; }
  Bytes total_on(int devices) const { return base_on(devices) + zero_shard(per, trainable, zero, devices).total + activations + reserve; }
};

void report_adapters(Context& ctx, const std::vector<LoraMatrix>& mats, const Plan& p, const ResolvedModel& m, Bytes working, Bytes base) {
  Table t{"adapters", "adapted matrices and their low-rank adapters",
          {{"matrix", {}, {}}, {"d_in", dims::none, {}}, {"d_out", dims::none, {}}, {"copies", dims::none, {}},
           {"adapter_params", dims::none, {}}},
          {}};
  const double rank = static_cast<double>(ctx.integer("rank"));
  for (const auto& x : mats)
    t.rows.push_back({x.name, Quantity::number(x.d_in), Quantity::number(x.d_out), Quantity::number(x.copies),
                      Quantity::number(x.copies * rank * (x.d_in + x.d_out))});
  ctx.add_table(std::move(t));
  ctx.note(fmt::format("adapters: r x (d_in + d_out) per adapted matrix (Hu et al. 2021): {} parameters, {} of {}, "
                       "{} in {}; the frozen base of {} holds {}",
                       ctx.quote_count(p.trainable), ctx.quote_percent(p.trainable / m.params), ctx.quote_count(m.params),
                       ctx.quote(p.trainable * working), ctx.text("weights_dtype"), p.base_format, ctx.quote(base)));
}

// The fewest devices whose share fits the device's memory (none without ZeRO when one does not fit).
void report_fit(Context& ctx, const DeviceMemory& dm, Bytes total) {
  const auto mem = device_memory(ctx);
  if (!mem) {
    if (ctx.flag("require_fit")) throw UserError{{"--require-fit needs device memory", "give --gpu ID or --memory 80GB"}};
    return;
  }
  ctx.set("memory", *mem);
  ctx.set("headroom", *mem - total);
  int need = 0;
  for (int d = 1; d <= 1 << 20; d = d < 64 ? d + 1 : d * 2) {
    if (dm.total_on(d) <= *mem) {
      need = d;
      break;
    }
    if (dm.zero == 0) break;
  }
  if (need > 0) ctx.set_number("min_devices", need);
  else ctx.note(fmt::format("no device count fits with ZeRO-{}: raise --zero, recompute more, or shorten --seq", dm.zero));
  const bool ok = total <= *mem;
  ctx.verdict("fits", ok, fmt::format("{} per device of {}", ctx.quote(total), ctx.quote(*mem)));
  if (!ok && ctx.flag("require_fit")) ctx.fail_check();
}

// Arithmetic per token, then the dataset's work, accelerator time and cost when the inputs allow.
void report_compute(Context& ctx, const ResolvedModel& m, const Plan& p, FinetuneMethod method, Tokens seq, int devices) {
  // Attention scores take 12 L s d_attn per token, forward and backward, in every method.
  const double attn = 12.0 * m.arch->layers * seq.value() * static_cast<double>(m.arch->attention_heads) * m.arch->head_dim;
  const FlopsPerToken per_token = from_base<FlopsPerToken>(finetune_flops_per_token(method, m.active, p.adapter_active, attn));
  ctx.set("flops_per_token", per_token);
  if (method != FinetuneMethod::full)
    ctx.note(fmt::format("{} against {} for full fine-tuning: the frozen base computes no weight gradients "
                         "(4N + 6A instead of 6N)",
                         ctx.quote(per_token), ctx.quote(from_base<FlopsPerToken>(finetune_flops_per_token(FinetuneMethod::full, m.active, 0, attn)))));
  if (!ctx.has("dataset_tokens")) return;
  const Tokens tokens = ctx.number("epochs") * ctx.get<Tokens>("dataset_tokens");
  const Flops work = tokens * per_token;
  ctx.set("training_tokens", tokens);
  ctx.set("training_flops", work);
  if (!ctx.has("peak")) {
    ctx.note("no accelerator-hours: give --gpu ID (its dense BF16 peak) or --peak");
    return;
  }
  const FlopsPerSecond peak = ctx.get<FlopsPerSecond>("peak");
  const double mfu = ctx.number("mfu");
  const Seconds gpu_time = work / (peak * mfu);
  ctx.set("gpu_time", gpu_time);
  ctx.set("duration", gpu_time / static_cast<double>(devices));
  if (ctx.has("gpu_hour")) ctx.set("cost", gpu_time * ctx.get<UsdPerHour>("gpu_hour"));
  ctx.note(fmt::format("time = {} / ({} x {} MFU) = {} of accelerator time over {}", ctx.quote(work), ctx.quote(peak),
                       ctx.quote_percent(mfu), ctx.quote(gpu_time, "h"), plural(devices, "device")));
}

void run_finetune(Context& ctx) {
  const ResolvedModel m = resolve_model(ctx, true);
  const FinetuneMethod method = finetune_method_of(ctx.text("method"));
  std::vector<LoraMatrix> mats;
  const Plan p = trainable_plan(ctx, m, method, mats);
  const double base_params = method == FinetuneMethod::full ? 0.0 : m.params;

  const std::string& wd = ctx.text("weights_dtype");
  const Bytes working = bytes_of(wd == "fp32" ? 4.0 : 2.0);
  const bool master = ctx.text("master") == "yes" && wd != "fp32";
  DeviceMemory dm;
  dm.per = state_per_param(optimizer_of(ctx.text("optimizer")), working, working, master, m.arch->hidden_size);
  dm.trainable = p.trainable;
  dm.zero = ctx.count("zero");
  dm.base = base_params * p.base_per_param;
  const int devices = ctx.count("devices");
  if (dm.zero > 0 && devices == 1) ctx.note("ZeRO shards over data-parallel devices; with --devices 1 there is nothing to shard over");
  const ShardedState sh = zero_shard(dm.per, p.trainable, dm.zero, devices);

  ctx.set_number("params", m.params);
  ctx.set_number("trainable_params", p.trainable);
  ctx.set_number("trainable_share", p.trainable / m.params);
  if (method != FinetuneMethod::full) {
    ctx.set_number("reduction", m.params / p.trainable);
    ctx.set_number("adapter_params", p.trainable);
    ctx.set("adapter_bytes", p.trainable * working);
  }
  ctx.set("base_weights", dm.base);
  ctx.set("state_bytes_per_param", dm.per.total);
  ctx.set("trainable_state", p.trainable * dm.per.total);
  ctx.set("base_per_device", dm.base_on(devices));
  ctx.set("state_per_device", sh.total);

  const ActivationShape a = training_activation_shape(ctx, *m.arch, 1, 1);
  const Recompute r = recompute_of(ctx.text("recompute"));
  dm.activations = activation_per_device(a, r);
  ctx.set("activations_per_device", dm.activations);
  ctx.note(fmt::format("activations: Korthikanti et al. 2022 table 2 for '{}' recomputation, s = {}, b = {}, h = {}, 16-bit; "
                       "a frozen base saves the same activations as full training, since gradients must pass through it to "
                       "reach earlier adapters{}",
                       ctx.text("recompute"), ctx.quote(a.seq), ctx.quote_count(a.micro_batch), ctx.quote_count(a.hidden),
                       r == Recompute::full ? " (full recomputation is gradient checkpointing, as Hugging Face and QLoRA recipes use)" : ""));
  dm.reserve = ctx.get<Bytes>("framework_reserve");
  ctx.set("framework_reserve", dm.reserve);
  const Bytes total = dm.total_on(devices);
  ctx.set("total_per_device", total);

  if (!mats.empty()) report_adapters(ctx, mats, p, m, working, dm.base);
  ctx.note(fmt::format("state per trained parameter: {} weights + {} gradients + {} master + {} moments = {} "
                       "(ZeRO, Rajbhandari et al. 2020); only trained parameters carry gradients and optimizer state",
                       ctx.quote(dm.per.weights), ctx.quote(dm.per.grads), ctx.quote(dm.per.master), ctx.quote(dm.per.moments),
                       ctx.quote(dm.per.total)));
  report_fit(ctx, dm, total);
  report_compute(ctx, m, p, method, a.seq, devices);
}

}  // namespace

Calculator finetune_calculator() {
  Calculator c;
  c.name = "finetune";
  c.summary = "fine-tuning memory and cost: full, LoRA and QLoRA; trainable parameters, adapters, accelerator-hours";
  c.description =
      "LoRA (Hu et al. 2021) freezes the base and trains B·A beside each adapted matrix W (d_in x d_out): r x (d_in + d_out) "
      "parameters each. QLoRA (Dettmers et al. 2023) stores the frozen base in 4-bit NormalFloat with double-quantized "
      "constants (4.127 bits per parameter). Per device: frozen base + trained parameters x state per parameter (mixed-precision "
      "AdamW 16 B) sharded by ZeRO + activations (Korthikanti et al. 2022) + framework reserve. Arithmetic per token: 6N for "
      "full fine-tuning, 4N + 6A with adapters (no weight gradients for the frozen base), plus attention scores.";
  c.refs = {{"model", {"model"}, "model id: architecture and parameter count"},
            {"gpu", {"accelerator"}, "accelerator id: device memory and dense BF16 peak"}};
  c.inputs = model_inputs();
  c.inputs.push_back({.name = "method", .kind = InputKind::choice,
                      .help = "full (every parameter trains), lora (16-bit frozen base, adapters train), qlora (4-bit NF4 base)",
                      .default_value = "lora", .choices = {"full", "lora", "qlora"}});
  c.inputs.push_back({.name = "rank", .kind = InputKind::integer, .help = "LoRA rank r (common: 8-64)", .default_value = "16",
                      .example = "64", .bound = Bound::positive, .most = kMaxWidth, .most_why = kModelLimitWhy});
  c.inputs.push_back({.name = "targets", .kind = InputKind::choice,
                      .help = "matrices with adapters: qv (query and value, the LoRA paper's and PEFT's Llama default), attn (q, k, v, "
                              "o), mlp (gate, up, down; every expert), all (both, as QLoRA recommends)",
                      .default_value = "all", .choices = {"qv", "attn", "mlp", "all"}});
  c.inputs.push_back({.name = "dtype", .kind = InputKind::choice,
                      .help = "frozen base format (default bf16 for lora; NF4 with double quantization, 4.127 bits, for qlora)",
                      .example = "int4-g64", .choices = storage_format_names(), .optional = true});
  for (auto& in : optimizer_inputs()) c.inputs.push_back(in);
  c.inputs.push_back({.name = "zero", .kind = InputKind::integer,
                      .help = "ZeRO stage over the data-parallel devices: 1 optimizer, 2 + gradients, 3 + weights, frozen base included (FSDP)",
                      .default_value = "0", .example = "3", .bound = Bound::non_negative, .most = 3, .most_why = "ZeRO stages are 0, 1, 2 and 3"});
  c.inputs.push_back({.name = "devices", .kind = InputKind::integer, .help = "data-parallel devices", .default_value = "1",
                      .example = "8", .bound = Bound::positive, .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "recompute", .kind = InputKind::choice,
                      .help = "activation recomputation: full (gradient checkpointing, the fine-tuning default), selective, none",
                      .default_value = "full", .choices = {"none", "selective", "full"}});
  c.inputs.push_back({.name = "seq", .kind = InputKind::quantity, .dim = dims::token, .help = "sequence length",
                      .default_value = "2048", .example = "4k"});
  c.inputs.push_back({.name = "micro_batch", .kind = InputKind::integer, .help = "sequences per step per device",
                      .default_value = "1", .example = "4", .most = kMaxBatch, .most_why = kBatchWhy});
  for (auto& in : training_device_inputs()) c.inputs.push_back(in);
  c.inputs.push_back({.name = "dataset_tokens", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "tokens in the fine-tuning dataset", .example = "100M", .bound = Bound::positive, .optional = true});
  c.inputs.push_back({.name = "epochs", .kind = InputKind::quantity, .dim = dims::none, .help = "passes over the dataset",
                      .default_value = "1", .example = "3", .bound = Bound::positive});
  c.inputs.push_back({.name = "peak", .kind = InputKind::quantity, .dim = dims::flop_rate,
                      .help = "dense BF16 peak of one device", .example = "989TFLOP/s", .catalog = "gpu.peak.bf16_dense",
                      .optional = true});
  c.inputs.push_back({.name = "mfu", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "model FLOPs utilisation (default 40%, the pretraining figure cluster train uses; small-batch "
                              "adapter runs often reach less)",
                      .default_value = "0.4", .example = "30%", .bound = Bound::fraction});
  c.inputs.push_back({.name = "gpu_hour", .kind = InputKind::quantity, .dim = dims::money_rate,
                      .help = "price of one accelerator-hour, for the cost", .example = "$2.50/h", .bound = Bound::non_negative,
                      .optional = true});
  c.outputs = {
      {"params", dims::none, "parameters of the base model"},
      {"trainable_params", dims::none, "parameters that train"},
      {"trainable_share", dims::none, "trainable / total parameters"},
      {"reduction", dims::none, "total / trainable parameters"},
      {"adapter_params", dims::none, "LoRA adapter parameters"},
      {"adapter_bytes", dims::information, "adapter weights in the working format (what a served adapter adds)"},
      {"base_weights", dims::information, "frozen base weights"},
      {"state_bytes_per_param", dims::information, "training state per trained parameter"},
      {"trainable_state", dims::information, "training state of every trained parameter"},
      {"base_per_device", dims::information, "frozen base on one device"},
      {"state_per_device", dims::information, "training state on one device"},
      {"activations_per_device", dims::information, "activations of one micro-batch"},
      {"framework_reserve", dims::information, "framework reserve"},
      {"total_per_device", dims::information, "base + state + activations + reserve on one device"},
      {"memory", dims::information, "device memory"},
      {"headroom", dims::information, "memory - total per device"},
      {"min_devices", dims::none, "fewest data-parallel devices that fit with this ZeRO stage"},
      {"flops_per_token", dims::flop_per_token, "model FLOPs of one training token"},
      {"training_tokens", dims::token, "dataset tokens x epochs"},
      {"training_flops", dims::flop, "model FLOPs of the run"},
      {"gpu_time", dims::time, "accelerator time at the MFU"},
      {"duration", dims::time, "wall time on --devices"},
      {"cost", dims::currency, "accelerator time x --gpu-hour"},
  };
  c.run = run_finetune;
  c.source = __FILE__;
  c.tables = {
      {"adapters", "adapted matrices and their low-rank adapters"},
  };
  c.verdicts = {
      {"fits", "the fine-tuning state fits device memory"},
  };
  return c;
}

}  // namespace infracalc::fit
