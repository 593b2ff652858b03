// cluster layout: the TP/CP/PP/DP/EP layout for a model on N accelerators, why, and the alternatives that
// do not fit or waste more.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>
#include <tuple>

#include "plugins/cluster/cluster_calculators.hpp"
#include "plugins/cluster/cluster_hw.hpp"
#include "plugins/cluster/layout.hpp"
#include "units/counts.hpp"
#include "host/words.hpp"
#include "plugins/decode/efficiency.hpp"
#include "plugins/fit/fit_model.hpp"
#include "units/format.hpp"

namespace infracalc::cluster {

namespace {

// A parallel degree or per-device count (0 when not given); the host checked its declared bound, and a degree
// cannot exceed the accelerators of the job (`most`).
int opt_int(Context& ctx, std::string_view key, std::int64_t most) {
  if (!ctx.has(key)) return 0;
  const int v = ctx.count(key);
  if (v > most)
    throw UserError{{fmt::format("{}: expected a whole number from 1 to {}, got {}", Context::flag_name(key), most, v),
                     "a parallel degree or per-device count cannot exceed --gpus"}};
  return v;
}

std::string verdict_of(const Context& ctx, const Layout& l, const Layout& chosen, std::int64_t chosen_mp, bool by_waste) {
  if (&l == &chosen) return chosen.feasible ? "chosen" : "closest (least memory), rejected: " + chosen.reason;
  if (!l.feasible) return "rejected: " + l.reason;
  const std::int64_t mp = static_cast<std::int64_t>(l.tp) * l.cp * l.pp;
  if (mp > chosen_mp && !by_waste) return fmt::format("fits, but {} model-parallel devices instead of {}", mp, chosen_mp);
  return fmt::format("fits, wastes more ({} vs {})", ctx.quote_percent(l.waste), ctx.quote_percent(chosen.waste));
}

// The global batch when neither --global-batch nor --batch-sequences is given: the model's published recipe
// (`training_batch_tokens` of --model), else a stated rule: 4Mi tokens from 1B parameters (Llama 1 and 2 trained every
// size from 7B to 70B at 4M tokens, Touvron et al. 2023, section 2.2), 0.5Mi below (GPT-3's 125M-760M models, Brown et
// al. 2020, table 2.1). Rounded to whole sequences of --seq; a note says where it came from.
std::int64_t default_global_batch(Context& ctx, double params, Tokens seq) {
  std::optional<Tokens> tokens;
  std::string from;
  if (const Entry* e = ctx.ref("model")) {
    if (auto t = ctx.catalog<Tokens>(*e, "training_batch_tokens")) {
      tokens = *t;
      const auto f = e->field("training_batch_tokens");
      from = fmt::format("{}'s published training recipe (training_batch_tokens{})", e->id(),
                         f && !f->provenance.source.empty() ? ": " + f->provenance.source : std::string());
    }
  }
  if (!tokens) {
    const bool large = params >= 1e9;
    tokens = from_base<Tokens>(large ? 4.0 * 1024 * 1024 : 0.5 * 1024 * 1024);
    from = large ? "the rule for models of 1B parameters and more when the model carries no recipe: 4M tokens, Llama 2's global "
                   "batch for every size from 7B to 70B (Touvron et al. 2023, section 2.2)"
                 : "the rule for models under 1B parameters when the model carries no recipe: 0.5M tokens, GPT-3's batch for its "
                   "125M-760M models (Brown et al. 2020, table 2.1)";
  }
  const double seqs = tokens->value() / seq.value();
  const std::int64_t n = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(seqs)));
  ctx.note(fmt::format("global batch {} ({} of {}) from {}{}; give --global-batch or --batch-sequences to change it",
                       ctx.quote(static_cast<double>(n) * seq), plural(n, "sequence"), ctx.quote(seq), from,
                       std::fabs(seqs - static_cast<double>(n)) > 1e-9 ? fmt::format(" ({} rounded to whole sequences)", ctx.quote(*tokens))
                                                                      : std::string()));
  return n;
}

// The problem the layout search solves: the model, the hardware and the degrees, batch and options the inputs fix
// (checked: fixed degrees must divide the accelerators, --ep the experts).
LayoutProblem read_problem(Context& ctx, const fit::ResolvedModel& model, const Hardware& hw) {
  LayoutProblem p;
  p.arch = *model.arch;
  p.params = model.params;
  p.active = model.active;
  p.gpus = ctx.integer("gpus");
  if (!hw.memory) throw UserError{{"missing the memory per accelerator", "give --gpu ID, --system ID or --memory 80GB"}};
  p.memory = *hw.memory;
  p.peak = hw.peak.value_or(from_base<FlopsPerSecond>(0));
  p.efficiency = ctx.number("matmul_efficiency");
  p.domain = hw.domain;
  p.per_node = hw.per_node;
  p.scaleup = {default_step_latency(hw.scaleup_type), hw.scaleup.value_or(from_base<BytesPerSecond>(450e9))};
  p.scaleout = {default_step_latency("infiniband"), hw.scaleout.value_or(from_base<BytesPerSecond>(50e9))};
  if (!hw.scaleup && p.peak.value() > 0) ctx.note("no scale-up bandwidth known: the time estimate assumes 450 GB/s per direction (NVLink 4)");
  if (!hw.scaleout && p.peak.value() > 0) ctx.note("no scale-out bandwidth known: the time estimate assumes 50 GB/s per accelerator (400 Gb/s)");
  p.seq = ctx.get<Tokens>("seq");
  p.micro_batch = opt_int(ctx, "micro_batch", 1'000'000);
  if (ctx.has("global_batch") && ctx.has("batch_sequences"))
    throw UserError{{"--global-batch and --batch-sequences both give the batch", "give one of them"}};
  if (ctx.has("batch_sequences")) p.global_batch = ctx.integer("batch_sequences");
  if (ctx.has("global_batch")) {
    const double seqs = ctx.get<Tokens>("global_batch").value() / p.seq.value();
    (void)whole_count(seqs, Rounding::down, {"--global-batch", "sequences", "give a global batch in tokens, e.g. 16M"});
    p.global_batch = static_cast<std::int64_t>(std::llround(seqs));
    if (p.global_batch < 1 || std::fabs(seqs - static_cast<double>(p.global_batch)) > 1e-6 * seqs)
      throw UserError{{fmt::format("--global-batch is {:g} sequences of --seq {:g}: not a whole number", seqs, p.seq.value()),
                       "give a global batch that is a multiple of --seq tokens"}};
  }
  if (p.global_batch == 0) p.global_batch = default_global_batch(ctx, p.params, p.seq);
  p.zero = ctx.count("zero");
  if (ctx.origin("zero") == Origin::default_value)
    ctx.note("ZeRO-1 by default: the distributed optimizer (Megatron-LM's --use-distributed-optimizer) shards the optimizer "
             "state over the data-parallel replicas, as large Megatron-LM runs do; --zero 0 keeps a full copy on every replica");
  p.chunks = ctx.text("schedule") == "interleaved" ? opt_int(ctx, "chunks", 1'000'000) : 1;
  p.reserve = ctx.get<Bytes>("framework_reserve");
  const std::string& rc = ctx.text("recompute");
  if (rc == "auto") p.recompute = {fit::Recompute::none, fit::Recompute::selective, fit::Recompute::full};
  else if (rc == "none") p.recompute = {fit::Recompute::none};
  else if (rc == "full") p.recompute = {fit::Recompute::full};
  else p.recompute = {fit::Recompute::selective};
  // No degree exceeds the accelerators.
  p.tp = opt_int(ctx, "tp", p.gpus);
  p.cp = opt_int(ctx, "cp", p.gpus);
  p.pp = opt_int(ctx, "pp", p.gpus);
  p.ep = opt_int(ctx, "ep", p.gpus);
  p.max_tp = opt_int(ctx, "max_tp", p.gpus);
  // Degrees the user fixed must split the accelerators exactly, as --dp must: tp x cp x pp x dp = gpus.
  std::string forced_text;
  std::int64_t forced = 1;
  for (const auto& [key, v] : {std::pair<const char*, std::int64_t>{"tp", p.tp}, {"cp", p.cp}, {"pp", p.pp},
                               {"dp", ctx.has("dp") ? ctx.integer("dp") : 0}}) {
    if (v <= 0) continue;
    forced_text += fmt::format("{}--{} {}", forced_text.empty() ? "" : " x ", key, v);
    forced = v > p.gpus || forced > p.gpus / v ? p.gpus + 1 : forced * v;
  }
  if (forced > 1 && p.gpus % forced != 0)
    throw UserError{{fmt::format("{} does not divide --gpus {}: tp x cp x pp x dp must equal the accelerators", forced_text, p.gpus),
                     fmt::format("pick degrees whose product divides {} ({})", p.gpus, divisors_text(p.gpus))}};
  const bool has_experts = p.arch.moe && p.arch.moe->experts > 1;
  if (p.ep > 1 && !has_experts)
    throw UserError{{fmt::format("--ep {}: {} is dense and has no experts to spread", p.ep, p.arch.id == "flags" ? "the model" : p.arch.id),
                     "drop --ep, or give a mixture-of-experts model"}};
  if (p.ep > 0 && has_experts && p.arch.moe->experts % p.ep != 0)
    throw UserError{{fmt::format("--ep {} does not divide the {} routed experts: every device holds the same number of whole experts", p.ep,
                                 p.arch.moe->experts),
                     fmt::format("give --ep from {}", divisors_text(p.arch.moe->experts))}};

  return p;
}

// Every layout the search evaluates, the chosen one first: by the rule (or by --objective waste), restricted to
// --dp when given; when none fits, the one closest to fitting leads.
std::vector<Layout> ranked_layouts(Context& ctx, const LayoutProblem& p, bool by_waste) {
  std::vector<Layout> all = search_layouts(p);
  if (by_waste)
    std::stable_sort(all.begin(), all.end(), [](const Layout& a, const Layout& b) {
      if (a.feasible != b.feasible) return a.feasible;
      return a.feasible && a.waste < b.waste - 1e-12;
    });
  if (ctx.has("dp")) {
    const std::int64_t dp = ctx.integer("dp");
    std::stable_partition(all.begin(), all.end(), [&](const Layout& l) { return l.dp == dp && l.feasible; });
    for (auto& l : all)
      if (l.dp != dp && l.feasible) {
        l.feasible = false;
        l.reason = fmt::format("dp {} is not the --dp {} asked for", l.dp, dp);
      }
  }
  if (all.empty()) throw UserError{{"no layout to evaluate: the forced degrees leave nothing", "relax --tp/--cp/--pp/--ep"}};
  if (!all.front().feasible) {
    // Nothing fits: show the layout that comes closest (the least memory) as the one to start from.
    auto closest = std::min_element(all.begin(), all.end(), [](const Layout& a, const Layout& b) { return a.total < b.total; });
    std::rotate(all.begin(), closest, closest + 1);
  }
  return all;
}

// The chosen layout's figures, its expected step time at the calibrated efficiencies, and the fits verdict.
void report_chosen(Context& ctx, const LayoutProblem& p, const Layout& best) {
  const std::int64_t best_mp = static_cast<std::int64_t>(best.tp) * best.cp * best.pp;
  ctx.set_number("tp", best.tp);
  ctx.set_number("cp", best.cp);
  ctx.set_number("pp", best.pp);
  ctx.set_number("dp", static_cast<double>(best.dp));
  ctx.set_number("ep", best.ep);
  ctx.set_number("model_parallel_size", static_cast<double>(best_mp));
  ctx.set_number("microbatches", static_cast<double>(best.microbatches));
  if (p.per_node > 0) ctx.set_number("nodes_per_replica", std::ceil(static_cast<double>(best_mp) / p.per_node));
  ctx.set_number("layers_per_stage", std::ceil(static_cast<double>(p.arch.layers) / best.pp));
  ctx.set_number("tp_matrix_share", 1.0 / best.tp);
  ctx.set("weights_per_device", best.weights);
  ctx.set("grads_per_device", best.grads);
  ctx.set("optimizer_per_device", best.optimizer);
  ctx.set("activations_per_device", best.activations);
  ctx.set("framework_reserve", p.reserve);
  ctx.set("memory_per_device", best.total);
  ctx.set("memory", p.memory);
  ctx.set("headroom", p.memory - best.total);
  ctx.set_number("bubble_fraction", best.bubble);
  ctx.set_number("recompute_factor", best.recompute_factor);
  ctx.set_number("estimated_waste", best.waste);
  if (p.peak.value() > 0) {
    ctx.set_number("comm_share", best.comm_share);
    ctx.set_number("estimated_mfu", p.efficiency * (1.0 - best.waste));
    ctx.set("step_time", best.step);
    // Expected: the same layout at the calibrated matrix-multiply share (Megatron-class kernels) with
    // collectives at the calibrated share of the link, plus the engine's fixed time per step.
    const decode::Efficiency& eff = decode::efficiency();
    const int bits = decode::precision_bits(ctx.text("precision"));
    LayoutProblem x = p;
    const double tokens_mb = p.seq.value() * p.micro_batch / best.cp;
    x.efficiency = decode::matmul_share(eff, decode::Engine::megatron, tokens_mb, bits);
    x.attention_efficiency = std::min(1.0, eff.attention_fraction * eff.engine(decode::Engine::megatron).compute_scale);
    x.comm_overlap = eff.training_comm_overlap;
    x.scaleup.beta = p.scaleup.beta * eff.collective_fraction;
    x.scaleout.beta = p.scaleout.beta * eff.collective_fraction;
    x.scaleup.alpha = p.scaleup.alpha + eff.collective_latency;
    x.scaleout.alpha = p.scaleout.alpha + eff.collective_latency;
    const Layout xl = evaluate_layout(x, best.tp, best.cp, best.pp, best.ep, best.recompute);
    const Seconds xstep = xl.step + decode::step_overhead(eff, decode::Engine::megatron, 0);
    if (best.feasible && xstep.value() > 0) {
      ctx.set("expected_step_time", xstep);
      ctx.set_number("expected_mfu", x.efficiency * xl.ideal.value() / xstep.value());
    }
    if (best.feasible) ctx.note(fmt::format("expected: the chosen layout with matrix multiplies at {} of peak and collectives at {} of the link "
                         "(calibrated, data/calibration/efficiency.toml); {}",
                         ctx.quote_percent(x.efficiency), ctx.quote_percent(eff.collective_fraction), decode::band_text("training")));
  }
  const double seqs = static_cast<double>(best.microbatches) * p.micro_batch * static_cast<double>(best.dp);
  const Tokens per_step = from_base<Tokens>(seqs * p.seq.value());
  ctx.set("tokens_per_step", per_step);
  // Days to train a token budget: optimizer steps × the step time, at the ceiling's and the expected step.
  if (ctx.has("tokens") && best.feasible && p.peak.value() > 0) {
    const double steps = std::ceil(ctx.get<Tokens>("tokens") / per_step);
    ctx.set("days_to_train", steps * best.step);
    if (const Value* xs = ctx.result().find("expected_step_time")) ctx.set("expected_days_to_train", steps * Seconds::from_value(xs->q.value));
  }
  ctx.verdict("fits", best.feasible,
              best.feasible ? fmt::format("{} per device of {}", ctx.quote(best.total), ctx.quote(p.memory))
                            : "no layout fits on " + std::to_string(p.gpus) + " accelerators; the closest: " + best.reason);
  if (!best.feasible && ctx.flag("require_fit")) ctx.fail_check();

}

// The chosen degrees and why: each against the nearest smaller value of the same dimension, other degrees equal; of
// that layout's recomputation variants, the one closest to fitting.
Table why_table(const Context& ctx, const LayoutProblem& p, const Hardware& hw, const std::vector<Layout>& all, const Layout& best) {
  const std::int64_t best_mp = static_cast<std::int64_t>(best.tp) * best.cp * best.pp;
  auto nearest = [&](auto degree, auto same) -> const Layout* {
    const Layout* pick = nullptr;
    for (const auto& l : all) {
      if (!same(l) || degree(l) >= degree(best)) continue;
      if (pick == nullptr || degree(l) > degree(*pick) || (degree(l) == degree(*pick) && l.total < pick->total)) pick = &l;
    }
    return pick;
  };
  auto smaller = [&](const Layout* x, const std::string& name, int value) -> std::string {
    if (x == nullptr) return "";
    if (!x->feasible) return fmt::format("; {} {}: {}", name, value, x->reason);
    return fmt::format("; {} {} also fits ({} recomputation) but wastes {} against {}", name, value, recompute_name(x->recompute),
                       ctx.quote_percent(x->waste), ctx.quote_percent(best.waste));
  };
  Table why{"layout", "the chosen layout and why", {{"dimension"}, {"degree", dims::none}, {"why"}}, {}};
  const std::string domain_text = p.domain > 0 ? fmt::format("the {}-accelerator scale-up domain{}", p.domain,
                                                             hw.system ? " of " + hw.system->id() : std::string())
                                               : std::string("an unknown scale-up domain (give --system or --scaleup-domain)");
  {
    std::string t = best.tp == 1 ? std::string("no tensor parallelism: each device holds whole matrices")
                                 : fmt::format("each layer's matrices split {} ways inside {}: its all-gathers and reduce-scatters stay on "
                                               "the scale-up link", best.tp, domain_text);
    // The next larger tp with the same other degrees: mention it when none of its variants fits.
    const Layout* bigger = nullptr;
    bool bigger_fits = false;
    for (const auto& l : all)
      if (l.tp == 2 * best.tp && l.cp == best.cp && l.pp == best.pp && l.ep == best.ep) {
        bigger_fits = bigger_fits || l.feasible;
        if (bigger == nullptr || l.total < bigger->total) bigger = &l;
      }
    if (bigger && !bigger_fits) t += fmt::format("; tp {}: {}", bigger->tp, bigger->reason);
    const Layout* x = nearest([](const Layout& l) { return l.tp; },
                              [&](const Layout& l) { return l.cp == best.cp && l.pp == best.pp && l.ep == best.ep; });
    if (x) t += smaller(x, "tp", x->tp);
    why.rows.push_back({std::string("tensor (TP)"), Quantity::number(best.tp), t});
  }
  {
    std::string t = best.cp == 1 ? std::string("the sequence fits without splitting")
                                 : fmt::format("each rank holds {} of the {}; K and V are all-gathered across the {} ranks every layer",
                                               ctx.quote(p.seq / static_cast<double>(best.cp)), ctx.quote(p.seq), best.cp);
    const Layout* x = nearest([](const Layout& l) { return l.cp; },
                              [&](const Layout& l) { return l.tp == best.tp && l.pp == best.pp && l.ep == best.ep; });
    if (x) t += smaller(x, "cp", x->cp);
    why.rows.push_back({std::string("context (CP)"), Quantity::number(best.cp), t});
  }
  {
    std::string t = best.pp == 1 ? std::string("one stage holds the whole model")
                                 : fmt::format("{} stages of up to {} layers; a replica spans {} accelerators{}", best.pp,
                                               ctx.quote_count(std::ceil(static_cast<double>(p.arch.layers) / best.pp)), best_mp,
                                               p.per_node > 0 ? fmt::format(" = {} nodes, stages talk point-to-point across nodes",
                                                                            ctx.quote_count(std::ceil(static_cast<double>(best_mp) / p.per_node)))
                                                              : std::string());
    const Layout* x = nearest([](const Layout& l) { return l.pp; },
                              [&](const Layout& l) { return l.tp == best.tp && l.cp == best.cp && l.ep == best.ep; });
    if (x) t += smaller(x, "pp", x->pp);
    why.rows.push_back({std::string("pipeline (PP)"), Quantity::number(best.pp), t});
  }
  why.rows.push_back({std::string("data (DP)"), Quantity::number(static_cast<double>(best.dp)),
                      fmt::format("the rest: {} across the scale-out fabric, {} each per step; gradients reduce while the last "
                                  "backward runs{}",
                                  plural(best.dp, "replica"), plural(best.microbatches, "micro-batch", "micro-batches"),
                                  p.zero > 0 ? fmt::format(", ZeRO-{} shards over dp x cp", p.zero) : std::string())});
  if (p.arch.moe && p.arch.moe->experts > 1) {
    std::string t = fmt::format("{} of {} routed experts per device, dispatched and combined with all-to-alls inside the data-parallel group",
                                (p.arch.moe->experts + best.ep - 1) / best.ep, p.arch.moe->experts);
    const Layout* x = nearest([](const Layout& l) { return l.ep; },
                              [&](const Layout& l) { return l.tp == best.tp && l.cp == best.cp && l.pp == best.pp; });
    if (x) t += smaller(x, "ep", x->ep);
    why.rows.push_back({std::string("expert (EP)"), Quantity::number(best.ep), t});
  }
  {
    std::string t = fmt::format("{} recomputation", recompute_name(best.recompute));
    if (best.recompute != fit::Recompute::none) {
      const Layout* x = nearest([](const Layout& l) { return static_cast<int>(l.recompute); },
                                [&](const Layout& l) { return l.tp == best.tp && l.cp == best.cp && l.pp == best.pp && l.ep == best.ep; });
      if (x && !x->feasible) t += fmt::format("; {}: {}", recompute_name(x->recompute), x->reason);
      t += fmt::format("; the hardware runs {}x the model FLOPs", ctx.quote_number(best.recompute_factor));
    }
    why.rows.push_back({std::string("recomputation"), Quantity::number(static_cast<double>(static_cast<int>(best.recompute))), t});
  }
  return why;
}

// The best other feasible layouts and the smaller ones that do not fit.
Table alternatives_table(const Context& ctx, const LayoutProblem& p, const std::vector<Layout>& all, const Layout& best, bool by_waste) {
  const std::int64_t best_mp = static_cast<std::int64_t>(best.tp) * best.cp * best.pp;
  Table alt{"alternatives", "alternatives (fewest model-parallel devices first; rejected ones with the reason)",
            {{"tp", dims::none}, {"cp", dims::none}, {"pp", dims::none}, {"dp", dims::none}, {"ep", dims::none}, {"recompute"},
             {"microbatches", dims::none}, {"memory", dims::information}, {"bubble", dims::none}, {"waste", dims::none}, {"verdict"}}, {}};
  std::set<std::tuple<int, int, int, int>> seen;
  auto add = [&](const Layout& l) {
    if (!seen.insert({l.tp, l.cp, l.pp, l.ep}).second) return false;
    alt.rows.push_back({Quantity::number(l.tp), Quantity::number(l.cp), Quantity::number(l.pp), Quantity::number(static_cast<double>(l.dp)),
                        Quantity::number(l.ep), std::string(recompute_name(l.recompute)), Quantity::number(static_cast<double>(l.microbatches)),
                        to_quantity(l.total), Quantity::number(l.bubble), Quantity::number(l.waste), verdict_of(ctx, l, best, best_mp, by_waste)});
    return true;
  };
  add(best);
  int feasible_rows = 0;
  for (const auto& l : all)
    if (l.feasible && feasible_rows < 6 && add(l)) ++feasible_rows;
  // Rejected layouts: of each degree combination the variant closest to fitting; the chosen layout's smaller
  // neighbours first (fewer stages, then less context or tensor parallelism), then the rest by model-parallel size.
  std::vector<const Layout*> rejected;
  for (const auto& l : all) {
    if (l.feasible) continue;
    auto same = std::find_if(rejected.begin(), rejected.end(), [&](const Layout* r) {
      return r->tp == l.tp && r->cp == l.cp && r->pp == l.pp && r->ep == l.ep;
    });
    if (same == rejected.end()) rejected.push_back(&l);
    else if (l.total < (*same)->total) *same = &l;
  }
  auto rank = [&](const Layout* l) {
    const bool outside = p.domain > 0 && l->tp > p.domain;
    const int neighbour = l->tp == best.tp && l->cp == best.cp && l->ep == best.ep && l->pp < best.pp   ? 0
                          : l->tp == best.tp && l->pp == best.pp && l->ep == best.ep && l->cp < best.cp ? 1
                          : l->cp == best.cp && l->pp == best.pp && l->ep == best.ep && l->tp < best.tp ? 2
                                                                                                        : 3;
    const auto mp = static_cast<std::int64_t>(l->tp) * l->cp * l->pp;
    return std::make_tuple(outside, neighbour, neighbour < 3 ? -mp : std::llabs(mp - best_mp));
  };
  std::stable_sort(rejected.begin(), rejected.end(), [&](const Layout* a, const Layout* b) { return rank(a) < rank(b); });
  int rejected_rows = 0;
  for (const Layout* l : rejected)
    if (!(p.domain > 0 && l->tp > p.domain) && rejected_rows < 8 && add(*l)) ++rejected_rows;
  for (const Layout* l : rejected)
    if (p.domain > 0 && l->tp > p.domain) {
      add(*l);
      break;
    }
  return alt;
}

Table memory_table(const LayoutProblem& p, const Layout& best) {
  Table mem{"memory", "memory on the busiest device of the chosen layout", {{"part"}, {"bytes", dims::information}}, {}};
  mem.rows.push_back({std::string("weights"), to_quantity(best.weights)});
  mem.rows.push_back({std::string("gradients"), to_quantity(best.grads)});
  mem.rows.push_back({std::string("master weights and optimizer moments"), to_quantity(best.optimizer)});
  mem.rows.push_back({std::string("activations (first stage, 1F1B)"), to_quantity(best.activations)});
  mem.rows.push_back({std::string("framework reserve"), to_quantity(p.reserve)});
  mem.rows.push_back({std::string("total"), to_quantity(best.total)});
  return mem;
}

void run_layout(Context& ctx) {
  const fit::ResolvedModel model = fit::resolve_model(ctx, true);
  const Hardware hw = resolve_hardware(ctx);
  const LayoutProblem p = read_problem(ctx, model, hw);
  const bool by_waste = ctx.text("objective") == "waste";
  const std::vector<Layout> all = ranked_layouts(ctx, p, by_waste);
  const Layout& best = all.front();
  report_chosen(ctx, p, best);
  ctx.add_table(why_table(ctx, p, hw, all, best));
  ctx.add_table(alternatives_table(ctx, p, all, best, by_waste));
  ctx.add_table(memory_table(p, best));
  ctx.note(by_waste ? "objective waste: the layout with the least estimated waste (bubble, recomputation, exposed communication) "
                      "among those that fit"
                    : "rule (Narayanan et al. 2021, section 3): tensor parallelism inside the scale-up domain, pipeline stages across "
                      "nodes, data parallelism across the fabric; the fewest model-parallel devices (tp x cp x pp) that fit, then the "
                      "least estimated waste (bubble, recomputation, exposed communication); --objective waste ranks by waste alone");
  ctx.note(fmt::format("memory from the fit plugin: mixed-precision AdamW state (16 B/param) split by tp and pp{}, Korthikanti "
                       "activations for s/cp = {}; full recomputation keeps each layer's input and recomputes one layer "
                       "at a time with FlashAttention",
                       p.zero > 0 ? fmt::format(", ZeRO-{} over dp x cp", p.zero) : std::string(", no ZeRO sharding (--zero 0)"),
                       ctx.quote(p.seq / static_cast<double>(best.cp))));
  if (p.peak.value() > 0)
    ctx.note(fmt::format("time estimate: compute at {} of peak, Megatron sequence-parallel TP collectives, Llama 3-style CP "
                         "all-gathers and MoE all-to-alls exposed, DP gradient reduction hidden behind the last backward, point-to-point "
                         "pipeline sends and kernel overheads left out",
                         ctx.quote_percent(p.efficiency)));
  ctx.note(fmt::format("considered {} layouts", all.size()));
}

}  // namespace

Calculator layout_calculator() {
  Calculator c;
  c.name = "layout";
  c.summary = "parallel layout (TP, CP, PP, DP, EP) for training a model on N accelerators: memory per device, why, alternatives";
  c.description =
      "Every combination of tensor (TP), context (CP), pipeline (PP), data (DP) and expert (EP) parallelism and recomputation "
      "is evaluated: memory per device from the fit plugin (training state split by tp and pp and sharded by ZeRO over dp x cp, "
      "Korthikanti activations for s/cp tokens), the rules (TP divides the heads and stays in the scale-up domain, the global "
      "batch fills the pipeline: M >= PP), and an estimate of wasted time (pipeline bubble, recomputation, exposed TP/CP/EP "
      "collectives in the alpha-beta model, DP gradient sync beyond the last backward). The chosen layout has the fewest "
      "model-parallel devices that fit (Narayanan et al. 2021), then the least waste.";
  c.refs = {{"model", {"model"}, "model id: architecture and parameter count"}};
  for (auto& r : hardware_refs()) c.refs.push_back(r);
  c.inputs = fit::model_inputs();
  c.inputs.push_back({.name = "gpus", .kind = InputKind::integer, .help = "accelerators in the job", .example = "16384"});
  c.inputs.push_back({.name = "tokens", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "training tokens, for the days to train (ceiling and expected)", .example = "15.6T", .optional = true});
  c.inputs.push_back({.name = "seq", .kind = InputKind::quantity, .dim = dims::token, .help = "sequence length",
                      .default_value = "8192", .example = "131072"});
  c.inputs.push_back({.name = "global_batch", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "tokens per optimizer step (sets the micro-batches each pipeline runs; default: the model's published recipe, else 4M tokens from 1B parameters, 0.5M below)", .example = "16M", .optional = true});
  c.inputs.push_back({.name = "batch_sequences", .kind = InputKind::integer,
                      .help = "sequences per optimizer step (instead of --global-batch)", .example = "2048", .optional = true, .most = kMaxBatch, .most_why = kBatchWhy});
  c.inputs.push_back({.name = "micro_batch", .kind = InputKind::integer, .help = "sequences per micro-batch", .default_value = "1", .most = kMaxBatch, .most_why = kBatchWhy});
  c.inputs.push_back({.name = "zero", .kind = InputKind::integer,
                      .help = "ZeRO stage over dp x cp: 0 none, 1 optimizer state (the default: Megatron-LM's distributed optimizer), 2 + gradients, 3 + weights",
                      .default_value = "1", .bound = Bound::non_negative, .most = 3, .most_why = "ZeRO stages are 0, 1, 2 and 3"});
  c.inputs.push_back({.name = "recompute", .kind = InputKind::choice,
                      .help = "activation recomputation: auto (the least that fits), none, selective, full", .default_value = "auto",
                      .choices = {"auto", "none", "selective", "full"}});
  c.inputs.push_back({.name = "schedule", .kind = InputKind::choice, .help = "pipeline schedule: 1f1b or interleaved",
                      .default_value = "1f1b", .choices = {"1f1b", "interleaved"}});
  c.inputs.push_back({.name = "chunks", .kind = InputKind::integer, .help = "model chunks per device for --schedule interleaved",
                      .default_value = "2"});
  c.inputs.push_back({.name = "objective", .kind = InputKind::choice,
                      .help = "fewest: the fewest model-parallel devices that fit, then the least waste (Narayanan et al. 2021); "
                              "waste: the least estimated waste among layouts that fit",
                      .default_value = "fewest", .choices = {"fewest", "waste"}});
  c.inputs.push_back({.name = "tp", .kind = InputKind::integer, .help = "force the tensor-parallel degree", .example = "8", .optional = true, .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "cp", .kind = InputKind::integer, .help = "force the context-parallel degree", .example = "16", .optional = true, .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "pp", .kind = InputKind::integer, .help = "force the pipeline degree", .example = "16", .optional = true, .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "dp", .kind = InputKind::integer, .help = "force the data-parallel degree", .example = "128", .optional = true});
  c.inputs.push_back({.name = "ep", .kind = InputKind::integer, .help = "force the expert-parallel degree (MoE)", .example = "64", .optional = true, .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "max_tp", .kind = InputKind::integer, .help = "largest tensor-parallel degree to consider", .example = "8",
                      .optional = true, .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "framework_reserve", .kind = InputKind::quantity, .dim = dims::information,
                      .help = "CUDA context, communication buffers and allocator slack per device", .default_value = "2GB",
                      .bound = Bound::non_negative});
  c.inputs.push_back({.name = "matmul_efficiency", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "share of peak the matrix multiplies reach (time estimate only; an assumption)", .default_value = "0.7",
                      .bound = Bound::fraction});
  c.inputs.push_back(precision_input());
  for (auto& in : hardware_inputs()) c.inputs.push_back(in);
  c.inputs.push_back({.name = "require_fit", .kind = InputKind::flag, .help = "exit 1 when no layout fits"});
  c.outputs = {
      {"tp", dims::none, "tensor-parallel degree"},
      {"cp", dims::none, "context-parallel degree"},
      {"pp", dims::none, "pipeline stages"},
      {"dp", dims::none, "data-parallel replicas"},
      {"ep", dims::none, "expert-parallel degree (1 for dense models)"},
      {"model_parallel_size", dims::none, "accelerators per replica: tp x cp x pp"},
      {"microbatches", dims::none, "micro-batches per pipeline per step"},
      {"nodes_per_replica", dims::none, "nodes one replica spans"},
      {"layers_per_stage", dims::none, "layers on the busiest stage"},
      {"tp_matrix_share", dims::none, "share of each weight matrix one tensor-parallel rank holds: 1/tp"},
      {"weights_per_device", dims::information, "weights on the busiest device"},
      {"grads_per_device", dims::information, "gradients on the busiest device"},
      {"optimizer_per_device", dims::information, "master weights and optimizer moments on the busiest device"},
      {"activations_per_device", dims::information, "activations on the first pipeline stage"},
      {"framework_reserve", dims::information, "framework reserve"},
      {"memory_per_device", dims::information, "total on the busiest device"},
      {"memory", dims::information, "device memory"},
      {"headroom", dims::information, "memory - total"},
      {"bubble_fraction", dims::none, "pipeline bubble share"},
      {"recompute_factor", dims::none, "hardware FLOPs per model FLOP from recomputation"},
      {"comm_share", dims::none, "exposed TP/CP/EP communication share of a stage's time (estimate)"},
      {"estimated_waste", dims::none, "share of the step not spent on model FLOPs at the matmul efficiency (estimate)"},
      {"estimated_mfu", dims::none, "matmul efficiency x (1 - waste) (estimate)"},
      {"step_time", dims::time, "estimated time per optimizer step"},
      {"expected_step_time", dims::time, "calibrated time per optimizer step (published training runs)"},
      {"expected_mfu", dims::none, "calibrated model FLOPs utilisation of the chosen layout"},
      {"tokens_per_step", dims::token, "tokens per optimizer step"},
      {"days_to_train", dims::time, "optimizer steps for --tokens x step_time", "d"},
      {"expected_days_to_train", dims::time, "optimizer steps for --tokens x expected_step_time", "d"},
  };
  c.run = run_layout;
  c.source = __FILE__;
  c.tables = {
      {"alternatives", "layouts considered, fewest model-parallel devices first, rejected ones with the reason"},
      {"layout", "the chosen layout and why"},
      {"memory", "memory on the busiest device of the chosen layout"},
  };
  c.verdicts = {
      {"fits", "the chosen layout fits device memory"},
  };
  return c;
}

}  // namespace infracalc::cluster
