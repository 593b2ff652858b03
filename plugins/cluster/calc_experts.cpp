// cluster experts: experts per device under expert parallelism, dispatch and combine all-to-all bytes, the
// load an expert sees under a capacity factor (simulated routing with a seeded RNG, and the closed form for
// uniform routing), and total vs active parameters.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "plugins/cluster/cluster_calculators.hpp"
#include "plugins/cluster/cluster_hw.hpp"
#include "plugins/cluster/collectives.hpp"
#include "plugins/cluster/experts.hpp"
#include "units/counts.hpp"
#include "host/words.hpp"
#include "plugins/fit/fit_math.hpp"
#include "plugins/fit/fit_model.hpp"

namespace infracalc::cluster {

namespace {

double dtype_bytes(const std::string& s) { return s == "fp8" ? 1.0 : s == "fp32" ? 4.0 : 2.0; }

// The model's parameters: total, active per token, and the routed experts each device holds.
void report_params(Context& ctx, const ModelArch& a, int per_device) {
  const MoeDims& d = *a.moe;
  const ParamCount pc = count_params(a);
  const double routed = fit::routed_expert_params(a);
  const double per_expert = routed / d.experts;
  ctx.set_number("experts", d.experts);
  ctx.set_number("experts_per_token", d.experts_per_token);
  ctx.set_number("experts_per_device", per_device);
  ctx.set_number("expert_params_per_device", per_expert * per_device);
  ctx.set_number("total_params", pc.total);
  ctx.set_number("active_params", pc.active);
  ctx.set_number("active_share", pc.active / pc.total);
  ctx.note(fmt::format("parameters from count_params: {} total, {} active per token ({} of {} routed experts{}); "
                       "each expert is {} parameters over {} MoE layers",
                       ctx.quote_count(pc.total), ctx.quote_count(pc.active), d.experts_per_token, d.experts,
                       d.shared_experts > 0 ? fmt::format(" + {} shared", d.shared_experts) : std::string(), ctx.quote_count(per_expert),
                       a.layers - d.dense_layers));

}

// Expert loads and drops: `tokens` routed to k distinct experts each (uniformly or by --skew), seeded, against the
// capacity of each expert.
RoutingStats simulate_loads(Context& ctx, const MoeDims& d, std::int64_t tokens, double tokens_per_device, int ep, double cf,
                            std::int64_t capacity) {
  const double mean_load = static_cast<double>(tokens) * d.experts_per_token / d.experts;
  ctx.set("tokens_routed", from_base<Tokens>(static_cast<double>(tokens)));
  ctx.set_number("tokens_per_expert", mean_load);
  ctx.set_number("capacity", static_cast<double>(capacity));
  RoutingSetup rs;
  rs.tokens = tokens;
  rs.experts = d.experts;
  rs.k = d.experts_per_token;
  rs.capacity = capacity;
  rs.skew = ctx.number("skew");
  rs.seed = static_cast<std::uint64_t>(ctx.integer("seed"));
  const std::int64_t trials = ctx.integer("trials");
  // Keep a calculation quick: about a million expert draws, at least one whole step (at most 2e7, checked above).
  const double per_trial = static_cast<double>(tokens) * d.experts_per_token;
  const int affordable = std::max(1, static_cast<int>(1e6 / std::max(1.0, per_trial)));
  rs.trials = static_cast<int>(std::min<std::int64_t>(trials, affordable));
  if (affordable < trials)
    ctx.note(fmt::format("trials lowered from {} to {} to keep the simulation near a million draws", trials, affordable));
  const RoutingStats st = simulate_routing(rs);
  ctx.set_number("drop_rate", st.drop_rate);
  ctx.set("tokens_dropped", from_base<Tokens>(st.dropped));
  ctx.set_number("max_expert_load", st.max_load);
  ctx.set_number("imbalance", st.imbalance);
  ctx.set_number("load_cv", st.cv);
  ctx.set_number("idle_experts", st.idle_experts);
  if (rs.skew == 0.0) {
    ctx.set_number("drop_rate_uniform", expected_drop_rate_uniform(tokens, d.experts, d.experts_per_token, capacity));
    ctx.note("drop_rate_uniform: each expert's load is Binomial(tokens, k/E) when every token picks k distinct experts uniformly; "
             "the simulation must agree within its sampling error");
  }
  ctx.note(fmt::format("routing simulated {} with seed {}: {} tokens ({} per device x {}), each to {} distinct experts{}; "
                       "capacity = ceil({} x {} x {} / {}) = {} slots per expert; assignments beyond it are dropped (the token "
                       "skips that expert through the residual)",
                       plural(rs.trials, "time"), rs.seed, tokens, static_cast<std::int64_t>(tokens_per_device), plural(ep, "device"), d.experts_per_token,
                       rs.skew > 0 ? fmt::format(", expert of popularity rank r weighted r^-{}", ctx.quote_number(rs.skew)) : std::string(" uniformly"),
                       ctx.quote_number(cf), tokens, d.experts_per_token, d.experts, capacity));

  return st;
}

// All-to-all traffic of one MoE layer and one training step, and its time over the link the expert group spans.
void report_all_to_all(Context& ctx, const ModelArch& a, double tokens_per_device, int ep) {
  const MoeDims& d = *a.moe;
  const Bytes dispatch_token = static_cast<double>(a.hidden_size) * from_base<Bytes>(dtype_bytes(ctx.text("dispatch_dtype")));
  const Bytes combine_token = static_cast<double>(a.hidden_size) * from_base<Bytes>(dtype_bytes(ctx.text("combine_dtype")));
  const Bytes dispatch = all_to_all_bytes(tokens_per_device, d.experts_per_token, dispatch_token, ep);
  const Bytes combine = all_to_all_bytes(tokens_per_device, d.experts_per_token, combine_token, ep);
  const int moe_layers = a.layers - d.dense_layers;
  ctx.set("dispatch_bytes", dispatch);
  ctx.set("combine_bytes", combine);
  ctx.set_number("moe_layers", moe_layers);
  // Forward: dispatch + combine; backward: the gradients of both travel back the same way.
  const Bytes step = 2.0 * (dispatch + combine) * static_cast<double>(moe_layers);
  ctx.set("all_to_all_bytes_per_step", step);
  ctx.note(fmt::format("dispatch per device per MoE layer = {} tokens x {} copies x {} x {} x ({} - 1)/{} (the share routed off the device); "
                       "a training step moves dispatch and combine forward and their gradients backward in {} MoE layers",
                       static_cast<std::int64_t>(tokens_per_device), d.experts_per_token, a.hidden_size,
                       ctx.quote(from_base<Bytes>(dtype_bytes(ctx.text("dispatch_dtype")))), ep, ep, moe_layers));

  const Hardware hw = resolve_hardware(ctx);
  const bool inside = hw.domain > 0 && static_cast<double>(ep) * static_cast<double>(ctx.integer("tp")) <= hw.domain;
  const std::optional<BytesPerSecond> bw = inside ? hw.scaleup : hw.scaleout;
  if (bw && ep > 1) {
    const LinkModel link{inside ? default_step_latency(hw.scaleup_type) : default_step_latency("ethernet"), *bw};
    const CollectiveCost c = collective_cost(CollectiveOp::alltoall, CollectiveAlgo::ring, dispatch * (static_cast<double>(ep) / std::max(1, ep - 1)), ep, link);
    ctx.set("dispatch_time", c.time);
    ctx.set("all_to_all_time_per_step", c.time * (2.0 * moe_layers) * (1.0 + (combine / dispatch).value()));
    ctx.note(fmt::format("all-to-all over {} at {} per direction per device (pairwise exchange, {} steps)",
                         inside ? "the scale-up domain" : "the scale-out network", ctx.quote(*bw), ep - 1));
  } else if (hw.gpu || hw.system) {
    ctx.note("no link bandwidth for the all-to-all time: give --scaleup-bandwidth or --scaleout-bandwidth");
  }

}

// Expert loads in the last simulated step, sorted, the 16 largest.
Table loads_table(const RoutingStats& st, std::int64_t capacity) {
  Table t{"loads", "expert loads in the last simulated step (tokens routed to each expert, sorted)",
          {{"rank", dims::none}, {"load", dims::none}, {"over_capacity", dims::none}}, {}};
  std::vector<std::int64_t> loads = st.last_loads;
  std::sort(loads.begin(), loads.end(), std::greater<>());
  const std::size_t shown = std::min<std::size_t>(loads.size(), 16);
  for (std::size_t i = 0; i < shown; ++i)
    t.rows.push_back({Quantity::number(static_cast<double>(i + 1)), Quantity::number(static_cast<double>(loads[i])),
                      Quantity::number(static_cast<double>(std::max<std::int64_t>(0, loads[i] - capacity)))});
  return t;
}

void run_experts(Context& ctx) {
  const fit::ResolvedModel m = fit::resolve_model(ctx, true);
  const ModelArch& a = *m.arch;
  if (!a.moe || a.moe->experts < 1)
    throw UserError{{fmt::format("{} has no routed experts", a.id == "flags" ? std::string("the model") : a.id),
                     "give an MoE model (e.g. --model mixtral-8x7b, deepseek-v3) or --experts N --experts-per-token K"}};
  const MoeDims& d = *a.moe;
  const std::int64_t ep_given = ctx.integer("ep");
  if (ep_given > d.experts)
    throw UserError{{fmt::format("--ep {} exceeds the {} routed experts", ep_given, d.experts), "expert parallelism spreads whole experts: ep <= experts"}};
  const int ep = static_cast<int>(ep_given);
  if (d.experts % ep != 0)
    throw UserError{{fmt::format("--ep {} does not divide the {} routed experts: every device holds the same number of whole experts", ep,
                                 d.experts),
                     "give --ep from " + divisors_text(d.experts)}};
  const int per_device = d.experts / ep;
  const double tokens_per_device = ctx.get<Tokens>("batch").value();
  if (tokens_per_device != std::floor(tokens_per_device)) throw UserError{{"--batch: expected a whole number of tokens", ""}};
  if (tokens_per_device * ep * d.experts_per_token > 2e7)
    throw UserError{{fmt::format("--batch x --ep = {:g} tokens x {} experts each is too many to simulate in a calculation", tokens_per_device * ep,
                                 d.experts_per_token),
                     "simulate one micro-batch per device: fewer tokens in --batch"}};
  const auto tokens = static_cast<std::int64_t>(tokens_per_device) * ep;
  const double cf = ctx.number("capacity_factor");

  report_params(ctx, a, per_device);
  const std::int64_t capacity = expert_capacity(tokens, d.experts, d.experts_per_token, cf);
  const RoutingStats st = simulate_loads(ctx, d, tokens, tokens_per_device, ep, cf, capacity);
  report_all_to_all(ctx, a, tokens_per_device, ep);
  ctx.add_table(loads_table(st, capacity));
  ctx.note("not modelled: node-limited routing and deduplication across a node (DeepSeek-V3), auxiliary-loss balancing over time, "
           "expert-choice routing");
}

}  // namespace

Calculator experts_calculator() {
  Calculator c;
  c.name = "experts";
  c.summary = "expert parallelism: experts per device, dispatch/combine all-to-all bytes, drops under a capacity factor (simulated)";
  c.description =
      "experts per device = E / ep (--ep must divide E). Capacity = ceil(cf x T x k / E) slots per expert for T tokens routed in the "
      "expert-parallel group (GShard; Switch Transformer). Routing is simulated with a seeded RNG: each token picks k distinct "
      "experts, uniformly or with popularity skew r^-s; assignments beyond an expert's capacity are dropped. For uniform "
      "routing the expected drop share has a closed form (each load is Binomial(T, k/E)). All-to-all: each device sends "
      "tokens x k x hidden x bytes x (ep - 1)/ep to dispatch and again to combine, per MoE layer, and as much again backward. "
      "Total and active parameters come from count_params.";
  c.refs = {{"model", {"model"}, "MoE model id: experts, top-k, hidden size, layers"}};
  for (auto& r : hardware_refs()) c.refs.push_back(r);
  c.inputs = fit::model_inputs();
  c.inputs.push_back({.name = "ep", .kind = InputKind::integer, .help = "expert-parallel devices the routed experts spread over (a divisor of the experts)", .example = "64", .most = kMaxParallel, .most_why = kParallelWhy});
  c.inputs.push_back({.name = "batch", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "tokens each device routes per step (micro-batch sequences x sequence length)", .example = "8192"});
  c.inputs.push_back({.name = "capacity_factor", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "expert capacity / mean load (Switch Transformer uses 1.0-1.25 in training)", .default_value = "1.25",
                      .example = "1.0"});
  c.inputs.push_back({.name = "skew", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "router popularity skew s: the r-th most popular expert is weighted r^-s (0: uniform)",
                      .default_value = "0", .example = "0.5", .bound = Bound::non_negative});
  c.inputs.push_back({.name = "trials", .kind = InputKind::integer, .help = "simulated steps to average", .default_value = "10"});
  c.inputs.push_back({.name = "seed", .kind = InputKind::integer, .help = "RNG seed (same seed, same answer)", .default_value = "1",
                      .bound = Bound::non_negative, .most = kMaxSeed});
  c.inputs.push_back({.name = "dispatch_dtype", .kind = InputKind::choice, .help = "format of dispatched activations (DeepSeek-V3 dispatches FP8)",
                      .default_value = "bf16", .choices = {"bf16", "fp8", "fp32"}});
  c.inputs.push_back({.name = "combine_dtype", .kind = InputKind::choice, .help = "format of combined expert outputs",
                      .default_value = "bf16", .choices = {"bf16", "fp8", "fp32"}});
  c.inputs.push_back({.name = "tp", .kind = InputKind::integer, .help = "tensor-parallel ranks beside each expert-parallel rank (domain fit)",
                      .default_value = "1", .most = kMaxParallel, .most_why = kParallelWhy});
  for (auto& in : hardware_inputs())
    if (in.name != "memory" && in.name != "peak") c.inputs.push_back(in);
  c.outputs = {
      {"experts", dims::none, "routed experts per MoE layer"},
      {"experts_per_token", dims::none, "experts each token activates (k)"},
      {"experts_per_device", dims::none, "routed experts on the busiest device"},
      {"expert_params_per_device", dims::none, "routed-expert parameters on that device (all MoE layers)"},
      {"total_params", dims::none, "every parameter"},
      {"active_params", dims::none, "parameters one token uses"},
      {"active_share", dims::none, "active / total"},
      {"tokens_routed", dims::token, "tokens routed per step in the expert-parallel group"},
      {"tokens_per_expert", dims::none, "mean assignments per expert per step"},
      {"capacity", dims::none, "slots per expert"},
      {"drop_rate", dims::none, "share of token-expert assignments dropped (simulated)"},
      {"drop_rate_uniform", dims::none, "expected drop share for uniform routing (closed form)"},
      {"tokens_dropped", dims::token, "assignments dropped per step (simulated)"},
      {"max_expert_load", dims::none, "busiest expert's load (simulated mean)"},
      {"imbalance", dims::none, "busiest load / mean load"},
      {"load_cv", dims::none, "coefficient of variation of the loads"},
      {"idle_experts", dims::none, "share of experts that got no token"},
      {"dispatch_bytes", dims::information, "bytes one device sends to dispatch, one MoE layer, forward"},
      {"combine_bytes", dims::information, "bytes one device sends to combine, one MoE layer, forward"},
      {"moe_layers", dims::none, "layers with experts"},
      {"all_to_all_bytes_per_step", dims::information, "all-to-all bytes one device sends per training step"},
      {"dispatch_time", dims::time, "one dispatch all-to-all (alpha-beta, pairwise exchange)"},
      {"all_to_all_time_per_step", dims::time, "all-to-all time per training step, not overlapped"},
  };
  c.run = run_experts;
  c.source = __FILE__;
  c.tables = {
      {"loads", "tokens routed to each expert in the last simulated step, sorted"},
  };
  return c;
}

}  // namespace infracalc::cluster
