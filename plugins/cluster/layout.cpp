#include "plugins/cluster/layout.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "plugins/cluster/pipeline.hpp"
#include "plugins/cluster/cluster_math.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::cluster {

namespace {

Bytes b(double v) { return from_base<Bytes>(v); }
Seconds s(double v) { return from_base<Seconds>(v); }

// Layouts are judged without a Context: their reasons quote sizes with the default options.
std::string gb(Bytes x) { return format_human(to_quantity(x)); }

bool moe(const ModelArch& m) { return m.moe && m.moe->experts > 1; }

}  // namespace

const char* recompute_name(fit::Recompute r) {
  switch (r) {
    case fit::Recompute::none: return "none";
    case fit::Recompute::selective: return "selective";
    case fit::Recompute::full: return "full";
  }
  return "?";
}

Layout evaluate_layout(const LayoutProblem& p, int tp, int cp, int pp, int ep, fit::Recompute r) {
  Layout l;
  l.tp = tp;
  l.cp = cp;
  l.pp = pp;
  l.ep = ep;
  l.recompute = r;
  l.weights = l.grads = l.optimizer = l.activations = l.total = b(0);
  l.step = l.ideal = s(0);
  const ModelArch& m = p.arch;
  const std::int64_t mp = static_cast<std::int64_t>(tp) * cp * pp;
  auto reject = [&](std::string why) {
    l.feasible = false;
    if (l.reason.empty()) l.reason = std::move(why);
  };
  if (p.gpus % mp != 0) {
    reject(fmt::format("tp x cp x pp = {} does not divide {} accelerators", mp, p.gpus));
    return l;
  }
  l.dp = p.gpus / mp;

  // Rules of the parallelisms themselves.
  if (m.attention_heads % tp != 0) reject(fmt::format("tp {} does not divide the {} attention heads", tp, m.attention_heads));
  if (!m.mla && m.kv_heads % tp != 0 && tp % m.kv_heads != 0)
    reject(fmt::format("tp {} and the {} KV heads do not divide one another", tp, m.kv_heads));
  if (pp * p.chunks > m.layers) reject(fmt::format("{} stages x {} chunks exceed the {} layers", pp, p.chunks, m.layers));
  const double seq = p.seq.value();
  if (cp > 1 && std::fmod(seq, 2.0 * cp) != 0)
    reject(fmt::format("cp {} does not split {} into 2 x cp equal chunks", cp, format_human(to_quantity(p.seq))));
  if (moe(m)) {
    if (m.moe->experts % ep != 0) reject(fmt::format("ep {} does not divide the {} experts", ep, m.moe->experts));
    if ((l.dp * cp) % ep != 0) reject(fmt::format("ep {} does not divide dp x cp = {}", ep, l.dp * cp));
  } else if (ep != 1) {
    reject("a dense model has no experts to spread");
  }
  if (p.domain > 0 && tp > p.domain)
    reject(fmt::format("tp {} spans more than the {}-accelerator scale-up domain: every layer's collectives would cross the "
                       "scale-out network",
                       tp, p.domain));

  // Micro-batches per step.
  if (p.global_batch > 0) {
    const std::int64_t per_replica = static_cast<std::int64_t>(p.micro_batch) * l.dp;
    if (p.global_batch % per_replica != 0) {
      reject(fmt::format("{} sequences per step do not split over dp {} x micro-batch {}", p.global_batch, l.dp, p.micro_batch));
      l.microbatches = std::max<std::int64_t>(1, p.global_batch / per_replica);
    } else {
      l.microbatches = p.global_batch / per_replica;
    }
    if (pp > 1 && l.microbatches < pp)
      reject(fmt::format("{} micro-batches per replica cannot fill {} pipeline stages (dp {} takes the batch)", l.microbatches, pp, l.dp));
    if (pp > 1 && p.chunks > 1 && l.microbatches % pp != 0)
      reject(fmt::format("interleaving needs the {} micro-batches to be a multiple of {} stages", l.microbatches, pp));
  } else {
    l.microbatches = 4 * pp;
  }

  // Memory per device with the fit plugin's formulas.
  const fit::ParamSplit split = fit::split_params(m, tp, pp);
  const double dense = split.per_device - split.experts_per_device;
  const double experts = split.experts_per_device / ep;
  const fit::StatePerParam per = fit::state_per_param(fit::Optimizer::adamw, b(2), b(2), true, m.hidden_size);
  const int shard = static_cast<int>(std::min<std::int64_t>(l.dp * cp, 1 << 30));
  const fit::ShardedState zd = fit::zero_shard(per, dense, p.zero, shard);
  const fit::ShardedState ze = fit::zero_shard(per, experts, p.zero, std::max(1, shard / ep));
  l.weights = zd.weights + ze.weights;
  l.grads = zd.grads + ze.grads;
  l.optimizer = zd.optimizer + ze.optimizer;
  const fit::ActivationShape a = fit::activation_shape(m, from_base<Tokens>(seq / cp), p.micro_batch, tp, pp, tp > 1);
  Bytes act = fit::activation_per_device(a, r);
  // Under full recomputation the fit formula keeps one layer's activations without FlashAttention (its 5as/h
  // score term); a planner today recomputes with FlashAttention, so that working layer is the selective one.
  if (r == fit::Recompute::full) act = act - fit::activation_per_layer(a, fit::Recompute::none) + fit::activation_per_layer(a, fit::Recompute::selective);
  if (p.chunks > 1 && pp > 1)
    act += static_cast<double>(m.layers) * fit::activation_per_layer(a, r) * (static_cast<double>(pp - 1) / (pp * p.chunks));
  l.activations = act;
  l.total = l.weights + l.grads + l.optimizer + l.activations + p.reserve;
  if (l.total > p.memory) reject(fmt::format("needs {} per device of {}", gb(l.total), gb(p.memory)));

  // Time estimate.
  const int v = pp > 1 ? p.chunks : 1;
  l.bubble = bubble_fraction(pp, l.microbatches, v);
  const double attn_tok = attention_training_per_token(m, p.seq, AttentionCount::full).value();
  const double model_tok = 6.0 * p.active + attn_tok;
  l.recompute_factor = hardware_per_model_flop(r, from_base<Flops>(model_tok), from_base<Flops>(attn_tok));
  if (p.peak.value() > 0) {
    const double tokens_mb = seq * p.micro_batch;
    const double rate = p.peak.value() * p.efficiency;
    const double t_ideal_mb = model_tok * tokens_mb / static_cast<double>(mp) / rate;
    const double attn_rate = p.peak.value() * (p.attention_efficiency > 0 ? p.attention_efficiency : p.efficiency);
    const double t_compute = ((model_tok - attn_tok) / rate + attn_tok / attn_rate) * tokens_mb / static_cast<double>(mp) * l.recompute_factor;
    const double stage_layers = std::ceil(static_cast<double>(m.layers) / pp);
    const bool full = r == fit::Recompute::full;
    auto link_for = [&](std::int64_t span) { return p.domain <= 0 || span <= p.domain ? p.scaleup : p.scaleout; };
    double t_comm = 0;
    if (tp > 1) {
      // Megatron with sequence parallelism: per layer 2 all-gathers and 2 reduce-scatters forward, as many backward
      // (and the forward's again under full recomputation), each of the s/cp x b x h activation in 2 bytes.
      const Bytes act_bytes = b(seq / cp * p.micro_batch * m.hidden_size * 2.0);
      const double one = collective_cost(CollectiveOp::allgather, CollectiveAlgo::ring, act_bytes, tp, link_for(tp)).time.value();
      t_comm += stage_layers * (full ? 12.0 : 8.0) * one;
    }
    if (cp > 1) {
      // Context parallelism as Llama 3 runs it: all-gather K and V of the whole sequence before attention (one
      // KV head per TP rank at least), reduce-scatter their gradients backward.
      const double kv_rank = m.mla ? (m.mla->kv_lora_rank + m.mla->qk_rope_head_dim)
                                   : 2.0 * std::max(1.0, static_cast<double>(m.kv_heads) / tp) * m.head_dim;
      const Bytes kv = b(seq * p.micro_batch * kv_rank * 2.0);
      const double one = collective_cost(CollectiveOp::allgather, CollectiveAlgo::ring, kv, cp,
                                         link_for(static_cast<std::int64_t>(tp) * cp)).time.value();
      t_comm += stage_layers * (full ? 3.0 : 2.0) * one;
    }
    if (moe(m) && ep > 1) {
      const double moe_layers = std::ceil(static_cast<double>(m.layers - m.moe->dense_layers) / pp);
      const Bytes held = b(tokens_mb / (cp * tp) * m.moe->experts_per_token * m.hidden_size * 2.0);
      const double one = collective_cost(CollectiveOp::alltoall, CollectiveAlgo::ring, held, ep,
                                         link_for(static_cast<std::int64_t>(tp) * ep)).time.value();
      t_comm += moe_layers * (full ? 6.0 : 4.0) * one;
    }
    t_comm *= 1.0 - std::clamp(p.comm_overlap, 0.0, 1.0);
    const double t_stage = t_compute + t_comm;
    const double t_pipe = static_cast<double>(l.microbatches) * t_stage / (1.0 - l.bubble);
    // Data parallel: gradients (2 bytes per parameter held) reduced over dp x cp; overlapped with the backward
    // of the last micro-batch, the rest is exposed. ZeRO-3 also gathers the weights for every micro-batch.
    double t_dp = 0;
    const std::int64_t dp_ranks = l.dp * cp;
    if (dp_ranks > 1) {
      const LinkModel& dl = link_for(p.gpus);
      const Bytes grads = b((dense + experts) * 2.0);
      const double red = collective_cost(CollectiveOp::allreduce, CollectiveAlgo::ring, grads, dp_ranks, dl).time.value();
      t_dp = std::max(0.0, red - t_stage * 2.0 / 3.0);
      if (p.zero >= 3)
        t_dp += 2.0 * static_cast<double>(l.microbatches) *
                collective_cost(CollectiveOp::allgather, CollectiveAlgo::ring, b(dense * 2.0), dp_ranks, dl).time.value();
    }
    l.comm_share = t_comm / t_stage;
    l.step = s(t_pipe + t_dp);
    l.ideal = s(static_cast<double>(l.microbatches) * t_ideal_mb);
    l.waste = 1.0 - l.ideal.value() / l.step.value();
  } else {
    l.waste = 1.0 - (1.0 - l.bubble) / l.recompute_factor;
  }
  if (l.reason.empty()) l.feasible = true;
  return l;
}

std::vector<Layout> search_layouts(const LayoutProblem& p) {
  const ModelArch& m = p.arch;
  std::vector<int> tps, cps, eps;
  const int tp_cap = p.max_tp > 0 ? p.max_tp : std::max(8, p.domain > 0 ? std::min(2 * p.domain, 64) : 64);
  for (int t = 1; t <= std::min(tp_cap, m.attention_heads); t *= 2)
    if (p.tp == 0 || p.tp == t) tps.push_back(t);
  if (p.tp > 0 && tps.empty()) tps.push_back(p.tp);
  for (int c = 1; c <= 64; c *= 2)
    if (p.cp == 0 || p.cp == c) cps.push_back(c);
  if (p.cp > 0 && cps.empty()) cps.push_back(p.cp);
  if (moe(m)) {
    for (int e = 1; e <= m.moe->experts; e *= 2)
      if (p.ep == 0 || p.ep == e) eps.push_back(e);
    if (p.ep > 0 && eps.empty()) eps.push_back(p.ep);
  } else {
    eps.push_back(p.ep > 0 ? p.ep : 1);
  }
  std::vector<Layout> out;
  for (int t : tps)
    for (int c : cps) {
      if (p.gpus % (static_cast<std::int64_t>(t) * c) != 0) continue;
      for (int q = 1; q <= m.layers; ++q) {
        if (p.pp > 0 && q != p.pp) continue;
        if (p.gpus % (static_cast<std::int64_t>(t) * c * q) != 0 && p.pp == 0) continue;
        for (int e : eps)
          for (fit::Recompute r : p.recompute) out.push_back(evaluate_layout(p, t, c, q, e, r));
      }
    }
  // Forced degrees that do not divide the accelerators: evaluate them anyway, for the reason.
  if (out.empty())
    for (fit::Recompute r : p.recompute)
      out.push_back(evaluate_layout(p, p.tp > 0 ? p.tp : 1, p.cp > 0 ? p.cp : 1, p.pp > 0 ? p.pp : 1, p.ep > 0 ? p.ep : 1, r));
  auto mp = [](const Layout& l) { return static_cast<std::int64_t>(l.tp) * l.cp * l.pp; };
  std::stable_sort(out.begin(), out.end(), [&](const Layout& a, const Layout& b) {
    if (a.feasible != b.feasible) return a.feasible;
    if (mp(a) != mp(b)) return mp(a) < mp(b);
    if (a.feasible && std::fabs(a.waste - b.waste) > 1e-12) return a.waste < b.waste;
    if (a.recompute != b.recompute) return a.recompute < b.recompute;
    return a.tp > b.tp;
  });
  return out;
}

}  // namespace infracalc::cluster
