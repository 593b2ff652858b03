// What one forward step of a model reads and computes: weights (with the experts a batch touches in a
// mixture-of-experts model), the KV cache at a context length, and the matrix and attention arithmetic.
// The plugin's other math is in files named for their model: decode_roofline, efficiency (calibrated rates),
// decode_parallel (TP and EP communication), decode_attention, decode_offload, decode_speculative, decode_sampling,
// decode_timeline and decode_breakdown.
#pragma once

#include <optional>

#include "catalog/model_arch.hpp"
#include "plugins/decode/decode_roofline.hpp"
#include "plugins/formats/storage.hpp"
#include "units/system.hpp"

namespace infracalc::decode {

/// A model as the step formulas see it.
struct Workload {
  /// The architecture when known; without it attention arithmetic and KV traffic are not modelled.
  std::optional<ModelArch> arch;
  /// Storage of the weights (one format for every weight).
  StorageFormat weights_format{};
  /// Storage of cached keys and values.
  StorageFormat kv_format{};
  /// Parameters stored (all experts).
  double params_total = 0;
  /// Parameters one token passes through (shared weights plus its top-k experts).
  double params_active = 0;
  /// Every stored weight.
  Bytes weights_resident;
  /// Weights every step reads whatever the batch: all but the routed experts and the input-embedding table.
  Bytes weights_always_read;
  /// One routed expert of one layer (zero for dense models).
  Bytes expert_bytes;
  /// Layers with routed experts.
  int moe_layers = 0;
  /// Routed experts per MoE layer.
  int experts = 0;
  /// Routed experts each token activates.
  int experts_per_token = 0;
  /// One row of the input-embedding table, looked up once per token (zero when tied to the output head,
  /// which reads the whole table anyway).
  Bytes embedding_row;
  /// Matrix-product operations per token: 2 × the parameters of every matrix a token passes through.
  Flops matmul_flops_per_token;
};

/// A workload from an architecture: parameter counts from count_params (catalog/model_arch.hpp).
[[nodiscard]] Workload workload_from_arch(const ModelArch& m, const StorageFormat& weights, const StorageFormat& kv);
/// A dense workload from a parameter count alone (no attention or KV modelled).
[[nodiscard]] Workload workload_from_params(double params, const StorageFormat& weights);

/// Expected distinct experts a layer's router selects for `tokens` tokens, each picking k of E uniformly
/// and independently: E · (1 − (1 − k/E)^tokens).
[[nodiscard]] double expected_experts_touched(int experts, int k, double tokens);

/// Weight bytes one step reads when it carries `tokens` tokens in total (all devices together).
[[nodiscard]] Bytes weights_read(const Workload& w, double tokens);

/// Attention operations for one new token at a context of `context` earlier tokens, over all layers:
/// 4 × heads × head_dim per attended position (QKᵀ and PV, 2 operations per multiply-add); MLA in its
/// absorbed form, 2 × heads × (2 × kv_lora_rank + rope dim) per position. Sliding layers attend to at
/// most their window.
[[nodiscard]] Flops attention_flops_per_token(const Workload& w, Tokens context);

/// Attention operations of a prefill of `prompt` tokens for one sequence, over all layers: 4 × N² ×
/// heads × head_dim per layer (every query against every key, as the 4N²d rule counts it), or with
/// `causal` only the N(N+1)/2 query-key pairs a causal mask keeps.
[[nodiscard]] Flops attention_flops_prefill(const Workload& w, Tokens prompt, bool causal);

/// The parts of one step on one device.
struct StepDetail {
  /// Weight bytes read.
  Bytes weights;
  /// KV-cache bytes read (the context already cached).
  Bytes kv_read;
  /// KV-cache bytes written (the new tokens' keys and values).
  Bytes kv_write;
  /// Matrix-product operations.
  Flops matmul_flops;
  /// Attention operations.
  Flops attention_flops;

  /// Everything together.
  [[nodiscard]] StepCost cost() const { return {matmul_flops + attention_flops, weights + kv_read + kv_write}; }
};

/// One decode step on one of `tp` tensor-parallel devices: `batch` sequences with `context` tokens
/// cached each, each adding `new_tokens` tokens (1 for plain decode, k+1 when verifying k draft tokens).
[[nodiscard]] StepDetail decode_step(const Workload& w, double batch, Tokens context, int tp = 1, int new_tokens = 1);

/// A prefill of `batch` prompts of `prompt` tokens in one pass on one of `tp` devices: weights read once,
/// the prompt's keys and values written once; attention's own re-reads of K and V are not counted
/// (FlashAttention keeps them on chip; `decode attention` shows that traffic).
[[nodiscard]] StepDetail prefill_step(const Workload& w, double batch, Tokens prompt, bool causal, int tp = 1);

/// The batch (real-valued) at which a decode step's compute time reaches its memory time on `roof`:
/// the ridge in batch terms. Empty when it never does (KV reads grow as fast as the arithmetic) or the
/// roof has no peak.
[[nodiscard]] std::optional<double> ridge_batch(const Workload& w, const Roof& roof, Tokens context, int tp = 1);

}  // namespace infracalc::decode
