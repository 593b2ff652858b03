// `network link`: what a link carries per lane, per direction and in both directions, in bits and bytes.
#include <fmt/format.h>

#include "host/words.hpp"
#include "plugins/network/network_calculators.hpp"
#include "plugins/network/network_common.hpp"
#include "units/format.hpp"

namespace infracalc::net {

namespace {


// Flags override what the catalog says about the first link; a link without --link is built from flags alone.
LinkSpec first_link(Context& ctx, const std::string& text, std::vector<std::string>& notes) {
  LinkSpec s;
  if (!text.empty()) {
    s = link_from_text(ctx, text, ctx.has("link") ? "--link" : "--compare", notes);
  } else if (!ctx.has("lane_rate") && !ctx.has("transfer_rate")) {
    throw UserError{{"network link: no link given", "give --link ID (e.g. pcie-5-x16, nvlink-5), --compare A B, or --lane-rate 224Gb/s"}};
  }
  const double eff = s.signaling_rate.value() > 0 ? ratio(s.lane_data_rate, s.signaling_rate) : 1.0;
  if (ctx.has("transfer_rate")) {
    s.transfer_rate = ctx.get<PerSecond>("transfer_rate");
    s.signaling_rate = s.transfer_rate * kBit;
    s.lane_data_rate = s.signaling_rate * eff;
  }
  if (ctx.has("lane_rate")) {
    if (ctx.has("transfer_rate"))
      throw UserError{{"--lane-rate and --transfer-rate both set the raw lane rate", "give one of them"}};
    s.signaling_rate = ctx.get<BytesPerSecond>("lane_rate");
    s.transfer_rate = PerSecond{};
    s.lane_data_rate = s.signaling_rate * eff;
  }
  if (ctx.has("modulation")) {
    s.modulation = ctx.text("modulation");
    s.bits_per_symbol = *bits_per_symbol(s.modulation);
  }
  if (ctx.has("encoding") && ctx.has("efficiency"))
    throw UserError{{"--encoding and --efficiency both set the payload share", "give one of them"}};
  if (ctx.has("encoding")) {
    s.encoding = ctx.text("encoding");
    s.lane_data_rate = s.signaling_rate * *encoding_efficiency(s.encoding);
  }
  if (ctx.has("efficiency")) {
    s.encoding = "given";
    s.lane_data_rate = s.signaling_rate * ctx.number("efficiency");
  }
  if (ctx.has("lanes")) {
    s.lanes = static_cast<double>(ctx.integer("lanes"));
    check_lane_width(s, "--lanes", s.id);
  }
  if (ctx.has("links")) s.links = static_cast<double>(ctx.integer("links"));
  if (ctx.has("energy_per_bit")) s.energy_per_bit = ctx.get<JoulesPerByte>("energy_per_bit");
  return s;
}

std::vector<Cell> row(const LinkSpec& s, const LinkRates& r) {
  return {s.id == "custom" ? s.name : s.id,
          Quantity::number(s.lanes),
          Quantity::number(s.links),
          s.modulation,
          to_quantity(r.lane_raw),
          to_quantity(r.lane_data),
          to_quantity(r.symbol_rate),
          to_quantity(r.nyquist),
          to_quantity(r.per_direction),
          to_quantity(r.per_direction),
          to_quantity(r.both_directions)};
}

void run_link(Context& ctx) {
  std::vector<std::string> notes;
  std::string first_text = ctx.has("link") ? ctx.text("link") : std::string();
  std::string second_text;
  if (ctx.has("compare")) {
    const auto words = split_list(ctx.text("compare"), ",\n");
    if (words.empty() || words.size() > 2)
      throw UserError{{"--compare: expected one link id (with --link) or two (A B)", "e.g. --compare pcie-5-x16 nvlink-c2c"}};
    if (words.size() == 2) {
      if (!first_text.empty())
        throw UserError{{"--compare with two links and --link as well: which is first?", "give --compare A B, or --link A --compare B"}};
      first_text = words[0];
      second_text = words[1];
    } else {
      if (first_text.empty() && !ctx.has("lane_rate") && !ctx.has("transfer_rate"))
        throw UserError{{"--compare with one link needs a first one", "give --link A --compare B, or --compare A B"}};
      second_text = words[0];
    }
  }
  const LinkSpec s = first_link(ctx, first_text, notes);
  if (s.signaling_rate.value() <= 0) throw UserError{{"network link: the lane rate is zero", "give --lane-rate"}};
  const LinkRates r = link_rates(s);
  if (s.transfer_rate.value() > 0) ctx.set("transfer_rate", s.transfer_rate);
  ctx.set("lane_signaling_rate", r.lane_raw);
  ctx.set("symbol_rate", r.symbol_rate);
  ctx.set("nyquist", r.nyquist);
  ctx.set_number("encoding_efficiency", r.efficiency);
  ctx.set("lane_data_rate", r.lane_data);
  ctx.set_number("lanes", s.lanes);
  ctx.set_number("links", s.links);
  ctx.set("link_per_direction", r.link_data);
  ctx.set("per_direction", r.per_direction);
  ctx.set("per_direction_bits", r.per_direction);
  ctx.set("raw_per_direction", r.raw_per_direction);
  ctx.set("both_directions", r.both_directions);
  ctx.set("both_directions_bits", r.both_directions);
  ctx.set("raw_both_directions", r.raw_both_directions);
  if (s.energy_per_bit) {
    ctx.set("energy_per_bit", *s.energy_per_bit);
    ctx.set("link_power", link_power(*s.energy_per_bit, r.both_directions));
  }
  if (s.max_devices) ctx.set_number("max_devices", *s.max_devices);

  Table t{"links", "Links compared (per direction unless marked both)",
          {{"link", {}, ""},
           {"lanes", dims::none, ""},
           {"links", dims::none, ""},
           {"modulation", {}, ""},
           {"lane_raw", dims::data_rate, "b/s"},
           {"lane_data", dims::data_rate, "b/s"},
           {"symbol_rate", dims::frequency, "Bd"},
           {"nyquist", dims::frequency, "Hz"},
           {"per_direction", dims::data_rate, "B/s"},
           {"per_direction_bits", dims::data_rate, "b/s"},
           {"both_directions", dims::data_rate, "B/s"}},
          {row(s, r)}};
  if (!second_text.empty()) {
    const LinkSpec o = link_from_text(ctx, second_text, "--compare", notes);
    const LinkRates ro = link_rates(o);
    ctx.set("second_per_direction", ro.per_direction);
    ctx.set("second_both_directions", ro.both_directions);
    ctx.set_number("ratio", ratio(ro.per_direction, r.per_direction));
    ctx.set_number("ratio_raw", ratio(ro.raw_per_direction, r.raw_per_direction));
    t.rows.push_back(row(o, ro));
    ctx.note(fmt::format("ratio = {} / {} = {} per direction after encoding ({} on raw line rates)",
                         o.id, s.id == "custom" ? s.name : s.id, format_number(ratio(ro.per_direction, r.per_direction), 4),
                         format_number(ratio(ro.raw_per_direction, r.raw_per_direction), 4)));
  }
  ctx.add_table(std::move(t));
  ctx.note(fmt::format("{}: {} x {}; lane {} raw ({}, {} bit/symbol) carries {} after {} ({}%)",
                       s.id == "custom" ? s.name : s.id, plural(s.lanes, "lane"), plural(s.links, "link"), ctx.quote(r.lane_raw, "b/s"), s.modulation,
                       s.bits_per_symbol, ctx.quote(r.lane_data, "b/s"), s.encoding,
                       format_number(r.efficiency * 100, 4)));
  ctx.note("per direction = one way; both directions = the two ways added, the 'bidirectional' figure NVIDIA and PCI-SIG "
           "headlines quote; b = bit, B = byte = 8 bits");
  ctx.note("payload figures remove line coding and FEC only; packet, TLP or flit headers cost a further few percent");
  for (auto& n : notes) ctx.note(std::move(n));
}

}  // namespace

Calculator make_link_calculator() {
  Calculator c;
  c.name = "link";
  c.summary = "link rates per lane, per direction and both directions, in bits and bytes, with SerDes figures";
  c.description =
      "lane payload = raw lane rate x encoding efficiency (128b/130b for PCIe 3.0-5.0, 242/256 FLIT for PCIe 6.0+ and "
      "CXL 3+, RS(544,514) for 100G/200G Ethernet lanes); per direction = lane payload x lanes x links; both directions "
      "= 2 x per direction (full duplex). Symbol rate = raw lane rate / bits per symbol (NRZ 1, PAM4 2); Nyquist = symbol "
      "rate / 2. A link id may carry a width: pcie-5-x16 (or pcie5-x16). --compare A B compares two links (ratio = B / "
      "A). Link power = energy per bit x both directions at full rate.";
  c.inputs = {
      {.name = "link", .kind = InputKind::text, .help = "catalog id of the link, optionally with a width: pcie-5-x16, cxl-3, nvlink-5, nvlink-c2c, ualink-1, infiniband-ndr, ethernet-800g",
       .example = "pcie-5-x16", .optional = true},
      {.name = "compare", .kind = InputKind::text, .help = "link to compare with --link, or two links A B (ratio = B / A)",
       .example = "nvlink-c2c", .optional = true},
      {.name = "lanes", .kind = InputKind::integer, .help = "lanes per link, each direction (overrides the reference width)",
       .example = "16", .optional = true},
      {.name = "links", .kind = InputKind::integer, .help = "links counted together (18 NVLinks per Blackwell GPU, 72 ports per NVLink switch chip)",
       .example = "18", .optional = true},
      {.name = "lane_rate", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "raw line rate of one lane in one direction, before line coding (custom link or override)", .example = "224Gb/s",
       .optional = true},
      {.name = "transfer_rate", .kind = InputKind::quantity, .dim = dims::frequency,
       .help = "raw transfers per second per lane (PCIe counts one bit per transfer)", .example = "64GT/s", .optional = true},
      {.name = "modulation", .kind = InputKind::choice, .help = "line signalling (bits per symbol: NRZ 1, PAM4 2, PAM8 3)",
       .example = "pam4", .choices = modulation_names(), .optional = true},
      {.name = "encoding", .kind = InputKind::choice,
       .help = "line code: none, 8b/10b, 64b/66b, 128b/130b, flit (242/256), rs544 (256b/257b + RS(544,514))",
       .example = "128b/130b", .choices = encoding_names(), .optional = true},
      {.name = "efficiency", .kind = InputKind::quantity, .dim = dims::none, .help = "payload share after line coding and FEC",
       .example = "0.9846", .bound = Bound::fraction, .optional = true},
      {.name = "energy_per_bit", .kind = InputKind::quantity, .dim = dims::energy_per_bit,
       .help = "energy per transferred bit; adds link power at full rate both ways", .example = "1.3pJ/bit", .optional = true},
  };
  c.outputs = {
      {"transfer_rate", dims::frequency, "raw transfers per second per lane (PCIe/CXL GT/s)", "T/s"},
      {"lane_signaling_rate", dims::data_rate, "raw line rate of one lane, one direction, shown in Gb/s (bits)", "b/s"},
      {"symbol_rate", dims::frequency, "symbols per second on one lane (baud) = raw rate / bits per symbol", "Bd"},
      {"nyquist", dims::frequency, "Nyquist frequency of one lane = symbol rate / 2", "Hz"},
      {"encoding_efficiency", dims::none, "payload share after line coding and FEC"},
      {"lane_data_rate", dims::data_rate, "payload of one lane, one direction, shown in Gb/s (bits)", "b/s"},
      {"lanes", dims::none, "lanes per link, each direction"},
      {"links", dims::none, "links counted"},
      {"link_per_direction", dims::data_rate, "payload of one link, one direction, shown in GB/s (bytes)", "B/s"},
      {"per_direction", dims::data_rate, "payload of all links, one direction, shown in GB/s (bytes)", "B/s"},
      {"per_direction_bits", dims::data_rate, "the same per-direction payload, shown in bits (Gb/s)", "b/s"},
      {"raw_per_direction", dims::data_rate, "raw line rate of all links, one direction (before line coding), shown in bytes (GB/s)", "B/s"},
      {"both_directions", dims::data_rate, "payload of all links, both directions added, shown in bytes (GB/s)", "B/s"},
      {"both_directions_bits", dims::data_rate, "the same two-way payload, shown in bits (Gb/s)", "b/s"},
      {"raw_both_directions", dims::data_rate, "raw line rate, both directions added (the headline 'x16 = 128 GB/s' figures)", "B/s"},
      {"energy_per_bit", dims::energy_per_bit, "energy per transferred bit"},
      {"link_power", dims::power, "power at full rate in both directions = energy per bit x both directions"},
      {"max_devices", dims::none, "largest domain the standard addresses"},
      {"second_per_direction", dims::data_rate, "payload of the compared link, one direction", "B/s"},
      {"second_both_directions", dims::data_rate, "payload of the compared link, both directions", "B/s"},
      {"ratio", dims::none, "compared link / first link, per direction after encoding"},
      {"ratio_raw", dims::none, "compared link / first link, raw line rates"},
  };
  c.run = run_link;
  c.source = __FILE__;
  c.tables = {
      {"links", "the links compared"},
  };
  return c;
}

}  // namespace infracalc::net
