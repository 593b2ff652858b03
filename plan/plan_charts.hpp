// The charts of a plan as data: what each shows (series, bars, axes, markers, footnote), built once from
// the worksheet and drawn by each writer (SVG files for --plot, native charts in the --xlsx workbook).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plan/plan_output.hpp"
#include "plan/svg.hpp"

namespace infracalc::plan {

/// A line (or a set of operating points) on a chart.
struct ChartSeries {
  /// The legend text.
  std::string name;
  /// (x, y) in the axes' base units.
  std::vector<std::pair<double, double>> points;
  /// Points only (operating points), no line.
  bool markers = false;
};

/// A labelled point on a series (a batch size along the decode curve).
struct ChartPointLabel {
  /// Where, in the axes' units.
  double x, y;
  /// The label.
  std::string text;
};

/// A vertical marker line (the ridge point) with its label.
struct ChartMarker {
  /// Where on the x axis.
  double x;
  /// The label.
  std::string text;
};

/// One bar of a breakdown: its label, its length on the value axis and the value as people read it.
struct ChartBar {
  /// The part.
  std::string label;
  /// Its length, in the value axis's unit.
  double value;
  /// The value with its unit ("40.8 kW", "$1.21").
  std::string shown;
};

/// The charts a plan draws, in the order of `plot_names()`.
enum class ChartId : unsigned char { roofline, memory, cost, rack_power, occupancy };

/// Every chart, in order.
inline constexpr ChartId kChartIds[] = {ChartId::roofline, ChartId::memory, ChartId::cost, ChartId::rack_power, ChartId::occupancy};

/// A chart of the plan: lines over two axes, or horizontal bars along one value axis.
struct PlanChart {
  /// Lines (x, y) or bars.
  enum class Kind : unsigned char { lines, bars };
  /// Which.
  Kind kind = Kind::lines;
  /// The title.
  std::string title;
  /// The x axis (for bars: the value axis, label only).
  svg::ChartAxis x;
  /// The y axis (lines only).
  svg::ChartAxis y;
  /// Lines: the series.
  std::vector<ChartSeries> series;
  /// Lines: vertical markers.
  std::vector<ChartMarker> markers;
  /// Lines: labelled points.
  std::vector<ChartPointLabel> labels;
  /// Bars: the parts, top to bottom.
  std::vector<ChartBar> bars;
  /// Where the figures come from and what they leave out.
  std::string footnote;
};

/// The chart `id` of the plan, or nullopt when the steps it needs did not run.
[[nodiscard]] std::optional<PlanChart> plan_chart(const Worksheet& w, ChartId id);

}  // namespace infracalc::plan
