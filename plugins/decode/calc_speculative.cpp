// `decode speculative`: what a draft (or a tree of drafts) buys per target pass, and how the gain
// vanishes once the batch fills the compute a memory-bound step leaves idle.
#include <fmt/format.h>

#include "host/context.hpp"
#include "plugins/decode/decode_calculators.hpp"
#include "plugins/decode/decode_inputs.hpp"
#include "plugins/decode/decode_speculative.hpp"
#include "plugins/kv/kv_arch.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::decode {

namespace {

void calculate_speculative(Context& ctx) {
  const auto k64 = ctx.integer("k");
  if (k64 < 1 || k64 > 64) throw UserError{{"--k: expected 1 to 64 draft tokens per pass, got " + std::to_string(k64), "e.g. --k 4"}};
  const int k = static_cast<int>(k64);
  const double alpha = ctx.number("alpha");
  const double draft_cost = ctx.number("draft_cost");
  const double tau = expected_tokens_per_pass(alpha, k);
  int verify_tokens = k + 1;
  ctx.set_number("tokens_per_pass", tau);
  ctx.set_number("max_tokens_per_pass", k + 1.0);
  if (ctx.has("tree_width")) {
    const auto m = ctx.integer("tree_width");
    if (m < 1 || m > 64) throw UserError{{"--tree-width: expected 1 to 64 candidates per level", "e.g. --tree-width 2"}};
    const double nodes = tree_nodes(static_cast<int>(m), k);
    if (nodes > 65536) throw UserError{{fmt::format("a full tree of width {} and depth {} has {} nodes: too many to verify in one pass", m, k, nodes),
                                        "lower --tree-width or --k"}};
    ctx.set_number("tree_candidates", tree_candidates(static_cast<int>(m), k));
    ctx.set_number("tree_tokens", nodes);
    verify_tokens = static_cast<int>(nodes) + 1;
    ctx.note(fmt::format("tree: {} levels of {} candidates: {}^{} = {} candidate continuations, {} tree tokens verified in one pass "
                         "with tree attention; --alpha is then the chance the right token is among a level's {} candidates",
                         k, m, m, k, tree_candidates(static_cast<int>(m), k), nodes, m));
  }
  ctx.set_number("verify_tokens", verify_tokens);
  ctx.set_number("speedup", speculative_speedup(tau, k, draft_cost));
  ctx.note("tokens per pass = (1 - alpha^(k+1)) / (1 - alpha): draft tokens accepted independently with probability alpha, plus the one the target adds");
  ctx.note("speedup = tokens per pass / (k x draft cost + 1): the verify pass costs one plain step, true only while decode is memory-bound");

  const auto w = resolve_workload(ctx, false);
  const bool roof_known = ctx.has("bandwidth") && (ctx.has("peak") || ctx.ref("gpu") != nullptr);
  if (!w || !roof_known) {
    ctx.note("give --model and --gpu (or --bandwidth and --peak) for the batch-pressure view: where speculation stops paying");
    return;
  }
  const Roof roof = resolve_roof(ctx, true);
  const double batch = batch_of(ctx);
  const Tokens tokens = ctx.get<Tokens>("tokens");
  if (w->arch) kv::note_context_limit(ctx, *w->arch, tokens);
  const SpeculativePoint p = speculative_at(*w, roof, tokens, batch, k, tau, draft_cost, verify_tokens);
  ctx.set("plain_step_time", p.plain_step);
  ctx.set("verify_step_time", p.verify_step);
  ctx.set_number("speedup_at_batch", p.speedup);
  if (auto cross = speculative_crossover(*w, roof, tokens, k, tau, draft_cost, verify_tokens)) {
    ctx.set_number("crossover_batch", *cross);
    ctx.note(fmt::format("from batch {} on, the {} verify tokens per sequence fill the compute a memory-bound step leaves idle and "
                         "speculation costs more than it saves",
                         *cross, verify_tokens));
  } else {
    ctx.note("speculation pays at every batch up to 2^20 at this context");
  }
  Table t;
  t.name = "batch";
  t.title = "speculation against plain decoding by batch (batch-pressure crossover)";
  t.columns = {{"batch", dims::none, ""},       {"plain_step", dims::time, ""}, {"verify_step", dims::time, ""},
               {"draft_time", dims::time, ""},  {"speedup", dims::none, ""},    {"plain_tokens_per_second", dims::token_rate, ""},
               {"speculative_tokens_per_second", dims::token_rate, ""}};
  for (double b = 1; b <= 1024; b *= 2) {
    const SpeculativePoint q = speculative_at(*w, roof, tokens, b, k, tau, draft_cost, verify_tokens);
    const TokensPerSecond plain = from_base<Tokens>(b) / q.plain_step;
    t.rows.push_back({Quantity::number(b), to_quantity(q.plain_step), to_quantity(q.verify_step), to_quantity(q.draft_time),
                      Quantity::number(q.speedup), to_quantity(plain), to_quantity(q.speedup * plain)});
  }
  ctx.add_table(std::move(t));
  ctx.note("draft cost is taken as a fixed fraction of the target's step at every batch; draft-model memory and KV are not modelled");
}

}  // namespace

Calculator speculative_calculator() {
  Calculator c;
  c.name = "speculative";
  c.summary = "speculative decoding: expected tokens per pass, speed-up, Medusa trees, batch-pressure crossover";
  c.description =
      "tokens per target pass = (1 - alpha^(k+1)) / (1 - alpha) (Leviathan et al. 2023); speed-up = that / (k x draft cost "
      "+ 1). With --tree-width m the k levels form a tree of m^k candidates (Medusa) whose nodes are all verified in one "
      "pass. With a model and a device, the verify pass is a decode step carrying k+1 (or tree) tokens per sequence: free "
      "while memory-bound, proportionally dearer once compute binds, so the gain vanishes past a crossover batch.";
  c.refs = model_gpu_refs();
  std::vector<Input> own = {
      {.name = "k", .kind = InputKind::integer, .help = "draft tokens proposed per target pass (tree depth with --tree-width)",
       .example = "4"},
      {.name = "alpha", .kind = InputKind::quantity, .dim = dims::none,
       .help = "probability each draft token is accepted (independently)", .example = "0.8", .bound = Bound::open_fraction},
      {.name = "draft_cost", .kind = InputKind::quantity, .dim = dims::none,
       .help = "time of one draft step as a fraction of one target step (0 for Medusa heads)", .default_value = "0",
       .example = "0.05", .bound = Bound::non_negative},
      {.name = "tree_width", .kind = InputKind::integer, .help = "candidates per level of a draft tree (Medusa's m)",
       .example = "2", .optional = true},
      {.name = "batch", .kind = InputKind::integer, .help = "sequences decoded together", .default_value = "1", .example = "64", .most = kMaxBatch, .most_why = kBatchWhy},
      {.name = "tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "context held per sequence",
       .default_value = "0", .example = "4k", .bound = Bound::non_negative},
  };
  c.inputs = join(join(own, model_inputs()), device_inputs(false));
  c.outputs = {
      {"tokens_per_pass", dims::none, "expected tokens each target pass yields"},
      {"max_tokens_per_pass", dims::none, "k + 1: every draft accepted"},
      {"tree_candidates", dims::none, "candidate continuations of the tree: m^k"},
      {"tree_tokens", dims::none, "tokens in the tree, all verified in one pass"},
      {"verify_tokens", dims::none, "tokens per sequence in one verify pass"},
      {"speedup", dims::none, "ideal speed-up: tokens per pass / (k x draft cost + 1)"},
      {"plain_step_time", dims::time, "one plain decode step at --batch"},
      {"verify_step_time", dims::time, "one verify pass at --batch"},
      {"speedup_at_batch", dims::none, "speed-up at --batch on this device"},
      {"crossover_batch", dims::none, "smallest batch at which speculation is slower than plain decoding"},
  };
  c.run = calculate_speculative;
  c.source = __FILE__;
  c.tables = {
      {"batch", "speculation against plain decoding by batch (the batch-pressure crossover)"},
  };
  return c;
}

}  // namespace infracalc::decode
