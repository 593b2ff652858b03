// The model a fit calculator sizes: a catalog model (--model), architecture flags, or a bare parameter
// count, with explicit flags overriding catalog values.
#pragma once

#include <optional>
#include <vector>

#include "catalog/model_arch.hpp"
#include "host/context.hpp"
#include "plugins/fit/fit_math.hpp"

namespace infracalc::fit {

/// The architecture inputs every fit calculator accepts (all optional; --model fills them).
[[nodiscard]] std::vector<Input> model_inputs();

/// The optimizer-state inputs of the training calculators: --optimizer, --weights-dtype, --master.
[[nodiscard]] std::vector<Input> optimizer_inputs();

/// The device inputs of the training calculators: --memory, --framework-reserve, --require-fit.
[[nodiscard]] std::vector<Input> training_device_inputs();

/// The activation shape of a training step from --seq and --micro-batch and the model's widths, on tp x pp
/// devices (sequence parallelism off; the caller sets it).
[[nodiscard]] ActivationShape training_activation_shape(Context& ctx, const ModelArch& m, int tp, int pp);

/// The model as the calculator will size it.
struct ResolvedModel {
  /// The architecture, when --model or enough flags describe one.
  std::optional<ModelArch> arch;
  /// Total parameters (untied input and output embeddings counted separately).
  double params = 0;
  /// Active parameters per token (MoE; equal to params for dense models).
  double active = 0;
  /// Routed-expert parameters (0 for dense models).
  double experts = 0;
};

/// Resolves the model from --model and the architecture flags. `need_arch` makes an architecture
/// mandatory (KV and activations need one); otherwise --params alone is enough.
[[nodiscard]] ResolvedModel resolve_model(Context& ctx, bool need_arch);

/// Device memory from --memory or the --gpu catalog entry; nullopt when neither is given.
[[nodiscard]] std::optional<Bytes> device_memory(Context& ctx);

}  // namespace infracalc::fit
