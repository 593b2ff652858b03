// The cost plugin descriptor: from an accelerator-hour price and a throughput to the price of a token,
// an answer, an agent task, a cached prompt and a training run.
#pragma once

#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// The cost plugin: cost per token, answer, task, prompt-cache pricing and training rent.
[[nodiscard]] const Plugin& cost_plugin();
/// The cost plugin holding only the calculator called `calculator`, or nullptr when it has none by that name.
[[nodiscard]] const Plugin* cost_plugin_with_only(std::string_view calculator);

/// The cost reference kernels (defined in cost_kernels.cpp).
[[nodiscard]] std::vector<Kernel> cost_kernels();

}  // namespace infracalc
