// Writers for calculator results: human table, JSON, CSV and Markdown.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "host/plugin.hpp"
#include "plan/text_table.hpp"
#include "units/format.hpp"

namespace infracalc::writers {

struct MachineQuantity;

/// Output format chosen with --format (or --json / --csv).
enum class OutputFormat : unsigned char { table, json, csv, md };

/// Options shared by every writer.
struct OutputOptions {
  /// The format.
  OutputFormat format = OutputFormat::table;
  /// Human number formatting (--digits, --binary).
  FormatOptions number;
  /// ANSI colour in the human table.
  bool color = false;
  /// For CSV: which table to write instead of the results ("" = results, or the only table).
  std::string table;
};

/// A result as one JSON object (schema_version 1), without a trailing newline.
[[nodiscard]] std::string result_json(const Result& r);
/// Appends a catalog citation as a JSON object (id, field, as_of, source; basis, note and overlay when set): the one
/// form results, worksheets and batch records cite in.
void append_provenance_json(std::string& out, const Provenance& p);
/// Appends result_json(r) to `out` (batch mode writes records into one buffer); a `record` above 0 is written
/// as "record" after schema_version, as in batch error lines.
void append_result_json(std::string& out, const Result& r, std::size_t record = 0);
/// The names of a --fields list ("a,b"), each one of `declared` (a calculator's outputs); an unknown or empty name
/// throws UserError with a did-you-mean.
[[nodiscard]] std::vector<std::string> field_list(std::string_view text, const std::vector<std::string_view>& declared);
/// Trims `r` to the named results (--fields): other values and the result tables go; inputs, verdicts, notes and
/// sources stay. An empty list leaves `r` as it is.
void keep_fields(Result& r, const std::vector<std::string>& fields);
/// A result in the chosen format, ending in a newline.
[[nodiscard]] std::string render_result(const Result& r, const OutputOptions& opt);
/// One cell for human output.
[[nodiscard]] std::string human_cell(const Cell& c, const std::string& unit_hint, const FormatOptions& opt);
/// The machine unit string of a quantity (base units; "K" for temperature points).
[[nodiscard]] std::string machine_unit(const Quantity& q);
/// A text cell for a spreadsheet (CSV, xlsx): text that begins with '=', '+', '-' or '@' gets a leading single quote,
/// so that no spreadsheet runs it as a formula (OWASP, "CSV injection"); text that reads as a number ("-3.5") is
/// left as it is.
[[nodiscard]] std::string spreadsheet_text(std::string_view s);
/// One CSV cell of text: spreadsheet_text, in double quotes (doubled inside) when it holds ',', '"' or a line feed.
[[nodiscard]] std::string csv_cell(std::string_view text);
/// Appends {"value": v, "unit": u} for a quantity in base units to a JSON string.
void append_json_quantity(std::string& out, const Quantity& q);
/// Appends {"value": v, "unit": u} for a value already in its machine unit (machine_quantity).
void append_json_quantity(std::string& out, const MachineQuantity& m);

}  // namespace infracalc::writers
