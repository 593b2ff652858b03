// The boxes of an SVG chart's text, estimated from position, anchor, size and length, and the pairs that overlap:
// labels that collide are unreadable in print as on screen.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace svg_check {

/// One <text> element's estimated box in pixels.
struct TextBox {
  std::string text;
  double left = 0, right = 0, top = 0, bottom = 0;
};

/// The value of attribute `name` in the tag that spans [at, end).
inline std::string tag_attribute(const std::string& svg, std::size_t at, std::size_t end, const std::string& name) {
  const std::size_t a = svg.find(" " + name + "=\"", at);
  if (a == std::string::npos || a > end) return {};
  const std::size_t v = a + name.size() + 3;
  return svg.substr(v, svg.find('"', v) - v);
}

/// Code points of the element's text with entities counted as one character.
inline std::size_t text_length(const std::string& s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '&') i = s.find(';', i);
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++n;
  }
  return n;
}

/// Every <text> of the chart. A sans-serif character is taken as 0.55 of the font size wide (the average advance of
/// DejaVu Sans and Helvetica over digits and lower case), its line as 1.0 high from 0.8 above the baseline; a text
/// rotated by 90 degrees about its anchor gets the box turned with it.
inline std::vector<TextBox> text_boxes(const std::string& svg) {
  double base_size = 12;
  if (const std::size_t root = svg.find("<svg"); root != std::string::npos) {
    const std::string s = tag_attribute(svg, root, svg.find('>', root), "font-size");
    if (!s.empty()) base_size = std::stod(s);
  }
  std::vector<TextBox> boxes;
  for (std::size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
    const std::size_t end = svg.find('>', at);
    const std::size_t close = svg.find("</text>", end);
    const std::string content = svg.substr(end + 1, close - end - 1);
    if (content.empty()) continue;
    const std::string fs = tag_attribute(svg, at, end, "font-size");
    const double size = fs.empty() ? base_size : std::stod(fs);
    const double x = std::stod(tag_attribute(svg, at, end, "x"));
    const double y = std::stod(tag_attribute(svg, at, end, "y"));
    const double w = 0.55 * size * static_cast<double>(text_length(content));
    const std::string anchor = tag_attribute(svg, at, end, "text-anchor");
    const double start = anchor == "middle" ? -w / 2 : anchor == "end" ? -w : 0;
    TextBox b{content, x + start, x + start + w, y - 0.8 * size, y + 0.2 * size};
    if (tag_attribute(svg, at, end, "transform").rfind("rotate(-90", 0) == 0)
      b = {content, x - 0.8 * size, x + 0.2 * size, y - (start + w), y - start};
    boxes.push_back(std::move(b));
  }
  return boxes;
}

/// The pairs of texts whose boxes overlap by more than a pixel each way, as "a / b".
inline std::vector<std::string> overlapping_text(const std::string& svg) {
  const auto boxes = text_boxes(svg);
  std::vector<std::string> found;
  for (std::size_t i = 0; i < boxes.size(); ++i)
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      const auto& a = boxes[i];
      const auto& b = boxes[j];
      const double dx = std::min(a.right, b.right) - std::max(a.left, b.left);
      const double dy = std::min(a.bottom, b.bottom) - std::max(a.top, b.top);
      if (dx > 1 && dy > 1) found.push_back(a.text + " / " + b.text);
    }
  return found;
}

}  // namespace svg_check
