#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <map>

#include "cli/commands.hpp"
#include "cli/catalog_views.hpp"
#include "plan/document.hpp"
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

using writers::Member;
using Members = std::vector<Member>;

// "value" and "unit" (and "text", a quantity as the file writes it) of one value node; `kind`/`path` pick the unit of
// bare numbers.
void value_members(Members& out, const Node& v, std::string_view kind, const std::string& path) {
  if (v.kind == Node::Kind::string || v.is_number()) {
    const ViewCell c = view_cell(v, kind, path, FormatOptions{});
    if (c.unit.empty()) {
      out.push_back({"value", v.str});
    } else {
      out.push_back({"value", c.number});
      out.push_back({"unit", c.unit});
      if (v.kind == Node::Kind::string) out.push_back({"text", v.str});
    }
  } else if (v.kind == Node::Kind::boolean) {
    out.push_back({"value", v.boolean});
  } else if (v.kind == Node::Kind::date) {
    out.push_back({"value", v.date.str()});
  } else if (v.kind == Node::Kind::array) {
    Members items;
    for (const auto& item : v.items) {
      if (item.kind == Node::Kind::string) items.push_back({"", item.str});
      else if (item.is_number()) items.push_back({"", item.number});
      else items.push_back({"", show_value(item, {})});
    }
    out.push_back({.key = "value", .value = std::move(items), .list = true});
  } else {
    out.push_back({"value", show_value(v, {})});
  }
}

Members leaf_members(const Entry& e, const std::string& path, const FieldRef& ref) {
  Members out;
  value_members(out, *ref.value, e.kind(), path);
  out.push_back({"as_of", ref.provenance.as_of});
  out.push_back({"source", ref.provenance.source});
  if (!ref.provenance.basis.empty()) out.push_back({"basis", ref.provenance.basis});
  if (!ref.provenance.note.empty()) out.push_back({"note", ref.provenance.note});
  return out;
}

// Mirrors the file's structure: tables become objects, arrays of tables lists, values leaf objects.
Member tree_member(std::string key, const Entry& e, const Node& n, const std::string& path, const std::map<std::string, FieldRef>& refs) {
  if (n.is_table() && n.find("value") == nullptr) {
    Members members;
    for (const auto& [k, v] : n.members) {
      if (path.empty() && (k == "id" || k == "name" || k == "kind" || k == "meta")) continue;
      members.push_back(tree_member(k, e, v, path.empty() ? k : path + "." + k, refs));
    }
    return {std::move(key), std::move(members)};
  }
  if (n.kind == Node::Kind::array && !n.items.empty() && n.items.front().is_table()) {
    Members items;
    for (std::size_t i = 0; i < n.items.size(); ++i) items.push_back(tree_member("", e, n.items[i], path + "[" + std::to_string(i) + "]", refs));
    return {.key = std::move(key), .value = std::move(items), .list = true};
  }
  const auto it = refs.find(path);
  if (it == refs.end()) return {std::move(key), nullptr};
  return {std::move(key), leaf_members(e, path, it->second)};
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

// An entry as programs read it: what it is, its file, dates and sources, its fields as the file nests them, the entry
// of each dated series --as-of picks, and a model's parameter counts derived from its architecture.
Members entry_members(const Entry& e, const Date& as_of) {
  std::map<std::string, FieldRef> refs;
  for_each_field(e, [&](const std::string& path, const FieldRef& ref) { refs.emplace(path, ref); });
  Members out = {{"schema_version", std::int64_t{1}}, {"id", e.id()},           {"name", e.name()},
                 {"kind", e.kind()},                 {"file", e.file()},       {"as_of", e.as_of().str()},
                 {"sources", e.sources()},           {"overlay", e.overlay()}, tree_member("fields", e, e.root(), "", refs)};
  if (const auto series = dated_series(e, as_of); !series.empty()) {
    Members selected;
    for (const auto& s : series) {
      if (!s.chosen) continue;
      Members leaf = {{"index", static_cast<std::int64_t>(s.index)}};
      for (auto& m : leaf_members(e, s.path, *s.chosen)) leaf.push_back(std::move(m));
      selected.push_back({s.path, std::move(leaf)});
    }
    out.push_back({"selected", std::move(selected)});
  }
  if (e.kind() == "model") {
    std::string note;
    const auto rows = derived_params(e, note);
    if (rows.empty() && !note.empty()) out.push_back({"derived_error", note});
    Members derived;
    for (const auto& [k, v] : rows)
      derived.push_back({k, Members{{"value", v}, {"unit", std::string("1")}, {"basis", std::string("derived")}, {"note", note}}});
    out.push_back({"derived", std::move(derived)});
  }
  return out;
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
  Members listed;
  std::vector<std::vector<std::string>> cells;
  for (const Entry* e : rows) {
    Members one = {{"id", e->id()}, {"name", e->name()}, {"kind", e->kind()}};
    if (auto t = e->text("type")) one.push_back({"type", *t});
    if (auto v = e->text("vendor")) one.push_back({"vendor", *v});
    one.push_back({"as_of", e->as_of().str()});
    listed.push_back({"", std::move(one)});
    cells.push_back({e->id(), e->kind(), e->text("type").value_or(""), e->text("vendor").value_or(""),
                     e->name() + (e->overlay() ? " [overlay]" : ""), e->as_of().str()});
  }
  const std::vector<Table> table = {writers::text_table("entries", "entries", {"id", "kind", "type", "vendor", "name", "as_of"}, std::move(cells))};
  const std::vector<std::string> none = {"no entries match"};
  writers::Document doc{.title = std::string(kinds.size() == 1 && kinds.front() == "model" ? "models" : kinds.front().empty() ? "data" : "hardware")};
  doc.head = {{"schema_version", std::int64_t{1}}, {.key = "entries", .value = std::move(listed), .list = true}};
  writers::Section entries{.kind = writers::SectionKind::tables, .key = "entries", .json = false};
  entries.tables = table;
  writers::Section empty{.kind = writers::SectionKind::notes, .key = "notes", .title = "notes", .json = false};
  if (rows.empty()) empty.notes = none;
  doc.sections = {entries, empty};
  emit(writers::render(doc, g.out));
  return ExitStatus::ok;
}

// The entry each dated series uses, as a note: "the entry of each dated series used by default (the newest):
// purchase[1]".
std::string series_note(const std::vector<Series>& series, const Date& as_of) {
  std::string used;
  for (const auto& s : series)
    if (s.chosen) used += (used.empty() ? "" : ", ") + s.path + "[" + std::to_string(s.index) + "]";
  if (used.empty()) return {};
  return "the entry of each dated series used " +
         (as_of.valid() ? "for --as-of " + as_of.str() + " (the newest not after it)" : std::string("by default (the newest)")) + ": " + used;
}

ExitStatus show_entry(const Entry& e, const GlobalOptions& g) {
  const Date as_of = as_of_option(g);
  // One field per row (value, as of, basis, source, note), then a model's derived parameter counts. A source is
  // repeated only where it differs from the entry's own.
  std::vector<writers::Field> about = {{.key = "file", .shown = e.file() + (e.overlay() ? " [overlay]" : "")}, {.key = "as of", .shown = e.as_of().str()}};
  for (const auto& src : e.sources()) about.push_back({.key = "source", .shown = src});
  std::vector<writers::Field> fields;
  const std::string all_sources = fmt::format("{}", fmt::join(e.sources(), "; "));
  auto add = [&](const std::string& path, const ViewCell& c, const std::string& when, const std::string& basis, const std::string& source,
                 const std::string& note) {
    fields.push_back({.key = path, .shown = c.human, .machine = c.machine, .unit = c.unit, .columns = {when, basis, source, note},
                      .members = {{"as_of", when}, {"basis", basis}, {"source", source}, {"note", note}}});
  };
  for_each_field(e, [&](const std::string& path, const FieldRef& ref) {
    const Provenance& p = ref.provenance;
    add(path, view_cell(*ref.value, e.kind(), path, g.out.number), p.as_of, p.basis, p.source == all_sources ? "" : p.source, p.note);
  });
  std::vector<std::string> notes;
  if (const std::string n = series_note(dated_series(e, as_of), as_of); !n.empty()) notes.push_back(n);
  if (e.kind() == "model") {
    std::string note;
    bool first = true;
    for (const auto& [k, v] : derived_params(e, note)) {
      add("derived." + k, view_cell(k, Quantity::number(v), "", g.out.number), "", "derived", "", first ? note : "");
      first = false;
    }
    // A file the model reader rejects shows its fields, and says why nothing is derived from them.
    if (first && !note.empty()) notes.push_back("nothing derived: " + note);
  }
  writers::Document doc{.title = e.id() + " — " + e.name() + " (" + e.kind() + ")", .head = entry_members(e, as_of)};
  writers::Section entry{.kind = writers::SectionKind::fields, .key = "entry", .title = "entry", .json = false, .csv = false, .head = {"key", "value"}};
  entry.fields = about;
  writers::Section rows{.kind = writers::SectionKind::fields, .key = "fields", .title = "fields", .json = false, .widest = 44,
                        .head = {"field", "value", "as of", "basis", "source", "note"}, .csv_members = {"as_of", "basis", "source", "note"}};
  rows.fields = fields;
  writers::Section said{.kind = writers::SectionKind::notes, .key = "notes", .title = "notes", .json = false};
  said.notes = notes;
  doc.sections = {entry, rows, said};
  emit(writers::render(doc, g.out));
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
    const double x = a->number, y = b->number;
    if (y == 0.0 || !std::isfinite(x / y)) return std::nullopt;
    return x / y;
  };
  std::vector<std::string> entry_ids;
  for (const Entry* e : entries) entry_ids.push_back(e->id());
  // For programs: each entry whole, then per entry the derived figures (a program compares parts by them as people
  // do), then the ratios of two parts.
  Members compared, per_entry;
  for (const Entry* e : entries) compared.push_back({"", entry_members(*e, as_of)});
  for (std::size_t i = 0; i < entries.size(); ++i) {
    Members one = {{"id", entry_ids[i]}};
    for (const auto& r : derived) {
      const auto& c = r.cells[i];
      if (!c) continue;
      const std::string key = r.field.substr(r.field.find('.') + 1);
      if (c->unit.empty()) one.push_back({key, c->machine});
      else one.push_back({key, Members{{"value", c->number}, {"unit", c->unit}}});
    }
    per_entry.push_back({"", std::move(one)});
  }
  writers::Document doc{.title = "hw compare"};
  doc.head = {{"schema_version", std::int64_t{1}}, {.key = "compare", .value = std::move(compared), .list = true},
              {.key = "derived", .value = std::move(per_entry), .list = true}};
  if (entries.size() == 2) {
    Members ratios;
    for (const std::vector<ViewRow>* rows : {static_cast<const std::vector<ViewRow>*>(&view), &derived})
      for (const auto& v : *rows)
        if (const auto r = ratio_of(v)) ratios.push_back({v.field, *r});
    doc.head.push_back({"ratio", std::move(ratios)});
  }
  // For people and for CSV: a row per field, a column per entry (and the ratio of two), the values as each reads them.
  view.insert(view.end(), derived.begin(), derived.end());
  std::vector<std::string> people_head = {"field"}, csv_head = {"field", "unit"};
  people_head.insert(people_head.end(), entry_ids.begin(), entry_ids.end());
  csv_head.insert(csv_head.end(), entry_ids.begin(), entry_ids.end());
  if (entries.size() == 2) {
    people_head.push_back(entry_ids[0] + " / " + entry_ids[1]);
    csv_head.push_back(people_head.back());
  }
  std::vector<std::vector<std::string>> people, machines;
  for (const auto& v : view) {
    std::vector<std::string> shown = {v.field}, machine = {v.field, ""};
    // One unit column when every quantity in the row has the same unit; otherwise each cell names its own.
    bool shared = true;
    for (const auto& c : v.cells) {
      if (!c || c->unit.empty()) continue;
      if (machine[1].empty()) machine[1] = c->unit;
      else if (machine[1] != c->unit) shared = false;
    }
    if (!shared) machine[1].clear();
    for (const auto& c : v.cells) {
      shown.push_back(c ? c->human : "-");
      machine.push_back(!c ? "" : shared || c->unit.empty() ? c->machine : c->machine + " " + c->unit);
    }
    if (entries.size() == 2) {
      const auto r = ratio_of(v);
      shown.push_back(r ? format_number(*r, g.out.number.digits) + "x" : "-");
      machine.push_back(r ? format_machine(*r) : "");
    }
    people.push_back(std::move(shown));
    machines.push_back(std::move(machine));
  }
  const std::vector<Table> for_people = {writers::text_table("compare", "fields", people_head, std::move(people))};
  const std::vector<Table> for_csv = {writers::text_table("compare", "fields", csv_head, std::move(machines))};
  writers::Section shown{.kind = writers::SectionKind::tables, .key = "compare", .json = false, .csv = false, .widest = 28, .cut = true};
  shown.tables = for_people;
  writers::Section csv{.kind = writers::SectionKind::tables, .key = "compare", .json = false, .human = false};
  csv.tables = for_csv;
  doc.sections = {shown, csv};
  emit(writers::render(doc, g.out));
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
  const std::string dir = fs::path(out_path).has_parent_path() ? fs::path(out_path).parent_path().string() : std::string(".");
  writers::Document doc{.title = "wrote " + out_path + " (model " + id + ")"};
  doc.head = {{"schema_version", std::int64_t{1}}, {"id", id}, {"file", out_path}, {"params_total", pc.total}};
  if (result->arch.moe) doc.head.push_back({"params_active", pc.active});
  doc.head.push_back({"notes", notes});
  std::vector<writers::Field> counts = {{.key = "params_total", .shown = format_count(pc.total, g.out.number.digits), .columns = {"derived"}}};
  if (result->arch.moe) counts.push_back({.key = "params_active", .shown = format_count(pc.active, g.out.number.digits), .columns = {"derived"}});
  std::vector<std::string> said = notes;
  said.push_back("use it with --data-dir " + dir + " (or copy it into a data overlay directory)");
  writers::Section params{.kind = writers::SectionKind::fields, .key = "parameters", .title = "parameters", .json = false,
                          .head = {"count", "value", "basis"}};
  params.fields = counts;
  writers::Section notes_section{.kind = writers::SectionKind::notes, .key = "notes", .title = "notes", .json = false};
  notes_section.notes = said;
  doc.sections = {params, notes_section};
  emit(writers::render(doc, g.out));
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
    std::vector<writers::Member> found;
    for (const auto& f : findings)
      found.push_back({"", std::vector<writers::Member>{{"where", f.where}, {"message", f.message}, {"error", f.error}}});
    writers::Document doc{.title = "data check"};
    doc.head = {{"schema_version", std::int64_t{1}}, {"files", static_cast<std::int64_t>(n)}, {"errors", static_cast<std::int64_t>(errors)},
                {.key = "findings", .value = std::move(found), .list = true}};
    emit(writers::render(doc, g.out));
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
