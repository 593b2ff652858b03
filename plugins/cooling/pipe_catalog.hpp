// Standard pipe sizes from the catalog (facility entries of type "piping").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/context.hpp"
#include "units/system.hpp"

namespace infracalc::cooling {

/// One nominal pipe size.
struct PipeSize {
  /// Nominal pipe size as written ("2", "1-1/2").
  std::string nominal;
  /// Inside diameter: outside diameter − 2 × wall.
  Meters inner_diameter;
};

/// A pipe series: its sizes and wall roughness.
struct PipeSeries {
  /// Catalog id.
  std::string id;
  /// Sizes, smallest first.
  std::vector<PipeSize> sizes;
  /// Absolute roughness of the wall.
  std::optional<Meters> roughness;
};

/// Reads a pipe series from the catalog, citing it; nullopt when the id is absent.
[[nodiscard]] std::optional<PipeSeries> read_pipe_series(Context& ctx, std::string_view id);
/// The smallest size whose inside diameter is at least `d`, or nullptr.
[[nodiscard]] const PipeSize* smallest_at_least(const PipeSeries& s, Meters d);

}  // namespace infracalc::cooling
