#include "plugins/kv/kv_blocks.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace infracalc::kv {

BlockAllocator::BlockAllocator(std::int64_t blocks)
    : total_(blocks),
      free_(static_cast<std::size_t>(std::max<std::int64_t>(blocks, 0))),
      free_count_(std::max<std::int64_t>(blocks, 0)),
      refs_(static_cast<std::size_t>(std::max<std::int64_t>(blocks, 0)), 0),
      used_before_(static_cast<std::size_t>(std::max<std::int64_t>(blocks, 0)), false) {
  std::iota(free_.begin(), free_.end(), 0);
}

std::optional<std::int32_t> BlockAllocator::allocate() {
  if (free_count_ == 0) return std::nullopt;
  const std::int32_t b = free_[static_cast<std::size_t>(free_head_)];
  if (++free_head_ == total_) free_head_ = 0;
  --free_count_;
  const auto i = static_cast<std::size_t>(b);
  refs_[i] = 1;
  ++stats_.allocations;
  if (used_before_[i]) ++stats_.reuses;
  used_before_[i] = true;
  stats_.peak_used = std::max(stats_.peak_used, used_blocks());
  return b;
}

void BlockAllocator::retain(std::int32_t block) {
  auto& r = refs_.at(static_cast<std::size_t>(block));
  if (r <= 0) throw std::logic_error("retain of a free KV block");
  ++r;
}

void BlockAllocator::release(std::int32_t block) {
  auto& r = refs_.at(static_cast<std::size_t>(block));
  if (r <= 0) throw std::logic_error("release of a free KV block");
  if (--r == 0) {
    std::int64_t tail = free_head_ + free_count_;
    if (tail >= total_) tail -= total_;
    free_[static_cast<std::size_t>(tail)] = block;
    ++free_count_;
    ++stats_.frees;
  }
}

std::optional<std::int32_t> BlockAllocator::writable(std::int32_t block) {
  if (refcount(block) <= 1) return block;
  auto copy = allocate();
  if (!copy) return std::nullopt;
  ++stats_.copies;
  release(block);
  return copy;
}


}  // namespace infracalc::kv
