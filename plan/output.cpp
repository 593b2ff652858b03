#include "plan/output.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fmt/format.h>
#include <optional>

#include "plan/document.hpp"
#include "plan/machine_units.hpp"
#include "plan/text_table.hpp"
#include "documents/json.hpp"
#include "units/printable.hpp"
#include "units/suggest.hpp"

namespace infracalc::writers {

using namespace std::string_view_literals;  // literal appends without a strlen per call (the batch hot path)

std::string spreadsheet_text(std::string_view s) {
  if (s.empty() || std::string_view("=+-@").find(s.front()) == std::string_view::npos) return std::string(s);
  // A number stays a number: all of the text is one finite decimal ("-3.5", "+1e3").
  const std::string text(s);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() + text.size() && std::isfinite(v)) return text;
  return "'" + text;
}

std::string csv_cell(std::string_view text) {
  const std::string s = spreadsheet_text(text);
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string machine_unit(const Quantity& q) { return q.point ? "K" : base_unit_string(q.dim); }

void append_json_quantity(std::string& out, const Quantity& q) { append_json_quantity(out, {q.value, machine_unit(q)}); }

void append_json_quantity(std::string& out, const MachineQuantity& m) {
  out += "{\"value\": "sv;
  append_machine(out, m.value);
  out += ", \"unit\": "sv;
  append_json_string(out, m.unit);
  out += '}';
}

std::string human_cell(const Cell& c, const std::string& unit_hint, const FormatOptions& opt) {
  if (const auto* q = std::get_if<Quantity>(&c)) return format_human(*q, opt, unit_hint);
  return std::get<std::string>(c);
}

std::string result_json(const Result& r) {
  std::string out;
  append_result_json(out, r);
  return out;
}

std::vector<std::string> field_list(std::string_view text, const std::vector<std::string_view>& declared) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string name(text.substr(start, comma - start));
    while (!name.empty() && name.back() == ' ') name.pop_back();
    while (!name.empty() && name.front() == ' ') name.erase(0, 1);
    start = comma + 1;
    if (name.empty()) throw UserError{{"--fields: an empty field name", "list result names separated by commas, e.g. --fields total,per_token"}};
    if (std::find(declared.begin(), declared.end(), name) == declared.end()) {
      const std::string hint = did_you_mean(name, declared);
      std::string all;
      for (auto d : declared) all += (all.empty() ? "" : ", ") + std::string(d);
      throw UserError{{"--fields: no result '" + printable(name) + "'", hint.empty() ? "results: " + all : hint}};
    }
    out.push_back(std::move(name));
  }
  return out;
}

void keep_fields(Result& r, const std::vector<std::string>& fields) {
  if (fields.empty()) return;
  std::erase_if(r.values, [&](const auto& v) { return std::find(fields.begin(), fields.end(), v.key) == fields.end(); });
  r.tables.clear();
}

void append_result_json(std::string& out, const Result& r, std::size_t record) {
  // Refilled for each record, so that a batch run allocates nothing for the document itself.
  thread_local Document doc;
  fill_result_document(doc, r, record);
  write_json(out, doc);
}

std::string render_result(const Result& r, const OutputOptions& opt) { return render(result_document(r), opt); }

}  // namespace infracalc::writers
