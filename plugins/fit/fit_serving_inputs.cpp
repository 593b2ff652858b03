#include "plugins/fit/fit_serving_inputs.hpp"

#include "host/catalog_input.hpp"
#include "plugins/kv/kv_reserve.hpp"

namespace infracalc::fit {

std::vector<Input> serving_memory_inputs() {
  return {
      {.name = "memory", .kind = InputKind::quantity, .dim = dims::information, .help = "memory per device", .example = "80GB",
       .catalog = kGpuMemoryCatalog},
      {.name = "memory_utilization", .kind = InputKind::quantity, .dim = dims::none,
       .help = "share of device memory the server may use (vLLM's gpu_memory_utilization default)",
       .default_value = kv::kMemoryUtilization, .example = "0.95", .bound = Bound::fraction},
      {.name = "framework_reserve", .kind = InputKind::quantity, .dim = dims::information,
       .help = "CUDA context, library workspaces, CUDA graphs and allocator slack per device",
       .default_value = kv::kFrameworkReserve, .example = "2GB", .bound = Bound::non_negative},
      {.name = "comm_buffers", .kind = InputKind::quantity, .dim = dims::information,
       .help = "NCCL and all-reduce buffers per device when tp x pp > 1", .default_value = kv::kCommBuffers, .example = "1GB",
       .bound = Bound::non_negative},
      {.name = "activations", .kind = InputKind::quantity, .dim = dims::information,
       .help = "activation and workspace bytes per device (replaces the estimate)", .example = "4GB",
       .bound = Bound::non_negative, .optional = true},
      {.name = "step_tokens", .kind = InputKind::quantity, .dim = dims::token,
       .help = "tokens one forward step processes at most (chunked-prefill budget)", .default_value = "8192", .example = "16k"},
  };
}

void read_reserve(Context& ctx, InferenceSetup& s) {
  s.framework = ctx.get<Bytes>("framework_reserve");
  s.comm = ctx.get<Bytes>("comm_buffers");
  if (ctx.has("activations")) s.activations = ctx.get<Bytes>("activations");
  s.step_tokens = ctx.get<Tokens>("step_tokens");
}

}  // namespace infracalc::fit
