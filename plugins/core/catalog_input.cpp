#include "plugins/core/catalog_input.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "units/format.hpp"

namespace infracalc {

void record_input(Context& ctx, std::string_view key, const Quantity& q, Origin origin, std::string raw, std::string from) {
  auto& inputs = ctx.result().inputs;
  std::erase_if(inputs, [&](const ResolvedInput& r) { return r.key == key; });
  ResolvedInput ri;
  ri.key = std::string(key);
  ri.origin = origin;
  ri.value = q;
  ri.raw = std::move(raw);
  ri.from = std::move(from);
  inputs.push_back(std::move(ri));
}

bool fill_from_ref(Context& ctx, std::string_view key, std::string_view ref, std::string_view path,
                   const Expectation& want) {
  if (ctx.has(key)) return true;
  const Entry* e = ctx.ref(ref);
  if (e == nullptr) return false;
  std::optional<FieldRef> field = e->field(path);
  if (!field) return false;
  if (field->value->kind == Node::Kind::array) {
    const Date& as_of = ctx.options().as_of;
    field = e->dated(path, as_of);
    if (!field)
      throw UserError{{fmt::format("--{} {}: '{}' has no entry dated on or before {}", ref, e->id(), path,
                                   as_of.valid() ? as_of.str() : std::string("today")),
                       "pick a later --as-of, or give " + Context::flag_name(key) + " directly"}};
  }
  const Node& node = *field->value;
  const std::string label = field->location + ": " + e->id() + "." + std::string(path);
  auto q = node_quantity(node, want, label);
  if (!q) throw UserError{q.error()};
  if (!std::isfinite(q->value) || q->value < 0) throw UserError{{label + " must be zero or more", "fix the data file"}};
  record_input(ctx, key, q.value(), Origin::catalog, node.kind == Node::Kind::string ? node.str : format_machine(node.number),
               e->id());
  ctx.cite(field->provenance);
  return true;
}

}  // namespace infracalc
