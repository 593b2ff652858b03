// Reference kernel for kv size: builds the real per-layer K and V buffers of small models, fills them
// token by token as a decode loop would, and counts the bytes actually allocated.
#include <cstdint>
#include <fmt/format.h>
#include <vector>

#include "plugins/formats/storage.hpp"
#include "plugins/kv/kv_math.hpp"
#include "plugins/kv/kv_plugin.hpp"
#include "units/bridge.hpp"

namespace infracalc {

namespace {

struct SmallModel {
  int layers;
  int heads;
  int kv_heads;
  int head_dim;
  int tokens;
  int batch;
  std::string_view dtype;
};

// One layer's cache for one sequence: K and V, each [kv_heads][tokens][head_dim] elements of `bits`
// bits, packed tightly (two 4-bit values per byte).
struct LayerCache {
  std::vector<std::uint8_t> k;
  std::vector<std::uint8_t> v;
};

std::size_t packed_bytes(std::size_t elements, int bits) { return (elements * static_cast<std::size_t>(bits) + 7) / 8; }

// Appends one token's K and V for every KV head, as the decode step that produced it would.
void append_token(LayerCache& c, int kv_heads, int head_dim, int bits, std::uint32_t seed) {
  const std::size_t add = packed_bytes(static_cast<std::size_t>(kv_heads) * static_cast<std::size_t>(head_dim), bits);
  for (std::size_t i = 0; i < add; ++i) {
    seed = seed * 1664525u + 1013904223u;  // stand-in for the projected values
    c.k.push_back(static_cast<std::uint8_t>(seed >> 24));
    c.v.push_back(static_cast<std::uint8_t>(seed >> 16));
  }
}

std::vector<KernelCheck> run_buffers(const KernelOptions& opt) {
  std::vector<SmallModel> models = {
      {4, 8, 2, 16, 33, 3, "fp16"},   // GQA
      {3, 4, 4, 8, 17, 2, "bf16"},    // MHA
      {2, 6, 1, 32, 25, 4, "fp8"},    // MQA
      {5, 8, 4, 16, 40, 1, "int4"},   // GQA, packed 4-bit
      {2, 2, 2, 4, 9, 2, "fp32"},
  };
  if (!opt.quick) models.push_back({8, 16, 4, 64, 512, 4, "fp16"});
  std::vector<KernelCheck> checks;
  for (const auto& m : models) {
    const StorageFormat* f = find_storage_format(m.dtype);
    const int bits = static_cast<int>(f->element_bits);
    std::size_t allocated = 0;
    for (int b = 0; b < m.batch; ++b) {
      std::vector<LayerCache> layers(static_cast<std::size_t>(m.layers));
      for (int t = 0; t < m.tokens; ++t)
        for (auto& layer : layers) append_token(layer, m.kv_heads, m.head_dim, bits, static_cast<std::uint32_t>(t * 31 + b));
      for (const auto& layer : layers) allocated += layer.k.size() + layer.v.size();
      if (opt.trace)
        fmt::print(stderr, "kv-buffers: {} layers x (K+V) after {} tokens, sequence {}: {} B so far\n", m.layers, m.tokens,
                   b, allocated);
    }
    const kv::KvShape shape{Number::from_value(m.layers), Number::from_value(m.kv_heads), Number::from_value(m.head_dim),
                            bytes_per_value(*f)};
    const Bytes formula = kv::total(kv::bytes_per_token(shape), from_base<Tokens>(m.tokens), Number::from_value(m.batch));
    checks.push_back({fmt::format("kv bytes: {} layers, {} of {} heads cached, d={}, {} tok x {} seq, {}", m.layers, m.kv_heads,
                                  m.heads, m.head_dim, m.tokens, m.batch, m.dtype),
                      to_quantity(formula), Quantity{static_cast<double>(allocated), dims::information}, 0.0});
  }
  return checks;
}

}  // namespace

std::vector<Kernel> kv_kernels() {
  return {{"kv-buffers", "allocates real per-layer K and V buffers token by token and counts their bytes", run_buffers}};
}

}  // namespace infracalc
