#include "plan/document.hpp"

#include <cmath>
#include <cstdint>

#include "units/printable.hpp"

namespace infracalc::writers {

const char* origin_name(Origin o) {
  switch (o) {
    case Origin::flag: return "flag";
    case Origin::catalog: return "catalog";
    case Origin::default_value: return "default";
    case Origin::derived: return "derived";
  }
  return "flag";
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

void fill_result_document(Document& doc, const Result& r, std::size_t record) {
  const std::size_t head = record > 0 ? 4 : 3;
  // A batch run refills one document per record: its keys and sections are laid out once, then only viewed anew.
  if (doc.head.size() != head || doc.sections.size() != 7 || doc.sections[1].key != "results") {
    doc.subtitle.clear();
    doc.about.clear();
    doc.head.assign(head, Member{});
    doc.head[0] = {"schema_version", std::int64_t{1}};
    if (record > 0) doc.head[1] = {"record", std::int64_t{0}};
    doc.head[head - 2] = {"plugin", std::string()};
    doc.head[head - 1] = {"calculator", std::string()};
    // The inputs come first for programs and after the tables for people, so they are two sections, one for each.
    doc.sections.assign(7, Section{});
    Section* s = doc.sections.data();
    s[0] = {.kind = SectionKind::inputs, .key = "inputs", .human = false, .csv = false};
    s[1] = {.kind = SectionKind::values, .key = "results"};
    s[2] = {.kind = SectionKind::verdicts, .key = "verdicts"};
    s[3] = {.kind = SectionKind::tables, .key = "tables"};
    s[4] = {.kind = SectionKind::inputs, .key = "inputs", .title = "inputs", .json = false, .csv = false};
    s[5] = {.kind = SectionKind::notes, .key = "notes", .title = "notes"};
    s[6] = {.kind = SectionKind::sources, .key = "provenance", .title = "sources", .group_sources = true};
    prepare_json(doc);
  }
  if (record > 0) doc.head[1].value = static_cast<std::int64_t>(record);
  std::get<std::string>(doc.head[head - 2].value).assign(r.plugin);
  std::get<std::string>(doc.head[head - 1].value).assign(r.calculator);
  Section* s = doc.sections.data();
  s[0].inputs = r.inputs;
  s[1].values = r.values;
  s[2].verdicts = r.verdicts;
  s[3].tables = r.tables;
  s[4].inputs = r.inputs;
  s[5].notes = r.notes;
  s[6].citations = &r.provenance;
}

Document result_document(const Result& r, std::size_t record) {
  Document doc;
  fill_result_document(doc, r, record);
  doc.title = r.plugin + " " + r.calculator;
  return doc;
}

Table text_table(std::string name, std::string title, const std::vector<std::string>& columns, std::vector<std::vector<std::string>> rows) {
  Table t;
  t.name = std::move(name);
  t.title = std::move(title);
  for (const auto& c : columns) t.columns.push_back(Column{c, {}, {}});
  for (auto& r : rows) {
    t.rows.emplace_back();
    for (auto& c : r) t.rows.back().emplace_back(std::move(c));
  }
  return t;
}

std::string render(const Document& doc, const OutputOptions& opt) {
  switch (opt.format) {
    case OutputFormat::json: {
      std::string out;
      write_json(out, doc);
      return out + "\n";
    }
    case OutputFormat::csv: return printable(write_csv(doc, opt), Keep::lines);
    case OutputFormat::md: return printable(write_md(doc, opt), Keep::lines);
    case OutputFormat::table: break;
  }
  return write_text(doc, opt);
}

}  // namespace infracalc::writers
