// Facts about the machine the kernels run on: cache and memory sizes, the CPU's name and vector units.
#pragma once

#include <string>

#include "units/system.hpp"

namespace infracalc::kernels {

/// What the kernels know about this host.
struct HostInfo {
  /// CPU model name ("Intel(R) Xeon(R) Platinum 8480+"), or "unknown CPU".
  std::string cpu_name;
  /// CPU vendor id ("GenuineIntel", "AuthenticAMD"), or "unknown".
  std::string vendor;
  /// Size of the last-level cache (as the OS reports it; on a VM that may be the whole socket's).
  Bytes last_level_cache;
  /// Physical memory (MemTotal).
  Bytes memory;
  /// Hardware threads the kernels use.
  int threads = 1;
  /// Widest vector unit the FMA kernels use: "avx512", "avx2" or "scalar".
  std::string vector_isa;
  /// Single-precision lanes per vector register of that unit.
  int fp32_lanes = 1;
};

/// Reads sysfs, /proc and cpuid once; cheap after the first call.
[[nodiscard]] const HostInfo& host_info();

/// The vector unit the FMA and matrix kernels dispatch to.
enum class Isa { scalar, avx2, avx512 };
/// The best vector unit this CPU supports (by cpuid), the one every measuring kernel uses.
[[nodiscard]] Isa best_isa();

}  // namespace infracalc::kernels
