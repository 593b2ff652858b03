// Helpers shared by the network calculators: catalog look-ups with aliases, counts, rounding up.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/context.hpp"
#include "host/number_list.hpp"
#include "plugins/network/network_math.hpp"

namespace infracalc::net {

/// Whole-number division rounded up (a, b > 0).
[[nodiscard]] constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// A catalog id written with a link width: "pcie5-x16" → {"pcie5", 16}.
struct WidthRef {
  /// The id part.
  std::string id;
  /// The width after "-x", when given.
  std::optional<int> lanes;
};

/// Splits a trailing "-xN" width off an id.
[[nodiscard]] WidthRef split_width(std::string_view text);

/// Finds a catalog entry of one of `kinds`, trying the text as written, then with a hyphen between the name
/// and its generation ("pcie5" → "pcie-5"), then a few common short names ("c2c", "ndr", "800g"). Throws
/// UserError naming `flag`, with a did-you-mean, when nothing matches.
[[nodiscard]] const Entry& find_entry(std::string_view text, const std::vector<std::string_view>& kinds, std::string_view flag);

/// A link from an interconnect entry, recording provenance of every field read. `lanes` overrides the
/// reference width when given.
[[nodiscard]] LinkSpec read_link(Context& ctx, const Entry& e, std::optional<int> lanes, std::vector<std::string>& notes);

/// Checks a link's width against its standard: PCIe and CXL links are x1, x2, x4, x8 or x16. Throws UserError
/// naming `flag` otherwise.
void check_lane_width(const LinkSpec& s, std::string_view flag, std::string_view text);

/// A link from text ("pcie-5-x16", "nvlink5"), read from the catalog.
[[nodiscard]] LinkSpec link_from_text(Context& ctx, std::string_view text, std::string_view flag, std::vector<std::string>& notes);

/// Power of one switch system without optics (`system_power`), with a note naming the figure used; none when the
/// catalog has only the ASIC's `chip_power` (a note says so: a fabric counts whole switches).
[[nodiscard]] std::optional<Watts> switch_power_of(Context& ctx, const Entry& e, std::vector<std::string>& notes);

/// One optics technology: power per port at a port speed, and the energy per bit that follows.
struct OpticsSpec {
  /// Catalog id.
  std::string id;
  /// Power of one port end.
  Watts power_per_port{};
  /// Port speed the power is quoted at (one direction).
  BytesPerSecond port_speed{};
  /// power_per_port / port_speed.
  JoulesPerByte energy_per_bit{};
};

/// An optics entry (type = optics) read with provenance.
[[nodiscard]] OpticsSpec read_optics(Context& ctx, const Entry& e);

/// An optional quantity that is always initialised (std::optional of a Boost.Units quantity trips g++'s
/// -Wmaybe-uninitialized when it is filled on several paths).
template <class Q>
struct Maybe {
  /// The value (zero until set).
  Q value{};
  /// True once set.
  bool has = false;
  /// Sets the value.
  void set(const Q& q) {
    value = q;
    has = true;
  }
  /// True once set.
  explicit operator bool() const { return has; }
  /// The value.
  const Q& operator*() const { return value; }
};

/// The plain ratio a / b of two quantities of the same type.
template <class Q>
[[nodiscard]] double ratio(const Q& a, const Q& b) {
  return (a / b).value();
}

/// A dimensionless count as a typed Number.
[[nodiscard]] inline Number num(double v) { return Number::from_value(v); }

/// An optional catalog count (a bare number or a numeric string) with provenance.
[[nodiscard]] std::optional<double> catalog_count(Context& ctx, const Entry& e, std::string_view path);

}  // namespace infracalc::net
