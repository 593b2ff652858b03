// The kv reference kernels: each computes a figure the calculators print in an independent, literal way.
#include "plugins/kv/kv_kernels.hpp"

#include "plugins/kv/kv_plugin.hpp"

namespace infracalc {

std::vector<Kernel> kv_kernels() {
  return {
      {"kv-buffers",
       "allocates real per-layer K/V and MLA latent buffers (sliding windows as ring buffers, quantized elements with real "
       "scales) on every tp/pp device, fills them token by token and counts bytes",
       kv::run_buffers_kernel},
      {"kv-paged", "runs the block allocator and scheduler on request streams whose block counts have closed forms",
       kv::run_paged_kernel},
      {"kv-prefix", "forks sequences from a shared prefix on the reference-counted allocator and counts blocks and copies",
       kv::run_prefix_kernel},
      {"kv-paged-attention", "decodes attention through a block table and compares it with the same decode on a contiguous cache",
       kv::run_attention_kernel},
      {"kv-evict", "runs StreamingLLM, H2O and SnapKV eviction on a live cache with real attention scores and counts what stays",
       kv::run_evict_kernel},
      {"kv-work", "decodes with and without a cache, counting K/V projections and cached reads, and compares the outputs",
       kv::run_work_kernel},
      {"kv-ssm-state",
       "decodes a scaled-down Mamba hybrid with real per-sequence conv and SSM state buffers (h = A_bar h + B_bar x, y = C h + D x) "
       "and counts the bytes held as the tokens grow",
       kv::run_ssm_kernel},
  };
}

}  // namespace infracalc
