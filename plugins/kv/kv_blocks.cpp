#include "plugins/kv/kv_blocks.hpp"

#include <algorithm>
#include <stdexcept>

namespace infracalc::kv {

BlockAllocator::BlockAllocator(std::int64_t blocks)
    : total_(blocks), refs_(static_cast<std::size_t>(blocks), 0), used_before_(static_cast<std::size_t>(blocks), false) {
  for (std::int64_t b = 0; b < blocks; ++b) free_.push_back(static_cast<std::int32_t>(b));
}

std::optional<std::int32_t> BlockAllocator::allocate() {
  if (free_.empty()) return std::nullopt;
  const std::int32_t b = free_.front();
  free_.pop_front();
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
    free_.push_back(block);
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

std::int64_t blocks_for(std::int64_t tokens, std::int64_t block_size) { return (tokens + block_size - 1) / block_size; }

}  // namespace infracalc::kv
