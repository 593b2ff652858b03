// A model's architecture read from its catalog file: what kv, fit and decode need to size it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "plugins/catalog/catalog.hpp"
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
  full,     ///< every earlier token
  sliding,  ///< only the last `sliding_window` tokens
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

/// "mha", "gqa", "mqa" or "mla".
[[nodiscard]] const char* layout_name(AttentionLayout l);

}  // namespace infracalc
