// A model's architecture read from its catalog file: what kv, fit and decode need to size it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.hpp"
#include "units/expected.hpp"

namespace infracalc {

/// How a model's attention caches keys and values.
enum class AttentionLayout : std::uint8_t {
  mha,  ///< one KV head per query head
  gqa,  ///< groups of query heads share a KV head
  mqa,  ///< one KV head for all query heads
  mla,  ///< multi-head latent attention: a compressed latent plus a decoupled RoPE key per layer
};

/// What one layer attends to.
enum class LayerAttention : std::uint8_t {
  full,         ///< every earlier token
  sliding,      ///< only the last `sliding_window` tokens
  state_space,  ///< a Mamba (selective state-space) mixer: a fixed recurrent state per sequence, no KV cache
};

/// Which Mamba mixer a state-space layer uses.
enum class SsmKind : std::uint8_t {
  mamba,   ///< Mamba-1 (Gu and Dao 2023): x_proj/dt_proj, a state of d_inner x d_state
  mamba2,  ///< Mamba-2 (Dao and Gu 2024): one in_proj with B/C groups and per-head dt, a state of heads x head_dim x d_state
};

/// Dimensions of the Mamba mixer of a hybrid or state-space model (mamba_ssm / Hugging Face config names).
struct SsmDims {
  /// Mamba-1 or Mamba-2.
  SsmKind kind = SsmKind::mamba;
  /// State width per channel (d_state, mamba_d_state, ssm_state_size).
  int d_state = 0;
  /// Causal convolution kernel width (d_conv, mamba_d_conv, conv_kernel).
  int d_conv = 0;
  /// Inner (expanded) width: expand x hidden_size, or mamba_num_heads x mamba_head_dim for Mamba-2.
  int d_inner = 0;
  /// Mamba-1: rank of the dt projection (dt_rank, mamba_dt_rank; ceil(hidden / 16) by default).
  int dt_rank = 0;
  /// Mamba-2: SSM heads (d_inner / head_dim).
  int heads = 0;
  /// Mamba-2: groups that share B and C (n_groups).
  int groups = 0;
  /// The convolution carries a bias (conv_bias; true in mamba_ssm).
  bool conv_bias = true;
  /// in_proj and out_proj carry biases (bias / mamba_proj_bias; false in mamba_ssm).
  bool proj_bias = false;
  /// Jamba: RMSNorms on dt, B and C inside the mixer (JambaMambaMixer dt_layernorm, b_layernorm, c_layernorm).
  bool inner_norms = false;
  /// Storage format of the recurrent state (conv and SSM state), e.g. "bf16" or "fp32".
  std::string state_dtype = "bf16";
};

/// Multi-head latent attention dimensions (DeepSeek-V2/V3 config names).
struct MlaDims {
  /// Width of the compressed KV latent (kv_lora_rank).
  int kv_lora_rank = 0;
  /// Width of the decoupled RoPE key (qk_rope_head_dim), shared across heads.
  int qk_rope_head_dim = 0;
  /// Per-head query/key width without RoPE (qk_nope_head_dim).
  int qk_nope_head_dim = 0;
  /// Per-head value width (v_head_dim).
  int v_head_dim = 0;
  /// Width of the compressed query (q_lora_rank); 0 when queries are not compressed.
  int q_lora_rank = 0;
};

/// Mixture-of-experts dimensions.
struct MoeDims {
  /// Routed experts per MoE layer.
  int experts = 0;
  /// Routed experts each token activates (top-k).
  int experts_per_token = 0;
  /// Shared experts every token passes through.
  int shared_experts = 0;
  /// Intermediate (FFN) width of one expert.
  int expert_ffn_size = 0;
  /// Leading layers that use a dense MLP (of ffn_size) instead of experts.
  int dense_layers = 0;
};

/// The architecture of one model.
struct ModelArch {
  /// Catalog id.
  std::string id;
  /// Transformer layers.
  int layers = 0;
  /// Model (residual) width.
  int hidden_size = 0;
  /// Query heads per layer.
  int attention_heads = 0;
  /// Key/value heads per layer.
  int kv_heads = 0;
  /// Width of one attention head.
  int head_dim = 0;
  /// Dense MLP intermediate width.
  int ffn_size = 0;
  /// Vocabulary size.
  int vocab_size = 0;
  /// True for gated MLPs (SwiGLU, GeGLU): three matrices instead of two.
  bool gated_mlp = true;
  /// True when input embeddings and the output head share one matrix.
  bool tied_embeddings = false;
  /// True when q, k and v projections carry biases (Qwen2).
  bool attention_bias = false;
  /// True when every linear layer carries a bias: q/k/v and output projections and the MLP (GPT-2, GPT-NeoX).
  bool linear_bias = false;
  /// True for LayerNorm with a bias (GPT-2, GPT-NeoX, Falcon); false for RMSNorm (a weight only).
  bool norm_bias = false;
  /// Learned absolute position embeddings (GPT-2's wpe: n_positions rows); 0 for RoPE or ALiBi.
  std::int64_t learned_positions = 0;
  /// Longest context the model supports, in tokens.
  std::int64_t max_context = 0;
  /// KV layout.
  AttentionLayout layout = AttentionLayout::gqa;
  /// What each layer attends to (size == layers).
  std::vector<LayerAttention> layer_types;
  /// Window of sliding layers in tokens (0 when there are none).
  std::int64_t sliding_window = 0;
  /// Layers that reuse the KV cache of an earlier layer (cross-layer sharing); they store nothing.
  int kv_shared_layers = 0;
  /// MLA dimensions when layout is mla.
  std::optional<MlaDims> mla;
  /// MoE dimensions when the model has experts.
  std::optional<MoeDims> moe;
  /// Mamba mixer dimensions when some layers are state-space layers (layer_types holds state_space).
  std::optional<SsmDims> ssm;
  /// Published total parameter count (params_total).
  double params_total_published = 0;
  /// Published active parameter count (params_active; 0 for dense models).
  double params_active_published = 0;
  /// True when the published active count leaves out the input embedding (gpt-oss model card).
  bool active_excludes_embedding = false;
};

/// Parameter counts computed from the architecture (plain counts).
struct ParamCount {
  /// Input embeddings plus the output head (once when tied).
  double embeddings = 0;
  /// Attention projections over all layers.
  double attention = 0;
  /// MLPs or experts over all layers (all experts).
  double mlp = 0;
  /// MoE routers over all layers.
  double router = 0;
  /// Normalisation weights.
  double norms = 0;
  /// Mamba mixers over all state-space layers.
  double ssm = 0;
  /// Everything.
  double total = 0;
  /// What one token touches: shared weights plus the routed experts it activates.
  double active = 0;
};

/// Limits of a model's structural counts, far past any real model, applied alike to data files (read_model_arch),
/// `model import` and the architecture flags (--layers, --heads, ...): within them every per-layer table is small
/// and the parameter count is finite, so a mistyped count is an error naming the field, never a hang.
/// Transformer layers (the deepest published models have a few hundred).
inline constexpr std::int64_t kMaxLayers = 10'000;
/// Query or key/value heads per layer.
inline constexpr std::int64_t kMaxHeads = 100'000;
/// Width of one head (head_dim and the MLA per-head widths).
inline constexpr std::int64_t kMaxHeadDim = 100'000;
/// Residual, MLP, expert and latent widths.
inline constexpr std::int64_t kMaxWidth = 10'000'000;
/// Vocabulary size.
inline constexpr std::int64_t kMaxVocab = 100'000'000;
/// Routed or shared experts per MoE layer.
inline constexpr std::int64_t kMaxExperts = 1'000'000;
/// The most parameters a model may have (params_total and the count computed from the architecture).
inline constexpr double kMaxParams = 1e15;
/// Why the structural limits are what they are, for error hints.
inline constexpr std::string_view kModelLimitWhy = "no real model comes near this; the value is probably mistyped";

/// Reads a model entry; errors name file:line:col and the field. `cited` collects provenance when given.
[[nodiscard]] Expected<ModelArch> read_model_arch(const Entry& e, std::vector<Provenance>* cited = nullptr);

/// What read_model_arch gives for one entry, kept by Entry::model_arch().
struct ModelArchRead {
  /// The architecture, or the error reading it.
  Expected<ModelArch> arch;
  /// The provenance read_model_arch collected.
  std::vector<Provenance> cited;
};

/// Parameter counts from the architecture (embeddings, attention incl. MLA, dense or MoE MLPs, routers, norms).
[[nodiscard]] ParamCount count_params(const ModelArch& m);

/// The active count computed the way the model's publisher counts it (without the input embedding
/// when `m.active_excludes_embedding`), for comparison with params_active.
[[nodiscard]] double active_as_published(const ModelArch& m, const ParamCount& c);

/// Layers whose type is `kind`.
[[nodiscard]] int count_layers(const ModelArch& m, LayerAttention kind);

/// Parameters of one Mamba mixer of model width `hidden` (in_proj, conv1d, x_proj/dt_proj or Mamba-2's fused
/// projection, A_log, D, dt bias, inner norms, out_proj).
[[nodiscard]] double ssm_mixer_params(const SsmDims& d, int hidden);

/// The recurrent state elements of one Mamba layer for one sequence: {conv state, SSM state}, split over `tp`
/// tensor-parallel ranks (vLLM MambaStateShapeCalculator: conv (d_conv - 1) x channels, SSM d_inner x d_state).
[[nodiscard]] std::pair<double, double> ssm_state_elements(const SsmDims& d, int tp);

/// "mha", "gqa", "mqa" or "mla".
[[nodiscard]] const char* layout_name(AttentionLayout l);

}  // namespace infracalc
