// A PagedAttention-style KV block pool: fixed-size physical blocks handed out from a free list, shared
// between sequences by reference counts, copied on write, and reused after they are freed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace infracalc::kv {

/// Counters of everything the pool did.
struct BlockStats {
  /// Blocks handed out.
  std::int64_t allocations = 0;
  /// Blocks returned to the free list.
  std::int64_t frees = 0;
  /// Allocations served by a block that had been used and freed before.
  std::int64_t reuses = 0;
  /// Copy-on-write copies made.
  std::int64_t copies = 0;
  /// Most blocks in use at once.
  std::int64_t peak_used = 0;
};

/// The block pool. Block ids are 0 .. blocks-1.
class BlockAllocator {
 public:
  /// A pool of `blocks` free blocks.
  explicit BlockAllocator(std::int64_t blocks);

  /// A free block with reference count 1, or nullopt when none is free. Blocks never used go first, lowest id first;
  /// then freed blocks are reused in the order they were freed (a FIFO free list, as vLLM's block manager keeps one).
  [[nodiscard]] std::optional<std::int32_t> allocate();
  /// allocate() `n` times, appending the blocks to `out`; false, and nothing taken, when fewer than `n` are free.
  bool allocate_into(std::vector<std::int32_t>& out, std::int64_t n);
  /// Adds a reference (another sequence shares the block).
  void retain(std::int32_t block);
  /// Drops a reference; the block returns to the free list at zero.
  void release(std::int32_t block);
  /// release() of each block, in order.
  void release(std::span<const std::int32_t> blocks);
  /// The block to write into: `block` itself when it is not shared, otherwise a fresh copy (the shared
  /// original loses one reference). nullopt when a copy is needed and no block is free.
  [[nodiscard]] std::optional<std::int32_t> writable(std::int32_t block);
  /// References to a block (0 when free).
  [[nodiscard]] int refcount(std::int32_t block) const {
    return block < fresh_ ? refs_[static_cast<std::size_t>(block)] : 0;
  }
  /// Free blocks.
  [[nodiscard]] std::int64_t free_blocks() const { return (total_ - fresh_) + static_cast<std::int64_t>(freed_count_); }
  /// Blocks in use.
  [[nodiscard]] std::int64_t used_blocks() const { return total_ - free_blocks(); }
  /// Blocks in the pool.
  [[nodiscard]] std::int64_t total_blocks() const { return total_; }
  /// Counters.
  [[nodiscard]] const BlockStats& stats() const { return stats_; }

 private:
  // Grows the free list so that `more` blocks can join it.
  void make_room(std::size_t more);
  // The oldest freed block, taken off the list.
  std::int32_t take_freed();

  std::int64_t total_;
  // Blocks fresh_ .. total_-1 were never handed out, so a pool costs nothing until it is used (a simulator builds
  // one per trial, of up to millions of blocks): the free list of a pool that starts with every block in id order,
  // freed blocks behind them, is those blocks in id order followed by the freed ones.
  std::int32_t fresh_ = 0;
  // Freed blocks, first in first out: a ring of a power-of-two size, doubled when full.
  std::unique_ptr<std::int32_t[]> freed_;
  std::size_t freed_size_ = 0;
  std::size_t freed_head_ = 0;
  std::size_t freed_count_ = 0;
  // References of blocks 0 .. fresh_-1.
  std::vector<int> refs_;
  BlockStats stats_;
};

/// A pool whose blocks are never shared, counted instead of named: for the same takes and releases its counters are
/// BlockAllocator's (whose first `blocks` allocations are never-used blocks and every later one a reuse, whatever was
/// freed in between), at the cost of a few additions, where a sequence of a few thousand tokens would otherwise list
/// hundreds of block ids.
class BlockCount {
 public:
  /// A pool of `blocks` free blocks.
  explicit BlockCount(std::int64_t blocks) : total_(std::max<std::int64_t>(blocks, 0)) {}
  /// Takes `n` blocks; false, and nothing taken, when fewer are free.
  bool take(std::int64_t n) {
    if (n > free_blocks()) return false;
    const std::int64_t before = stats_.allocations;
    stats_.allocations += n;
    stats_.reuses += std::max<std::int64_t>(0, stats_.allocations - std::max(before, total_));
    used_ += n;
    stats_.peak_used = std::max(stats_.peak_used, used_);
    return true;
  }
  /// Returns `n` blocks taken before.
  void release(std::int64_t n) {
    used_ -= n;
    stats_.frees += n;
  }
  /// Free blocks.
  [[nodiscard]] std::int64_t free_blocks() const { return total_ - used_; }
  /// Blocks in use.
  [[nodiscard]] std::int64_t used_blocks() const { return used_; }
  /// Blocks in the pool.
  [[nodiscard]] std::int64_t total_blocks() const { return total_; }
  /// Counters, as BlockAllocator's (no copies: nothing is shared).
  [[nodiscard]] const BlockStats& stats() const { return stats_; }

 private:
  std::int64_t total_;
  std::int64_t used_ = 0;
  BlockStats stats_;
};

/// Blocks of `block_size` tokens needed for `tokens` tokens: ceil(tokens / block_size).
[[nodiscard]] inline std::int64_t blocks_for(std::int64_t tokens, std::int64_t block_size) { return (tokens + block_size - 1) / block_size; }

}  // namespace infracalc::kv
