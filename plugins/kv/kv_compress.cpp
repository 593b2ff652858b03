#include "plugins/kv/kv_compress.hpp"

#include <algorithm>
#include <cmath>

namespace infracalc::kv {

// Sources: H2O keeps "heavy hitter" tokens by accumulated attention plus recent ones within a budget that
// is a fraction of the sequence (Zhang et al. 2023, "H2O: Heavy-Hitter Oracle"); SnapKV compresses the
// prompt's KV once after prefill to a fixed budget chosen by an observation window and appends generated
// tokens uncompressed (Li et al. 2024, "SnapKV: LLM Knows What You are Looking for Before Generation");
// StreamingLLM keeps a few initial "attention sink" tokens plus a rolling window (Xiao et al. 2023,
// "Efficient Streaming Language Models with Attention Sinks"); CacheGen encodes the KV cache into a compact
// bitstream for storage and transfer (Liu et al. 2024, "CacheGen", SIGCOMM).
std::int64_t retained_positions(Method m, const CompressSettings& s, std::int64_t prompt, std::int64_t generated) {
  const std::int64_t length = prompt + generated;
  switch (m) {
    case Method::full:
    case Method::int8:
    case Method::int4:
    case Method::cachegen: return length;
    case Method::h2o: return std::min(length, static_cast<std::int64_t>(std::ceil(s.h2o_ratio * static_cast<double>(length) - 1e-9)));
    case Method::snapkv: return std::min(prompt, s.snapkv_budget) + generated;
    case Method::streaming: return std::min(length, s.sinks + s.window);
  }
  return length;
}

Bytes compressed_bytes(const ModelArch& m, Method method, const CompressSettings& s, std::int64_t prompt, std::int64_t generated,
                       Number batch) {
  const KvPrecision& p = method == Method::int8 ? s.int8 : method == Method::int4 ? s.int4 : s.base;
  const auto kept = from_base<Tokens>(static_cast<double>(retained_positions(method, s, prompt, generated)));
  const Bytes bytes = cache_size(m, p, kept, batch).total;
  return method == Method::cachegen ? bytes / s.cachegen_ratio : bytes;
}

std::string_view method_name(Method m) {
  switch (m) {
    case Method::full: return "full";
    case Method::int8: return "int8";
    case Method::int4: return "int4";
    case Method::h2o: return "h2o";
    case Method::snapkv: return "snapkv";
    case Method::streaming: return "streamingllm";
    case Method::cachegen: return "cachegen";
  }
  return "full";
}

std::string_view method_caveat(Method m) {
  switch (m) {
    case Method::full: return "nothing: every position at the base dtype";
    case Method::int8: return "precision: 8-bit elements (plus the scales chosen with --kv-scales)";
    case Method::int4: return "precision: 4-bit elements (plus scales); accuracy depends on the quantizer";
    case Method::h2o: return "evicted tokens: only heavy hitters and recent tokens stay; evicted context is gone for good";
    case Method::snapkv: return "prompt positions outside the budget; generated tokens are not compressed, so it still grows";
    case Method::streaming: return "everything between the sinks and the window: constant size, no long-range recall";
    case Method::cachegen: return "storage/transfer size only: decoded back to full tensors before attention on the GPU";
  }
  return "";
}

}  // namespace infracalc::kv
