// KV-cache bytes for whole layouts: GQA, sliding windows, MLA, sharing, and the parallel split.
#include <catch2/catch.hpp>

#include "plugins/kv/kv_arch.hpp"
#include "plugins/kv/kv_layout.hpp"

using namespace infracalc;

namespace {
ModelArch llama70b_layout() {
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
  const auto c = kv::cache_size(llama70b_layout(), fp16(), from_base<Tokens>(8000), Number::from_value(2));
  CHECK(c.per_token.value() == 327680);
  CHECK(c.per_sequence.value() == 2621440000.0);
  CHECK(c.total.value() == 2 * 2621440000.0);
  CHECK(c.per_device.value() == c.total.value());
}

TEST_CASE("tensor parallelism splits KV heads and replicates them past the head count", "[kv][layout]") {
  const auto m = llama70b_layout();
  const auto tp4 = kv::cache_size(m, fp16(), from_base<Tokens>(1000), Number::from_value(1), {4, 1});
  CHECK(tp4.per_device.value() == Approx(tp4.total.value() / 4));
  const auto tp16 = kv::cache_size(m, fp16(), from_base<Tokens>(1000), Number::from_value(1), {16, 1});
  CHECK(tp16.per_device.value() == Approx(tp16.total.value() / 8));  // one head per rank, replicated
}

TEST_CASE("pipeline stages hold their share of layers", "[kv][layout]") {
  const auto c = kv::cache_size(llama70b_layout(), fp16(), from_base<Tokens>(1000), Number::from_value(1), {1, 3});
  // 80 layers over 3 stages: the busiest holds 27.
  CHECK(c.per_device.value() == Approx(c.total.value() * 27.0 / 80.0));
}

TEST_CASE("sliding-window layers stop growing at the window", "[kv][layout]") {
  ModelArch m = llama70b_layout();
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
  ModelArch m = llama70b_layout();
  m.kv_shared_layers = 40;
  const auto c = kv::cache_size(m, fp16(), from_base<Tokens>(1), Number::from_value(1));
  CHECK(c.per_token.value() == 327680 / 2);
  CHECK(c.cached_layers == 40);
}

namespace {
// Gemma 3 27B as published (Gemma 3 technical report; google/gemma-3-27b config): 62 layers, 16 KV heads of
// 128, every sixth layer global, the others a 1,024-token window.
ModelArch gemma3_27b() {
  ModelArch m;
  m.layers = 62;
  m.hidden_size = 5376;
  m.attention_heads = 32;
  m.kv_heads = 16;
  m.head_dim = 128;
  m.sliding_window = 1024;
  for (int l = 0; l < 62; ++l) m.layer_types.push_back((l + 1) % 6 == 0 ? LayerAttention::full : LayerAttention::sliding);
  return m;
}
// DeepSeek-V3 as published (DeepSeek-V3 technical report; deepseek-ai/DeepSeek-V3 config): 61 layers, MLA with a
// 512-wide latent and a 64-wide RoPE key, 128 heads with 128-wide no-RoPE keys and 128-wide values.
ModelArch deepseek_v3() {
  ModelArch m;
  m.layers = 61;
  m.hidden_size = 7168;
  m.attention_heads = 128;
  m.kv_heads = 128;
  m.head_dim = 128;
  m.layout = AttentionLayout::mla;
  m.mla = MlaDims{512, 64, 128, 128, 1536};
  m.layer_types.assign(61, LayerAttention::full);
  return m;
}
const StorageFormat& bf16() { return *find_storage_format("bf16"); }
}  // namespace

TEST_CASE("Gemma 3 27B: 10 global layers grow, 52 stop at the window", "[kv][layout]") {
  const auto m = gemma3_27b();
  const auto c = kv::cache_size(m, bf16(), from_base<Tokens>(131072), Number::from_value(1));
  // Independently: 8,192 B per layer-position x (10 x 131,072 + 52 x 1,024).
  CHECK(c.per_sequence.value() == 8192.0 * (10 * 131072 + 52 * 1024));
  CHECK(c.per_sequence.value() == 11173625856.0);
  CHECK(c.sliding_layers == 52);
  CHECK(c.full_layers == 10);
  CHECK(c.per_token.value() == 62 * 8192.0);
  // Ignoring the windows would overstate it almost six times.
  CHECK(62.0 * 131072 * 8192 / c.per_sequence.value() == Approx(5.958).epsilon(1e-3));
}

TEST_CASE("DeepSeek-V3: 70,272 B per token in BF16, the same on every TP rank", "[kv][layout]") {
  const auto m = deepseek_v3();
  const auto c = kv::cache_size(m, bf16(), from_base<Tokens>(1), Number::from_value(1), {8, 1});
  CHECK(c.per_token.value() == 61 * (512 + 64) * 2);
  CHECK(c.per_token_per_device.value() == 70272);
  // Decompressed MHA of the same heads: keys 128 + 64 wide, values 128 wide, for 128 heads.
  CHECK(kv::mha_position_bytes(m, kv::plain_precision(bf16())).value() == 128.0 * (192 + 128) * 2);
}

TEST_CASE("Llama 3 70B under TP 8 holds one KV head per rank", "[kv][layout]") {
  const auto c = kv::cache_size(llama70b_layout(), fp16(), from_base<Tokens>(1), Number::from_value(1), {8, 1});
  CHECK(c.per_token_per_device.value() == 40960);
  CHECK(kv::kv_heads_per_rank(llama70b_layout(), 8) == 1);
  CHECK(kv::kv_heads_per_rank(llama70b_layout(), 4) == 2);
}

TEST_CASE("quantization scales add their bytes per vector or group", "[kv][layout]") {
  kv::KvPrecision p = kv::plain_precision(*find_storage_format("int4"));
  CHECK(kv::vectors_bytes(p, {kv::VectorRun{2, 128}}).value() == 128);
  p.scales = kv::ScaleGranularity::group;
  p.group_size = 32;
  CHECK(kv::vectors_bytes(p, {kv::VectorRun{1, 128}}).value() == 64 + 4 * 2);
  CHECK(kv::scale_groups(p, 100) == 4);  // a partial group still has a scale
  p.zero_point = true;
  CHECK(kv::vectors_bytes(p, {kv::VectorRun{1, 128}}).value() == 64 + 4 * 4);
  p.scales = kv::ScaleGranularity::vector;
  p.zero_point = false;
  p.scale_bytes = from_base<Bytes>(4);
  CHECK(kv::vectors_bytes(p, {kv::VectorRun{1, 128}}).value() == 64 + 4);
  const auto c = kv::cache_size(llama70b_layout(), p, from_base<Tokens>(1), Number::from_value(1));
  CHECK(c.scales_per_token.value() == 80.0 * 16 * 4);
}

TEST_CASE("the longest context that fits is found to the token", "[kv][layout]") {
  const auto m = llama70b_layout();
  const auto p = kv::plain_precision(fp16());
  CHECK(kv::max_context(m, p, Number::from_value(1), {}, from_base<Bytes>(327680.0 * 1000), 1'000'000) == 1000);
  CHECK(kv::max_context(m, p, Number::from_value(1), {}, from_base<Bytes>(327680.0 * 1000 - 1), 1'000'000) == 999);
  CHECK(kv::max_context(m, p, Number::from_value(4), {8, 1}, from_base<Bytes>(40960.0 * 4 * 500), 1'000'000) == 500);
  CHECK(kv::max_context(m, p, Number::from_value(1), {}, from_base<Bytes>(1), 1'000'000) == 0);
  ModelArch all_sliding = m;
  all_sliding.sliding_window = 4096;
  all_sliding.layer_types.assign(80, LayerAttention::sliding);
  CHECK(kv::max_context(all_sliding, p, Number::from_value(1), {}, from_base<Bytes>(327680.0 * 4096), 1'000'000) == 1'000'000);
}

TEST_CASE("layer positions cap sliding layers and skip shared ones", "[kv][layout]") {
  ModelArch m = llama70b_layout();
  m.layers = 4;
  m.sliding_window = 10;
  m.layer_types = {LayerAttention::sliding, LayerAttention::full, LayerAttention::sliding, LayerAttention::full};
  m.kv_shared_layers = 1;
  CHECK(kv::layer_positions(m, 0, from_base<Tokens>(25)).value() == 10);
  CHECK(kv::layer_positions(m, 1, from_base<Tokens>(25)).value() == 25);
  CHECK(kv::layer_positions(m, 3, from_base<Tokens>(25)).value() == 0);
  CHECK_FALSE(kv::layer_cached(m, 3));
}

namespace {
// Mamba-2 2.7B (state-spaces/mamba2-2.7b config: d_model 2560, n_layer 64, d_state 128, headdim 64, expand 2,
// ngroups 1, d_conv 4, vocab 50,288 padded, tied): every layer a Mamba-2 mixer, no attention and no MLP.
ModelArch mamba2_2_7b() {
  ModelArch m;
  m.layers = 64;
  m.hidden_size = 2560;
  m.attention_heads = 1;
  m.kv_heads = 1;
  m.head_dim = 64;
  m.vocab_size = 50288;
  m.tied_embeddings = true;
  m.layer_types.assign(64, LayerAttention::state_space);
  SsmDims d;
  d.kind = SsmKind::mamba2;
  d.d_state = 128;
  d.d_conv = 4;
  d.d_inner = 5120;
  d.heads = 80;
  d.groups = 1;
  m.ssm = d;
  return m;
}
}  // namespace

TEST_CASE("a hybrid's Mamba state is the same at every context; only the attention layers grow", "[kv][layout][ssm]") {
  ModelArch m = llama70b_layout();
  m.layers = 8;
  m.layer_types = {LayerAttention::state_space, LayerAttention::state_space, LayerAttention::state_space, LayerAttention::full,
                   LayerAttention::state_space, LayerAttention::state_space, LayerAttention::state_space, LayerAttention::full};
  SsmDims d;
  d.d_state = 16;
  d.d_conv = 4;
  d.d_inner = 2 * 8192;
  d.dt_rank = 512;
  d.state_dtype = "fp32";
  m.ssm = d;
  const auto short_ctx = kv::cache_size(m, fp16(), from_base<Tokens>(1000), Number::from_value(1));
  const auto long_ctx = kv::cache_size(m, fp16(), from_base<Tokens>(100000), Number::from_value(1));
  const double state = 6.0 * (3.0 * d.d_inner + 1.0 * d.d_inner * d.d_state) * 4.0;  // six layers, fp32
  CHECK(short_ctx.ssm_layers == 6);
  CHECK(short_ctx.cached_layers == 2);
  CHECK(short_ctx.ssm_state_per_sequence.value() == state);
  CHECK(long_ctx.ssm_state_per_sequence.value() == state);
  CHECK(short_ctx.per_token.value() == 2.0 * 2 * 8 * 128 * 2);
  CHECK(long_ctx.per_sequence.value() - short_ctx.per_sequence.value() == Approx(99000.0 * short_ctx.per_token.value()));
  // Two pipeline stages of four layers each hold three Mamba states and one attention layer.
  const auto pp2 = kv::cache_size(m, fp16(), from_base<Tokens>(1000), Number::from_value(1), {1, 2});
  CHECK(pp2.per_device.value() == Approx(short_ctx.per_sequence.value() / 2));
}

TEST_CASE("Mamba-2 2.7B: mixer parameters and state from mamba_ssm's Mamba2 and vLLM's state shapes", "[kv][layout][ssm]") {
  const ModelArch m = mamba2_2_7b();
  // in_proj to z, x, B, C, dt; conv over x, B, C with a bias; dt_bias, A_log, D per head; gated norm; out_proj.
  const double h = 2560, di = 5120, conv_dim = di + 2 * 128, heads = 80;
  const double mixer = h * (2 * di + 2 * 128 + heads) + conv_dim * 4 + conv_dim + 3 * heads + di + di * h;
  CHECK(ssm_mixer_params(*m.ssm, m.hidden_size) == mixer);
  const ParamCount c = count_params(m);
  CHECK(c.attention == 0);
  CHECK(c.ssm == 64 * mixer);
  CHECK(c.total == Approx(2.7e9).epsilon(0.01));  // published as 2.7B
  const auto [conv, state] = ssm_state_elements(*m.ssm, 1);
  CHECK(conv == 3 * conv_dim);
  CHECK(state == heads * 64 * 128);
  const auto tp2 = ssm_state_elements(*m.ssm, 2);
  CHECK(tp2.first == 3 * conv_dim / 2);
  CHECK(tp2.second == state / 2);
}

TEST_CASE("a whole context and a fractional one split over pipeline stages alike", "[kv][layout]") {
  // cache_size multiplies a whole number of positions by the layers of each stage and sums a fractional one layer
  // by layer: both must give each stage the same layers.
  for (const int layers : {1, 7, 61, 80}) {
    ModelArch m = llama70b_layout();
    m.layers = layers;
    m.layer_types.assign(static_cast<std::size_t>(layers), LayerAttention::full);
    for (int pp = 1; pp <= 12; ++pp) {
      const auto whole = kv::cache_size(m, fp16(), from_base<Tokens>(1000), Number::from_value(3), {2, pp});
      const auto frac = kv::cache_size(m, fp16(), from_base<Tokens>(1000.5), Number::from_value(3), {2, pp});
      CAPTURE(layers, pp);
      CHECK(whole.per_token_per_device.value() == frac.per_token_per_device.value());
      CHECK(whole.per_device.value() == Approx(frac.per_device.value() * 1000 / 1000.5).epsilon(1e-12));
      CHECK(whole.per_sequence.value() == Approx(frac.per_sequence.value() * 1000 / 1000.5).epsilon(1e-12));
      const int busiest = std::min(layers, (layers + pp - 1) / pp);
      CHECK(whole.per_token_per_device.value() == busiest * kv::bytes_per_position(m, fp16(), 2).value());
    }
  }
}
