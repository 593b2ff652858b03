#include "plan/plan_charts.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "plan/plan_eval.hpp"
#include "plugins/registry.hpp"
#include "units/format.hpp"

namespace infracalc::plan {

namespace {

// A chart's own calculator run (the roofline's batch sweep, the occupancy simulation), through the worksheet's run
// cache when it has one: the WebAssembly engine renders the page again at every what-if move, and a move of a price
// leaves these inputs as they were; a command writing a page and a workbook draws each chart twice. nullptr when the
// calculator refuses the inputs.
std::shared_ptr<const StepRun> chart_run(const Worksheet& w, const Plugin& p, const Calculator& c, RawInputs raw) {
  RunCache once;
  auto run = (w.runs != nullptr ? *w.runs : once).run(p, c, std::move(raw));
  return run->result ? run : nullptr;
}

using svg::ChartAxis;
using Series = ChartSeries;

PlanChart lines_chart(std::string title, ChartAxis x, ChartAxis y, std::vector<Series> series, std::string footnote,
                     std::vector<ChartMarker> markers = {}, std::vector<ChartPointLabel> labels = {}) {
  PlanChart c;
  c.kind = PlanChart::Kind::lines;
  c.title = std::move(title);
  c.x = std::move(x);
  c.y = std::move(y);
  c.series = std::move(series);
  c.footnote = std::move(footnote);
  c.markers = std::move(markers);
  c.labels = std::move(labels);
  return c;
}

PlanChart bars_chart(std::string title, std::string value_label, const std::vector<std::pair<std::string, double>>& bars,
                    const std::vector<std::string>& shown, std::string footnote) {
  PlanChart c;
  c.kind = PlanChart::Kind::bars;
  c.title = std::move(title);
  c.x = ChartAxis{std::move(value_label), false, 0, 1};
  for (std::size_t k = 0; k < bars.size(); ++k) c.bars.push_back({bars[k].first, bars[k].second, shown[k]});
  c.footnote = std::move(footnote);
  return c;
}

std::optional<Quantity> q_of(const Worksheet& w, std::string_view key) {
  const int i = w.program.find(key);
  if (i < 0) return std::nullopt;
  const auto& c = w.sheet.values[static_cast<std::size_t>(i)];
  if (!c) return std::nullopt;
  if (const auto* q = std::get_if<Quantity>(&*c)) return *q;
  return std::nullopt;
}

std::optional<std::string> text_of(const Worksheet& w, std::string_view key) {
  const int i = w.program.find(key);
  if (i < 0) return std::nullopt;
  const auto& c = w.sheet.values[static_cast<std::size_t>(i)];
  if (!c) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(&*c)) return *s;
  return cell_text(*c);
}

const Result* step_result(const Worksheet& w, std::string_view key) {
  for (std::size_t s = 0; s < w.program.steps.size(); ++s)
    if (w.program.steps[s].key == key && w.sheet.runs[s] && w.sheet.runs[s]->result) return &*w.sheet.runs[s]->result;
  return nullptr;
}

const Table* find_table(const Result& r, std::string_view name) {
  for (const auto& t : r.tables)
    if (t.name == name) return &t;
  return nullptr;
}

double cell_number(const Cell& c) {
  if (const auto* q = std::get_if<Quantity>(&c)) return q->value;
  return std::nan("");
}

// The roofline of one accelerator with the decode step at batch 1 and at the plan's batch, the batch curve
// from `decode roofline --sweep batch=1..1024`, and the prefill.
std::optional<PlanChart> roofline(const Worksheet& w) {
  const Plugin* p = find_plugin("decode");
  const Calculator* c = p != nullptr ? p->find("roofline") : nullptr;
  const auto model = text_of(w, "model");
  const auto gpu = text_of(w, "gpu");
  if (c == nullptr || !model || !gpu || w.program.mode != "serve") return std::nullopt;
  RawInputs raw = {{"model", *model}, {"gpu", *gpu}, {"sweep", "batch=1..1024"}};
  for (const char* k : {"dtype", "kv_dtype"})
    if (auto t = text_of(w, k)) raw.emplace_back(k, *t);
  if (auto b = q_of(w, "batch")) raw.emplace_back("batch", format_machine(b->value));
  if (auto t = q_of(w, "decode_context")) raw.emplace_back("tokens", format_machine(t->value));
  const auto run = chart_run(w, *p, *c, std::move(raw));
  if (run == nullptr) return std::nullopt;
  const Result& r = *run->result;
  const Value* peak = r.find("peak");
  const Value* bw = r.find("bandwidth");
  if (peak == nullptr || bw == nullptr) return std::nullopt;
  const double P = peak->q.value, B = bw->q.value;
  // The roof from a decade below the lowest operating point to a decade beyond the ridge or the highest point.
  double lo = P / B, hi = P / B;
  for (const char* k : {"decode_intensity", "prefill_intensity"})
    if (const Value* v = r.find(k); v != nullptr && v->q.value > 0) {
      lo = std::min(lo, v->q.value);
      hi = std::max(hi, v->q.value);
    }
  lo = std::pow(10.0, std::floor(std::log10(lo)) - 1);
  hi = std::pow(10.0, std::ceil(std::log10(hi)) + 1);
  Series roof{"roof: min(peak, bandwidth x intensity)", {}, false};
  for (double i = lo; i <= hi * 1.0001; i *= 1.25) roof.points.emplace_back(i, std::min(P, B * i));
  std::vector<Series> series{roof};
  std::vector<ChartPointLabel> labels;
  if (const Table* t = find_table(r, "sweep")) {
    std::size_t ci = 0, ca = 0;
    for (std::size_t k = 0; k < t->columns.size(); ++k) {
      if (t->columns[k].key == "intensity") ci = k;
      if (t->columns[k].key == "attainable") ca = k;
    }
    Series curve{"decode step, batch 1 to 1024 (doubling)", {}, false};
    for (const auto& row : t->rows) {
      curve.points.emplace_back(cell_number(row[ci]), cell_number(row[ca]));
      const double b = cell_number(row[0]);
      if (b == 1 || b == 8 || b == 64 || b == 512) labels.push_back({curve.points.back().first, curve.points.back().second, fmt::format("b={:g}", b)});
    }
    if (ci != ca) series.push_back(curve);
  }
  if (const Value* di = r.find("decode_intensity"))
    if (const Value* da = r.find("decode_attainable"))
      series.push_back({"decode at the plan's batch", {{di->q.value, da->q.value}}, true});
  if (const Value* pi = r.find("prefill_intensity"))
    if (const Value* pa = r.find("prefill_attainable")) series.push_back({"prefill of the batch", {{pi->q.value, pa->q.value}}, true});
  const std::string ridge = format_human(Quantity{P / B, dims::intensity, false}, FormatOptions{3});
  return lines_chart("Roofline: " + *model + " on " + *gpu, ChartAxis{"arithmetic intensity (FLOP/B)", true},
                    ChartAxis{"attainable rate (FLOP/s)", true, 0, 1, dims::flop_rate}, series,
                    fmt::format("peak {}, bandwidth {} (100% of the datasheet)", format_human(peak->q, FormatOptions{4}), format_human(bw->q, FormatOptions{4})),
                    {{P / B, "ridge " + ridge}}, labels);
}

std::optional<PlanChart> memory(const Worksheet& w) {
  std::vector<std::pair<std::string, double>> bars;
  std::vector<std::string> shown;
  auto add = [&](const char* label, std::string_view key) {
    if (auto q = q_of(w, key)) {
      bars.emplace_back(label, q->value / 1e9);
      shown.push_back(format_human(*q));
    }
  };
  if (w.program.mode == "serve") {
    add("weights", "weights_per_device");
    add("KV cache", "kv_cache_per_device");
    add("activations", "activations_per_device");
    add("framework reserve", "framework_reserve");
    add("communication buffers", "comm_buffers");
    add("used", "memory_per_device");
    add("usable", "memory_usable");
    add("headroom", "memory_headroom");
  } else {
    add("frozen base", "base_per_device");
    add("training state", "state_per_device");
    add("activations", "activations_per_device");
    add("used", "memory_per_device");
    add("headroom", "memory_headroom");
  }
  add("device memory", "gpu_memory");
  if (bars.size() < 3) return std::nullopt;
  return bars_chart("Memory per device", "GB (10^9 bytes)", bars, shown, "fit plugin; the usable memory is the device memory x memory utilization");
}

std::optional<PlanChart> cost(const Worksheet& w) {
  const auto gpus = q_of(w, "gpus");
  const auto rate = q_of(w, w.program.mode == "serve" ? "fleet_tokens_per_second" : "token_rate");
  if (!gpus || !rate || rate->value <= 0) return std::nullopt;
  std::vector<std::pair<std::string, double>> bars;
  std::vector<std::string> shown;
  // Each line per accelerator-hour, spread over the tokens the fleet produces in that hour.
  const double per = gpus->value / rate->value * 1e6;
  for (const auto& [label, key] : std::vector<std::pair<const char*, const char*>>{{"equipment", "equipment_per_hour"},
                                                                                   {"electricity", "electricity_per_hour"},
                                                                                   {"maintenance", "maintenance_per_hour"},
                                                                                   {"financing", "financing_per_hour"},
                                                                                   {"total", "owner_cost"}}) {
    if (auto q = q_of(w, key)) {
      bars.emplace_back(label, q->value * per);
      shown.push_back(fmt::format("${}", format_number(q->value * per, 4)));
    }
  }
  if (bars.size() < 2) return std::nullopt;
  const std::string what = w.program.mode == "serve" ? "output tokens" : "training tokens";
  return bars_chart("Cost of a million " + what + " by line", "USD per million " + what, bars, shown,
                   "tco hour's lines per accelerator-hour x accelerators / tokens per hour at the plan's load");
}

std::optional<PlanChart> rack_power(const Worksheet& w) {
  const auto rack = q_of(w, "rack_power");
  if (!rack) return std::nullopt;
  std::vector<std::pair<std::string, double>> bars;
  std::vector<std::string> shown;
  double parts = 0;
  if (const Result* r = step_result(w, "rack"))
    if (const Table* t = find_table(*r, "breakdown"))
      for (const auto& row : t->rows) {
        const double v = cell_number(row[3]);
        bars.emplace_back(std::get<std::string>(row[0]), v / 1e3);
        shown.push_back(format_human(Quantity{v, dims::power, false}));
        parts += v;
      }
  if (rack->value > parts * (1 + 1e-9) && parts > 0) {
    bars.emplace_back("rest of the rated rack", (rack->value - parts) / 1e3);
    shown.push_back(format_human(Quantity{rack->value - parts, dims::power, false}));
  }
  const auto racks = q_of(w, "racks");
  const auto net = q_of(w, "network_power_used");
  if (racks && net && racks->value > 0 && net->value > 0) {
    const double share = net->value / racks->value;
    bars.emplace_back("fabric share", share / 1e3);
    shown.push_back(format_human(Quantity{share, dims::power, false}));
  }
  bars.emplace_back("rack (IT)", rack->value / 1e3);
  shown.push_back(format_human(*rack));
  if (auto pue = q_of(w, "pue")) {
    const double overhead = (rack->value + (racks && net && racks->value > 0 ? net->value / racks->value : 0)) * (pue->value - 1);
    bars.emplace_back("facility overhead (PUE)", overhead / 1e3);
    shown.push_back(format_human(Quantity{overhead, dims::power, false}));
  }
  return bars_chart("Power of one rack by part", "kW", bars, shown, "power rack plugin at full load; the fabric's power spread over the racks");
}

// Occupancy of one replica over time from the serve plugin's simulation of the plan's request stream
// (Poisson arrivals at the replica's share of the served rate).
std::optional<PlanChart> occupancy_serve(const Worksheet& w) {
  const Plugin* p = find_plugin("serve");
  const Calculator* c = p != nullptr ? p->find("simulate") : nullptr;
  const auto model = text_of(w, "model");
  const auto gpu = text_of(w, "gpu");
  const auto batch = q_of(w, "batch");
  const auto served = q_of(w, "served_rate");
  const auto replicas = q_of(w, "replicas");
  const auto prompt = q_of(w, "prompt");
  const auto output = q_of(w, "output");
  if (c == nullptr || !model || !gpu || !batch || !served || !replicas || !prompt || !output || replicas->value < 1) return std::nullopt;
  const double rate = served->value / replicas->value;
  RawInputs raw = {{"model", *model},
                   {"gpu", *gpu},
                   {"max_batch", format_machine(batch->value)},
                   {"prompt_tokens", format_machine(prompt->value)},
                   {"output_tokens", format_machine(output->value)},
                   {"rate", format_machine(rate) + " 1/s"},
                   {"count", "400"},
                   {"length_dist", "exponential"},
                   {"seed", "1"},
                   {"bins", "100"}};
  for (const char* k : {"dtype", "kv_dtype", "chunked_prefill"})
    if (auto t = text_of(w, k)) raw.emplace_back(k, *t);
  for (const char* k : {"tp", "mbu", "mfu", "memory_utilization"})
    if (auto q = q_of(w, k)) raw.emplace_back(k, format_machine(q->value));
  const auto run = chart_run(w, *p, *c, std::move(raw));
  if (run == nullptr) return std::nullopt;
  const Result& r = *run->result;
  const Table* t = find_table(r, "occupancy");
  if (t == nullptr) return std::nullopt;
  std::size_t cs = 0, ce = 0, cr = 0, ck = 0;
  for (std::size_t k = 0; k < t->columns.size(); ++k) {
    if (t->columns[k].key == "start") cs = k;
    if (t->columns[k].key == "end") ce = k;
    if (t->columns[k].key == "running") cr = k;
    if (t->columns[k].key == "kv_use") ck = k;
  }
  Series running{"running sequences / max batch", {}, false};
  Series pool{"KV-cache pool in use", {}, false};
  for (const auto& row : t->rows) {
    const double time = 0.5 * (cell_number(row[cs]) + cell_number(row[ce]));
    running.points.emplace_back(time, 100 * cell_number(row[cr]) / batch->value);
    pool.points.emplace_back(time, 100 * cell_number(row[ck]));
  }
  std::string p95;
  if (const Value* v = r.find("ttft_p95")) p95 += "; p95 TTFT " + format_human(v->q);
  if (const Value* v = r.find("tpot_p95")) p95 += ", p95 TPOT " + format_human(v->q);
  return lines_chart("Occupancy of one replica over time", ChartAxis{"time (s)", false}, ChartAxis{"occupancy (%)", false}, {running, pool},
                    fmt::format("serve simulate: 400 requests, Poisson arrivals at {} req/s per replica, exponential lengths{}",
                                format_number(rate, 4), p95));
}

// Without the serve plugin: the KV block allocator of `kv paged` (a continuous-batching scheduler
// simulation) fed with the plan's request stream, one scheduler step per decode step.
std::optional<PlanChart> occupancy(const Worksheet& w) {
  if (w.program.mode != "serve") return std::nullopt;
  if (auto chart = occupancy_serve(w)) return chart;
  const Plugin* p = find_plugin("kv");
  const Calculator* c = p != nullptr ? p->find("paged") : nullptr;
  const auto model = text_of(w, "model");
  const auto step = q_of(w, "step_time");
  const auto usable = q_of(w, "memory_usable");
  const auto used = q_of(w, "memory_per_device");
  const auto kv = q_of(w, "kv_cache_per_device");
  const auto batch = q_of(w, "batch");
  const auto served = q_of(w, "served_rate");
  const auto replicas = q_of(w, "replicas");
  const auto prompt = q_of(w, "prompt");
  const auto output = q_of(w, "output");
  if (c == nullptr || !model || !step || !usable || !used || !kv || !batch || !served || !replicas || !prompt || !output) return std::nullopt;
  const double kv_memory = usable->value - used->value + kv->value;  // what the device can give the cache
  const double per_step = served->value / replicas->value * step->value;
  RawInputs raw = {{"model", *model},
                   {"memory", format_machine(kv_memory) + " B"},
                   {"count", "400"},
                   {"seed", "1"},
                   {"prompt-mean", format_machine(prompt->value)},
                   {"output-mean", format_machine(output->value)},
                   {"length-dist", "exponential"},
                   {"arrival-rate", format_machine(per_step)},
                   {"max-running", format_machine(batch->value)},
                   {"samples", "120"}};
  if (auto t = text_of(w, "kv_dtype")) raw.emplace_back("dtype", *t);
  if (auto tp = q_of(w, "tp")) raw.emplace_back("tp", format_machine(tp->value));
  const auto run = chart_run(w, *p, *c, std::move(raw));
  if (run == nullptr) return std::nullopt;
  const Result& r = *run->result;
  const Table* t = find_table(r, "timeline");
  if (t == nullptr) return std::nullopt;
  std::size_t cs = 0, cr = 0, cu = 0;
  for (std::size_t k = 0; k < t->columns.size(); ++k) {
    if (t->columns[k].key == "step") cs = k;
    if (t->columns[k].key == "running") cr = k;
    if (t->columns[k].key == "utilization") cu = k;
  }
  Series running{"running sequences / batch", {}, false};
  Series pool{"KV-cache pool in use", {}, false};
  for (const auto& row : t->rows) {
    const double time = cell_number(row[cs]) * step->value;
    running.points.emplace_back(time, 100 * cell_number(row[cr]) / batch->value);
    pool.points.emplace_back(time, 100 * cell_number(row[cu]));
  }
  return lines_chart("Occupancy of one replica over time", ChartAxis{"time (s)", false}, ChartAxis{"occupancy (%)", false}, {running, pool},
                    fmt::format("kv paged simulation: 400 requests, Poisson arrivals at {} req/s per replica, exponential lengths; "
                                "one step = one decode step of {}",
                                format_number(served->value / replicas->value, 4), format_human(*step)));
}

}  // namespace

std::optional<PlanChart> plan_chart(const Worksheet& w, ChartId id) {
  switch (id) {
    case ChartId::roofline: return roofline(w);
    case ChartId::memory: return memory(w);
    case ChartId::cost: return cost(w);
    case ChartId::rack_power: return rack_power(w);
    case ChartId::occupancy: return occupancy(w);
  }
  return std::nullopt;
}

}  // namespace infracalc::plan
