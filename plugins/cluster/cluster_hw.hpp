// The hardware a cluster calculation runs on: device memory and peak from --gpu, the scale-up domain,
// node size and link bandwidths from --system (or the system that carries the --gpu), flags overriding both.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/context.hpp"
#include "units/system.hpp"

namespace infracalc::cluster {

/// The --gpu and --system reference flags.
[[nodiscard]] std::vector<CatalogRef> hardware_refs();

/// The hardware inputs (all optional; --gpu and --system fill them).
[[nodiscard]] std::vector<Input> hardware_inputs();

/// The precision choice that picks the catalog's peak.<precision>_dense.
[[nodiscard]] Input precision_input();

/// What the calculators know about the hardware.
struct Hardware {
  /// The accelerator entry (--gpu, or the accelerator of --system).
  const Entry* gpu = nullptr;
  /// The system entry (--system, or the catalog system that carries --gpu).
  const Entry* system = nullptr;
  /// Memory per device.
  std::optional<Bytes> memory;
  /// Dense peak per device at the chosen precision.
  std::optional<FlopsPerSecond> peak;
  /// Accelerators in one scale-up (NVLink/ICI) domain; 0 when unknown.
  int domain = 0;
  /// Accelerators per node; 0 when unknown.
  int per_node = 0;
  /// Scale-up bandwidth per accelerator, one direction.
  std::optional<BytesPerSecond> scaleup;
  /// Scale-out (NIC) bandwidth per accelerator, one direction.
  std::optional<BytesPerSecond> scaleout;
  /// Interconnect type of the scale-up link (for the default step latency).
  std::string scaleup_type = "nvlink";
};

/// Resolves the hardware from the refs and flags; records provenance and notes on `ctx`.
[[nodiscard]] Hardware resolve_hardware(Context& ctx);

/// The dense peak of `gpu` at a precision ("bf16" → peak.bf16_dense), cited; nullopt when absent.
[[nodiscard]] std::optional<FlopsPerSecond> catalog_peak(Context& ctx, const Entry& gpu, const std::string& precision);

}  // namespace infracalc::cluster
