#include "plugins/catalog/check.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "plugins/catalog/schema.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kBases[] = {"datasheet", "vendor-claim", "estimate", "measured", "derived", "published", "press"};

void walk(const Entry& e, const Node& n, const std::string& path,
          const std::function<void(const std::string&, const FieldRef&)>& fn) {
  if (n.is_table() && n.find("value") == nullptr) {
    for (const auto& [k, v] : n.members) walk(e, v, path.empty() ? k : path + "." + k, fn);
    return;
  }
  if (n.kind == Node::Kind::array && !n.items.empty() && n.items.front().is_table()) {
    for (std::size_t i = 0; i < n.items.size(); ++i) {
      const Node& item = n.items[i];
      const std::string p = path + "[" + std::to_string(i) + "]";
      if (item.find("value") != nullptr) {
        FieldRef ref = *e.field(path);  // provenance defaults from meta
        ref.value = item.find("value");
        ref.location = e.where(*ref.value);
        if (const Node* d = item.find("as_of"); d && d->kind == Node::Kind::date) ref.provenance.as_of = d->date.str();
        if (const Node* s = item.find("source"); s && s->kind == Node::Kind::string) ref.provenance.source = s->str;
        if (const Node* s = item.find("basis"); s && s->kind == Node::Kind::string) ref.provenance.basis = s->str;
        if (const Node* s = item.find("note"); s && s->kind == Node::Kind::string) ref.provenance.note = s->str;
        ref.provenance.field = p;
        fn(p, ref);
      } else {
        walk(e, item, p, fn);
      }
    }
    return;
  }
  auto ref = e.field(path);
  if (ref) fn(path, *ref);
}

bool looks_numeric(const std::string& s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  if (i < s.size() && s[i] == '$') return true;
  return i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) != 0 || s[i] == '.');
}

}  // namespace

void for_each_field(const Entry& e, const std::function<void(const std::string&, const FieldRef&)>& fn) {
  for (const auto& [k, v] : e.root().members) {
    if (k == "id" || k == "name" || k == "kind" || k == "meta") continue;
    walk(e, v, k, fn);
  }
}

std::vector<Finding> check_catalog(Catalog& catalog, const Date& today) {
  std::vector<Finding> out;
  for (const auto& err : catalog.load_errors()) out.push_back({"", err.text(), true});
  std::map<std::string, std::string> seen;
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
    if (auto [it, fresh] = seen.emplace(e->id(), e->file()); !fresh)
      out.push_back({e->file(), "duplicate id \"" + e->id() + "\" (also " + it->second + ")", true});
    // Required fields of the kind.
    for (const auto& spec : field_specs())
      if (spec.kind == e->kind() && spec.required && spec.path.find('*') == std::string_view::npos &&
          !e->field(spec.path))
        out.push_back({e->file(), "missing required field '" + std::string(spec.path) + "' for a " + e->kind(), true});
    std::map<std::string, double> peaks;
    for_each_field(*e, [&](const std::string& path, const FieldRef& ref) {
      const Node& v = *ref.value;
      const Provenance& p = ref.provenance;
      if (Date d = Date::parse(p.as_of); d.valid() && today < d && p.as_of != e->as_of().str())
        out.push_back({ref.location, path + ": as_of " + p.as_of + " is in the future", true});
      if (p.source.empty()) out.push_back({ref.location, path + ": no source", true});
      if (!p.basis.empty() && std::find(std::begin(kBases), std::end(kBases), p.basis) == std::end(kBases))
        out.push_back({ref.location, path + ": unknown basis \"" + p.basis + "\"",
                       true});
      const FieldSpec* spec = find_field_spec(e->kind(), path);
      if (spec != nullptr && spec->text) {
        if (v.kind != Node::Kind::string) out.push_back({ref.location, path + ": expected text", true});
        return;
      }
      std::optional<Quantity> q;
      if (spec != nullptr) {
        auto r = node_quantity(v, Expectation{spec->dim, false}, ref.location + ": " + path);
        if (!r) {
          out.push_back({"", r.error().text(), true});
        } else {
          q = r.value();
          if (q->value < spec->min || q->value > spec->max)
            out.push_back({ref.location, path + ": " + format_human(*q) + " is outside the plausible range", true});
        }
      } else if (v.kind == Node::Kind::string && looks_numeric(v.str)) {
        auto pr = parse_quantity(v.str);
        if (!pr) out.push_back({ref.location, path + ": " + pr.error().text(), true});
        else q = pr.value();
      }
      if (q && path.rfind("peak.", 0) == 0) peaks[path.substr(5)] = q->value;
    });
    // Dense rates may not exceed sparse ones.
    for (const auto& [key, value] : peaks) {
      const auto pos = key.rfind("_dense");
      if (pos == std::string::npos || pos + 6 != key.size()) continue;
      const auto sparse = peaks.find(key.substr(0, pos) + "_sparse");
      if (sparse != peaks.end() && sparse->second < value)
        out.push_back({e->file(), "peak." + key + " exceeds peak." + sparse->first + " (dense must be <= sparse)", true});
    }
  }
  return out;
}

}  // namespace infracalc
