#include "plugins/cooling/pipe_catalog.hpp"

#include <algorithm>

namespace infracalc::cooling {

std::optional<PipeSeries> read_pipe_series(Context& ctx, std::string_view id) {
  const Entry* e = Catalog::instance().find(id);
  if (e == nullptr) return std::nullopt;
  PipeSeries s;
  s.id = e->id();
  s.roughness = ctx.catalog<Meters>(*e, "roughness");
  const Node* sizes = e->root().find("sizes");
  if (sizes == nullptr || sizes->kind != Node::Kind::array) return s;
  for (std::size_t i = 0; i < sizes->items.size(); ++i) {
    const Node& row = sizes->items[i];
    const std::string label = e->where(row) + ": sizes[" + std::to_string(i) + "]";
    const Node* nom = row.find("nominal");
    const Node* od = row.find("outer_diameter");
    const Node* wall = row.find("wall");
    if (nom == nullptr || od == nullptr || wall == nullptr || nom->kind != Node::Kind::string)
      throw UserError{{label + ": needs nominal, outer_diameter and wall", "see docs/cooling.md"}};
    auto d = node_quantity(*od, {dims::length, false}, label + ".outer_diameter");
    auto w = node_quantity(*wall, {dims::length, false}, label + ".wall");
    if (!d) throw UserError{d.error()};
    if (!w) throw UserError{w.error()};
    s.sizes.push_back({nom->str, from_base<Meters>(d->value - 2.0 * w->value)});
  }
  std::sort(s.sizes.begin(), s.sizes.end(), [](const PipeSize& a, const PipeSize& b) { return a.inner_diameter < b.inner_diameter; });
  if (auto f = e->field("sizes")) ctx.cite(f->provenance);
  return s;
}

const PipeSize* smallest_at_least(const PipeSeries& s, Meters d) {
  for (const auto& p : s.sizes)
    if (p.inner_diameter >= d) return &p;
  return nullptr;
}

}  // namespace infracalc::cooling
