#include "catalog/catalog.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "catalog/embedded.hpp"
#include "catalog/model_arch.hpp"
#include "documents/input_file.hpp"
#include "documents/toml_reader.hpp"
#include "units/suggest.hpp"

namespace infracalc {

namespace fs = std::filesystem;

namespace {

constexpr std::pair<std::string_view, std::string_view> kFolders[] = {
    {"accelerators", "accelerator"}, {"systems", "system"},   {"models", "model"},     {"interconnects", "interconnect"},
    {"network", "network"},          {"prices", "price"},     {"grids", "grid"},       {"facility", "facility"},
    {"storage", "storage"},          {"memory", "memory"},    {"reliability", "reliability"}, {"measured", "measured"},
    {"calibration", "calibration"}, {"climate", "climate"}};

// Files of published measurements (data/measured/) hold [[measurement]] tables, not one catalog entry
// looked up by id: the index leaves them out and catalog/measured.cpp reads them.
constexpr std::string_view kMeasuredKind = "measured";

Error at(const std::string& file, const Node& n, const std::string& what, std::string hint = {}) {
  return Error{position(file, n) + ": " + what, std::move(hint)};
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

// "an accelerator", "a model".
std::string with_article(std::string_view noun) {
  const bool vowel = !noun.empty() && std::string_view("aeiou").find(noun.front()) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(noun);
}

// The command that lists the ids of these kinds: hardware under `hw list`, models under `model list`, the
// rest (prices, grids, facility, reliability) under `data list`.
std::string list_command(const std::vector<std::string_view>& kinds) {
  static constexpr std::array<std::string_view, 6> kHardware = {"accelerator", "system", "interconnect", "network", "memory", "storage"};
  const auto hardware = [](std::string_view k) { return std::find(kHardware.begin(), kHardware.end(), k) != kHardware.end(); };
  if (kinds.empty()) return "infracalc hw list, infracalc model list or infracalc data list";
  if (kinds.size() == 1 && kinds.front() == "model") return "infracalc model list";
  if (std::all_of(kinds.begin(), kinds.end(), hardware)) {
    const bool default_list = std::all_of(kinds.begin(), kinds.end(), [](std::string_view k) { return k == "accelerator" || k == "system"; });
    return kinds.size() == 1 && !default_list ? "infracalc hw list --kind " + std::string(kinds.front()) : std::string("infracalc hw list");
  }
  if (kinds.size() == 1) return "infracalc data list --kind " + std::string(kinds.front());
  return "infracalc data list";
}

}  // namespace

bool valid_id(std::string_view id) {
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (id.empty() || id.size() > 100 || !alnum(id.front()) || !alnum(id.back())) return false;
  for (std::size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    if (alnum(c) || c == '-' || c == '_') continue;
    if (c == '.' && alnum(id[i - 1]) && alnum(id[i + 1])) continue;  // never first or last: both neighbours exist
    return false;
  }
  return true;
}

std::string kind_of_folder(std::string_view folder) {
  for (auto [f, k] : kFolders)
    if (f == folder) return std::string(k);
  return {};
}

Expected<std::unique_ptr<Entry>> Entry::from_node(Node root, std::string file, bool overlay) {
  auto e = std::unique_ptr<Entry>(new Entry());
  e->file_ = std::move(file);
  e->overlay_ = overlay;
  auto need_string = [&](std::string_view key, std::string& out) -> std::optional<Error> {
    const Node* n = root.find(key);
    if (n == nullptr)
      return Error{e->file_ + ": missing top-level '" + std::string(key) + "'", "every data file has id, name and kind"};
    if (n->kind != Node::Kind::string || n->str.empty())
      return at(e->file_, *n, "'" + std::string(key) + "' must be a non-empty string");
    out = n->str;
    return std::nullopt;
  };
  for (auto [key, out] : {std::pair{"id", &e->id_}, std::pair{"name", &e->name_}, std::pair{"kind", &e->kind_}})
    if (auto err = need_string(key, *out)) return *err;
  if (!valid_id(e->id_)) return at(e->file_, *root.find("id"), "id \"" + e->id_ + "\" is not a valid id", std::string(kIdGrammar));
  const Node* meta = root.find("meta");
  if (meta == nullptr || !meta->is_table())
    return Error{e->file_ + ": missing [meta] table", "add [meta] with as_of = YYYY-MM-DD and sources = [...]"};
  const Node* as_of = meta->find("as_of");
  if (as_of == nullptr || as_of->kind != Node::Kind::date)
    return at(e->file_, as_of != nullptr ? *as_of : *meta, "[meta] as_of must be a TOML date", "write as_of = 2024-07-23");
  if (!as_of->date.calendar() || as_of->date.year < kEarliestSourceYear)
    return at(e->file_, *as_of, "[meta] as_of " + fmt::format("{:04d}-{:02d}-{:02d}", as_of->date.year, as_of->date.month, as_of->date.day) + " is not a plausible date of a source (a calendar day from " +
                                    std::to_string(kEarliestSourceYear) + "-01-01 on)",
              "write the date of the source document, e.g. as_of = 2024-07-23");
  e->as_of_ = as_of->date;
  const Node* sources = meta->find("sources");
  if (sources == nullptr || sources->kind != Node::Kind::array || sources->items.empty())
    return at(e->file_, sources != nullptr ? *sources : *meta, "[meta] sources must be a non-empty array of strings");
  for (const auto& s : sources->items) {
    if (s.kind != Node::Kind::string || s.str.empty()) return at(e->file_, s, "each source must be a non-empty string");
    e->sources_.push_back(s.str);
  }
  if (const Node* b = meta->find("basis"); b != nullptr && b->kind == Node::Kind::string) e->default_basis_ = b->str;
  e->root_ = std::move(root);
  return e;
}

Entry::~Entry() = default;

std::string Entry::where(const Node& n) const { return position(file_, n); }

FieldRef Entry::make_ref(const Node& node, std::string_view path) const {
  FieldRef r;
  r.location = where(node);
  r.provenance.id = id_;
  r.provenance.field = std::string(path);
  r.provenance.as_of = as_of_.str();
  r.provenance.source = join(sources_, "; ");
  r.provenance.basis = default_basis_;
  r.provenance.overlay = overlay_;
  r.value = &node;
  if (node.is_table() && node.find("value") != nullptr) {
    r.value = node.find("value");
    r.location = where(*r.value);
    if (const Node* d = node.find("as_of"); d != nullptr && d->kind == Node::Kind::date) r.provenance.as_of = d->date.str();
    if (const Node* s = node.find("source"); s != nullptr && s->kind == Node::Kind::string) r.provenance.source = s->str;
    if (const Node* s = node.find("note"); s != nullptr && s->kind == Node::Kind::string) r.provenance.note = s->str;
    if (const Node* s = node.find("basis"); s != nullptr && s->kind == Node::Kind::string) r.provenance.basis = s->str;
  }
  return r;
}

std::optional<FieldRef> Entry::field(std::string_view path) const {
  const FieldRef* r = field_ref(path);
  if (r == nullptr) return std::nullopt;
  return *r;
}

const FieldRef* Entry::field_ref(std::string_view path) const {
  auto it = fields_.find(path);
  if (it == fields_.end()) {
    const Node* n = root_.at_path(path);
    it = fields_.emplace(std::string(path), n == nullptr ? std::nullopt : std::optional<FieldRef>(make_ref(*n, path))).first;
  }
  return it->second ? &*it->second : nullptr;
}

Expected<Quantity> node_quantity(const Node& v, const Expectation& want, const std::string& label) {
  if (v.is_number()) {
    if (!is_count_like(want.dim) || want.point)
      return Error{label + ": expected " + dim_words(want.dim) + " as a string with a unit, got a bare number",
                   "write it as \"" + dim_example(want.dim) + "\""};
    return Quantity{v.number, want.dim, false};
  }
  if (v.kind != Node::Kind::string)
    return Error{label + ": expected a quantity, got " + std::string(v.kind_name()), "write a string with a unit"};
  // A count or ratio is a TOML number: "80" in quotes (no unit such as "%") is a string where a number belongs.
  if (want.dim.dimensionless() && !want.point && !v.str.empty() && v.str.find_first_not_of("0123456789.eE+-_ ") == std::string::npos)
    return Error{label + ": expected a number, got the string \"" + v.str + "\"", "write counts and ratios as TOML numbers, without quotes: 80, 0.9"};
  return parse_input(v.str, want, label);
}

Expected<Quantity> Entry::quantity(std::string_view path, const Expectation& want) const {
  auto ref = field(path);
  if (!ref) return Error{file_ + ": no field '" + std::string(path) + "' in " + id_, "add it, or give the value as a flag"};
  return node_quantity(*ref->value, want, ref->location + ": " + std::string(path));
}

std::optional<std::string> Entry::text(std::string_view path) const {
  auto ref = field(path);
  if (!ref || ref->value->kind != Node::Kind::string) return std::nullopt;
  return ref->value->str;
}

std::optional<FieldRef> Entry::dated(std::string_view path, const Date& as_of) const {
  const Node* n = root_.at_path(path);
  if (n == nullptr || n->kind != Node::Kind::array) return std::nullopt;
  const Node* best = nullptr;
  Date best_date;
  for (const auto& item : n->items) {
    const Node* d = item.find("as_of");
    if (!item.is_table() || d == nullptr || d->kind != Node::Kind::date || item.find("value") == nullptr) continue;
    if (as_of.valid() && as_of < d->date) continue;
    if (best == nullptr || best_date < d->date) {
      best = &item;
      best_date = d->date;
    }
  }
  if (best == nullptr) return std::nullopt;
  return make_ref(*best, path);
}

Catalog& Catalog::instance() {
  static Catalog c;
  return c;
}

void Catalog::add_overlay_dir(const std::string& dir, bool may_be_empty) {
  overlay_dirs_.push_back(dir);
  if (may_be_empty) may_be_empty_.push_back(dir);
  overlay_index_.reset();
  ++generation_;
}

void Catalog::reset() {
  overlay_dirs_.clear();
  may_be_empty_.clear();
  cache_.clear();
  overlay_index_.reset();
  ++generation_;
}

namespace {

constexpr std::size_t kMaxOverlayEntries = 100'000;
constexpr int kMaxOverlayDepth = 16;

// One folder of an overlay walk: an unreadable part is an error naming it, never a silent gap in the data.
void walk_overlay(const std::string& root, const fs::path& dir, int depth, std::size_t& entries, std::vector<std::string>& files) {
  const auto unreadable = [&](const fs::path& p, const std::error_code& ec) {
    return UserError{{"data overlay '" + root + "': cannot read " + p.string() + " (" + ec.message() + ")",
                      "make it readable, or move it out of the overlay directory"}};
  };
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) throw unreadable(dir, ec);
  for (const fs::directory_iterator end; it != end; it.increment(ec)) {
    if (++entries > kMaxOverlayEntries)
      throw UserError{{"data overlay '" + root + "' holds more than 100,000 files and folders, so it is not a data directory",
                       "pass the folder that holds the data files (with models/, accelerators/, ... in it)"}};
    const fs::path& p = it->path();
    if (p.filename().string().starts_with('.')) continue;  // .git and other hidden folders
    if (it->is_directory(ec) && !it->is_symlink(ec)) {
      if (depth >= kMaxOverlayDepth)
        throw UserError{{"data overlay '" + root + "': " + p.string() + " lies more than 16 folders deep", "pass the folder that holds the data files"}};
      walk_overlay(root, p, depth + 1, entries, files);
    } else if (p.extension() == ".toml") {
      if (!it->is_regular_file(ec))
        throw UserError{{"data overlay '" + root + "': " + p.string() + " is not a regular file", "data files are plain TOML files"}};
      if (std::ifstream probe(p, std::ios::binary); !probe) throw unreadable(p, std::make_error_code(std::errc::permission_denied));
      files.push_back(p.string());
    }
  }
  if (ec) throw unreadable(dir, ec);
}

}  // namespace

std::vector<std::string> Catalog::overlay_files(const std::string& dir, bool may_be_empty) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UserError{{"data overlay '" + dir + "' is not a directory", "pass --data-dir DIR with TOML files in it"}};
  if (const fs::path c = fs::canonical(dir, ec); !ec && c == c.root_path())
    throw UserError{{"data overlay '" + dir + "' is the root of the file system, not a data directory",
                     "pass the folder that holds the data files, e.g. one with models/ and accelerators/ in it"}};
  std::vector<std::string> files;
  std::size_t entries = 0;
  walk_overlay(dir, dir, 0, entries, files);
  if (files.empty() && !may_be_empty)
    throw UserError{{"data overlay '" + dir + "' holds no data files (*.toml)",
                     "pass the folder that holds the data files, e.g. one with models/ and accelerators/ in it"}};
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<IndexItem> Catalog::overlay_index() {
  if (overlay_index_) return *overlay_index_;
  std::vector<IndexItem> items;
  // Later directories win: walk them last-first and keep the first of each id.
  for (auto it = overlay_dirs_.rbegin(); it != overlay_dirs_.rend(); ++it) {
    const bool may_be_empty = std::find(may_be_empty_.begin(), may_be_empty_.end(), *it) != may_be_empty_.end();
    for (const auto& f : overlay_files(*it, may_be_empty)) {
      const fs::path p(f);
      const std::string id = p.stem().string();
      if (kind_of_folder(p.parent_path().filename().string()) == kMeasuredKind) continue;
      if (std::any_of(items.begin(), items.end(), [&](const IndexItem& x) { return x.id == id; })) continue;
      items.push_back({id, kind_of_folder(p.parent_path().filename().string()), f, true});
    }
  }
  overlay_index_ = items;
  return items;
}

std::vector<std::string> Catalog::overlay_measured_files() const {
  std::vector<std::string> out;
  for (const auto& dir : overlay_dirs_)
    for (const auto& f : overlay_files(dir, true))
      if (kind_of_folder(fs::path(f).parent_path().filename().string()) == kMeasuredKind) out.push_back(f);
  return out;
}

std::vector<IndexItem> Catalog::index() {
  std::vector<IndexItem> items = overlay_index();
  for (const auto& f : embedded_files()) {
    if (f.kind == kMeasuredKind) continue;
    if (std::any_of(items.begin(), items.end(), [&](const IndexItem& x) { return x.id == f.id; })) continue;
    items.push_back({std::string(f.id), std::string(f.kind), "data/" + std::string(f.path), false});
  }
  return items;
}

const Entry* Catalog::load(const IndexItem& item) {
  for (const auto& [id, e] : cache_)
    if (id == item.id) return e.get();
  Expected<Node> node = Error{"no data file " + item.path, ""};
  if (item.overlay) {
    node = read_toml(read_input_file(item.path, "data file", input_limits::document).value_or_throw(), item.path);
  } else {
    for (const auto& f : embedded_files())
      if (f.id == item.id) node = embedded_tree(f);
  }
  if (!node) throw UserError{node.error()};
  auto entry = Entry::from_node(std::move(node).value(), item.path, item.overlay);
  if (!entry) throw UserError{entry.error()};
  if (entry.value()->id() != item.id)
    throw UserError{{item.path + ": id \"" + entry.value()->id() + "\" does not match the file name",
                     "name the file " + entry.value()->id() + ".toml or change the id"}};
  cache_.emplace_back(item.id, std::move(entry).value());
  return cache_.back().second.get();
}

const Entry* Catalog::find(std::string_view id) {
  for (const auto& [cid, e] : cache_)
    if (cid == id) return e.get();
  for (const auto& item : overlay_index())
    if (item.id == id) return load(item);
  for (const auto& f : embedded_files())
    if (f.id == id && f.kind != kMeasuredKind) return load({std::string(f.id), std::string(f.kind), "data/" + std::string(f.path), false});
  return nullptr;
}

const Entry& Catalog::get(std::string_view id, const std::vector<std::string_view>& kinds, std::string_view input) {
  const Entry* e = find(id);
  auto kind_ok = [&](std::string_view k) {
    return kinds.empty() || std::find(kinds.begin(), kinds.end(), k) != kinds.end();
  };
  if (e != nullptr && kind_ok(e->kind())) return *e;
  std::vector<std::string> names;
  for (const auto& item : index())
    if (item.kind.empty() || kind_ok(item.kind)) names.push_back(item.id);
  std::vector<std::string_view> views(names.begin(), names.end());
  const std::string what = kinds.empty() ? std::string("entry") : std::string(kinds.front());
  if (e != nullptr)
    throw UserError{{std::string(input) + ": '" + std::string(id) + "' is " + with_article(e->kind()) + ", not " +
                         with_article(what),
                     did_you_mean(id, views)}};
  std::string hint = did_you_mean(id, views);
  if (hint.empty()) hint = "list the known ids with `" + list_command(kinds) + "`";
  throw UserError{{std::string(input) + ": unknown " + what + " '" + std::string(id) + "'", hint}};
}

std::vector<const Entry*> Catalog::all(std::string_view kind) {
  std::vector<const Entry*> out;
  for (const auto& item : index()) {
    if (!kind.empty() && !item.kind.empty() && item.kind != kind) continue;
    const Entry* e = load(item);
    if (kind.empty() || e->kind() == kind) out.push_back(e);
  }
  return out;
}

std::vector<Error> Catalog::load_errors() {
  std::vector<Error> errors;
  for (const auto& item : index()) {
    try {
      (void)load(item);
    } catch (const UserError& e) {
      errors.push_back(e.error);
    }
  }
  return errors;
}

}  // namespace infracalc
