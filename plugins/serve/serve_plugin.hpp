// The serve plugin descriptor: a batching simulator, pod capacity, latency budgets, multimodal prompts,
// prefill/decode disaggregation and diffusion sampler time.
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// The serve plugin.
[[nodiscard]] const Plugin& serve_plugin();

/// The serve reference kernels (defined in serve_kernels.cpp).
[[nodiscard]] std::vector<Kernel> serve_kernels();

}  // namespace infracalc
