// Fine-tuning formulas: which matrices LoRA adapts, its trainable parameters, the 4-bit NormalFloat base of
// QLoRA, and the arithmetic of a fine-tuning step (full or adapter-only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "catalog/model_arch.hpp"

namespace infracalc::fit {

/// Fine-tuning methods.
enum class FinetuneMethod : std::uint8_t {
  full,   ///< every parameter trains
  lora,   ///< frozen 16-bit base, low-rank adapters train (Hu et al. 2021)
  qlora,  ///< frozen 4-bit NormalFloat base, low-rank adapters train (Dettmers et al. 2023)
};

/// The linear layers LoRA adapts.
enum class LoraTargets : std::uint8_t {
  qv,    ///< query and value projections only (Hu et al. 2021, section 7.1; PEFT's default for Llama)
  attn,  ///< attention projections (q, k, v, o; MLA's down- and up-projections)
  mlp,   ///< MLP or expert matrices (gate, up, down)
  all,   ///< both: every linear layer but the embeddings, the output head and MoE routers
};

/// One kind of adapted matrix: W is d_in × d_out; its adapter adds B·A with A r × d_in and B d_out × r.
struct LoraMatrix {
  /// Its name (q, k, v, o, q_a, q_b, kv_a, kv_b, gate, up, down, expert gate, ...).
  std::string name;
  /// Input width.
  double d_in = 0;
  /// Output width.
  double d_out = 0;
  /// Copies in the whole model (layers, times experts for expert matrices).
  double copies = 0;
  /// Copies one token passes through (a MoE token visits its top-k and shared experts only).
  double copies_active = 0;
};

/// The matrices LoRA adapts in a model (PEFT's target_modules): attention projections per layer (MLA: the
/// query and KV down- and up-projections), dense MLP matrices (two for a plain MLP, three gated), and the
/// matrices of every routed and shared expert.
[[nodiscard]] std::vector<LoraMatrix> lora_matrices(const ModelArch& m, LoraTargets targets);

/// Adapter parameters: Σ copies × r × (d_in + d_out) (Hu et al. 2021, section 4.1).
[[nodiscard]] double lora_params(const std::vector<LoraMatrix>& mats, double rank);

/// Adapter parameters one token passes through (MoE: only its experts' adapters).
[[nodiscard]] double lora_params_active(const std::vector<LoraMatrix>& mats, double rank);

/// Bits per value of QLoRA's base weights: 4-bit NormalFloat in blocks of 64 with an FP32 absmax each, the
/// absmax constants themselves quantized to FP8 in blocks of 256 with an FP32 second-level constant
/// (double quantization, Dettmers et al. 2023, section 3): 4 + 8/64 + 32/(64 × 256) = 4.127 bits.
inline constexpr double kNf4DoubleQuantBits = 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0);

/// Model FLOPs of one training token. Full fine-tuning: 6 N (forward 2N, backward 4N: gradients of
/// activations and of weights). Adapter methods: the frozen base still runs forward and passes activation
/// gradients back (2N + 2N) but computes no weight gradients, and the adapters take 6 per parameter:
/// 4 N + 6 A. Attention scores add 12 L s d_attn per token in both (PaLM, Chowdhery et al. 2022,
/// appendix B), having no weights.
[[nodiscard]] double finetune_flops_per_token(FinetuneMethod method, double active_params, double active_adapter,
                                              double attention_flops);

}  // namespace infracalc::fit
