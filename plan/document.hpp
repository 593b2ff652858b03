// The one output model: a result document (values, tables, verdicts, notes, provenance, in named sections) and one
// writer per format (aligned text, JSON, CSV, Markdown). Calculators' results, batch records and plans are written
// as documents; each writer knows the kinds of section, never what produced them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "host/plugin.hpp"
#include "plan/output.hpp"

namespace infracalc::writers {

struct Document;

/// A JSON member of a document's head, a field or a record: text, a yes/no, a number (written in machine form), a
/// whole number, no value (null), a list of catalog citations, a list of text, or further members (an object, or a
/// list of their values: a catalog entry's fields as its file nests them).
struct Member {
  /// The JSON key (unused for the items of a list).
  std::string key{};
  /// The value.
  std::variant<std::string, bool, double, std::int64_t, std::nullptr_t, std::vector<Provenance>, std::vector<std::string>,
               std::vector<Member>>
      value{};
  /// For further members: a JSON list of their values instead of an object.
  bool list = false;
  /// The key as JSON with its colon (`"key": `), when prepare_json has made it: written as it is.
  std::string json_key{};
};

/// A line of a document other than a calculator's output: a plan's line. JSON: `key: {"value": .., "unit": ..,
/// members..}`; people read its key, `shown` and `columns`.
struct Field {
  /// The key.
  std::string key{};
  /// The value: a quantity (written in its key's machine unit), text, or none (JSON null).
  std::optional<Cell> value{};
  /// The value as people read it ("70.55 GB", "—").
  std::string shown{};
  /// Without a value: the text programs read in CSV, and its unit (a catalog field, in the unit its schema gives).
  std::string machine{};
  /// The unit of `machine` ("" for text).
  std::string unit{};
  /// What people read after the value (how it was made, what it means).
  std::vector<std::string> columns{};
  /// JSON members after the value and its unit.
  std::vector<Member> members{};
};

/// One JSON object of members, optionally ending in a nested document (a plan's step and its calculator's result).
struct Record {
  /// Its key in a keyed section.
  std::string key{};
  /// Its members.
  std::vector<Member> members{};
  /// The key of the nested document, when there is one.
  std::string nested_key{};
  /// The nested document (written as JSON only), or nullptr.
  const Document* nested = nullptr;
};

/// What a section holds, which decides how each writer writes it.
enum class SectionKind : unsigned char {
  values,    ///< a calculator's outputs (`Value`): key, value and unit
  inputs,    ///< a calculator's inputs as it saw them (`ResolvedInput`), with where each came from
  fields,    ///< `Field`s: lines with a value, further columns for people and further members for programs
  verdicts,  ///< named yes/no outcomes (`Verdict`)
  tables,    ///< tables of cells (`Table`)
  records,   ///< JSON objects (`Record`): by key, or a list
  notes,     ///< sentences
  sources,   ///< catalog citations (`Provenance`)
};

/// One named part of a document. It views what it writes (the caller keeps it alive while the document is written).
struct Section {
  /// The kind, which says which view is set.
  SectionKind kind = SectionKind::values;
  /// The JSON key ("results", "lines").
  std::string_view key{};
  /// The heading people read ("" for none).
  std::string title{};
  /// Written in JSON.
  bool json = true;
  /// Written for people (text and Markdown).
  bool human = true;
  /// Written as CSV rows (values, fields and verdicts).
  bool csv = true;
  /// For fields and tables: the widest column people read before a wider cell pushes the rest of its line right (0:
  /// any width).
  std::size_t widest = 0;
  /// For fields and tables: a cell wider than `widest` is cut to it, ending in '~', so every line keeps the grid.
  bool cut = false;
  /// For fields: how many of the columns after the value the terminal shows (0: all); Markdown, a report, shows all.
  std::size_t terminal_columns = 0;
  /// For fields: the headings of the columns in Markdown (the key's, the value's, then one per column).
  std::vector<std::string> head{};
  /// For fields: the JSON members also written as CSV columns, after key, value and unit.
  std::vector<std::string> csv_members{};

  /// The values (kind values).
  std::span<const Value> values{};
  /// The inputs (kind inputs).
  std::span<const ResolvedInput> inputs{};
  /// The fields (kind fields).
  std::span<const Field> fields{};
  /// The verdicts (kind verdicts).
  std::span<const Verdict> verdicts{};
  /// The tables (kind tables).
  std::span<const Table> tables{};
  /// The records (kind records).
  std::span<const Record> records{};
  /// The notes (kind notes).
  std::span<const std::string> notes{};
  /// The citations (kind sources), as a list...
  std::span<const Provenance> sources{};
  /// ...or as a result's shared list, whose JSON a batch run keeps while records share it.
  const Citations* citations = nullptr;
  /// For sources: one line per entry, date and source, the fields it supplied listed together.
  bool group_sources = false;
  /// For records: a JSON object of them by key (else a list).
  bool keyed = false;
  /// The key as JSON with its colon and opening bracket (`"results": {`), when prepare_json has made it.
  std::string json_open{};
};

/// A document: its title, the JSON members before its sections, and the sections.
struct Document {
  /// The title people read (bold in the terminal, the Markdown heading).
  std::string title{};
  /// What people read after the title on its line ("(serve plan, x.toml)").
  std::string subtitle{};
  /// Paragraphs under the title in Markdown (a plan's description and how it was computed).
  std::vector<std::string> about{};
  /// The JSON members before the sections (schema_version first).
  std::vector<Member> head{};
  /// The sections, in order.
  std::vector<Section> sections{};
};

/// `r` as a document: inputs, results, verdicts, tables, notes and provenance, viewing `r` (which must outlive it).
/// A `record` above 0 is written as "record" after schema_version, as in batch lines.
[[nodiscard]] Document result_document(const Result& r, std::size_t record = 0);
/// Refills `doc` as result_document(r, record), but for the title, which only people read, without freeing what it
/// holds (the batch hot path, which writes JSON).
void fill_result_document(Document& doc, const Result& r, std::size_t record = 0);

/// Writes the JSON of the keys of `doc`'s head and sections once, for a document refilled and written many times (a
/// batch run's results).
void prepare_json(Document& doc);
/// A table of text cells named `name`, titled `title`, with these column keys (a catalog view's rows as people or
/// programs read them).
[[nodiscard]] Table text_table(std::string name, std::string title, const std::vector<std::string>& columns,
                               std::vector<std::vector<std::string>> rows);

/// Appends the document as one JSON object, without a trailing newline.
void write_json(std::string& out, const Document& doc);
/// The document as aligned text for the terminal; `color` makes headings bold and verdicts green or red.
[[nodiscard]] std::string write_text(const Document& doc, const OutputOptions& opt);
/// The document as CSV, of its sections marked for CSV: the table --table names (or, with no values or fields, the
/// first table), else key,value,unit
/// rows (and the first fields section's CSV members) for its values and fields, then a row per verdict (its text in
/// the last further column, where there is one).
[[nodiscard]] std::string write_csv(const Document& doc, const OutputOptions& opt);
/// The document as Markdown.
[[nodiscard]] std::string write_md(const Document& doc, const OutputOptions& opt);
/// The document in the chosen format, ending in a newline.
[[nodiscard]] std::string render(const Document& doc, const OutputOptions& opt);

/// The word for where an input came from ("flag", "catalog", "default", "derived").
[[nodiscard]] const char* origin_name(Origin o);
/// A quantity for people, with its hint; sizes from 1 kB up also show the other prefix family ("80 GB  (74.51 GiB)").
[[nodiscard]] std::string human_with_binary(const Quantity& q, const std::string& hint, const FormatOptions& opt);

}  // namespace infracalc::writers
