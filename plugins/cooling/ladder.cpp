#include "plugins/cooling/ladder.hpp"

#include <algorithm>

namespace infracalc::cooling {

std::vector<Technology> read_ladder(Context& ctx) {
  std::vector<Technology> out;
  for (const Entry* e : Catalog::instance().all("facility")) {
    if (e->text("type").value_or("") != "cooling") continue;
    Technology t;
    t.id = e->id();
    t.name = e->name();
    t.min = ctx.catalog<Watts>(*e, "rack_density_min");
    t.typical = ctx.catalog<Watts>(*e, "rack_density_typical");
    t.max = ctx.catalog<Watts>(*e, "rack_density_max");
    t.flux_limit = ctx.catalog<WattsPerSquareMeter>(*e, "heat_flux_limit");
    out.push_back(std::move(t));
  }
  std::stable_sort(out.begin(), out.end(), [](const Technology& a, const Technology& b) {
    if (a.max.has_value() != b.max.has_value()) return a.max.has_value();
    const Watts zero = from_base<Watts>(0.0);
    return a.max && b.max && a.min.value_or(zero) < b.min.value_or(zero);
  });
  return out;
}

const Technology* find_rung(const std::vector<Technology>& ladder, std::string_view id) {
  for (const auto& t : ladder)
    if (t.id == id) return &t;
  return nullptr;
}

Placement place(const Technology& t, Watts rack) {
  if (!t.max) return Placement::no_range;
  if (t.min && rack < *t.min) return Placement::below;
  if (rack <= t.typical.value_or(*t.max)) return Placement::mainstream;
  if (rack <= *t.max) return Placement::stretch;
  return Placement::above;
}

std::string_view placement_words(Placement p) {
  switch (p) {
    case Placement::below: return "below its usual range";
    case Placement::mainstream: return "within its mainstream range";
    case Placement::stretch: return "above mainstream, within what has been demonstrated or announced";
    case Placement::above: return "beyond its range";
    case Placement::no_range: return "no rack-density range in the catalog (chosen by heat flux)";
  }
  return "";
}

std::optional<std::size_t> recommend(const std::vector<Technology>& ladder, Watts rack) {
  for (std::size_t i = 0; i < ladder.size(); ++i)
    if (ladder[i].max && rack <= *ladder[i].max) return i;
  return std::nullopt;
}

}  // namespace infracalc::cooling
