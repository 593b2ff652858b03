// `serve simulate`: one replica under a request stream, step by step.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "plugins/serve/serve_calculators.hpp"
#include "plugins/serve/serve_math.hpp"
#include "plugins/serve/serve_report.hpp"
#include "plugins/serve/serve_setup.hpp"
#include "plugins/serve/serve_stats.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::serve {

namespace {

constexpr std::size_t kTraceRows = 10'000;

std::string ids(std::span<const std::int32_t> v) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < 16; ++i) s += (s.empty() ? "" : " ") + std::to_string(v[i] + 1);
  if (v.size() > 16) s += fmt::format(" (+{})", v.size() - 16);
  return s;
}

const char* step_kind(const StepSample& s) {
  if (s.prefilling > 0 && s.decoding > 0) return "mixed";
  if (s.prefilling > 0) return "prefill";
  if (s.carried > 0) return "decode";
  return "swap";
}

// The engine-step table of --trace, empty: the simulator's observer fills it as the steps run.
Table schedule_table() {
  return {"schedule", "engine steps (--trace)",
          {{"step", dims::none},
           {"start", dims::time},
           {"duration", dims::time},
           {"kind", {}},
           {"running", dims::none},
           {"waiting", dims::none},
           {"prefill_tokens", dims::token},
           {"output_tokens", dims::token},
           {"padding_slots", dims::none},
           {"kv_blocks", dims::none},
           {"admitted", {}},
           {"preempted", {}},
           {"finished", {}}},
          {}};
}

// The run's figures: rates, latency percentiles, batch and KV-cache use, preemptions, static-batch slots, and
// Little's law on the batch (time-averaged sequences in it against answers per second x time in it).
void report_run(Context& ctx, const Replica& rep, const SimResult& r, const Summary& s) {
  ctx.set_number("requests", static_cast<double>(s.requests));
  ctx.set("makespan", s.makespan);
  ctx.set_number("steps", static_cast<double>(r.steps.size()));
  ctx.set("output_tokens_per_second", s.output_rate);
  ctx.set("total_tokens_per_second", s.total_rate);
  ctx.set("requests_per_second", s.request_rate);
  report_percentiles(ctx, "ttft", s.ttft);
  if (s.tpot.count > 0) report_percentiles(ctx, "tpot", s.tpot);
  report_percentiles(ctx, "latency", s.latency);
  ctx.set("queue_p95", s.queue.p95);
  ctx.set_number("mean_batch", s.mean_running_busy);
  ctx.set_number("peak_batch", r.peak_running);
  ctx.set_number("busy_fraction", s.busy_fraction);
  if (s.mean_decode_step.value() > 0) ctx.set("mean_decode_step", s.mean_decode_step);
  if (s.mean_prefill_step.value() > 0) ctx.set("mean_prefill_step", s.mean_prefill_step);
  if (rep.engine.kv_blocks > 0) {
    ctx.set("kv_capacity", from_base<Tokens>(static_cast<double>(rep.kv_tokens)));
    ctx.set_number("kv_blocks", static_cast<double>(rep.engine.kv_blocks));
    if (rep.kv_budget.value() > 0) ctx.set("kv_budget", rep.kv_budget);
    ctx.set_number("mean_kv_use", s.mean_kv_use);
    ctx.set_number("peak_kv_use", s.peak_kv_use);
  }
  ctx.set_number("preemptions", static_cast<double>(r.preemptions));
  ctx.set("recomputed_tokens", from_base<Tokens>(static_cast<double>(r.recomputed_tokens)));
  if (r.swapped_blocks > 0) ctx.set_number("swapped_blocks", static_cast<double>(r.swapped_blocks));
  ctx.set_number("backfills", static_cast<double>(r.backfills));
  if (rep.engine.batching == Batching::static_batch) {
    ctx.set_number("batches", static_cast<double>(r.batches));
    ctx.set_number("idle_slot_steps", static_cast<double>(r.idle_slot_steps));
    ctx.set_number("slot_utilization", r.batch_slot_steps > 0 ? static_cast<double>(r.batch_slot_steps - r.idle_slot_steps) /
                                                                   static_cast<double>(r.batch_slot_steps)
                                                             : 0.0);
    ctx.set("padding_tokens", from_base<Tokens>(static_cast<double>(r.padding_tokens)));
  }

  // Little's law on the batch: time-averaged sequences in it against answers per second × time in it.
  ctx.set_number("mean_concurrency", s.mean_running);
  ctx.set_number("littles_law_concurrency", little_concurrency(s.request_rate, s.mean_residence));
  ctx.set_number("mean_in_system", s.mean_in_system);

}

// The steady state the replica reaches with this mix at a full batch (closed form, constant mean lengths).
void report_saturated(Context& ctx, const Replica& rep, const SimInput& in) {
  double prompt = 0, output = 0;
  for (const auto& q : in.requests) {
    prompt += static_cast<double>(q.prompt);
    output += static_cast<double>(q.output);
  }
  const auto n = static_cast<double>(in.requests.size());
  const auto mean_prompt = std::max<std::int64_t>(1, std::llround(prompt / n));
  const auto mean_output = std::max<std::int64_t>(1, std::llround(output / n));
  int full = rep.engine.max_batch;
  if (rep.engine.kv_blocks > 0)
    full = static_cast<int>(std::min<std::int64_t>(full, rep.engine.kv_blocks / kv::blocks_for(mean_prompt + mean_output, rep.engine.block_size)));
  if (full >= 1) {
    const SaturatedCycle c = saturated_cycle(*rep.model, full, mean_prompt, mean_output, rep.engine.step_tokens);
    ctx.set_number("saturated_batch", full);
    ctx.set("saturated_tokens_per_second", c.output_rate);
    ctx.set("saturated_requests_per_second", c.request_rate);
  }

}

// Batch occupancy, queue and KV use over time, in `bins` intervals.
Table occupancy_table(const std::vector<OccupancyBin>& bins) {
  Table occ{"occupancy", "batch occupancy over time",
            {{"start", dims::time}, {"end", dims::time}, {"running", dims::none}, {"waiting", dims::none}, {"kv_use", dims::none},
             {"output_tokens_per_second", dims::token_rate}},
            {}};
  for (const auto& b : bins)
    occ.rows.push_back({Quantity{b.start, dims::time}, Quantity{b.end, dims::time}, Quantity::number(b.running), Quantity::number(b.waiting),
                        Quantity::number(b.kv_use), Quantity{b.output_rate, dims::token_rate}});
  return occ;
}

// The first 1,000 requests (--trace): arrival, schedule, TTFT, TPOT, latency, preemptions.
Table requests_table(const SimResult& r) {
  Table req{"requests", "requests (--trace, first 1,000)",
            {{"request", dims::none},
             {"prompt", dims::token},
             {"output", dims::token},
             {"arrival", dims::time},
             {"scheduled", dims::time},
             {"ttft", dims::time},
             {"tpot", dims::time},
             {"latency", dims::time},
             {"preemptions", dims::none}},
            {}};
  for (std::size_t i = 0; i < std::min<std::size_t>(r.requests.size(), 1000); ++i) {
    const auto& q = r.requests[i];
    req.rows.push_back({Quantity::number(static_cast<double>(i + 1)), Quantity{static_cast<double>(q.prompt), dims::token},
                        Quantity{static_cast<double>(q.output), dims::token}, to_quantity(q.arrival), to_quantity(q.scheduled),
                        to_quantity(q.ttft()), to_quantity(q.tpot()), to_quantity(q.latency()), Quantity::number(q.preemptions)});
  }
  return req;
}

void run_simulate(Context& ctx) {
  const Replica rep = resolve_replica(ctx);
  const SimInput in = resolve_stream(ctx, rep);
  const bool trace = ctx.flag("trace");

  Table schedule = schedule_table();
  std::int64_t traced = 0;
  StepObserver observer;
  // Progress counts answered requests; the observer is set only when someone watches (a step costs more with one).
  const bool watched = static_cast<bool>(ctx.options().progress);
  const double total = static_cast<double>(in.requests.size());
  double answered = 0;
  if (trace || watched) {
    observer = [&](const StepEvent& e) {
      if (watched) {
        answered += static_cast<double>(e.finished.size());
        ctx.progress(answered, total);
      }
      if (!trace) return;
      ++traced;
      if (schedule.rows.size() >= kTraceRows) return;
      const StepSample& s = *e.sample;
      std::int32_t padding = 0;
      for (const auto& it : e.items) padding += it.padding ? 1 : 0;
      schedule.rows.push_back({Quantity::number(static_cast<double>(e.index + 1)), to_quantity(e.start), to_quantity(e.duration),
                               std::string(step_kind(s)), Quantity::number(s.running), Quantity::number(s.waiting),
                               Quantity{static_cast<double>(s.prefill_tokens), dims::token},
                               Quantity{static_cast<double>(s.output_tokens), dims::token}, Quantity::number(padding),
                               Quantity::number(static_cast<double>(s.blocks_used)), ids(e.admitted), ids(e.preempted), ids(e.finished)});
    };
  }
  const SimResult r = simulate(in, rep.engine, *rep.model, observer);
  const Summary s = summarize(r, rep.engine.kv_blocks);

  report_run(ctx, rep, r, s);
  report_saturated(ctx, rep, in);
  report_slo_and_cost(ctx, r, s, rep.tp);

  ctx.add_table(occupancy_table(occupancy(r, ctx.count("bins"), rep.engine.kv_blocks)));

  if (trace) {
    if (traced > static_cast<std::int64_t>(kTraceRows)) ctx.note(fmt::format("schedule shows the first {} of {} steps", kTraceRows, traced));
    ctx.add_table(std::move(schedule));
    ctx.add_table(requests_table(r));
  }

  if (!in.closed && in.requests.size() > 1) {
    double last = 0;
    for (const auto& q : in.requests) last = std::max(last, q.arrival.value());
    if (last > 0)
      ctx.note(fmt::format("rates are over the makespan (t = 0 to the last answer at {}), ramp-up and drain included; the last of the {} "
                           "requests arrived at {}",
                           ctx.quote(s.makespan), in.requests.size(), ctx.quote(from_base<Seconds>(last))));
  }
  simulate_notes(ctx, rep, r, s);
}

}  // namespace

Calculator simulate_calculator() {
  Calculator c;
  c.name = "simulate";
  c.summary = "discrete-event simulation of one replica: static vs continuous batching, KV budget, preemption, TTFT/TPOT percentiles";
  c.description =
      "Simulates one replica step by step. Step time comes from the decode plugin's roofline (weights read once per step, each "
      "sequence's KV read, max(bytes / bandwidth, operations / peak)) or from measured --step-time. Static batching takes up to "
      "--max-batch waiting requests, prefills them padded to the longest prompt and decodes in lockstep until the longest output is "
      "done (finished slots idle: idle_slot_steps); continuous batching admits and retires sequences every step, takes KV blocks "
      "as sequences grow and preempts the latest admitted when none is free. The KV pool is what the fit waterfall leaves of "
      "--memory (or --gpu's), or --kv-budget / --kv-tokens / --kv-blocks. Requests: --count seeded lengths (fixed, uniform, "
      "exponential), --requests or --requests-file; arrivals: --rate (Poisson), --users (closed loop) or all at t = 0. Deterministic "
      "for a --seed. Reports throughput, TTFT/TPOT/latency percentiles (linear interpolation), occupancy over time (table), "
      "preemptions, backfills, Little's law and the saturated closed form beside the measured figures. --trace adds the schedule.";
  c.refs = replica_refs();
  c.refs.push_back(rental_ref());
  c.inputs = concat(concat(concat(replica_inputs(), engine_inputs()), stream_inputs()), report_inputs());
  c.inputs.push_back({.name = "bins", .kind = InputKind::integer, .help = "rows of the occupancy table (equal intervals of the run)",
                      .default_value = "20", .example = "100", .most = 10'000});
  c.inputs.push_back({.name = "trace", .kind = InputKind::flag, .help = "add the schedule (every step) and per-request tables"});
  c.outputs = {
      {"requests", dims::none, "requests answered"},
      {"makespan", dims::time, "from t = 0 to the last answer"},
      {"steps", dims::none, "engine steps run"},
      {"output_tokens_per_second", dims::token_rate, "output tokens / makespan"},
      {"total_tokens_per_second", dims::token_rate, "(prompt + output tokens) / makespan"},
      {"requests_per_second", dims::frequency, "answers / makespan (shown per second, e.g. 0.3/s)"},
      {"ttft_p50", dims::time, "time to first token, median"},
      {"ttft_p95", dims::time, "time to first token, 95th percentile"},
      {"ttft_p99", dims::time, "time to first token, 99th percentile"},
      {"ttft_mean", dims::time, "time to first token, mean"},
      {"tpot_p50", dims::time, "time per output token after the first, median"},
      {"tpot_p95", dims::time, "time per output token, 95th percentile"},
      {"tpot_p99", dims::time, "time per output token, 99th percentile"},
      {"tpot_mean", dims::time, "time per output token, mean"},
      {"latency_p50", dims::time, "arrival to answer, median"},
      {"latency_p95", dims::time, "arrival to answer, 95th percentile"},
      {"latency_p99", dims::time, "arrival to answer, 99th percentile"},
      {"latency_mean", dims::time, "arrival to answer, mean"},
      {"queue_p95", dims::time, "arrival to first scheduled, 95th percentile"},
      {"mean_batch", dims::none, "sequences per step, time-averaged over busy time"},
      {"peak_batch", dims::none, "most sequences in a batch"},
      {"busy_fraction", dims::none, "share of the makespan the replica ran steps"},
      {"mean_decode_step", dims::time, "mean length of a step that only decodes"},
      {"mean_prefill_step", dims::time, "mean length of a step that prefills"},
      {"kv_capacity", dims::token, "tokens the KV pool holds"},
      {"kv_blocks", dims::none, "blocks in the KV pool"},
      {"kv_budget", dims::information, "KV memory per device"},
      {"mean_kv_use", dims::none, "share of the KV pool in use, time-averaged over busy time"},
      {"peak_kv_use", dims::none, "largest share of the KV pool in use"},
      {"preemptions", dims::none, "sequences evicted when the KV pool ran out"},
      {"recomputed_tokens", dims::token, "tokens prefilled again after recompute preemptions"},
      {"swapped_blocks", dims::none, "blocks swapped to host memory (and back)"},
      {"backfills", dims::none, "requests admitted into a batch already running"},
      {"batches", dims::none, "static batches run"},
      {"idle_slot_steps", dims::none, "static batching: token slots computed for sequences already finished"},
      {"slot_utilization", dims::none, "static batching: output tokens / (slots x longest output), over all batches"},
      {"padding_tokens", dims::token, "static batching: prompt padding to the batch's longest prompt"},
      {"mean_concurrency", dims::none, "sequences in the batch, time-averaged over the makespan"},
      {"littles_law_concurrency", dims::none, "requests per second x mean time from scheduled to answer (Little's law)"},
      {"mean_in_system", dims::none, "requests waiting or running, time-averaged over the makespan"},
      {"saturated_batch", dims::none, "batch of the closed form: --max-batch, or fewer when the KV pool holds fewer mean-length sequences"},
      {"saturated_tokens_per_second", dims::token_rate, "closed form: output tokens per second of a full batch of mean-length requests"},
      {"saturated_requests_per_second", dims::frequency, "closed form: answers per second of a full batch (shown per second, e.g. 0.3/s)"},
      {"slo_attainment", dims::none, "share of requests within both --ttft-target and --tpot-target"},
      {"goodput", dims::frequency, "answers per second within both targets (shown per second, e.g. 0.3/s)"},
      {"cost_per_hour", dims::money_rate, "--gpu-hour x devices per replica"},
      {"cost_per_output_token", dims::money_per_token, "cost per hour / output tokens per hour", "$/Mtok"},
  };
  c.run = run_simulate;
  c.source = __FILE__;
  c.tables = {
      {"occupancy", "batch occupancy over time"},
      {"requests", "requests, first 1,000 (--trace)"},
      {"schedule", "engine steps (--trace)"},
  };
  c.verdicts = {
      {"tpot_p95_within_target", "p95 time per output token within --tpot"},
      {"ttft_p95_within_target", "p95 time to first token within --ttft"},
  };
  return c;
}

}  // namespace infracalc::serve
