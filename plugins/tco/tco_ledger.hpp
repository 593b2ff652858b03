// The year-by-year cash-flow ledger: purchases, a depreciation schedule, energy with escalation,
// maintenance, residual value and discounting, with NPV and the levelised cost per sold accelerator-hour.
// It is the tco reference kernel: it adds up cash year by year and never uses the closed forms.
#pragma once

#include <vector>

#include "units/system.hpp"

namespace infracalc::tco {

/// How the book value falls.
enum class Depreciation {
  straight_line,  ///< (cost − residual) / life each year
  declining,      ///< declining balance at factor / life of the book value, switching to straight line
};

/// What the ledger runs on (per-accelerator money; totals scale with `accelerators`).
struct LedgerInputs {
  /// Accelerators bought in each purchase.
  double accelerators = 1.0;
  /// Purchase cost of one accelerator (with its share of server, network and installation).
  Usd capex_per_unit;
  /// Resale value of one accelerator at the end of its life.
  Usd residual_per_unit;
  /// Useful life in whole years.
  int life_years = 4;
  /// Years the ledger covers; equipment is bought again at every multiple of the life.
  int horizon_years = 4;
  /// Depreciation schedule.
  Depreciation method = Depreciation::straight_line;
  /// Declining-balance factor (2 = double declining).
  double declining_factor = 2.0;
  /// Power attributed to one working accelerator.
  Watts power_per_unit;
  /// Facility overhead on IT energy.
  double pue = 1.0;
  /// Power in unsold hours as a share of `power_per_unit`.
  double idle_power_share = 0.0;
  /// Energy tariff in the first year.
  UsdPerJoule tariff;
  /// Yearly growth of the tariff (0.03 = 3 % a year).
  double escalation = 0.0;
  /// Share of the hours sold.
  double sold_share = 1.0;
  /// Maintenance and staff per installed accelerator-hour (every hour of the year, sold or not).
  UsdPerHour maintenance_per_installed_hour;
  /// Fixed yearly cost per accelerator (space, insurance, overheads), as a money rate.
  UsdPerHour fixed_per_unit;
  /// Annual discount rate (cost of capital).
  double discount_rate = 0.0;
};

/// One year of the ledger; year 0 holds the first purchase at t = 0, every other flow falls at a year end.
struct LedgerRow {
  /// Year number, 0 for the initial purchase.
  int year = 0;
  /// Equipment bought.
  Usd purchases;
  /// Depreciation charged this year (non-cash).
  Usd depreciation;
  /// Book value at the end of the year.
  Usd book_value;
  /// Energy bill.
  Usd energy;
  /// Maintenance and staff.
  Usd maintenance;
  /// Fixed yearly costs.
  Usd fixed;
  /// Equipment sold or valued at the end of a life or of the horizon (an inflow).
  Usd residual;
  /// Net cash out: purchases + energy + maintenance + fixed − residual.
  Usd net;
  /// Discount factor (1 + r)^−year.
  double discount_factor = 1.0;
  /// Present value of `net`.
  Usd present_value;
  /// Accelerator-hours sold this year (all accelerators).
  Seconds sold_time;
};

/// The ledger and what it adds up to.
struct Ledger {
  /// Year 0 to the horizon.
  std::vector<LedgerRow> rows;
  /// Sum of the present values of the net cash out.
  Usd npv;
  /// Sum of the net cash out, undiscounted.
  Usd undiscounted;
  /// Sum of the depreciation column.
  Usd total_depreciation;
  /// Sold accelerator-hours over the horizon.
  Seconds sold_time;
  /// Sold accelerator-hours, each discounted to t = 0.
  Seconds discounted_sold_time;
  /// Present value of purchases less residuals.
  Usd pv_capital;
  /// Present value of energy.
  Usd pv_energy;
  /// Present value of maintenance.
  Usd pv_maintenance;
  /// Present value of fixed yearly costs.
  Usd pv_fixed;

  /// Levelised cost per sold accelerator-hour: NPV / discounted sold hours.
  [[nodiscard]] UsdPerHour levelised() const { return npv / discounted_sold_time; }
  /// The capital part of the levelised cost (equipment and financing together).
  [[nodiscard]] UsdPerHour levelised_capital() const { return pv_capital / discounted_sold_time; }
  /// The energy part of the levelised cost.
  [[nodiscard]] UsdPerHour levelised_energy() const { return pv_energy / discounted_sold_time; }
  /// The maintenance part of the levelised cost.
  [[nodiscard]] UsdPerHour levelised_maintenance() const { return pv_maintenance / discounted_sold_time; }
  /// The fixed-cost part of the levelised cost.
  [[nodiscard]] UsdPerHour levelised_fixed() const { return pv_fixed / discounted_sold_time; }
};

/// Runs the ledger year by year.
[[nodiscard]] Ledger run_ledger(const LedgerInputs& in);

/// The depreciation schedule of one purchase: one entry per year of the life, summing to cost − residual.
[[nodiscard]] std::vector<Usd> depreciation_schedule(Usd cost, Usd residual, int life_years, Depreciation method,
                                                     double declining_factor);

}  // namespace infracalc::tco
