#include "plugins/kernels/big_array.hpp"

#include <cstdlib>
#include <new>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace infracalc::kernels {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}  // namespace

// A gigabyte touched 4 KiB at a time costs 262,144 page faults, and in a virtual machine each is a trip
// through the hypervisor: a fifth of a full `verify decode` went to them. With 2 MiB pages it is 512.
void* big_alloc(std::size_t bytes) {
  if (bytes < kHugePage) {
    void* small = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    if (small == nullptr) throw std::bad_alloc();
    return small;
  }
  const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice only: where transparent huge pages are off, the block works with small pages.
  (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

void BigFree::operator()(void* p) const noexcept { std::free(p); }

}  // namespace infracalc::kernels
