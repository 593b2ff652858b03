#include "cli/calculator_svg.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "plan/svg.hpp"
#include "units/format.hpp"

namespace infracalc::cli {

namespace {

using svg::esc;
using svg::num;

// Rows beyond this make bars under two pixels high: the chart would say nothing a table does not.
constexpr std::size_t kMostRows = 256;
constexpr double kWidth = 860, kLabel = 150, kRight = 190, kTop = 56, kRow = 14, kGroupGap = 22;

struct State {
  const char* name;
  const char* fill;
};
constexpr State kStates[] = {{"compute", "#1f77b4"}, {"communicate", "#ff7f0e"}, {"wait", "#d9d9d9"}};

std::size_t column(const Table& t, std::string_view key) {
  for (std::size_t k = 0; k < t.columns.size(); ++k)
    if (t.columns[k].key == key) return k;
  throw std::logic_error("table " + t.name + " has no column " + std::string(key));
}

const Table& table(const Result& r, std::string_view name) {
  for (const auto& t : r.tables)
    if (t.name == name) return t;
  throw std::logic_error(r.plugin + " " + r.calculator + " declares a chart but has no table " + std::string(name));
}

double value(const Cell& c) { return std::get<Quantity>(c).value; }
const std::string& text(const Cell& c) { return std::get<std::string>(c); }

const char* fill_of(const std::string& state) {
  for (const auto& s : kStates)
    if (state == s.name) return s.fill;
  throw std::logic_error("timeline state " + state);
}

std::string input_text(const Result& r, std::string_view key) {
  for (const auto& in : r.inputs)
    if (in.key == key) {
      if (!in.raw.empty()) return in.raw;
      if (const auto* t = std::get_if<std::string>(&in.value)) return *t;
    }
  return {};
}

// One row per GPU, grouped by layout, on one time axis from the start of the round to the longest round; the
// layout's round and tokens per sequence per second to the right of its group, the legend under the axis.
std::string timeline_svg(const Result& r) {
  const Table& events = table(r, "timeline");
  const Table& layouts = table(r, "layouts");
  const std::size_t c_layout = column(events, "layout"), c_gpu = column(events, "gpu"), c_start = column(events, "start"),
                    c_end = column(events, "end"), c_state = column(events, "state");
  const std::size_t l_layout = column(layouts, "layout"), l_round = column(layouts, "round"), l_seq = column(layouts, "per_sequence");
  struct Group {
    std::string layout;
    double round = 0, per_sequence = 0;
    std::map<int, std::vector<const std::vector<Cell>*>> gpus;
  };
  std::vector<Group> groups;
  for (const auto& row : layouts.rows) groups.push_back({text(row[l_layout]), value(row[l_round]), value(row[l_seq]), {}});
  std::size_t rows = 0;
  for (const auto& row : events.rows) {
    const auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.layout == text(row[c_layout]); });
    if (g == groups.end()) throw std::logic_error("timeline row of an unknown layout");
    auto& gpu = g->gpus[static_cast<int>(value(row[c_gpu]))];
    if (gpu.empty()) ++rows;
    gpu.push_back(&row);
  }
  if (rows == 0) throw UserError{{"--plot: the timeline has no events to draw", "run without --plot to see why"}};
  if (rows > kMostRows)
    throw UserError{{fmt::format("--plot: {} GPU rows do not fit one chart (at most {})", rows, kMostRows),
                     "plot fewer --gpus or fewer --layouts; the table still lists every GPU"}};
  svg::ChartAxis axis{"time from the start of the round", false, 0, 1, dims::time};
  std::vector<double> ends;
  for (const auto& g : groups) ends.push_back(g.round);
  svg::fit_axis(axis, ends);
  const double x0 = kLabel, x1 = kWidth - kRight;
  const double plot_height = kRow * static_cast<double>(rows) + kGroupGap * static_cast<double>(groups.size());
  const double y_axis = kTop + plot_height;
  const bool prefill = input_text(r, "phase") == "prefill";
  std::vector<std::string> notes = svg::wrap_words(
      "decode timeline: " + (prefill ? std::string("one prefill of every prompt") : std::string("one steady-state decode round")) +
          " per layout; every bar is a row of the table `timeline`",
      static_cast<std::size_t>((kWidth - kLabel) / 5.5));
  const double legend_y = y_axis + 48;
  const double height = legend_y + 20 + 12 * static_cast<double>(notes.size()) + 8;
  // The catalog entries the inputs came from (the model, the accelerator, the link), in input order.
  std::vector<std::string> ids;
  for (const auto& in : r.inputs)
    if (in.origin == Origin::catalog && !in.from.empty() && std::find(ids.begin(), ids.end(), in.from) == ids.end()) ids.push_back(in.from);
  std::string title = "Parallel layouts over one " + std::string(prefill ? "prefill" : "decode round");
  if (!ids.empty()) title += fmt::format(": {}", fmt::join(ids, ", "));
  std::string out = svg::open(title, kWidth, height);
  out += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\" data-axis-end-s=\"{}\"/>\n",
                     num(x0), num(kTop), num(x1 - x0), num(plot_height), fmt::format("{:.9g}", axis.hi));
  for (double t : svg::ticks(axis)) {
    const double px = svg::map(axis, t, x0, x1);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#eee\"/>\n", num(px), num(kTop), num(y_axis));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", num(px), num(y_axis + 16), esc(svg::tick_label(t, axis)));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", num((x0 + x1) / 2), num(y_axis + 34), esc(axis.label));
  double y = kTop;
  for (const auto& g : groups) {
    y += kGroupGap;
    const double group_top = y;
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>\n", num(8), num(y - 6), esc(g.layout));
    for (const auto& [index, segments] : g.gpus) {
      out += fmt::format("<g class=\"gpu\" data-layout=\"{}\" data-gpu=\"{}\">\n", esc(g.layout), index);
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"10\">GPU {}</text>\n", num(x0 - 6), num(y + kRow - 4), index);
      for (const auto* row : segments) {
        const double a = value((*row)[c_start]), b = value((*row)[c_end]);
        const double pa = svg::map(axis, a, x0, x1), pb = svg::map(axis, b, x0, x1);
        const std::string& state = text((*row)[c_state]);
        out += fmt::format("<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} {} to {}</title></rect>\n",
                           esc(state), num(pa), num(y + 1), num(pb - pa), num(kRow - 2), fill_of(state), esc(state),
                           esc(format_human(Quantity{a, dims::time})), esc(format_human(Quantity{b, dims::time})));
      }
      out += "</g>\n";
      y += kRow;
    }
    const std::string rate = format_number(g.per_sequence, 4) + (prefill ? " passes/s per sequence" : " tokens/s per sequence");
    const double mid = (group_top + y) / 2;
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>\n", num(x1 + 8), num(mid - 2), esc(rate));
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#555\">{}</text>\n", num(x1 + 8), num(mid + 12),
                       esc("round " + format_human(Quantity{g.round, dims::time})));
  }
  double lx = x0;
  for (const auto& s : kStates) {
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/>\n", num(lx), num(legend_y - 9), s.fill);
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", num(lx + 16), num(legend_y), s.name);
    lx += 120;
  }
  for (std::size_t i = 0; i < notes.size(); ++i)
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#555\">{}</text>\n", num(x0), num(legend_y + 22 + 12 * static_cast<double>(i)),
                       esc(notes[i]));
  return out + "</svg>\n";
}

}  // namespace

std::string calculator_svg(const Calculator& c, const Result& r) {
  switch (c.chart) {
    case Chart::timeline: return timeline_svg(r);
    case Chart::none: break;
  }
  throw std::logic_error(std::string(c.name) + " declares no chart");
}

}  // namespace infracalc::cli
