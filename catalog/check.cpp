#include "catalog/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "catalog/embedded.hpp"
#include "catalog/measured.hpp"
#include "catalog/model_arch.hpp"
#include "catalog/schema.hpp"
#include "documents/input_file.hpp"
#include "documents/toml_reader.hpp"
#include "units/format.hpp"
#include "units/parse.hpp"
#include "units/suggest.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kBases[] = {"datasheet", "vendor-claim", "estimate", "measured", "derived", "published", "press"};

constexpr std::string_view kPrecisions[] = {"fp64", "fp32",  "tf32",  "bf16",  "fp16",  "fp8",  "fp6",
                                             "fp4",  "nvfp4", "mxfp4", "mxfp6", "mxfp8", "int8", "int4"};

bool known_basis(std::string_view b) { return std::find(std::begin(kBases), std::end(kBases), b) != std::end(kBases); }

// Provenance of a value node: the entry's defaults, overridden by the keys of an inline table or series item.
FieldRef leaf_ref(const Entry& e, const FieldRef& defaults, const Node& n, const std::string& path) {
  FieldRef r = defaults;
  r.provenance.field = path;
  r.value = &n;
  r.location = e.where(n);
  if (n.is_table() && n.find("value") != nullptr) {
    r.value = n.find("value");
    r.location = e.where(*r.value);
    if (const Node* d = n.find("as_of"); d != nullptr && d->kind == Node::Kind::date) r.provenance.as_of = d->date.str();
    if (const Node* s = n.find("source"); s != nullptr && s->kind == Node::Kind::string) r.provenance.source = s->str;
    if (const Node* s = n.find("note"); s != nullptr && s->kind == Node::Kind::string) r.provenance.note = s->str;
    if (const Node* s = n.find("basis"); s != nullptr && s->kind == Node::Kind::string) r.provenance.basis = s->str;
  }
  return r;
}

void walk(const Entry& e, const FieldRef& defaults, const Node& n, const std::string& path,
          const std::function<void(const std::string&, const FieldRef&)>& fn) {
  if (n.is_table() && n.find("value") == nullptr) {
    for (const auto& [k, v] : n.members) walk(e, defaults, v, path.empty() ? k : path + "." + k, fn);
    return;
  }
  if (n.kind == Node::Kind::array && !n.items.empty() && n.items.front().is_table()) {
    for (std::size_t i = 0; i < n.items.size(); ++i) walk(e, defaults, n.items[i], path + "[" + std::to_string(i) + "]", fn);
    return;
  }
  fn(path, leaf_ref(e, defaults, n, path));
}

bool looks_numeric(const std::string& s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  if (i < s.size() && s[i] == '$') return true;
  return i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) != 0 || s[i] == '.');
}

// Ids that occur twice within one layer (the embedded data, or one overlay directory). An overlay that
// replaces a built-in id is intended and is not reported.
void duplicate_ids(Catalog& catalog, std::vector<Finding>& out) {
  std::map<std::string, std::string> seen;
  for (const auto& f : embedded_files())
    if (auto [it, fresh] = seen.emplace(std::string(f.id), "data/" + std::string(f.path)); !fresh)
      out.push_back({"data/" + std::string(f.path), "duplicate id \"" + std::string(f.id) + "\" (also " + it->second + ")", true});
  namespace fs = std::filesystem;
  for (const auto& dir : catalog.overlay_dirs()) {
    std::map<std::string, std::string> local;
    for (const fs::path p : Catalog::overlay_files(dir, true))
      if (auto [it, fresh] = local.emplace(p.stem().string(), p.string()); !fresh)
        out.push_back({p.string(), "duplicate id \"" + p.stem().string() + "\" (also " + it->second + "); only one is used", true});
  }
}

// Checks one value against its spec; returns the quantity when it is one.
std::optional<Quantity> check_value(Catalog& catalog, const Entry& e, const std::string& path, const FieldRef& ref,
                                    const FieldSpec* spec, std::vector<Finding>& out) {
  const Node& v = *ref.value;
  if (spec == nullptr) {
    out.push_back({ref.location, path + ": field not described for kind " + e.kind() + " (typo? see docs/data.md)", false});
    if (v.kind == Node::Kind::string && looks_numeric(v.str)) {
      auto pr = parse_quantity(v.str);
      if (!pr) out.push_back({ref.location, path + ": " + pr.error().text(), true});
      else return pr.value();
    }
    return std::nullopt;
  }
  if (spec->boolean) {
    if (v.kind != Node::Kind::boolean) out.push_back({ref.location, path + ": expected true or false", true});
    return std::nullopt;
  }
  if (spec->list) {
    bool ok = v.kind == Node::Kind::array && !v.items.empty();
    for (const auto& i : v.items) ok = ok && i.kind == Node::Kind::string;
    if (!ok) out.push_back({ref.location, path + ": expected a non-empty array of strings", true});
    return std::nullopt;
  }
  if (spec->numbers) {
    bool ok = v.kind == Node::Kind::array && !v.items.empty();
    for (const auto& i : v.items)
      ok = ok && (i.kind == Node::Kind::integer || i.kind == Node::Kind::floating) && i.number >= spec->min && i.number <= spec->max;
    if (!ok)
      out.push_back({ref.location, fmt::format("{}: expected a non-empty array of numbers from {:g} to {:g}", path, spec->min, spec->max), true});
    return std::nullopt;
  }
  if (spec->text) {
    if (v.kind != Node::Kind::string || v.str.empty()) {
      out.push_back({ref.location, path + ": expected non-empty text", true});
      return std::nullopt;
    }
    if (!spec->ref_kind.empty()) {
      const Entry* target = nullptr;
      try {
        target = catalog.find(v.str);
      } catch (const UserError&) {
        return std::nullopt;  // the target's own parse error is reported for its file
      }
      if (target == nullptr)
        out.push_back({ref.location, path + ": no catalog entry \"" + v.str + "\"", true});
      else if (target->kind() != spec->ref_kind)
        out.push_back({ref.location, path + ": \"" + v.str + "\" is a " + target->kind() + ", expected a " +
                                         std::string(spec->ref_kind), true});
    }
    return std::nullopt;
  }
  auto r = node_quantity(v, Expectation{spec->dim, spec->point}, ref.location + ": " + path);
  if (!r) {
    out.push_back({"", r.error().text(), true});
    return std::nullopt;
  }
  const Quantity q = r.value();
  if (q.value < spec->min || q.value > spec->max)
    out.push_back({ref.location, path + ": " + format_human(q) + " is outside the plausible range for " +
                                     std::string(spec->meaning.empty() ? spec->path : spec->meaning),
                   true});
  return q;
}

// A series item without a date is skipped by Entry::dated(), so it must be an error here.
void check_series_dates(const Entry& e, std::vector<Finding>& out) {
  for (const auto& [k, v] : e.root().members) {
    if (k == "meta" || v.kind != Node::Kind::array) continue;
    for (const auto& item : v.items) {
      if (!item.is_table() || item.find("value") == nullptr) continue;
      const Node* d = item.find("as_of");
      if (d == nullptr || d->kind != Node::Kind::date)
        out.push_back({e.where(item), k + ": each dated entry needs as_of = YYYY-MM-DD", true});
    }
  }
}

void check_model(const Entry& e, std::vector<Finding>& out) {
  auto arch = read_model_arch(e);
  if (!arch) {
    out.push_back({"", arch.error().text(), true});
    return;
  }
  const ModelArch& m = arch.value();
  const ParamCount c = count_params(m);
  const double tol = param_tolerance(m.moe.has_value());
  auto compare = [&](const char* what, double computed, double published) {
    if (published <= 0) return;
    const double rel = std::abs(computed - published) / published;
    if (rel > tol)
      out.push_back({e.file(), std::string(what) + ": the architecture gives " + format_count(computed, 4) + ", the file says " +
                                   format_count(published, 4) + " (" + format_count(rel * 100, 3) + "% apart, limit " +
                                   format_count(tol * 100, 2) + "%)",
                     true});
  };
  compare("params_total", c.total, m.params_total_published);
  if (m.moe) {
    if (m.params_active_published <= 0) out.push_back({e.file(), "a mixture-of-experts model needs params_active", true});
    compare("params_active", active_as_published(m, c), m.params_active_published);
  }
}

// Config keys the validator reads as counts: whole numbers, 0 or more.
constexpr std::string_view kMeasuredCountKeys[] = {"tp", "pp", "dp", "ep", "cp", "batch_size", "input_len", "output_len",
                                                   "seq_len", "global_batch_seqs", "micro_batch", "instances"};

// A result value: a quantity string in the project's unit syntax, a plain number, or an array of those
// (the durations of repeated runs).
std::optional<std::string> bad_result_value(const Node& v) {
  if (v.is_number()) return std::nullopt;
  if (v.kind == Node::Kind::string) {
    auto q = parse_quantity(v.str);
    if (!q) return q.error().text();
    return std::nullopt;
  }
  if (v.kind == Node::Kind::array && !v.items.empty()) {
    for (const auto& i : v.items)
      if (auto bad = i.kind == Node::Kind::array ? std::optional<std::string>("nested array") : bad_result_value(i)) return bad;
    return std::nullopt;
  }
  return "expected a quantity string (\"762 tok/s\"), a number or an array of them, got " + std::string(v.kind_name());
}

// One measurement beyond what the reader checks: dates, counts, result values, format ids, catalog ids.
void check_measurement(Catalog& catalog, const Measurement& m, const Node& item, const Date& today,
                       std::span<const std::string_view> format_ids, std::vector<Finding>& out) {
  auto where = [&](std::string_view key) {
    const Node* n = item.find(key);
    return n != nullptr ? position(m.file, *n) : m.location;
  };
  if (Date d = Date::parse(m.date); d.valid() && today < d) out.push_back({where("date"), m.id + ": date " + m.date + " is in the future", true});
  if (item.find("accelerator") == nullptr)
    out.push_back({m.location, "measurement without 'accelerator' (a catalog accelerator id; \"\" when the source does not say)", true});
  if (item.find("count") == nullptr)
    out.push_back({m.location, "measurement without 'count' (accelerators measured together; 0 when the source does not say)", true});
  for (const auto& [key, v] : m.result.members)
    if (auto bad = bad_result_value(v)) out.push_back({position(m.file, v), "result." + key + ": " + *bad, true});
  for (const auto& [key, v] : m.config.members)
    if (std::find(std::begin(kMeasuredCountKeys), std::end(kMeasuredCountKeys), key) != std::end(kMeasuredCountKeys) &&
        (v.kind != Node::Kind::integer || v.integer < 0))
      out.push_back({position(m.file, v), "config." + key + ": expected a whole number, 0 or more", true});
  for (auto [key, value] : {std::pair{"weights", &m.weights}, std::pair{"kv", &m.kv}}) {
    if (value->empty() || format_ids.empty()) continue;
    if (std::find(format_ids.begin(), format_ids.end(), *value) == format_ids.end()) {
      std::vector<std::string_view> ids(format_ids.begin(), format_ids.end());
      std::string hint = did_you_mean(*value, ids);
      if (hint.empty()) hint = "use a storage format id that --dtype accepts";
      out.push_back({where(key), std::string(key) + ": unknown format \"" + *value + "\"; hint: " + hint, true});
    }
  }
  auto catalog_kind = [&](const std::string& id) -> std::optional<std::string> {
    try {
      if (const Entry* e = catalog.find(id); e != nullptr) return e->kind();
    } catch (const UserError&) {
      return std::string();  // the file's own error is reported for it
    }
    return std::nullopt;
  };
  if (!m.model_id.empty()) {
    auto k = catalog_kind(m.model_id);
    if (!k) out.push_back({where("model_id"), "model_id: no catalog model \"" + m.model_id + "\"", true});
    else if (!k->empty() && *k != "model")
      out.push_back({where("model_id"), "model_id: \"" + m.model_id + "\" is a " + *k + ", expected a model", true});
  }
  if (!m.accelerator.empty()) {
    auto k = catalog_kind(m.accelerator);
    if (!k)
      out.push_back({where("accelerator"), "accelerator: \"" + m.accelerator + "\" is not in the catalog; " + m.id + " cannot be predicted", false});
    else if (!k->empty() && *k != "accelerator")
      out.push_back({where("accelerator"), "accelerator: \"" + m.accelerator + "\" is a " + *k + ", expected an accelerator", true});
  }
}

// Every measured file: the data-file keys (id, name, kind, [meta]) and every [[measurement]]; measurement
// ids are unique across all files (an overlay file replaces the built-in file of the same name).
void check_measured(Catalog& catalog, const Date& today, std::span<const std::string_view> format_ids, std::vector<Finding>& out) {
  struct Source {
    std::string name;
    std::string text;
  };
  std::vector<Source> sources;
  const auto overlays = catalog.overlay_measured_files();
  auto stem = [](const std::string& path) { return std::filesystem::path(path).stem().string(); };
  for (const auto& f : embedded_files()) {
    if (f.kind != "measured") continue;
    const std::string name = "data/" + std::string(f.path);
    if (std::any_of(overlays.begin(), overlays.end(), [&](const std::string& o) { return stem(o) == f.id; })) continue;
    sources.push_back({name, std::string(f.text)});
  }
  for (const auto& path : overlays) {
    auto text = read_input_file(path, "", input_limits::document);
    if (!text) {
      out.push_back({"", text.error().text(), true});
      continue;
    }
    sources.push_back({path, std::move(text).value()});
  }
  std::map<std::string, std::string> seen;
  for (const auto& src : sources) {
    auto root = read_toml(src.text, src.name);
    if (!root) {
      out.push_back({"", root.error().text(), true});
      continue;
    }
    auto entry = Entry::from_node(root.value(), src.name, false);
    if (!entry) {
      out.push_back({"", entry.error().text(), true});
    } else {
      const Entry& e = *entry.value();
      if (e.id() != stem(src.name)) out.push_back({src.name, "id \"" + e.id() + "\" does not match the file name", true});
      if (e.kind() != "measured") out.push_back({src.name, "kind \"" + e.kind() + "\" does not match its folder (measured)", true});
      if (today < e.as_of()) out.push_back({src.name, "[meta] as_of " + e.as_of().str() + " is in the future", true});
    }
    for (const auto& [key, v] : root.value().members)
      if (key != "id" && key != "name" && key != "kind" && key != "meta" && key != "measurement")
        out.push_back({position(src.name, v), key + ": key not described for a measured file (see docs/data.md)", false});
    std::vector<Measurement> entries;
    for (const auto& err : lint_measurements(root.value(), src.name, entries)) out.push_back({"", err.text(), true});
    const Node* list = root.value().find("measurement");
    for (std::size_t i = 0; i < entries.size() && list != nullptr && i < list->items.size(); ++i) {
      const Measurement& m = entries[i];
      check_measurement(catalog, m, list->items[i], today, format_ids, out);
      if (m.id.empty()) continue;
      if (auto [it, fresh] = seen.emplace(m.id, m.location); !fresh && it->second.rfind(src.name, 0) != 0)
        out.push_back({m.location, "measurement id \"" + m.id + "\" is also used by " + it->second, true});
    }
  }
}

}  // namespace

void for_each_field(const Entry& e, const std::function<void(const std::string&, const FieldRef&)>& fn) {
  auto defaults = e.field("id");  // always present: carries the entry's default provenance
  if (!defaults) return;
  defaults->provenance.note.clear();
  for (const auto& [k, v] : e.root().members) {
    if (k == "id" || k == "name" || k == "kind" || k == "meta") continue;
    walk(e, *defaults, v, k, fn);
  }
}

bool is_unpredictable_measurement(const Finding& f) {
  return !f.error && f.where.rfind("data/measured/", 0) == 0 && f.message.find("is not in the catalog") != std::string::npos;
}

double param_tolerance(bool moe) { return moe ? 0.02 : 0.01; }

std::vector<Finding> check_catalog(Catalog& catalog, const Date& today, std::span<const std::string_view> format_ids) {
  std::vector<Finding> out;
  for (const auto& err : catalog.load_errors()) out.push_back({"", err.text(), true});
  duplicate_ids(catalog, out);
  for (const auto& item : catalog.index()) {
    const Entry* e = nullptr;
    try {
      e = catalog.find(item.id);
    } catch (const UserError&) {
      continue;  // already reported by load_errors
    }
    if (e == nullptr) continue;
    if (!item.kind.empty() && item.kind != e->kind())
      out.push_back({e->file(), "kind \"" + e->kind() + "\" does not match its folder (" + item.kind + ")", true});
    if (today < e->as_of()) out.push_back({e->file(), "[meta] as_of " + e->as_of().str() + " is in the future", true});
    if (const Node* b = e->root().at_path("meta.basis"); b != nullptr && (b->kind != Node::Kind::string || !known_basis(b->str)))
      out.push_back({e->file(), "[meta] basis must be one of datasheet, vendor-claim, estimate, measured, derived, published, press", true});
    for (const auto& spec : field_specs())
      if (spec.kind == e->kind() && spec.required && spec.path.find('*') == std::string_view::npos &&
          e->root().at_path(spec.path) == nullptr)
        out.push_back({e->file(), "missing required field '" + std::string(spec.path) + "' for kind " + e->kind(), true});
    check_series_dates(*e, out);
    std::map<std::string, double> peaks;
    const std::string meta_basis = e->root().at_path("meta.basis") != nullptr ? e->root().at_path("meta.basis")->str : "";
    for_each_field(*e, [&](const std::string& path, const FieldRef& ref) {
      const Provenance& p = ref.provenance;
      // Values that inherit [meta] were checked once above; only overrides are checked here.
      if (Date d = Date::parse(p.as_of); d.valid() && today < d && p.as_of != e->as_of().str())
        out.push_back({ref.location, path + ": as_of " + p.as_of + " is in the future", true});
      else if (p.as_of != e->as_of().str() && (!d.valid() || d.year < kEarliestSourceYear))
        out.push_back({ref.location, path + ": as_of " + p.as_of + " is not a plausible date of a source (a calendar day from " +
                                         std::to_string(kEarliestSourceYear) + "-01-01 on)", true});
      if (p.source.empty()) out.push_back({ref.location, path + ": no source", true});
      if (!p.basis.empty() && p.basis != meta_basis && !known_basis(p.basis))
        out.push_back({ref.location, path + ": unknown basis \"" + p.basis + "\"", true});
      const auto q = check_value(catalog, *e, path, ref, find_field_spec(e->kind(), path), out);
      if (q && path.rfind("peak.", 0) == 0) peaks[path.substr(5)] = q->value;
    });
    // A sparse rate counts skipped zeros, so it can never be below the dense rate.
    for (const auto& [key, value] : peaks) {
      const auto pos = key.rfind("_dense");
      if (pos == std::string::npos || pos + 6 != key.size()) continue;
      const auto sparse = peaks.find(key.substr(0, pos) + "_sparse");
      if (sparse != peaks.end() && sparse->second < value)
        out.push_back({e->file(), "peak." + key + " exceeds peak." + sparse->first + " (dense must be <= sparse)", true});
    }
    for (const auto& [key, value] : peaks) {
      (void)value;
      const auto us = key.rfind('_');
      const std::string precision = us == std::string::npos ? key : key.substr(0, us);
      const std::string mode = us == std::string::npos ? "" : key.substr(us + 1);
      if ((mode != "dense" && mode != "sparse") ||
          std::find(std::begin(kPrecisions), std::end(kPrecisions), precision) == std::end(kPrecisions))
        out.push_back({e->file(), "peak." + key + ": name peak rates <precision>_dense or <precision>_sparse with a precision of "
                                  "fp64 fp32 tf32 bf16 fp16 fp8 fp6 fp4 nvfp4 mxfp4 mxfp6 mxfp8 int8 int4", true});
    }
    if (e->kind() == "model") check_model(*e, out);
  }
  check_measured(catalog, today, format_ids, out);
  return out;
}

}  // namespace infracalc
