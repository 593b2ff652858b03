// The cells of catalog entries for `hw show`, `model show`, `data show`, `hw compare` and the lists: what a person
// reads and what a program reads of each field. The commands write them as result documents (plan/document.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "plan/output.hpp"
#include "catalog/catalog.hpp"

namespace infracalc::cli {

/// One value in a catalog view.
struct ViewCell {
  /// For people: the quantity formatted (format_human), or the text.
  std::string human;
  /// For programs: the number in `unit` (format_machine), or the text when `unit` is empty.
  std::string machine;
  /// The unit of `machine` (machine_quantity: base units, or the unit the key names); empty for text.
  std::string unit;
  /// Where `unit` is set: the number `machine` writes, for programs that compare, rank or write it as JSON.
  double number = 0;
};

/// One row: a field path and one cell per entry (nullopt where an entry lacks the field).
struct ViewRow {
  /// The dotted field path ("memory_bandwidth", "peak.bf16_dense", "derived.bf16_dense_per_power").
  std::string field;
  /// Per entry.
  std::vector<std::optional<ViewCell>> cells;
  /// Extra columns after the value (as of, basis, source, note) for a single-entry view; empty in a comparison.
  std::vector<std::string> extra;
};

/// The last part of a dotted field path, the key a value's unit is judged by ("peak.bf16_dense" -> "bf16_dense").
[[nodiscard]] std::string_view path_leaf(std::string_view path);
/// True when a data-file string reads as a quantity ("80 GB", "$2.50/h", "-5 K"), not as text ("Hopper").
[[nodiscard]] bool quantity_text(const std::string& s);
/// A field value for display: quantities formatted (with the text as written when that differs), text as is.
[[nodiscard]] std::string show_value(const Node& v, const FormatOptions& f);
/// The cell of one field value of an entry of `kind` at `path` (bare numbers take the unit the schema gives them).
[[nodiscard]] ViewCell view_cell(const Node& v, std::string_view kind, const std::string& path, const FormatOptions& f);
/// The cell of a computed quantity named `key`, shown in `hint` for people.
[[nodiscard]] ViewCell view_cell(std::string_view key, const Quantity& q, std::string_view hint, const FormatOptions& f);

/// The rows `hw compare` adds to the fields: peak dense BF16 and FP8 per watt of TDP, and where a purchase price
/// is in the catalog (a price entry whose `item` is the part, read --as-of), the price and memory bandwidth,
/// memory and BF16 peak per dollar.
[[nodiscard]] std::vector<ViewRow> compare_derived_rows(const std::vector<const Entry*>& entries, const Date& as_of,
                                                        const FormatOptions& f);

}  // namespace infracalc::cli
