// cluster failures: how often a fleet fails, how often to checkpoint (Young/Daly), what failures and
// checkpoints cost in wall time, what one failure takes down, and what common mitigations cost.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>

#include "plugins/cluster/cluster_calculators.hpp"
#include "plugins/cluster/reliability.hpp"
#include "host/words.hpp"

namespace infracalc::cluster {

namespace {

constexpr std::string_view kDefaultReliability = "llama3-405b-training";

Seconds s(double v) { return from_base<Seconds>(v); }

// Per-accelerator MTBF from a reliability entry: accelerators x window / unexpected interruptions when the
// entry gives them, else its mtbf_per_accelerator.
Seconds mtbf_from_entry(Context& ctx, const Entry& e) {
  auto acc = ctx.catalog<Number>(e, "accelerators");
  auto window = ctx.catalog<Seconds>(e, "duration");
  auto events = ctx.catalog<Number>(e, "unexpected_interruptions");
  if (acc && window && events && events->value() > 0) {
    const Seconds m = acc->value() * *window / events->value();
    ctx.note(fmt::format("per-accelerator MTBF from {}: {} accelerators x {} / {} unexpected interruptions = {} "
                         "(every cause, not GPU faults alone)",
                         e.id(), ctx.quote_count(acc->value()), ctx.quote(*window, "d"), ctx.quote_count(events->value()), ctx.quote(m, "h")));
    return m;
  }
  if (auto m = ctx.catalog<Seconds>(e, "mtbf_per_accelerator")) return *m;
  throw UserError{{e.id() + " gives no per-accelerator MTBF", "give --mtbf-per-gpu 50000h"}};
}

// A count from a flag, else from the --system entry.
std::optional<double> unit_size(Context& ctx, std::string_view key, std::string_view path) {
  if (ctx.has(key)) return static_cast<double>(ctx.integer(key));
  if (const Entry* sys = ctx.ref("system"))
    if (auto q = ctx.catalog<Number>(*sys, path)) return q->value();
  return std::nullopt;
}

void blast_table(Context& ctx, double gpus, Seconds loss_and_restart) {
  Table t{"blast_radius", "what one failure takes down",
          {{"unit"}, {"gpus", dims::none}, {"share_of_fleet", dims::none}, {"effect"}}, {}};
  auto row = [&](std::string unit, double n, std::string effect) {
    if (n <= 0 || n > gpus) return;
    t.rows.push_back({std::move(unit), Quantity::number(n), Quantity::number(n / gpus), std::move(effect)});
  };
  row("accelerator", 1, "replaced or drained; in a synchronous job every rank waits for it");
  if (auto n = unit_size(ctx, "gpus_per_node", "accelerators_per_node")) row("node", *n, "the host, its NICs and local storage go with it");
  const auto domain = unit_size(ctx, "scaleup_domain", "scaleup_domain");
  const auto rack = unit_size(ctx, "gpus_per_rack", "accelerators_per_rack");
  if (domain)
    row("scale-up domain", *domain,
        *domain > 8 ? "an NVLink switch tray or backplane fault stops every tensor-parallel group in the domain (a whole NVL72 rack)"
                    : "an NVSwitch fault stops the node's tensor-parallel group");
  if (rack && (!domain || *rack != *domain)) row("rack", *rack, "a rack power shelf, cooling loop or top-of-rack switch fault");
  if (ctx.has("replica_gpus"))
    row("model replica", static_cast<double>(ctx.integer("replica_gpus")),
        "training: the data-parallel replica is lost; serving: every request in flight on it fails");
  row("synchronous job", gpus,
      loss_and_restart.value() > 0
          ? fmt::format("training stops everywhere and rolls back to the last checkpoint: {} of GPU time per failure",
                        ctx.quote(gpus * loss_and_restart, "h"))
          : std::string("training stops everywhere and rolls back to the last checkpoint"));
  ctx.add_table(std::move(t));
}

// The checkpoint interval (Young's and Daly's, or --interval), the goodput it gives at this fleet MTBF, the work lost
// per failure, and a sweep of intervals. Returns the work lost and the restart, per failure.
Seconds report_checkpointing(Context& ctx, double gpus, Seconds fleet, Seconds restart) {
  const Seconds delta = ctx.get<Seconds>("checkpoint_time");
  const Seconds young = young_interval(delta, fleet);
  const Seconds daly = daly_interval(delta, fleet);
  const Seconds tau = ctx.has("interval") ? ctx.get<Seconds>("interval") : daly;
  ctx.set("young_interval", young);
  ctx.set("daly_interval", daly);
  ctx.set("interval", tau);
  // Wall time per unit of useful work (interval-sized segments, so the count is exact).
  const double ratio = (expected_wall_time(tau, tau, delta, restart, fleet) / tau).value();
  const double goodput = 1.0 / ratio;
  ctx.set_number("goodput", goodput);
  ctx.set_number("waste", 1.0 - goodput);
  ctx.set_number("checkpoint_overhead", delta.value() / tau.value());
  const Seconds loss = expected_loss_per_failure(tau + delta, fleet);
  ctx.set("loss_per_failure", loss);
  const Seconds loss_and_restart = loss + restart;
  ctx.set("gpu_time_lost_per_failure", gpus * loss_and_restart);
  if (ctx.has("work")) {
    const Seconds work = ctx.get<Seconds>("work");
    const Seconds wall = expected_wall_time(work, tau, delta, restart, fleet);
    ctx.set("wall_time", wall);
    ctx.set_number("expected_failures", wall.value() / fleet.value());
    const double segments = std::ceil(work.value() / tau.value() - 1e-9);
    ctx.set("checkpoint_time_total", segments * delta);
    ctx.set("failure_time_total", wall - segments * (tau + delta));
  }
  ctx.note(fmt::format("Young: sqrt(2 x {} x {}) = {}; Daly's higher-order optimum {}{}", ctx.quote(delta),
                       ctx.quote(fleet), ctx.quote(young, "min"), ctx.quote(daly, "min"),
                       ctx.has("interval") ? fmt::format("; evaluating the given --interval {}", ctx.quote(tau, "min")) : std::string()));
  ctx.note(fmt::format("goodput = tau / (M e^(R/M) (e^((tau+delta)/M) - 1)) (Daly 2006): failures strike anywhere, restarts included; "
                       "restart {}{}",
                       ctx.quote(restart, "min"), ctx.has("restart_time") ? "" : " (no --restart-time: detection, rescheduling and reload not counted)"));

  Table sweep{"intervals", "goodput against the checkpoint interval at this fleet MTBF",
              {{"interval", dims::time}, {"goodput", dims::none}, {"checkpoint_share", dims::none}, {"loss_per_failure", dims::time}}, {}};
  for (double f : {0.25, 0.5, 1.0, 2.0, 4.0}) {
    const Seconds t = f * daly;
    sweep.rows.push_back({to_quantity(t), Quantity::number(1.0 / (expected_wall_time(t, t, delta, restart, fleet) / t).value()),
                          Quantity::number(delta.value() / t.value()), to_quantity(expected_loss_per_failure(t + delta, fleet))});
  }
  ctx.add_table(std::move(sweep));
  return loss_and_restart;
}

// Fleet MTBF at other fleet sizes, the same rate per accelerator.
Table fleet_sizes_table(Seconds per_gpu, double gpus) {
  Table scale{"fleet_sizes", "fleet MTBF at other sizes (same per-accelerator rate)",
              {{"gpus", dims::none}, {"fleet_mtbf", dims::time}, {"failures_per_day", dims::none}}, {}};
  std::vector<double> sizes = {1024.0, 10000.0, 16384.0, 100000.0};
  if (std::find(sizes.begin(), sizes.end(), gpus) == sizes.end()) {
    sizes.push_back(gpus);
    std::sort(sizes.begin(), sizes.end());
  }
  for (double g : sizes) {
    const Seconds f = fleet_mtbf(per_gpu, g);
    scale.rows.push_back({Quantity::number(g), to_quantity(f), Quantity::number(86400.0 / f.value())});
  }
  return scale;
}

// Serving and recovery: replicas a fault takes down, validation re-runs, hot standby, and whether a retry fits the SLO.
void report_serving(Context& ctx, double gpus) {
  if (ctx.has("replica_gpus")) {
    const double replica = static_cast<double>(ctx.integer("replica_gpus"));
    if (replica > gpus) throw UserError{{"--replica-gpus exceeds --gpus", "a replica is part of the fleet"}};
    const double replicas = std::floor(gpus / replica);
    ctx.set_number("replicas", replicas);
    ctx.set_number("in_flight_lost_share", 1.0 / replicas);
    ctx.note(fmt::format("serving: a fault takes {} of {}, so {} of the requests in flight fail with it",
                         replicas > 1 ? "one" : "the only", plural(static_cast<std::int64_t>(replicas), "replica"), ctx.quote_percent(1.0 / replicas)));
  }
  if (ctx.has("validated_fraction")) {
    const double f = ctx.number("validated_fraction");
    ctx.set_number("compute_multiplier", 1.0 + f);
    ctx.note(fmt::format("re-running {} of the work to catch silent data corruption costs {}x the compute", ctx.quote_percent(f),
                         ctx.quote_number(1.0 + f)));
  }
  if (ctx.has("hot_standby")) {
    const double k = ctx.number("hot_standby");
    if (k < 1.0) throw UserError{{"--hot-standby: expected 1 or more (capacity provisioned per unit serving)", "e.g. 2 for one spare per active"}};
    ctx.set_number("serving_share", 1.0 / k);
    ctx.set_number("throughput_hit", k);
  }
  if (ctx.has("retry_backoff")) {
    const double spent = ctx.has("slo_spent") ? ctx.number("slo_spent") : 0.0;
    if (spent >= 1.0) throw UserError{{"--slo-spent: the budget is already spent", "give a share below 1"}};
    const Seconds backoff = ctx.get<Seconds>("retry_backoff");
    const Seconds rerun = ctx.has("rerun_time") ? ctx.get<Seconds>("rerun_time") : s(0);
    ctx.set("min_slo_for_retry", (backoff + rerun) / (1.0 - spent));
    if (ctx.has("slo")) {
      const Seconds left = (1.0 - spent) * ctx.get<Seconds>("slo");
      ctx.set("slo_remaining", left);
      const bool ok = left >= backoff + rerun;
      ctx.verdict("retry_affordable", ok, ok ? "the remaining budget covers the back-off and the re-run: retry"
                                             : "the remaining budget does not cover the back-off and the re-run: fail fast");
    }
  }
}

void run_failures(Context& ctx) {
  const double gpus = static_cast<double>(ctx.integer("gpus"));
  Seconds per_gpu = s(0);
  if (ctx.has("mtbf_per_gpu")) {
    per_gpu = ctx.get<Seconds>("mtbf_per_gpu");
  } else {
    const Entry* e = ctx.ref("reliability");
    if (e == nullptr) {
      e = &Catalog::instance().get(kDefaultReliability, {"reliability"}, "--reliability");
      ctx.note(fmt::format("no --mtbf-per-gpu: using {} ({}); give --reliability ID or --mtbf-per-gpu to choose another", e->id(), e->name()));
    }
    per_gpu = mtbf_from_entry(ctx, *e);
  }
  const Seconds fleet = fleet_mtbf(per_gpu, gpus);
  ctx.set("mtbf_per_gpu", per_gpu);
  ctx.set("fleet_mtbf", fleet);
  ctx.set_number("failures_per_day", 86400.0 / fleet.value());
  ctx.note(fmt::format("fleet MTBF = {} / {} = {}: independent, exponentially distributed failures; switches, power and "
                       "software faults outside the per-accelerator rate are not added",
                       ctx.quote(per_gpu, "h"), ctx.quote_count(gpus), ctx.quote(fleet, "h")));

  Seconds loss_and_restart = s(0);
  const Seconds restart = ctx.has("restart_time") ? ctx.get<Seconds>("restart_time") : s(0);
  if (ctx.has("checkpoint_time")) {
    loss_and_restart = report_checkpointing(ctx, gpus, fleet, restart);
  } else {
    ctx.note("give --checkpoint-time (how long one checkpoint stalls training) for the Young/Daly interval, goodput and lost work; "
             "`cluster checkpoint` estimates it");
  }
  ctx.add_table(fleet_sizes_table(per_gpu, gpus));
  blast_table(ctx, gpus, loss_and_restart);

  report_serving(ctx, gpus);
}

}  // namespace

Calculator failures_calculator() {
  Calculator c;
  c.name = "failures";
  c.summary = "fleet MTBF, Young/Daly checkpoint interval, lost work, goodput, blast radius, mitigation costs";
  c.description =
      "fleet MTBF = per-accelerator MTBF / N (independent exponential failures; default rate from the catalog's reliability "
      "data: Llama 3's 419 unexpected interruptions in 54 days on 16,384 GPUs). Checkpoint interval: Young sqrt(2δM), Daly's "
      "higher-order optimum. Wall time per useful tau: M e^(R/M) (e^((tau+δ)/M) - 1) (Daly 2006), failures striking during "
      "checkpoints and restarts included; goodput = tau / that. Loss per failure: the truncated-exponential mean of the "
      "segment, about (tau + δ)/2. Blast radius: accelerator, node, scale-up domain, replica, and the whole synchronous job.";
  c.refs = {{"reliability", {"reliability"}, "reliability entry for the per-accelerator rate (default llama3-405b-training)"},
            {"system", {"system"}, "system id: node, scale-up domain and rack sizes for the blast radius"}};
  c.inputs = {
      {.name = "gpus", .kind = InputKind::integer, .help = "accelerators in the job or fleet", .example = "16384"},
      {.name = "mtbf_per_gpu", .kind = InputKind::quantity, .dim = dims::time,
       .help = "mean time between failures of one accelerator (default: from --reliability)", .example = "50000h", .optional = true},
      {.name = "checkpoint_time", .kind = InputKind::quantity, .dim = dims::time, .help = "time one checkpoint stalls training (delta)",
       .example = "60s", .optional = true},
      {.name = "restart_time", .kind = InputKind::quantity, .dim = dims::time,
       .help = "time from a failure to training again: detect, replace or drain, reschedule, reload (R)", .example = "10min",
       .bound = Bound::non_negative, .optional = true},
      {.name = "interval", .kind = InputKind::quantity, .dim = dims::time,
       .help = "checkpoint interval to evaluate (default: Daly's optimum)", .example = "30min", .optional = true},
      {.name = "work", .kind = InputKind::quantity, .dim = dims::time, .help = "failure-free training time of the run (gives wall time)",
       .example = "54d", .optional = true},
      {.name = "gpus_per_node", .kind = InputKind::integer, .help = "accelerators per node (blast radius)", .example = "8", .optional = true},
      {.name = "scaleup_domain", .kind = InputKind::integer, .help = "accelerators in one NVLink/ICI domain (blast radius)",
       .example = "72", .optional = true},
      {.name = "gpus_per_rack", .kind = InputKind::integer, .help = "accelerators per rack (blast radius)", .example = "72",
       .optional = true},
      {.name = "replica_gpus", .kind = InputKind::integer, .help = "accelerators in one model replica (blast radius; serving share lost)",
       .example = "72", .optional = true},
      {.name = "validated_fraction", .kind = InputKind::quantity, .dim = dims::none,
       .help = "share of work re-run to detect silent data corruption (1 = dual run)", .example = "1", .bound = Bound::fraction0,
       .optional = true},
      {.name = "hot_standby", .kind = InputKind::quantity, .dim = dims::none,
       .help = "accelerators provisioned per accelerator serving (2 = one hot spare each)", .example = "2", .optional = true},
      {.name = "slo", .kind = InputKind::quantity, .dim = dims::time, .help = "request latency objective (retry decision)",
       .example = "30s", .optional = true},
      {.name = "slo_spent", .kind = InputKind::quantity, .dim = dims::none, .help = "share of the SLO already spent when the fault hits",
       .example = "80%", .bound = Bound::fraction0, .optional = true},
      {.name = "retry_backoff", .kind = InputKind::quantity, .dim = dims::time, .help = "back-off before a retry", .example = "5s",
       .bound = Bound::non_negative, .optional = true},
      {.name = "rerun_time", .kind = InputKind::quantity, .dim = dims::time, .help = "time to redo the request (re-prefill and decode)",
       .example = "3s", .bound = Bound::non_negative, .optional = true},
  };
  c.outputs = {
      {"mtbf_per_gpu", dims::time, "mean time between failures of one accelerator", "h"},
      {"fleet_mtbf", dims::time, "mean time between failures of the fleet"},
      {"failures_per_day", dims::none, "expected failures per day"},
      {"young_interval", dims::time, "Young's optimum checkpoint interval sqrt(2 delta M)"},
      {"daly_interval", dims::time, "Daly's higher-order optimum"},
      {"interval", dims::time, "the interval evaluated"},
      {"goodput", dims::none, "useful share of wall time (checkpoints, lost work and restarts removed)"},
      {"waste", dims::none, "1 - goodput"},
      {"checkpoint_overhead", dims::none, "delta / interval"},
      {"loss_per_failure", dims::time, "work and checkpoint time one failure throws away (expected)"},
      {"gpu_time_lost_per_failure", dims::time, "accelerator-hours one failure costs the synchronous job (loss + restart)", "h"},
      {"wall_time", dims::time, "expected wall time of --work"},
      {"expected_failures", dims::none, "failures expected during the run"},
      {"checkpoint_time_total", dims::time, "time writing checkpoints during the run"},
      {"failure_time_total", dims::time, "time lost to failures during the run (rework and restarts)"},
      {"replicas", dims::none, "model replicas in the fleet"},
      {"in_flight_lost_share", dims::none, "share of in-flight requests one replica fault kills"},
      {"compute_multiplier", dims::none, "compute with validation re-runs: 1 + validated share"},
      {"serving_share", dims::none, "share of provisioned accelerators serving under hot standby"},
      {"throughput_hit", dims::none, "throughput per provisioned accelerator falls by this factor"},
      {"min_slo_for_retry", dims::time, "shortest SLO at which a retry still fits: (back-off + re-run) / (1 - spent)"},
      {"slo_remaining", dims::time, "budget left when the fault hits"},
  };
  c.run = run_failures;
  c.source = __FILE__;
  c.tables = {
      {"blast_radius", "what one failure takes down"},
      {"fleet_sizes", "fleet MTBF at other fleet sizes, same rate per accelerator"},
      {"intervals", "goodput against the checkpoint interval"},
  };
  c.verdicts = {
      {"retry_affordable", "the remaining budget covers the back-off and the re-run"},
  };
  return c;
}

}  // namespace infracalc::cluster
