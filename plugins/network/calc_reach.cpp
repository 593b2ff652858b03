// `network reach`: how far copper goes at a lane rate (IEEE 802.3 CR objectives, retimed AEC) and whether a given
// distance needs optics.
#include <fmt/format.h>

#include "plugins/network/network_calculators.hpp"
#include "plugins/network/network_common.hpp"
#include "units/format.hpp"

namespace infracalc::net {

namespace {

// A lane belongs to the smallest cable class whose nominal rate is within 13% of its signalling rate (FEC
// overhead: 106.25G and 112G SerDes carry 100G lanes, 212.5G and 224G carry 200G).
constexpr double kOverhead = 1.13;

struct CableClass {
  const Entry* entry = nullptr;
  BytesPerSecond rate{};
};

// The catalog's cables (type = cable) of one kind ("passive" or "active" in form_factor), smallest class that
// carries `lane`.
CableClass pick(Context& ctx, std::string_view kind, BytesPerSecond lane) {
  CableClass best;
  for (const Entry* e : Catalog::instance().all("network")) {
    if (e->text("type").value_or("") != "cable") continue;
    if (e->text("form_factor").value_or("").find(kind) == std::string::npos) continue;
    auto q = e->quantity("serdes_rate", Expectation{dims::data_rate, false});
    if (!q) continue;
    const auto rate = from_base<BytesPerSecond>(q->value);
    if (lane.value() > rate.value() * kOverhead) continue;
    if (best.entry == nullptr || rate < best.rate) best = {e, rate};
  }
  if (best.entry != nullptr) (void)ctx.catalog<BytesPerSecond>(*best.entry, "serdes_rate");
  return best;
}

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
  ctx.set("lane_rate", lane);
  Maybe<Meters> passive;
  Maybe<Meters> active;
  const CableClass dac = pick(ctx, "passive", lane);
  if (dac.entry != nullptr) {
    ctx.set("lane_class", dac.rate);
    if (auto r = ctx.catalog<Meters>(*dac.entry, "reach")) passive.set(*r);
  } else {
    notes.push_back("no passive copper class in the catalog carries this lane rate: plan optics or active cables");
  }
  const CableClass aec = pick(ctx, "active", lane);
  if (aec.entry != nullptr)
    if (auto r = ctx.catalog<Meters>(*aec.entry, "reach")) active.set(*r);
  if (passive) ctx.set("passive_copper_reach", *passive);
  if (active) ctx.set("aec_reach", *active);
  if (ctx.has("distance")) {
    const Meters d = ctx.get<Meters>("distance");
    const bool by_dac = passive && d <= *passive;
    const bool by_aec = active && d <= *active;
    ctx.verdict("passive_copper", by_dac, by_dac ? "a passive copper cable (DAC) reaches" : "beyond passive copper reach");
    ctx.verdict("active_copper", by_aec || by_dac,
                by_aec || by_dac ? "a retimed active electrical cable (AEC) reaches" : "beyond active copper reach");
    ctx.verdict("needs_optics", !by_aec && !by_dac, !by_aec && !by_dac ? "optical (AOC, or transceivers and fibre)" : "copper suffices");
  }
  notes.push_back("passive reach roughly halves as the lane rate doubles: 5 m at 25G, 3 m at 50G, 2 m at 100G, 1 m at 200G "
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
  c.source = __FILE__;
  c.verdicts = {
      {"active_copper", "an active electrical cable reaches"},
      {"needs_optics", "the distance needs optics"},
      {"passive_copper", "passive copper reaches"},
  };
  return c;
}

}  // namespace infracalc::net
