#include "plugins/network/network_math.hpp"

#include <array>
#include <utility>

namespace infracalc::net {

namespace {

// PAM-M carries log2(M) bits per symbol (PAM4: 2, PAM8: 3).
constexpr std::array<std::pair<std::string_view, double>, 3> kModulations = {{{"nrz", 1.0}, {"pam4", 2.0}, {"pam8", 3.0}}};

// Line codes: PCIe 1.x/2.x 8b/10b, Ethernet 10G-class 64b/66b, PCIe 3.0-5.0 128b/130b (PCI Express Base
// Specification 3.0, 4.2.2), PCIe 6.0+ FLIT mode where 242 of every 256 bytes are TLP and DLP bytes (PCIe 6.0,
// 4.2.3.4), and 100G/200G-per-lane Ethernet: 256b/257b transcoding with RS(544,514) FEC (IEEE 802.3 clause 91/119),
// which makes a 106.25 Gb/s lane carry 100 Gb/s.
constexpr std::array<std::pair<std::string_view, double>, 6> kEncodings = {{{"none", 1.0},
                                                                            {"8b/10b", 8.0 / 10.0},
                                                                            {"64b/66b", 64.0 / 66.0},
                                                                            {"128b/130b", 128.0 / 130.0},
                                                                            {"flit", 242.0 / 256.0},
                                                                            {"rs544", (256.0 / 257.0) * (514.0 / 544.0)}}};

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

}  // namespace

std::optional<double> bits_per_symbol(std::string_view modulation) {
  const std::string m = lower_ascii(modulation);
  for (const auto& [name, bits] : kModulations)
    if (m == name) return bits;
  return std::nullopt;
}

std::vector<std::string_view> modulation_names() {
  std::vector<std::string_view> out;
  for (const auto& m : kModulations) out.push_back(m.first);
  return out;
}

PerSecond symbol_rate(BytesPerSecond line_rate, double bits) { return line_rate / kBit / bits; }

PerSecond nyquist(PerSecond symbols) { return symbols / 2.0; }

std::optional<double> encoding_efficiency(std::string_view encoding) {
  const std::string e = lower_ascii(encoding);
  for (const auto& [name, eff] : kEncodings)
    if (e == name) return eff;
  return std::nullopt;
}

std::string_view encoding_in(std::string_view description) {
  const std::string d = lower_ascii(description);
  // Most specific first: a CXL 2.0 description names both 128b/130b and its 68-byte flits.
  if (d.find("128b/130b") != std::string::npos) return "128b/130b";
  if (d.find("rs(544") != std::string::npos || d.find("256b/257b") != std::string::npos) return "rs544";
  if (d.find("64b/66b") != std::string::npos) return "64b/66b";
  if (d.find("8b/10b") != std::string::npos) return "8b/10b";
  if (d.find("flit") != std::string::npos) return "flit";
  return {};
}

std::vector<std::string_view> encoding_names() {
  std::vector<std::string_view> out;
  for (const auto& e : kEncodings) out.push_back(e.first);
  return out;
}

LinkRates link_rates(const LinkSpec& s) {
  LinkRates r;
  r.lane_raw = s.signaling_rate;
  r.lane_data = s.lane_data_rate;
  r.efficiency = (s.lane_data_rate / s.signaling_rate).value();
  r.symbol_rate = symbol_rate(s.signaling_rate, s.bits_per_symbol);
  r.nyquist = nyquist(r.symbol_rate);
  r.link_data = s.lane_data_rate * s.lanes;
  r.per_direction = r.link_data * s.links;
  r.raw_per_direction = s.signaling_rate * s.lanes * s.links;
  // Full duplex: each direction has its own lanes, so both directions together carry twice one direction.
  r.both_directions = r.per_direction * 2.0;
  r.raw_both_directions = r.raw_per_direction * 2.0;
  return r;
}

Watts link_power(JoulesPerByte energy_per_bit, BytesPerSecond both_directions) { return energy_per_bit * both_directions; }

}  // namespace infracalc::net
