// The serve plugin descriptor: a batching simulator, pod capacity, latency budgets, multimodal prompts,
// prefill/decode disaggregation and diffusion sampler time.
#pragma once

#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// The serve plugin.
[[nodiscard]] const Plugin& serve_plugin();
/// The serve plugin holding only the calculator called `calculator`, or nullptr when it has none by that name.
[[nodiscard]] const Plugin* serve_plugin_with_only(std::string_view calculator);

/// The serve reference kernels (defined in serve_kernels.cpp).
[[nodiscard]] std::vector<Kernel> serve_kernels();

}  // namespace infracalc
