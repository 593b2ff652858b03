#include "plugins/cooling/coolant_input.hpp"

namespace infracalc::cooling {

std::string coolant_id(std::string_view choice) { return "coolant-" + std::string(choice); }

Coolant coolant_from(Context& ctx) {
  const std::string id = coolant_id(ctx.text("coolant"));
  const Entry& e = Catalog::instance().get(id, {"facility"}, "--coolant");
  Coolant c = Coolant::from_entry(e).value_or_throw();
  if (auto f = e.field("properties")) ctx.cite(f->provenance);
  if (ctx.has("density")) c.override_density(ctx.get<KilogramsPerCubicMeter>("density"));
  if (ctx.has("cp")) c.override_specific_heat(ctx.get<JoulesPerKilogramKelvin>("cp"));
  if (ctx.has("viscosity")) c.override_viscosity(ctx.get<PascalSeconds>("viscosity"));
  return c;
}

std::vector<Input> coolant_inputs() {
  return {
      {.name = "coolant", .kind = InputKind::choice, .help = "coolant: water or pg25 (25% propylene glycol by volume)",
       .default_value = "water", .choices = {"water", "pg25"}},
      {.name = "density", .kind = InputKind::quantity, .dim = dims::density, .help = "override the coolant's density",
       .example = "1020kg/m3", .optional = true},
      {.name = "cp", .kind = InputKind::quantity, .dim = dims::specific_heat, .help = "override the coolant's specific heat",
       .example = "3.9kJ/(kg*K)", .optional = true},
      {.name = "viscosity", .kind = InputKind::quantity, .dim = dims::dynamic_viscosity, .help = "override the coolant's viscosity",
       .example = "2.5mPa*s", .optional = true},
  };
}

}  // namespace infracalc::cooling
