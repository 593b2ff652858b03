// `serve disaggregate`: prefill and decode on separate pools (DistServe, Zhong et al., OSDI 2024; Splitwise,
// Patel et al., ISCA 2024): the accelerators each pool needs for a request mix, and the KV cache each
// request moves from one to the other.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "host/token_inputs.hpp"
#include "units/counts.hpp"
#include "host/words.hpp"
#include "plugins/kv/kv_layout.hpp"
#include "plugins/serve/serve_calculators.hpp"
#include "plugins/serve/serve_math.hpp"
#include "plugins/serve/serve_setup.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::serve {

namespace {


void run_disaggregate(Context& ctx) {
  const Replica rep = resolve_replica(ctx);
  const std::int64_t prompt = whole_tokens(ctx, "prompt_tokens", 1, 1'000'000'000);
  const std::int64_t output = whole_tokens(ctx, "output_tokens", 1, 1'000'000'000);
  if (rep.max_context > 0 && prompt + output > rep.max_context)
    throw UserError{{fmt::format("{} + {} tokens exceed the model's {}-token context", prompt, output, rep.max_context), "shorten the requests"}};
  const int decode_tp = rep.tp;
  const int prefill_tp = ctx.has("prefill_tp") ? ctx.count("prefill_tp") : decode_tp;

  // The prefill pool may split the model differently.
  std::unique_ptr<RooflineStepModel> prefill_own;
  const StepModel* prefill_model = rep.model.get();
  if (prefill_tp != decode_tp) {
    if (!rep.roofline) throw UserError{{"--prefill-tp needs the roofline model (--model and --gpu)", "drop --prefill-tp with --step-time"}};
    if (rep.workload->arch && rep.workload->arch->attention_heads % prefill_tp != 0)
      throw UserError{{fmt::format("--prefill-tp {} does not divide the {} query heads", prefill_tp, rep.workload->arch->attention_heads),
                       "pick a divisor of the head count"}};
    prefill_own = std::make_unique<RooflineStepModel>(*rep.workload, rep.roofline->roof(), prefill_tp, std::nullopt, from_base<Bytes>(2.0),
                                                      ctx.has("overhead") ? ctx.get<Seconds>("overhead") : Seconds{});
    prefill_model = prefill_own.get();
  }

  // Prefill pool: prompts grouped up to the step's token budget.
  const EngineConfig& e = rep.engine;
  const int per_step = static_cast<int>(std::clamp<std::int64_t>(e.step_tokens / prompt, 1, e.max_batch));
  const Seconds prefill_step = prefill_model->uniform_time(per_step, SeqWork{0, prompt, true});
  const Seconds prefill_alone = prefill_time(*prefill_model, prompt, 0);
  const Seconds prefill_device_time = prefill_step / static_cast<double>(per_step) * static_cast<double>(prefill_tp);

  // Decode pool: a full batch (what the KV pool holds at the final context, at most --max-batch).
  std::int64_t batch = e.max_batch;
  if (ctx.has("decode_batch")) batch = ctx.integer("decode_batch");
  else if (e.kv_blocks > 0) batch = std::min<std::int64_t>(batch, e.kv_blocks / kv::blocks_for(prompt + output, e.block_size));
  if (batch < 1) throw UserError{{"the decode pool's KV cache cannot hold one sequence of this length", "give more memory or raise --tp"}};
  if (batch > 1'000'000) throw UserError{{"--decode-batch: at most 1,000,000 sequences", ""}};
  const Seconds decode_all = output > 1 ? decode_time(*rep.model, static_cast<int>(batch), prompt, output - 1) : Seconds{};
  const Seconds decode_device_time = decode_all / static_cast<double>(batch) * static_cast<double>(decode_tp);

  ctx.set_number("prefill_prompts_per_step", per_step);
  ctx.set("prefill_step_time", prefill_step);
  ctx.set("prefill_device_seconds", prefill_device_time);
  ctx.set_number("decode_batch", static_cast<double>(batch));
  if (output > 1) ctx.set("decode_step_time", decode_all / static_cast<double>(output - 1));
  ctx.set("decode_device_seconds", decode_device_time);
  if (decode_device_time.value() > 0) ctx.set_number("pool_ratio", prefill_device_time / decode_device_time);
  ctx.set_number("prefill_share", prefill_device_time / (prefill_device_time + decode_device_time));

  // The KV cache of the prompt moves from the prefill pool to the decode pool.
  Seconds transfer{};
  Bytes kv_bytes{};
  if (rep.workload && rep.workload->arch) {
    kv_bytes = kv::cache_size(*rep.workload->arch, rep.workload->kv_format, from_base<Tokens>(static_cast<double>(prompt)),
                              Number::from_value(1.0))
                   .per_sequence;
    ctx.set("kv_transfer_bytes", kv_bytes);
    if (ctx.has("transfer_bandwidth")) {
      const BytesPerSecond bw = ctx.get<BytesPerSecond>("transfer_bandwidth");
      const int links = ctx.has("transfer_links") ? ctx.count("transfer_links") : std::min(prefill_tp, decode_tp);
      const Seconds latency = ctx.has("transfer_latency") ? ctx.get<Seconds>("transfer_latency") : Seconds{};
      transfer = transfer_time(kv_bytes, bw, links, latency);
      ctx.set("kv_transfer_time", transfer);
      ctx.note(fmt::format("KV transfer: {} over {} of {} each (one per device of the smaller group){}", ctx.quote(kv_bytes),
                           plural(links, "link"), ctx.quote(bw), ctx.has("transfer_latency") ? "" : "; link latency not counted (give --transfer-latency)"));
    } else {
      ctx.note("give --fabric ID or --transfer-bandwidth for the KV transfer time");
    }
  } else {
    ctx.note("no architecture: the KV bytes to transfer are unknown (give --model)");
  }
  ctx.set("ttft_unloaded", prefill_alone + transfer);

  if (ctx.has("target_rate")) {
    const PerSecond rate = ctx.get<PerSecond>("target_rate");
    const double p_dev = pool_devices(rate, prefill_device_time);
    const double d_dev = pool_devices(rate, decode_device_time);
    const CountOf pool{"--target-rate", "accelerators", "lower --target-rate"};
    const std::int64_t p_rep = std::max<std::int64_t>(1, whole_count(p_dev / prefill_tp, Rounding::up, pool));
    const std::int64_t d_rep = std::max<std::int64_t>(1, whole_count(d_dev / decode_tp, Rounding::up, pool));
    ctx.set_number("prefill_gpus", static_cast<double>(count_product(p_rep, prefill_tp, pool)));
    ctx.set_number("decode_gpus", static_cast<double>(count_product(d_rep, decode_tp, pool)));
    if (kv_bytes.value() > 0) {
      const BytesPerSecond needed = rate * kv_bytes;
      ctx.set("transfer_bandwidth_needed", needed);
      if (ctx.has("transfer_bandwidth")) {
        const double links = static_cast<double>(p_rep) * prefill_tp;
        ctx.set_number("transfer_utilization", needed / (links * ctx.get<BytesPerSecond>("transfer_bandwidth")));
      }
    }
    ctx.note(fmt::format("pools for {}: {} prefill and {} decode accelerators at full utilisation, rounded up to whole replicas "
                         "of {} and {} (at least one each; no headroom for queueing)",
                         ctx.quote(rate), ctx.quote_number(p_dev), ctx.quote_number(d_dev), plural(prefill_tp, "device"), plural(decode_tp, "device")));
  }
  ctx.note(fmt::format("prefill: {} of {} tokens per step (the --step-tokens budget) on {}; decode: batch {} for {} on {}, contexts {} "
                       "to {}",
                       plural(per_step, "prompt"), prompt, plural(prefill_tp, "device"), batch,
                       plural(std::max<std::int64_t>(0, output - 1), "step"), plural(decode_tp, "device"), prompt, prompt + output - 1));
  ctx.note("the prefill yields the first token; the decode pool generates the rest. Splitting does not change accelerator-seconds per "
           "request in this model: it keeps prefill steps from stalling decodes (TPOT) and lets each pool pick its own parallelism");
}

}  // namespace

Calculator disaggregate_calculator() {
  Calculator c;
  c.name = "disaggregate";
  c.summary = "prefill and decode on separate pools: the accelerators each needs for a request mix, and the KV transfer per request";
  c.description =
      "Prices one request's prefill on the prefill pool (prompts grouped up to --step-tokens per step, on --prefill-tp devices) and its "
      "output - 1 decode steps on the decode pool (a full batch: what the KV budget holds at the final context, or --decode-batch, on "
      "--tp devices), with the replica's step model. pool_ratio = prefill accelerator-seconds / decode accelerator-seconds per request; "
      "with --target-rate, each pool's accelerators (rounded up to whole replicas). KV transfer = the prompt's whole KV cache "
      "(kv::cache_size) over --transfer-links links of the catalog link's per-direction bandwidth.";
  c.refs = replica_refs();
  c.refs.push_back({"fabric", {"interconnect"}, "link between the pools from the catalog, e.g. infiniband-ndr (sets --transfer-bandwidth)"});
  std::vector<Input> own = {
      {.name = "prompt_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "prompt length of the request mix",
       .default_value = "2000", .example = "8000"},
      {.name = "output_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "output length of the request mix",
       .default_value = "300", .example = "500"},
      {.name = "prefill_tp", .kind = InputKind::integer, .help = "tensor-parallel devices per prefill replica (default: --tp)",
       .example = "4", .optional = true, .most = kMaxParallel, .most_why = kParallelWhy},
      {.name = "decode_batch", .kind = InputKind::integer, .help = "sequences per decode step (default: what the KV budget holds)",
       .example = "128", .optional = true, .most = kMaxBatch, .most_why = kBatchWhy},
      {.name = "target_rate", .kind = InputKind::quantity, .dim = dims::frequency, .help = "requests per second to serve",
       .example = "20/s", .optional = true},
      {.name = "transfer_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "bandwidth of one link between the pools, one direction", .example = "50GB/s",
       .catalog = "fabric.bandwidth_per_direction", .optional = true},
      {.name = "transfer_links", .kind = InputKind::integer,
       .help = "links a transfer uses in parallel (default: the smaller pool's devices per replica, one NIC each)", .example = "8",
       .optional = true, .most = kMaxParallel},
      {.name = "transfer_latency", .kind = InputKind::quantity, .dim = dims::time, .help = "fixed latency of one transfer",
       .example = "20us", .bound = Bound::non_negative, .optional = true},
  };
  c.inputs = concat(concat(own, replica_inputs()), engine_inputs());
  c.outputs = {
      {"prefill_prompts_per_step", dims::none, "prompts one prefill step carries"},
      {"prefill_step_time", dims::time, "time of one prefill step"},
      {"prefill_device_seconds", dims::time, "accelerator-seconds of prefill per request"},
      {"decode_batch", dims::none, "sequences per decode step"},
      {"decode_step_time", dims::time, "mean decode step"},
      {"decode_device_seconds", dims::time, "accelerator-seconds of decode per request"},
      {"pool_ratio", dims::none, "prefill accelerators per decode accelerator"},
      {"prefill_share", dims::none, "prefill's share of a request's accelerator-seconds"},
      {"prefill_gpus", dims::none, "prefill pool for --target-rate (whole replicas)"},
      {"decode_gpus", dims::none, "decode pool for --target-rate (whole replicas)"},
      {"kv_transfer_bytes", dims::information, "KV cache of one prompt (all layers, all heads)"},
      {"kv_transfer_time", dims::time, "time to move it between the pools"},
      {"transfer_bandwidth_needed", dims::data_rate, "KV bytes per second between the pools at --target-rate"},
      {"transfer_utilization", dims::none, "that against the prefill pool's links"},
      {"ttft_unloaded", dims::time, "one prompt's prefill + its KV transfer, no queueing"},
  };
  c.run = run_disaggregate;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc::serve
