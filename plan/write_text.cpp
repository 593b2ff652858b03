// The text writer of documents: the title, then each section people read, under its heading, in aligned columns.
#include <algorithm>

#include "plan/document.hpp"
#include "plan/text_table.hpp"
#include "units/printable.hpp"

namespace infracalc::writers {

namespace {

// Aligned rows two spaces in; every cell is escaped for the terminal.
std::string indented_rows(std::vector<std::vector<std::string>> rows, std::size_t widest = 0, bool cut = false) {
  return aligned_rows(std::move(rows), {.indent = "  ", .widest = widest, .cut = cut});
}

// Whether a section has anything for people to read.
bool has_text(const Section& s) {
  switch (s.kind) {
    case SectionKind::values: return !s.values.empty();
    case SectionKind::inputs: return !s.inputs.empty();
    case SectionKind::fields: return !s.fields.empty();
    case SectionKind::verdicts: return !s.verdicts.empty();
    case SectionKind::tables: return !s.tables.empty();
    case SectionKind::records: return false;
    case SectionKind::notes: return !s.notes.empty();
    case SectionKind::sources: return s.citations != nullptr ? !s.citations->empty() : !s.sources.empty();
  }
  return false;
}

std::string source_text(const Provenance& p) {
  return (p.basis.empty() ? "" : "[" + p.basis + "] ") + p.source + (p.overlay ? " (overlay)" : "");
}

template <class List>
std::string sources_text(const List& list, const Section& s) {
  std::vector<std::vector<std::string>> rows;
  if (!s.group_sources) {
    for (const auto& p : list) rows.push_back({p.id + "." + p.field, p.as_of, source_text(p)});
    return indented_rows(std::move(rows), s.widest);
  }
  // One line per (entry, date, source): the fields it supplied are listed together.
  std::vector<std::pair<const Provenance*, std::string>> groups;
  for (const auto& p : list) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
      return g.first->id == p.id && g.first->as_of == p.as_of && g.first->source == p.source && g.first->basis == p.basis;
    });
    if (it == groups.end()) groups.emplace_back(&p, p.field);
    else it->second += ", " + p.field;
  }
  for (const auto& [p, fields] : groups) rows.push_back({p->id + " (" + fields + ")", p->as_of, source_text(*p)});
  return indented_rows(std::move(rows), s.widest);
}

std::string section_text(const Section& s, const OutputOptions& opt) {
  const FormatOptions& nf = opt.number;
  std::string out = s.title.empty() || s.kind == SectionKind::tables ? "" : "\n" + bold(s.title, opt.color) + "\n";
  std::vector<std::vector<std::string>> rows;
  switch (s.kind) {
    case SectionKind::values:
      for (const auto& v : s.values) rows.push_back({v.key, human_with_binary(v.q, v.unit_hint, nf)});
      return out + indented_rows(std::move(rows));
    case SectionKind::fields:
      for (const auto& f : s.fields) {
        rows.push_back({f.key, f.shown});
        const std::size_t n = s.terminal_columns == 0 ? f.columns.size() : std::min(s.terminal_columns, f.columns.size());
        rows.back().insert(rows.back().end(), f.columns.begin(), f.columns.begin() + static_cast<std::ptrdiff_t>(n));
      }
      return out + indented_rows(std::move(rows), s.widest, s.cut);
    case SectionKind::verdicts:
      for (const auto& v : s.verdicts)
        out += "  " + printable(v.key, Keep::text) + ": " + (v.ok ? green("yes", opt.color) : red("no", opt.color)) +
               (v.text.empty() ? "" : "  " + printable(v.text, Keep::text)) + "\n";
      return out;
    case SectionKind::tables:
      for (const auto& t : s.tables) {
        out += "\n" + bold(t.title, opt.color) + "\n";
        rows.clear();
        std::vector<std::string> head;
        for (const auto& c : t.columns) head.push_back(c.key);
        rows.push_back(head);
        for (const auto& row : t.rows) {
          std::vector<std::string> cells;
          for (std::size_t i = 0; i < row.size(); ++i) cells.push_back(human_cell(row[i], t.columns[i].unit_hint, nf));
          rows.push_back(cells);
        }
        out += indented_rows(std::move(rows), s.widest, s.cut);
      }
      return out;
    case SectionKind::inputs:
      for (const auto& in : s.inputs) {
        std::string shown = human_cell(in.value, "", nf);
        // Show what was typed when the preferred unit reads differently ("$0.6e9/yr" is not "$68.45k/h").
        const bool typed_unit = in.raw.find_first_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ$%") != std::string::npos;
        if (in.origin == Origin::flag && std::holds_alternative<Quantity>(in.value) && typed_unit && in.raw != shown)
          shown += "  (" + in.raw + ")";
        rows.push_back({in.key, shown, std::string(origin_name(in.origin)) + (in.from.empty() ? "" : " " + in.from)});
      }
      return out + indented_rows(std::move(rows));
    case SectionKind::notes:
      for (const auto& n : s.notes) out += "  - " + printable(n, Keep::text) + "\n";
      return out;
    case SectionKind::sources:
      return out + (s.citations != nullptr ? sources_text(*s.citations, s) : sources_text(s.sources, s));
    case SectionKind::records:
      break;
  }
  return {};
}

}  // namespace

std::string write_text(const Document& doc, const OutputOptions& opt) {
  std::string out = bold(doc.title, opt.color) + (doc.subtitle.empty() ? "" : printable("  " + doc.subtitle, Keep::text)) + "\n";
  for (const auto& s : doc.sections)
    if (s.human && has_text(s)) out += section_text(s, opt);
  return out;
}

}  // namespace infracalc::writers
