#include "plugins/decode/decode_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "catalog/catalog.hpp"
#include "catalog/model_arch.hpp"
#include "host/catalog_input.hpp"
#include "plugins/formats/storage.hpp"
#include "units/format.hpp"
#include "units/parse.hpp"

namespace infracalc::decode {

namespace {

// The precision whose peak a weight format runs at. Weight-only integer formats (int4 and below) are
// dequantised and multiplied at 16 bits (W4A16, e.g. AWQ and GPTQ kernels); block formats run at their
// element width (NVFP4 and MXFP4 on FP4 tensor cores, MXFP8 on FP8).
std::string compute_precision_for(std::string_view dtype) {
  auto has = [&](std::string_view s) { return dtype.find(s) != std::string_view::npos; };
  if (dtype == "fp32") return "fp32";
  if (dtype == "bf16") return "bf16";
  if (has("fp4") || has("e2m1")) return "fp4";
  if (has("fp6") || has("e2m3") || has("e3m2")) return "fp6";
  if (has("fp8") || has("e4m3") || has("e5m2")) return "fp8";
  if (dtype == "int8") return "int8";
  return "fp16";
}

void add_resolved(Context& ctx, std::string key, Origin origin, Cell value, std::string raw, std::string from) {
  ResolvedInput ri;
  ri.key = std::move(key);
  ri.origin = origin;
  ri.value = std::move(value);
  ri.raw = std::move(raw);
  ri.from = std::move(from);
  ctx.result().inputs.push_back(std::move(ri));
}

// Applies architecture flags given explicitly over the catalog's values.
void apply_overrides(Context& ctx, ModelArch& m) {
  auto flag = [&](std::string_view key) { return ctx.has(key) && ctx.origin(key) == Origin::flag; };
  if (flag("layers")) {
    m.layers = ctx.count("layers");
    m.layer_types.resize(static_cast<std::size_t>(m.layers),
                         m.layer_types.empty() ? LayerAttention::full : m.layer_types.back());
  }
  if (flag("hidden_size")) m.hidden_size = ctx.count("hidden_size");
  if (flag("heads")) m.attention_heads = ctx.count("heads");
  if (flag("kv_heads")) m.kv_heads = ctx.count("kv_heads");
  if (flag("head_dim")) m.head_dim = ctx.count("head_dim");
}

void check_heads(const ModelArch& m) {
  if (m.mla) return;
  if (m.kv_heads > m.attention_heads)
    throw UserError{{fmt::format("--kv-heads ({}) is larger than --heads ({})", m.kv_heads, m.attention_heads), "KV heads are at most the query heads"}};
  if (m.attention_heads % m.kv_heads != 0)
    throw UserError{{fmt::format("--kv-heads ({}) does not divide --heads ({})", m.kv_heads, m.attention_heads),
                     "in GQA each KV head serves the same number of query heads"}};
}

}  // namespace

std::vector<CatalogRef> model_gpu_refs() {
  return {{"model", {"model"}, "model id from the catalog: sets the architecture and parameter counts"},
          {"gpu", {"accelerator"}, "accelerator id from the catalog: sets bandwidth and the peak at the compute precision"}};
}

std::vector<Input> model_inputs() {
  return {
      {.name = "params", .kind = InputKind::quantity, .dim = dims::none,
       .help = "parameters of a dense model when no --model is given; with --dtype gives the weight bytes", .example = "70e9",
       .optional = true},
      {.name = "weights_bytes", .kind = InputKind::quantity, .dim = dims::information,
       .help = "weight bytes read per step, overriding what --model/--params and --dtype give", .example = "140GB", .optional = true},
      {.name = "dtype", .kind = InputKind::choice,
       .help = "storage format of the weights (default: the model's native checkpoint format, else bf16)", .example = "fp8",
       .choices = storage_format_names(), .optional = true},
      {.name = "kv_dtype", .kind = InputKind::choice, .help = "storage format of the KV cache", .default_value = "fp16",
       .example = "fp8", .choices = storage_format_names()},
      {.name = "layers", .kind = InputKind::integer, .help = "transformer layers (overrides the model's)", .example = "80",
       .catalog = "model.layers", .optional = true, .most = kMaxLayers, .most_why = kModelLimitWhy},
      {.name = "hidden_size", .kind = InputKind::integer, .help = "model width (overrides the model's)", .example = "8192",
       .catalog = "model.hidden_size", .optional = true, .most = kMaxWidth, .most_why = kModelLimitWhy},
      {.name = "heads", .kind = InputKind::integer, .help = "query heads per layer (overrides the model's)", .example = "64",
       .catalog = "model.attention_heads", .optional = true, .most = kMaxHeads, .most_why = kModelLimitWhy},
      {.name = "kv_heads", .kind = InputKind::integer, .help = "key/value heads per layer (overrides the model's)", .example = "8",
       .catalog = "model.kv_heads", .optional = true, .most = kMaxHeads, .most_why = kModelLimitWhy},
      {.name = "head_dim", .kind = InputKind::integer, .help = "width of one attention head (overrides the model's)", .example = "128",
       .catalog = "model.head_dim", .optional = true, .most = kMaxHeadDim, .most_why = kModelLimitWhy},
  };
}

std::vector<Input> device_inputs(bool bandwidth_required) {
  return {
      {.name = "bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "memory bandwidth of one device",
       .example = "3.35TB/s", .catalog = "gpu.memory_bandwidth", .optional = !bandwidth_required},
      {.name = "peak", .kind = InputKind::quantity, .dim = dims::flop_rate,
       .help = "peak arithmetic rate of one device (default: the GPU's dense peak at the compute precision)",
       .example = "989TFLOP/s", .optional = true},
      {.name = "compute_dtype", .kind = InputKind::choice,
       .help = "precision the arithmetic runs at, which picks the GPU's peak (default: that of --dtype; int4 weights run at fp16)",
       .example = "fp8", .choices = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8"}, .optional = true},
      {.name = "sparse", .kind = InputKind::flag, .help = "use the GPU's 2:4-sparse peak instead of the dense one"},
      {.name = "mbu", .kind = InputKind::quantity, .dim = dims::none,
       .help = "achieved fraction of the bandwidth (memory-bandwidth utilisation); default 100%", .example = "70%",
       .bound = Bound::fraction, .optional = true},
      {.name = "mfu", .kind = InputKind::quantity, .dim = dims::none,
       .help = "achieved fraction of the peak (model FLOPs utilisation); default 100%", .example = "50%", .bound = Bound::fraction,
       .optional = true},
      {.name = "overhead", .kind = InputKind::quantity, .dim = dims::time,
       .help = "fixed time added to every step (kernel launches, scheduling); default none", .example = "1ms",
       .bound = Bound::non_negative, .optional = true},
  };
}

std::vector<Input> link_inputs() {
  return {
      {.name = "link_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "scale-up bandwidth of one device, one direction (decode tp and moe fall back to half the GPU's scaleup_bandwidth, which counts both directions)",
       .example = "450GB/s", .catalog = "link.bandwidth_per_direction", .optional = true},
      {.name = "link_latency", .kind = InputKind::quantity, .dim = dims::time,
       .help = "latency of one message step on the link (default 1us, an assumption rather than a measured figure)",
       .example = "2us", .bound = Bound::non_negative, .optional = true},
      {.name = "act_dtype", .kind = InputKind::choice, .help = "storage format of activations sent between devices (default bf16)",
       .example = "fp8", .choices = storage_format_names(), .optional = true},
  };
}

std::vector<Input> join(std::vector<Input> base, const std::vector<Input>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

std::optional<Workload> resolve_workload(Context& ctx, bool required) {
  std::optional<ModelArch> arch;
  if (const Entry* m = ctx.ref("model")) {
    const ModelArchRead& read = m->model_arch();
    if (!read.arch) throw UserError{read.arch.error()};
    for (const auto& p : read.cited) ctx.cite(p);
    arch = read.arch.value();
    apply_overrides(ctx, *arch);
  } else if (ctx.has("layers") || ctx.has("kv_heads") || ctx.has("head_dim")) {
    if (!(ctx.has("layers") && ctx.has("kv_heads") && ctx.has("head_dim") && ctx.has("heads")))
      throw UserError{{"an architecture without --model needs --layers, --heads, --kv-heads and --head-dim together",
                       "give all four, or --model ID"}};
    ModelArch m;
    m.id = "custom";
    m.layers = ctx.count("layers");
    m.attention_heads = ctx.count("heads");
    m.kv_heads = ctx.count("kv_heads");
    m.head_dim = ctx.count("head_dim");
    if (!ctx.has("hidden_size") && static_cast<std::int64_t>(m.attention_heads) * m.head_dim > kMaxWidth)
      throw UserError{{fmt::format("--heads x --head-dim is {}, wider than any model ({} at most)",
                                   static_cast<std::int64_t>(m.attention_heads) * m.head_dim, kMaxWidth),
                       "give --hidden-size, or check --heads and --head-dim"}};
    m.hidden_size = ctx.has("hidden_size") ? ctx.count("hidden_size") : m.attention_heads * m.head_dim;
    m.layer_types.assign(static_cast<std::size_t>(m.layers), LayerAttention::full);
    arch = m;
  }
  if (arch) check_heads(*arch);
  fill_weight_format(ctx, "dtype");
  const StorageFormat& wf = storage_format_of(ctx.text("dtype"), "--dtype");
  const StorageFormat& kf = *find_storage_format(ctx.text("kv_dtype"));
  const bool has_model = ctx.ref("model") != nullptr;
  Workload w;
  if (ctx.has("params")) {
    w = workload_from_params(ctx.number("params"), wf);
    w.arch = arch;
    w.kv_format = kf;
    if (has_model && arch->moe) ctx.note("--params replaces the model's parameter count: every weight is read every step (no expert routing)");
  } else if (has_model) {
    w = workload_from_arch(*arch, wf, kf);
    std::string published;
    if (arch->params_total_published > 0) published = fmt::format(" (published: {})", ctx.quote_count(arch->params_total_published));
    ctx.note(fmt::format("parameters counted from the architecture: {} total, {} active per token{}", ctx.quote_count(w.params_total),
                         ctx.quote_count(w.params_active), published));
  } else if (ctx.has("weights_bytes")) {
    const Bytes wb = ctx.get<Bytes>("weights_bytes");
    w = workload_from_params(wb / bytes_per_value(wf), wf);
    w.arch = arch;
    w.kv_format = kf;
    ctx.note(fmt::format("arithmetic per token taken as 2 x parameters, the parameters being --weights-bytes / {} ({})",
                         ctx.quote(bytes_per_value(wf)), wf.name));
  } else {
    if (required)
      throw UserError{{"no model: give --model ID, --params N or --weights-bytes SIZE", "e.g. --model llama-3-70b or --weights-bytes 140GB"}};
    return std::nullopt;
  }
  if (ctx.has("weights_bytes")) {
    const Bytes wb = ctx.get<Bytes>("weights_bytes");
    w.weights_resident = wb;
    w.weights_always_read = wb;
    w.embedding_row = Bytes{};
    w.moe_layers = 0;
  }
  if (!w.arch) ctx.note("no architecture given: attention arithmetic and KV-cache reads are not modelled (give --model, or --layers, --heads, --kv-heads, --head-dim)");
  return w;
}

Roof resolve_roof(Context& ctx, bool need_peak, bool need_bandwidth) {
  Roof r;
  if (ctx.has("bandwidth")) r.bandwidth = ctx.get<BytesPerSecond>("bandwidth");
  else if (need_bandwidth)
    throw UserError{{"missing --bandwidth (memory bandwidth of one device)", "give --bandwidth 3.35TB/s or --gpu ID"}};
  fill_weight_format(ctx, "dtype");
  const std::string precision = ctx.has("compute_dtype") ? ctx.text("compute_dtype") : compute_precision_for(ctx.text("dtype"));
  if (ctx.has("peak")) {
    r.peak = ctx.get<FlopsPerSecond>("peak");
  } else if (const Entry* g = ctx.ref("gpu")) {
    const std::string key = "peak." + precision + (ctx.flag("sparse") ? "_sparse" : "_dense");
    if (auto p = ctx.catalog<FlopsPerSecond>(*g, key)) {
      r.peak = *p;
      if (!ctx.has("compute_dtype"))
        add_resolved(ctx, "compute_dtype", Origin::derived, precision, precision, "--dtype " + ctx.text("dtype"));
      add_resolved(ctx, "peak", Origin::catalog, to_quantity(*p), g->id() + "." + key, g->id());
      r.vector_peak = ctx.catalog<FlopsPerSecond>(*g, "peak.fp32_dense");
    } else if (need_peak) {
      std::string have;
      if (const Node* peaks = g->root().find("peak"))
        for (const auto& [k, v] : peaks->members) have += (have.empty() ? "" : ", ") + k;
      throw UserError{{fmt::format("--gpu {} has no {}", g->id(), key),
                       have.empty() ? "give --peak" : "give --peak, or --compute-dtype for one it has (" + have + ")"}};
    }
  }
  if (!r.peak && need_peak) throw UserError{{"missing --peak (peak arithmetic rate of one device)", "give --peak 989TFLOP/s or --gpu ID"}};
  if (ctx.has("mbu")) r.bandwidth = ctx.number("mbu") * r.bandwidth;
  if (ctx.has("mfu") && r.peak) r.peak = ctx.number("mfu") * *r.peak;
  if (ctx.has("mfu") && r.vector_peak) r.vector_peak = ctx.number("mfu") * *r.vector_peak;
  return r;
}

std::optional<Link> resolve_link(Context& ctx) {
  Link l;
  l.latency = ctx.has("link_latency") ? ctx.get<Seconds>("link_latency") : from_base<Seconds>(1e-6);
  if (ctx.has("link_bandwidth")) {
    l.bandwidth = ctx.get<BytesPerSecond>("link_bandwidth");
  } else if (const Entry* g = ctx.ref("gpu")) {
    auto both = ctx.catalog<BytesPerSecond>(*g, "scaleup_bandwidth");
    if (!both) {
      // No scale-up fabric (L40S, PCIe cards): peers exchange activations over the host link.
      const auto host = ctx.catalog_text(*g, "host_interconnect");
      const Entry* link = host ? Catalog::instance().find(*host) : nullptr;
      const auto per_dir = link != nullptr ? ctx.catalog<BytesPerSecond>(*link, "bandwidth_per_direction") : std::nullopt;
      if (!per_dir) return std::nullopt;
      l.bandwidth = *per_dir;
      add_resolved(ctx, "link_bandwidth", Origin::derived, to_quantity(l.bandwidth), link->id() + ".bandwidth_per_direction", link->id());
      ctx.note(fmt::format("link bandwidth: {} has no scale-up fabric, so tensor-parallel peers exchange over its host link ({}, {} per "
                           "direction)",
                           g->id(), link->id(), ctx.quote(l.bandwidth)));
      if (!ctx.has("link_latency")) add_resolved(ctx, "link_latency", Origin::default_value, to_quantity(l.latency), "1us", "");
      return l;
    }
    l.bandwidth = 0.5 * *both;
    add_resolved(ctx, "link_bandwidth", Origin::derived, to_quantity(l.bandwidth), g->id() + ".scaleup_bandwidth / 2", g->id());
    ctx.note(fmt::format("link bandwidth: half of {}'s scaleup_bandwidth ({}, both directions combined)", g->id(),
                         ctx.quote(*both)));
  } else {
    return std::nullopt;
  }
  if (!ctx.has("link_latency")) {
    add_resolved(ctx, "link_latency", Origin::default_value, to_quantity(l.latency), "1us", "");
    ctx.note("link latency 1 us per message step is an assumed default (an intra-node NCCL-class figure), not a catalog value: give --link-latency");
  }
  return l;
}

Bytes activation_bytes(Context& ctx) {
  if (ctx.has("act_dtype")) return bytes_per_value(*find_storage_format(ctx.text("act_dtype")));
  add_resolved(ctx, "act_dtype", Origin::default_value, std::string("bf16"), "bf16", "");
  return bytes_per_value(*find_storage_format("bf16"));
}

namespace {

double parse_number(const std::string& text, const Dim& dim, std::string_view flag) {
  auto q = parse_input(text, Expectation{dim, false}, flag);
  if (!q) throw UserError{q.error()};
  if (!(q->value > 0) || !std::isfinite(q->value))
    throw UserError{{std::string(flag) + ": expected values above zero, got \"" + text + "\"", ""}};
  return q->value;
}

std::vector<double> parse_values(const std::string& text, const Dim& dim, std::string_view flag) {
  std::vector<double> out;
  const auto dots = text.find("..");
  if (dots != std::string::npos) {
    const double a = parse_number(text.substr(0, dots), dim, flag);
    const double b = parse_number(text.substr(dots + 2), dim, flag);
    if (b < a) throw UserError{{std::string(flag) + ": the range \"" + text + "\" runs backwards", "write LOW..HIGH"}};
    for (double v = a; v <= b * (1 + 1e-12); v *= 2) out.push_back(v);
    if (out.back() < b * (1 - 1e-12)) out.push_back(b);
  } else {
    std::size_t start = 0;
    while (start <= text.size()) {
      const auto comma = text.find(',', start);
      out.push_back(parse_number(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), dim, flag));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (out.size() > 64) throw UserError{{std::string(flag) + ": more than 64 values in \"" + text + "\"", "narrow the range"}};
  return out;
}

}  // namespace

Sweep parse_sweep(const std::string& text, const std::vector<std::string>& allowed, std::string_view flag) {
  const auto eq = text.find('=');
  std::string keys;
  for (const auto& a : allowed) keys += (keys.empty() ? "" : ", ") + a;
  if (eq == std::string::npos)
    throw UserError{{std::string(flag) + ": expected KEY=LOW..HIGH or KEY=A,B,C, got \"" + text + "\"", "e.g. batch=1..1024 (keys: " + keys + ")"}};
  Sweep s;
  s.key = text.substr(0, eq);
  if (std::find(allowed.begin(), allowed.end(), s.key) == allowed.end())
    throw UserError{{std::string(flag) + ": cannot sweep \"" + s.key + "\"", "sweepable: " + keys}};
  s.values = parse_values(text.substr(eq + 1), s.key == "tokens" ? dims::token : dims::none, flag);
  if (s.key == "batch")
    for (double v : s.values)
      if (v != std::floor(v)) throw UserError{{std::string(flag) + ": batch sizes are whole numbers", ""}};
  return s;
}

std::vector<int> parse_int_list(const std::string& text, std::string_view flag) {
  std::vector<int> out;
  for (double v : parse_values(text, dims::none, flag)) {
    if (v != std::floor(v) || v > 1e6) throw UserError{{std::string(flag) + ": expected whole numbers, got \"" + text + "\"", "e.g. 1..8 or 1,2,4,8"}};
    out.push_back(static_cast<int>(v));
  }
  return out;
}

double batch_of(Context& ctx) { return static_cast<double>(ctx.count("batch")); }

const char* bound_word(bool memory_bound) { return memory_bound ? "memory-bound" : "compute-bound"; }

}  // namespace infracalc::decode
