#include "plugins/cooling/coolant.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::cooling {

std::string point_text(TemperaturePoint t) { return format_human(to_quantity(t)); }
TemperaturePoint from_celsius(double c) { return TemperaturePoint::from_value(c + 273.15); }
TemperaturePoint shifted(TemperaturePoint t, Kelvin by) { return TemperaturePoint::from_value(t.value() + by.value()); }
Kelvin difference(TemperaturePoint a, TemperaturePoint b) { return from_base<Kelvin>(a.value() - b.value()); }

Coolant::Coolant(std::string name, std::vector<CoolantRow> rows) : name_(std::move(name)), rows_(std::move(rows)) {
  if (rows_.size() < 2) throw std::logic_error("a coolant table needs at least two rows");
  for (std::size_t i = 1; i < rows_.size(); ++i)
    if (!(rows_[i - 1].temperature.value() < rows_[i].temperature.value()))
      throw std::logic_error("coolant rows must be sorted by temperature");
}

Expected<Coolant> Coolant::from_entry(const Entry& e) {
  const Node* props = e.root().find("properties");
  if (props == nullptr || props->kind != Node::Kind::array || props->items.size() < 2)
    return Error{e.file() + ": " + e.id() + " has no 'properties' table with at least two rows",
                 "add [[properties]] rows with temperature, density, specific_heat and viscosity"};
  std::vector<CoolantRow> rows;
  for (std::size_t i = 0; i < props->items.size(); ++i) {
    const Node& row = props->items[i];
    auto read = [&](std::string_view key, const Expectation& want) -> Expected<Quantity> {
      const Node* n = row.find(key);
      const std::string label = e.where(row) + ": properties[" + std::to_string(i) + "]." + std::string(key);
      if (n == nullptr) return Error{label + " is missing", "every row needs temperature, density, specific_heat, viscosity"};
      return node_quantity(*n, want, label);
    };
    auto t = read("temperature", expectation_of<TemperaturePoint>());
    auto rho = read("density", expectation_of<KilogramsPerCubicMeter>());
    auto cp = read("specific_heat", expectation_of<JoulesPerKilogramKelvin>());
    auto mu = read("viscosity", expectation_of<PascalSeconds>());
    for (const auto* x : {&t, &rho, &cp, &mu})
      if (!*x) return x->error();
    rows.push_back({as<TemperaturePoint>(*t, "temperature"),
                    {as<KilogramsPerCubicMeter>(*rho, "density"), as<JoulesPerKilogramKelvin>(*cp, "specific_heat"),
                     as<PascalSeconds>(*mu, "viscosity")}});
    if (i > 0 && !(rows[i - 1].temperature.value() < rows[i].temperature.value()))
      return Error{e.where(row) + ": " + e.id() + ": property rows must rise in temperature", "sort the rows"};
  }
  return Coolant(e.id(), std::move(rows));
}

Expected<CoolantState> Coolant::at(TemperaturePoint t) const {
  const double x = t.value();
  if (x < rows_.front().temperature.value() - 1e-9 || x > rows_.back().temperature.value() + 1e-9)
    return Error{fmt::format("{}: {} is outside its property table ({} to {})", name_, point_text(t), point_text(lowest()),
                             point_text(highest())),
                 "keep supply and return inside the table: change --supply, or raise the flow to lower the rise"};
  std::size_t i = 1;
  while (i + 1 < rows_.size() && rows_[i].temperature.value() < x) ++i;
  const CoolantRow& a = rows_[i - 1];
  const CoolantRow& b = rows_[i];
  const double w = std::clamp((x - a.temperature.value()) / (b.temperature.value() - a.temperature.value()), 0.0, 1.0);
  auto lerp = [w](auto p, auto q) { return p + w * (q - p); };
  CoolantState s{lerp(a.state.density, b.state.density), lerp(a.state.specific_heat, b.state.specific_heat),
                 lerp(a.state.viscosity, b.state.viscosity)};
  if (density_) s.density = *density_;
  if (cp_) s.specific_heat = *cp_;
  if (viscosity_) s.viscosity = *viscosity_;
  return s;
}

Expected<Joules> Coolant::enthalpy_per_kg(TemperaturePoint t, TemperaturePoint reference) const {
  // h(T) - h(ref) per kilogram: trapezoids are exact on a piecewise-linear specific heat.
  double lo = reference.value(), hi = t.value(), sign = 1.0;
  if (hi < lo) {
    std::swap(lo, hi);
    sign = -1.0;
  }
  for (double x : {lo, hi})
    if (auto s = at(TemperaturePoint::from_value(x)); !s) return s.error();
  if (cp_) return from_base<Joules>(sign * cp_->value() * (hi - lo));
  double sum = 0.0, x0 = lo;
  auto cp_at = [&](double x) { return at(TemperaturePoint::from_value(x)).value().specific_heat.value(); };
  for (const auto& r : rows_) {
    const double x1 = std::min(hi, r.temperature.value());
    if (x1 <= x0) continue;
    sum += 0.5 * (cp_at(x0) + cp_at(x1)) * (x1 - x0);
    x0 = x1;
  }
  if (hi > x0) sum += 0.5 * (cp_at(x0) + cp_at(hi)) * (hi - x0);
  return from_base<Joules>(sign * sum);
}

}  // namespace infracalc::cooling
