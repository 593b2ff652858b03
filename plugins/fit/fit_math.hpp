// Memory-fit formulas: weights per device, the inference waterfall, mixed-precision training state with
// ZeRO sharding, transformer activation memory (Korthikanti et al. 2022) and RLHF resident sets.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/model_arch.hpp"
#include "plugins/formats/storage.hpp"
#include "units/system.hpp"

namespace infracalc::fit {

/// Devices needed to hold `need` when each holds `per_device` (ceil; perfect sharding), at least one; throws
/// UserError naming `driver` when the count passes 9e15.
[[nodiscard]] std::int64_t min_devices(Bytes need, Bytes per_device, std::string_view driver = "--memory");

/// Parameters of one model split into what a pipeline stage and a tensor-parallel rank hold.
struct ParamSplit {
  /// Every parameter (untied input and output embeddings counted separately).
  double total = 0;
  /// Parameters on the busiest device under tp × pp.
  double per_device = 0;
  /// Routed-expert parameters on the busiest device (stored in the expert format when one is given).
  double experts_per_device = 0;
  /// Routed-expert parameters in the whole model.
  double experts_total = 0;
};

/// Splits a model's parameters over tp ranks and pp stages: layers divide over stages (the busiest stage
/// holds ceil(L / pp) layers plus the larger embedding matrix, both when pp = 1), and every matrix divides
/// over tp ranks (Megatron-LM: column/row-parallel linears, vocabulary-parallel embeddings), except K and V
/// heads, which are replicated when there are fewer than tp. Norms are replicated.
[[nodiscard]] ParamSplit split_params(const ModelArch& m, int tp, int pp);

/// Routed-expert parameters of a MoE model (all experts of all MoE layers; shared experts excluded).
[[nodiscard]] double routed_expert_params(const ModelArch& m);

/// Bytes of weights: dense parameters in `dtype`, routed experts in `expert_dtype`.
[[nodiscard]] Bytes weight_bytes(double params, double expert_params, const StorageFormat& dtype,
                                 const StorageFormat& expert_dtype);

/// The per-token working set of one inference forward step on one device: the residual stream and
/// its normalised copy (2h), the attention projections ((heads + 2 kv_heads) × head_dim / tp) and the
/// MLP intermediate (3 × ffn / tp gated, 2 × ffn / tp plain; MoE: top-k experts' widths), in the
/// activation format. An estimate of the live set, not a profile.
[[nodiscard]] BytesPerToken activation_bytes_per_token(const ModelArch& m, int tp, Bytes act_bytes);

/// The memory waterfall on one device.
struct Waterfall {
  /// Weights.
  Bytes weights;
  /// KV cache.
  Bytes kv;
  /// Activations and workspace of one forward step.
  Bytes activations;
  /// Framework reserve (CUDA context, allocator, kernels' workspaces, graphs).
  Bytes framework;
  /// Communication buffers (NCCL and custom all-reduce) when tp × pp > 1.
  Bytes comm;
  /// Sum of the above.
  Bytes total;
};

/// Sums a waterfall.
[[nodiscard]] Bytes waterfall_total(const Waterfall& w);

/// Optimizers whose state the training calculator knows.
enum class Optimizer : std::uint8_t { adam, adamw, sgd, adafactor, adam8bit };

/// The optimizer a choice input names ("adam", "adamw", "sgd", "adafactor", "adam8bit").
[[nodiscard]] Optimizer optimizer_of(std::string_view name);

/// Bytes per parameter of mixed-precision training state.
struct StatePerParam {
  /// Working weights (BF16/FP16: 2).
  Bytes weights;
  /// Gradients (2, or 4 when kept in FP32).
  Bytes grads;
  /// FP32 master weights (4; 0 without a master copy).
  Bytes master;
  /// Optimizer moments (Adam: m and v in FP32, 8; SGD momentum 4; Adafactor factored ≈ 0; 8-bit Adam 2).
  Bytes moments;
  /// Sum.
  Bytes total;
};

/// State per parameter for an optimizer (Rajbhandari et al. 2020, ZeRO, section 3.1: 2 + 2 + 12 = 16
/// bytes for mixed-precision Adam). `weight_bytes` and `grad_bytes` are the working formats.
[[nodiscard]] StatePerParam state_per_param(Optimizer opt, Bytes weight_bytes, Bytes grad_bytes, bool master,
                                            double hidden_size);

/// State bytes on one device under ZeRO stage 0–3 across `dp` data-parallel ranks, for `params`
/// parameters held by this model-parallel rank: stage 1 shards optimizer state (moments and master),
/// stage 2 also gradients, stage 3 also weights (ZeRO paper, figure 1).
struct ShardedState {
  /// Weights on the device.
  Bytes weights;
  /// Gradients on the device.
  Bytes grads;
  /// Master copy and moments on the device.
  Bytes optimizer;
  /// Sum.
  Bytes total;
};

/// Shards training state by ZeRO stage.
[[nodiscard]] ShardedState zero_shard(const StatePerParam& s, double params, int stage, int dp);

/// Activation recomputation strategies.
enum class Recompute : std::uint8_t { none, selective, full };

/// The strategy a choice input names ("none", "selective", "full").
[[nodiscard]] Recompute recompute_of(std::string_view name);

/// What the activation formula needs.
struct ActivationShape {
  /// Sequence length s.
  Tokens seq;
  /// Micro-batch size b.
  double micro_batch = 1;
  /// Hidden size h.
  double hidden = 0;
  /// Attention heads a.
  double heads = 0;
  /// Transformer layers L.
  double layers = 0;
  /// Vocabulary size v (output-layer activations).
  double vocab = 0;
  /// Tensor-parallel size t.
  int tp = 1;
  /// Pipeline-parallel size p.
  int pp = 1;
  /// Sequence parallelism (shards the non-tensor-parallel parts over t).
  bool sequence_parallel = true;
};

/// The activation shape of model `m` trained at sequence length `seq` and `micro_batch` sequences per micro-batch
/// over tp x pp devices, with or without sequence parallelism.
[[nodiscard]] ActivationShape activation_shape(const ModelArch& m, Tokens seq, double micro_batch, int tp, int pp,
                                               bool sequence_parallel);

/// Activation bytes of one transformer layer for one micro-batch (Korthikanti et al. 2022, "Reducing
/// Activation Recomputation in Large Transformer Models", table 2, 16-bit activations): none:
/// sbh(10 + 24/t + 5as/(ht)) (sequence parallel: sbh/t (34 + 5as/h)); selective: sbh(10 + 24/t)
/// (sequence parallel: 34 sbh/t); full: 2sbh (the layer input; /t under sequence parallelism).
[[nodiscard]] Bytes activation_per_layer(const ActivationShape& a, Recompute r);

/// Activation bytes on the busiest device (the first pipeline stage under 1F1B, which keeps p micro-batches
/// of L/p layers: L layers' worth, section 4.3), plus the recomputation working set of one layer under
/// full recomputation, plus the output layer (4sbh/t × (1 + v/h)) when p = 1.
[[nodiscard]] Bytes activation_per_device(const ActivationShape& a, Recompute r);

/// RLHF methods.
enum class RlhfMethod : std::uint8_t { ppo, dpo, grpo };

/// One network resident during RLHF training.
struct ResidentNet {
  /// Its role: policy, critic, reference, reward.
  std::string role;
  /// Parameters.
  double params = 0;
  /// True when it is trained (carries gradients and optimizer state).
  bool trained = false;
  /// Bytes per parameter.
  Bytes per_param;
  /// Bytes of the network.
  Bytes total;
};

/// The networks an RLHF method keeps resident (Ouyang et al. 2022 PPO: policy and critic trained,
/// reference and reward frozen; Rafailov et al. 2023 DPO: policy trained, reference frozen; Shao et al.
/// 2024 GRPO: PPO without the critic, the baseline taken from a group of samples per prompt).
[[nodiscard]] std::vector<ResidentNet> rlhf_networks(RlhfMethod m, double policy, double critic, double reward,
                                                     Bytes trained_per_param, Bytes frozen_per_param, bool reward_model);

}  // namespace infracalc::fit
