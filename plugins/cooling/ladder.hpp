// The cooling-technology ladder: every catalog facility entry of type "cooling" with its rack-density
// range and die heat-flux limit, ordered from the simplest (lowest rack power it is chosen for) up.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/context.hpp"
#include "units/system.hpp"

namespace infracalc::cooling {

/// One rung of the ladder.
struct Technology {
  /// Catalog id ("cooling-direct-liquid").
  std::string id;
  /// Human name.
  std::string name;
  /// Lowest rack power it is usually chosen for.
  std::optional<Watts> min;
  /// Upper end of mainstream deployments.
  std::optional<Watts> typical;
  /// Highest rack power demonstrated or announced.
  std::optional<Watts> max;
  /// Die heat flux it can remove.
  std::optional<WattsPerSquareMeter> flux_limit;
};

/// Where a rack falls against one technology's range.
enum class Placement { below, mainstream, stretch, above, no_range };

/// Reads the ladder from the catalog, citing every value it reads; sorted by `min` (rungs without a
/// range last).
[[nodiscard]] std::vector<Technology> read_ladder(Context& ctx);
/// The ladder entry with this id, or nullptr.
[[nodiscard]] const Technology* find_rung(const std::vector<Technology>& ladder, std::string_view id);
/// Where `rack` falls against `t`.
[[nodiscard]] Placement place(const Technology& t, Watts rack);
/// Words for a placement.
[[nodiscard]] std::string_view placement_words(Placement p);
/// The lowest rung whose range reaches `rack` (the simplest technology that can do it), or nullopt.
[[nodiscard]] std::optional<std::size_t> recommend(const std::vector<Technology>& ladder, Watts rack);

}  // namespace infracalc::cooling
