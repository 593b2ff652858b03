// The operator breakdown of a step sums to the whole-step figures decode ceiling and prefill use.
#include <catch2/catch.hpp>

#include "catalog/catalog.hpp"
#include "catalog/model_arch.hpp"
#include "plugins/decode/decode_breakdown.hpp"
#include "plugins/formats/storage.hpp"

using namespace infracalc;
using namespace infracalc::decode;

namespace {

Workload breakdown_workload(const char* id, const char* format) {
  const Entry* e = Catalog::instance().find(id);
  REQUIRE(e != nullptr);
  return workload_from_arch(read_model_arch(*e).value_or_throw(), *find_storage_format(format), *find_storage_format("fp16"));
}

StepCost sum(const std::vector<OperatorCost>& ops) {
  StepCost c{};
  for (const auto& op : ops) {
    c.flops += op.flops;
    c.bytes += op.bytes;
  }
  return c;
}

}  // namespace

TEST_CASE("decode breakdown: operators sum to the whole step for dense, tied, MoE and MLA models", "[decode]") {
  // llama: dense GQA, untied; gemma-3-27b: tied embeddings and sliding layers; mixtral: routed experts;
  // deepseek-v3: MLA, dense leading layers, a shared expert; qwen3-30b-a3b: 128 experts, top-8; gpt2: learned
  // positions, biases, a plain MLP; jamba-v0.1: Mamba layers with a fixed state.
  for (const char* id : {"llama-3-70b", "gemma-3-27b", "mixtral-8x7b", "deepseek-v3", "qwen3-30b-a3b", "gpt2", "jamba-v0.1"}) {
    for (const char* format : {"bf16", "nvfp4"}) {
      const Workload w = breakdown_workload(id, format);
      for (int tp : {1, 2}) {
        for (double batch : {1.0, 7.0, 256.0}) {
          INFO(id << " " << format << " tp " << tp << " batch " << batch);
          const Tokens context = from_base<Tokens>(3000);
          const StepCost whole = decode_step(w, batch, context, tp).cost();
          const StepCost parts = sum(step_operators(w, batch, context, tp, false));
          CHECK(parts.flops.value() == Approx(whole.flops.value()).epsilon(1e-12));
          CHECK(parts.bytes.value() == Approx(whole.bytes.value()).epsilon(1e-12));
          const StepCost pre_whole = prefill_step(w, batch, context, true, tp).cost();
          const StepCost pre_parts = sum(step_operators(w, batch, context, tp, true));
          CHECK(pre_parts.flops.value() == Approx(pre_whole.flops.value()).epsilon(1e-12));
          CHECK(pre_parts.bytes.value() == Approx(pre_whole.bytes.value()).epsilon(1e-12));
        }
      }
    }
  }
}

TEST_CASE("decode breakdown: decode is bound by the weights' bytes, prefill by the projections' arithmetic", "[decode]") {
  const Workload w = breakdown_workload("llama-3-70b", "bf16");
  const auto decode = step_operators(w, 1, from_base<Tokens>(1000), 1, false);
  const auto prefill = step_operators(w, 1, from_base<Tokens>(4096), 1, true);
  // At batch 1 every matrix operator does 2 operations per weight it reads in BF16: intensity 1.
  for (const auto& op : decode)
    if (op.name.rfind("MLP", 0) == 0 || op.name.rfind("attention projections", 0) == 0)
      CHECK((op.flops / op.bytes).value() == Approx(1.0).epsilon(1e-12));
  // A 4096-token prompt reuses each weight 4096 times.
  for (const auto& op : prefill)
    if (op.name == "MLP") CHECK((op.flops / op.bytes).value() == Approx(4096.0).epsilon(1e-12));
}
