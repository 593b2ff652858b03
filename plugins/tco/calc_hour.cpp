// `tco hour`: what one sold accelerator-hour costs its owner.
#include <algorithm>
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "host/context.hpp"
#include "host/words.hpp"
#include "plugins/tco/tco_calculators.hpp"
#include "plugins/tco/tco_inputs.hpp"
#include "plugins/tco/tco_math.hpp"
#include "units/format.hpp"

namespace infracalc::tco {

namespace {

struct HourParams {
  Usd capex, residual;
  Seconds life;
  Watts power;
  double pue = 1, idle = 0;
  UsdPerJoule tariff;
  UsdPerHour maintenance;
  bool flat_financing = false;
  UsdPerHour financing;  // when flat
  double rate = 0;       // when computed
};

HourLines lines_at(const HourParams& p, double share) {
  HourLines l;
  l.equipment = equipment_per_sold_hour(p.capex, p.residual, p.life, share);
  l.electricity = electricity_per_sold_hour(p.power, p.pue, p.tariff, share, p.idle);
  l.maintenance = maintenance_per_sold_hour(p.maintenance, share);
  l.financing = p.flat_financing ? p.financing : financing_per_sold_hour(p.capex, p.residual, p.rate, p.life, share);
  return l;
}

std::string money(const Context& ctx, const UsdPerHour& v) { return ctx.quote(v, "$/h"); }

// The power of a working accelerator and what an unsold one draws: flags win, then the system's rating and idle
// draw, then the accelerator's idle draw against its TDP. Returns the entry the idle share came from ("" for none).
std::string fill_power(Context& ctx) {
  const Entry* system = ctx.ref("system");
  if (!ctx.has("power_per_gpu") && system != nullptr) {
    const auto power = ctx.catalog<Watts>(*system, "power");
    const auto n = system->field_ref("accelerators") != nullptr ? ctx.catalog_quantity(*system, "accelerators", {dims::none, false})
                                                                : std::nullopt;
    if (power && n && n->value >= 1) {
      const Watts per = *power / n->value;
      record_input(ctx, "power_per_gpu", to_quantity(per), Origin::derived, ctx.quote(per), system->id());
      ctx.note(fmt::format("power per accelerator = {} system power {} / {} accelerators = {}", system->id(), ctx.quote(*power),
                           ctx.quote_count(n->value), ctx.quote(per)));
    }
  }
  if (!ctx.has("power_per_gpu")) missing(ctx, "power_per_gpu", "power of one working accelerator with its share of the server", "1.2kW", "system");
  std::string idle_from;
  if (!ctx.has("idle_power_share")) {
    std::optional<double> idle;
    for (const char* ref : {"system", "gpu"}) {
      const Entry* e = ctx.ref(ref);
      if (idle || e == nullptr) continue;
      idle = idle_share_of(ctx, *e);
      if (idle) idle_from = e->id();
    }
    record_input(ctx, "idle_power_share", Quantity::number(idle.value_or(0.0)), idle ? Origin::catalog : Origin::default_value,
                 format_machine(idle.value_or(0.0)), idle_from);
  }
  return idle_from;
}

// The figures of one accelerator-hour, checked: the residual below the capex, PUE at least 1, one way of financing.
HourParams read_params(Context& ctx) {
  HourParams p;
  p.capex = ctx.get<Usd>("capex_per_gpu");
  p.residual = ctx.get<Usd>("residual_value");
  if (p.residual >= p.capex)
    throw UserError{{"--residual-value must be below --capex-per-gpu", "the resale value is part of what was paid"}};
  p.life = ctx.get<Seconds>("life");
  p.power = ctx.get<Watts>("power_per_gpu");
  p.pue = ctx.number("pue");
  if (p.pue < 1.0) throw UserError{{fmt::format("--pue must be at least 1, got {}", p.pue), "PUE = facility energy / IT energy"}};
  p.idle = ctx.number("idle_power_share");
  p.tariff = ctx.get<UsdPerJoule>("tariff");
  p.maintenance = ctx.get<UsdPerHour>("maintenance");
  if (ctx.has("financing") && ctx.has("cost_of_capital"))
    throw UserError{{"give --financing or --cost-of-capital, not both",
                     "--financing is a flat $/h per sold hour; --cost-of-capital computes it from an annuity"}};
  p.flat_financing = ctx.has("financing");
  if (p.flat_financing) p.financing = ctx.get<UsdPerHour>("financing");
  if (ctx.has("cost_of_capital")) p.rate = annual_rate(ctx, "cost_of_capital");

  return p;
}

// The owner cost per sold hour, line by line.
Table lines_table(const HourLines& l) {
  const UsdPerHour total = l.total();
  Table lines{"lines", "Owner cost per sold accelerator-hour", {{"line", {}, ""}, money_rate_column("cost"), {"share", dims::none, ""}}, {}};
  auto add = [&](const char* name, UsdPerHour v) {
    lines.rows.push_back({std::string(name), to_quantity(v), Quantity::number(v / total)});
  };
  add("equipment", l.equipment);
  add("electricity", l.electricity);
  add("maintenance", l.maintenance);
  add("financing", l.financing);
  add("total", total);
  return lines;
}

// The cost per sold hour against the sold share: a fixed ladder of shares, the given one and half of it.
Table sold_share_table(const HourParams& p, double share) {
  std::vector<double> shares = {1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.35, 0.25, share, share / 2.0};
  std::sort(shares.begin(), shares.end(), std::greater<>());
  shares.erase(std::unique(shares.begin(), shares.end(), [](double a, double b) { return std::fabs(a - b) < 1e-12; }),
               shares.end());
  Table sweep{"sold_share", "Cost per sold hour against the sold share",
              {{"sold_share", dims::none, ""}, money_rate_column("equipment"), money_rate_column("electricity"),
               money_rate_column("maintenance"), money_rate_column("financing"), money_rate_column("owner_cost")},
              {}};
  for (double s : shares) {
    const HourLines x = lines_at(p, s);
    sweep.rows.push_back({Quantity::number(s), to_quantity(x.equipment), to_quantity(x.electricity),
                          to_quantity(x.maintenance), to_quantity(x.financing), to_quantity(x.total())});
  }
  return sweep;
}

void run_hour(Context& ctx) {
  const PurchaseBasis bought = fill_purchase(ctx, "capex_per_gpu");
  fill_tariff(ctx, "tariff");
  if (!ctx.has("capex_per_gpu")) missing(ctx, "capex_per_gpu", "equipment cost per accelerator", "$40000", "purchase");
  if (!ctx.has("tariff")) missing(ctx, "tariff", "electricity price", "$0.08/kWh", "grid");

  const std::string idle_from = fill_power(ctx);
  const HourParams p = read_params(ctx);
  const double share = ctx.number("sold_share");
  const HourLines l = lines_at(p, share);
  const HourLines half = lines_at(p, share / 2.0);
  const UsdPerHour total = l.total();
  ctx.set("equipment", l.equipment);
  ctx.set("electricity", l.electricity);
  ctx.set("maintenance", l.maintenance);
  ctx.set("financing", l.financing);
  ctx.set("owner_cost", total);
  ctx.set_number("electricity_share", l.electricity / total);
  ctx.set("energy_per_sold_hour", l.electricity / p.tariff * hour());
  ctx.set("sold_time", p.life * share);
  ctx.set("equipment_at_half_share", half.equipment);
  ctx.set("owner_cost_at_half_share", half.total());
  if (ctx.has("cost_of_capital")) ctx.set("capital_recovery", capital_recovery(p.capex, p.residual, p.rate, p.life));

  const bool minor = l.electricity < l.equipment && l.electricity < l.financing;
  ctx.verdict("electricity_minor", minor,
              minor ? "electricity is smaller than both the equipment and the financing line"
                    : "electricity is not the smallest capital-vs-energy line here");

  ctx.add_table(lines_table(l));

  ctx.add_table(sold_share_table(p, share));

  ctx.note(fmt::format("a year is 365.25 d = 8,766 h (the unit parser's yr): the life of {} is {}, of which {} "
                       "are sold; write --life 1460d for four 365-day years",
                       ctx.quote(p.life, "yr"), ctx.quote(p.life, "h"), ctx.quote(p.life * share, "h")));
  ctx.note(fmt::format("equipment = (capex - residual) / (life x sold share) = {} / {} = {}; halving the sold share to "
                       "{} doubles it to {}",
                       ctx.quote(p.capex - p.residual), ctx.quote(p.life * share, "h"), money(ctx, l.equipment),
                       ctx.quote_percent(share / 2), money(ctx, half.equipment)));
  ctx.note(fmt::format("electricity = {} x PUE {} x {} per sold hour{}", ctx.quote(p.power), ctx.quote_number(p.pue),
                       ctx.quote(p.tariff, "$/kWh"),
                       p.idle > 0 ? fmt::format(", plus the idle draw of unsold hours: {} of it{}", ctx.quote_percent(p.idle),
                                                idle_from.empty() ? std::string(" (--idle-power-share)")
                                                                  : fmt::format(" ({}'s idle_power against its full power)", idle_from))
                                  : " (no idle draw: give --gpu or --system for the catalog's idle power, or --idle-power-share; "
                                    "0 means idle equipment is switched off)"));
  if (p.flat_financing)
    ctx.note("financing is the flat --financing per sold hour and is held fixed when the sold share changes; "
             "give --cost-of-capital to compute it from an annuity instead");
  else if (ctx.has("cost_of_capital"))
    ctx.note(fmt::format("financing from {} {} cost of capital: an annuity of {} per year over {} (annual payments, "
                         "annual compounding) less straight-line depreciation, per sold hour",
                         article(ctx.quote_number(p.rate * 100)), ctx.quote_percent(p.rate),
                         ctx.quote(capital_recovery(p.capex, p.residual, p.rate, p.life) * year()), ctx.quote(p.life, "yr")));
  else
    ctx.note("no --financing or --cost-of-capital: financing is zero (equity at no cost)");
  if (bought == PurchaseBasis::accelerator)
    ctx.note("the purchase-price entry covers the accelerator alone; its share of server, network and installation is not "
             "included (give --capex-per-gpu for the full equipment cost)");
  ctx.note(fmt::format("maintenance = {} per installed hour / sold share {} = {} per sold hour: staff and service run whether "
                       "or not an hour sells, so it grows as fewer hours sell",
                       money(ctx, p.maintenance), ctx.quote_percent(share), money(ctx, l.maintenance)));
  ctx.note("left out: buildings and cooling plant, networking and spares not in the capex, taxes, insurance, failures");
}

}  // namespace

Column money_rate_column(std::string key, std::string hint) { return Column{std::move(key), dims::money_rate, std::move(hint)}; }

Calculator hour_calculator() {
  Calculator c;
  c.name = "hour";
  c.summary = "owner cost per sold accelerator-hour: equipment, electricity, maintenance, financing";
  c.description =
      "equipment = (capex - residual) / (life x sold_share); electricity = power x PUE x tariff (x (1 + idle x (1-s)/s) "
      "with idle draw); maintenance = per installed hour / sold_share; financing per sold hour as given, or from a cost of capital: "
      "(capital recovery - straight-line depreciation) / sold_share, capital recovery = (capex - residual (1+r)^-n) "
      "r / (1 - (1+r)^-n) per year. A year is 365.25 d = 8,766 h.";
  c.refs = {purchase_ref("--capex-per-gpu"), grid_ref(),
            {"gpu", {"accelerator"}, "accelerator: its idle_power against its tdp sets --idle-power-share"},
            {"system", {"system"}, "system: power / accelerators sets --power-per-gpu, idle_power / power sets --idle-power-share"}};
  c.inputs = {
      {.name = "capex_per_gpu", .kind = InputKind::quantity, .dim = dims::currency,
       .help = "equipment and installation cost per accelerator (its share of server, network and install); or --purchase",
       .example = "$40000", .optional = true},
      {.name = "residual_value", .kind = InputKind::quantity, .dim = dims::currency,
       .help = "resale value of that equipment at the end of its life", .default_value = "$0", .bound = Bound::non_negative},
      {.name = "life", .kind = InputKind::quantity, .dim = dims::time, .help = "useful (depreciation) life; 1 yr = 8,766 h",
       .example = "4yr"},
      {.name = "sold_share", .kind = InputKind::quantity, .dim = dims::none,
       .help = "share of the hours in the life that are sold (billed)", .example = "70%", .bound = Bound::fraction},
      {.name = "power_per_gpu", .kind = InputKind::quantity, .dim = dims::power,
       .help = "power of one working accelerator with its share of the server (IT power); or --system", .example = "1.2kW",
       .optional = true},
      {.name = "pue", .kind = InputKind::quantity, .dim = dims::none,
       .help = "facility energy / IT energy (1 counts IT energy only)", .default_value = "1", .example = "1.2"},
      {.name = "idle_power_share", .kind = InputKind::quantity, .dim = dims::none,
       .help = "power drawn in unsold hours as a share of --power-per-gpu (0: switched off); default: the catalog's idle_power "
               "of --system or --gpu, else 0",
       .example = "30%", .bound = Bound::fraction0, .optional = true},
      {.name = "tariff", .kind = InputKind::quantity, .dim = dims::money_per_energy,
       .help = "electricity price delivered; or --grid", .example = "$0.08/kWh", .optional = true},
      {.name = "maintenance", .kind = InputKind::quantity, .dim = dims::money_rate,
       .help = "maintenance and staff per installed accelerator-hour (every hour of the life, sold or not)", .default_value = "$0/h", .example = "$0.30/h",
       .bound = Bound::non_negative},
      {.name = "financing", .kind = InputKind::quantity, .dim = dims::money_rate,
       .help = "financing cost per sold accelerator-hour, given flat", .example = "$0.45/h", .bound = Bound::non_negative,
       .optional = true},
      {.name = "cost_of_capital", .kind = InputKind::quantity, .dim = dims::none,
       .help = "annual cost of capital, at most 100% a year; financing is computed from an annuity over the life", .example = "8%",
       .bound = Bound::non_negative, .optional = true},
  };
  c.outputs = {
      {"equipment", dims::money_rate, "equipment (straight-line depreciation) per sold hour", "$/h"},
      {"electricity", dims::money_rate, "electricity per sold hour", "$/h"},
      {"maintenance", dims::money_rate, "maintenance and staff per sold hour", "$/h"},
      {"financing", dims::money_rate, "financing per sold hour", "$/h"},
      {"owner_cost", dims::money_rate, "total owner cost per sold accelerator-hour", "$/h"},
      {"electricity_share", dims::none, "electricity as a share of the total"},
      {"energy_per_sold_hour", dims::energy, "energy bought per sold hour (idle draw included)", "kWh"},
      {"sold_time", dims::time, "sold accelerator-hours over the life", "h"},
      {"equipment_at_half_share", dims::money_rate,
       "the equipment line if only half of --sold-share were sold (35% for a 70% share): twice the equipment line", "$/h"},
      {"owner_cost_at_half_share", dims::money_rate, "the total if only half of --sold-share were sold (35% for a 70% share)", "$/h"},
      {"capital_recovery", dims::money_rate, "level yearly capital charge (with --cost-of-capital)", "$/yr"},
  };
  c.run = run_hour;
  c.source = __FILE__;
  c.tables = {
      {"lines", "owner cost per sold accelerator-hour, line by line"},
      {"sold_share", "cost per sold hour against the sold share"},
  };
  c.verdicts = {
      {"electricity_minor", "electricity is smaller than both the equipment and the financing line"},
  };
  return c;
}

}  // namespace infracalc::tco
