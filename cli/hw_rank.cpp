// `hw list --available-by YYYY-MM --sort FIELD`: the feasibility gate before the ranking. "A 10% faster system that
// ships in six months cannot do today's job" (../shared/CALCULATORS.md, other): parts whose first availability
// (the catalog's `launch`, general availability or first shipments as the source gives it) falls after the need-by
// month are dropped, and listed with their date, before what is left is ranked by speed (or any field).
#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <optional>

#include "cli/catalog_views.hpp"
#include "cli/commands.hpp"
#include "plan/document.hpp"
#include "catalog/check.hpp"
#include "documents/json.hpp"
#include "units/printable.hpp"
#include "units/suggest.hpp"

namespace infracalc::cli {

namespace {

// A month as year * 12 + month - 1, so months compare as integers.
int month_index(int year, int month) { return year * 12 + month - 1; }

bool digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The last month of a launch period: "2025-06" itself, "2024-Q4" its third month (December), a bare "2020"
// December. The gate counts a part from the end of the period its source names, never earlier than the source says.
std::optional<int> launch_month(const std::string& text) {
  const std::string_view s = text;
  if (s.size() < 4 || !digits(s.substr(0, 4))) return std::nullopt;
  const int year = std::atoi(text.substr(0, 4).c_str());
  if (s.size() == 4) return month_index(year, 12);
  if (s.size() == 7 && s[4] == '-' && (s[5] == 'Q' || s[5] == 'q') && s[6] >= '1' && s[6] <= '4') return month_index(year, 3 * (s[6] - '0'));
  if (s.size() == 7 && s[4] == '-' && digits(s.substr(5, 2))) {
    const int month = std::atoi(text.substr(5, 2).c_str());
    if (month >= 1 && month <= 12) return month_index(year, month);
  }
  return std::nullopt;
}

// --available-by: YYYY-MM (a day, YYYY-MM-DD, is accepted and read as its month: the catalog's dates are months).
int need_by_month(const std::string& text) {
  const std::string_view s = text;
  const bool day = s.size() == 10 && s[7] == '-' && digits(s.substr(8, 2));
  if ((s.size() == 7 || day) && digits(s.substr(0, 4)) && s[4] == '-' && digits(s.substr(5, 2))) {
    const int month = std::atoi(text.substr(5, 2).c_str());
    if (month >= 1 && month <= 12) return month_index(std::atoi(text.substr(0, 4).c_str()), month);
  }
  throw UserError{{"--available-by: \"" + printable(text) + "\" is not a month", "YYYY-MM, e.g. --available-by 2026-06"}};
}

// --sort: a field path ("memory_bandwidth", "peak.fp8_dense"), or a number format for its dense peak ("bf16").
std::string sort_path(const std::vector<const Entry*>& entries, const std::string& typed) {
  for (const std::string& path : {typed, "peak." + typed + "_dense"})
    for (const Entry* e : entries)
      if (e->field(path)) return path;
  std::vector<std::string> known;
  for (const Entry* e : entries)
    for_each_field(*e, [&](const std::string& p, const FieldRef& ref) {
      if (ref.value->kind != Node::Kind::string || quantity_text(ref.value->str))
        if (std::find(known.begin(), known.end(), p) == known.end()) known.push_back(p);
    });
  const std::vector<std::string_view> views(known.begin(), known.end());
  const std::string hint = did_you_mean(typed, views);
  throw UserError{{"--sort: no listed part has a field \"" + printable(typed) + "\"",
                   hint.empty() ? "a field path from `hw show ID`, e.g. --sort bf16 (peak.bf16_dense) or --sort memory_bandwidth" : hint}};
}

struct Ranked {
  const Entry* entry;
  std::string launch;
  std::optional<ViewCell> value;
};

struct Dropped {
  const Entry* entry;
  std::string launch;
  std::string why;
};

}  // namespace

ExitStatus run_hw_rank(const std::vector<const Entry*>& entries, const ListFilter& f, const GlobalOptions& g) {
  const bool need_by = !f.available_by.empty();
  const int need_month = need_by ? need_by_month(f.available_by) : 0;
  const std::string path = f.sort.empty() ? std::string() : sort_path(entries, f.sort);
  std::vector<Ranked> kept;
  std::vector<Dropped> dropped;
  for (const Entry* e : entries) {
    const std::string launch = e->text("launch").value_or("");
    if (need_by) {
      const std::optional<int> from = launch_month(launch);
      if (launch.empty()) {
        dropped.push_back({e, launch, "no launch date in the catalog"});
        continue;
      }
      if (!from) {
        dropped.push_back({e, launch, "launch date not YYYY, YYYY-MM or YYYY-Qn"});
        continue;
      }
      if (*from > need_month) {
        dropped.push_back({e, launch, "first available after " + f.available_by});
        continue;
      }
    }
    std::optional<ViewCell> value;
    if (!path.empty())
      if (const auto ref = e->field(path)) {
        value = view_cell(*ref->value, e->kind(), path, g.out.number);
        if (const auto paren = value->human.find("  ("); paren != std::string::npos) value->human.erase(paren);  // as hw compare
      }
    kept.push_back({e, launch, std::move(value)});
  }
  // By kind (a pod is not ranked against a chip), then largest first; parts without the field last, by id.
  const auto number = [](const Ranked& r) { return r.value && !r.value->unit.empty() ? r.value->number : -1e308; };
  std::stable_sort(kept.begin(), kept.end(), [&](const Ranked& a, const Ranked& b) {
    return a.entry->kind() != b.entry->kind() ? a.entry->kind() < b.entry->kind() : number(a) > number(b);
  });
  const std::string column = path.empty() ? std::string() : path;
  const std::string heading = (need_by ? "available by " + f.available_by : std::string("all")) +
                              (path.empty() ? std::string() : ", ranked by " + path + " (largest first)");
  // For programs: the gate, the sort and each part kept with its value, then each part dropped and why.
  using writers::Member;
  std::vector<Member> listed, excluded;
  for (const auto& r : kept) {
    std::vector<Member> one = {{"id", r.entry->id()}, {"name", r.entry->name()}, {"kind", r.entry->kind()}, {"launch", r.launch}};
    if (r.value) {
      if (r.value->unit.empty()) one.push_back({"value", r.value->machine});
      else
        one.push_back({"value", std::vector<Member>{{"value", r.value->number}, {"unit", r.value->unit}}});
    }
    listed.push_back({"", std::move(one)});
  }
  for (const auto& d : dropped)
    excluded.push_back({"", std::vector<Member>{{"id", d.entry->id()}, {"launch", d.launch}, {"why", d.why}}});
  writers::Document doc{.title = "hw list: " + heading};
  doc.head = {{"schema_version", std::int64_t{1}}};
  if (need_by) doc.head.push_back({"available_by", f.available_by});
  if (!path.empty()) doc.head.push_back({"sort", path});
  doc.head.push_back({.key = "entries", .value = std::move(listed), .list = true});
  doc.head.push_back({.key = "excluded", .value = std::move(excluded), .list = true});

  // For people and for CSV: a row per part kept, its value as each reads it (CSV's column names its unit).
  std::vector<std::string> head = {"id", "launch"};
  if (!path.empty()) head.push_back(column);
  head.push_back("name");
  std::vector<std::string> csv_head = head;
  if (!path.empty() && !kept.empty() && kept.front().value && !kept.front().value->unit.empty()) csv_head[2] += " (" + kept.front().value->unit + ")";
  std::vector<std::vector<std::string>> people, machines;
  for (const auto& r : kept) {
    std::vector<std::string> row = {r.entry->id(), r.launch.empty() ? "-" : r.launch};
    std::vector<std::string> machine = row;
    if (!path.empty()) {
      row.push_back(r.value ? r.value->human : "-");
      machine.push_back(r.value ? r.value->machine : "-");
    }
    row.push_back(r.entry->name());
    machine.push_back(r.entry->name());
    people.push_back(std::move(row));
    machines.push_back(std::move(machine));
  }
  const std::vector<Table> for_people = {writers::text_table("entries", "ranked", head, std::move(people))};
  const std::vector<Table> for_csv = {writers::text_table("entries", "ranked", csv_head, std::move(machines))};
  std::vector<std::string> notes;
  if (kept.empty()) notes.emplace_back("no part passes the gate");
  for (const auto& d : dropped)
    notes.push_back(fmt::format("not available by {}: {} ({}: {})", f.available_by, d.entry->id(), d.launch.empty() ? "no date" : d.launch, d.why));
  writers::Section shown{.kind = writers::SectionKind::tables, .key = "entries", .json = false, .csv = false};
  shown.tables = for_people;
  writers::Section csv{.kind = writers::SectionKind::tables, .key = "entries", .json = false, .human = false};
  csv.tables = for_csv;
  writers::Section said{.kind = writers::SectionKind::notes, .key = "notes", .title = "notes", .json = false, .csv = false};
  said.notes = notes;
  doc.sections = {shown, csv, said};
  emit(writers::render(doc, g.out));
  // CSV has no place for the parts the gate dropped: they go to stderr, as a note.
  if (g.out.format == writers::OutputFormat::csv && !dropped.empty()) {
    std::string gate;
    for (const auto& d : dropped)
      gate += fmt::format("{} ({}: {})", d.entry->id(), d.launch.empty() ? "no date" : d.launch, d.why) + (&d == &dropped.back() ? "" : ", ");
    report("note", "not available by " + f.available_by + ": " + gate);
  }
  return ExitStatus::ok;
}

}  // namespace infracalc::cli
