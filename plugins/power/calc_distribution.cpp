// `power distribution`: supply current at a voltage, the resistive loss and voltage drop of the
// conductors, and what changes when the same power moves at another voltage.
#include <cmath>
#include <fmt/format.h>

#include "host/context.hpp"
#include "plugins/power/conductor.hpp"
#include "plugins/power/power_math.hpp"
#include "plugins/power/power_calculators.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

pwr::Supply supply_of(const std::string& s) {
  if (s == "ac-1ph") return pwr::Supply::ac_single;
  if (s == "ac-3ph") return pwr::Supply::ac_three;
  return pwr::Supply::dc;
}


// Warns when a conductor carries more current per area than building wire of its size is rated for.
void check_ampacity(Context& ctx, const pwr::ConductorMaterial& mat, Amperes per_conductor, SquareMeters area, std::string_view what) {
  const Amperes rated = pwr::building_wire_ampacity(mat, area);
  if (per_conductor <= rated) return;
  // Current density has no named type; it is quoted as a run-time quantity in A/mm2.
  const auto density = [&](Amperes i) { return ctx.quote(Quantity{i.value() / area.value(), dims::current / dims::area, false}, "A/mm2"); };
  ctx.note(fmt::format("implausible: {} carries {} in {} of {} ({}), above the {} ({}) that "
                       "insulated {} building wire of that size is rated for continuously (NEC Table 310.16, 90 degC column, "
                       "30 degC ambient; IEC 60364-5-52 tables give similar figures); the conductor overheats: add cross-section "
                       "or --parallel conductors (a bare bus bar in free air carries more: use its maker's rating)",
                       what, ctx.quote(per_conductor, "A"), ctx.quote(area), mat.name, density(per_conductor), ctx.quote(rated, "A"),
                       density(rated), mat.name));
}

void run_distribution(Context& ctx) {
  const Watts load = ctx.get<Watts>("power");
  const Volts volts = ctx.get<Volts>("voltage");
  const pwr::Supply supply = supply_of(ctx.text("supply"));
  const Number pf = Number::from_value(ctx.number("power_factor"));
  if (supply == pwr::Supply::dc && ctx.origin("power_factor") == Origin::flag && pf.value() != 1.0)
    throw UserError{{"--power-factor applies to AC supplies only", "drop it, or give --supply ac-1ph or ac-3ph"}};
  const int taps = ctx.count("taps");
  const int parallel = ctx.count("parallel");
  const Number loss_k = pwr::distributed_loss_factor(taps);
  const Number drop_k = pwr::distributed_drop_factor(taps);
  const double conductors_loaded = supply == pwr::Supply::ac_three ? 3.0 : 2.0;

  const Amperes current = pwr::supply_current(load, volts, supply, pf);
  ctx.set("current", current);
  if (parallel > 1) ctx.set("current_per_conductor", current / static_cast<double>(parallel));

  // The path resistance: given outright, or built from the cable.
  std::optional<Ohms> path;
  const pwr::ConductorMaterial* mat = pwr::find_conductor_material(ctx.text("material"));
  std::optional<SquareMeters> area;
  if (ctx.has("cross_section") && ctx.has("gauge"))
    throw UserError{{"give --gauge or --cross-section, not both", "--gauge is an AWG size, --cross-section an area such as 95mm2"}};
  if (ctx.has("cross_section")) area = ctx.get<SquareMeters>("cross_section");
  if (ctx.has("gauge")) area = pwr::awg_area(ctx.text("gauge")).value_or_throw();
  const OhmMeters rho = pwr::resistivity_at(*mat, ctx.get<TemperaturePoint>("conductor_temp"));
  if (ctx.has("resistance")) {
    if (ctx.has("length") || area)
      throw UserError{{"give --resistance or a cable (--length with --gauge or --cross-section), not both",
                       "--resistance is the whole current path, out and back"}};
    path = ctx.get<Ohms>("resistance");
  } else if (ctx.has("length") && (area || !ctx.has("loss_budget"))) {
    if (!area) throw UserError{{"--length needs the conductor size: --gauge (AWG) or --cross-section (or --loss-budget to size it)",
                                "e.g. --cross-section 240mm2"}};
    const Ohms one = pwr::conductor_resistance(rho, ctx.get<Meters>("length"), *area) / static_cast<double>(parallel);
    path = pwr::path_resistance(one, supply);
    ctx.set("conductor_resistance", one);
    ctx.note(fmt::format("{} at {}: resistivity {} ({})", mat->name, ctx.quote(ctx.get<TemperaturePoint>("conductor_temp")),
                         ctx.quote(rho), mat->source));
  } else if (area) {
    throw UserError{{"a conductor size needs --length (one-way length of the run)", "e.g. --length 2m"}};
  }

  const Amperes per_conductor = current / static_cast<double>(parallel);
  if (area && path) check_ampacity(ctx, *mat, per_conductor, *area, parallel > 1 ? "each conductor" : "the conductor");

  if (path) {
    ctx.set("path_resistance", *path);
    const Watts loss = pwr::conduction_loss(current, *path, supply, loss_k);
    const Volts drop = pwr::voltage_drop(current, *path, supply, pf, drop_k);
    ctx.set("loss", loss);
    ctx.set_number("loss_share", (loss / load).value());
    ctx.set("voltage_drop", drop);
    ctx.set_number("drop_share", (drop / volts).value());
    ctx.set("source_power", load + loss);
    if (drop / volts > 0.1)
      ctx.note("the drop exceeds 10% of the supply voltage: the constant-current estimate understates the loss (a "
               "constant-power load draws more current as its voltage sags); size up the conductor");
  }
  if (taps > 1)
    ctx.note(fmt::format("{} equal loads spread evenly along the conductor: loss x {}, drop to the far end x {} "
                         "of a single load at the end",
                         taps, ctx.quote_number(loss_k.value()), ctx.quote_number(drop_k.value())));

  if (ctx.has("compare_voltage")) {
    const Volts other = ctx.get<Volts>("compare_voltage");
    const Amperes other_current = pwr::supply_current(load, other, supply, pf);
    ctx.set("compare_current", other_current);
    ctx.set_number("current_ratio", (other_current / current).value());
    ctx.set_number("loss_ratio", pwr::loss_ratio(volts, other).value());
    ctx.set_number("loss_reduction", pwr::loss_ratio(other, volts).value());
    if (path) {
      const Watts other_loss = pwr::conduction_loss(other_current, *path, supply, loss_k);
      ctx.set("compare_loss", other_loss);
      ctx.set_number("compare_loss_share", (other_loss / load).value());
    }
    ctx.note(fmt::format("same power and same conductors: current x {}, I^2R loss x {}; for the same loss the "
                         "copper cross-section scales by the same {}",
                         ctx.quote_number((volts / other).value()), ctx.quote_number(pwr::loss_ratio(volts, other).value()),
                         ctx.quote_number(pwr::loss_ratio(volts, other).value())));
  }

  if (ctx.has("loss_budget")) {
    if (!ctx.has("length"))
      throw UserError{{"--loss-budget needs --length (one-way length of the run) to size the conductor", "e.g. --length 2m"}};
    const Meters len = ctx.get<Meters>("length");
    const Watts budget = ctx.number("loss_budget") * load;
    const SquareMeters need = pwr::area_for_loss(current, rho, len, Number::from_value(conductors_loaded), loss_k, budget);
    ctx.set("required_cross_section", need);
    // The loss sizing gives the combined area of the --parallel conductors.
    check_ampacity(ctx, *mat, per_conductor, need / static_cast<double>(parallel),
                   parallel > 1 ? "each conductor of the loss-budget size" : "the conductor of the loss-budget size");
    ctx.set("conductor_mass", conductors_loaded * need * len * mat->density);
    if (ctx.has("compare_voltage")) {
      const Amperes other_current = pwr::supply_current(load, ctx.get<Volts>("compare_voltage"), supply, pf);
      const SquareMeters other_need =
          pwr::area_for_loss(other_current, rho, len, Number::from_value(conductors_loaded), loss_k, budget);
      ctx.set("compare_cross_section", other_need);
      ctx.set("compare_conductor_mass", conductors_loaded * other_need * len * mat->density);
    }
  }
  if (supply == pwr::Supply::ac_three)
    ctx.note("three-phase: --voltage is line-to-line; current is per line; loss is 3 x I^2 R per phase conductor; "
             "reactance and skin effect are ignored");
  else if (supply == pwr::Supply::ac_single)
    ctx.note("single-phase AC: resistance only (reactance and skin effect ignored)");
}

}  // namespace

Calculator power_distribution_calculator() {
  Calculator c;
  c.name = "distribution";
  c.summary = "supply current, I^2R loss and voltage drop, and the gain from a higher voltage";
  c.description =
      "I = P / V (DC), P / (V PF) (single-phase), P / (sqrt(3) V_LL PF) (three-phase line current). Loss = I^2 R over "
      "the current path (out and back for DC and single-phase; 3 x I^2 R per phase conductor for three-phase); drop = "
      "I R. A cable's resistance is rho(T) L / A with rho(T) = rho20 (1 + alpha (T - 20 degC)) (IEC 60028 copper, "
      "IEC 60889 aluminium) and AWG areas from ASTM B258. At a second voltage the current scales by V1/V2 and the loss "
      "by (V1/V2)^2 for the same conductors. Loads spread evenly along a bus bar (--taps N) lose (N+1)(2N+1)/(6N^2) of "
      "the lumped-load figure. The load is treated as constant current at the nominal voltage.";
  c.inputs = {
      {.name = "power", .kind = InputKind::quantity, .dim = dims::power, .help = "power delivered to the load", .example = "132kW"},
      {.name = "voltage", .kind = InputKind::quantity, .dim = dims::voltage,
       .help = "supply voltage (DC bus, or line-to-line for three-phase): 12V, 48V, 54V, 400V, 800V", .example = "48V"},
      {.name = "supply", .kind = InputKind::choice, .help = "dc, single-phase AC (ac-1ph) or three-phase AC (ac-3ph)",
       .default_value = "dc", .choices = {"dc", "ac-1ph", "ac-3ph"}},
      {.name = "power_factor", .kind = InputKind::quantity, .dim = dims::none, .help = "power factor of an AC load",
       .default_value = "1", .example = "0.95", .bound = Bound::fraction},
      {.name = "resistance", .kind = InputKind::quantity, .dim = dims::resistance,
       .help = "resistance of the whole current path (out and back; one phase conductor for three-phase)", .example = "0.2mohm",
       .optional = true},
      {.name = "length", .kind = InputKind::quantity, .dim = dims::length, .help = "one-way length of the cable or bus bar",
       .example = "2m", .optional = true},
      {.name = "gauge", .kind = InputKind::text, .help = "conductor size in AWG: 12, 2, 1/0, 4/0", .example = "4/0", .optional = true},
      {.name = "cross_section", .kind = InputKind::quantity, .dim = dims::area, .help = "conductor cross-section",
       .example = "240mm2", .optional = true},
      {.name = "parallel", .kind = InputKind::integer, .help = "conductors in parallel per pole or phase", .default_value = "1",
       .example = "4", .most = 1000, .most_why = "no feeder runs more than 1,000 conductors in parallel"},
      {.name = "material", .kind = InputKind::choice, .help = "conductor material", .default_value = "copper",
       .choices = pwr::conductor_material_names()},
      {.name = "conductor_temp", .kind = InputKind::quantity, .dim = dims::temperature,
       .help = "conductor temperature for its resistivity (bus bars run at 60-90 degC)", .default_value = "20 degC",
       .example = "70degC", .point = true},
      {.name = "taps", .kind = InputKind::integer, .help = "equal loads spread evenly along the conductor (trays on a bus bar)",
       .default_value = "1", .example = "18", .most = 1'000'000},
      {.name = "compare_voltage", .kind = InputKind::quantity, .dim = dims::voltage,
       .help = "a second supply voltage for the same power: current and loss ratios", .example = "800V", .optional = true},
      {.name = "loss_budget", .kind = InputKind::quantity, .dim = dims::none,
       .help = "allowed loss as a share of the power: sizes the conductor (needs --length)", .example = "1%",
       .bound = Bound::open_fraction, .optional = true},
  };
  c.outputs = {
      {"current", dims::current, "supply current (line current for three-phase)", "A"},
      {"current_per_conductor", dims::current, "current in each of the parallel conductors", "A"},
      {"conductor_resistance", dims::resistance, "resistance of one conductor run (parallel conductors combined)", "ohm"},
      {"path_resistance", dims::resistance, "resistance of the current path", "ohm"},
      {"loss", dims::power, "resistive (I^2R) loss in the conductors", "W"},
      {"loss_share", dims::none, "loss / power", "%"},
      {"voltage_drop", dims::voltage, "resistive voltage drop to the (far) load", "V"},
      {"drop_share", dims::none, "voltage drop / supply voltage", "%"},
      {"source_power", dims::power, "power the source supplies: load plus loss", "W"},
      {"compare_current", dims::current, "current at --compare-voltage", "A"},
      {"current_ratio", dims::none, "current at --compare-voltage / current at --voltage"},
      {"loss_ratio", dims::none, "loss at --compare-voltage / loss at --voltage, same conductors: (V1/V2)^2"},
      {"loss_reduction", dims::none, "how many times smaller the loss is at --compare-voltage: (V2/V1)^2"},
      {"compare_loss", dims::power, "loss at --compare-voltage in the same conductors", "W"},
      {"compare_loss_share", dims::none, "that loss / power", "%"},
      {"required_cross_section", dims::area, "conductor cross-section that meets --loss-budget at --voltage"},
      {"conductor_mass", dims::mass, "mass of the conductors of that cross-section (all loaded conductors)"},
      {"compare_cross_section", dims::area, "cross-section that meets --loss-budget at --compare-voltage"},
      {"compare_conductor_mass", dims::mass, "conductor mass at --compare-voltage"},
  };
  c.run = run_distribution;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc
