#include "plan/output.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fmt/format.h>
#include <optional>

#include "plan/machine_units.hpp"
#include "plan/text_table.hpp"
#include "documents/json.hpp"
#include "units/printable.hpp"
#include "units/suggest.hpp"

namespace infracalc::writers {

using namespace std::string_view_literals;  // literal appends without a strlen per call (the batch hot path)

namespace {

const char* origin_name(Origin o) {
  switch (o) {
    case Origin::flag: return "flag";
    case Origin::catalog: return "catalog";
    case Origin::default_value: return "default";
    case Origin::derived: return "derived";
  }
  return "flag";
}

// Aligned rows with two spaces between columns; every cell is escaped for the terminal.
std::string columns(std::vector<std::vector<std::string>> rows, const std::string& indent) {
  return aligned_rows(std::move(rows), {.indent = indent});
}

std::string human_with_binary(const Quantity& q, const std::string& hint, const FormatOptions& opt) {
  std::string s = format_human(q, opt, hint);
  // Sizes from 1 kB up also show the other prefix family (GB and GiB); below that they are the same.
  if (q.dim == dims::information && hint.empty() && std::fabs(q.value) >= 1000.0) {
    FormatOptions other = opt;
    other.binary = !opt.binary;
    s += "  (" + format_human(q, other) + ")";
  }
  return s;
}

void append_cell_json(std::string& out, const Cell& c) {
  if (const auto* q = std::get_if<Quantity>(&c))
    append_machine(out, q->value);
  else
    append_json_string(out, std::get<std::string>(c));
}

const Table* pick_table(const Result& r, const std::string& name) {
  for (const auto& t : r.tables)
    if (t.name == name) return &t;
  return nullptr;
}

std::string table_csv(const Table& t) {
  std::string out;
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    const auto& c = t.columns[i];
    const bool text = !t.rows.empty() && std::holds_alternative<std::string>(t.rows.front()[i]);
    out += (i ? "," : "") + csv_cell(text || c.dim.dimensionless() ? c.key : c.key + " (" + machine_quantity(c.key, Quantity{1, c.dim}).unit + ")");
  }
  out += "\n";
  for (const auto& row : t.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      out += i ? "," : "";
      if (const auto* q = std::get_if<Quantity>(&row[i]))
        out += format_machine(machine_quantity(t.columns[i].key, *q).value);
      else
        out += csv_cell(std::get<std::string>(row[i]));
    }
    out += "\n";
  }
  return out;
}

void write_provenance_json(std::string& out, const Provenance& p) {
  out += "{\"id\": "sv;
  append_json_string(out, p.id);
  out += ", \"field\": "sv;
  append_json_string(out, p.field);
  out += ", \"as_of\": "sv;
  append_json_string(out, p.as_of);
  out += ", \"source\": "sv;
  append_json_string(out, p.source);
  if (!p.basis.empty()) {
    out += ", \"basis\": "sv;
    append_json_string(out, p.basis);
  }
  if (!p.note.empty()) {
    out += ", \"note\": "sv;
    append_json_string(out, p.note);
  }
  if (p.overlay) out += ", \"overlay\": true"sv;
  out += "}"sv;
}

bool same_provenance(const Provenance& a, const Provenance& b) {
  return a.field == b.field && a.id == b.id && a.as_of == b.as_of && a.source == b.source && a.note == b.note && a.basis == b.basis &&
         a.overlay == b.overlay;
}

void write_input_json(std::string& out, const ResolvedInput& in) {
  append_json_string(out, in.key);
  out += ": {\"value\": "sv;
  if (const auto* q = std::get_if<Quantity>(&in.value)) {
    const MachineQuantity m = machine_quantity(in.key, *q);
    append_machine(out, m.value);
    out += ", \"unit\": "sv;
    append_json_string(out, m.unit);
  } else {
    append_cell_json(out, in.value);
  }
  out += ", \"from\": "sv;
  append_json_string(out, origin_name(in.origin));
  if (!in.from.empty()) {
    out += ", \"id\": "sv;
    append_json_string(out, in.from);
  }
  out += "}"sv;
}

// Bit for bit, so that -0 and 0 (printed differently) or two NaNs never share a memo entry.
bool identical_cell(const Cell& a, const Cell& b) {
  if (a.index() != b.index()) return false;
  if (const auto* qa = std::get_if<Quantity>(&a)) {
    const auto& qb = std::get<Quantity>(b);
    return std::bit_cast<std::uint64_t>(qa->value) == std::bit_cast<std::uint64_t>(qb.value) && qa->dim == qb.dim && qa->point == qb.point;
  }
  return std::get<std::string>(a) == std::get<std::string>(b);
}

// Batch records naming the same model resolve most inputs (catalog fields, defaults) to the same values:
// each input's JSON is kept per position in the list, keyed by all it is written from (key, value, origin,
// id). Inputs given by the record itself mostly differ from record to record and are not kept.
void append_input_json(std::string& out, const ResolvedInput& in, std::size_t position) {
  if (in.origin == Origin::flag) {
    write_input_json(out, in);
    return;
  }
  struct Written {
    std::string key;
    Origin origin;
    Cell value;
    std::string from;
    std::string json;
  };
  thread_local std::array<std::optional<Written>, 32> memo;
  auto& slot = memo[position % memo.size()];
  if (!slot || slot->origin != in.origin || slot->key != in.key || slot->from != in.from || !identical_cell(slot->value, in.value)) {
    std::string json;
    write_input_json(json, in);
    slot = Written{in.key, in.origin, in.value, in.from, std::move(json)};
  }
  out += slot->json;
}

// Result keys and their units repeat between records though the values do not: the JSON before and after
// each value is kept per position, keyed by the key and the unit it is written from.
void append_value_json(std::string& out, const Value& v, std::size_t position) {
  struct Around {
    std::string key, unit;
    std::string before, after;
  };
  thread_local std::array<std::optional<Around>, 32> memo;
  const MachineQuantity m = machine_quantity(v.key, v.q);
  auto& slot = memo[position % memo.size()];
  if (!slot || slot->key != v.key || slot->unit != m.unit) {
    std::string before;
    append_json_string(before, v.key);
    before += ": {\"value\": "sv;
    std::string after = ", \"unit\": ";
    append_json_string(after, m.unit);
    after += '}';
    slot = Around{v.key, m.unit, std::move(before), std::move(after)};
  }
  out += slot->before;
  append_machine(out, m.value);
  out += slot->after;
}

}  // namespace

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

// Batch records naming the same model cite the same fields, with sources of a hundred bytes or more: each
// citation's JSON is kept, keyed by its whole content (comparing is cheaper than escaping it again).
void append_provenance_json(std::string& out, const Provenance& p) {
  struct Written {
    Provenance p;
    std::string json;
  };
  thread_local std::array<std::optional<Written>, 32> memo;
  auto& slot = memo[(std::hash<std::string_view>{}(p.field) ^ p.id.size()) % memo.size()];
  if (!slot || !same_provenance(slot->p, p)) {
    std::string json;
    write_provenance_json(json, p);
    slot = Written{p, std::move(json)};
  }
  out += slot->json;
}

void append_result_json(std::string& out, const Result& r, std::size_t record) {
  out += "{\"schema_version\": 1, "sv;
  if (record > 0) {
    out += "\"record\": "sv;
    out += std::to_string(record);
    out += ", "sv;
  }
  out += "\"plugin\": "sv;
  append_json_string(out, r.plugin);
  out += ", \"calculator\": "sv;
  append_json_string(out, r.calculator);
  out += ", \"inputs\": {"sv;
  for (std::size_t i = 0; i < r.inputs.size(); ++i) {
    out += i ? ", "sv : ""sv;
    append_input_json(out, r.inputs[i], i);
  }
  out += "}, \"results\": {"sv;
  for (std::size_t i = 0; i < r.values.size(); ++i) {
    out += i ? ", "sv : ""sv;
    append_value_json(out, r.values[i], i);
  }
  out += "}, \"verdicts\": {"sv;
  for (std::size_t i = 0; i < r.verdicts.size(); ++i) {
    out += i ? ", "sv : ""sv;
    append_json_string(out, r.verdicts[i].key);
    out += ": {\"ok\": "sv;
    out += r.verdicts[i].ok ? "true" : "false";
    out += ", \"text\": "sv;
    append_json_string(out, r.verdicts[i].text);
    out += "}"sv;
  }
  out += "}, \"tables\": {"sv;
  for (std::size_t i = 0; i < r.tables.size(); ++i) {
    const auto& t = r.tables[i];
    out += i ? ", "sv : ""sv;
    append_json_string(out, t.name);
    out += ": {\"title\": "sv;
    append_json_string(out, t.title);
    out += ", \"columns\": ["sv;
    // Each column's unit and factor, found once for all its rows.
    std::vector<MachineConversion> conversions;
    conversions.reserve(t.columns.size());
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      out += c ? ", " : "";
      out += "{\"key\": "sv;
      append_json_string(out, t.columns[c].key);
      conversions.push_back(machine_conversion(t.columns[c].key, t.columns[c].dim));
      const bool text = !t.rows.empty() && std::holds_alternative<std::string>(t.rows.front()[c]);
      if (!text) {
        out += ", \"unit\": "sv;
        append_json_string(out, conversions.back().unit);
      }
      out += "}"sv;
    }
    out += "], \"rows\": ["sv;
    for (std::size_t k = 0; k < t.rows.size(); ++k) {
      out += k ? ", [" : "[";
      for (std::size_t c = 0; c < t.rows[k].size(); ++c) {
        out += c ? ", " : "";
        const auto* q = std::get_if<Quantity>(&t.rows[k][c]);
        if (q != nullptr && c < t.columns.size() && (q->point || q->dim != t.columns[c].dim))
          append_machine(out, machine_quantity(t.columns[c].key, *q).value);
        else if (q != nullptr && c < t.columns.size())
          append_machine(out, q->value / conversions[c].factor);
        else
          append_cell_json(out, t.rows[k][c]);
      }
      out += "]"sv;
    }
    out += "]}"sv;
  }
  out += "}, \"notes\": ["sv;
  // Records of one batch mostly repeat their notes: the JSON of the note last seen at each place is kept and
  // reused while the text is the same (comparing is cheaper than escaping).
  thread_local std::vector<std::pair<std::string, std::string>> note_json;
  for (std::size_t i = 0; i < r.notes.size(); ++i) {
    out += i ? ", "sv : ""sv;
    if (i < note_json.size() && note_json[i].first == r.notes[i]) {
      out += note_json[i].second;
      continue;
    }
    const std::size_t start = out.size();
    append_json_string(out, r.notes[i]);
    if (i < 32) {
      if (note_json.size() <= i) note_json.resize(i + 1);
      note_json[i].first = r.notes[i];
      note_json[i].second.assign(out, start, std::string::npos);
    }
  }
  out += "], \"provenance\": ["sv;
  // Records of one batch naming one model share their citations' list: its JSON is kept with the list it was
  // written from (held here, so that it cannot change or be freed while kept).
  thread_local Citations cited;
  thread_local std::string cited_json;
  if (!r.provenance.same_list(cited)) {
    cited_json.clear();
    for (std::size_t i = 0; i < r.provenance.size(); ++i) {
      cited_json += i ? ", "sv : ""sv;
      append_provenance_json(cited_json, r.provenance[i]);
    }
    cited = r.provenance;
  }
  out += cited_json;
  out += "]}"sv;
}

std::string render_result(const Result& r, const OutputOptions& opt) {
  const FormatOptions& nf = opt.number;
  switch (opt.format) {
    case OutputFormat::json:
      return result_json(r) + "\n";
    case OutputFormat::csv: {
      const Table* t = opt.table.empty() ? nullptr : pick_table(r, opt.table);
      if (!opt.table.empty() && t == nullptr) {
        std::string names;
        for (const auto& x : r.tables) names += (names.empty() ? "" : ", ") + x.name;
        throw UserError{{"--table: no table '" + opt.table + "' in this result",
                         names.empty() ? "this result has no tables" : "tables: " + names}};
      }
      if (t == nullptr && r.values.empty() && !r.tables.empty()) t = &r.tables.front();
      if (t != nullptr) return printable(table_csv(*t), Keep::lines);
      std::string out = "key,value,unit\n";
      for (const auto& v : r.values) {
        const MachineQuantity m = machine_quantity(v.key, v.q);
        out += csv_cell(v.key) + "," + format_machine(m.value) + "," + csv_cell(m.unit) + "\n";
      }
      for (const auto& v : r.verdicts) out += csv_cell(v.key) + "," + (v.ok ? "true" : "false") + ",\n";
      return printable(out, Keep::lines);
    }
    case OutputFormat::md: {
      std::vector<std::vector<std::string>> results;
      for (const auto& v : r.values) results.push_back({v.key, human_with_binary(v.q, v.unit_hint, nf)});
      for (const auto& v : r.verdicts) results.push_back({v.key, std::string(v.ok ? "yes" : "no") + " — " + v.text});
      std::string out = "## " + r.plugin + " " + r.calculator + "\n\n" + md_table({"result", "value"}, results);
      for (const auto& t : r.tables) {
        std::vector<std::string> head;
        for (const auto& c : t.columns) head.push_back(c.key);
        std::vector<std::vector<std::string>> body;
        for (const auto& row : t.rows) {
          body.emplace_back();
          for (std::size_t i = 0; i < row.size(); ++i) body.back().push_back(human_cell(row[i], t.columns[i].unit_hint, nf));
        }
        out += "\n### " + md_escape(t.title) + "\n\n" + md_table(head, body);
      }
      out += "\n**Inputs:** ";
      for (std::size_t i = 0; i < r.inputs.size(); ++i) {
        const auto& in = r.inputs[i];
        out += (i ? ", " : "") + md_escape(in.key) + " = " + md_escape(human_cell(in.value, "", nf)) + " (" +
               origin_name(in.origin) + (in.from.empty() ? "" : " " + in.from) + ")";
      }
      out += "\n";
      if (!r.notes.empty()) {
        out += "\n**Notes**\n\n";
        for (const auto& n : r.notes) out += "- " + md_escape(n) + "\n";
      }
      if (!r.provenance.empty()) {
        out += "\n**Sources**\n\n";
        for (const auto& p : r.provenance)
          out += "- " + md_escape(p.id + "." + p.field) + " (as of " + p.as_of + "): " + md_escape(p.source) + "\n";
      }
      return printable(out, Keep::lines);
    }
    case OutputFormat::table:
      break;
  }
  std::string out = bold(r.plugin + " " + r.calculator, opt.color) + "\n";
  if (!r.values.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& v : r.values) rows.push_back({v.key, human_with_binary(v.q, v.unit_hint, nf)});
    out += columns(rows, "  ");
  }
  for (const auto& v : r.verdicts)
    out += "  " + v.key + ": " + (v.ok ? green("yes", opt.color) : red("no", opt.color)) + (v.text.empty() ? "" : "  " + printable(v.text, Keep::text)) + "\n";
  for (const auto& t : r.tables) {
    out += "\n" + bold(t.title, opt.color) + "\n";
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head;
    for (const auto& c : t.columns) head.push_back(c.key);
    rows.push_back(head);
    for (const auto& row : t.rows) {
      std::vector<std::string> cells;
      for (std::size_t i = 0; i < row.size(); ++i) cells.push_back(human_cell(row[i], t.columns[i].unit_hint, nf));
      rows.push_back(cells);
    }
    out += columns(rows, "  ");
  }
  if (!r.inputs.empty()) {
    out += "\n" + bold("inputs", opt.color) + "\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& in : r.inputs) {
      std::string shown = human_cell(in.value, "", nf);
      // Show what was typed when the preferred unit reads differently ("$0.6e9/yr" is not "$68.45k/h").
      const bool typed_unit = in.raw.find_first_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ$%") != std::string::npos;
      if (in.origin == Origin::flag && std::holds_alternative<Quantity>(in.value) && typed_unit && in.raw != shown)
        shown += "  (" + in.raw + ")";
      rows.push_back({in.key, shown, std::string(origin_name(in.origin)) + (in.from.empty() ? "" : " " + in.from)});
    }
    out += columns(rows, "  ");
  }
  if (!r.notes.empty()) {
    out += "\n" + bold("notes", opt.color) + "\n";
    for (const auto& n : r.notes) out += "  - " + printable(n, Keep::text) + "\n";
  }
  if (!r.provenance.empty()) {
    out += "\n" + bold("sources", opt.color) + "\n";
    // One line per (entry, date, source): the fields it supplied are listed together.
    std::vector<std::pair<const Provenance*, std::string>> groups;
    for (const auto& p : r.provenance) {
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
        return g.first->id == p.id && g.first->as_of == p.as_of && g.first->source == p.source && g.first->basis == p.basis;
      });
      if (it == groups.end()) groups.emplace_back(&p, p.field);
      else it->second += ", " + p.field;
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& [p, fields] : groups)
      rows.push_back({p->id + " (" + fields + ")", p->as_of,
                      (p->basis.empty() ? "" : "[" + p->basis + "] ") + p->source + (p->overlay ? " (overlay)" : "")});
    out += columns(rows, "  ");
  }
  return out;
}

}  // namespace infracalc::writers
