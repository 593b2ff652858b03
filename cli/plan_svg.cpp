#include "cli/plan_svg.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "cli/svg.hpp"
#include "plugins/core/atomic_file.hpp"
#include "plugins/registry.hpp"
#include "units/format.hpp"

namespace infracalc::plan {

namespace {

constexpr double kW = 720, kH = 440;             // canvas
constexpr double kL = 90, kR = 30, kT = 50, kB = 70;  // margins

using svg::ChartAxis;
using svg::esc;
using svg::fit_axis;
using svg::map;
using svg::num;
using svg::tick_label;
using svg::ticks;

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;
  bool markers = false;  // points only (operating points), no line
};

// A labelled point on a series (a batch size along the decode curve).
struct PointLabel {
  double x, y;
  std::string text;
};

// A vertical marker line (the ridge point) with its label.
struct Marker {
  double x;
  std::string text;
};

std::string svg_open(const std::string& title, double height = kH) { return svg::open(title, kW, height); }

// A footnote broken at spaces into lines that fit the chart's width at 10 px type (about 5.5 px a character).
std::vector<std::string> footnote_lines(const std::string& text) { return svg::wrap_words(text, static_cast<std::size_t>((kW - kL - 10) / 5.5)); }

std::string footnote_svg(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#555\">{}</text>\n", num(kL), num(kH - 8 + 12 * static_cast<double>(i)),
                       esc(lines[i]));
  return out;
}

std::string axes_svg(const ChartAxis& x, const ChartAxis& y) {
  std::string s;
  const double x0 = kL, x1 = kW - kR, y0 = kH - kB, y1 = kT;
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>\n", num(x0), num(y1), num(x1 - x0),
                   num(y0 - y1));
  for (double t : ticks(x)) {
    const double px = map(x, t, x0, x1);
    s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#ddd\"/>\n", num(px), num(y0), num(y1));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", num(px), num(y0 + 16), esc(tick_label(t, x)));
  }
  for (double t : ticks(y)) {
    const double py = map(y, t, y0, y1);
    s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#ddd\"/>\n", num(x0), num(py), num(x1));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", num(x0 - 6), num(py + 4), esc(tick_label(t, y)));
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", num((x0 + x1) / 2), num(kH - 30), esc(x.label));
  s += fmt::format("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" transform=\"rotate(-90 {0} {1})\">{2}</text>\n", num(22),
                   num((y0 + y1) / 2), esc(y.label));
  return s;
}

std::string line_chart(const std::string& title, ChartAxis x, ChartAxis y, const std::vector<Series>& series, const std::string& footnote,
                       const std::vector<Marker>& markers = {}, const std::vector<PointLabel>& labels = {}) {
  std::vector<double> xs, ys;
  for (const auto& s : series)
    for (const auto& [a, b] : s.points) {
      xs.push_back(a);
      ys.push_back(b);
    }
  fit_axis(x, xs);
  fit_axis(y, ys);
  // The legend sits under the chart, below the axis label and the footnote, never over the data.
  const std::vector<std::string> notes = footnote_lines(footnote);
  const double legend_top = kH + 4 + 12 * static_cast<double>(notes.size() > 1 ? notes.size() - 1 : 0);
  const double height = legend_top + 16 * static_cast<double>(series.size()) + 6;
  std::string out = svg_open(title, height) + axes_svg(x, y);
  const double x0 = kL, x1 = kW - kR, y0 = kH - kB, y1 = kT;
  for (const auto& m : markers) {
    if ((x.log && m.x <= 0) || m.x < x.lo || m.x > x.hi) continue;
    const double px = map(x, m.x, x0, x1);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n", num(px), num(y0), num(y1));
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#333\">{}</text>\n", num(px + 4), num(y1 + 14), esc(m.text));
  }
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    const char* color = svg::color(k);
    std::string pts;
    for (const auto& [a, b] : s.points) {
      if ((x.log && a <= 0) || (y.log && b <= 0) || !std::isfinite(a) || !std::isfinite(b)) continue;
      const double px = map(x, a, x0, x1), py = map(y, b, y0, y1);
      if (s.markers)
        out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\"><title>{}</title></circle>\n", num(px), num(py), color, esc(s.name));
      else
        pts += num(px) + "," + num(py) + " ";
    }
    if (!s.markers && !pts.empty())
      out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", pts, color);
    const double ly = legend_top + 12 + 16 * static_cast<double>(k);
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/>\n", num(kL), num(ly - 9), color);
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", num(kL + 16), num(ly), esc(s.name));
  }
  for (const auto& l : labels) {
    if ((x.log && l.x <= 0) || (y.log && l.y <= 0)) continue;
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#333\">{}</text>\n", num(map(x, l.x, x0, x1) + 5),
                       num(map(y, l.y, y0, y1) + 12), esc(l.text));
  }
  return out + footnote_svg(notes) + "</svg>\n";
}

// Horizontal bars with their values, for breakdowns (memory, cost, power).
std::string bar_chart(const std::string& title, const std::string& value_label, const std::vector<std::pair<std::string, double>>& bars,
                      const std::vector<std::string>& shown, const std::string& footnote) {
  ChartAxis x{value_label, false, 0, 1};
  std::vector<double> vals;
  for (const auto& b : bars) vals.push_back(b.second);
  fit_axis(x, vals);
  const double left = 200, right = kW - 120, top = kT + 10, bottom = kH - kB;
  std::string out = svg_open(title, kH + 12 * static_cast<double>(std::max<std::size_t>(footnote_lines(footnote).size(), 1) - 1) + 4);
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\"/>\n", num(left), num(top), num(bottom));
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#333\"/>\n", num(left), num(bottom), num(right));
  for (double t : ticks(x)) {
    const double px = map(x, t, left, right);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#eee\"/>\n", num(px), num(bottom), num(top));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", num(px), num(bottom + 16), esc(tick_label(t, x)));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", num((left + right) / 2), num(kH - 30), esc(value_label));
  const double slot = (bottom - top) / std::max<double>(1, static_cast<double>(bars.size()));
  for (std::size_t k = 0; k < bars.size(); ++k) {
    const double y = top + slot * static_cast<double>(k) + slot * 0.15;
    const double h = slot * 0.7;
    const double x0 = map(x, 0, left, right);
    const double x1 = map(x, bars[k].second, left, right);
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", num(std::min(x0, x1)), num(y),
                       num(std::fabs(x1 - x0)), num(h), svg::color(k));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", num(left - 8), num(y + h / 2 + 4), esc(bars[k].first));
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", num(std::max(x0, x1) + 6), num(y + h / 2 + 4), esc(shown[k]));
  }
  return out + footnote_svg(footnote_lines(footnote)) + "</svg>\n";
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
std::optional<std::string> roofline(const Worksheet& w) {
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
  Result r;
  try {
    r = run_calculator(*p, *c, raw);
  } catch (const UserError&) {
    return std::nullopt;
  }
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
  std::vector<PointLabel> labels;
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
  return line_chart("Roofline: " + *model + " on " + *gpu, ChartAxis{"arithmetic intensity (FLOP/B)", true},
                    ChartAxis{"attainable rate (FLOP/s)", true, 0, 1, dims::flop_rate}, series,
                    fmt::format("peak {}, bandwidth {} (100% of the datasheet)", format_human(peak->q, FormatOptions{4}), format_human(bw->q, FormatOptions{4})),
                    {{P / B, "ridge " + ridge}}, labels);
}

std::optional<std::string> memory(const Worksheet& w) {
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
  return bar_chart("Memory per device", "GB (10^9 bytes)", bars, shown, "fit plugin; the usable memory is the device memory x memory utilization");
}

std::optional<std::string> cost(const Worksheet& w) {
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
  return bar_chart("Cost of a million " + what + " by line", "USD per million " + what, bars, shown,
                   "tco hour's lines per accelerator-hour x accelerators / tokens per hour at the plan's load");
}

std::optional<std::string> rack_power(const Worksheet& w) {
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
  return bar_chart("Power of one rack by part", "kW", bars, shown, "power rack plugin at full load; the fabric's power spread over the racks");
}

// Occupancy of one replica over time from the serve plugin's simulation of the plan's request stream
// (Poisson arrivals at the replica's share of the served rate).
std::optional<std::string> occupancy_serve(const Worksheet& w) {
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
  Result r;
  try {
    r = run_calculator(*p, *c, raw);
  } catch (const UserError&) {
    return std::nullopt;
  }
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
  return line_chart("Occupancy of one replica over time", ChartAxis{"time (s)", false}, ChartAxis{"occupancy (%)", false}, {running, pool},
                    fmt::format("serve simulate: 400 requests, Poisson arrivals at {} req/s per replica, exponential lengths{}",
                                format_number(rate, 4), p95));
}

// Without the serve plugin: the KV block allocator of `kv paged` (a continuous-batching scheduler
// simulation) fed with the plan's request stream, one scheduler step per decode step.
std::optional<std::string> occupancy(const Worksheet& w) {
  if (w.program.mode != "serve") return std::nullopt;
  if (auto svg = occupancy_serve(w)) return svg;
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
  Result r;
  try {
    r = run_calculator(*p, *c, raw);
  } catch (const UserError&) {
    return std::nullopt;
  }
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
  return line_chart("Occupancy of one replica over time", ChartAxis{"time (s)", false}, ChartAxis{"occupancy (%)", false}, {running, pool},
                    fmt::format("kv paged simulation: 400 requests, Poisson arrivals at {} req/s per replica, exponential lengths; "
                                "one step = one decode step of {}",
                                format_number(served->value / replicas->value, 4), format_human(*step)));
}

}  // namespace

const std::vector<std::string>& plot_names() {
  static const std::vector<std::string> names = {"roofline.svg", "memory.svg", "cost.svg", "rack-power.svg", "occupancy.svg"};
  return names;
}

std::vector<AtomicFile*> prepare_plots(OutputSet& set, const std::string& dir, bool force, const std::vector<std::string>& inputs) {
  try {
    set.create_directory(dir);
  } catch (const UserError& e) {
    throw UserError{{"--plot " + dir + ": " + e.error.message, e.error.hint}};
  }
  std::vector<AtomicFile*> files;
  for (const auto& name : plot_names()) files.push_back(&set.add((std::filesystem::path(dir) / name).string(), force, inputs));
  return files;
}

std::vector<std::string> fill_plots(const Worksheet& w, const std::vector<AtomicFile*>& files) {
  const std::optional<std::string> charts[] = {roofline(w), memory(w), cost(w), rack_power(w), occupancy(w)};
  std::vector<std::string> written;
  for (std::size_t i = 0; i < files.size() && i < std::size(charts); ++i) {
    if (charts[i]) {
      files[i]->write(*charts[i]);
      written.push_back(files[i]->target());
    } else {
      files[i]->skip();
    }
  }
  if (written.empty()) {
    const std::string dir = files.empty() ? std::string() : std::filesystem::path(files.front()->target()).parent_path().string();
    throw UserError{{"--plot " + dir + ": nothing to plot (the steps the charts need did not run)", "run the plan without --plot to see why"}};
  }
  return written;
}

std::vector<std::string> write_plots(const Worksheet& w, const std::string& dir, bool force, const std::vector<std::string>& inputs) {
  OutputSet set;
  const auto files = prepare_plots(set, dir, force, inputs);
  auto written = fill_plots(w, files);
  set.commit();
  return written;
}

}  // namespace infracalc::plan
