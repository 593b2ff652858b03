// The calibrated efficiency models: what share of a datasheet roof real kernels reach, as small typed
// functions of the work's shape. Every rate follows Hockney's two-parameter law (Hockney and Jesshope,
// "Parallel Computers", 1981; Hockney, "The communication challenge for MPP", 1994): an operation of
// size n runs at r∞ · n / (n + n½), where r∞ is the asymptotic rate and n½ the size that reaches half of
// it; a fixed start-up cost is the same law in time form (t = (n + n½) / r∞). The parameters live in
// data/calibration/efficiency.toml, written by `infracalc calibrate --published` from data/measured/.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "plugins/decode/decode_roofline.hpp"
#include "units/system.hpp"

namespace infracalc::decode {

/// The inference or training engine class a figure is for: engines differ in per-step overhead (CUDA
/// graphs, Python schedulers) and in how close their kernels come to the roof.
enum class Engine : std::uint8_t { generic, trtllm, vllm, sglang, llamacpp, megatron };

/// Every engine, in declaration order.
inline constexpr std::array<Engine, 6> kEngines = {Engine::generic, Engine::trtllm,   Engine::vllm,
                                                   Engine::sglang,  Engine::llamacpp, Engine::megatron};

/// "generic", "trtllm", ...
[[nodiscard]] const char* engine_name(Engine e);
/// Parses an engine name; nullopt when unknown.
[[nodiscard]] std::optional<Engine> parse_engine(std::string_view s);

/// What one engine class changes.
struct EngineEfficiency {
  /// Multiplies the asymptotic bandwidth share.
  double bandwidth_scale = 1;
  /// Multiplies the asymptotic matrix-multiply share.
  double compute_scale = 1;
  /// Fixed time every step costs (launches, scheduling, sampling).
  Seconds step_overhead;
  /// Sequences the engine batches at most by default (its max batch size).
  std::int64_t max_batch = 256;
};

/// The parameters of every efficiency model.
struct Efficiency {
  /// Asymptotic share of the datasheet memory bandwidth a streaming step reaches.
  double bandwidth_fraction = 1;
  /// Bytes per step per device at which half the asymptote is reached (n½).
  Bytes bandwidth_half;
  /// Asymptotic share of the dense peak a large matrix multiply reaches, at 16-, 8- and 4-bit operands.
  double matmul_fraction_16 = 1, matmul_fraction_8 = 1, matmul_fraction_4 = 1;
  /// Tokens per step (the GEMM's M dimension) at which half the asymptote is reached.
  double matmul_half_tokens = 0;
  /// Share of the peak fused attention kernels reach in prefill (FlashAttention-style).
  double attention_fraction = 1;
  /// Asymptotic share of the link bandwidth a collective reaches (nccl-tests bus bandwidth / link).
  double collective_fraction = 1;
  /// Message size at which a collective reaches half of it.
  Bytes collective_half;
  /// Time each step of a collective costs beyond its bytes.
  Seconds collective_latency;
  /// Scheduling and sampling time per sequence in a step.
  Seconds sequence_overhead;
  /// Share of a training step's tensor-parallel communication hidden behind the GEMMs it feeds.
  double training_comm_overlap = 0;
  /// Per engine class, indexed by Engine.
  std::array<EngineEfficiency, kEngines.size()> engines{};
  /// True for the ceiling: every share 1, no overhead.
  bool ideal = true;

  /// The engine's parameters.
  [[nodiscard]] const EngineEfficiency& engine(Engine e) const { return engines[static_cast<std::size_t>(e)]; }
};

/// The error band of the expected figures of one kind, from the calibration.
struct ErrorBand {
  /// Median |expected / measured − 1| over the points.
  double median = 0;
  /// 90th percentile of the same.
  double p90 = 0;
  /// Published points it was measured on.
  int points = 0;
  /// Median |error| when each point is predicted by a fit without it (leave-one-out).
  double loo_median = 0;
};

/// The efficiency parameters in use: a calibration set by ScopedEfficiency, else the shipped
/// data/calibration/efficiency.toml (read on the first call).
[[nodiscard]] const Efficiency& efficiency();
/// The literature priors the fit starts from and pulls towards (data/calibration/efficiency-prior.toml), so
/// that a refit does not depend on the previous one.
[[nodiscard]] const Efficiency& prior_efficiency();
/// The ceiling: every share 1 and no overhead (physics at 100% of the datasheet).
[[nodiscard]] const Efficiency& ideal_efficiency();
/// The error band of `kind` ("inference" or "training") from the shipped calibration.
[[nodiscard]] ErrorBand error_band(std::string_view kind);
/// "within ±12% (90% of 23 published points; median 6%)", for notes beside an expected figure.
[[nodiscard]] std::string band_text(std::string_view kind);

/// Replaces the parameters efficiency() returns while it lives (the fit evaluates candidates this way).
class ScopedEfficiency {
 public:
  /// Installs `e` (kept by reference; it must outlive this object).
  explicit ScopedEfficiency(const Efficiency& e);
  /// Restores the previous parameters.
  ~ScopedEfficiency();
  ScopedEfficiency(const ScopedEfficiency&) = delete;
  ScopedEfficiency& operator=(const ScopedEfficiency&) = delete;

 private:
  const Efficiency* previous_;
};

/// Share of the bandwidth a step moving `bytes` per device reaches: bandwidth_fraction × engine scale ×
/// bytes / (bytes + bandwidth_half).
[[nodiscard]] double bandwidth_share(const Efficiency& e, Engine engine, Bytes bytes);
/// Share of the peak a matrix multiply with `tokens` rows at `bits`-bit operands reaches:
/// matmul_fraction(bits) × engine scale × tokens / (tokens + matmul_half_tokens).
[[nodiscard]] double matmul_share(const Efficiency& e, Engine engine, double tokens, int bits);
/// Time of a ring collective that moves `per_rank` bytes per rank in `steps` steps of a `message`-byte
/// buffer over a link of `bandwidth`: steps × latency + per_rank / (bandwidth × collective share(message)).
[[nodiscard]] Seconds collective_time(const Efficiency& e, Bytes message, Bytes per_rank, std::int64_t steps,
                                      BytesPerSecond bandwidth);
/// Fixed time of one step carrying `sequences` sequences: the engine's step overhead + sequence_overhead
/// × sequences.
[[nodiscard]] Seconds step_overhead(const Efficiency& e, Engine engine, double sequences);

/// What the efficiency model needs to know about a step beyond its bytes and operations.
struct StepShape {
  /// Tokens the step carries on each device (the GEMMs' M dimension).
  double tokens = 1;
  /// Sequences in the step (the per-sequence overhead).
  double sequences = 1;
  /// Operand width of the matrix multiplies, in bits.
  int bits = 16;
  /// Of the step's operations, those of fused attention (priced at attention_fraction).
  Flops attention;
};

/// A step priced with `e` on the datasheet roof `roof` (no --mbu/--mfu applied): memory at the bandwidth
/// share, matrix multiplies at the matmul share and attention at the attention share (memory and compute
/// overlap: the longer wins), then `communication` and the step overhead added. With the ideal
/// parameters this is step_time(cost, roof, communication).
[[nodiscard]] StepTime calibrated_step_time(const Efficiency& e, Engine engine, const StepCost& cost,
                                            const StepShape& shape, const Roof& roof, Seconds communication);

/// Bits of one operand at a compute precision ("fp8" → 8, "bf16" → 16, "nvfp4" → 4; unknown → 16).
[[nodiscard]] int precision_bits(std::string_view precision);

}  // namespace infracalc::decode
