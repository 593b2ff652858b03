// `serve capacity`: requests per second of a pod or rack from tokens per second per accelerator, and the
// replicas a target rate needs under latency targets (p95 from the simulator).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "host/token_inputs.hpp"
#include "units/counts.hpp"
#include "host/words.hpp"
#include "plugins/decode/decode_step_common.hpp"
#include "plugins/serve/serve_calculators.hpp"
#include "plugins/serve/serve_math.hpp"
#include "plugins/serve/serve_setup.hpp"
#include "plugins/serve/serve_stats.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::serve {

namespace {


// The stream one replica is sized with: --count requests of the prompt length and the answer length.
std::vector<Request> sizing_requests(Context& ctx, std::int64_t count, std::int64_t answer, const Replica& rep) {
  const std::int64_t prompt = whole_tokens(ctx, "prompt_tokens", 1, 1'000'000'000);
  const std::int64_t max_len = rep.max_context > 0 ? rep.max_context : (std::int64_t{1} << 40);
  if (prompt + answer > max_len)
    throw UserError{{fmt::format("--prompt-tokens {} + {} answer tokens exceed the model's {}-token context", prompt, answer, max_len),
                     "shorten the prompt or the answer"}};
  if (static_cast<double>(count) * static_cast<double>(answer) > 50e6)
    throw UserError{{"the sizing run would simulate more than 50 million output tokens", "lower --count"}};
  return draw_requests(count, static_cast<std::uint64_t>(ctx.integer("seed")), prompt, answer, length_dist(ctx.text("length_dist")), max_len);
}

struct Trial {
  double rate = 0;
  TargetLatencies latencies;
  bool ok = false;
};

// One trial of the search; it reads the requests' latencies only, so the run keeps no step record.
Trial trial(const Replica& rep, std::vector<Request> reqs, double rate, std::uint64_t seed, Seconds ttft, Seconds tpot) {
  SimInput in;
  in.requests = std::move(reqs);
  in.seed = seed;
  in.record_steps = false;
  poisson_arrivals(in.requests, from_base<PerSecond>(rate), seed);
  const SimResult r = simulate(in, rep.engine, *rep.model);
  Trial t;
  t.rate = rate;
  t.latencies = target_latencies(r);
  t.ok = (ttft.value() <= 0 || t.latencies.ttft_p95 <= ttft) && (tpot.value() <= 0 || t.latencies.tpot_count == 0 || t.latencies.tpot_p95 <= tpot);
  return t;
}

// The system named: its accelerator must be the one simulated.
void check_system(Context& ctx, const Entry* sys) {
  if (sys == nullptr) return;
  if (auto acc = ctx.catalog_text(*sys, "accelerator")) {
    const Entry* g = ctx.ref("gpu");
    if (g != nullptr && g->id() != *acc) ctx.note(fmt::format("--gpu {} is not the accelerator {} holds ({})", g->id(), sys->id(), *acc));
    if (g == nullptr && ctx.ref("model") != nullptr && !ctx.has("tokens_per_second_per_gpu") && !ctx.has("step_time"))
      throw UserError{{fmt::format("{} holds {} accelerators: give --gpu {} to simulate them", sys->id(), *acc, *acc),
                       "or give --tokens-per-second-per-gpu"}};
  }
}

// A pod's rate is its accelerators x the rate per accelerator: that holds only when the pod is whole replicas.
void check_pod(Context& ctx, const Replica& rep, double gpus, const Entry* sys) {
  const auto pod = static_cast<std::int64_t>(gpus);
  const bool from_system = sys != nullptr && ctx.origin("gpus") == Origin::catalog;
  const std::string pod_text = from_system ? fmt::format("{}'s {}", sys->id(), plural(pod, "accelerator")) : fmt::format("--gpus {}", pod);
  if (rep.tp > pod)
    throw UserError{{fmt::format("--tp {}: a replica of {} does not fit in {}", rep.tp, plural(rep.tp, "device"), pod_text),
                     fmt::format("lower --tp to at most {}{}", pod, from_system ? "" : ", or give more --gpus")}};
  if (pod % rep.tp != 0)
    throw UserError{{fmt::format("{} {} not a multiple of the replica size, {} (--tp {}): the pod rate assumes every accelerator "
                                 "serves in a whole replica",
                                 pod_text, from_system ? "are" : "is", plural(rep.tp, "device"), rep.tp),
                     from_system ? fmt::format("give a --tp that divides {}", pod)
                                 : fmt::format("give --gpus a multiple of {} (e.g. {}), or a --tp that divides {}", rep.tp,
                                               (pod / rep.tp + 1) * rep.tp, pod)}};
}

// The replica to simulate, when the inputs describe one, and the throughput it and the inputs give.
struct Throughput {
  std::optional<Replica> rep;
  // With --simulate-with expected the replica runs the calibrated model; the datasheet model it replaced stays
  // alive here, since rep->roofline points into it.
  std::unique_ptr<StepModel> datasheet_model;
  // Expected (calibrated) figures are wanted and possible: a roofline replica with a peak.
  bool expected = false;
  // Tokens of the simulated answers.
  std::int64_t sim_answer = 0;
  TokensPerSecond per_gpu{};
  TokensPerSecond replica_rate{};
  TokensPerSecond expected_per_gpu{};
  PerSecond expected_replica_requests{};
};

RooflineStepModel calibrated_model(Context& ctx, const Replica& rep) {
  return rep.roofline->calibrated(decode::efficiency(), decode::engine_of(ctx), decode::precision_bits(decode::compute_precision(ctx)));
}

// Resolves the replica: given, or simulated at saturation (or the chunked-prefill steady state with --ceiling
// steady-state), and with it the expected figures of the calibrated step model.
Throughput replica_throughput(Context& ctx, bool have_answer, bool have_gpus, double gpus, const Entry* sys) {
  Throughput t;
  const bool simulate_replica = ctx.has("step_time") || ctx.ref("model") != nullptr || ctx.has("params") || ctx.has("weights_bytes");
  if (simulate_replica) t.rep = resolve_replica(ctx);
  // --simulate-with expected: the simulator and the latency-target search run on the calibrated step model; the
  // datasheet model stays for the steady-state figures below.
  // Expected figures need the roofline with a peak and the datasheet roof (asked once: it notes why not).
  t.expected = t.rep && t.rep->roofline != nullptr && t.rep->roofline->roof().peak && decode::expected_wanted(ctx);
  if (t.expected && ctx.text("simulate_with") == "expected") {
    t.datasheet_model = std::move(t.rep->model);
    t.rep->model = std::make_unique<RooflineStepModel>(calibrated_model(ctx, *t.rep));
    ctx.note("simulated with the calibrated step model (--simulate-with expected): replica and target-rate figures are expected figures");
  }
  if (t.rep && have_gpus) check_pod(ctx, *t.rep, gpus, sys);
  if (t.rep) t.sim_answer = have_answer ? whole_tokens(ctx, "tokens_per_answer", 1, 1'000'000'000) : 256;
  if (ctx.has("tokens_per_second_per_gpu")) t.per_gpu = ctx.get<TokensPerSecond>("tokens_per_second_per_gpu");
  if (!t.rep) {
    if (!ctx.has("tokens_per_second_per_gpu") && !ctx.has("baseline_tokens_per_second_per_gpu"))
      throw UserError{{"no throughput: give --tokens-per-second-per-gpu, or a replica to simulate (--model ID --gpu ID)",
                       "e.g. --tokens-per-second-per-gpu 3000"}};
    return t;
  }
  Replica& rep = *t.rep;
  if (!have_answer) ctx.note("no --tokens-per-answer: the replica is simulated with 256-token answers");
  const std::int64_t prompt = whole_tokens(ctx, "prompt_tokens", 1, 1'000'000'000);
  std::int64_t full = rep.engine.max_batch;
  if (rep.engine.kv_blocks > 0)
    full = std::min<std::int64_t>(full, rep.engine.kv_blocks / kv::blocks_for(prompt + t.sim_answer, rep.engine.block_size));
  if (full < 1) throw UserError{{"the KV pool cannot hold one sequence of this prompt and answer", "give more memory or raise --tp"}};
  // Offline: enough requests for several full batches, all queued at once.
  const std::int64_t count = std::max<std::int64_t>(ctx.integer("count"), 4 * full);
  const std::string why = count > ctx.integer("count")
                              ? fmt::format("--count {} raised to 4 full batches of {} so the batch stays full", ctx.integer("count"), full)
                              : std::string("--count");
  if (ctx.text("ceiling") == "steady-state" && rep.roofline != nullptr) {
    // The closed form the expected figure uses, at 100% of the datasheet: fast, and the same method on both sides.
    const ChunkedSteadyState cs = chunked_steady_state(*rep.roofline, full, prompt, t.sim_answer);
    ctx.set("replica_tokens_per_second", cs.output_rate);
    t.replica_rate = cs.output_rate;
    if (!ctx.has("tokens_per_second_per_gpu")) t.per_gpu = cs.output_rate / static_cast<double>(rep.tp);
    ctx.note(fmt::format("ceiling: the chunked-prefill steady state at 100% of the datasheet (--ceiling steady-state), {} sequences "
                         "decoding",
                         ctx.quote_number(cs.batch)));
  } else {
    SimInput in;
    in.requests = sizing_requests(ctx, count, t.sim_answer, rep);
    const SimResult r = simulate(in, rep.engine, *rep.model);
    const Summary s = summarize(r, rep.engine.kv_blocks);
    ctx.set("replica_tokens_per_second", s.output_rate);
    t.replica_rate = s.output_rate;
    if (!ctx.has("tokens_per_second_per_gpu")) t.per_gpu = s.output_rate / static_cast<double>(rep.tp);
    ctx.note(fmt::format("replica simulated at saturation: {} ({}) of {} prompt + {} output tokens queued at once on one replica of {}, "
                         "{} batching, mean batch {}: {} per replica",
                         plural(count, "request"), why, prompt, t.sim_answer, plural(rep.tp, "device"), batching_name(rep.engine.batching),
                         ctx.quote_number(s.mean_running_busy), ctx.quote(s.output_rate)));
  }
  if (t.expected) {
    const decode::Engine engine = decode::engine_of(ctx);
    const RooflineStepModel xm = calibrated_model(ctx, rep);
    const ChunkedSteadyState cs = chunked_steady_state(xm, full, prompt, t.sim_answer);
    ctx.set("expected_replica_tokens_per_second", cs.output_rate);
    t.expected_per_gpu = cs.output_rate / static_cast<double>(rep.tp);
    t.expected_replica_requests = cs.request_rate;
    ctx.set("expected_per_gpu_tokens_per_second", t.expected_per_gpu);
    ctx.note(fmt::format("expected: the chunked-prefill steady state of the calibrated step model, {} sequences decoding, {} "
                         "admitted every {}",
                         ctx.quote_number(cs.batch), plural(cs.prompts, "prompt"), plural(cs.steps, "step")));
    decode::expected_note(ctx, engine);
  }
  return t;
}

// The pod's and the rack's rates, the longer reasoning answer, the answers table and the baseline comparison.
void report_pod(Context& ctx, const Throughput& t, bool have_gpus, double gpus, bool have_answer, Tokens answer, const Entry* sys) {
  const TokensPerSecond per_gpu = t.per_gpu;
  if (per_gpu.value() > 0) ctx.set("per_gpu_tokens_per_second", per_gpu);
  if (have_gpus && t.expected_per_gpu.value() > 0) {
    ctx.set("expected_pod_tokens_per_second", pod_throughput(gpus, t.expected_per_gpu));
    if (have_answer) ctx.set("expected_requests_per_second", answers_per_second(pod_throughput(gpus, t.expected_per_gpu), answer));
  }
  if (have_gpus && per_gpu.value() > 0) {
    const TokensPerSecond pod = pod_throughput(gpus, per_gpu);
    ctx.set("pod_tokens_per_second", pod);
    if (have_answer) ctx.set("requests_per_second", answers_per_second(pod, answer));
    if (sys != nullptr) {
      if (const Node* n = sys->root().find("accelerators_per_rack"); n != nullptr && n->is_number()) {
        const auto per_rack = ctx.catalog<Number>(*sys, "accelerators_per_rack");
        if (per_rack) {
          // Only whole replicas serve: a rack of 72 at --tp 16 runs 4 replicas on 64 accelerators.
          const int size = t.rep ? t.rep->tp : 1;
          const double serving = std::floor(per_rack->value() / size) * size;
          if (serving < per_rack->value())
            ctx.note(fmt::format("a rack of {} holds {} of --tp {}: {} accelerators idle",
                                 plural(static_cast<std::int64_t>(per_rack->value()), "accelerator"),
                                 plural(static_cast<std::int64_t>(serving / size), "replica"), size, ctx.quote_count(per_rack->value() - serving)));
          const TokensPerSecond rack = pod_throughput(serving, per_gpu);
          ctx.set("rack_tokens_per_second", rack);
          if (have_answer) ctx.set("rack_requests_per_second", answers_per_second(rack, answer));
        }
      }
    }
  }
  if (ctx.has("reasoning_tokens_per_answer")) {
    const Tokens longer = ctx.get<Tokens>("reasoning_tokens_per_answer");
    if (have_gpus && per_gpu.value() > 0) ctx.set("reasoning_requests_per_second", answers_per_second(pod_throughput(gpus, per_gpu), longer));
    if (have_answer) ctx.set_number("reasoning_drop", longer / answer);
    ctx.note("the reasoning rate keeps tokens per second per accelerator unchanged; longer sequences hold more KV, which lowers the batch "
             "and the rate (simulate both lengths to see it)");
  }
  if (have_gpus && per_gpu.value() > 0 && have_answer) {
    Table table{"answers", "answers per second, pod",
                {{"answer", {}}, {"tokens_per_answer", dims::token}, {"pod_requests_per_second", dims::frequency},
                 {"per_gpu_requests_per_second", dims::frequency}},
                {}};
    table.rows.push_back({std::string("this answer"), to_quantity(answer), to_quantity(answers_per_second(pod_throughput(gpus, per_gpu), answer)),
                          to_quantity(answers_per_second(per_gpu, answer))});
    if (ctx.has("reasoning_tokens_per_answer")) {
      const Tokens longer = ctx.get<Tokens>("reasoning_tokens_per_answer");
      table.rows.push_back({std::string("reasoning answer"), to_quantity(longer),
                            to_quantity(answers_per_second(pod_throughput(gpus, per_gpu), longer)), to_quantity(answers_per_second(per_gpu, longer))});
    }
    ctx.add_table(std::move(table));
  }
  if (ctx.has("baseline_tokens_per_second_per_gpu")) {
    const TokensPerSecond base = ctx.get<TokensPerSecond>("baseline_tokens_per_second_per_gpu");
    if (per_gpu.value() <= 0) throw UserError{{"--baseline-tokens-per-second-per-gpu compares against a rate", "give --tokens-per-second-per-gpu too"}};
    ctx.set_number("throughput_advantage", per_gpu / base - 1.0);
    ctx.set_number("baseline_gpu_ratio", per_gpu / base);
    ctx.note(fmt::format("the baseline needs {}x the accelerators for the same token rate", ctx.quote_number((per_gpu / base).value())));
  }
}

// The rate one replica sustains within the p95 latency targets: the largest Poisson rate whose trial meets them, by
// bisection between nearly unloaded and the saturated rate. Sets the replica figures and the verdict; nullopt when
// not even a nearly unloaded replica meets them. `at_saturation` is set when the saturated rate itself meets them.
std::optional<PerSecond> rate_within_targets(Context& ctx, const Throughput& t, Seconds ttft, Seconds tpot, bool& at_saturation) {
  const Replica& rep = *t.rep;
  const auto reqs = sizing_requests(ctx, ctx.integer("count"), t.sim_answer, rep);
  const auto seed = static_cast<std::uint64_t>(ctx.integer("seed"));
  const double saturated = t.replica_rate.value() / static_cast<double>(t.sim_answer);
  // Latency grows with the load, so the nearly unloaded trial decides only when no loaded one meets the targets: it is
  // then the answer, or the proof that none is. It runs last because it is the longest run by far (every request
  // alone: a step per output token, about seventy times the steps of a loaded trial).
  const double unloaded = saturated * 1e-3;
  double lo = unloaded, hi = saturated;
  std::optional<Trial> best;
  const Trial top = trial(rep, reqs, hi, seed, ttft, tpot);
  if (top.ok) {
    best = top;
    at_saturation = true;
    ctx.note(fmt::format("the targets held even at the saturated rate over a run of {} (--count, seed {}), so no bisection was "
                         "needed; a longer run at that rate queues without bound, so the rate has no headroom unless a maximum "
                         "load is applied (--max-load), or raise --count to test longer",
                         plural(static_cast<std::int64_t>(reqs.size()), "request"), seed));
  } else {
    for (int i = 0; i < 16 && hi - lo > 1e-4 * hi; ++i) {
      const Trial mid = trial(rep, reqs, 0.5 * (lo + hi), seed, ttft, tpot);
      if (mid.ok) {
        best = mid;
        lo = mid.rate;
      } else {
        hi = mid.rate;
      }
    }
    if (!best) {
      const Trial calm = trial(rep, reqs, unloaded, seed, ttft, tpot);
      if (!calm.ok) {
        ctx.verdict("targets_reachable", false,
                    fmt::format("even nearly unloaded the replica's p95 TTFT is {} and p95 TPOT {}", ctx.quote(calm.latencies.ttft_p95),
                                ctx.quote(calm.latencies.tpot_p95)));
        return std::nullopt;
      }
      best = calm;
    }
    ctx.note(fmt::format("replica rate under the targets: bisection over Poisson arrival rates, {} per trial (--count, seed {}), "
                         "capped at the saturated rate",
                         plural(static_cast<std::int64_t>(reqs.size()), "request"), seed));
  }
  const auto per_replica = from_base<PerSecond>(best->rate);
  ctx.set("replica_max_rate", per_replica);
  ctx.set("replica_ttft_p95", best->latencies.ttft_p95);
  if (best->latencies.tpot_count > 0) ctx.set("replica_tpot_p95", best->latencies.tpot_p95);
  ctx.verdict("targets_reachable", true,
              fmt::format("one replica meets the targets up to {} (p95 TTFT {}, p95 TPOT {})", ctx.quote(per_replica),
                          ctx.quote(best->latencies.ttft_p95), ctx.quote(best->latencies.tpot_p95)));
  return per_replica;
}

// Replicas, accelerators and pods for --target-rate, each replica planned at the rate it sustains (within the latency
// targets, or saturated) times --max-load.
void size_for_target(Context& ctx, const Throughput& t, bool have_gpus, double gpus, bool have_answer, Tokens answer) {
  const PerSecond target = ctx.get<PerSecond>("target_rate");
  const Seconds ttft = ctx.has("ttft_target") ? ctx.get<Seconds>("ttft_target") : Seconds{};
  const Seconds tpot = ctx.has("tpot_target") ? ctx.get<Seconds>("tpot_target") : Seconds{};
  const bool targets = ttft.value() > 0 || tpot.value() > 0;
  const int devices = t.rep ? t.rep->tp : 1;
  PerSecond per_replica{};
  bool at_saturation = false;
  if (t.rep && targets) {
    per_replica = rate_within_targets(ctx, t, ttft, tpot, at_saturation).value_or(PerSecond{});
  } else if (t.rep) {
    per_replica = from_base<PerSecond>(t.replica_rate.value() / static_cast<double>(t.sim_answer));
    ctx.set("replica_max_rate", per_replica);
    at_saturation = true;
  } else if (have_answer && t.per_gpu.value() > 0) {
    per_replica = answers_per_second(t.per_gpu, answer);
    at_saturation = true;
    ctx.note("replicas of one accelerator at --tokens-per-second-per-gpu; latency targets need a simulated replica (--model, --gpu)");
  } else {
    throw UserError{{"--target-rate needs a per-replica rate", "give --tokens-per-answer with --tokens-per-second-per-gpu, or a replica to simulate"}};
  }
  if (per_replica.value() <= 0) return;
  // Headroom: latency targets size below saturation by themselves; --max-load plans each replica at a share
  // of what it sustains; with neither, the replicas run flat out.
  const bool load_given = ctx.has("max_load");
  const double load = load_given ? ctx.number("max_load") : 1.0;
  const PerSecond planned = per_replica * load;
  ctx.set("replica_planned_rate", planned);
  if (at_saturation && !load_given)
    ctx.verdict("headroom", false,
                "replicas sized at the saturated rate: every replica runs flat out and queues grow without bound; give "
                "--ttft-target/--tpot-target (simulated replica) or --max-load 80%");
  else
    ctx.verdict("headroom", true,
                load_given ? fmt::format("each replica planned at {} of {}{}", ctx.quote_percent(load), ctx.quote(per_replica),
                                         at_saturation ? ", its saturated rate" : ", its rate within the latency targets")
                           : std::string("sized at the rate whose p95 latencies meet the targets"));
  if (t.expected_replica_requests.value() > 0 && at_saturation) {
    const std::int64_t xr = replicas_for(target, t.expected_replica_requests * load);
    ctx.set_number("expected_replicas", static_cast<double>(xr));
    ctx.set_number("expected_gpus_needed", static_cast<double>(count_product(xr, devices, {"--target-rate", "accelerators", "lower --target-rate"})));
  } else if (t.expected_replica_requests.value() > 0) {
    ctx.note("expected replicas under latency targets are not computed: the calibrated model prices the saturated rate only");
  }
  const std::int64_t replicas = replicas_for(target, planned);
  const std::int64_t needed = count_product(replicas, devices, {"--target-rate", "accelerators", "lower --target-rate"});
  ctx.set_number("replicas", static_cast<double>(replicas));
  ctx.set_number("gpus_needed", static_cast<double>(needed));
  if (have_gpus)
    ctx.set_number("pods_needed",
                   static_cast<double>(whole_count(static_cast<double>(needed) / gpus, Rounding::up, {"--target-rate", "pods", "lower --target-rate"})));
  ctx.note(fmt::format("replicas = ceil({} / {}) = {}, rounded up to whole replicas; accelerators = replicas x {}{}", ctx.quote(target),
                       ctx.quote(planned), replicas, plural(devices, "device"),
                       have_gpus ? fmt::format(", pods = ceil({} / {}) rounded up to whole pods", needed, gpus) : std::string()));
}

void run_capacity(Context& ctx) {
  const Entry* sys = ctx.ref("system");
  check_system(ctx, sys);
  const bool have_gpus = ctx.has("gpus");
  const double gpus = have_gpus ? static_cast<double>(ctx.integer("gpus")) : 0.0;
  if (have_gpus && gpus < 1) throw UserError{{"--gpus: expected at least one accelerator", "e.g. --gpus 72"}};
  const bool have_answer = ctx.has("tokens_per_answer");
  const Tokens answer = have_answer ? ctx.get<Tokens>("tokens_per_answer") : Tokens{};

  const Throughput t = replica_throughput(ctx, have_answer, have_gpus, gpus, sys);
  report_pod(ctx, t, have_gpus, gpus, have_answer, answer, sys);
  if (ctx.has("target_rate")) size_for_target(ctx, t, have_gpus, gpus, have_answer, answer);

  ctx.note("steady-state decode only: requests per second = accelerators x tokens per second per accelerator / tokens per answer");
  // The rule: a request runs at least one decode step after the step that prefills it (which yields its first token).
  // A 1-token answer runs none, so the rate above divides step throughput by nothing but the request's fixed costs.
  if (have_answer && answer.value() < 2.0 && ctx.result().find("requests_per_second") != nullptr)
    ctx.note(fmt::format("implausible: --tokens-per-answer {} is answered by the step that prefills the prompt, with no decode step, "
                         "so requests_per_second divides the accelerators' step work among requests and counts none of their fixed costs, "
                         "which do not batch away: admission and scheduling, the HTTP API, tokenizing and detokenizing run on the "
                         "host per request (in vLLM's profile of "
                         "Llama 3 8B on one H100 the API server took 33% and scheduling 29% of the time, vLLM blog 2024-09-05); "
                         "size with answers of at least 2 tokens and a measured request rate",
                         ctx.quote(answer)));
}

}  // namespace

Calculator capacity_calculator() {
  Calculator c;
  c.name = "capacity";
  c.summary = "requests per second of a pod or rack, chat vs reasoning answers, and replicas for a target rate under TTFT/TPOT targets";
  c.description =
      "pod tokens/s = accelerators x tokens/s per accelerator; requests/s = pod tokens/s / tokens per answer (a 10,000-token reasoning "
      "turn against a 300-token chat answer is a 33x drop). Tokens per second per accelerator are given (--tokens-per-second-per-gpu) "
      "or simulated: one replica (--model, --gpu, --tp) serving --count requests of --prompt-tokens and --tokens-per-answer queued at "
      "once. --system takes the accelerator count (and the rack's) from the catalog. With --target-rate, the replicas needed: the "
      "largest Poisson rate one simulated replica sustains with p95 TTFT and p95 TPOT within --ttft-target and --tpot-target "
      "(bisection), then ceil(target / (that rate x --max-load)), rounded up to whole replicas. Without targets that rate is the "
      "saturated one (no headroom: the verdict says so; give --max-load 80%).";
  c.refs = replica_refs();
  c.refs.push_back({"system", {"system"}, "system from the catalog (a node, rack or pod): sets --gpus"});
  std::vector<Input> own = {
      {.name = "gpus", .kind = InputKind::integer, .help = "accelerators in the pod", .example = "72", .catalog = "system.accelerators",
       .optional = true},
      {.name = "tokens_per_second_per_gpu", .kind = InputKind::quantity, .dim = dims::token_rate,
       .help = "output tokens per second per accelerator at the serving batch (default: simulate a replica)", .example = "3000tok/s",
       .optional = true},
      {.name = "simulate_with", .kind = InputKind::choice,
       .help = "step model the simulator and the latency-target search use: the datasheet ceiling or the calibrated expected one",
       .default_value = "ceiling", .example = "expected", .choices = {"ceiling", "expected"}},
      {.name = "ceiling", .kind = InputKind::choice,
       .help = "how the saturated ceiling is found: the event simulator, or the chunked-prefill steady state (closed form, fast)",
       .default_value = "simulate", .example = "steady-state", .choices = {"simulate", "steady-state"}},
      {.name = "tokens_per_answer", .kind = InputKind::quantity, .dim = dims::token,
       .help = "output tokens per answer (visible and hidden)", .example = "300", .optional = true},
      {.name = "reasoning_tokens_per_answer", .kind = InputKind::quantity, .dim = dims::token,
       .help = "tokens of a long (reasoning) answer to compare at the same tokens per second", .example = "10000", .optional = true},
      {.name = "baseline_tokens_per_second_per_gpu", .kind = InputKind::quantity, .dim = dims::token_rate,
       .help = "another engine's tokens per second per accelerator on the same hardware, to compare", .example = "12500tok/s",
       .optional = true},
      {.name = "target_rate", .kind = InputKind::quantity, .dim = dims::frequency, .help = "requests per second to serve", .example = "50/s",
       .optional = true},
      {.name = "ttft_target", .kind = InputKind::quantity, .dim = dims::time, .help = "p95 time-to-first-token target per replica",
       .example = "2s", .optional = true},
      {.name = "tpot_target", .kind = InputKind::quantity, .dim = dims::time, .help = "p95 time-per-output-token target per replica",
       .example = "50ms", .optional = true},
      {.name = "max_load", .kind = InputKind::quantity, .dim = dims::none,
       .help = "share of a replica's sustained rate to plan for, leaving headroom for bursts (default 100%: the targets' rate, or "
               "saturation without targets)",
       .example = "80%", .bound = Bound::fraction, .optional = true},
      {.name = "prompt_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "prompt length of the simulated requests",
       .default_value = "512", .example = "1000"},
      {.name = "count", .kind = InputKind::integer, .help = "requests per simulation run", .default_value = "200", .example = "500"},
      {.name = "length_dist", .kind = InputKind::choice, .help = "lengths of the simulated requests around the means",
       .default_value = "fixed", .example = "exponential", .choices = {"fixed", "uniform", "exponential"}},
      {.name = "seed", .kind = InputKind::integer, .help = "seed of the simulated lengths and arrivals", .default_value = "1",
       .example = "7", .bound = Bound::non_negative, .most = kMaxSeed},
  };
  c.inputs = concat(concat(own, replica_inputs()), engine_inputs());
  c.outputs = {
      {"replica_tokens_per_second", dims::token_rate, "output tokens per second of one simulated replica at saturation"},
      {"per_gpu_tokens_per_second", dims::token_rate, "output tokens per second per accelerator"},
      {"pod_tokens_per_second", dims::token_rate, "accelerators x tokens per second per accelerator"},
      {"requests_per_second", dims::frequency, "pod answers per second (shown per second, e.g. 0.3/s)"},
      {"rack_tokens_per_second", dims::token_rate, "one rack of the system"},
      {"rack_requests_per_second", dims::frequency, "one rack's answers per second (shown per second, e.g. 0.3/s)"},
      {"reasoning_requests_per_second", dims::frequency, "pod answers per second at the reasoning length (shown per second, e.g. 0.3/s)"},
      {"reasoning_drop", dims::none, "reasoning tokens per answer / tokens per answer"},
      {"throughput_advantage", dims::none, "tokens per second per accelerator / the baseline's - 1"},
      {"baseline_gpu_ratio", dims::none, "accelerators the baseline needs per accelerator of this engine"},
      {"replica_max_rate", dims::frequency, "largest request rate one replica sustains within the targets (shown per second, e.g. 0.3/s)"},
      {"replica_ttft_p95", dims::time, "p95 TTFT of a replica at that rate"},
      {"replica_tpot_p95", dims::time, "p95 TPOT of a replica at that rate"},
      {"replica_planned_rate", dims::frequency, "replica_max_rate x --max-load: the rate each replica is sized at (shown per second, e.g. 0.3/s)"},
      {"replicas", dims::none, "replicas for --target-rate (rounded up)"},
      {"gpus_needed", dims::none, "replicas x devices per replica"},
      {"pods_needed", dims::none, "pods of --gpus accelerators (rounded up)"},
      {"expected_replica_tokens_per_second", dims::token_rate, "calibrated output tokens per second of one replica at saturation"},
      {"expected_per_gpu_tokens_per_second", dims::token_rate, "calibrated output tokens per second per accelerator"},
      {"expected_pod_tokens_per_second", dims::token_rate, "accelerators x the calibrated tokens per second per accelerator"},
      {"expected_requests_per_second", dims::frequency, "calibrated pod answers per second", "/s"},
      {"expected_replicas", dims::none, "replicas for --target-rate at the calibrated saturated rate (rounded up)"},
      {"expected_gpus_needed", dims::none, "expected_replicas x devices per replica"},
  };
  c.run = run_capacity;
  c.source = __FILE__;
  c.tables = {
      {"answers", "answers per second of a pod"},
  };
  c.verdicts = {
      {"headroom", "the replicas are sized with headroom at the peak rate"},
      {"targets_reachable", "one replica meets the latency targets at some rate"},
  };
  return c;
}

}  // namespace infracalc::serve
