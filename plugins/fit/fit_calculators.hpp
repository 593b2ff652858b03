// The fit calculators (internal to the plugin): each file builds one descriptor with its run function.
#pragma once

#include "host/plugin.hpp"

namespace infracalc::fit {

/// `fit weights`: weight bytes at a precision, the verdict and the minimum devices.
[[nodiscard]] Calculator weights_calculator();
/// `fit inference`: the per-device waterfall, verdict, largest batch and longest context.
[[nodiscard]] Calculator inference_calculator();
/// `fit train`: mixed-precision state under ZeRO, activations, per device, minimum devices.
[[nodiscard]] Calculator train_calculator();
/// `fit rlhf`: the resident networks of PPO, DPO and GRPO and their memory.
[[nodiscard]] Calculator rlhf_calculator();
/// `fit finetune`: full, LoRA and QLoRA memory, trainable parameters, accelerator-hours and cost.
[[nodiscard]] Calculator finetune_calculator();

}  // namespace infracalc::fit
