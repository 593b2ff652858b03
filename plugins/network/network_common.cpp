#include "plugins/network/network_common.hpp"

#include <array>
#include <cctype>
#include <fmt/format.h>

#include "units/format.hpp"

namespace infracalc::net {

namespace {

// Short names people use for links and switches, mapped to catalog ids.
constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kAliases = {{
    {"c2c", "nvlink-c2c"},
    {"ndr", "infiniband-ndr"},
    {"xdr", "infiniband-xdr"},
    {"ualink", "ualink-1"},
    {"400g", "ethernet-400g"},
    {"400gbe", "ethernet-400g"},
    {"800g", "ethernet-800g"},
    {"800gbe", "ethernet-800g"},
    {"1.6t", "ethernet-1.6t"},
    {"1.6tbe", "ethernet-1.6t"},
    {"qm9700", "quantum-2-qm9700"},
    {"sn5600", "spectrum-4-sn5600"},
    {"pluggable", "optics-800g-pluggable"},
    {"lpo", "optics-800g-lpo"},
    {"linear", "optics-800g-lpo"},
    {"cpo", "optics-800g-cpo"},
    {"cpo-davisson", "optics-800g-cpo-davisson"},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "pcie5" → "pcie-5", "tomahawk5" → "tomahawk-5": a hyphen where letters first meet digits.
std::string hyphenate(const std::string& s) {
  for (std::size_t i = 1; i < s.size(); ++i)
    if (std::isdigit(static_cast<unsigned char>(s[i])) != 0 && std::isalpha(static_cast<unsigned char>(s[i - 1])) != 0)
      return s.substr(0, i) + "-" + s.substr(i);
  return s;
}

}  // namespace

WidthRef split_width(std::string_view text) {
  WidthRef r{std::string(text), std::nullopt};
  const auto pos = r.id.rfind("-x");
  if (pos == std::string::npos || pos + 2 >= r.id.size()) return r;
  const std::string digits = r.id.substr(pos + 2);
  for (char c : digits)
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return r;
  r.lanes = digits.size() > 6 ? 1000000 : std::stoi(digits);  // no link has a million lanes: rejected by the caller
  r.id = r.id.substr(0, pos);
  return r;
}

const Entry& find_entry(std::string_view text, const std::vector<std::string_view>& kinds, std::string_view flag) {
  auto& cat = Catalog::instance();
  const std::string base = lower(text);
  std::vector<std::string> tries = {base, hyphenate(base)};
  for (const auto& [alias, id] : kAliases)
    if (base == alias) tries.emplace_back(id);
  for (const auto& t : tries) {
    const Entry* e = cat.find(t);
    if (e == nullptr) continue;
    for (auto k : kinds)
      if (e->kind() == k) return *e;
  }
  return cat.get(text, kinds, flag);  // throws with a did-you-mean
}

std::optional<double> catalog_count(Context& ctx, const Entry& e, std::string_view path) {
  auto q = ctx.catalog<Number>(e, path);
  if (!q) return std::nullopt;
  return q->value();
}

LinkSpec read_link(Context& ctx, const Entry& e, std::optional<int> lanes, std::vector<std::string>& notes) {
  LinkSpec s;
  s.id = e.id();
  s.name = e.name();
  s.type = e.text("type").value_or("");
  const auto transfer = ctx.catalog<PerSecond>(e, "transfer_rate");
  const auto signaling = ctx.catalog<BytesPerSecond>(e, "signaling_rate");
  const auto lane_rate = ctx.catalog<BytesPerSecond>(e, "lane_rate");
  if (auto m = ctx.catalog_text(e, "signaling")) {
    if (auto b = bits_per_symbol(*m)) {
      s.modulation = *m;
      s.bits_per_symbol = *b;
    }
  }
  // The line code: a named code gives its exact share (128/130, 242/256, ...); otherwise the catalog's figure.
  std::optional<double> eff;
  if (auto enc = ctx.catalog_text(e, "encoding")) {
    const std::string_view code = encoding_in(*enc);
    if (!code.empty()) {
      s.encoding = std::string(code);
      eff = encoding_efficiency(code);
    } else {
      s.encoding = *enc;
    }
  }
  if (!eff) {
    if (auto given = catalog_count(ctx, e, "encoding_efficiency")) {
      eff = *given;
      s.encoding = s.encoding == "none" ? "catalog efficiency" : s.encoding;
    }
  }
  if (transfer) s.transfer_rate = *transfer;
  // PCI-SIG counts one bit per lane per transfer in every generation: 64 GT/s PAM4 is 64 Gb/s at 32 GBd.
  if (signaling) s.signaling_rate = *signaling;
  else if (transfer) s.signaling_rate = *transfer * kBit;
  else if (lane_rate) s.signaling_rate = *lane_rate / eff.value_or(1.0);
  if (lane_rate) s.lane_data_rate = *lane_rate;
  else if (s.signaling_rate.value() > 0) s.lane_data_rate = s.signaling_rate * eff.value_or(1.0);
  s.lanes = catalog_count(ctx, e, "lanes").value_or(1.0);
  s.links = catalog_count(ctx, e, "links").value_or(1.0);
  if (s.signaling_rate.value() <= 0) {
    const auto per_direction = ctx.catalog<BytesPerSecond>(e, "bandwidth_per_direction");
    if (!per_direction)
      throw UserError{{fmt::format("{}: {} has no lane rate, transfer rate or bandwidth_per_direction", e.file(), e.id()),
                       "give --lane-rate and --lanes instead"}};
    // Quoted only as a whole: treat the device's interface as one lane.
    s.signaling_rate = *per_direction;
    s.lane_data_rate = *per_direction;
    s.lanes = 1;
    s.links = 1;
    notes.push_back(e.id() + " is known only by its total rate per direction; lanes and SerDes figures describe that total");
  }
  if (!signaling && !transfer && lane_rate && !eff)
    notes.push_back(e.id() + ": the catalog gives the lane data rate and no line code, so the data rate is also used as the "
                             "signalling rate");
  if (lanes) s.lanes = *lanes;
  if (auto epb = ctx.catalog<JoulesPerByte>(e, "energy_per_bit")) s.energy_per_bit = *epb;
  s.max_devices = catalog_count(ctx, e, "max_devices");
  return s;
}

void check_lane_width(const LinkSpec& s, std::string_view flag, std::string_view text) {
  if (s.type != "pcie" && s.type != "cxl") return;
  const double l = s.lanes;
  if (l == 1 || l == 2 || l == 4 || l == 8 || l == 16) return;
  const std::string kind = s.type == "pcie" ? "PCIe" : "CXL";
  throw UserError{{fmt::format("{}: {} link {} is x{}, but a {} link is x1, x2, x4, x8 or x16", flag, kind, text, format_number(l, 6), kind),
                   fmt::format("e.g. {}-x16", s.id)}};
}

LinkSpec link_from_text(Context& ctx, std::string_view text, std::string_view flag, std::vector<std::string>& notes) {
  const WidthRef w = split_width(text);
  const Entry& e = find_entry(w.id, {"interconnect"}, flag);
  if (w.lanes && *w.lanes <= 0)
    throw UserError{{fmt::format("{}: width x{} in \"{}\" is not a positive lane count", flag, *w.lanes, text), "e.g. pcie-5-x16"}};
  if (w.lanes && *w.lanes > 1024)
    throw UserError{{fmt::format("{}: the width in \"{}\" is more lanes than any link has", flag, text), "e.g. pcie-5-x16"}};
  LinkSpec s = read_link(ctx, e, w.lanes, notes);
  check_lane_width(s, flag, text);
  return s;
}

std::optional<Watts> switch_power_of(Context& ctx, const Entry& e, std::vector<std::string>& notes) {
  // Fabrics count whole switches: the box without optics (system_power), never the ASIC alone (chip_power).
  const auto chip = ctx.catalog<Watts>(e, "chip_power");
  const auto p = ctx.catalog<Watts>(e, "system_power");
  if (!p) {
    if (chip)
      notes.push_back(fmt::format("{} power: the catalog gives only the ASIC's power ({}, chip_power), not the switch's; a "
                                  "switch adds CPU, fans and supply losses, so switch power is left out: give --switch-power",
                                  e.id(), ctx.quote(*chip)));
    return std::nullopt;
  }
  std::string used = fmt::format("{} power: the switch system's {} (system_power, without optics)", e.id(), ctx.quote(*p));
  if (chip) used += fmt::format(", not the ASIC's {} (chip_power)", ctx.quote(*chip));
  // The catalog's note says whether the figure is typical or maximum and where it comes from.
  if (auto f = e.field("system_power"); f && !f->provenance.note.empty()) used += "; " + f->provenance.note;
  notes.push_back(std::move(used));
  return p;
}

OpticsSpec read_optics(Context& ctx, const Entry& e) {
  OpticsSpec o;
  o.id = e.id();
  if (const auto type = e.text("type"); type && *type != "optics")
    throw UserError{{e.id() + " is a " + *type + ", not optics", "use pluggable, lpo, cpo, cpo-davisson or another optics id"}};
  const auto p = ctx.catalog<Watts>(e, "power_per_port");
  const auto r = ctx.catalog<BytesPerSecond>(e, "port_speed");
  if (!p || !r)
    throw UserError{{e.file() + ": optics entry " + e.id() + " needs power_per_port and port_speed", "or give the energy per bit directly"}};
  o.power_per_port = *p;
  o.port_speed = *r;
  o.energy_per_bit = *p / *r;
  return o;
}

}  // namespace infracalc::net
