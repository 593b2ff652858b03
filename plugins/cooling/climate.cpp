#include "plugins/cooling/climate.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "plugins/cooling/coolant.hpp"
#include "units/bridge.hpp"

namespace infracalc::cooling {

namespace {

// Latent heat of vaporisation of water near 30 degC (IAPWS-95 tables: 2430 kJ/kg at 30 degC).
constexpr double kLatentHeat = 2.43e6;  // J/kg
constexpr double kWaterDensity = 1000.0;  // kg/m3

Expected<std::vector<Seconds>> read_bins(const Entry& e, const Node& month, std::string_view key, std::size_t count) {
  const Node* n = month.find(key);
  const std::string label = e.where(month) + ": month." + std::string(key);
  if (n == nullptr || n->kind != Node::Kind::array || n->items.size() != count)
    return Error{fmt::format("{}: expected {} bins", label, count), "one count of hours per bin, as bins.count says"};
  std::vector<Seconds> out;
  for (const auto& i : n->items) {
    if ((i.kind != Node::Kind::integer && i.kind != Node::Kind::floating) || i.number < 0)
      return Error{label + ": expected hours (numbers, not negative)", ""};
    out.push_back(from_base<Seconds>(3600.0 * i.number));
  }
  return out;
}

}  // namespace

TemperaturePoint Climate::bin_mid(std::size_t i) const { return shifted(start, (static_cast<double>(i) + 0.5) * width); }

Expected<Climate> read_climate(const Entry& e) {
  Climate c;
  c.id = e.id();
  const Node& root = e.root();
  const auto quantity = [&](const Node& table, std::string_view key, const Expectation& want, const std::string& label) -> Expected<Quantity> {
    const Node* n = table.find(key);
    if (n == nullptr) return Error{label + " is missing", "see docs/data.md, climate files"};
    return node_quantity(*n, want, label);
  };
  const Node* bins = root.find("bins");
  if (bins == nullptr) return Error{e.file() + ": " + e.id() + " has no [bins] table", "give bins.start, bins.width and bins.count"};
  auto start = quantity(*bins, "start", expectation_of<TemperaturePoint>(), e.where(*bins) + ": bins.start");
  auto width = quantity(*bins, "width", expectation_of<Kelvin>(), e.where(*bins) + ": bins.width");
  const Node* count = bins->find("count");
  if (!start) return start.error();
  if (!width) return width.error();
  if (count == nullptr || count->kind != Node::Kind::integer || count->integer < 1 || count->integer > 1000)
    return Error{e.where(*bins) + ": bins.count: expected a whole number from 1 to 1000", ""};
  c.start = as<TemperaturePoint>(*start, "bins.start");
  c.width = as<Kelvin>(*width, "bins.width");
  const auto n = static_cast<std::size_t>(count->integer);
  const Node* months = root.find("month");
  if (months == nullptr || months->kind != Node::Kind::array || months->items.size() != 12)
    return Error{e.file() + ": " + e.id() + ": expected twelve [[month]] tables", "one per month, in order"};
  for (std::size_t i = 0; i < 12; ++i) {
    const Node& m = months->items[i];
    const std::string where = e.where(m) + ": month[" + std::to_string(i) + "]";
    ClimateMonth cm;
    cm.month = static_cast<int>(i) + 1;
    auto hours = quantity(m, "hours", expectation_of<Number>(), where + ".hours");
    auto db = quantity(m, "dry_bulb_mean", expectation_of<TemperaturePoint>(), where + ".dry_bulb_mean");
    auto wb = quantity(m, "wet_bulb_mean", expectation_of<TemperaturePoint>(), where + ".wet_bulb_mean");
    for (const auto* x : {&hours, &db, &wb})
      if (!*x) return x->error();
    cm.hours = from_base<Seconds>(3600.0 * hours->value);
    cm.dry_bulb_mean = as<TemperaturePoint>(*db, "dry_bulb_mean");
    cm.wet_bulb_mean = as<TemperaturePoint>(*wb, "wet_bulb_mean");
    auto dry = read_bins(e, m, "dry_bulb_hours", n);
    auto wet = read_bins(e, m, "wet_bulb_hours", n);
    if (!dry) return dry.error();
    if (!wet) return wet.error();
    cm.dry_bulb = std::move(*dry);
    cm.wet_bulb = std::move(*wet);
    for (const auto* h : {&cm.dry_bulb, &cm.wet_bulb}) {
      Seconds sum{};
      for (const auto& x : *h) sum += x;
      if (std::abs(sum.value() - cm.hours.value()) > 1.0)
        return Error{fmt::format("{}: the bins hold {:g} h, the month {:g} h", where, sum.value() / 3600, cm.hours.value() / 3600),
                     "every hour of the month in exactly one bin"};
    }
    c.months.push_back(std::move(cm));
  }
  return c;
}

namespace {

// Chillers rated at AHRI 550/590 conditions with ASHRAE 90.1-2019 table 6.8.1-3 (path A, full load) minimums:
// water-cooled centrifugal 300-600 tons 0.560 kW/ton (COP 6.28) between 29.4 degC condenser water and 6.7 degC
// chilled water; air-cooled 10.1 EER (COP 2.96) between 35 degC air and 6.7 degC chilled water.
struct ChillerRating {
  double cop;
  double lift;
  double condenser_approach;
};
constexpr ChillerRating kWaterCooled{6.28, 29.4 - 6.7, 4.0};
constexpr ChillerRating kAirCooled{2.96, 35.0 - 6.7, 0.0};

Kelvin k(double v) { return from_base<Kelvin>(v); }
Number n(double v) { return Number::from_value(v); }

}  // namespace

Plant default_plant(std::string_view cooling, bool water, TemperaturePoint supply) {
  const bool air = cooling == "air";
  Plant p;
  p.supply = supply;
  p.dry_approach = k(air ? 2.0 : 8.0);
  p.wet_approach = k(air ? 3.0 : 7.0);
  p.evaporative = water;
  const ChillerRating& rating = water ? kWaterCooled : kAirCooled;
  p.chiller_cop = n(rating.cop);
  p.rated_lift = k(rating.lift);
  p.condenser_approach = k(rating.condenser_approach);
  // Chilled water about 6 K below the supply air across an air handler's coil; 3 K across a CDU.
  p.coil_approach = k(air ? 6.0 : 3.0);
  p.fans_pumps = n(air ? 0.05 : 0.02);
  p.electrical = n(0.05);
  p.latent_share = n(0.85);
  p.cycles = n(4.0);
  return p;
}

TemperaturePoint default_supply(Context& ctx, std::string_view cooling) {
  if (cooling == "air") return from_celsius(24.0);
  const Entry* dlc = Catalog::instance().find("cooling-direct-liquid");
  const auto t = dlc != nullptr ? ctx.catalog<TemperaturePoint>(*dlc, "supply_temperature") : std::nullopt;
  return t ? *t : from_celsius(30.0);
}

PlantMonth plant_month(const Climate& c, const ClimateMonth& m, const Plant& p) {
  // Integrated economiser: free below supply − approach, a linear hand-over to the chiller across the next
  // approach (the economiser pre-cools and the chiller trims), all chiller above supply.
  const auto chiller_share = [](TemperaturePoint ambient, TemperaturePoint free_below, Kelvin ramp) {
    const double x = difference(ambient, free_below) / ramp;
    return std::clamp(x, 0.0, 1.0);
  };
  const TemperaturePoint dry_free = shifted(p.supply, -p.dry_approach);
  const TemperaturePoint wet_free = shifted(p.supply, -p.wet_approach);
  const std::vector<Seconds>& bins = p.evaporative ? m.wet_bulb : m.dry_bulb;
  const TemperaturePoint free_below = p.evaporative ? wet_free : dry_free;
  const Kelvin ramp = p.evaporative ? p.wet_approach : p.dry_approach;
  PlantMonth r;
  double chiller_power = 0;  // Σ time × share / COP, per unit of IT power
  Seconds dry{};
  for (std::size_t i = 0; i < m.dry_bulb.size(); ++i)
    dry += m.dry_bulb[i] * (1.0 - chiller_share(c.bin_mid(i), dry_free, p.dry_approach));
  for (std::size_t i = 0; i < bins.size(); ++i) {
    const TemperaturePoint t = c.bin_mid(i);
    const double share = chiller_share(t, free_below, ramp);
    const Kelvin lift =
        std::max(difference(shifted(t, p.condenser_approach), shifted(p.supply, -p.coil_approach)), from_base<Kelvin>(5.0));
    const double cop = p.chiller_cop.value() * (p.rated_lift / lift).value();
    r.mechanical += bins[i] * share;
    chiller_power += bins[i].value() * share / std::min(cop, 3.0 * p.chiller_cop.value());
  }
  const Seconds free = m.hours - r.mechanical;
  // The coolest hours are dry ones: of the economiser time, what the dry-bulb allows needs no water.
  r.dry = p.evaporative ? std::min(dry, free) : free;
  r.evaporative = free - r.dry;
  const double hours = m.hours.value();
  r.pue = Number::from_value(1.0 + p.electrical.value() + p.fans_pumps.value() + chiller_power / hours);
  if (p.evaporative) {
    // A tower rejects the heat of evaporative hours and of water-cooled chiller hours (IT heat plus the
    // compressor's work); only its latent share evaporates; blow-down adds 1 / (C − 1) of that.
    const double heat = (r.evaporative.value() + r.mechanical.value()) / hours + chiller_power / hours;
    const double evaporated = heat * p.latent_share.value() / kLatentHeat;  // kg per J of IT
    const double makeup = evaporated * p.cycles.value() / (p.cycles.value() - 1.0);
    r.wue = from_base<CubicMetersPerJoule>(makeup / kWaterDensity);
  }
  return r;
}

PlantMonth plant_year(const Climate& c, const Plant& p) {
  PlantMonth y;
  Seconds total{};
  double pue = 0, wue = 0;
  for (const auto& m : c.months) {
    const PlantMonth r = plant_month(c, m, p);
    y.dry += r.dry;
    y.evaporative += r.evaporative;
    y.mechanical += r.mechanical;
    pue += r.pue.value() * m.hours.value();
    wue += r.wue.value() * m.hours.value();
    total += m.hours;
  }
  y.pue = Number::from_value(pue / total.value());
  y.wue = from_base<CubicMetersPerJoule>(wue / total.value());
  return y;
}

}  // namespace infracalc::cooling
