#include "cli/catalog_views.hpp"

#include <cctype>
#include <fmt/format.h>

#include "plan/machine_units.hpp"
#include "catalog/schema.hpp"
#include "units/format.hpp"
#include "units/parse.hpp"

namespace infracalc::cli {

namespace {

ViewCell quantity_cell(std::string_view key, const Quantity& q, std::string human) {
  const writers::MachineQuantity m = writers::machine_quantity(key, q);
  return {std::move(human), format_machine(m.value), m.unit, m.value};
}

std::optional<Quantity> field_quantity(const Entry& e, std::string_view path, const Dim& dim) {
  auto q = e.quantity(path, {dim, false});
  return q ? std::optional<Quantity>(q.value()) : std::nullopt;
}

// The purchase price of one unit of `e` in force at `as_of`: a price entry whose `item` is the part's id.
std::optional<std::pair<Quantity, std::string>> purchase_price(const Entry& e, const Date& as_of) {
  for (const Entry* p : Catalog::instance().all("price")) {
    if (p->text("item") != e.id()) continue;
    auto ref = p->dated("purchase", as_of);
    if (!ref || ref->value == nullptr || ref->value->kind != Node::Kind::string) continue;
    auto q = parse_quantity(ref->value->str);
    if (q && q->dim == dims::currency && q->value > 0) return std::pair{*q, p->id()};
  }
  return std::nullopt;
}

}  // namespace

std::string_view path_leaf(std::string_view path) {
  const auto dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

bool quantity_text(const std::string& s) {
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) != 0 || s[0] == '$' || s[0] == '-');
}

std::string show_value(const Node& v, const FormatOptions& f) {
  if (v.kind == Node::Kind::string) {
    auto q = parse_quantity(v.str);
    if (q && quantity_text(v.str)) return format_human(*q, f) + (format_human(*q, f) == v.str ? "" : "  (" + v.str + ")");
    return v.str;
  }
  if (v.kind == Node::Kind::boolean) return v.boolean ? "true" : "false";
  if (v.kind == Node::Kind::date) return v.date.str();
  if (v.is_number()) return format_count(v.number, f.digits);
  if (v.kind == Node::Kind::array) {
    std::string out;
    for (const auto& i : v.items) out += (out.empty() ? "" : ", ") + show_value(i, f);
    return "[" + out + "]";
  }
  return std::string(v.kind_name());
}

ViewCell view_cell(const Node& v, std::string_view kind, const std::string& path, const FormatOptions& f) {
  std::string human = show_value(v, f);
  // A year is a label, not a count: `launch = 2020` shows as 2020, never 2,020.
  const std::string_view leaf = path_leaf(path);
  if (v.kind == Node::Kind::integer && v.integer >= 1000 && v.integer <= 9999 &&
      (leaf.find("year") != std::string_view::npos || leaf == "launch" || leaf == "release"))
    human = std::to_string(v.integer);
  if (v.kind == Node::Kind::string) {
    auto q = parse_quantity(v.str);
    if (q && quantity_text(v.str)) return quantity_cell(path_leaf(path), *q, std::move(human));
    return {std::move(human), v.str, "", 0};
  }
  if (v.is_number()) {
    const FieldSpec* spec = find_field_spec(kind, path);
    if (spec != nullptr && !spec->text) return quantity_cell(path_leaf(path), Quantity{v.number, spec->dim}, std::move(human));
    return {std::move(human), format_machine(v.number), "1", v.number};
  }
  if (v.kind == Node::Kind::date) return {human, v.date.str(), "", 0};
  if (v.kind == Node::Kind::boolean) return {human, human, "", 0};
  return {human, human, "", 0};
}

ViewCell view_cell(std::string_view key, const Quantity& q, std::string_view hint, const FormatOptions& f) {
  return quantity_cell(key, q, format_human(q, f, hint));
}

std::vector<ViewRow> compare_derived_rows(const std::vector<const Entry*>& entries, const Date& as_of, const FormatOptions& f) {
  const std::size_t n = entries.size();
  struct Derived {
    const char* key;
    const char* hint;
    std::function<std::optional<Quantity>(const Entry&, const std::optional<Quantity>& price)> compute;
  };
  auto ratio = [](std::optional<Quantity> a, std::optional<Quantity> b) -> std::optional<Quantity> {
    if (!a || !b || b->value <= 0) return std::nullopt;
    return Quantity{a->value / b->value, a->dim / b->dim};
  };
  auto peak = [](const Entry& e, const char* path) { return field_quantity(e, path, dims::flop_rate); };
  auto tdp = [](const Entry& e) { return field_quantity(e, "tdp", dims::power); };
  const std::vector<Derived> derived = {
      {"bf16_dense_per_power", "FLOP/(s*W)", [&](const Entry& e, const auto&) { return ratio(peak(e, "peak.bf16_dense"), tdp(e)); }},
      {"fp8_dense_per_power", "FLOP/(s*W)", [&](const Entry& e, const auto&) { return ratio(peak(e, "peak.fp8_dense"), tdp(e)); }},
      {"purchase_price", "", [](const Entry&, const auto& price) { return price; }},
      {"bandwidth_per_price", "B/(s*USD)",
       [&](const Entry& e, const auto& price) { return ratio(field_quantity(e, "memory_bandwidth", dims::data_rate), price); }},
      {"memory_per_price", "B/USD",
       [&](const Entry& e, const auto& price) { return ratio(field_quantity(e, "memory_capacity", dims::information), price); }},
      {"bf16_dense_per_price", "FLOP/(s*USD)", [&](const Entry& e, const auto& price) { return ratio(peak(e, "peak.bf16_dense"), price); }},
  };
  std::vector<std::optional<Quantity>> prices(n);
  std::vector<std::string> price_ids(n);
  for (std::size_t i = 0; i < n; ++i)
    if (auto p = purchase_price(*entries[i], as_of)) {
      prices[i] = p->first;
      price_ids[i] = p->second;
    }
  std::vector<ViewRow> rows;
  for (const auto& d : derived) {
    ViewRow row{std::string("derived.") + d.key, std::vector<std::optional<ViewCell>>(n), {}};
    bool any = false;
    for (std::size_t i = 0; i < n; ++i)
      if (auto q = d.compute(*entries[i], prices[i])) {
        row.cells[i] = view_cell(d.key, *q, d.hint, f);
        any = true;
      }
    if (any) rows.push_back(std::move(row));
  }
  if (std::any_of(price_ids.begin(), price_ids.end(), [](const auto& s) { return !s.empty(); })) {
    ViewRow src{"derived.price_entry", std::vector<std::optional<ViewCell>>(n), {}};
    for (std::size_t i = 0; i < n; ++i)
      if (!price_ids[i].empty()) src.cells[i] = ViewCell{price_ids[i], price_ids[i], "", 0};
    rows.push_back(std::move(src));
  }
  return rows;
}

}  // namespace infracalc::cli
