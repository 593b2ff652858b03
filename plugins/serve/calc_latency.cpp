// `serve latency`: a turn's latency budget stage by stage, and what reasoning tokens add to it.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "host/token_inputs.hpp"
#include "units/counts.hpp"
#include "plugins/serve/serve_calculators.hpp"
#include "plugins/serve/serve_math.hpp"
#include "plugins/serve/serve_setup.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::serve {

namespace {


struct Stage {
  std::string name;
  Seconds time;
};

constexpr std::string_view kRetrieval[] = {"embed", "vector_search", "keyword_search", "rerank"};
constexpr std::string_view kBefore[] = {"network", "queue", "tokenizer"};

std::int64_t tokens_of(Context& ctx, std::string_view key) { return ctx.has(key) ? whole_tokens(ctx, key, 0, 1'000'000'000) : 0; }

// The turn's token counts and whether it is itemised or one measured base turn.
struct Turn {
  std::int64_t prompt = 0;
  std::int64_t cached = 0;
  std::int64_t output = 0;
  std::int64_t reasoning = 0;
  bool base_turn = false;
};

// What prefill and decode take. Every generated token after the first (which the prefill yields) is one decode
// step; reasoning tokens add one step each.
struct Timing {
  Seconds prefill{};
  Seconds prefill_uncached{};
  Seconds answer_decode{};
  Seconds all_decode{};
  Seconds tpot{};
  std::int64_t all_steps = 0;
};

// The stages' start and end on the turn's clock.
struct Waterfall {
  Seconds total{};
  Seconds first_token{};
  Seconds first_visible{};
  bool seen_prefill = false;
};

Turn read_turn(Context& ctx) {
  Turn turn;
  turn.prompt = tokens_of(ctx, "prompt_tokens");
  turn.cached = tokens_of(ctx, "cached_prefix_tokens");
  turn.output = tokens_of(ctx, "output_tokens");
  turn.reasoning = tokens_of(ctx, "reasoning_tokens");
  if (turn.cached > turn.prompt) throw UserError{{"--cached-prefix-tokens exceeds --prompt-tokens", "the cached prefix is part of the prompt"}};
  turn.base_turn = ctx.has("base_turn");
  bool itemised = ctx.has("retrieval") || ctx.has("prefill_time") || ctx.has("post_processing") || turn.prompt > 0 || turn.output > 0;
  for (auto k : kBefore) itemised |= ctx.has(k);
  for (auto k : kRetrieval) itemised |= ctx.has(k);
  if (turn.base_turn && itemised)
    throw UserError{{"--base-turn replaces the itemised stages", "give --base-turn with --reasoning-tokens and --tpot, or the stages"}};
  if (ctx.has("retrieval"))
    for (auto k : kRetrieval)
      if (ctx.has(k)) throw UserError{{"--retrieval is the sum of --embed, --vector-search, --keyword-search and --rerank", "give one or the parts"}};
  return turn;
}

// Prefill: measured, at a rate, or modelled (only the uncached suffix is computed); decode: at --tpot or modelled.
Timing price_turn(Context& ctx, const Turn& turn, const Replica& rep, bool can_model) {
  Timing tm;
  if (ctx.has("prefill_time")) {
    tm.prefill = tm.prefill_uncached = ctx.get<Seconds>("prefill_time");
    if (turn.cached > 0) ctx.note("--prefill-time is taken as measured with the cache: --cached-prefix-tokens does not change it");
  } else if (ctx.has("prefill_rate") && !ctx.has("step_time")) {
    const TokensPerSecond rate = ctx.get<TokensPerSecond>("prefill_rate");
    tm.prefill = from_base<Tokens>(static_cast<double>(turn.prompt - turn.cached)) / rate;
    tm.prefill_uncached = from_base<Tokens>(static_cast<double>(turn.prompt)) / rate;
  } else if (turn.prompt > 0) {
    tm.prefill = prefill_time(*rep.model, turn.prompt, turn.cached);
    tm.prefill_uncached = prefill_time(*rep.model, turn.prompt, 0);
  }
  const std::int64_t answer_steps = std::max<std::int64_t>(0, turn.output - 1);
  tm.all_steps = answer_steps + turn.reasoning;
  if (ctx.has("tpot")) {
    tm.tpot = ctx.get<Seconds>("tpot");
    tm.answer_decode = static_cast<double>(answer_steps) * tm.tpot;
    tm.all_decode = static_cast<double>(tm.all_steps) * tm.tpot;
  } else if (tm.all_steps > 0) {
    const int batch = ctx.count("batch");
    tm.answer_decode = decode_time(*rep.model, batch, turn.prompt, answer_steps);
    tm.all_decode = decode_time(*rep.model, batch, turn.prompt, tm.all_steps);
    tm.tpot = tm.all_decode / static_cast<double>(tm.all_steps);
  }
  if (turn.base_turn && turn.reasoning > 0 && !ctx.has("tpot") && !can_model)
    throw UserError{{"--reasoning-tokens needs a time per token", "give --tpot, or --model ID --gpu ID"}};
  return tm;
}

// The turn's stages in order, each with a time; retrieval and rerank are summed on the way.
std::vector<Stage> turn_stages(Context& ctx, const Turn& turn, const Timing& tm, Seconds& retrieval, Seconds& rerank) {
  std::vector<Stage> stages;
  auto add = [&](std::string name, Seconds t) {
    if (t.value() > 0) stages.push_back({std::move(name), t});
  };
  if (turn.base_turn) {
    add("base turn", ctx.get<Seconds>("base_turn"));
  } else {
    for (auto k : kBefore)
      if (ctx.has(k)) add(std::string(k), ctx.get<Seconds>(k));
    if (ctx.has("retrieval")) retrieval = ctx.get<Seconds>("retrieval");
    for (auto k : kRetrieval)
      if (ctx.has(k)) {
        const Seconds t = ctx.get<Seconds>(k);
        retrieval += t;
        if (k == "rerank") rerank = t;
      }
    if (ctx.has("retrieval")) add("retrieval", retrieval);
    else
      for (auto k : kRetrieval)
        if (ctx.has(k)) add(std::string(k), ctx.get<Seconds>(k));
    add("prefill", tm.prefill);
  }
  add("reasoning", tm.all_decode - tm.answer_decode);
  if (!turn.base_turn) {
    add("decode", tm.answer_decode);
    if (ctx.has("post_processing")) add("post_processing", ctx.get<Seconds>("post_processing"));
  }
  if (stages.empty()) throw UserError{{"no stages given", "give stage times (--network, --prefill-time, ...) or --base-turn"}};
  return stages;
}

Waterfall report_waterfall(Context& ctx, const std::vector<Stage>& stages) {
  Waterfall w;
  for (const auto& s : stages) w.total += s.time;
  Table t{"waterfall", "latency budget of one turn",
          {{"stage", {}}, {"start", dims::time}, {"time", dims::time}, {"end", dims::time}, {"share", dims::none}}, {}};
  Seconds at{};
  for (const auto& s : stages) {
    t.rows.push_back({s.name, to_quantity(at), to_quantity(s.time), to_quantity(at + s.time), Quantity::number(s.time / w.total)});
    at += s.time;
    if (s.name == "prefill") {
      w.first_token = at;
      w.seen_prefill = true;
    }
    if (s.name == "reasoning") w.first_visible = at;
  }
  ctx.add_table(std::move(t));
  return w;
}

void report_turn(Context& ctx, const Turn& turn, const Timing& tm, const Waterfall& w) {
  const Seconds total = w.total;
  const Seconds reasoning_time = tm.all_decode - tm.answer_decode;
  ctx.set("turn_time", total);
  if (!turn.base_turn && w.seen_prefill) {
    ctx.set("ttft", w.first_token);
    ctx.set("time_to_first_visible_token", turn.reasoning > 0 ? w.first_visible : w.first_token);
  }
  if (turn.reasoning > 0) {
    ctx.set("turn_time_without_reasoning", total - reasoning_time);
    ctx.set("reasoning_added", reasoning_time);
    ctx.set_number("reasoning_slowdown", total / (total - reasoning_time));
  }
  if (tm.tpot.value() > 0) ctx.set("tpot", tm.tpot);
  if (tm.prefill.value() > 0 || tm.prefill_uncached.value() > 0) ctx.set("prefill_time", tm.prefill);
  if (turn.cached > 0 && !ctx.has("prefill_time")) {
    ctx.set("prefill_time_uncached", tm.prefill_uncached);
    if (tm.prefill.value() > 0) ctx.set_number("prefix_cache_speedup", tm.prefill_uncached / tm.prefill);
    ctx.note(fmt::format("prefix cache: {} of {} prompt tokens cached; only the {}-token suffix is prefilled, attending over the cached prefix",
                         turn.cached, turn.prompt, turn.prompt - turn.cached));
  }
}

void note_pricing(Context& ctx, const Turn& turn, const Timing& tm, const Replica& rep) {
  if (rep.model && !ctx.has("tpot") && tm.all_steps > 0 && turn.prompt == 0)
    ctx.note("no --prompt-tokens: decode steps are priced from an empty cache (give the prompt length for its KV reads)");
  if (rep.model && !ctx.has("tpot"))
    ctx.note(fmt::format("decode steps priced by the replica's step model at batch {} (every sequence at the same context), growing from {} "
                         "cached tokens; mean {} per token",
                         ctx.count("batch"), turn.prompt, ctx.quote(tm.tpot)));
  if (turn.base_turn) ctx.note("--base-turn is the whole turn before the added reasoning tokens; each reasoning token adds one decode step");
  else if (turn.output + turn.reasoning > 0) ctx.note("the first generated token comes out of the prefill; every later token is one decode step");
  if (turn.reasoning > 0) ctx.note("reasoning tokens are generated before the visible answer, so the first visible token waits for all of them");
}

void run_latency(Context& ctx) {
  const Turn turn = read_turn(ctx);
  // The replica's step model prices prefill and decode when no measured figure is given.
  const bool need_model = (!ctx.has("tpot") && (turn.output > 1 || turn.reasoning > 0)) ||
                          (!ctx.has("prefill_time") && !ctx.has("prefill_rate") && turn.prompt > turn.cached);
  const bool can_model = ctx.has("step_time") || ctx.ref("model") != nullptr || ctx.has("params") || ctx.has("weights_bytes");
  if (need_model && !can_model)
    throw UserError{{"nothing prices the prefill or decode stages", "give --tpot and --prefill-time (or --prefill-rate), or --model ID --gpu ID"}};
  const Replica rep = can_model && need_model ? resolve_step_model(ctx, true) : Replica{};
  const Timing tm = price_turn(ctx, turn, rep, can_model);

  Seconds retrieval{}, rerank{};
  const std::vector<Stage> stages = turn_stages(ctx, turn, tm, retrieval, rerank);
  const Waterfall w = report_waterfall(ctx, stages);
  report_turn(ctx, turn, tm, w);
  if (retrieval.value() > 0) {
    ctx.set("retrieval_time", retrieval);
    if (rerank.value() > 0) ctx.set_number("rerank_share_of_retrieval", rerank / retrieval);
  }
  if (tm.all_decode.value() > 0) ctx.set_number("decode_share", tm.all_decode / w.total);
  note_pricing(ctx, turn, tm, rep);
}

}  // namespace

Calculator latency_calculator() {
  Calculator c;
  c.name = "latency";
  c.summary = "latency budget of a turn stage by stage (network, queue, tokenizer, retrieval, prefill, decode, post-processing) with "
              "shares; what reasoning tokens add";
  c.description =
      "Sums the stages of one turn and shows them as a waterfall with each stage's share. Retrieval is --retrieval or the sum of "
      "--embed, --vector-search, --keyword-search and --rerank (pre-generation budget, rerank share). Prefill is --prefill-time, "
      "(prompt - cached prefix) / --prefill-rate, or the replica's step model (--model, --gpu: only the uncached suffix is computed, "
      "attending over the cached prefix). Decode is (tokens - 1) x --tpot, or the step model summed token by token at --batch. "
      "--reasoning-tokens adds that many decode steps before the visible answer; with --base-turn: turn = base + reasoning tokens x TPOT.";
  c.refs = replica_refs();
  std::vector<Input> own = {
      {.name = "network", .kind = InputKind::quantity, .dim = dims::time, .help = "network round trip and TLS", .example = "50ms",
       .bound = Bound::non_negative, .optional = true},
      {.name = "queue", .kind = InputKind::quantity, .dim = dims::time, .help = "time waiting for a batch slot", .example = "100ms",
       .bound = Bound::non_negative, .optional = true},
      {.name = "tokenizer", .kind = InputKind::quantity, .dim = dims::time, .help = "tokenisation and request handling", .example = "5ms",
       .bound = Bound::non_negative, .optional = true},
      {.name = "retrieval", .kind = InputKind::quantity, .dim = dims::time, .help = "retrieval as one stage (or give its parts)",
       .example = "200ms", .bound = Bound::non_negative, .optional = true},
      {.name = "embed", .kind = InputKind::quantity, .dim = dims::time, .help = "retrieval: embedding the query", .example = "20ms",
       .bound = Bound::non_negative, .optional = true},
      {.name = "vector_search", .kind = InputKind::quantity, .dim = dims::time, .help = "retrieval: approximate nearest-neighbour search",
       .example = "30ms", .bound = Bound::non_negative, .optional = true},
      {.name = "keyword_search", .kind = InputKind::quantity, .dim = dims::time, .help = "retrieval: keyword (hybrid) search",
       .example = "20ms", .bound = Bound::non_negative, .optional = true},
      {.name = "rerank", .kind = InputKind::quantity, .dim = dims::time, .help = "retrieval: cross-encoder reranking", .example = "150ms",
       .bound = Bound::non_negative, .optional = true},
      {.name = "prefill_time", .kind = InputKind::quantity, .dim = dims::time, .help = "measured prefill time (else from the model)",
       .example = "300ms", .bound = Bound::non_negative, .optional = true},
      {.name = "post_processing", .kind = InputKind::quantity, .dim = dims::time, .help = "detokenising, safety filters, formatting",
       .example = "20ms", .bound = Bound::non_negative, .optional = true},
      {.name = "base_turn", .kind = InputKind::quantity, .dim = dims::time,
       .help = "the whole turn before added reasoning tokens, when the stages are not itemised", .example = "5s", .optional = true},
      {.name = "prompt_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "prompt length", .example = "2000",
       .bound = Bound::non_negative, .optional = true},
      {.name = "cached_prefix_tokens", .kind = InputKind::quantity, .dim = dims::token,
       .help = "tokens of the prompt already in the KV cache (a prefix-cache hit)", .example = "1500", .bound = Bound::non_negative,
       .optional = true},
      {.name = "output_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "visible answer tokens", .example = "300",
       .bound = Bound::non_negative, .optional = true},
      {.name = "reasoning_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "hidden reasoning tokens before the answer",
       .example = "10000", .bound = Bound::non_negative, .optional = true},
      {.name = "tpot", .kind = InputKind::quantity, .dim = dims::time, .help = "measured time per output token (else from the model)",
       .example = "9.5ms", .optional = true},
      {.name = "batch", .kind = InputKind::integer, .help = "sequences decoding together when the model prices decode",
       .default_value = "1", .example = "32", .most = kMaxBatch, .most_why = kBatchWhy},
  };
  c.inputs = concat(own, replica_inputs());
  c.outputs = {
      {"turn_time", dims::time, "sum of the stages"},
      {"ttft", dims::time, "time to the first generated token (end of prefill)"},
      {"time_to_first_visible_token", dims::time, "time to the first answer token (after reasoning)"},
      {"turn_time_without_reasoning", dims::time, "the turn without the reasoning tokens"},
      {"reasoning_added", dims::time, "what the reasoning tokens add"},
      {"reasoning_slowdown", dims::none, "turn time / turn time without reasoning"},
      {"tpot", dims::time, "time per output token (measured, or the mean of the modelled steps)"},
      {"prefill_time", dims::time, "prefill of the uncached prompt"},
      {"prefill_time_uncached", dims::time, "prefill of the whole prompt (no cache hit)"},
      {"prefix_cache_speedup", dims::none, "uncached prefill / prefill with the cached prefix"},
      {"retrieval_time", dims::time, "embed + vector search + keyword search + rerank (pre-generation)"},
      {"rerank_share_of_retrieval", dims::none, "rerank / retrieval"},
      {"decode_share", dims::none, "share of the turn spent generating tokens after the first"},
  };
  c.run = run_latency;
  c.source = __FILE__;
  c.tables = {
      {"waterfall", "latency budget of one turn"},
  };
  return c;
}

}  // namespace infracalc::serve
