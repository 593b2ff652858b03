// The decode plugin descriptor: decode ceilings, the roofline, prefill, tensor parallelism, attention,
// speculative decoding and mixture-of-experts reads.
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// The decode plugin.
[[nodiscard]] const Plugin& decode_plugin();

/// The decode reference kernels (defined in decode_kernels.cpp).
[[nodiscard]] std::vector<Kernel> decode_kernels();

}  // namespace infracalc
