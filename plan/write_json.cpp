// The JSON writer of documents: one object, the head's members, then each section under its key.
#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>

#include "documents/json.hpp"
#include "plan/document.hpp"
#include "plan/machine_units.hpp"

namespace infracalc::writers {

using namespace std::string_view_literals;  // literal appends without a strlen per call (the batch hot path)

namespace {

// A key and what follows it (": {"), in one append: the keys a writer names (section and member keys) are
// identifiers, which need no escaping; any other text is escaped.
void append_key(std::string& out, std::string_view key, std::string_view tail) {
  char buf[64];
  if (key.size() + tail.size() + 4 <= sizeof buf) {
    bool plain = true;
    for (const char c : key) plain = plain && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || (c >= 'A' && c <= 'Z'));
    if (plain) {
      buf[0] = '"';
      std::memcpy(buf + 1, key.data(), key.size());
      buf[key.size() + 1] = '"';
      buf[key.size() + 2] = ':';
      buf[key.size() + 3] = ' ';
      std::memcpy(buf + key.size() + 4, tail.data(), tail.size());
      out.append(buf, key.size() + 4 + tail.size());
      return;
    }
  }
  append_json_string(out, key);
  out += ": "sv;
  out += tail;
}

// Each item written by `write`, with ", " between them.
template <class T, class Write>
void append_joined(std::string& out, std::span<const T> items, Write write) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i != 0) out += ", "sv;
    write(items[i], i);
  }
}

void append_cell_json(std::string& out, const Cell& c) {
  if (const auto* q = std::get_if<Quantity>(&c))
    append_machine(out, q->value);
  else
    append_json_string(out, std::get<std::string>(c));
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

// Result keys and their units repeat between records though the values do not: the JSON before and after each
// value, and the factor to its machine unit, are kept per position, keyed by the key and the dimension they are
// found from. A temperature point (an offset, not a factor) is written as machine_quantity gives it.
void append_value_json(std::string& out, const Value& v, std::size_t position) {
  struct Around {
    std::string key;
    Dim dim;
    double factor = 1;
    std::string before, after;
  };
  thread_local std::array<std::optional<Around>, 32> memo;
  auto around = [](std::string_view key, std::string_view unit, std::string& before, std::string& after) {
    append_json_string(before, key);
    before += ": {\"value\": "sv;
    after = ", \"unit\": ";
    append_json_string(after, unit);
    after += '}';
  };
  if (v.q.point) {
    const MachineQuantity m = machine_quantity(v.key, v.q);
    std::string before, after;
    around(v.key, m.unit, before, after);
    out += before;
    append_machine(out, m.value);
    out += after;
    return;
  }
  auto& slot = memo[position % memo.size()];
  if (!slot || slot->key != v.key || slot->dim != v.q.dim) {
    const MachineConversion c = machine_conversion(v.key, v.q.dim);
    Around a{v.key, v.q.dim, c.factor, {}, {}};
    around(v.key, c.unit, a.before, a.after);
    slot = std::move(a);
  }
  out += slot->before;
  append_machine(out, v.q.value / slot->factor);
  out += slot->after;
}

void append_member_value(std::string& out, const Member& m);

void append_member_json(std::string& out, const Member& m) {
  if (m.json_key.empty()) append_key(out, m.key, ""sv);
  else out += m.json_key;
  append_member_value(out, m);
}

void append_member_value(std::string& out, const Member& m) {
  if (const auto* s = std::get_if<std::string>(&m.value)) {
    append_json_string(out, *s);
  } else if (const auto* b = std::get_if<bool>(&m.value)) {
    out += *b ? "true"sv : "false"sv;
  } else if (const auto* d = std::get_if<double>(&m.value)) {
    append_machine(out, *d);
  } else if (const auto* n = std::get_if<std::int64_t>(&m.value)) {
    char digits[24];
    out.append(digits, static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, *n).ptr - digits));
  } else if (const auto* list = std::get_if<std::vector<Provenance>>(&m.value)) {
    out += '[';
    append_joined<Provenance>(out, *list, [&](const Provenance& p, std::size_t) { append_provenance_json(out, p); });
    out += ']';
  } else if (const auto* texts = std::get_if<std::vector<std::string>>(&m.value)) {
    out += '[';
    append_joined<std::string>(out, *texts, [&](const std::string& t, std::size_t) { append_json_string(out, t); });
    out += ']';
  } else if (const auto* members = std::get_if<std::vector<Member>>(&m.value)) {
    out += m.list ? '[' : '{';
    append_joined<Member>(out, *members, [&](const Member& item, std::size_t) {
      if (m.list) append_member_value(out, item);
      else append_member_json(out, item);
    });
    out += m.list ? ']' : '}';
  } else {
    out += "null"sv;
  }
}

void append_field_json(std::string& out, const Field& f) {
  append_json_string(out, f.key);
  out += ": {\"value\": "sv;
  if (!f.value) {
    out += "null"sv;
  } else if (const auto* q = std::get_if<Quantity>(&*f.value)) {
    const MachineQuantity m = machine_quantity(f.key, *q);
    append_machine(out, m.value);
    out += ", \"unit\": "sv;
    append_json_string(out, m.unit);
  } else {
    append_json_string(out, std::get<std::string>(*f.value));
  }
  for (const auto& m : f.members) {
    out += ", "sv;
    append_member_json(out, m);
  }
  out += '}';
}

void append_table_json(std::string& out, const Table& t) {
  append_json_string(out, t.name);
  out += ": {\"title\": "sv;
  append_json_string(out, t.title);
  out += ", \"columns\": ["sv;
  // Each column's unit and factor, found once for all its rows; batch records write the same tables again, so the
  // last ones found are kept, keyed by the column's key and dimension.
  struct Kept {
    std::string key;
    Dim dim;
    MachineConversion conversion;
  };
  thread_local std::vector<Kept> kept;
  thread_local std::vector<const MachineConversion*> conversions;
  conversions.clear();
  if (kept.size() < t.columns.size()) kept.resize(t.columns.size());
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    if (c != 0) out += ", "sv;
    out += "{\"key\": "sv;
    append_json_string(out, t.columns[c].key);
    if (kept[c].key != t.columns[c].key || kept[c].dim != t.columns[c].dim || kept[c].conversion.unit.empty())
      kept[c] = {t.columns[c].key, t.columns[c].dim, machine_conversion(t.columns[c].key, t.columns[c].dim)};
    conversions.push_back(&kept[c].conversion);
    const bool text = !t.rows.empty() && std::holds_alternative<std::string>(t.rows.front()[c]);
    if (!text) {
      out += ", \"unit\": "sv;
      append_json_string(out, kept[c].conversion.unit);
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
        append_machine(out, q->value / conversions[c]->factor);
      else
        append_cell_json(out, t.rows[k][c]);
    }
    out += "]"sv;
  }
  out += "]}"sv;
}

void append_notes_json(std::string& out, std::span<const std::string> notes) {
  // Records of one batch mostly repeat their notes: the JSON of the note last seen at each place is kept and
  // reused while the text is the same (comparing is cheaper than escaping).
  thread_local std::vector<std::pair<std::string, std::string>> note_json;
  for (std::size_t i = 0; i < notes.size(); ++i) {
    if (i != 0) out += ", "sv;
    if (i < note_json.size() && note_json[i].first == notes[i]) {
      out += note_json[i].second;
      continue;
    }
    const std::size_t start = out.size();
    append_json_string(out, notes[i]);
    if (i < 32) {
      if (note_json.size() <= i) note_json.resize(i + 1);
      note_json[i].first = notes[i];
      note_json[i].second.assign(out, start, std::string::npos);
    }
  }
}

void append_citations_json(std::string& out, const Citations& list) {
  // Records of one batch naming one model share their citations' list: its JSON is kept with the list it was
  // written from (held here, so that it cannot change or be freed while kept).
  thread_local Citations cited;
  thread_local std::string cited_json;
  if (!list.same_list(cited)) {
    cited_json.clear();
    for (std::size_t i = 0; i < list.size(); ++i) {
      cited_json += i ? ", "sv : ""sv;
      append_provenance_json(cited_json, list[i]);
    }
    cited = list;
  }
  out += cited_json;
}

// The opening bracket of a section's JSON: an object, or a list for notes, sources and unkeyed records.
std::string_view opening(const Section& s) {
  if (s.kind == SectionKind::notes || s.kind == SectionKind::sources) return "["sv;
  if (s.kind == SectionKind::records && !s.keyed) return "["sv;
  return "{"sv;
}

void append_record_json(std::string& out, const Record& r, bool keyed) {
  if (keyed) {
    append_json_string(out, r.key);
    out += ": "sv;
  }
  out += '{';
  append_joined<Member>(out, r.members, [&](const Member& m, std::size_t) { append_member_json(out, m); });
  if (r.nested != nullptr) {
    out += r.members.empty() ? ""sv : ", "sv;
    append_json_string(out, r.nested_key);
    out += ": "sv;
    write_json(out, *r.nested);
  }
  out += '}';
}

void append_section_json(std::string& out, const Section& s) {
  const std::string_view open = opening(s);
  if (s.json_open.empty()) append_key(out, s.key, open);
  else out += s.json_open;
  switch (s.kind) {
    case SectionKind::values: append_joined<Value>(out, s.values, [&](const Value& v, std::size_t i) { append_value_json(out, v, i); }); break;
    case SectionKind::inputs:
      append_joined<ResolvedInput>(out, s.inputs, [&](const ResolvedInput& in, std::size_t i) { append_input_json(out, in, i); });
      break;
    case SectionKind::fields: append_joined<Field>(out, s.fields, [&](const Field& f, std::size_t) { append_field_json(out, f); }); break;
    case SectionKind::verdicts:
      append_joined<Verdict>(out, s.verdicts, [&](const Verdict& v, std::size_t) {
        append_json_string(out, v.key);
        out += ": {\"ok\": "sv;
        out += v.ok ? "true"sv : "false"sv;
        out += ", \"text\": "sv;
        append_json_string(out, v.text);
        out += '}';
      });
      break;
    case SectionKind::tables: append_joined<Table>(out, s.tables, [&](const Table& t, std::size_t) { append_table_json(out, t); }); break;
    case SectionKind::records: append_joined<Record>(out, s.records, [&](const Record& r, std::size_t) { append_record_json(out, r, s.keyed); }); break;
    case SectionKind::notes: append_notes_json(out, s.notes); break;
    case SectionKind::sources:
      if (s.citations != nullptr) append_citations_json(out, *s.citations);
      else append_joined<Provenance>(out, s.sources, [&](const Provenance& p, std::size_t) { append_provenance_json(out, p); });
      break;
  }
  out += open == "["sv ? ']' : '}';
}

}  // namespace

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

void prepare_json(Document& doc) {
  for (auto& m : doc.head) {
    m.json_key.clear();
    append_key(m.json_key, m.key, ""sv);
  }
  for (auto& s : doc.sections) {
    s.json_open.clear();
    append_key(s.json_open, s.key, opening(s));
  }
}

void write_json(std::string& out, const Document& doc) {
  out += '{';
  bool first = true;
  for (const auto& m : doc.head) {
    out += first ? ""sv : ", "sv;
    first = false;
    append_member_json(out, m);
  }
  for (const auto& s : doc.sections) {
    if (!s.json) continue;
    out += first ? ""sv : ", "sv;
    first = false;
    append_section_json(out, s);
  }
  out += '}';
}

}  // namespace infracalc::writers
