// Large arrays for the probes and the synthetic decoder: 2 MiB-aligned, with transparent huge pages asked for.
#pragma once

#include <cstddef>
#include <memory>

namespace infracalc::kernels {

/// Allocates `bytes`: from 2 MiB up rounded to whole 2 MiB pages on a 2 MiB boundary with huge pages asked for,
/// below that on a 64-byte boundary; throws std::bad_alloc when memory is short.
[[nodiscard]] void* big_alloc(std::size_t bytes);

/// Frees what big_alloc returned.
struct BigFree {
  /// Releases the block.
  void operator()(void* p) const noexcept;
};

/// An owning array from big_alloc.
template <class T>
using BigArray = std::unique_ptr<T[], BigFree>;

/// An uninitialised array of `n` elements of a trivial type from big_alloc.
template <class T>
[[nodiscard]] BigArray<T> big_array(std::size_t n) {
  return BigArray<T>(static_cast<T*>(big_alloc(n * sizeof(T))));
}

}  // namespace infracalc::kernels
