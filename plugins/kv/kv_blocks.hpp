// A PagedAttention-style KV block pool: fixed-size physical blocks handed out from a free list, shared
// between sequences by reference counts, copied on write, and reused after they are freed.
#pragma once

#include <cstdint>
#include <optional>
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

  /// A free block with reference count 1, or nullopt when none is free. Freed blocks are reused in the
  /// order they were freed (a FIFO free list, as vLLM's block manager keeps one).
  [[nodiscard]] std::optional<std::int32_t> allocate();
  /// Adds a reference (another sequence shares the block).
  void retain(std::int32_t block);
  /// Drops a reference; the block returns to the free list at zero.
  void release(std::int32_t block);
  /// The block to write into: `block` itself when it is not shared, otherwise a fresh copy (the shared
  /// original loses one reference). nullopt when a copy is needed and no block is free.
  [[nodiscard]] std::optional<std::int32_t> writable(std::int32_t block);
  /// References to a block (0 when free).
  [[nodiscard]] int refcount(std::int32_t block) const { return refs_[static_cast<std::size_t>(block)]; }
  /// Free blocks.
  [[nodiscard]] std::int64_t free_blocks() const { return free_count_; }
  /// Blocks in use.
  [[nodiscard]] std::int64_t used_blocks() const { return total_ - free_blocks(); }
  /// Blocks in the pool.
  [[nodiscard]] std::int64_t total_blocks() const { return total_; }
  /// Counters.
  [[nodiscard]] const BlockStats& stats() const { return stats_; }

 private:
  std::int64_t total_;
  // The free list, first in first out: a ring over `total_` slots (a block is in it at most once), which a
  // simulator building one pool per trial fills with one pass instead of a deque's chunk by chunk.
  std::vector<std::int32_t> free_;
  std::int64_t free_head_ = 0;
  std::int64_t free_count_ = 0;
  std::vector<int> refs_;
  std::vector<bool> used_before_;
  BlockStats stats_;
};

/// Blocks of `block_size` tokens needed for `tokens` tokens: ceil(tokens / block_size).
[[nodiscard]] inline std::int64_t blocks_for(std::int64_t tokens, std::int64_t block_size) { return (tokens + block_size - 1) / block_size; }

}  // namespace infracalc::kv
