// √n activation checkpointing (Chen et al. 2016, "Training Deep Nets with Sublinear Memory Cost") on a real
// chain of layers: keep only every k-th layer input during the forward pass, recompute each segment from its
// checkpoint during the backward pass, and compare gradients with the run that keeps everything.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace infracalc::cluster {

/// Checkpoint interval that minimises peak memory for n layers: ceil(sqrt(n)).
[[nodiscard]] int sqrt_interval(int layers);

/// Layer inputs kept during the forward pass: ceil(n / k) (inputs of layers 1, 1 + k, 1 + 2k, ...).
[[nodiscard]] int checkpoints_kept(int layers, int interval);

/// Peak layer inputs held at once: the checkpoints plus one segment's recomputed inputs, ceil(n/k) + (k - 1)
/// when k divides n (n without checkpointing: every layer input).
[[nodiscard]] int peak_activations(int layers, int interval);

/// Layer forwards re-run during the backward pass: n - ceil(n/k) (each segment's layers but its first, whose
/// input is the checkpoint).
[[nodiscard]] int recomputed_layers(int layers, int interval);

/// One step of a run.
struct ChainEvent {
  /// "forward", "keep", "recompute", "backward", "free".
  std::string what;
  /// 1-based layer.
  int layer = 0;
  /// Layer inputs held after the step.
  int held = 0;
};

/// What a run measured.
struct ChainRun {
  /// Gradient of the loss with respect to the chain's input.
  std::vector<double> input_grad;
  /// Gradients with respect to every layer's scale parameter.
  std::vector<double> param_grad;
  /// Most layer inputs held at once.
  int peak_held = 0;
  /// Layer forwards run in the backward pass.
  int recomputed = 0;
  /// Layer forwards in all.
  int forwards = 0;
  /// Layer inputs kept by the forward pass.
  int kept = 0;
  /// The steps, when recorded.
  std::vector<ChainEvent> events;
};

/// Runs forward and backward through a chain of `layers` tanh layers of width `width` (x <- tanh(a_i x + b_i)),
/// keeping every `interval`-th layer input (interval >= layers keeps only the first; interval 1 keeps all).
[[nodiscard]] ChainRun run_chain(int layers, int width, int interval, bool record);

}  // namespace infracalc::cluster
