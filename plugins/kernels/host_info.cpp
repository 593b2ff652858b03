#include "plugins/kernels/host_info.hpp"

#include <fstream>
#include <sstream>
#include <unistd.h>

#include "plugins/kernels/thread_team.hpp"

namespace infracalc::kernels {

namespace {

std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string v = line.substr(colon + 1);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.erase(v.begin());
    return v;
  }
  return {};
}

// sysfs sizes look like "260M", "2048K".
double parse_cache_size(const std::string& s) {
  std::istringstream in(s);
  double v = 0;
  char unit = 0;
  in >> v >> unit;
  if (unit == 'K') v *= 1024;
  else if (unit == 'M') v *= 1024 * 1024;
  else if (unit == 'G') v *= 1024.0 * 1024 * 1024;
  return v;
}

double last_level_cache_bytes() {
  double best = 0;
  int best_level = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level_in(dir + "level"), type_in(dir + "type"), size_in(dir + "size");
    if (!level_in) break;
    int level = 0;
    std::string type, size;
    level_in >> level;
    type_in >> type;
    size_in >> size;
    if (type == "Instruction") continue;
    if (level > best_level || (level == best_level && parse_cache_size(size) > best)) {
      best_level = level;
      best = parse_cache_size(size);
    }
  }
#ifdef _SC_LEVEL3_CACHE_SIZE  // a glibc extension; other C libraries (emscripten's musl) have no such query
  if (best <= 0) {
    const long s = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (s > 0) best = static_cast<double>(s);
  }
#endif
  // No report at all: assume a generous 64 MiB so buffers sized from it still spill out of any cache.
  return best > 0 ? best : 64.0 * 1024 * 1024;
}

double memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

HostInfo read_host() {
  HostInfo h;
  h.cpu_name = cpuinfo_field("model name");
  if (h.cpu_name.empty()) h.cpu_name = "unknown CPU";
  h.vendor = cpuinfo_field("vendor_id");
  if (h.vendor.empty()) h.vendor = "unknown";
  h.last_level_cache = from_base<Bytes>(last_level_cache_bytes());
  h.memory = from_base<Bytes>(memory_bytes());
  h.threads = hardware_threads();
  switch (best_isa()) {
    case Isa::avx512: h.vector_isa = "avx512"; h.fp32_lanes = 16; break;
    case Isa::avx2: h.vector_isa = "avx2"; h.fp32_lanes = 8; break;
    case Isa::scalar: h.vector_isa = "scalar"; h.fp32_lanes = 1; break;
  }
  return h;
}

}  // namespace

Isa best_isa() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Isa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
#endif
  return Isa::scalar;
}

const HostInfo& host_info() {
  static const HostInfo h = read_host();
  return h;
}

}  // namespace infracalc::kernels
