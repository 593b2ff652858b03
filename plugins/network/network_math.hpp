// Link arithmetic: lanes, encodings, directions, SerDes symbol rate and Nyquist frequency.
// The plugin's other math is in files named for their model: allreduce, energy_math, fabric_math, fabric_graph,
// topology_math, topology_graph and maxflow.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "units/system.hpp"

namespace infracalc::net {

/// One bit, as a typed amount of data (the information base unit is the byte).
inline const Bytes kBit = from_base<Bytes>(0.125);

/// Bits carried per symbol by a modulation: NRZ 1, PAM4 2, PAM8 3; nullopt for an unknown name.
[[nodiscard]] std::optional<double> bits_per_symbol(std::string_view modulation);

/// Names accepted by bits_per_symbol, lower case.
[[nodiscard]] std::vector<std::string_view> modulation_names();

/// Symbol (baud) rate of a lane: line bit rate / bits per symbol.
[[nodiscard]] PerSecond symbol_rate(BytesPerSecond line_rate, double bits_per_symbol);

/// Nyquist frequency of a lane: half its symbol rate (the fundamental of alternating symbols).
[[nodiscard]] PerSecond nyquist(PerSecond symbol_rate);

/// Payload share of a named line code: "128b/130b" → 128/130; nullopt when the name is unknown.
[[nodiscard]] std::optional<double> encoding_efficiency(std::string_view encoding);

/// The line code named somewhere in a catalog description ("128b/130b (PCIe 5.0 PHY), 68-byte flits" → 128b/130b,
/// "1b/1b with 256-byte FLITs" → flit, "256b/257b transcoding with RS(544,514) FEC" → rs544); empty when none is.
[[nodiscard]] std::string_view encoding_in(std::string_view description);

/// Names accepted by encoding_efficiency.
[[nodiscard]] std::vector<std::string_view> encoding_names();

/// A link as the calculators see it: one direction of one lane, then lanes per link and links counted.
struct LinkSpec {
  /// Catalog id, or "custom" when built from flags.
  std::string id = "custom";
  /// Human name.
  std::string name = "custom link";
  /// Interconnect type from the catalog (pcie, cxl, nvlink, ...); empty when built from flags.
  std::string type;
  /// Raw transfers per second per lane (GT/s); zero when the link is quoted in bits.
  PerSecond transfer_rate{};
  /// Raw line rate of one lane in one direction, before line coding and FEC.
  BytesPerSecond signaling_rate{};
  /// Payload rate of one lane in one direction, after line coding and FEC.
  BytesPerSecond lane_data_rate{};
  /// Modulation name as shown ("NRZ", "PAM4").
  std::string modulation = "NRZ";
  /// Bits per symbol of the modulation.
  double bits_per_symbol = 1.0;
  /// Line code or framing, as text.
  std::string encoding = "none";
  /// Lanes in one link, each direction.
  double lanes = 1;
  /// Links counted together (e.g. 18 NVLinks per GPU).
  double links = 1;
  /// Energy per transferred bit, when known.
  std::optional<JoulesPerByte> energy_per_bit;
  /// Largest domain the standard addresses, when known.
  std::optional<double> max_devices;
};

/// Every rate of a link, each in one direction unless named "both".
struct LinkRates {
  /// Symbol rate of one lane.
  PerSecond symbol_rate;
  /// Nyquist frequency of one lane.
  PerSecond nyquist;
  /// Payload share after line coding and FEC (lane_data / lane_raw).
  double efficiency = 1.0;
  /// One lane, raw line rate.
  BytesPerSecond lane_raw;
  /// One lane, payload.
  BytesPerSecond lane_data;
  /// One link (all its lanes), payload.
  BytesPerSecond link_data;
  /// All links, raw line rate.
  BytesPerSecond raw_per_direction;
  /// All links, payload.
  BytesPerSecond per_direction;
  /// All links, payload, both directions added (the "bidirectional" figure vendors quote).
  BytesPerSecond both_directions;
  /// All links, raw, both directions added.
  BytesPerSecond raw_both_directions;
};

/// The rates of a link from its lane rates, lanes and links.
[[nodiscard]] LinkRates link_rates(const LinkSpec& s);

/// Power of a link carrying traffic at full rate in both directions: energy per bit × bits per second.
[[nodiscard]] Watts link_power(JoulesPerByte energy_per_bit, BytesPerSecond both_directions);

}  // namespace infracalc::net
