// The serve plugin's calculators, one factory per file.
#pragma once

#include "host/plugin.hpp"

namespace infracalc::serve {

/// `serve simulate`: a discrete-event simulation of one replica.
[[nodiscard]] Calculator simulate_calculator();
/// `serve capacity`: requests per second of a pod or rack, and replicas for a rate under latency targets.
[[nodiscard]] Calculator capacity_calculator();
/// `serve latency`: a per-stage latency budget and what reasoning tokens add to a turn.
[[nodiscard]] Calculator latency_calculator();
/// `serve multimodal`: prompt tokens of images and video, and the TTFT they cause.
[[nodiscard]] Calculator multimodal_calculator();
/// `serve disaggregate`: prefill and decode pools for a request mix, and the KV transfer between them.
[[nodiscard]] Calculator disaggregate_calculator();
/// `serve diffusion`: image and video generation time by sampler steps.
[[nodiscard]] Calculator diffusion_calculator();

}  // namespace infracalc::serve
