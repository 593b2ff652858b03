// The CSV writer of documents: one table, in machine units.
#include "plan/document.hpp"
#include "plan/machine_units.hpp"

namespace infracalc::writers {

namespace {

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

std::string member_csv(const std::vector<Member>& members, const std::string& key) {
  for (const auto& m : members) {
    if (m.key != key) continue;
    if (const auto* s = std::get_if<std::string>(&m.value)) return csv_cell(*s);
    if (const auto* b = std::get_if<bool>(&m.value)) return *b ? "true" : "false";
    if (const auto* d = std::get_if<double>(&m.value)) return format_machine(*d);
    if (const auto* n = std::get_if<std::int64_t>(&m.value)) return std::to_string(*n);
    return {};
  }
  return {};
}

}  // namespace

std::string write_csv(const Document& doc, const OutputOptions& opt) {
  const Table* table = nullptr;
  const Table* first = nullptr;
  std::string names;
  bool rows = false;
  const std::vector<std::string>* extra = nullptr;
  for (const auto& s : doc.sections) {
    if (!s.csv) continue;
    if (s.kind == SectionKind::tables)
      for (const auto& t : s.tables) {
        names += (names.empty() ? "" : ", ") + t.name;
        if (first == nullptr) first = &t;
        if (!opt.table.empty() && t.name == opt.table && table == nullptr) table = &t;
      }
    if (s.kind == SectionKind::values && !s.values.empty()) rows = true;
    if (s.kind == SectionKind::fields && !s.fields.empty()) {
      rows = true;
      if (extra == nullptr) extra = &s.csv_members;
    }
  }
  if (!opt.table.empty() && table == nullptr)
    throw UserError{{"--table: no table '" + opt.table + "' in this result", names.empty() ? "this result has no tables" : "tables: " + names}};
  if (table == nullptr && !rows) table = first;
  if (table != nullptr) return table_csv(*table);

  std::string out = "key,value,unit";
  std::string padding;
  if (extra != nullptr)
    for (const auto& k : *extra) {
      out += "," + csv_cell(k);
      padding += ",";
    }
  out += "\n";
  for (const auto& s : doc.sections) {
    if (!s.csv) continue;
    if (s.kind == SectionKind::values)
      for (const auto& v : s.values) {
        const MachineQuantity m = machine_quantity(v.key, v.q);
        out += csv_cell(v.key) + "," + format_machine(m.value) + "," + csv_cell(m.unit) + padding + "\n";
      }
    if (s.kind == SectionKind::fields)
      for (const auto& f : s.fields) {
        std::string value, unit;
        if (f.value) {
          if (const auto* q = std::get_if<Quantity>(&*f.value)) {
            const MachineQuantity m = machine_quantity(f.key, *q);
            value = format_machine(m.value);
            unit = m.unit;
          } else {
            value = std::get<std::string>(*f.value);
          }
        } else {
          value = f.machine;
          unit = f.unit;
        }
        out += csv_cell(f.key) + "," + csv_cell(value) + "," + csv_cell(unit);
        if (extra != nullptr)
          for (const auto& k : *extra) out += "," + member_csv(f.members, k);
        out += "\n";
      }
    // A verdict's text goes in the last of the further columns, where there are any.
    if (s.kind == SectionKind::verdicts)
      for (const auto& v : s.verdicts)
        out += csv_cell(v.key) + "," + (v.ok ? "true" : "false") + "," + padding + (padding.empty() ? "" : csv_cell(v.text)) + "\n";
  }
  return out;
}

}  // namespace infracalc::writers
