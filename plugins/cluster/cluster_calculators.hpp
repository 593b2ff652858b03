// The cluster calculators (internal to the plugin): each file builds one descriptor with its run function.
#pragma once

#include "host/context.hpp"

namespace infracalc::cluster {

/// `cluster train`: training FLOPs, devices for a deadline or time for a count, GPU-hours, MFU vs HFU.
[[nodiscard]] Calculator train_calculator();
/// `cluster layout`: TP/CP/PP/DP/EP within the network hierarchy, memory per device, alternatives.
[[nodiscard]] Calculator layout_calculator();
/// `cluster collective`: steps, bytes per rank and alpha-beta time of a collective.
[[nodiscard]] Calculator collective_calculator();
/// `cluster pipeline`: bubble fraction, schedule simulation and activations in flight.
[[nodiscard]] Calculator pipeline_calculator();
/// `cluster experts`: experts per device, all-to-all bytes, simulated routing under a capacity factor.
[[nodiscard]] Calculator experts_calculator();
/// `cluster failures`: fleet MTBF, Young/Daly checkpoint interval, lost work, goodput, blast radius.
[[nodiscard]] Calculator failures_calculator();
/// `cluster checkpoint`: checkpoint size and write time per storage tier.
[[nodiscard]] Calculator checkpoint_calculator();
/// `cluster recompute`: √n activation checkpointing on a real chain of layers.
[[nodiscard]] Calculator recompute_calculator();
/// `cluster fleet`: chips per rack, racks, scalable units, aggregate peak and memory.
[[nodiscard]] Calculator fleet_calculator();

}  // namespace infracalc::cluster
