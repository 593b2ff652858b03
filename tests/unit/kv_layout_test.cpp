// KV-cache bytes for whole layouts: GQA, sliding windows, MLA, sharing, and the parallel split.
#include <catch2/catch.hpp>

#include "plugins/kv/kv_layout.hpp"

using namespace infracalc;

namespace {
ModelArch llama70b() {
  ModelArch m;
  m.layers = 80;
  m.hidden_size = 8192;
  m.attention_heads = 64;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.layer_types.assign(80, LayerAttention::full);
  return m;
}
const StorageFormat& fp16() { return *find_storage_format("fp16"); }
}  // namespace

TEST_CASE("GQA cache of Llama 3 70B", "[kv][layout]") {
  const auto c = kv::cache_size(llama70b(), fp16(), from_base<Tokens>(8000), Number::from_value(2));
  CHECK(c.per_token.value() == 327680);
  CHECK(c.per_sequence.value() == 2621440000.0);
  CHECK(c.total.value() == 2 * 2621440000.0);
  CHECK(c.per_device.value() == c.total.value());
}

TEST_CASE("tensor parallelism splits KV heads and replicates them past the head count", "[kv][layout]") {
  const auto m = llama70b();
  const auto tp4 = kv::cache_size(m, fp16(), from_base<Tokens>(1000), Number::from_value(1), {4, 1});
  CHECK(tp4.per_device.value() == Approx(tp4.total.value() / 4));
  const auto tp16 = kv::cache_size(m, fp16(), from_base<Tokens>(1000), Number::from_value(1), {16, 1});
  CHECK(tp16.per_device.value() == Approx(tp16.total.value() / 8));  // one head per rank, replicated
}

TEST_CASE("pipeline stages hold their share of layers", "[kv][layout]") {
  const auto c = kv::cache_size(llama70b(), fp16(), from_base<Tokens>(1000), Number::from_value(1), {1, 3});
  // 80 layers over 3 stages: the busiest holds 27.
  CHECK(c.per_device.value() == Approx(c.total.value() * 27.0 / 80.0));
}

TEST_CASE("sliding-window layers stop growing at the window", "[kv][layout]") {
  ModelArch m = llama70b();
  m.layers = 6;
  m.sliding_window = 1024;
  m.layer_types = {LayerAttention::sliding, LayerAttention::sliding, LayerAttention::sliding,
                   LayerAttention::sliding, LayerAttention::sliding, LayerAttention::full};
  const auto c = kv::cache_size(m, fp16(), from_base<Tokens>(32768), Number::from_value(1));
  const double pos = 2.0 * 8 * 128 * 2;
  CHECK(c.per_sequence.value() == Approx(pos * (5 * 1024 + 32768)));
  const auto short_ctx = kv::cache_size(m, fp16(), from_base<Tokens>(500), Number::from_value(1));
  CHECK(short_ctx.per_sequence.value() == Approx(pos * 6 * 500));
}

TEST_CASE("MLA caches the latent and the RoPE key, replicated under TP", "[kv][layout]") {
  ModelArch m;
  m.layers = 61;
  m.attention_heads = 128;
  m.kv_heads = 128;
  m.head_dim = 128;
  m.layout = AttentionLayout::mla;
  m.mla = MlaDims{512, 64, 128, 128, 1536};
  m.layer_types.assign(61, LayerAttention::full);
  const auto c = kv::cache_size(m, *find_storage_format("bf16"), from_base<Tokens>(1), Number::from_value(1), {8, 1});
  CHECK(c.per_token.value() == 61 * (512 + 64) * 2);
  CHECK(c.per_device.value() == c.total.value());
}

TEST_CASE("layers that share an earlier cache store nothing", "[kv][layout]") {
  ModelArch m = llama70b();
  m.kv_shared_layers = 40;
  const auto c = kv::cache_size(m, fp16(), from_base<Tokens>(1), Number::from_value(1));
  CHECK(c.per_token.value() == 327680 / 2);
  CHECK(c.cached_layers == 40);
}
