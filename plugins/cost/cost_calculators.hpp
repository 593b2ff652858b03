// The cost calculators, one file each; cost_plugin.cpp gathers them into the plugin.
#pragma once

#include "host/context.hpp"
#include "host/plugin.hpp"

namespace infracalc::cost {

/// `cost token`: price per million tokens from an accelerator-hour price and a throughput.
[[nodiscard]] Calculator token_calculator();
/// `cost answer`: cost per answer with hidden reasoning tokens and several samples.
[[nodiscard]] Calculator answer_calculator();
/// `cost task`: cost per agent task over its steps, retries and tools.
[[nodiscard]] Calculator task_calculator();
/// `cost cache`: prompt-cache pricing and the reuse count at which caching pays.
[[nodiscard]] Calculator cache_calculator();
/// `cost train`: rent for a training run.
[[nodiscard]] Calculator train_calculator();

/// Fills --gpu-hour from the --rental entry's dated series for --tier (on-demand or committed), if given.
void fill_gpu_hour(Context& ctx);
/// Fills the token prices (--input-price, --output-price) from the --api entry's dated series, if given.
void fill_api_prices(Context& ctx);

/// The --rental catalog reference.
[[nodiscard]] CatalogRef rental_ref();
/// The --api catalog reference.
[[nodiscard]] CatalogRef api_ref();
/// The --tier input that picks a --rental series.
[[nodiscard]] Input tier_input();

}  // namespace infracalc::cost
