// `kv paged`: a PagedAttention block-allocator simulation of a request stream, against contiguous
// max-length reservation.
#include <algorithm>
#include <fmt/format.h>

#include "host/token_inputs.hpp"
#include "units/counts.hpp"
#include "plugins/kv/kv_arch.hpp"
#include "plugins/kv/kv_calculators.hpp"
#include "plugins/kv/kv_paged.hpp"

namespace infracalc::kv {

namespace {

std::vector<PagedRequest> requests_from(Context& ctx, std::int64_t max_len) {
  const int sources = (ctx.has("requests") ? 1 : 0) + (ctx.has("requests_file") ? 1 : 0) + (ctx.has("count") ? 1 : 0);
  if (sources == 0)
    throw UserError{{"kv paged needs a request stream", "give --requests 512+128,100+20@5, --requests-file FILE, or --count N (seeded)"}};
  if (sources > 1) throw UserError{{"give one of --requests, --requests-file and --count", "they are alternative request streams"}};
  if (ctx.has("requests")) return parse_requests(ctx.text("requests"), "--requests");
  if (ctx.has("requests_file")) return parse_requests(read_requests_file(ctx.text("requests_file")), "--requests-file");
  const std::string d = ctx.text("length_dist");
  const auto dist = d == "fixed" ? LengthDistribution::fixed : d == "uniform" ? LengthDistribution::uniform : LengthDistribution::exponential;
  const auto count = ctx.integer("count");
  if (count > 1'000'000) throw UserError{{"--count: at most 1,000,000 requests", "simulate a smaller sample"}};
  const std::int64_t prompt = whole_tokens(ctx, "prompt_mean", 1, kMaxTokens);
  const std::int64_t output = whole_tokens(ctx, "output_mean", 1, kMaxTokens);
  if (prompt + 1 > max_len) throw UserError{{"--prompt-mean leaves no room for output within --max-len", "raise --max-len"}};
  return random_requests(count, static_cast<std::uint64_t>(ctx.integer("seed")), prompt, output, dist, ctx.number("arrival_rate"),
                         max_len);
}

// The pool and the scheduler: --blocks, or --memory over the bytes of one block; --max-running, preemption, trace.
PagedConfig read_config(Context& ctx, std::int64_t block, const std::optional<Bytes>& block_bytes) {
  PagedConfig cfg;
  cfg.block_size = block;
  cfg.max_running = ctx.integer("max_running");
  cfg.preemption = ctx.text("preemption") == "swap" ? Preemption::swap : Preemption::recompute;
  cfg.trace = ctx.flag("trace");
  if (ctx.has("blocks")) {
    cfg.blocks = ctx.integer("blocks");
  } else if (ctx.has("memory")) {
    if (!block_bytes) throw UserError{{"--memory needs the model's layout to size a block", "give --model ID (or --layers ...), or --blocks N"}};
    cfg.blocks = whole_count(ctx.get<Bytes>("memory") / *block_bytes, Rounding::down,
                             {"--memory", "KV blocks", "use a larger --block-size or less --memory"});
    if (cfg.blocks < 1) throw UserError{{"--memory holds less than one block", "give more --memory or a smaller --block-size"}};
  } else {
    throw UserError{{"kv paged needs the pool size", "give --blocks N, or --memory 40GB with a model"}};
  }
  if (cfg.blocks > 100'000'000) throw UserError{{"kv paged: more than 100 million blocks", "use a larger --block-size or less --memory"}};

  return cfg;
}

// The pool over time, `rows` steps sampled evenly.
Table timeline_table(const PagedReport& r, const PagedConfig& cfg, std::size_t rows) {
  const std::int64_t block = cfg.block_size;
  Table tl{"timeline", "pool over time (end of step, before finished sequences free their blocks)",
           {{"step", dims::none},
            {"running", dims::none},
            {"waiting", dims::none},
            {"blocks_used", dims::none},
            {"utilization", dims::none},
            {"fragmentation", dims::none}},
           {}};
  const std::size_t total = r.samples.size();
  const std::size_t take = std::min(rows, total);
  std::size_t last = total;
  for (std::size_t k = 0; k < take; ++k) {
    const std::size_t i = take == 1 ? 0 : k * (total - 1) / (take - 1);
    if (i == last) continue;
    last = i;
    const auto& s = r.samples[i];
    const double slots = static_cast<double>(s.blocks_used * block);
    tl.rows.push_back({Quantity::number(static_cast<double>(s.step)), Quantity::number(s.running), Quantity::number(s.waiting),
                       Quantity::number(static_cast<double>(s.blocks_used)),
                       Quantity::number(static_cast<double>(s.blocks_used) / static_cast<double>(cfg.blocks)),
                       Quantity::number(slots > 0 ? 1.0 - static_cast<double>(s.tokens_stored) / slots : 0.0)});
  }
  return tl;
}

// The first 200 requests: when each was admitted and finished, its preemptions, blocks and reservation waste.
Table requests_table(const std::vector<PagedRequest>& requests, const PagedReport& r, std::int64_t block, std::int64_t max_len) {
  Table rq{"requests", "requests (first 200)",
           {{"request", dims::none},
            {"prompt", dims::token},
            {"output", dims::token},
            {"arrival", dims::none},
            {"admitted", dims::none},
            {"finished", dims::none},
            {"preempted", dims::none},
            {"blocks", dims::none},
            {"reserved_waste", dims::none}},
           {}};
  for (std::size_t i = 0; i < std::min<std::size_t>(requests.size(), 200); ++i) {
    const auto& q = requests[i];
    const auto& o = r.outcomes[i];
    rq.rows.push_back({Quantity::number(static_cast<double>(i + 1)), Quantity{static_cast<double>(q.prompt), dims::token},
                       Quantity{static_cast<double>(q.output), dims::token}, Quantity::number(static_cast<double>(q.arrival)),
                       Quantity::number(static_cast<double>(o.admitted)), Quantity::number(static_cast<double>(o.finished)),
                       Quantity::number(static_cast<double>(o.preemptions)),
                       Quantity::number(static_cast<double>(blocks_for(q.prompt + q.output, block))),
                       Quantity::number(1.0 - static_cast<double>(q.prompt + q.output) / static_cast<double>(max_len))});
  }
  return rq;
}

// Every scheduler event (--trace), the first 100,000.
Table trace_table(Context& ctx, const PagedReport& r) {
  Table tr{"trace", "scheduler steps",
           {{"step", dims::none}, {"event"}, {"request", dims::none}, {"blocks", dims::none}, {"blocks_used", dims::none}, {"tokens", dims::token}},
           {}};
  const std::size_t limit = 100'000;
  for (std::size_t i = 0; i < std::min(r.events.size(), limit); ++i) {
    const auto& e = r.events[i];
    tr.rows.push_back({Quantity::number(static_cast<double>(e.step)), e.what, Quantity::number(static_cast<double>(e.request + 1)),
                       Quantity::number(static_cast<double>(e.blocks)), Quantity::number(static_cast<double>(e.blocks_used)),
                       Quantity{static_cast<double>(e.tokens), dims::token}});
  }
  if (r.events.size() > limit) ctx.note(fmt::format("trace shows the first {} of {} events", limit, r.events.size()));
  return tr;
}

void run_paged(Context& ctx) {
  const auto arch = resolve_arch(ctx, false);
  const auto block = ctx.integer("block_size");
  const std::int64_t max_len = whole_tokens(ctx, "max_len", 1, kMaxTokens);
  std::optional<Bytes> block_bytes;
  std::optional<Bytes> token_bytes;
  if (arch) {
    const KvPrecision prec = resolve_precision(ctx);
    const Parallelism par = resolve_parallel(ctx, *arch);
    token_bytes = cache_size(*arch, prec, from_base<Tokens>(1.0), Number::from_value(1.0), par).per_token_per_device;
    block_bytes = *token_bytes * static_cast<double>(block);
  }
  const PagedConfig cfg = read_config(ctx, block, block_bytes);
  const auto requests = requests_from(ctx, max_len);
  std::int64_t used = 0, outputs = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].prompt + requests[i].output > max_len)
      throw UserError{{fmt::format("request {} ({} + {} tokens) is longer than --max-len {}", i + 1, requests[i].prompt,
                                   requests[i].output, max_len),
                       "raise --max-len to the longest sequence the server accepts"}};
    used += requests[i].prompt + requests[i].output;
    outputs += requests[i].output;
  }
  if (outputs > 50'000'000)
    throw UserError{{fmt::format("kv paged: {} output tokens to simulate; the limit is 50 million", outputs),
                     "simulate a representative sample of the stream (fewer or shorter requests)"}};
  const PagedReport r = simulate_paged(requests, cfg);

  // Time averages over the steps that did work.
  double blocks_sum = 0, tokens_sum = 0, running_sum = 0;
  std::int64_t peak_running = 0;
  for (const auto& s : r.samples) {
    blocks_sum += static_cast<double>(s.blocks_used);
    tokens_sum += static_cast<double>(s.tokens_stored);
    running_sum += s.running;
    peak_running = std::max<std::int64_t>(peak_running, s.running);
  }
  const auto steps = static_cast<double>(r.samples.size());
  const double slots_sum = blocks_sum * static_cast<double>(block);
  const auto n = static_cast<double>(requests.size());
  std::int64_t paged_slots_final = 0;
  for (const auto& q : requests) paged_slots_final += blocks_for(q.prompt + q.output, block) * block;

  ctx.set_number("requests", n);
  ctx.set_number("steps", static_cast<double>(r.samples.back().step + 1));
  ctx.set_number("pool_blocks", static_cast<double>(cfg.blocks));
  ctx.set_number("peak_blocks", static_cast<double>(r.pool.peak_used));
  ctx.set_number("mean_blocks", blocks_sum / steps);
  ctx.set_number("pool_utilization", blocks_sum / steps / static_cast<double>(cfg.blocks));
  ctx.set_number("internal_fragmentation", slots_sum > 0 ? 1.0 - tokens_sum / slots_sum : 0.0);
  ctx.set_number("final_block_waste", 1.0 - static_cast<double>(used) / static_cast<double>(paged_slots_final));
  ctx.set_number("reservation_waste", 1.0 - static_cast<double>(used) / (n * static_cast<double>(max_len)));
  ctx.set_number("reservation_concurrency", std::floor(static_cast<double>(cfg.blocks) * static_cast<double>(block) / static_cast<double>(max_len)));
  ctx.set_number("mean_running", running_sum / steps);
  ctx.set_number("peak_running", static_cast<double>(peak_running));
  ctx.set_number("preemptions", static_cast<double>(r.preemptions));
  ctx.set("recomputed_tokens", from_base<Tokens>(static_cast<double>(r.recomputed_tokens)));
  ctx.set_number("swapped_blocks", static_cast<double>(r.swapped_blocks));
  ctx.set_number("blocks_allocated", static_cast<double>(r.pool.allocations));
  ctx.set_number("blocks_freed", static_cast<double>(r.pool.frees));
  ctx.set_number("blocks_reused", static_cast<double>(r.pool.reuses));
  ctx.set("generated_tokens", from_base<Tokens>(static_cast<double>(r.generated_tokens)));
  if (block_bytes) {
    ctx.set("block_bytes", *block_bytes);
    ctx.set("pool_bytes", *block_bytes * static_cast<double>(cfg.blocks));
    ctx.set("peak_bytes", *block_bytes * static_cast<double>(r.pool.peak_used));
    ctx.set("reservation_bytes_per_request", *token_bytes * static_cast<double>(max_len));
  }

  ctx.add_table(timeline_table(r, cfg, static_cast<std::size_t>(std::max<std::int64_t>(2, ctx.integer("samples")))));

  ctx.add_table(requests_table(requests, r, block, max_len));

  if (cfg.trace) ctx.add_table(trace_table(ctx, r));
  ctx.note(fmt::format("{} requests over {} blocks of {} tokens; a step is one scheduler iteration: every running sequence adds one "
                       "token, then (if nothing was preempted) waiting requests are admitted first-come first-served",
                       requests.size(), cfg.blocks, block));
  ctx.note(fmt::format("contiguous reservation of --max-len {} tokens per request would waste {} of what it reserves and fit {} "
                       "sequences at once in this pool; paging peaked at {} running",
                       max_len, ctx.quote_percent(1.0 - static_cast<double>(used) / (n * static_cast<double>(max_len))),
                       static_cast<std::int64_t>(static_cast<double>(cfg.blocks * block) / static_cast<double>(max_len)), peak_running));
  if (r.preemptions > 0)
    ctx.note(cfg.preemption == Preemption::recompute
                 ? fmt::format("{} preemptions (last admitted first); {} tokens prefilled again on resumption", r.preemptions, r.recomputed_tokens)
                 : fmt::format("{} preemptions (last admitted first); {} blocks swapped out to host memory and back", r.preemptions, r.swapped_blocks));
  if (r.samples.size() < static_cast<std::size_t>(r.samples.back().step + 1))
    ctx.note("averages are over the steps that had work; idle gaps between arrivals are skipped");
  ctx.note("every prompt and output token occupies a slot until its request finishes; blocks are per device (all layers' K and V "
           "of block_size tokens)");
}

}  // namespace

Calculator paged_calculator() {
  Calculator c;
  c.name = "paged";
  c.summary = "PagedAttention block-allocator simulation: blocks over time, fragmentation, preemption, reuse, reservation waste";
  c.description =
      "Simulates a continuous-batching server over a pool of fixed-size KV blocks (Kwon et al. 2023): requests arrive, are "
      "admitted first-come first-served when their blocks are free (backfill), take a new block each time their last one "
      "fills, are preempted last-admitted-first when none is free (recompute or swap), and free their blocks when done. "
      "Reports blocks in use over time, internal fragmentation (empty slots in allocated blocks), the waste of reserving "
      "--max-len contiguous tokens per request, preemptions, and blocks freed and reused. --trace lists every step.";
  c.refs = {model_ref()};
  c.inputs = {
      {.name = "block_size", .kind = InputKind::integer, .help = "tokens per KV block (vLLM's default is 16)", .default_value = "16",
       .example = "32", .most = 1'048'576},
      {.name = "blocks", .kind = InputKind::integer, .help = "blocks in the pool (or give --memory with a model)", .example = "2048",
       .optional = true},
      {.name = "memory", .kind = InputKind::quantity, .dim = dims::information,
       .help = "KV memory per device; with a model, blocks = memory / block bytes", .example = "40GB", .optional = true},
      {.name = "requests", .kind = InputKind::text,
       .help = "request list: PROMPT+OUTPUT[@ARRIVAL_STEP], NxPROMPT+OUTPUT for N copies, comma-separated",
       .example = "4x512+128,60+940@10", .optional = true},
      {.name = "requests_file", .kind = InputKind::text,
       .help = "file of requests, one per line: PROMPT OUTPUT [ARRIVAL_STEP] or the --requests syntax; # comments",
       .example = "trace.txt", .optional = true, .names_file = true},
      {.name = "count", .kind = InputKind::integer, .help = "a seeded random stream of this many requests", .example = "500",
       .optional = true},
      {.name = "seed", .kind = InputKind::integer, .help = "seed of the random stream", .default_value = "1", .example = "7",
       .bound = Bound::non_negative, .most = kMaxSeed},
      {.name = "prompt_mean", .kind = InputKind::quantity, .dim = dims::token, .help = "mean prompt length of the random stream",
       .default_value = "512", .example = "1000"},
      {.name = "output_mean", .kind = InputKind::quantity, .dim = dims::token, .help = "mean output length of the random stream",
       .default_value = "256", .example = "300"},
      {.name = "length_dist", .kind = InputKind::choice,
       .help = "length distribution of the random stream: fixed, uniform on [1, 2 x mean - 1], exponential with the mean",
       .default_value = "exponential", .example = "uniform", .choices = {"fixed", "uniform", "exponential"}},
      {.name = "arrival_rate", .kind = InputKind::quantity, .dim = dims::none,
       .help = "random stream: Poisson arrivals per step (0: all at step 0)", .default_value = "0", .example = "0.5",
       .bound = Bound::non_negative},
      {.name = "max_len", .kind = InputKind::quantity, .dim = dims::token,
       .help = "longest sequence accepted: what contiguous allocation reserves per request (default: the model's maximum "
               "context, else 4096)",
       .default_value = "4096", .example = "4000", .catalog = "model.max_context"},
      {.name = "max_running", .kind = InputKind::integer, .help = "sequences that may run at once (vLLM's max_num_seqs)",
       .default_value = "256", .example = "64"},
      {.name = "preemption", .kind = InputKind::choice,
       .help = "what preemption does: recompute (free, prefill again) or swap (copy to host and back)",
       .default_value = "recompute", .example = "swap", .choices = {"recompute", "swap"}},
      {.name = "samples", .kind = InputKind::integer, .help = "rows of the timeline table", .default_value = "20", .example = "50"},
      {.name = "trace", .kind = InputKind::flag, .help = "add a table of every scheduler event (arrive, admit, grow, preempt, resume, finish)"},
  };
  for (auto& in : arch_inputs()) c.inputs.push_back(in);
  for (auto& in : precision_inputs()) c.inputs.push_back(in);
  for (auto& in : parallel_inputs()) c.inputs.push_back(in);
  c.outputs = {
      {"requests", dims::none, "requests simulated"},
      {"steps", dims::none, "scheduler steps until the last request finished"},
      {"pool_blocks", dims::none, "blocks in the pool"},
      {"peak_blocks", dims::none, "most blocks in use at once"},
      {"mean_blocks", dims::none, "blocks in use, averaged over steps"},
      {"pool_utilization", dims::none, "mean_blocks / pool_blocks"},
      {"internal_fragmentation", dims::none, "empty slots in allocated blocks / allocated slots, averaged over steps"},
      {"final_block_waste", dims::none, "empty slots in each request's last block at completion / its slots"},
      {"reservation_waste", dims::none, "1 - tokens used / (requests x --max-len): the waste of contiguous max-length reservation"},
      {"reservation_concurrency", dims::none, "sequences the pool could hold at once if each reserved --max-len (rounded down)"},
      {"mean_running", dims::none, "running sequences, averaged over steps"},
      {"peak_running", dims::none, "most sequences running at once"},
      {"preemptions", dims::none, "preemptions"},
      {"recomputed_tokens", dims::token, "tokens prefilled again after recompute preemptions"},
      {"swapped_blocks", dims::none, "blocks copied to host memory by swap preemptions (each copied back once)"},
      {"blocks_allocated", dims::none, "blocks handed out"},
      {"blocks_freed", dims::none, "blocks returned to the pool"},
      {"blocks_reused", dims::none, "allocations served by a block that had been freed before"},
      {"generated_tokens", dims::token, "output tokens generated (recomputed ones not counted twice)"},
      {"block_bytes", dims::information, "bytes of one block on one device (with a model)"},
      {"pool_bytes", dims::information, "bytes of the pool"},
      {"peak_bytes", dims::information, "bytes of the peak blocks"},
      {"reservation_bytes_per_request", dims::information, "bytes one contiguous --max-len reservation takes"},
  };
  c.run = run_paged;
  c.source = __FILE__;
  c.tables = {
      {"requests", "requests of the simulation (first 200)"},
      {"timeline", "the block pool over time"},
      {"trace", "scheduler steps"},
  };
  return c;
}

}  // namespace infracalc::kv
