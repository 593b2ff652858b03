// The decode plugin descriptor: decode ceilings, the roofline, prefill, tensor parallelism, attention,
// speculative decoding and mixture-of-experts reads.
#pragma once

#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// The decode plugin.
[[nodiscard]] const Plugin& decode_plugin();
/// The decode plugin holding only the calculator called `calculator`, or nullptr when it has none by that name.
[[nodiscard]] const Plugin* decode_plugin_with_only(std::string_view calculator);

/// The decode reference kernels (defined in decode_kernels.cpp).
[[nodiscard]] std::vector<Kernel> decode_kernels();

}  // namespace infracalc
