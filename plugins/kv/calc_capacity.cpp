// `kv capacity`: with the weights in place, how many tokens, sequences and how long a context fit; and
// whether a given cache (e.g. 10M tokens) fits a GPU, a node or a rack.
#include <cmath>
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "host/words.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/kv/kv_arch.hpp"
#include "plugins/kv/kv_calculators.hpp"
#include "plugins/kv/kv_reserve.hpp"
#include "units/format.hpp"
#include "units/parse.hpp"

namespace infracalc::kv {

namespace {

constexpr std::int64_t kContextCap = 1'000'000'000'000;  // 10^12 tokens: "unbounded" for a search

double floor_count(double x) { return x > 0 ? std::floor(x + 1e-9) : 0.0; }


// Memory of one device and of all of them: given, or the system's (what software sees on its accelerator, times the
// devices; its marketed total otherwise).
struct DeviceMemory {
  Bytes per_device;
  Bytes total;
};

DeviceMemory resolve_memory(Context& ctx, double n) {
  std::optional<Bytes> memory;
  if (ctx.has("memory")) {
    memory = ctx.get<Bytes>("memory");
    note_device_memory(ctx, "memory");
  }
  std::optional<Bytes> total;
  if (ctx.has("memory_total") && ctx.origin("memory_total") == Origin::flag) total = ctx.get<Bytes>("memory_total");
  if (!memory && !total) {
    // A system's memory: what software sees on its accelerator, times the devices; its marketed total otherwise.
    if (const Entry* sys = ctx.ref("system")) {
      if (auto acc = ctx.catalog_text(*sys, "accelerator")) {
        if (const Entry* a = Catalog::instance().find(*acc)) {
          if (auto dm = device_memory_of(ctx, *a); dm && (dm->visible || !ctx.has("memory_total"))) {
            memory = dm->bytes;
            ctx.note(dm->visible ? fmt::format("memory per device: {}, the capacity software sees on {} (memory_visible), not the "
                                               "marketed total of {}",
                                               ctx.quote(dm->bytes, "GB"), a->id(), sys->id())
                                 : fmt::format("memory per device: the marketed {} of {} (memory_capacity); the catalog has no "
                                               "capacity visible to software for it",
                                               ctx.quote(dm->bytes, "GB"), a->id()));
          }
        }
      }
    }
    if (!memory && ctx.has("memory_total")) {
      total = ctx.get<Bytes>("memory_total");
      ctx.note("memory: the system's marketed accelerator_memory_total; the catalog has no capacity visible to software for its "
               "accelerator");
    }
  }
  if (!memory && total) memory = *total / n;
  if (!memory) throw UserError{{"missing --memory (memory of one device)", "give --memory 80GB, --gpu ID or --system ID"}};
  if (!total) total = *memory * n;
  return {*memory, *total};
}

// The weights: --weights, or parameters (--params, or counted from the model) at the weight format (the model's native
// checkpoint format, fit's default; otherwise the cache's --dtype), with how they were found.
struct WeightBytes {
  Bytes bytes;
  std::string from;
};

WeightBytes resolve_weights(Context& ctx, const ModelArch& m) {
  if (const Entry* model = ctx.ref("model"); model != nullptr && model->field_ref("native_format") != nullptr)
    fill_weight_format(ctx, "weight_dtype");
  const StorageFormat* wfmt = &storage_format_of(ctx.has("weight_dtype") ? ctx.text("weight_dtype") : ctx.text("dtype"), "--weight-dtype");
  WeightBytes w;
  if (ctx.has("weights")) {
    w.bytes = ctx.get<Bytes>("weights");
    w.from = "--weights";
  } else {
    double params = 0;
    if (ctx.has("params")) {
      params = static_cast<double>(ctx.integer("params"));
      w.from = fmt::format("--params {} x {} ({})", ctx.quote_count(params), ctx.quote(bytes_per_value(*wfmt)), wfmt->name);
    } else if (ctx.ref("model") != nullptr) {
      params = count_params(m).total;
      w.from = fmt::format("{} parameters counted from the architecture x {} ({})", ctx.quote_count(params),
                                 ctx.quote(bytes_per_value(*wfmt)), wfmt->name);
    } else {
      throw UserError{{"missing the weights: give --weights, --params or --model", "e.g. --weights 140GB or --params 70e9"}};
    }
    w.bytes = storage_bytes(params, *wfmt);
  }
  return w;
}

// The reserve per device of fit inference's waterfall (kv_reserve.hpp): framework reserve, plus communication buffers
// when the weights span more than one device. Activations are fit's own estimate and are not included here.
Bytes resolve_reserve(Context& ctx, double n) {
  if (!ctx.has("reserve")) {
    const Bytes framework = as<Bytes>(parse_quantity(kFrameworkReserve).value(), "framework reserve");
    const Bytes comm = n > 1 ? as<Bytes>(parse_quantity(kCommBuffers).value(), "communication buffers") : from_base<Bytes>(0.0);
    record_input(ctx, "reserve", to_quantity(framework + comm), Origin::default_value, ctx.quote(framework + comm), "");
    ctx.note(fmt::format("reserve per device = {} framework reserve{} (the same definition as fit inference); activations are not "
                         "included: fit inference estimates them, or add them to --reserve",
                         kFrameworkReserve, n > 1 ? fmt::format(" + {} communication buffers", kCommBuffers) : std::string()));
  }
  return ctx.get<Bytes>("reserve");
}

void run_capacity(Context& ctx) {
  const ModelArch m = *resolve_arch(ctx, true, !ctx.has("weights") && !ctx.has("params"));
  const KvPrecision prec = resolve_precision(ctx);
  const Parallelism par = resolve_parallel(ctx, m);
  const int replica = par.tp * par.pp;
  const bool devices_given = ctx.has("devices");
  const auto n = static_cast<double>(devices_given ? ctx.integer("devices") : replica);
  const bool pooled = devices_given && static_cast<int>(n) != replica;
  if (pooled && replica > 1)
    throw UserError{{fmt::format("--tp/--pp describe one replica of {} devices, but --devices/--system gives {}", replica, n),
                     "give --tp/--pp for one replica, or --devices/--system (without --tp/--pp) for a pooled cache"}};

  const DeviceMemory dm = resolve_memory(ctx, n);
  const Bytes memory = dm.per_device;
  const Bytes total = dm.total;
  const WeightBytes w = resolve_weights(ctx, m);
  const Bytes weights = w.bytes;
  const std::string& weights_from = w.from;
  const double util = ctx.number("utilization");
  const Bytes reserve = resolve_reserve(ctx, n);
  const Bytes usable = memory * util - reserve;
  const Bytes weights_dev = weights / (pooled ? n : static_cast<double>(replica));
  const Bytes budget = usable - weights_dev;
  const bool weights_fit = budget.value() > 0;
  const Bytes positive_budget = weights_fit ? budget : from_base<Bytes>(0);

  ctx.set_number("devices", n);
  ctx.set("memory_per_device", memory);
  ctx.set("memory_total", total);
  ctx.set("weights_total", weights);
  ctx.set("weights_per_device", weights_dev);
  ctx.set("kv_budget_per_device", budget);
  ctx.set("kv_budget_total", budget * n);
  ctx.verdict("weights_fit", weights_fit,
              weights_fit ? "the weights leave room for a cache"
                          : "the weights alone exceed the usable memory per device; add devices (--tp, --devices) or quantize the weights");

  // Per-device cache functions: one replica's exact split, or a pooled cache spread evenly.
  const auto one = Number::from_value(1.0);
  auto per_device = [&](Tokens context, Number seqs) {
    if (pooled) return cache_size(m, prec, context, seqs).total / n;
    return cache_size(m, prec, context, seqs, par).per_device;
  };
  const CacheSize unit = cache_size(m, prec, from_base<Tokens>(1.0), one, par);
  const Bytes per_token_dev = pooled ? unit.per_token / n : unit.per_token_per_device;
  ctx.set("kv_bytes_per_token", unit.per_token);
  ctx.set("kv_bytes_per_token_per_device", per_token_dev);
  ctx.set("max_tokens", from_base<Tokens>(floor_count(positive_budget / per_token_dev)));

  const Tokens context = ctx.get<Tokens>("context");
  note_context_limit(ctx, m, context, "--context");
  const Bytes seq_dev = per_device(context, one);
  ctx.set_number("max_batch", floor_count(positive_budget / seq_dev));
  const auto batch = Number::from_value(static_cast<double>(ctx.integer("batch")));
  std::int64_t longest = 0;
  if (weights_fit) {
    longest = pooled ? max_context(m, prec, batch, {}, positive_budget * n, kContextCap)
                     : max_context(m, prec, batch, par, positive_budget, kContextCap);
  }
  if (longest >= kContextCap) {
    ctx.note("every cached layer slides: the cache stops growing at the window, so any context fits (max_context not set)");
  } else {
    ctx.set("max_context", from_base<Tokens>(static_cast<double>(longest)));
    if (m.max_context > 0 && longest > m.max_context)
      ctx.note(fmt::format("max_context exceeds the model's own limit of {} tokens", m.max_context));
  }

  if (ctx.has("tokens")) {
    const Tokens tokens = ctx.get<Tokens>("tokens");
    note_context_limit(ctx, m, tokens);
    const CacheSize need = cache_size(m, prec, tokens, batch, par);
    const Bytes need_dev = per_device(tokens, batch);
    const bool fits = weights_fit && need_dev <= budget;
    ctx.set("kv_required", need.total);
    ctx.set("kv_required_per_device", need_dev);
    ctx.set("headroom_per_device", budget - need_dev);
    ctx.set_number("kv_fraction", need.total / total);
    ctx.set_number("devices_for_kv", std::ceil(need.total / usable - 1e-12));
    ctx.set_number("devices_needed", std::ceil((need.total + weights) / usable - 1e-12));
    ctx.verdict("fits", fits,
                fits ? fmt::format("weights and {} cache fit in {} x {}", with_article(ctx.quote(need.total)), n, ctx.quote(memory))
                     : fmt::format("weights + cache need {} per device; {} is usable",
                                   ctx.quote(weights_dev + need_dev), ctx.quote(usable)));
    if (!fits && ctx.flag("require_fit")) ctx.fail_check();
    ctx.note("devices_needed = ceil((weights + cache) / usable memory per device), rounded up to whole devices, with the cache "
             "spread evenly (context/sequence parallelism); devices_for_kv counts the cache alone");
  } else if (ctx.flag("require_fit")) {
    throw UserError{{"--require-fit needs --tokens (the context to check)", "e.g. --tokens 1M"}};
  }

  ctx.note("layout: " + describe(m));
  ctx.note("weights: " + weights_from + (pooled ? ", one copy spread over " + plural(static_cast<std::int64_t>(n), "device")
                                                 : ", split evenly over tp x pp = " + plural(replica, "device")));
  if (pooled)
    ctx.note("pooled: the cache is spread evenly over every device (as ring/context parallelism does), not split by KV heads");
  ctx.note(fmt::format("usable memory per device = {} x {} - {} reserved = {}; activations, CUDA graphs and allocator slack belong "
                       "in --reserve or --utilization (vLLM reserves 10% by default: --utilization 0.9)",
                       ctx.quote(memory), ctx.quote_number(util), ctx.quote(reserve), ctx.quote(usable)));
  ctx.note("max_tokens counts every layer storing every token (exact for full attention; sliding-window layers make long "
           "sequences cheaper, see max_context)");
}

}  // namespace

Calculator capacity_calculator() {
  Calculator c;
  c.name = "capacity";
  c.summary = "tokens, batch and context that fit beside the weights on a GPU, a node or a rack";
  c.description =
      "usable = memory x utilization - reserve per device; the weights (--weights, or parameters x bytes per value at "
      "--weight-dtype) are split over the tp x pp devices of one replica, or spread over --devices/--system; what remains "
      "holds the cache (kv size's per-device figure). max_tokens = budget / bytes per token; max_batch = budget / one "
      "sequence at --context; max_context = the longest context whose --batch caches fit (bisection, windows honoured). "
      "With --tokens: the cache needed, its share of all memory, whether it fits, and devices needed (rounded up).";
  c.refs = {model_ref(),
            {"gpu", {"accelerator"}, "accelerator from the catalog: sets --memory (memory_visible, else memory_capacity)"},
            {"system", {"system"}, "node or rack from the catalog: sets --devices (accelerators) and --memory-total "
                                   "(accelerator_memory_total)"}};
  c.inputs = arch_inputs();
  for (auto& in : precision_inputs()) c.inputs.push_back(in);
  for (auto& in : parallel_inputs()) c.inputs.push_back(in);
  c.inputs.push_back({.name = "memory", .kind = InputKind::quantity, .dim = dims::information, .help = "memory of one device",
                      .example = "80GB", .catalog = kGpuMemoryCatalog, .optional = true});
  c.inputs.push_back({.name = "devices", .kind = InputKind::integer,
                      .help = "devices holding one copy of the weights and a pooled cache (default: tp x pp)", .example = "72",
                      .catalog = "system.accelerators", .optional = true});
  c.inputs.push_back({.name = "memory_total", .kind = InputKind::quantity, .dim = dims::information,
                      .help = "accelerator memory of all --devices together (default: devices x --memory)", .example = "13.4TB",
                      .catalog = "system.accelerator_memory_total", .optional = true});
  c.inputs.push_back({.name = "weights", .kind = InputKind::quantity, .dim = dims::information,
                      .help = "weight bytes (default: parameters x bytes per value at --weight-dtype)", .example = "140GB",
                      .bound = Bound::non_negative, .optional = true});
  c.inputs.push_back({.name = "params", .kind = InputKind::integer,
                      .help = "parameter count (default: counted from the model's architecture)", .example = "70e9", .optional = true, .most = kMaxParamsInput, .most_why = kModelLimitWhy});
  c.inputs.push_back({.name = "weight_dtype", .kind = InputKind::choice, .help = "storage format of the weights (default: the model's native_format, else --dtype)",
                      .example = "fp8", .choices = storage_format_names(), .optional = true});
  c.inputs.push_back({.name = "utilization", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "share of device memory the runtime may use (vLLM's gpu_memory_utilization default, as fit)",
                      .default_value = kMemoryUtilization, .example = "100%",
                      .bound = Bound::fraction});
  c.inputs.push_back({.name = "reserve", .kind = InputKind::quantity, .dim = dims::information,
                      .help = "memory per device kept for activations, workspaces and the runtime (default: fit's framework "
                              "reserve, 1.5 GB, plus 0.5 GB of communication buffers on more than one device)",
                      .example = "4GB", .bound = Bound::non_negative, .optional = true});
  c.inputs.push_back({.name = "context", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "tokens per sequence for max_batch (default: the model's maximum context, else 8192)",
                      .default_value = "8192", .example = "32k", .catalog = "model.max_context"});
  c.inputs.push_back({.name = "batch", .kind = InputKind::integer, .help = "sequences for max_context and the --tokens check",
                      .default_value = "1", .example = "16", .most = kMaxBatch, .most_why = kBatchWhy});
  c.inputs.push_back({.name = "tokens", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "context to check per sequence (adds kv_required, kv_fraction, fits, devices_needed)", .example = "10M",
                      .optional = true});
  c.inputs.push_back({.name = "require_fit", .kind = InputKind::flag, .help = "exit 1 when --tokens does not fit"});
  c.outputs = {
      {"devices", dims::none, "devices in the group"},
      {"memory_per_device", dims::information, "memory of one device"},
      {"memory_total", dims::information, "memory of the group"},
      {"weights_total", dims::information, "weight bytes"},
      {"weights_per_device", dims::information, "weight bytes on each device"},
      {"kv_budget_per_device", dims::information, "usable memory per device left for the cache (negative: weights do not fit)"},
      {"kv_budget_total", dims::information, "the same over all devices"},
      {"kv_bytes_per_token", dims::information, "cache bytes per token of the whole model"},
      {"kv_bytes_per_token_per_device", dims::information, "cache bytes per token on the busiest device"},
      {"max_tokens", dims::token, "tokens the cache budget holds, every layer storing every token (rounded down)"},
      {"max_batch", dims::none, "sequences of --context tokens that fit (rounded down)"},
      {"max_context", dims::token, "longest context per sequence for --batch sequences (whole tokens)"},
      {"kv_required", dims::information, "cache of --batch sequences of --tokens"},
      {"kv_required_per_device", dims::information, "that cache on the busiest device"},
      {"headroom_per_device", dims::information, "budget minus that cache per device (negative when it does not fit)"},
      {"kv_fraction", dims::none, "kv_required / memory_total"},
      {"devices_for_kv", dims::none, "devices whose usable memory holds the cache alone (rounded up)"},
      {"devices_needed", dims::none, "devices whose usable memory holds weights and cache (rounded up)"},
  };
  c.run = run_capacity;
  c.source = __FILE__;
  c.verdicts = {
      {"fits", "weights and cache fit usable device memory"},
      {"weights_fit", "the weights alone fit usable device memory"},
  };
  return c;
}

}  // namespace infracalc::kv
