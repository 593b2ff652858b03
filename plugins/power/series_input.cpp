#include "plugins/power/series_input.hpp"

#include <algorithm>

#include "units/format.hpp"

namespace infracalc {


void record_input(Context& ctx, std::string_view key, const Quantity& q, Origin origin, std::string raw, std::string from) {
  ResolvedInput ri;
  ri.key = std::string(key);
  ri.origin = origin;
  ri.value = q;
  ri.raw = std::move(raw);
  ri.from = std::move(from);
  auto& inputs = ctx.result().inputs;
  inputs.erase(std::remove_if(inputs.begin(), inputs.end(), [&](const ResolvedInput& r) { return r.key == key; }), inputs.end());
  inputs.push_back(std::move(ri));
}

bool fill_from_series(Context& ctx, std::string_view key, std::string_view ref, std::string_view path, const Expectation& want) {
  if (ctx.has(key)) return true;
  const Entry* e = ctx.ref(ref);
  if (e == nullptr || !e->field(path)) return false;
  const Date& as_of = ctx.options().as_of;
  auto item = e->dated(path, as_of);
  if (!item) {
    // A plain value (not a series) is accepted too.
    const auto plain = e->field(path);
    if (plain && plain->value->kind != Node::Kind::array) {
      item = plain;
    } else {
      throw UserError{{"--" + std::string(ref) + " " + e->id() + ": no " + std::string(path) + " on or before " +
                           (as_of.valid() ? as_of.str() : std::string("today")),
                       "give " + Context::flag_name(key) + " VALUE, or a later --as-of"}};
    }
  }
  auto q = node_quantity(*item->value, want, item->location + ": " + e->id() + "." + std::string(path));
  if (!q) throw UserError{q.error()};
  const Quantity probe = q.value();
  record_input(ctx, key, probe, Origin::catalog,
               item->value->kind == Node::Kind::string ? item->value->str : format_machine(item->value->number), e->id());
  ctx.cite(item->provenance);
  return true;
}

}  // namespace infracalc
