#include "plan/svg.hpp"

#include <cmath>
#include <fmt/format.h>

#include "units/format.hpp"

namespace infracalc::svg {

std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t from = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::string_view entity;
    switch (s[i]) {
      case '&': entity = "&amp;"; break;
      case '<': entity = "&lt;"; break;
      case '>': entity = "&gt;"; break;
      case '"': entity = "&quot;"; break;
      default: continue;
    }
    out.append(s.substr(from, i - from)).append(entity);
    from = i + 1;
  }
  return out.append(s.substr(from));
}

std::string num(double v) { return fmt::format("{:.2f}", v); }

const char* color(std::size_t k) {
  static const char* const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"};
  return colors[k % std::size(colors)];
}

double map(const ChartAxis& a, double v, double from, double to) {
  const double t = a.log ? (std::log10(v) - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo)) : (v - a.lo) / (a.hi - a.lo);
  return from + t * (to - from);
}

std::vector<double> ticks(const ChartAxis& a) {
  std::vector<double> t;
  if (a.log) {
    for (double e = std::floor(std::log10(a.lo)); e <= std::ceil(std::log10(a.hi)); e += 1) {
      const double v = std::pow(10.0, e);
      if (v >= a.lo * (1 - 1e-9) && v <= a.hi * (1 + 1e-9)) t.push_back(v);
    }
    return t;
  }
  const double span = a.hi - a.lo;
  const double raw = span / 6;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
  for (double v = std::ceil(a.lo / step) * step; v <= a.hi + 1e-9 * span; v += step) t.push_back(v);
  return t;
}

std::string tick_label(double v, const ChartAxis& axis) {
  if (axis.dim && v != 0) return format_human(Quantity{v, *axis.dim}, FormatOptions{3});
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e4 || a < 1e-2) {
    const int e = static_cast<int>(std::floor(std::log10(a)));
    const double m = v / std::pow(10.0, e);
    return std::fabs(m - 1) < 1e-9 ? fmt::format("1e{}", e) : fmt::format("{}e{}", format_number(m, 3), e);
  }
  return format_number(v, 4);
}

void fit_axis(ChartAxis& a, const std::vector<double>& values) {
  double lo = 1e300, hi = -1e300;
  for (double v : values) {
    if (!std::isfinite(v) || (a.log && v <= 0)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo > hi) {
    lo = a.log ? 1 : 0;
    hi = a.log ? 10 : 1;
  }
  if (a.log) {
    a.lo = std::pow(10.0, std::floor(std::log10(lo)));
    a.hi = std::pow(10.0, std::ceil(std::log10(hi)));
    if (a.hi <= a.lo) a.hi = a.lo * 10;
  } else {
    a.lo = std::min(0.0, lo);
    a.hi = hi > a.lo ? hi * 1.08 : a.lo + 1;
  }
}

std::string open(const std::string& title, double width, double height) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<title>{2}</title>\n<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{3}\" y=\"28\" font-size=\"16\" text-anchor=\"middle\">{2}</text>\n",
      width, height, esc(title), width / 2);
}

double text_width(std::string_view text, double size) {
  std::size_t chars = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++chars;
  return 0.55 * size * static_cast<double>(chars);
}

std::vector<std::string> wrap_words(const std::string& text, std::size_t chars) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    if (!line.empty() && line.size() + 1 + word.size() > chars) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    at = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace infracalc::svg
