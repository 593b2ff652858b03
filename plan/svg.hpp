// The pieces every SVG chart is drawn with: XML escaping, coordinates, axes with SI-prefixed ticks and
// footnotes broken to a width. Shared by the plan's charts (plan_svg) and the calculators' (calculator_svg).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "units/dim.hpp"

namespace infracalc::svg {

/// Text for an SVG element or attribute: &, <, > and " as entities (text from input or data never reaches a chart raw).
[[nodiscard]] std::string esc(std::string_view s);
/// A coordinate in pixels with two decimals.
[[nodiscard]] std::string num(double v);
/// The series colors, in order.
[[nodiscard]] const char* color(std::size_t k);

/// An axis: its label, scale and extent.
struct ChartAxis {
  /// The label with the unit, e.g. "arithmetic intensity (FLOP/B)".
  std::string label;
  /// Logarithmic scale.
  bool log = false;
  /// The low end of the axis.
  double lo = 0;
  /// The high end of the axis.
  double hi = 1;
  /// When set, ticks are quantities of this dimension with SI prefixes ("1 PFLOP/s", "500 µs"), not "1e15".
  std::optional<Dim> dim = std::nullopt;
};

/// The position of `v` on axis `a` drawn from pixel `from` (a.lo) to pixel `to` (a.hi).
[[nodiscard]] double map(const ChartAxis& a, double v, double from, double to);
/// Round tick values inside the axis (powers of ten on a log axis, steps of 1, 2 or 5 x 10^n otherwise).
[[nodiscard]] std::vector<double> ticks(const ChartAxis& a);
/// A tick's label: a quantity with an SI prefix when the axis has a dimension, else a short number.
[[nodiscard]] std::string tick_label(double v, const ChartAxis& axis);
/// Sets the axis extent to hold `values` (decades on a log axis; from zero, with 8% headroom, otherwise).
void fit_axis(ChartAxis& a, const std::vector<double>& values);
/// The opening of a standalone SVG document of `width` x `height` pixels: white background, title centred on top.
[[nodiscard]] std::string open(const std::string& title, double width, double height);
/// The width of `text` set in a sans-serif face at `size` pixels, estimated without font metrics: 0.55 of the size per
/// character, the average advance of DejaVu Sans and Helvetica over digits and lower case.
[[nodiscard]] double text_width(std::string_view text, double size);
/// `text` broken at spaces into lines of at most `chars` characters (a longer word stands alone).
[[nodiscard]] std::vector<std::string> wrap_words(const std::string& text, std::size_t chars);

}  // namespace infracalc::svg
