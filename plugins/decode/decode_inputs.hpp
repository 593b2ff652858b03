// Inputs the decode calculators share: the model (from the catalog, a parameter count or raw weight
// bytes), the device's roof (bandwidth and a peak chosen by compute precision), links, and sweeps.
#pragma once

#include <string>
#include <vector>

#include "host/context.hpp"
#include "plugins/decode/decode_parallel.hpp"
#include "plugins/decode/decode_roofline.hpp"
#include "plugins/decode/decode_math.hpp"
#include "host/plugin.hpp"

namespace infracalc::decode {

/// --model and --gpu.
[[nodiscard]] std::vector<CatalogRef> model_gpu_refs();
/// Inputs that describe the model: params, weights_bytes, dtype, kv_dtype and the architecture overrides.
[[nodiscard]] std::vector<Input> model_inputs();
/// Inputs that describe the device: bandwidth, peak, compute_dtype, sparse, mbu, mfu.
[[nodiscard]] std::vector<Input> device_inputs(bool bandwidth_required);
/// Inputs of a scale-up link: link_bandwidth, link_latency, act_dtype.
[[nodiscard]] std::vector<Input> link_inputs();
/// Appends `more` to `base`.
[[nodiscard]] std::vector<Input> join(std::vector<Input> base, const std::vector<Input>& more);

/// The model as the step formulas see it, with provenance cited and notes on what it assumes.
/// `required`: throw when neither --model, --params nor --weights-bytes is given.
[[nodiscard]] std::optional<Workload> resolve_workload(Context& ctx, bool required);

/// The roof after --mbu and --mfu; the peak comes from --peak or the GPU's peak.<precision>_dense (or
/// _sparse with --sparse), where the precision is --compute-dtype or follows --dtype. `need_peak` throws
/// when no peak can be found; without `need_bandwidth` a missing bandwidth is left at zero.
[[nodiscard]] Roof resolve_roof(Context& ctx, bool need_peak, bool need_bandwidth = true);

/// The link from --link-bandwidth / --link-latency, else the GPU's scaleup_bandwidth (both directions
/// combined, so halved); empty when neither is known.
[[nodiscard]] std::optional<Link> resolve_link(Context& ctx);

/// Bytes of one activation value (--act-dtype).
[[nodiscard]] Bytes activation_bytes(Context& ctx);

/// A sweep such as "batch=1..1024" (doubling), "tokens=1k..128k" or "batch=1,8,64".
struct Sweep {
  /// "batch" or "tokens" (or another key the calculator allows).
  std::string key;
  /// The values, in order.
  std::vector<double> values;
};

/// Parses --sweep; `allowed` lists the keys the calculator sweeps.
[[nodiscard]] Sweep parse_sweep(const std::string& text, const std::vector<std::string>& allowed, std::string_view flag);
/// Parses a list of whole numbers ("8", "1..8" doubling, "1,2,4,8") for --tp-like inputs.
[[nodiscard]] std::vector<int> parse_int_list(const std::string& text, std::string_view flag);

/// The batch input as a count (a whole number ≥ 1).
[[nodiscard]] double batch_of(Context& ctx);

/// "memory-bound" or "compute-bound".
[[nodiscard]] const char* bound_word(bool memory_bound);

}  // namespace infracalc::decode
