// How long one engine iteration takes. A step carries some sequences, each processing a number of new
// tokens on top of the context it already has cached: one token for a decoding sequence, a chunk of its
// prompt for a prefilling one (Sarathi-Serve and vLLM's chunked prefill mix both in one step). The
// roofline model prices a step with the decode plugin's workload and roof; the linear model takes
// measured step times.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "plugins/decode/decode_parallel.hpp"
#include "plugins/decode/decode_roofline.hpp"
#include "plugins/decode/decode_math.hpp"
#include "plugins/decode/efficiency.hpp"
#include "units/system.hpp"

namespace infracalc::serve {

/// The work one sequence does in one step.
struct SeqWork {
  /// Tokens whose keys and values are already cached.
  std::int64_t context = 0;
  /// New tokens processed this step (1 for decode, a prompt chunk for prefill).
  std::int64_t tokens = 1;
  /// True for a prefill chunk (MLA attends differently when prefilling; measured models price it apart).
  bool prefill = false;
};

/// Sequences that each decode one token in a step, known by their count and the sum of their cached contexts.
struct DecodeGroup {
  /// Decoding sequences.
  std::int64_t sequences = 0;
  /// Tokens cached over all of them.
  std::int64_t context_sum = 0;
  /// Of them, those whose context is shorter than the model's sliding window (StepModel::window()).
  std::int64_t below_window = 0;
  /// Tokens cached over those.
  std::int64_t below_window_context = 0;
};

/// Prices one step of an inference engine.
class StepModel {
 public:
  /// Virtual destructor.
  virtual ~StepModel() = default;
  /// Time of a step carrying `work` (one entry per sequence); an empty step takes no time.
  [[nodiscard]] virtual Seconds time(std::span<const SeqWork> work) const = 0;
  /// Time of a step carrying `batch` sequences that all do `work`; the same as time() on `batch` copies.
  [[nodiscard]] virtual Seconds uniform_time(std::int64_t batch, const SeqWork& work) const;
  /// True when group_time(group, rest) gives exactly the double time() gives for the group's decodes, one entry per
  /// sequence in any order, followed by `rest`: the model needs only the group's counts and context sums, and its
  /// sums over them are whole numbers below 2^53, so no order rounds differently. False (the default) where a sum
  /// could round.
  [[nodiscard]] virtual bool prices_group(const DecodeGroup& group) const;
  /// time() of the step whose work is the group's decodes followed by `rest`; only where prices_group(group).
  [[nodiscard]] virtual Seconds group_time(const DecodeGroup& group, std::span<const SeqWork> rest) const;
  /// The sliding window a group's below_window counts against, in tokens; 0 when the model has none.
  [[nodiscard]] virtual std::int64_t window() const { return 0; }
};

/// The roofline model of decode::decode_step and decode::prefill_step, generalised to a step that mixes
/// sequences at different contexts and chunk sizes: weights read once per step (the experts a MoE
/// batch touches), matrix products for every token, each sequence's cached KV read and its new tokens'
/// KV written, attention over every (query, key) pair a causal mask keeps; time = decode::step_time
/// (max of memory and compute, plus tensor-parallel all-reduces and a fixed overhead).
class RooflineStepModel final : public StepModel {
 public:
  /// A model on one replica of `tp` devices; `link` prices the all-reduces (none: not counted).
  RooflineStepModel(decode::Workload workload, decode::Roof roof, int tp, std::optional<decode::Link> link,
                    Bytes activation_bytes, Seconds overhead);

  /// Bytes and operations of a step on one device.
  [[nodiscard]] decode::StepDetail detail(std::span<const SeqWork> work) const;
  /// Bytes and operations of `batch` sequences all doing `work`.
  [[nodiscard]] decode::StepDetail uniform_detail(std::int64_t batch, const SeqWork& work) const;
  /// The step's memory, compute and communication times.
  [[nodiscard]] decode::StepTime step(std::span<const SeqWork> work) const;
  /// The times of a uniform step.
  [[nodiscard]] decode::StepTime uniform_step(std::int64_t batch, const SeqWork& work) const;
  /// step(work).total.
  [[nodiscard]] Seconds time(std::span<const SeqWork> work) const override;
  /// A uniform batch priced in constant time: one sequence's reads and arithmetic times the batch.
  [[nodiscard]] Seconds uniform_time(std::int64_t batch, const SeqWork& work) const override;
  /// Exact for a model whose per-pair attention cost is a whole number of operations, up to 2^53 of them.
  [[nodiscard]] bool prices_group(const DecodeGroup& group) const override;
  /// The step priced from the group's sums, then `rest` as time() adds it.
  [[nodiscard]] Seconds group_time(const DecodeGroup& group, std::span<const SeqWork> rest) const override;
  /// The model's sliding window (0: none).
  [[nodiscard]] std::int64_t window() const override { return static_cast<std::int64_t>(window_); }

  /// The same replica priced as real engines run it: calibrated efficiencies `e` of `engine` for
  /// `bits`-bit arithmetic (decode::calibrated_step_time), collectives at their calibrated bandwidth.
  [[nodiscard]] RooflineStepModel calibrated(const decode::Efficiency& e, decode::Engine engine, int bits) const;

  /// The workload being served.
  [[nodiscard]] const decode::Workload& workload() const { return w_; }
  /// The roof it runs on.
  [[nodiscard]] const decode::Roof& roof() const { return roof_; }
  /// Tensor-parallel devices per replica.
  [[nodiscard]] int tp() const { return tp_; }

 private:
  decode::Workload w_;
  decode::Roof roof_;
  int tp_;
  std::optional<decode::Link> link_;
  Bytes act_bytes_;
  Seconds overhead_;
  // What a step's sequences add up to.
  struct Sums {
    double tokens = 0;
    double read_full = 0;
    double read_sliding = 0;
    double write_full = 0;
    double write_sliding = 0;
    double attention = 0;
  };
  // Adds each sequence of `work` to `sums`, in order.
  void add(Sums& sums, std::span<const SeqWork> work) const;
  // Prices a step from its per-sequence sums.
  [[nodiscard]] decode::StepDetail from_sums(const Sums& sums) const;
  [[nodiscard]] decode::StepTime priced(const decode::StepDetail& d, double tokens, double sequences) const;
  // Calibrated pricing when set (see calibrated()).
  const decode::Efficiency* eff_ = nullptr;
  decode::Engine engine_ = decode::Engine::generic;
  int bits_ = 16;
  // Per-device KV bytes of one cached position over the full-attention and the sliding cached layers.
  Bytes kv_full_;
  Bytes kv_sliding_;
  // Attention layers (cached or shared) that attend fully or over the window.
  double attn_full_layers_ = 0;
  double attn_sliding_layers_ = 0;
  double window_ = 0;
  // Operations per (query, key) pair of one layer, decoding and prefilling (they differ for MLA).
  double pair_decode_ = 0;
  double pair_prefill_ = 0;
  // Whether a decode group's sums are exact (prices_group), and the most attended pairs (Σ context + sequences) for
  // which pair_decode_ × pairs × attention layers stays below 2^53.
  bool group_exact_ = false;
  double group_pairs_cap_ = 0;
};

/// A step model from measured times: `base` for every step that decodes (reading the weights),
/// `per_sequence` for each decoding sequence (its KV), `per_prompt_token` for each prefilled token.
class LinearStepModel final : public StepModel {
 public:
  /// The three coefficients; zero coefficients are allowed (a prefill that takes no time).
  LinearStepModel(Seconds base, Seconds per_sequence, Seconds per_prompt_token);
  /// base × [the step decodes] + per_sequence × decoding sequences + per_prompt_token × prefill tokens.
  [[nodiscard]] Seconds time(std::span<const SeqWork> work) const override;
  /// The same for `batch` copies of `work`, in constant time.
  [[nodiscard]] Seconds uniform_time(std::int64_t batch, const SeqWork& work) const override;
  /// Always exact: the model counts decoding sequences and prompt tokens, whole numbers.
  [[nodiscard]] bool prices_group(const DecodeGroup& group) const override;
  /// The group's sequences counted as decodes, then `rest` as time() adds it.
  [[nodiscard]] Seconds group_time(const DecodeGroup& group, std::span<const SeqWork> rest) const override;

 private:
  // time() of `decoding` sequences that decode besides `rest`.
  [[nodiscard]] Seconds with_decodes(double decoding, std::span<const SeqWork> rest) const;
  Seconds base_;
  Seconds per_sequence_;
  Seconds per_prompt_token_;
};

}  // namespace infracalc::serve
