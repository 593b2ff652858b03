#include "plugins/serve/serve_setup.hpp"

#include <cmath>
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "host/token_inputs.hpp"
#include "units/counts.hpp"
#include "host/words.hpp"
#include "plugins/decode/decode_inputs.hpp"
#include "plugins/decode/decode_step_common.hpp"
#include "plugins/fit/fit_math.hpp"
#include "plugins/fit/fit_serving.hpp"
#include "plugins/kv/kv_layout.hpp"
#include "plugins/kv/kv_paged.hpp"
#include "plugins/kv/kv_reserve.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::serve {

namespace {

// Per-device KV memory left by the fit plugin's waterfall: usable memory minus weights, the activations of a
// full step (max_batch sequences, a step_tokens-token step), the framework reserve and communication buffers.
Bytes fit_budget(Context& ctx, const decode::Workload& w, int tp, const EngineConfig& e, Bytes memory) {
  const ModelArch& m = *w.arch;
  fit::InferenceSetup s;
  s.arch = m;
  const ParamCount pc = count_params(m);
  s.params = ctx.has("params") ? ctx.number("params") : pc.total;
  s.experts = pc.total > 0 ? fit::routed_expert_params(m) * s.params / pc.total : 0.0;
  s.dtype = &w.weights_format;
  s.expert_dtype = &w.weights_format;
  s.kv_dtype = &w.kv_format;
  s.framework = ctx.get<Bytes>("framework_reserve");
  s.comm = ctx.get<Bytes>("comm_buffers");
  s.step_tokens = from_base<Tokens>(static_cast<double>(e.step_tokens));
  const fit::Waterfall wf =
      fit::inference_waterfall(s, from_base<Tokens>(static_cast<double>(e.step_tokens)), static_cast<double>(e.max_batch), tp, 1);
  const Bytes weights = ctx.has("weights_bytes") ? w.weights_resident / static_cast<double>(tp) : wf.weights;
  const double util = ctx.number("memory_utilization");
  const Bytes other = weights + wf.activations + wf.framework + wf.comm;
  // TensorRT-LLM sizes its pool as a share of the memory left after loading the model
  // (KvCacheConfig.free_gpu_memory_fraction, default 0.9); vLLM as a share of all of it (gpu_memory_utilization).
  const bool of_free = decode::engine_of(ctx) == decode::Engine::trtllm && ctx.origin("memory_utilization") == Origin::default_value;
  const Bytes usable = of_free ? memory : util * memory;
  const Bytes budget = of_free ? util * (memory - other) : usable - other;
  if (of_free)
    ctx.note(fmt::format("engine trtllm: the KV pool takes {} of the memory free after weights, activations and reserves "
                         "(TensorRT-LLM's free_gpu_memory_fraction)",
                         ctx.quote_percent(util)));
  if (budget.value() <= 0)
    throw UserError{{fmt::format("no memory left for the KV cache: weights {} + activations {} + reserve {} + buffers {} per device against {} "
                                 "usable ({:g}% of {})",
                                 ctx.quote(weights), ctx.quote(wf.activations), ctx.quote(wf.framework), ctx.quote(wf.comm), ctx.quote(usable), util * 100,
                                 ctx.quote(memory)),
                     "raise --tp, use a smaller --dtype, or lower --max-batch / --step-tokens"}};
  ctx.note(fmt::format("KV budget per device {} = {} of {} - weights {} - activations {} ({} step, {}) - framework "
                       "reserve {} - communication buffers {} (fit plugin's waterfall)",
                       ctx.quote(budget), ctx.quote_percent(util), ctx.quote(memory), ctx.quote(weights), ctx.quote(wf.activations), with_article(fmt::format("{}-token", e.step_tokens)), plural(e.max_batch, "sequence"),
                       ctx.quote(wf.framework), ctx.quote(wf.comm)));
  return budget;
}

// Host-link bandwidth for swapping: --swap-bandwidth, else the GPU's host interconnect from the catalog.
std::optional<BytesPerSecond> swap_bandwidth(Context& ctx) {
  if (ctx.has("swap_bandwidth")) return ctx.get<BytesPerSecond>("swap_bandwidth");
  const Entry* g = ctx.ref("gpu");
  if (g == nullptr) return std::nullopt;
  const auto link = ctx.catalog_text(*g, "host_interconnect");
  if (!link) return std::nullopt;
  const Entry& e = Catalog::instance().get(*link, {"interconnect"}, "--gpu " + g->id() + " host_interconnect");
  auto bw = ctx.catalog<BytesPerSecond>(e, "bandwidth_per_direction");
  if (bw) ctx.note(fmt::format("swap copies over {}'s host link {} at {} each way", g->id(), e.id(), ctx.quote(*bw)));
  return bw;
}

}  // namespace

std::vector<CatalogRef> replica_refs() {
  auto r = decode::model_gpu_refs();
  r.push_back({"link", {"interconnect"}, "scale-up link from the catalog: prices tensor-parallel all-reduces (sets --link-bandwidth)"});
  return r;
}

std::vector<Input> replica_inputs() {
  std::vector<Input> in = concat(decode::model_inputs(), decode::device_inputs(false));
  in.push_back({.name = "tp", .kind = InputKind::integer,
                .help = "tensor-parallel devices per replica: weights, KV heads and arithmetic split across them", .default_value = "1",
                .example = "8", .most = kMaxParallel, .most_why = kParallelWhy});
  in = concat(in, decode::link_inputs());
  in.push_back({.name = "step_time", .kind = InputKind::quantity, .dim = dims::time,
                .help = "measured time of a decode step (replaces the roofline model; with --step-time-per-seq and --prefill-rate)",
                .example = "25ms", .optional = true});
  in.push_back({.name = "step_time_per_seq", .kind = InputKind::quantity, .dim = dims::time,
                .help = "measured time each decoding sequence adds to a step (with --step-time)", .example = "0.2ms",
                .bound = Bound::non_negative, .optional = true});
  in.push_back({.name = "prefill_rate", .kind = InputKind::quantity, .dim = dims::token_rate,
                .help = "measured prompt tokens prefilled per second (with --step-time; default: prefill takes no time)",
                .example = "20ktok/s", .optional = true});
  return in;
}

std::vector<Input> engine_inputs() {
  return {
      {.name = "batching", .kind = InputKind::choice,
       .help = "scheduler: continuous (iteration-level, sequences join and leave every step) or static (a fixed batch in lockstep)",
       .default_value = "continuous", .example = "static", .choices = {"continuous", "static"}},
      {.name = "max_batch", .kind = InputKind::integer,
       .help = "most sequences in a batch (vLLM's max_num_seqs); default: the --engine's (generic 256, trtllm 2048, vllm 256)",
       .default_value = "256",
       .example = "64", .most = kMaxBatch, .most_why = kBatchWhy},
      {.name = "step_tokens", .kind = InputKind::quantity, .dim = dims::token,
       .help = "most tokens one step processes (vLLM's max_num_batched_tokens); also sizes the activations in the KV budget",
       .default_value = "8192", .example = "2048"},
      decode::engine_input(),
      {.name = "chunked_prefill", .kind = InputKind::flag,
       .help = "split prompts into chunks that share steps with decodes (default: a step prefills or decodes)"},
      {.name = "block_size", .kind = InputKind::integer, .help = "tokens per KV block (vLLM's default is 16)", .default_value = "16",
       .example = "32", .most = 1'048'576},
      {.name = "kv_blocks", .kind = InputKind::integer, .help = "KV blocks in the pool (overrides the budget from memory)",
       .example = "4096", .optional = true, .most = 100'000'000},
      {.name = "kv_tokens", .kind = InputKind::quantity, .dim = dims::token,
       .help = "tokens the KV pool holds (overrides the budget from memory)", .example = "500k", .optional = true},
      {.name = "kv_budget", .kind = InputKind::quantity, .dim = dims::information,
       .help = "KV memory per device (overrides the fit waterfall; needs the model's architecture)", .example = "40GB",
       .optional = true},
      {.name = "memory", .kind = InputKind::quantity, .dim = dims::information,
       .help = "memory per device; with the model's architecture the KV budget is what the fit waterfall leaves", .example = "80GB",
       .catalog = kGpuMemoryCatalog, .optional = true},
      {.name = "memory_utilization", .kind = InputKind::quantity, .dim = dims::none,
       .help = "share of device memory the server may use (vLLM's gpu_memory_utilization default)", .default_value = kv::kMemoryUtilization,
       .example = "0.95", .bound = Bound::fraction},
      {.name = "framework_reserve", .kind = InputKind::quantity, .dim = dims::information,
       .help = "CUDA context, workspaces and allocator slack per device (fit's planning default)", .default_value = kv::kFrameworkReserve,
       .example = "2GB", .bound = Bound::non_negative},
      {.name = "comm_buffers", .kind = InputKind::quantity, .dim = dims::information,
       .help = "NCCL and all-reduce buffers per device when tp > 1 (fit's planning default)", .default_value = kv::kCommBuffers,
       .example = "1GB", .bound = Bound::non_negative},
      {.name = "preemption", .kind = InputKind::choice,
       .help = "what happens to a sequence evicted when KV runs out: recompute (prefill again) or swap (copy to host and back)",
       .default_value = "recompute", .example = "swap", .choices = {"recompute", "swap"}},
      {.name = "swap_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "host-link bandwidth for swapping, one direction (default: the GPU's host_interconnect from the catalog)",
       .example = "64GB/s", .optional = true},
  };
}

std::vector<Input> stream_inputs() {
  return {
      {.name = "requests", .kind = InputKind::text,
       .help = "request list: PROMPT+OUTPUT, NxPROMPT+OUTPUT for N copies, comma-separated (tokens)", .example = "100+50,100+2000",
       .optional = true},
      {.name = "requests_file", .kind = InputKind::text,
       .help = "file of requests, one per line: PROMPT OUTPUT [ARRIVAL] (a time such as 1.5s: a trace to replay) or the --requests syntax",
       .example = "trace.txt", .optional = true, .names_file = true},
      {.name = "count", .kind = InputKind::integer, .help = "requests of the seeded stream", .default_value = "200", .example = "1000", .most = 1'000'000},
      {.name = "prompt_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "prompt length of the seeded stream (its mean)",
       .default_value = "512", .example = "1000"},
      {.name = "output_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "output length of the seeded stream (its mean)",
       .default_value = "256", .example = "200"},
      {.name = "length_dist", .kind = InputKind::choice,
       .help = "lengths of the seeded stream: fixed, uniform on [1, 2 x mean - 1], or exponential with the mean",
       .default_value = "fixed", .example = "exponential", .choices = {"fixed", "uniform", "exponential"}},
      {.name = "seed", .kind = InputKind::integer, .help = "seed of the lengths, arrivals and think times", .default_value = "1",
       .example = "7", .bound = Bound::non_negative, .most = kMaxSeed},
      {.name = "rate", .kind = InputKind::quantity, .dim = dims::frequency,
       .help = "Poisson arrivals at this many requests per second (default: all requests queued at t = 0)", .example = "5/s",
       .optional = true},
      {.name = "users", .kind = InputKind::integer,
       .help = "a closed loop of this many users, each sending its next request when its answer returns (plus --think-time)",
       .example = "32", .optional = true, .most = 1'000'000},
      {.name = "think_time", .kind = InputKind::quantity, .dim = dims::time, .help = "closed loop: time between an answer and the next request",
       .default_value = "0s", .example = "5s", .bound = Bound::non_negative},
      {.name = "think_dist", .kind = InputKind::choice, .help = "closed loop: think times fixed or exponential with --think-time as mean",
       .default_value = "fixed", .example = "exponential", .choices = {"fixed", "exponential"}},
  };
}

std::vector<Input> concat(std::vector<Input> base, const std::vector<Input>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

const char* batching_name(Batching b) { return b == Batching::static_batch ? "static" : "continuous"; }

Replica resolve_step_model(Context& ctx, bool required) {
  Replica rep;
  rep.workload = decode::resolve_workload(ctx, false);
  if (rep.workload) {
    rep.tp = decode::tp_degree(ctx, *rep.workload);
  } else {
    rep.tp = ctx.count("tp");
  }
  if (ctx.has("step_time")) {
    const Seconds base = ctx.get<Seconds>("step_time");
    const Seconds per_seq = ctx.has("step_time_per_seq") ? ctx.get<Seconds>("step_time_per_seq") : Seconds{};
    Seconds per_prompt{};
    if (ctx.has("prefill_rate")) per_prompt = from_base<Tokens>(1.0) / ctx.get<TokensPerSecond>("prefill_rate");
    else ctx.note("--step-time without --prefill-rate: prefills take no time (give --prefill-rate for measured prompt throughput)");
    rep.model = std::make_unique<LinearStepModel>(base, per_seq, per_prompt);
    ctx.note(fmt::format("measured step model: decode step = {} + {} per sequence; prefill {} per prompt token", ctx.quote(base), ctx.quote(per_seq),
                         ctx.quote(per_prompt)));
  } else if (rep.workload) {
    const decode::Roof roof = decode::resolve_roof(ctx, false, true);
    std::optional<decode::Link> link;
    Bytes act = from_base<Bytes>(2.0);
    if (rep.tp > 1) {
      // The all-reduces are counted whenever a link is known: --link, --link-bandwidth or the GPU's scale-up link.
      link = decode::resolve_link(ctx);
      if (link && (!rep.workload->arch || rep.workload->arch->hidden_size <= 0))
        throw UserError{{"tensor-parallel communication needs the model width and layer count", "give --model, or --layers and --hidden-size"}};
      if (link) act = decode::activation_bytes(ctx);
    }
    const Seconds overhead = ctx.has("overhead") ? ctx.get<Seconds>("overhead") : Seconds{};
    auto m = std::make_unique<RooflineStepModel>(*rep.workload, roof, rep.tp, link, act, overhead);
    rep.roofline = m.get();
    rep.model = std::move(m);
    ctx.note("step time from the decode plugin's roofline: max(bytes / bandwidth, operations / peak) per step, weights read once per step, "
             "each sequence's KV read, attention over the causal pairs of each chunk");
    if (!roof.peak) ctx.note("no peak rate: compute time is not modelled, so prefill looks as cheap as a memory pass (give --peak or --gpu)");
    if (!ctx.has("mbu")) ctx.note("the ceiling is at 100% of the memory bandwidth (expected_* figures use the calibrated share; or give --mbu)");
    if (roof.peak && !ctx.has("mfu"))
      ctx.note("the ceiling is at 100% of the peak arithmetic rate (expected_* figures use the calibrated share; or give --mfu)");
    if (!ctx.has("overhead")) ctx.note("the ceiling has no per-step overhead (expected_* figures count the engine's; or give --overhead)");
    if (rep.tp > 1 && !link) ctx.note("tensor-parallel all-reduces not counted: no link known (give --link-bandwidth or --link)");
  } else if (required) {
    throw UserError{{"no step model: give --model ID with --gpu ID (or --bandwidth), or measured --step-time",
                     "e.g. --model llama-3.1-8b --gpu h100-sxm, or --step-time 20ms --prefill-rate 20ktok/s"}};
  }
  if (rep.workload && rep.workload->arch) {
    const ModelArch& a = *rep.workload->arch;
    rep.kv_per_token =
        kv::cache_size(a, rep.workload->kv_format, from_base<Tokens>(1.0), Number::from_value(1.0), {rep.tp, 1}).per_token_per_device;
    rep.max_context = a.max_context;
  }
  return rep;
}

Replica resolve_replica(Context& ctx, bool need_step_model) {
  Replica rep = resolve_step_model(ctx, need_step_model);
  EngineConfig& e = rep.engine;
  e.batching = ctx.text("batching") == "static" ? Batching::static_batch : Batching::continuous;
  e.max_batch = ctx.count("max_batch");
  if (ctx.origin("max_batch") == Origin::default_value) {
    const decode::Engine engine = decode::engine_of(ctx);
    e.max_batch = static_cast<int>(std::min<std::int64_t>(decode::efficiency().engine(engine).max_batch, 1 << 20));
    if (engine != decode::Engine::generic)
      ctx.note(fmt::format("max batch {}: the default of engine {} (data/calibration/efficiency.toml)", e.max_batch, decode::engine_name(engine)));
  }
  e.step_tokens = whole_tokens(ctx, "step_tokens", 1, 1'000'000'000);
  e.chunked_prefill = ctx.flag("chunked_prefill");
  e.block_size = ctx.integer("block_size");
  e.preemption = ctx.text("preemption") == "swap" ? kv::Preemption::swap : kv::Preemption::recompute;
  if (e.batching == Batching::static_batch && e.chunked_prefill)
    ctx.note("--chunked-prefill does not apply to static batching (a batch prefills once, then decodes in lockstep)");
  if (e.batching == Batching::continuous && e.step_tokens < e.max_batch)
    throw UserError{{fmt::format("--step-tokens {} is below --max-batch {}: a step could not decode every running sequence", e.step_tokens,
                                 e.max_batch),
                     "raise --step-tokens or lower --max-batch"}};

  const bool arch = rep.kv_per_token.value() > 0;
  const Bytes block_bytes = static_cast<double>(e.block_size) * rep.kv_per_token;
  if (ctx.has("kv_blocks")) {
    e.kv_blocks = ctx.integer("kv_blocks");
  } else if (ctx.has("kv_tokens")) {
    e.kv_blocks = whole_tokens(ctx, "kv_tokens", 1, 100'000'000'000LL) / e.block_size;
    if (e.kv_blocks < 1) throw UserError{{"--kv-tokens holds less than one block", "give more --kv-tokens or a smaller --block-size"}};
  } else if (ctx.has("kv_budget") || (ctx.has("memory") && arch)) {
    if (!arch) throw UserError{{"--kv-budget needs the model's architecture to size a block", "give --model ID, or --kv-tokens / --kv-blocks"}};
    if (!ctx.has("kv_budget")) note_device_memory(ctx, "memory");
    rep.kv_budget = ctx.has("kv_budget") ? ctx.get<Bytes>("kv_budget") : fit_budget(ctx, *rep.workload, rep.tp, e, ctx.get<Bytes>("memory"));
    const double blocks = std::floor(rep.kv_budget / block_bytes);
    if (blocks < 1) throw UserError{{"the KV budget holds less than one block", "give more memory or a smaller --block-size"}};
    if (blocks > 100'000'000) throw UserError{{"more than 100 million KV blocks", "use a larger --block-size"}};
    e.kv_blocks = static_cast<std::int64_t>(blocks);
  } else {
    ctx.note("KV cache not limited (give --gpu or --memory with a model, or --kv-tokens / --kv-blocks): no preemption can happen");
  }
  if (e.kv_blocks > 0) {
    rep.kv_tokens = e.kv_blocks * e.block_size;
    std::string bytes = arch ? fmt::format(" of {} each ({} per token per device)", ctx.quote(block_bytes), ctx.quote(rep.kv_per_token)) : "";
    ctx.note(fmt::format("KV pool: {} blocks of {} tokens{} = {} tokens", e.kv_blocks, e.block_size, bytes, rep.kv_tokens));
    if (rep.workload && rep.workload->arch && rep.workload->arch->sliding_window > 0)
      ctx.note("sliding-window layers are counted as growing with every token (a pool of pages for all layers, as vLLM's block manager "
               "keeps); windowed layers really stop growing at the window");
  }
  if (e.preemption == kv::Preemption::swap) {
    const auto bw = swap_bandwidth(ctx);
    if (bw && arch) e.swap_time_per_block = block_bytes / *bw;
    else ctx.note("swap copies are not timed (give --swap-bandwidth and a model)");
  }
  return rep;
}

SimInput resolve_stream(Context& ctx, const Replica& rep) {
  SimInput in;
  in.seed = static_cast<std::uint64_t>(ctx.integer("seed"));
  const bool seeded_given = (ctx.has("count") && ctx.origin("count") == Origin::flag) ||
                            (ctx.origin("prompt_tokens") == Origin::flag) || (ctx.origin("output_tokens") == Origin::flag);
  const int lists = (ctx.has("requests") ? 1 : 0) + (ctx.has("requests_file") ? 1 : 0);
  if (lists > 1) throw UserError{{"give one of --requests and --requests-file", "they are alternative request streams"}};
  if (lists == 1 && seeded_given)
    throw UserError{{"--count, --prompt-tokens and --output-tokens describe a seeded stream; --requests/--requests-file give one already",
                     "drop one of them"}};
  bool trace = false;
  const std::int64_t max_len = rep.max_context > 0 ? rep.max_context : (std::int64_t{1} << 40);
  if (ctx.has("requests")) {
    in.requests = parse_request_list(ctx.text("requests"), "--requests");
  } else if (ctx.has("requests_file")) {
    in.requests = parse_request_file(kv::read_requests_file(ctx.text("requests_file")), "--requests-file", trace);
  } else {
    const std::int64_t count = ctx.integer("count");
    const std::int64_t prompt = whole_tokens(ctx, "prompt_tokens", 1, 1'000'000'000);
    const std::int64_t output = whole_tokens(ctx, "output_tokens", 1, 1'000'000'000);
    const LengthDist dist = length_dist(ctx.text("length_dist"));
    if (prompt + output > max_len)
      throw UserError{{fmt::format("--prompt-tokens {} + --output-tokens {} exceed the model's {}-token context", prompt, output, max_len),
                       "shorten the requests"}};
    in.requests = draw_requests(count, in.seed, prompt, output, dist, max_len);
    if (dist != LengthDist::fixed)
      ctx.note(fmt::format("lengths drawn {} around {} prompt and {} output tokens (seed {}), clipped to the model's context", ctx.text("length_dist"),
                           prompt, output, in.seed));
  }
  std::int64_t outputs = 0;
  for (std::size_t i = 0; i < in.requests.size(); ++i) {
    const auto& r = in.requests[i];
    if (r.prompt + r.output > max_len)
      throw UserError{{fmt::format("request {} ({} + {} tokens) is longer than the model's {}-token context", i + 1, r.prompt, r.output, max_len),
                       "shorten it"}};
    outputs += r.output;
  }
  if (outputs > 50'000'000)
    throw UserError{{fmt::format("{} output tokens to simulate; the limit is 50 million", outputs),
                     "simulate a representative sample (fewer or shorter requests)"}};

  const bool rate = ctx.has("rate"), users = ctx.has("users");
  if (rate && users) throw UserError{{"give --rate (open loop) or --users (closed loop), not both", ""}};
  if (trace && (rate || users))
    throw UserError{{"--requests-file gives arrival times already", "drop --rate/--users, or the times from the file"}};
  if (rate) {
    poisson_arrivals(in.requests, ctx.get<PerSecond>("rate"), in.seed);
  } else if (users) {
    ClosedLoop c;
    c.users = ctx.count("users");
    c.think = ctx.get<Seconds>("think_time");
    c.exponential = ctx.text("think_dist") == "exponential";
    in.closed = c;
  } else if (!trace) {
    ctx.note("no --rate or --users: every request is queued at t = 0 (an offline batch; the replica runs saturated)");
  }
  return in;
}

}  // namespace infracalc::serve
