#include "plugins/serve/serve_report.hpp"

#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "host/words.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::serve {

namespace {
}  // namespace

std::vector<Input> report_inputs() {
  return {
      {.name = "ttft_target", .kind = InputKind::quantity, .dim = dims::time,
       .help = "time-to-first-token target: the p95 is checked, and requests within it count toward goodput", .example = "2s",
       .optional = true},
      {.name = "tpot_target", .kind = InputKind::quantity, .dim = dims::time,
       .help = "time-per-output-token target: the p95 is checked, and requests within it count toward goodput", .example = "50ms",
       .optional = true},
      {.name = "gpu_hour", .kind = InputKind::quantity, .dim = dims::money_rate,
       .help = "price of one accelerator-hour: gives the replica's cost per hour and per output token", .example = "$2.50/h",
       .optional = true},
      {.name = "require_slo", .kind = InputKind::flag, .help = "exit 1 when a p95 misses its target"},
  };
}

CatalogRef rental_ref() {
  return {"rental", {"price"}, "accelerator rental entry from the catalog: its on-demand series (at --as-of) sets --gpu-hour"};
}

void report_percentiles(Context& ctx, std::string_view prefix, const Percentiles& p) {
  const std::string k(prefix);
  ctx.set(k + "_p50", p.p50);
  ctx.set(k + "_p95", p.p95);
  ctx.set(k + "_p99", p.p99);
  ctx.set(k + "_mean", p.mean);
}

void report_slo_and_cost(Context& ctx, const SimResult& r, const Summary& s, int devices) {
  const Seconds ttft = ctx.has("ttft_target") ? ctx.get<Seconds>("ttft_target") : Seconds{};
  const Seconds tpot = ctx.has("tpot_target") ? ctx.get<Seconds>("tpot_target") : Seconds{};
  bool failed = false;
  if (ttft.value() > 0 || tpot.value() > 0) {
    const auto within = within_targets(r, ttft, tpot);
    ctx.set_number("slo_attainment", static_cast<double>(within) / static_cast<double>(s.requests));
    ctx.set("goodput", from_base<PerSecond>(static_cast<double>(within) / s.makespan.value()));
  }
  if (ttft.value() > 0) {
    const bool ok = s.ttft.p95 <= ttft;
    failed |= !ok;
    ctx.verdict("ttft_p95_within_target", ok, fmt::format("p95 TTFT {} against {}", ctx.quote(to_quantity(s.ttft.p95)), ctx.quote(to_quantity(ttft))));
  }
  if (tpot.value() > 0) {
    const bool ok = s.tpot.count == 0 || s.tpot.p95 <= tpot;
    failed |= !ok;
    ctx.verdict("tpot_p95_within_target", ok, fmt::format("p95 TPOT {} against {}", ctx.quote(to_quantity(s.tpot.p95)), ctx.quote(to_quantity(tpot))));
  }
  if (failed && ctx.flag("require_slo")) ctx.fail_check();
  if (!ctx.has("gpu_hour") && ctx.ref("rental") != nullptr &&
      !fill_from_ref(ctx, "gpu_hour", "rental", "on_demand", expectation_of<UsdPerHour>()))
    throw UserError{{"--rental " + ctx.ref("rental")->id() + " has no on_demand price series", "give --gpu-hour"}};
  if (ctx.has("gpu_hour")) {
    const UsdPerHour per_hour = static_cast<double>(devices) * ctx.get<UsdPerHour>("gpu_hour");
    ctx.set("cost_per_hour", per_hour);
    if (s.output_rate.value() > 0) ctx.set("cost_per_output_token", per_hour / s.output_rate);
    ctx.note(fmt::format("cost: {} x {} for the whole makespan, idle time included", plural(devices, "device"),
                         ctx.quote(to_quantity(ctx.get<UsdPerHour>("gpu_hour")))));
  }
}

void simulate_notes(Context& ctx, const Replica& rep, const SimResult& r, const Summary& s) {
  const EngineConfig& e = rep.engine;
  if (e.batching == Batching::static_batch) {
    ctx.note(fmt::format("static batching: {} batches; prompts padded to each batch's longest, every slot decoded until the longest output "
                         "is done, answers returned when the batch ends",
                         r.batches));
    if (r.idle_slot_steps > 0)
      ctx.note(fmt::format("{} token slots decoded padding for sequences already finished ({} of the batches' slots); continuous batching "
                           "would hand each freed slot to a waiting request at the next step",
                           ctx.quote_count(static_cast<double>(r.idle_slot_steps)),
                           ctx.quote_percent(static_cast<double>(r.idle_slot_steps) / static_cast<double>(r.batch_slot_steps))));
  } else {
    ctx.note(fmt::format("continuous batching, at most {} sequences and {} tokens per step, {}; admissions first come first served, "
                         "preemption of the latest admitted ({})",
                         e.max_batch, e.step_tokens,
                         e.chunked_prefill ? "chunked prefill (decodes first, prompt chunks fill the rest)" : "a step prefills new prompts or decodes",
                         e.preemption == kv::Preemption::swap ? "swap" : "recompute"));
  }
  if (r.preemptions > 0)
    ctx.note(fmt::format("{} preemptions: the KV pool ran out while sequences grew; {} tokens were prefilled again", r.preemptions,
                         r.recomputed_tokens));
  ctx.note(fmt::format("Little's law: {} sequences in the batch on average against {} answers/s x {} in the batch = {}",
                       ctx.quote_number(s.mean_running), ctx.quote_number(s.request_rate.value()), ctx.quote(s.mean_residence),
                       ctx.quote_number((s.request_rate * s.mean_residence).value())));
  ctx.note("the first output token comes out of the prefill step; TTFT counts queueing and the prefill, not network or tokenisation "
           "(see `serve latency`)");
}

}  // namespace infracalc::serve
