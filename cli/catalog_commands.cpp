#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <map>

#include "cli/commands.hpp"
#include "cli/catalog_views.hpp"
#include "plan/machine_units.hpp"
#include <filesystem>
#include <fstream>
#include <sstream>

#include "catalog/check.hpp"
#include "catalog/embedded.hpp"
#include "documents/atomic_file.hpp"
#include "catalog/hf_import.hpp"
#include "catalog/model_arch.hpp"
#include "catalog/schema.hpp"
#include "documents/input_file.hpp"
#include "documents/json.hpp"
#include "host/words.hpp"
#include "plugins/formats/storage.hpp"
#include "units/format.hpp"
#include "units/printable.hpp"
#include "units/suggest.hpp"

namespace infracalc::cli {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// {"value": ..., "unit": ...[, "text": ...]} for one value node; `kind`/`path` pick the unit of bare numbers.
void json_value(std::string& out, const Node& v, std::string_view kind, const std::string& path) {
  if (v.kind == Node::Kind::string || v.is_number()) {
    const ViewCell c = view_cell(v, kind, path, FormatOptions{});
    out += "\"value\": ";
    if (c.unit.empty()) {
      append_json_string(out, v.str);
    } else {
      out += c.machine + ", \"unit\": ";
      append_json_string(out, c.unit);
      if (v.kind == Node::Kind::string) {
        out += ", \"text\": ";
        append_json_string(out, v.str);
      }
    }
  } else if (v.kind == Node::Kind::boolean) {
    out += std::string("\"value\": ") + (v.boolean ? "true" : "false");
  } else if (v.kind == Node::Kind::date) {
    out += "\"value\": ";
    append_json_string(out, v.date.str());
  } else if (v.kind == Node::Kind::array) {
    out += "\"value\": [";
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      out += i ? ", " : "";
      if (v.items[i].kind == Node::Kind::string) append_json_string(out, v.items[i].str);
      else if (v.items[i].is_number()) out += format_machine(v.items[i].number);
      else append_json_string(out, show_value(v.items[i], {}));
    }
    out += "]";
  } else {
    out += "\"value\": ";
    append_json_string(out, show_value(v, {}));
  }
}

void json_leaf(std::string& out, const Entry& e, const std::string& path, const FieldRef& ref) {
  out += "{";
  json_value(out, *ref.value, e.kind(), path);
  out += ", \"as_of\": ";
  append_json_string(out, ref.provenance.as_of);
  out += ", \"source\": ";
  append_json_string(out, ref.provenance.source);
  if (!ref.provenance.basis.empty()) {
    out += ", \"basis\": ";
    append_json_string(out, ref.provenance.basis);
  }
  if (!ref.provenance.note.empty()) {
    out += ", \"note\": ";
    append_json_string(out, ref.provenance.note);
  }
  out += "}";
}

// Mirrors the file's structure: tables become objects, arrays of tables arrays, values leaf objects.
void json_tree(std::string& out, const Entry& e, const Node& n, const std::string& path,
               const std::map<std::string, FieldRef>& refs) {
  if (n.is_table() && n.find("value") == nullptr) {
    out += "{";
    bool first = true;
    for (const auto& [k, v] : n.members) {
      if (path.empty() && (k == "id" || k == "name" || k == "kind" || k == "meta")) continue;
      out += first ? "" : ", ";
      first = false;
      append_json_string(out, k);
      out += ": ";
      json_tree(out, e, v, path.empty() ? k : path + "." + k, refs);
    }
    out += "}";
    return;
  }
  if (n.kind == Node::Kind::array && !n.items.empty() && n.items.front().is_table()) {
    out += "[";
    for (std::size_t i = 0; i < n.items.size(); ++i) {
      out += i ? ", " : "";
      json_tree(out, e, n.items[i], path + "[" + std::to_string(i) + "]", refs);
    }
    out += "]";
    return;
  }
  const auto it = refs.find(path);
  if (it == refs.end()) out += "null";
  else json_leaf(out, e, path, it->second);
}

// Dated series of an entry (arrays of tables whose items carry as_of and value), with the item --as-of picks.
struct Series {
  std::string path;
  std::optional<FieldRef> chosen;
  std::size_t index = 0;
};

std::vector<Series> dated_series(const Entry& e, const Date& as_of) {
  std::vector<Series> out;
  for (const auto& [k, v] : e.root().members) {
    if (k == "meta" || v.kind != Node::Kind::array || v.items.empty() || !v.items.front().is_table() ||
        v.items.front().find("value") == nullptr)
      continue;
    Series s{k, e.dated(k, as_of), 0};
    if (s.chosen)
      for (std::size_t i = 0; i < v.items.size(); ++i)
        if (v.items[i].find("value") == s.chosen->value) s.index = i;
    out.push_back(std::move(s));
  }
  return out;
}

// Parameter counts computed from a model's architecture, labelled as derived.
std::vector<std::pair<std::string, double>> derived_params(const Entry& e, std::string& note) {
  auto arch = read_model_arch(e);
  if (!arch) {
    note = arch.error().text();
    return {};
  }
  const ParamCount c = count_params(arch.value());
  std::vector<std::pair<std::string, double>> rows = {
      {"params_total", c.total},         {"params_embeddings", c.embeddings}, {"params_attention", c.attention},
      {"params_mlp", c.mlp},             {"params_router", c.router},         {"params_norms", c.norms}};
  if (arch.value().moe) rows.insert(rows.begin() + 1, {"params_active", active_as_published(arch.value(), c)});
  if (arch.value().ssm) rows.insert(rows.end() - 3, {"params_ssm", c.ssm});  // a hybrid's Mamba mixers, after attention
  note = "computed from the architecture (count_params); compare with the published params_total";
  if (arch.value().active_excludes_embedding) note += "; params_active leaves out the input embedding, as the publisher does";
  return rows;
}

std::string entry_json(const Entry& e, const Date& as_of) {
  std::map<std::string, FieldRef> refs;
  for_each_field(e, [&](const std::string& path, const FieldRef& ref) { refs.emplace(path, ref); });
  std::string out = "{\"schema_version\": 1, \"id\": ";
  append_json_string(out, e.id());
  out += ", \"name\": ";
  append_json_string(out, e.name());
  out += ", \"kind\": ";
  append_json_string(out, e.kind());
  out += ", \"file\": ";
  append_json_string(out, e.file());
  out += ", \"as_of\": ";
  append_json_string(out, e.as_of().str());
  out += ", \"sources\": [";
  for (std::size_t i = 0; i < e.sources().size(); ++i) {
    out += i ? ", " : "";
    append_json_string(out, e.sources()[i]);
  }
  out += std::string("], \"overlay\": ") + (e.overlay() ? "true" : "false") + ", \"fields\": ";
  json_tree(out, e, e.root(), "", refs);
  if (const auto series = dated_series(e, as_of); !series.empty()) {
    out += ", \"selected\": {";
    bool first = true;
    for (const auto& s : series) {
      if (!s.chosen) continue;
      out += first ? "" : ", ";
      first = false;
      append_json_string(out, s.path);
      out += ": ";
      std::string leaf;
      json_leaf(leaf, e, s.path, *s.chosen);
      out += "{\"index\": " + std::to_string(s.index) + ", " + leaf.substr(1);
    }
    out += "}";
  }
  if (e.kind() == "model") {
    std::string note;
    const auto rows = derived_params(e, note);
    if (rows.empty() && !note.empty()) {
      out += ", \"derived_error\": ";
      append_json_string(out, note);
    }
    out += ", \"derived\": {";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out += i ? ", " : "";
      append_json_string(out, rows[i].first);
      out += ": {\"value\": " + format_machine(rows[i].second) + ", \"unit\": \"1\", \"basis\": \"derived\", \"note\": ";
      append_json_string(out, note);
      out += "}";
    }
    out += "}";
  }
  return out + "}\n";
}

// --kind must name an entry kind or a `type` that occurs among the listed entries: an unknown word is a typo,
// never an empty list.
void check_kind_filter(const std::vector<std::string_view>& kinds, const std::string& typed) {
  std::vector<std::string> known;
  auto add = [&](std::string k) {
    if (!k.empty() && std::find(known.begin(), known.end(), k) == known.end()) known.push_back(std::move(k));
  };
  for (auto kind : kinds)
    for (const Entry* e : Catalog::instance().all(kind)) {
      add(e->kind());
      if (auto t = e->text("type")) add(lower(*t));
    }
  const std::string want = lower(typed);
  if (std::find(known.begin(), known.end(), want) != known.end()) return;
  std::sort(known.begin(), known.end());
  const std::vector<std::string_view> views(known.begin(), known.end());
  std::string hint = did_you_mean(typed, views);
  hint += (hint.empty() ? "" : "; ") + fmt::format("valid kinds: {}", fmt::join(known, ", "));
  throw UserError{{"--kind: unknown kind \"" + typed + "\"", hint}};
}

}  // namespace

std::vector<const Entry*> listed_entries(const std::vector<std::string_view>& kinds, const ListFilter& f) {
  std::optional<Quantity> min_mem;
  if (!f.min_memory.empty()) {
    auto q = parse_input(f.min_memory, {dims::information, false}, "--min-memory");
    if (!q) throw UserError{q.error()};
    min_mem = q.value();
  }
  if (!f.kind.empty()) check_kind_filter(kinds, f.kind);
  std::vector<const Entry*> rows;
  for (auto kind : kinds)
    for (const Entry* e : Catalog::instance().all(kind)) {
      if (!f.vendor.empty()) {
        const auto v = e->text("vendor");
        if (!v || lower(*v) != lower(f.vendor)) continue;
      }
      if (!f.kind.empty() && e->kind() != lower(f.kind)) {
        const auto t = e->text("type");
        if (!t || lower(*t) != lower(f.kind)) continue;
      }
      if (min_mem) {
        // Memory per accelerator: a system qualifies by what each of its accelerators holds, not by its total.
        auto m = e->quantity("memory_capacity", {dims::information, false});
        if (!m && e->kind() == "system") {
          const Entry* acc = nullptr;
          if (auto id = e->text("accelerator")) acc = Catalog::instance().find(*id);
          if (acc != nullptr) m = acc->quantity("memory_capacity", {dims::information, false});
          const auto total = e->quantity("accelerator_memory_total", {dims::information, false});
          const auto count = e->quantity("accelerators", {dims::none, false});
          if (!m && total && count && count->value > 0) m = Quantity{total->value / count->value, total->dim};
        }
        if (!m || m->value < min_mem->value) continue;
      }
      rows.push_back(e);
    }
  std::sort(rows.begin(), rows.end(), [](const Entry* a, const Entry* b) {
    return a->kind() != b->kind() ? a->kind() < b->kind() : a->id() < b->id();
  });
  return rows;
}

namespace {

ExitStatus list_kind(const std::vector<std::string_view>& kinds, const ListFilter& f, const GlobalOptions& g) {
  const std::vector<const Entry*> rows = listed_entries(kinds, f);
  if (g.out.format == writers::OutputFormat::json) {
    std::string out = "{\"schema_version\": 1, \"entries\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out += i ? ", " : "";
      out += "{\"id\": ";
      append_json_string(out, rows[i]->id());
      out += ", \"name\": ";
      append_json_string(out, rows[i]->name());
      out += ", \"kind\": ";
      append_json_string(out, rows[i]->kind());
      if (auto t = rows[i]->text("type")) {
        out += ", \"type\": ";
        append_json_string(out, *t);
      }
      if (auto v = rows[i]->text("vendor")) {
        out += ", \"vendor\": ";
        append_json_string(out, *v);
      }
      out += ", \"as_of\": ";
      append_json_string(out, rows[i]->as_of().str());
      out += "}";
    }
    emit(out + "]}\n");
    return ExitStatus::ok;
  }
  if (g.out.format == writers::OutputFormat::csv) {
    std::string out = "id,kind,type,vendor,name,as_of\n";
    for (const Entry* e : rows)
      out += writers::csv_cell(e->id()) + "," + e->kind() + "," + writers::csv_cell(e->text("type").value_or("")) + "," + writers::csv_cell(e->text("vendor").value_or("")) +
             "," + writers::csv_cell(e->name()) + "," + e->as_of().str() + "\n";
    emit(printable(out, Keep::lines));  // text from data files, escaped for the terminal
    return ExitStatus::ok;
  }
  if (g.out.format == writers::OutputFormat::md) {
    std::vector<std::vector<std::string>> body;
    for (const Entry* e : rows)
      body.push_back({e->id(), e->kind(), e->text("type").value_or(""), e->text("vendor").value_or(""), e->name(), e->as_of().str()});
    emit(printable(writers::md_table({"id", "kind", "type", "vendor", "name", "as of"}, body), Keep::lines));
    return ExitStatus::ok;
  }
  std::size_t w = 4;
  for (const Entry* e : rows) w = std::max(w, e->id().size());
  std::string out;
  for (const Entry* e : rows)
    out += fmt::format("{:<{}}  {:<12} {}  (as of {}){}\n", e->id(), w, e->kind(), e->name(), e->as_of().str(),
                       e->overlay() ? " [overlay]" : "");
  if (rows.empty()) out = "no entries match\n";
  emit(printable(out, Keep::lines));  // text from data files, escaped for the terminal
  return ExitStatus::ok;
}

ExitStatus show_entry(const Entry& e, const GlobalOptions& g) {
  const Date as_of = as_of_option(g);
  if (g.out.format == writers::OutputFormat::json) {
    emit(entry_json(e, as_of));
    return ExitStatus::ok;
  }
  const auto series = dated_series(e, as_of);
  // One row per field (value, as of, basis, source, note), then a model's derived parameter counts; every format
  // writes these rows. A source is repeated only where it differs from the entry's own.
  std::vector<ViewRow> view;
  const std::string all_sources = fmt::format("{}", fmt::join(e.sources(), "; "));
  for_each_field(e, [&](const std::string& path, const FieldRef& ref) {
    const Provenance& p = ref.provenance;
    view.push_back({path, {view_cell(*ref.value, e.kind(), path, g.out.number)},
                    {p.as_of, p.basis, p.source == all_sources ? "" : p.source, p.note}});
  });
  if (e.kind() == "model") {
    std::string note;
    bool first = true;
    for (const auto& [k, v] : derived_params(e, note)) {
      view.push_back({"derived." + k, {view_cell(k, Quantity::number(v), "", g.out.number)}, {"", "derived", "", first ? note : ""}});
      first = false;
    }
    // A file the model reader rejects shows its fields, and says why nothing is derived from them.
    if (first && !note.empty()) view.push_back({"derived", {ViewCell{"not computed", "", ""}}, {"", "", "", "error: " + note}});
  }
  const std::vector<std::string> extras = {"as_of", "basis", "source", "note"};
  if (g.out.format == writers::OutputFormat::csv) {
    emit(printable(view_csv({e.id()}, view, extras), Keep::lines));
    return ExitStatus::ok;
  }
  if (g.out.format == writers::OutputFormat::md) {
    std::string out = view_md(e.id() + " — " + e.name() + " (" + e.kind() + ")", {e.id()}, view, extras);
    out += "\nFile " + writers::md_escape(e.file()) + (e.overlay() ? " (overlay)" : "") + ", as of " + e.as_of().str() + ". Sources: " +
           writers::md_escape(all_sources) + "\n";
    emit(printable(out, Keep::lines));
    return ExitStatus::ok;
  }
  std::string out = fmt::format("{}  {}  ({})\n  file {}{}\n  as of {}\n", e.id(), e.name(), e.kind(), e.file(),
                                e.overlay() ? " [overlay]" : "", e.as_of().str());
  for (const auto& s : e.sources()) out += "  source: " + s + "\n";
  std::vector<std::array<std::string, 4>> rows;
  for (const auto& r : view) {
    std::string label = r.field;
    for (const auto& s : series)
      if (s.chosen && label == s.path + "[" + std::to_string(s.index) + "]") label = "* " + label;
    const std::string& basis = r.extra[1];
    const std::string& src = r.extra[2];
    const std::string& note = r.extra[3];
    std::string tag = basis.empty() ? "" : "[" + basis + "] ";
    if (!note.empty()) tag += note + (src.empty() ? "" : "; ");
    rows.push_back({label, r.cells.front() ? r.cells.front()->human : "", r.extra[0], tag + src});
  }
  std::size_t w0 = 0, w1 = 0;
  for (const auto& r : rows) {
    w0 = std::max(w0, r[0].size());
    w1 = std::max(w1, r[1].size());
  }
  out += "\n";
  for (const auto& r : rows) {
    std::string line = fmt::format("  {:<{}}  {:<{}}  {}  {}", r[0], w0, r[1], w1, r[2], r[3]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (std::any_of(series.begin(), series.end(), [](const Series& s) { return s.chosen.has_value(); }))
    out += "\n  * the entry of each dated series used " +
           (as_of.valid() ? "for --as-of " + as_of.str() + " (the newest not after it)" : std::string("by default (the newest)")) + "\n";
  emit(printable(out, Keep::lines));  // text from data files, escaped for the terminal
  return ExitStatus::ok;
}

}  // namespace

// A function, not a global vector: nothing is built at start-up for commands that never list hardware.
std::vector<std::string_view> hardware_kinds() {
  return {"accelerator", "system", "interconnect", "network", "memory", "storage"};
}

ExitStatus run_hw_list(const ListFilter& f, const GlobalOptions& g) {
  // Without --kind the list shows what most users mean by hardware: accelerators and systems.
  const std::vector<std::string_view> kinds = f.kind.empty() ? std::vector<std::string_view>{"accelerator", "system"} : hardware_kinds();
  if (!f.available_by.empty() || !f.sort.empty()) return run_hw_rank(listed_entries(kinds, f), f, g);
  return list_kind(kinds, f, g);
}
ExitStatus run_model_list(const ListFilter& f, const GlobalOptions& g) { return list_kind({"model"}, f, g); }
ExitStatus run_data_list(const ListFilter& f, const GlobalOptions& g) { return list_kind({""}, f, g); }

ExitStatus run_entry_show(const std::string& id, const std::vector<std::string_view>& kinds, const GlobalOptions& g) {
  const bool model = !kinds.empty() && kinds.front() == "model";
  const std::vector<std::string_view> wanted = model || kinds.empty() ? kinds : hardware_kinds();
  return show_entry(Catalog::instance().get(id, wanted, model ? "model show" : kinds.empty() ? "data show" : "hw show"), g);
}

ExitStatus run_hw_compare(const std::vector<std::string>& ids, const GlobalOptions& g) {
  if (ids.size() < 2) throw UserError{{"hw compare needs at least two ids", "e.g. infracalc hw compare h100-sxm h200-sxm"}};
  std::vector<const Entry*> entries;
  for (const auto& id : ids) entries.push_back(&Catalog::instance().get(id, hardware_kinds(), "hw compare"));
  std::vector<std::string> paths;
  std::vector<std::map<std::string, const Node*>> values(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i)
    for_each_field(*entries[i], [&](const std::string& p, const FieldRef& ref) {
      if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
      values[i][p] = ref.value;
    });
  const Date as_of = as_of_option(g);
  std::vector<ViewRow> view;
  for (const auto& p : paths) {
    ViewRow row{p, {}, {}};
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto it = values[i].find(p);
      if (it == values[i].end()) {
        row.cells.emplace_back();
        continue;
      }
      ViewCell c = view_cell(*it->second, entries[i]->kind(), p, g.out.number);
      if (const auto paren = c.human.find("  ("); paren != std::string::npos) c.human.erase(paren);  // formatted value only
      row.cells.emplace_back(std::move(c));
    }
    view.push_back(std::move(row));
  }
  const std::vector<ViewRow> derived = compare_derived_rows(entries, as_of, g.out.number);
  // Two parts: first / second where both give a quantity in the same unit ("Trainium3 roughly doubles
  // Trainium2" reads off it).
  const auto ratio_of = [](const ViewRow& v) -> std::optional<double> {
    if (v.cells.size() != 2) return std::nullopt;
    const auto& a = v.cells[0];
    const auto& b = v.cells[1];
    if (!a || !b || a->unit.empty() || a->unit != b->unit) return std::nullopt;
    const double x = std::strtod(a->machine.c_str(), nullptr), y = std::strtod(b->machine.c_str(), nullptr);
    if (y == 0.0 || !std::isfinite(x / y)) return std::nullopt;
    return x / y;
  };
  std::vector<std::string> entry_ids;
  for (const Entry* e : entries) entry_ids.push_back(e->id());
  if (g.out.format == writers::OutputFormat::json) {
    std::string out = "{\"schema_version\": 1, \"compare\": [";
    for (std::size_t i = 0; i < entries.size(); ++i) {
      std::string one = entry_json(*entries[i], as_of);
      one.pop_back();
      out += (i ? ", " : "") + one;
    }
    // Per entry, the derived figures (a program compares parts by them as people do).
    out += "], \"derived\": [";
    for (std::size_t i = 0; i < entries.size(); ++i) {
      out += i ? ", {\"id\": " : "{\"id\": ";
      append_json_string(out, entry_ids[i]);
      for (const auto& r : derived) {
        const auto& c = r.cells[i];
        if (!c) continue;
        out += ", ";
        append_json_string(out, r.field.substr(r.field.find('.') + 1));
        out += ": ";
        if (c->unit.empty()) append_json_string(out, c->machine);
        else out += "{\"value\": " + c->machine + ", \"unit\": \"" + c->unit + "\"}";
      }
      out += "}";
    }
    out += "]";
    if (entries.size() == 2) {
      out += ", \"ratio\": {";
      bool first = true;
      for (const std::vector<ViewRow>* rows : {static_cast<const std::vector<ViewRow>*>(&view), &derived})
        for (const auto& v : *rows)
          if (const auto r = ratio_of(v)) {
            out += first ? "" : ", ";
            first = false;
            append_json_string(out, v.field);
            out += ": " + format_machine(*r);
          }
      out += "}";
    }
    emit(out + "}\n");
    return ExitStatus::ok;
  }
  view.insert(view.end(), derived.begin(), derived.end());
  if (entries.size() == 2) {
    entry_ids.push_back(entry_ids[0] + " / " + entry_ids[1]);
    for (auto& v : view) {
      const auto r = ratio_of(v);
      v.cells.push_back(r ? std::optional<ViewCell>(ViewCell{format_number(*r, g.out.number.digits) + "x", format_machine(*r), ""}) : std::nullopt);
    }
  }
  if (g.out.format == writers::OutputFormat::csv) {
    emit(printable(view_csv(entry_ids, view, {}), Keep::lines));
    return ExitStatus::ok;
  }
  if (g.out.format == writers::OutputFormat::md) {
    emit(printable(view_md("hw compare", entry_ids, view, {}), Keep::lines));
    return ExitStatus::ok;
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {"field"};
  head.insert(head.end(), entry_ids.begin(), entry_ids.end());
  rows.push_back(head);
  for (const auto& v : view) {
    std::vector<std::string> r = {v.field};
    for (const auto& c : v.cells) r.push_back(c ? c->human : "-");
    rows.push_back(std::move(r));
  }
  // Text from data files, escaped for the terminal cell by cell before the columns are measured.
  emit(writers::aligned_rows(std::move(rows), {.widest = 28, .cut = true}));
  return ExitStatus::ok;
}

ExitStatus run_model_import(const ImportOptions& o, const GlobalOptions& g) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(o.file, ec))
    throw UserError{{"model import: '" + o.file + "' is a directory", "pass the config.json inside it: " + (fs::path(o.file) / "config.json").string()}};
  auto json = read_json(read_input_file(o.file, "model import", input_limits::model_config).value_or_throw(), o.file);
  if (!json) throw UserError{json.error()};
  // The id names the file, so --id, --out and the config must agree on it.
  const fs::path src(o.file);
  // A config.json is named after its folder (the repository it came from), also when given without a path.
  const std::string folder =
      src.filename() == "config.json" ? fs::absolute(src).parent_path().filename().string() : src.stem().string();
  std::string id = o.id;
  if (id.empty() && !o.out.empty()) id = fs::path(o.out).stem().string();
  const bool id_from_file = id.empty() && hf_name_of(json.value()).empty();
  if (id.empty()) id = hf_suggest_id(json.value(), folder);
  if (!valid_id(id))
    throw UserError{{"model import: " + std::string(!o.id.empty() ? "--id" : "the --out file name") + " \"" + id + "\" is not a valid id",
                     std::string(kIdGrammar)}};
  if (!o.out.empty() && fs::path(o.out).extension() != ".toml")
    throw UserError{{"model import: --out must end in .toml, got \"" + o.out + "\"", "e.g. --out " + id + ".toml"}};
  if (!o.out.empty() && fs::path(o.out).stem().string() != id)
    throw UserError{{"model import: --out " + o.out + " does not match the id \"" + id + "\"",
                     "a data file is named after its id: use --out " + id + ".toml"}};
  HfImportOptions opt;
  opt.id = id;
  opt.name = o.name;
  opt.source = o.file;
  auto result = import_hf_config(json.value(), opt);
  if (!result) throw UserError{result.error()};
  std::vector<std::string> notes = result->notes;
  if (id_from_file)
    notes.insert(notes.begin(), "the config has no _name_or_path or name_or_path: the id \"" + id +
                                                    "\" comes from the file's name; pass --id to choose another");
  const std::string out_path = o.out.empty() ? id + ".toml" : o.out;
  // The config itself is never overwritten, even with --force.
  write_file_atomically(out_path, result->toml, o.force, {o.file});
  const ParamCount& pc = result->params;
  if (g.out.format == writers::OutputFormat::json) {
    std::string j = "{\"schema_version\": 1, \"id\": ";
    append_json_string(j, id);
    j += ", \"file\": ";
    append_json_string(j, out_path);
    j += ", \"params_total\": " + format_machine(pc.total);
    if (result->arch.moe) j += ", \"params_active\": " + format_machine(pc.active);
    j += ", \"notes\": [";
    for (std::size_t i = 0; i < notes.size(); ++i) {
      j += i ? ", " : "";
      append_json_string(j, notes[i]);
    }
    emit(j + "]}\n");
    return ExitStatus::ok;
  }
  std::string out = "wrote " + out_path + " (model " + id + ")\n  parameters (derived): " + format_count(pc.total, g.out.number.digits);
  if (result->arch.moe) out += " total, " + format_count(pc.active, g.out.number.digits) + " active";
  out += "\n";
  for (const auto& n : notes) out += "  note: " + n + "\n";
  out += "  use it with --data-dir " + (fs::path(out_path).has_parent_path() ? fs::path(out_path).parent_path().string() : std::string(".")) +
         " (or copy it into a data overlay directory)\n";
  emit(printable(out, Keep::lines));  // text from data files, escaped for the terminal
  return ExitStatus::ok;
}

ExitStatus run_data_check(const GlobalOptions& g) {
  const auto format_ids = storage_format_names();
  const auto findings = check_catalog(Catalog::instance(), Date::today(), format_ids);
  std::size_t errors = 0;
  std::string out;
  for (const auto& f : findings) {
    errors += f.error ? 1 : 0;
    out += std::string(f.error ? "error: " : "warning: ") + printable((f.where.empty() ? "" : f.where + ": ") + f.message, Keep::text) + "\n";
  }
  // Catalog entries plus the files of published measurements, which the index leaves out.
  std::size_t n = Catalog::instance().index().size() + Catalog::instance().overlay_measured_files().size();
  for (const auto& f : embedded_files()) n += f.kind == "measured" ? 1 : 0;
  if (g.out.format == writers::OutputFormat::json) {
    std::string j = "{\"schema_version\": 1, \"files\": " + std::to_string(n) + ", \"errors\": " + std::to_string(errors) + ", \"findings\": [";
    for (std::size_t i = 0; i < findings.size(); ++i) {
      j += i ? ", " : "";
      j += "{\"where\": ";
      append_json_string(j, findings[i].where);
      j += ", \"message\": ";
      append_json_string(j, findings[i].message);
      j += std::string(", \"error\": ") + (findings[i].error ? "true" : "false") + "}";
    }
    emit(j + "]}\n");
  } else {
    std::fputs(out.c_str(), stderr);
    const std::string summary = fmt::format("data check: {}, {}, {}\n", plural(n, "file"), plural(errors, "error"),
                                            plural(findings.size() - errors, "warning"));
    if (errors == 0) emit(summary);
    else std::fputs(summary.c_str(), stderr);
  }
  return errors == 0 ? ExitStatus::ok : ExitStatus::usage;
}

}  // namespace infracalc::cli
