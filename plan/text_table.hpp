// The text primitives every human-readable writer shares: aligned columns for the terminal, Markdown tables, and
// the bold and coloured words of the table format. One implementation each, for results, plans and catalog views.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace infracalc::writers {

/// How `aligned_rows` lays out a grid of text cells.
struct GridStyle {
  /// Written before every line.
  std::string indent{};
  /// Spaces between columns.
  std::size_t gap = 2;
  /// A column is at most this wide (0: as wide as its widest cell); a wider cell pushes the rest of its line right.
  std::size_t widest = 0;
  /// Cells wider than `widest` are cut to it, ending in '~', so every line keeps the grid.
  bool cut = false;
  /// Each cell is escaped for the terminal (printable, Keep::text) before it is measured.
  bool escape = true;
};

/// Display width of UTF-8 text: its code points (right for the symbols infracalc writes: µ, ×, —, °).
[[nodiscard]] std::size_t display_width(std::string_view s);
/// Rows of cells aligned in columns, the last cell of a line unpadded and trailing spaces trimmed; each line ends
/// in a line feed.
[[nodiscard]] std::string aligned_rows(std::vector<std::vector<std::string>> rows, const GridStyle& style);
/// Text for a Markdown table cell: '|' escaped as "\\|".
[[nodiscard]] std::string md_escape(std::string_view s);
/// A Markdown table: header row, separator, rows; every cell through md_escape.
[[nodiscard]] std::string md_table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows);
/// `text` escaped for the terminal, in bold when `color`.
[[nodiscard]] std::string bold(std::string_view text, bool color);
/// `word` (already printable) in green when `color`: a verdict that holds.
[[nodiscard]] std::string green(std::string_view word, bool color);
/// `word` (already printable) in red when `color`: a verdict that fails.
[[nodiscard]] std::string red(std::string_view word, bool color);

}  // namespace infracalc::writers
