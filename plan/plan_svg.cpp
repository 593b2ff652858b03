#include "plan/plan_svg.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "plan/plan_charts.hpp"
#include "plan/svg.hpp"
#include "documents/atomic_file.hpp"
#include "units/format.hpp"

namespace infracalc::plan {

namespace {

constexpr double kW = 720, kH = 440;             // canvas
constexpr double kL = 100, kR = 30, kT = 50, kB = 70;  // margins: the left one holds "100 TFLOP/s" ticks and the axis title

using svg::ChartAxis;
using svg::esc;
using svg::fit_axis;
using svg::map;
using svg::num;
using svg::tick_label;
using svg::ticks;

using Series = ChartSeries;

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
  double widest = 0;
  for (double t : ticks(y)) {
    const double py = map(y, t, y0, y1);
    const std::string label = tick_label(t, y);
    widest = std::max(widest, svg::text_width(label, 12));
    s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#ddd\"/>\n", num(x0), num(py), num(x1));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", num(x0 - 6), num(py + 4), esc(label));
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", num((x0 + x1) / 2), num(kH - 30), esc(x.label));
  // The axis title stands left of the widest tick label (its baseline 2.4 px from its far side), never off the canvas.
  const double title_x = std::max(12.0, x0 - 6 - widest - 8);
  s += fmt::format("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" transform=\"rotate(-90 {0} {1})\">{2}</text>\n", num(title_x),
                   num((y0 + y1) / 2), esc(y.label));
  return s;
}

std::string line_chart(const std::string& title, ChartAxis x, ChartAxis y, const std::vector<Series>& series, const std::string& footnote,
                       const std::vector<ChartMarker>& markers, const std::vector<ChartPointLabel>& labels) {
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
std::string bar_chart(const std::string& title, const std::string& value_label, const std::vector<ChartBar>& bars, const std::string& footnote) {
  ChartAxis x{value_label, false, 0, 1};
  std::vector<double> vals;
  for (const auto& b : bars) vals.push_back(b.value);
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
    const double x1 = map(x, bars[k].value, left, right);
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", num(std::min(x0, x1)), num(y),
                       num(std::fabs(x1 - x0)), num(h), svg::color(k));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", num(left - 8), num(y + h / 2 + 4), esc(bars[k].label));
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", num(std::max(x0, x1) + 6), num(y + h / 2 + 4), esc(bars[k].shown));
  }
  return out + footnote_svg(footnote_lines(footnote)) + "</svg>\n";
}

std::string render(const PlanChart& c) {
  if (c.kind == PlanChart::Kind::bars) return bar_chart(c.title, c.x.label, c.bars, c.footnote);
  return line_chart(c.title, c.x, c.y, c.series, c.footnote, c.markers, c.labels);
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
  std::vector<std::string> written;
  for (std::size_t i = 0; i < files.size() && i < std::size(kChartIds); ++i) {
    if (auto chart = plan_chart(w, kChartIds[i])) {
      files[i]->write(render(*chart));
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

std::vector<std::string> chart_svgs(const Worksheet& w) {
  std::vector<std::string> svgs;
  for (ChartId id : kChartIds)
    if (auto chart = plan_chart(w, id)) {
      std::string svg = render(*chart);
      if (svg.rfind("<?xml", 0) == 0) svg.erase(0, svg.find('\n') + 1);
      svgs.push_back(std::move(svg));
    }
  return svgs;
}

std::vector<std::string> write_plots(const Worksheet& w, const std::string& dir, bool force, const std::vector<std::string>& inputs) {
  OutputSet set;
  const auto files = prepare_plots(set, dir, force, inputs);
  auto written = fill_plots(w, files);
  set.commit();
  return written;
}

}  // namespace infracalc::plan
