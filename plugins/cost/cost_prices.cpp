// Prices from the catalog: accelerator rental series and provider API price lists, both dated (--as-of).
#include "plugins/cost/cost_calcs.hpp"
#include "plugins/tco/tco_inputs.hpp"

namespace infracalc::cost {

void fill_gpu_hour(Context& ctx) {
  const std::string series = ctx.text("tier") == "committed" ? "committed" : "on_demand";
  if (!tco::fill_from_ref(ctx, "gpu_hour", "rental", series, expectation_of<UsdPerHour>()) && ctx.ref("rental") != nullptr)
    throw UserError{{ctx.ref("rental")->id() + " has no '" + series + "' price series", "pick the other --tier, or give --gpu-hour"}};
}

void fill_api_prices(Context& ctx) {
  tco::fill_from_ref(ctx, "input_price", "api", "input_price", expectation_of<UsdPerToken>());
  tco::fill_from_ref(ctx, "output_price", "api", "output_price", expectation_of<UsdPerToken>());
}

CatalogRef rental_ref() {
  return {"rental", {"price"}, "accelerator rental entry (dated series on_demand, committed): sets --gpu-hour"};
}

CatalogRef api_ref() {
  return {"api", {"price"}, "provider API price entry (dated input_price, output_price, cache multipliers)"};
}

Input tier_input() {
  return {.name = "tier", .kind = InputKind::choice, .help = "which --rental price series to use", .default_value = "on-demand",
          .choices = {"on-demand", "committed"}};
}

}  // namespace infracalc::cost
