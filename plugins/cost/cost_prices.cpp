// Prices from the catalog: accelerator rental series and provider API price lists, both dated (--as-of).
#include <algorithm>

#include "plugins/cost/cost_calculators.hpp"
#include "plugins/tco/tco_inputs.hpp"

namespace infracalc::cost {

void fill_gpu_hour(Context& ctx) {
  // The --tier choice names the series with '-' for '_': on-demand → on_demand.
  std::string series = ctx.text("tier");
  std::replace(series.begin(), series.end(), '-', '_');
  const Entry* e = ctx.ref("rental");
  if (fill_from_ref(ctx, "gpu_hour", "rental", series, expectation_of<UsdPerHour>()) || e == nullptr) return;
  std::string has;
  for (const char* s : {"on_demand", "committed", "capacity_block", "spot"})
    if (e->field(s)) {
      std::string tier = s;
      std::replace(tier.begin(), tier.end(), '_', '-');
      has += (has.empty() ? "" : ", ") + tier;
    }
  throw UserError{{e->id() + " has no '" + series + "' price series",
                   has.empty() ? "give --gpu-hour, or pick a rental entry" : "pick --tier " + has + ", or give --gpu-hour"}};
}

void fill_api_prices(Context& ctx) {
  fill_from_ref(ctx, "input_price", "api", "input", expectation_of<UsdPerToken>());
  fill_from_ref(ctx, "output_price", "api", "output", expectation_of<UsdPerToken>());
}

CatalogRef rental_ref() {
  return {"rental", {"price"},
          "accelerator rental entry (dated series on_demand, committed, capacity_block, spot; per GPU-hour): sets --gpu-hour"};
}

CatalogRef api_ref() {
  return {"api", {"price"},
          "provider API price entry (dated series input, output, cache_read, cache_write, cache_write_1h; cache_ttl)"};
}

Input tier_input() {
  return {.name = "tier", .kind = InputKind::choice,
          .help = "which rental price series to use: on-demand, committed (reserved or contracted), capacity-block (short "
                  "prepaid reservation) or spot",
          .default_value = "on-demand", .choices = {"on-demand", "committed", "capacity-block", "spot"}};
}

}  // namespace infracalc::cost
