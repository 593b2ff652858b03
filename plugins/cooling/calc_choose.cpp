// `cooling choose`: places a rack on the cooling-technology ladder by its power.
#include <fmt/format.h>

#include "plugins/cooling/cooling_calculators.hpp"
#include "plugins/cooling/ladder.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

using namespace cooling;

std::string key_of(const std::string& id) {
  std::string k = id.rfind("cooling-", 0) == 0 ? id.substr(8) : id;
  for (auto& ch : k)
    if (ch == '-') ch = '_';
  return k;
}

void run_choose(Context& ctx) {
  const Watts rack = ctx.get<Watts>("rack_power");
  const auto ladder = read_ladder(ctx);
  if (ladder.empty())
    throw UserError{{"the catalog has no cooling technologies (facility entries with type = \"cooling\")",
                     "check --data-dir, or `infracalc data check`"}};
  const auto rec = recommend(ladder, rack);
  Table t{"ladder", "Cooling technologies by rack density", {{"technology"}, {"min", dims::power, "kW"}, {"mainstream_to", dims::power, "kW"},
          {"max", dims::power, "kW"}, {"heat_flux_limit", dims::heat_flux, "W/cm2"}, {"this_rack"}}, {}};
  auto cell = [](const std::optional<Watts>& w) -> Cell {
    if (!w) return std::string("-");
    return to_quantity(*w);
  };
  for (std::size_t i = 0; i < ladder.size(); ++i) {
    const Technology& tech = ladder[i];
    const Placement pl = place(tech, rack);
    std::string where(placement_words(pl));
    if (rec && *rec == i) where = "recommended: " + where;
    t.rows.push_back({tech.id, cell(tech.min), cell(tech.typical), cell(tech.max),
                      tech.flux_limit ? Cell{to_quantity(*tech.flux_limit)} : Cell{std::string("-")}, where});
    if (pl != Placement::no_range)
      ctx.verdict(key_of(tech.id), pl == Placement::mainstream || pl == Placement::stretch, tech.name + ": " + where);
  }
  ctx.add_table(std::move(t));
  if (rec) {
    const Technology& r = ladder[*rec];
    ctx.verdict("recommended_" + key_of(r.id), true, r.name);
    ctx.set_number("recommended_rung", static_cast<double>(*rec + 1));
    ctx.set("headroom", *r.max - rack);
    ctx.note(fmt::format("recommended: {} ({}); the simplest rung whose range reaches {}", r.id, placement_words(place(r, rack)),
                         ctx.quote(rack)));
    if (r.min && rack < *r.min && *rec > 0)
      ctx.note("the rack falls between the ranges of two rungs; the next rung up is chosen");
  } else {
    ctx.verdict("within_catalog", false, "no technology in the catalog reaches this rack power");
    ctx.note("beyond every range in the catalog: split the load across racks or check announced designs");
  }
  if (ctx.has("liquid_capture")) {
    const double share = ctx.number("liquid_capture");
    ctx.set("liquid_heat", share * rack);
    ctx.set("residual_air_heat", (1.0 - share) * rack);
    ctx.note("with cold plates the rest of the rack (memory, drives, power supplies) still rejects heat to air: the "
             "room must handle the residual air heat");
  }
}

}  // namespace

Calculator cooling_choose_calculator() {
  Calculator c;
  c.name = "choose";
  c.summary = "cooling technology for a rack power: the ladder from air to two-phase";
  c.description =
      "Reads every facility entry of type \"cooling\" (air, rear door, direct-to-chip, immersion, two-phase) with its "
      "rack-density range, orders them from the simplest (the lowest rack power each is chosen for) up, and recommends "
      "the lowest rung whose range reaches the rack. Where ranges leave a gap the next rung up is chosen; where they overlap the simpler one is. "
      "The ranges are rules of thumb from the sources in each entry.";
  c.inputs = {
      {.name = "rack_power", .kind = InputKind::quantity, .dim = dims::power, .help = "IT power of the rack", .example = "132kW"},
      {.name = "liquid_capture", .kind = InputKind::quantity, .dim = dims::none,
       .help = "share of the rack's heat the liquid takes (direct-to-chip), for the residual air heat", .example = "80%",
       .bound = Bound::fraction, .optional = true},
  };
  c.outputs = {
      {"recommended_rung", dims::none, "position of the recommended technology on the ladder (1 = air)"},
      {"headroom", dims::power, "highest rack power of the recommended technology minus this rack", "W"},
      {"liquid_heat", dims::power, "heat the liquid removes", "W"},
      {"residual_air_heat", dims::power, "heat left to the room's air", "W"},
  };
  c.run = run_choose;
  c.source = __FILE__;
  c.tables = {
      {"ladder", "cooling technologies by rack density"},
  };
  c.verdicts = {
      {"*", "one per catalog technology (its id without cooling-, dashes as underscores): the rack is within its mainstream or stretch range"},
      {"recommended_*", "the recommended technology: the simplest rung whose range reaches the rack"},
      {"within_catalog", "given, false, only when no technology in the catalog reaches this rack power"},
  };
  return c;
}

}  // namespace infracalc
