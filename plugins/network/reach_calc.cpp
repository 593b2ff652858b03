// `network reach`: how far copper goes at a lane rate (IEEE 802.3 CR objectives, retimed AEC) and whether a given
// distance needs optics.
#include <array>
#include <fmt/format.h>

#include "plugins/network/network_calcs.hpp"
#include "plugins/network/network_common.hpp"
#include "units/format.hpp"

namespace infracalc::net {

namespace {

// Lane classes by nominal data rate and their reach fields; a class covers signalling rates up to 13% above
// its nominal rate (FEC overhead: 106.25G and 112G SerDes carry 100G lanes, 212.5G and 224G carry 200G).
constexpr std::array<std::pair<double, std::string_view>, 4> kClasses = {
    {{25e9, "reach_25g"}, {50e9, "reach_50g"}, {100e9, "reach_100g"}, {200e9, "reach_200g"}}};
constexpr double kOverhead = 1.13;

void run_reach(Context& ctx) {
  std::vector<std::string> notes;
  BytesPerSecond lane{};
  if (ctx.has("lane_rate")) {
    lane = ctx.get<BytesPerSecond>("lane_rate");
  } else if (ctx.has("link")) {
    lane = link_from_text(ctx, ctx.text("link"), "--link", notes).signaling_rate;
  } else {
    throw UserError{{"network reach: no lane rate", "give --lane-rate 224Gb/s or --link ethernet-1.6t"}};
  }
  const double bits = lane.value() * 8.0;
  const Entry& cable = find_entry("dac-copper", {"network"}, "catalog");
  std::string_view field;
  double nominal = 0;
  for (const auto& [rate, name] : kClasses)
    if (bits <= rate * kOverhead) {
      field = name;
      nominal = rate;
      break;
    }
  ctx.set("lane_rate", lane);
  Maybe<Meters> passive;
  Maybe<Meters> active;
  if (!field.empty()) {
    ctx.set("lane_class", from_base<BytesPerSecond>(nominal / 8.0));
    if (auto r = ctx.catalog<Meters>(cable, field)) passive.set(*r);
    if (auto r = ctx.catalog<Meters>(cable, "aec_reach")) active.set(*r);
  } else {
    notes.push_back("no copper reach is standardised above 200 Gb/s per lane: plan optics");
  }
  if (passive) ctx.set("passive_copper_reach", *passive);
  if (active) ctx.set("aec_reach", *active);
  if (ctx.has("distance")) {
    const Meters d = ctx.get<Meters>("distance");
    const bool dac = passive && d <= *passive;
    const bool aec = active && d <= *active;
    ctx.verdict("passive_copper", dac, dac ? "a passive copper cable (DAC) reaches" : "beyond passive copper reach");
    ctx.verdict("active_copper", aec, aec ? "a retimed active electrical cable (AEC) reaches" : "beyond active copper reach");
    ctx.verdict("needs_optics", !aec, !aec ? "optical (AOC or transceivers and fibre)" : "copper suffices");
  }
  notes.push_back("reach halves roughly with each doubling of the lane rate: 5 m at 25G, 3 m at 50G, 2 m at 100G, 1 m at 200G "
                  "(IEEE 802.3 CR objectives); cabled backplanes such as NVL72's spine are engineered links, not front-panel DACs");
  for (auto& n : notes) ctx.note(std::move(n));
}

}  // namespace

Calculator make_reach_calculator() {
  Calculator c;
  c.name = "reach";
  c.summary = "copper reach at a lane rate (passive DAC, retimed AEC) and whether a distance needs optics";
  c.description =
      "Passive copper reach by lane class from the IEEE 802.3 CR objectives (25G: 5 m, 50G: 3 m, 100G: 2 m, 200G/224G: 1 m), "
      "active (retimed) copper from vendor figures (about 3-7 m); beyond that, optics. A lane's class is the smallest nominal "
      "rate within 13% of its signalling rate.";
  c.inputs = {
      {.name = "lane_rate", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "lane signalling rate", .example = "224Gb/s",
       .optional = true},
      {.name = "link", .kind = InputKind::text, .help = "link id: its lane signalling rate", .example = "ethernet-1.6t", .optional = true},
      {.name = "distance", .kind = InputKind::quantity, .dim = dims::length, .help = "cable run to check", .example = "2m", .optional = true},
  };
  c.outputs = {
      {"lane_rate", dims::data_rate, "lane signalling rate", "b/s"},
      {"lane_class", dims::data_rate, "nominal lane class the reach figures are for", "b/s"},
      {"passive_copper_reach", dims::length, "passive copper (DAC) reach"},
      {"aec_reach", dims::length, "retimed active electrical cable (AEC) reach"},
  };
  c.run = run_reach;
  return c;
}

}  // namespace infracalc::net
