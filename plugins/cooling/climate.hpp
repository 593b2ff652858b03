// A site's typical meteorological year as hours in dry- and wet-bulb temperature bins per month (data/climate/),
// and what it does to a cooling plant: hours on the economiser, dry or evaporative, hours on chillers, and
// the PUE and WUE that follow, month by month.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "host/context.hpp"
#include "units/expected.hpp"
#include "units/system.hpp"

namespace infracalc::cooling {

/// One month of a typical year.
struct ClimateMonth {
  /// 1-12.
  int month = 0;
  /// Hours in the month.
  Seconds hours;
  /// Mean dry-bulb temperature.
  TemperaturePoint dry_bulb_mean;
  /// Mean wet-bulb temperature.
  TemperaturePoint wet_bulb_mean;
  /// Time in each dry-bulb bin.
  std::vector<Seconds> dry_bulb;
  /// Time in each wet-bulb bin.
  std::vector<Seconds> wet_bulb;
};

/// A site's binned typical year.
struct Climate {
  /// Catalog id.
  std::string id;
  /// Lower edge of the first bin.
  TemperaturePoint start;
  /// Width of a bin.
  Kelvin width;
  /// Twelve months.
  std::vector<ClimateMonth> months;

  /// The midpoint of bin `i`.
  [[nodiscard]] TemperaturePoint bin_mid(std::size_t i) const;
};

/// Reads a climate entry; an error names the file and field when the months or bins are malformed.
[[nodiscard]] Expected<Climate> read_climate(const Entry& e);

/// A cooling plant as the economiser model sees it.
struct Plant {
  /// Supply temperature the IT needs (air to the servers, or facility water to the cold plates).
  TemperaturePoint supply;
  /// How far below the supply the outdoor dry-bulb must be for dry free cooling (air-side economiser, or dry
  /// cooler plus heat exchanger); across one approach above that the economiser still carries part of the load.
  Kelvin dry_approach;
  /// How far below the supply the outdoor wet-bulb must be for evaporative free cooling (cooling tower or
  /// evaporative cooler plus heat exchanger).
  Kelvin wet_approach;
  /// True when the plant may evaporate water (cooling towers, evaporative coolers, water-cooled chillers).
  bool evaporative = true;
  /// Rated chiller COP and the lift it is rated at: the chiller's COP scales with rated lift / actual lift
  /// (a Carnot-proportional chiller).
  Number chiller_cop;
  /// Lift (condensing minus supply) the COP is rated at.
  Kelvin rated_lift;
  /// Approach of the condenser to the ambient it rejects to (dry-bulb air-cooled, wet-bulb tower).
  Kelvin condenser_approach;
  /// How far below the supply the chiller must make its water (the air handler's coil, or the CDU's heat exchanger).
  Kelvin coil_approach;
  /// Fans and pumps as a share of IT power (air handlers or CDUs and facility pumps).
  Number fans_pumps;
  /// Electrical losses (UPS, transformers, distribution) and other overhead as a share of IT power.
  Number electrical;
  /// Share of the heat a cooling tower rejects by evaporation.
  Number latent_share;
  /// Cycles of concentration of the tower water (make-up = evaporation × C / (C − 1)).
  Number cycles;
};

/// A plant at the defaults `cooling climate` documents: "air" (24 degC supply air, 2 K dry and 3 K wet approach,
/// 6 K coil, fans 5%) or "direct-liquid" (8 K dry, 7 K wet, 3 K CDU, pumps 2%), chillers at ASHRAE 90.1-2019
/// minimums (water-cooled with `water`, air-cooled without), 5% electrical losses, 85% latent heat, 4 cycles.
[[nodiscard]] Plant default_plant(std::string_view cooling, bool water, TemperaturePoint supply);

/// The default supply temperature of a cooling choice: 24 degC air (inside ASHRAE's recommended 18-27 degC), or
/// the catalog's cooling-direct-liquid supply_temperature (cited), 30 degC without it.
[[nodiscard]] TemperaturePoint default_supply(Context& ctx, std::string_view cooling);

/// What one month (or the year) does to a plant.
struct PlantMonth {
  /// Time on dry free cooling (no chiller, no water).
  Seconds dry;
  /// Time on evaporative free cooling (no chiller, water).
  Seconds evaporative;
  /// Chiller load: time-weighted share of the heat the chillers carry (full-load-equivalent time).
  Seconds mechanical;
  /// Facility energy / IT energy.
  Number pue;
  /// Water consumed per IT energy.
  CubicMetersPerJoule wue;
};

/// Runs a plant through one month's bins.
[[nodiscard]] PlantMonth plant_month(const Climate& c, const ClimateMonth& m, const Plant& p);

/// The year: times summed, PUE and WUE weighted by hours.
[[nodiscard]] PlantMonth plant_year(const Climate& c, const Plant& p);

}  // namespace infracalc::cooling
