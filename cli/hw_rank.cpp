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
  const auto number = [](const Ranked& r) { return r.value && !r.value->unit.empty() ? std::strtod(r.value->machine.c_str(), nullptr) : -1e308; };
  std::stable_sort(kept.begin(), kept.end(), [&](const Ranked& a, const Ranked& b) {
    return a.entry->kind() != b.entry->kind() ? a.entry->kind() < b.entry->kind() : number(a) > number(b);
  });
  const std::string column = path.empty() ? std::string() : path;
  const std::string heading = (need_by ? "available by " + f.available_by : std::string("all")) +
                              (path.empty() ? std::string() : ", ranked by " + path + " (largest first)");
  if (g.out.format == writers::OutputFormat::json) {
    std::string out = "{\"schema_version\": 1";
    if (need_by) {
      out += ", \"available_by\": ";
      append_json_string(out, f.available_by);
    }
    if (!path.empty()) {
      out += ", \"sort\": ";
      append_json_string(out, path);
    }
    out += ", \"entries\": [";
    for (std::size_t i = 0; i < kept.size(); ++i) {
      const Entry* e = kept[i].entry;
      out += i ? ", {\"id\": " : "{\"id\": ";
      append_json_string(out, e->id());
      out += ", \"name\": ";
      append_json_string(out, e->name());
      out += ", \"kind\": ";
      append_json_string(out, e->kind());
      out += ", \"launch\": ";
      append_json_string(out, kept[i].launch);
      if (kept[i].value) {
        out += ", \"value\": ";
        if (kept[i].value->unit.empty()) append_json_string(out, kept[i].value->machine);
        else out += "{\"value\": " + kept[i].value->machine + ", \"unit\": \"" + kept[i].value->unit + "\"}";
      }
      out += "}";
    }
    out += "], \"excluded\": [";
    for (std::size_t i = 0; i < dropped.size(); ++i) {
      out += i ? ", {\"id\": " : "{\"id\": ";
      append_json_string(out, dropped[i].entry->id());
      out += ", \"launch\": ";
      append_json_string(out, dropped[i].launch);
      out += ", \"why\": ";
      append_json_string(out, dropped[i].why);
      out += "}";
    }
    emit(out + "]}\n");
    return ExitStatus::ok;
  }
  std::vector<std::string> head = {"id", "launch"};
  if (!path.empty()) head.push_back(column);
  head.push_back("name");
  std::vector<std::vector<std::string>> body;
  for (const auto& r : kept) {
    std::vector<std::string> row = {r.entry->id(), r.launch.empty() ? "-" : r.launch};
    if (!path.empty()) row.push_back(r.value ? (g.out.format == writers::OutputFormat::csv ? r.value->machine : r.value->human) : "-");
    row.push_back(r.entry->name());
    body.push_back(std::move(row));
  }
  std::string gate;
  for (const auto& d : dropped)
    gate += fmt::format("{} ({}: {})", d.entry->id(), d.launch.empty() ? "no date" : d.launch, d.why) + (&d == &dropped.back() ? "" : ", ");
  if (g.out.format == writers::OutputFormat::csv) {
    if (!path.empty() && !kept.empty() && kept.front().value && !kept.front().value->unit.empty()) head[2] += " (" + kept.front().value->unit + ")";
    std::string out;
    for (const auto& row : std::vector<std::vector<std::string>>{head})
      for (std::size_t i = 0; i < row.size(); ++i) out += writers::csv_cell(row[i]) + (i + 1 < row.size() ? "," : "\n");
    for (const auto& row : body)
      for (std::size_t i = 0; i < row.size(); ++i) out += writers::csv_cell(row[i]) + (i + 1 < row.size() ? "," : "\n");
    emit(printable(out, Keep::lines));
    if (!dropped.empty()) report("note", "not available by " + f.available_by + ": " + gate);
    return ExitStatus::ok;
  }
  if (g.out.format == writers::OutputFormat::md) {
    std::string out = "## hw list: " + writers::md_escape(heading) + "\n\n" + writers::md_table(head, body);
    if (!dropped.empty()) out += "\nNot available by " + writers::md_escape(f.available_by) + ": " + writers::md_escape(gate) + "\n";
    emit(printable(out, Keep::lines));
    return ExitStatus::ok;
  }
  body.insert(body.begin(), head);
  std::string out = heading + "\n" + writers::aligned_rows(std::move(body), {.indent = "  ", .gap = 1, .escape = false});
  if (kept.empty()) out += "  no part passes the gate\n";
  if (!dropped.empty()) {
    out += fmt::format("not available by {} ({} dropped before ranking):\n", f.available_by, dropped.size());
    std::size_t wid = 0;
    for (const auto& d : dropped) wid = std::max(wid, d.entry->id().size());
    for (const auto& d : dropped) out += fmt::format("  {:<{}} {:<7} {}\n", d.entry->id(), wid, d.launch.empty() ? "-" : d.launch, d.why);
  }
  emit(printable(out, Keep::lines));  // text from data files, escaped for the terminal
  return ExitStatus::ok;
}

}  // namespace infracalc::cli
