// Reference kernel kv-prefix: a template sequence writes the prefix into real blocks; N requests fork it
// (take references to every prefix block), the template lets go, and each request writes its own tokens,
// copying any block it writes while others still share it. Blocks in use and copies are counted.
#include <fmt/format.h>

#include "plugins/kv/kv_blocks.hpp"
#include "plugins/kv/kv_kernels.hpp"
#include "plugins/kv/kv_prefix.hpp"

namespace infracalc::kv {

namespace {

struct Sequence {
  std::vector<std::int32_t> blocks;
  std::int64_t tokens = 0;
};

// Appends one token: a fresh block at a boundary, else a write into the last block (copied if shared).
void append(BlockAllocator& pool, Sequence& s, std::int64_t block) {
  if (s.tokens % block == 0) {
    s.blocks.push_back(*pool.allocate());
  } else {
    s.blocks.back() = *pool.writable(s.blocks.back());
  }
  ++s.tokens;
}

std::int64_t unshared_run(const PrefixShape& shape) {
  BlockAllocator pool(shape.requests * blocks_for(shape.prefix + shape.tail, shape.block_size) + 1);
  std::vector<Sequence> seqs(static_cast<std::size_t>(shape.requests));
  for (auto& s : seqs)
    for (std::int64_t t = 0; t < shape.prefix + shape.tail; ++t) append(pool, s, shape.block_size);
  return pool.used_blocks();
}

}  // namespace

std::vector<KernelCheck> run_prefix_kernel(const KernelOptions& opt) {
  std::vector<PrefixShape> shapes = {
      {2000, 500, 10, 16},  // prefix on a block boundary
      {2001, 500, 10, 16},  // one token into a block
      {100, 3, 7, 16},      // the tail stays inside the partial block
      {100, 0, 5, 16},      // nobody writes past the prefix
      {37, 90, 1, 8},       // a single request
      {5, 40, 4, 32},       // prefix shorter than a block
  };
  if (!opt.quick) shapes.push_back({30000, 4000, 64, 16});
  std::vector<KernelCheck> checks;
  for (const auto& s : shapes) {
    BlockAllocator pool(blocks_for(s.prefix + s.tail, s.block_size) * s.requests + 2);
    Sequence tmpl;
    for (std::int64_t t = 0; t < s.prefix; ++t) append(pool, tmpl, s.block_size);
    std::vector<Sequence> seqs(static_cast<std::size_t>(s.requests), tmpl);
    for (auto b : tmpl.blocks)
      for (std::int64_t r = 0; r < s.requests; ++r) pool.retain(b);
    for (auto b : tmpl.blocks) pool.release(b);
    for (auto& q : seqs)
      for (std::int64_t t = 0; t < s.tail; ++t) append(pool, q, s.block_size);
    const PrefixBlocks f = prefix_blocks(s);
    const std::string name = fmt::format("prefix {} + tail {} x {} requests, B {}", s.prefix, s.tail, s.requests, s.block_size);
    if (opt.trace)
      fmt::print(stderr, "kv-prefix: {}: {} blocks in use, {} copies\n", name, pool.used_blocks(), pool.stats().copies);
    checks.push_back({name + ": blocks with sharing", Quantity::number(static_cast<double>(f.shared)),
                      Quantity::number(static_cast<double>(pool.used_blocks())), 0.0});
    checks.push_back({name + ": copy-on-write copies", Quantity::number(static_cast<double>(f.copies)),
                      Quantity::number(static_cast<double>(pool.stats().copies)), 0.0, 0.0});
    checks.push_back({name + ": blocks without sharing", Quantity::number(static_cast<double>(f.unshared)),
                      Quantity::number(static_cast<double>(unshared_run(s))), 0.0});
  }
  return checks;
}

}  // namespace infracalc::kv
