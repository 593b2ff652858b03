#include "plugins/kv/kv_blocks.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace infracalc::kv {

BlockAllocator::BlockAllocator(std::int64_t blocks) : total_(std::max<std::int64_t>(blocks, 0)) {
  if (total_ > INT32_MAX) throw std::length_error("a KV block pool of more than 2^31 blocks");
}

std::optional<std::int32_t> BlockAllocator::allocate() {
  std::int32_t b = 0;
  if (fresh_ < total_) {
    b = fresh_++;
    refs_.push_back(1);
  } else if (freed_count_ > 0) {
    b = take_freed();
    refs_[static_cast<std::size_t>(b)] = 1;
    ++stats_.reuses;
  } else {
    return std::nullopt;
  }
  ++stats_.allocations;
  stats_.peak_used = std::max(stats_.peak_used, used_blocks());
  return b;
}

bool BlockAllocator::allocate_into(std::vector<std::int32_t>& out, std::int64_t n) {
  if (n <= 0) return true;
  if (n > free_blocks()) return false;
  // What n calls of allocate() do, the never-used blocks as one run.
  const auto run = static_cast<std::int32_t>(std::min<std::int64_t>(n, total_ - fresh_));
  for (std::int32_t i = 0; i < run; ++i) out.push_back(fresh_ + i);
  fresh_ += run;
  refs_.resize(static_cast<std::size_t>(fresh_), 1);
  stats_.allocations += run;
  for (std::int64_t i = run; i < n; ++i) out.push_back(*allocate());
  stats_.peak_used = std::max(stats_.peak_used, used_blocks());
  return true;
}

void BlockAllocator::retain(std::int32_t block) {
  if (block < 0 || block >= fresh_ || refs_[static_cast<std::size_t>(block)] <= 0) throw std::logic_error("retain of a free KV block");
  ++refs_[static_cast<std::size_t>(block)];
}

std::int32_t BlockAllocator::take_freed() {
  const std::int32_t b = freed_[freed_head_];
  freed_head_ = (freed_head_ + 1) & (freed_size_ - 1);
  --freed_count_;
  return b;
}

void BlockAllocator::make_room(std::size_t more) {
  if (freed_count_ + more <= freed_size_) return;
  std::size_t size = std::max<std::size_t>(64, freed_size_);
  while (size < freed_count_ + more) size *= 2;
  // Left uninitialised: only the slots written are read.
  std::unique_ptr<std::int32_t[]> grown(new std::int32_t[size]);
  for (std::size_t i = 0; i < freed_count_; ++i) grown[i] = freed_[(freed_head_ + i) & (freed_size_ - 1)];
  freed_ = std::move(grown);
  freed_size_ = size;
  freed_head_ = 0;
}

void BlockAllocator::release(std::int32_t block) { release(std::span<const std::int32_t>(&block, 1)); }

void BlockAllocator::release(std::span<const std::int32_t> blocks) {
  make_room(blocks.size());
  const std::size_t mask = freed_size_ - 1;
  for (const std::int32_t b : blocks) {
    if (static_cast<std::uint32_t>(b) >= static_cast<std::uint32_t>(fresh_) || refs_[static_cast<std::size_t>(b)] <= 0)
      throw std::logic_error("release of a free KV block");
    if (--refs_[static_cast<std::size_t>(b)] != 0) continue;
    freed_[(freed_head_ + freed_count_) & mask] = b;
    ++freed_count_;
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
