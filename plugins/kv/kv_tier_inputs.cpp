// The memory and storage tiers an accelerator sees, as flags with sourced defaults (docs/kv.md, "kv offload"):
// shared by `kv offload` and `kv ladder`, so both calculators start from the same figures.
#include "plugins/kv/kv_tier_inputs.hpp"

#include "host/catalog_input.hpp"

namespace infracalc::kv {

std::vector<Input> tier_inputs() {
  return {
      {.name = "hbm_capacity", .kind = InputKind::quantity, .dim = dims::information, .help = "HBM capacity of the device",
       .default_value = "80 GB", .example = "141GB", .catalog = kGpuMemoryCatalog},
      {.name = "hbm_reserved", .kind = InputKind::quantity, .dim = dims::information,
       .help = "HBM already taken (weights, activations; default: the model's 16-bit weights per device with a model, else 0)",
       .default_value = "0 GB", .example = "70GB", .bound = Bound::non_negative},
      {.name = "hbm_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "HBM bandwidth",
       .default_value = "3.35 TB/s", .example = "4.8TB/s", .catalog = "gpu.memory_bandwidth"},
      {.name = "hbm_latency", .kind = InputKind::quantity, .dim = dims::time, .help = "HBM load latency", .default_value = "500 ns",
       .example = "400ns"},
      {.name = "dram_capacity", .kind = InputKind::quantity, .dim = dims::information,
       .help = "host DRAM for this device's cache (DGX H100: 2 TB / 8 GPUs)", .default_value = "256 GB", .example = "1TB"},
      {.name = "dram_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "host DRAM to device bandwidth (the PCIe 5.0 x16 link, one direction)", .default_value = "63 GB/s", .example = "450GB/s"},
      {.name = "dram_latency", .kind = InputKind::quantity, .dim = dims::time, .help = "DRAM access latency", .default_value = "100 ns",
       .example = "120ns"},
      {.name = "cxl_capacity", .kind = InputKind::quantity, .dim = dims::information,
       .help = "CXL memory for this device's cache (one 256 GB expander)", .default_value = "256 GB", .example = "1TB"},
      {.name = "cxl_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "CXL memory bandwidth (one x8 expander)",
       .default_value = "36 GB/s", .example = "64GB/s"},
      {.name = "cxl_latency", .kind = InputKind::quantity, .dim = dims::time, .help = "CXL memory access latency",
       .default_value = "200 ns", .example = "250ns"},
      {.name = "nvme_capacity", .kind = InputKind::quantity, .dim = dims::information, .help = "NVMe capacity for the cache (one drive)",
       .default_value = "3.84 TB", .example = "30.72TB"},
      {.name = "nvme_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "NVMe sequential read bandwidth",
       .default_value = "13 GB/s", .example = "50GB/s"},
      {.name = "nvme_latency", .kind = InputKind::quantity, .dim = dims::time, .help = "NVMe read latency", .default_value = "50 us",
       .example = "80us"},
  };
}

}  // namespace infracalc::kv
