// The fit plugin: weights, the inference waterfall, training state, activations and RLHF, with overlay model
// files for architectures the built-in catalog does not have yet (MoE with sliding windows, MLA).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "catalog/catalog.hpp"
#include "host/context.hpp"
#include "plugins/fit/fit_math.hpp"
#include "plugins/fit/fit_serving.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/registry.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;
using namespace infracalc::fit;
namespace fs = std::filesystem;

namespace {

struct FitOverlay {
  fs::path path;
  FitOverlay() {
    path = fs::temp_directory_path() / ("infracalc-fit-test-" + std::to_string(::getpid()));
    fs::create_directories(path / "models");
    // Architectures from the published Hugging Face config.json files (test data only).
    std::ofstream(path / "models/test-gpt-oss-120b.toml") << R"toml(id = "test-gpt-oss-120b"
name = "gpt-oss-120b (test overlay)"
kind = "model"
layers = 36
hidden_size = 2880
attention_heads = 64
kv_heads = 8
head_dim = 64
ffn_size = 2880
vocab_size = 201088
tied_embeddings = false
attention_bias = true
max_context = 131072

[attention]
sliding_window = 128
layer_pattern = ["sliding", "full"]

[moe]
experts = 128
experts_per_token = 4
expert_ffn_size = 2880

[meta]
as_of = 2025-08-05
sources = ["openai/gpt-oss-120b config.json"]
basis = "published"
)toml";
    std::ofstream(path / "models/test-deepseek-v3.toml") << R"toml(id = "test-deepseek-v3"
name = "DeepSeek-V3 (test overlay)"
kind = "model"
layers = 61
hidden_size = 7168
attention_heads = 128
kv_heads = 128
head_dim = 128
ffn_size = 18432
vocab_size = 129280
tied_embeddings = false
max_context = 163840

[attention]
layout = "mla"
kv_lora_rank = 512
qk_rope_head_dim = 64
qk_nope_head_dim = 128
v_head_dim = 128
q_lora_rank = 1536

[moe]
experts = 256
experts_per_token = 8
shared_experts = 1
expert_ffn_size = 2048
dense_layers = 3

[meta]
as_of = 2024-12-26
sources = ["deepseek-ai/DeepSeek-V3 config.json"]
basis = "published"
)toml";
    Catalog::instance().reset();
    Catalog::instance().add_overlay_dir(path.string());
  }
  ~FitOverlay() {
    Catalog::instance().reset();
    fs::remove_all(path);
  }
};

bool fits(const Result& r) {
  for (const auto& v : r.verdicts)
    if (v.key == "fits") return v.ok;
  FAIL("no fits verdict");
  return false;
}

}  // namespace

TEST_CASE("min_devices rounds up but not past an exact ratio", "[fit][math]") {
  CHECK(min_devices(from_base<Bytes>(1.12e12), from_base<Bytes>(80e9)) == 14);
  CHECK(min_devices(from_base<Bytes>(140e9), from_base<Bytes>(80e9)) == 2);
  CHECK(min_devices(from_base<Bytes>(1), from_base<Bytes>(80e9)) == 1);
}

TEST_CASE("mixed-precision training state and ZeRO stages", "[fit][math]") {
  const auto adam = state_per_param(Optimizer::adamw, from_base<Bytes>(2), from_base<Bytes>(2), true, 8192);
  CHECK(adam.total.value() == 16);
  CHECK(state_per_param(Optimizer::sgd, from_base<Bytes>(2), from_base<Bytes>(2), true, 0).total.value() == 12);
  CHECK(state_per_param(Optimizer::adam8bit, from_base<Bytes>(2), from_base<Bytes>(2), true, 0).total.value() == 10);
  CHECK(state_per_param(Optimizer::adafactor, from_base<Bytes>(2), from_base<Bytes>(2), true, 8192).total.value() ==
        Approx(8 + 8.0 / 8192));
  const double p = 7.5e9;
  CHECK(zero_shard(adam, p, 0, 64).total.value() == 16 * p);
  CHECK(zero_shard(adam, p, 1, 64).total.value() == Approx(4 * p + 12 * p / 64));  // ZeRO paper: 2Ψ + 2Ψ + KΨ/Nd
  CHECK(zero_shard(adam, p, 2, 64).total.value() == Approx(2 * p + 14 * p / 64));
  CHECK(zero_shard(adam, p, 3, 64).total.value() == Approx(16 * p / 64));
}

TEST_CASE("Korthikanti et al. activation memory", "[fit][math]") {
  ActivationShape a{from_base<Tokens>(2048), 1, 12288, 96, 96, 51200, 1, 1, false};
  const double sbh = 2048.0 * 12288;
  CHECK(activation_per_layer(a, Recompute::none).value() == Approx(sbh * (34 + 5.0 * 96 * 2048 / 12288)));
  a.tp = 8;
  CHECK(activation_per_layer(a, Recompute::none).value() == Approx(sbh * (10 + 24.0 / 8 + 5.0 * 96 * 2048 / 12288 / 8)));
  CHECK(activation_per_layer(a, Recompute::selective).value() == Approx(sbh * (10 + 24.0 / 8)));
  a.sequence_parallel = true;
  CHECK(activation_per_layer(a, Recompute::selective).value() == Approx(sbh * 34 / 8));
  CHECK(activation_per_layer(a, Recompute::full).value() == Approx(2 * sbh / 8));
}

TEST_CASE("RLHF resident sets", "[fit][math]") {
  const Bytes t = from_base<Bytes>(16), f = from_base<Bytes>(2);
  auto total = [](const std::vector<ResidentNet>& v) {
    double s = 0;
    for (const auto& n : v) s += n.total.value();
    return s;
  };
  CHECK(total(rlhf_networks(RlhfMethod::ppo, 1, 1, 1, t, f, true)) == 36);
  CHECK(total(rlhf_networks(RlhfMethod::dpo, 1, 1, 1, t, f, true)) == 18);
  CHECK(total(rlhf_networks(RlhfMethod::grpo, 1, 1, 1, t, f, true)) == 20);
  CHECK(total(rlhf_networks(RlhfMethod::grpo, 1, 1, 1, t, f, false)) == 18);
  CHECK(total(rlhf_networks(RlhfMethod::ppo, 1, 0.1, 0.1, t, f, true)) == Approx(16 + 1.6 + 2 + 0.2));
}

TEST_CASE("fit weights: NVFP4 scales and the naive figure", "[fit][calc]") {
  const Result r = run("fit", "weights", {{"params", "70e9"}, {"dtype", "nvfp4"}});
  CHECK(value(r, "weights") == 39.375e9);
  CHECK(value(r, "naive_weights") == 35e9);
  CHECK(value(r, "scale_overhead") == 4.375e9);
  CHECK_THROWS_AS(run("fit", "weights", {{"dtype", "fp16"}}), UserError);
  CHECK_THROWS_AS(run("fit", "weights", {{"params", "70e9"}, {"require_fit", ""}}), UserError);
}

TEST_CASE("fit inference: waterfall, searches and bad layouts", "[fit][calc]") {
  const Result r = run("fit", "inference", {{"model", "llama-3-70b"}, {"dtype", "fp8"}, {"tokens", "8k"}, {"batch", "8"}, {"gpu", "h200-sxm"}});
  const double total = value(r, "weights") + value(r, "kv_cache") + value(r, "activations") + value(r, "framework_reserve") +
                       value(r, "comm_buffers");
  CHECK(value(r, "total") == Approx(total));
  CHECK(value(r, "headroom") == Approx(value(r, "usable") - total));
  CHECK(fits(r));
  // The largest batch fits, one more does not.
  const auto mb = static_cast<long>(value(r, "max_batch"));
  CHECK(fits(run("fit", "inference", {{"model", "llama-3-70b"}, {"dtype", "fp8"}, {"tokens", "8k"}, {"batch", std::to_string(mb)}, {"gpu", "h200-sxm"}})));
  CHECK_FALSE(fits(run("fit", "inference", {{"model", "llama-3-70b"}, {"dtype", "fp8"}, {"tokens", "8k"}, {"batch", std::to_string(mb + 1)}, {"gpu", "h200-sxm"}})));
  const Result tp = run("fit", "inference", {{"model", "llama-3-70b"}, {"tokens", "8k"}, {"batch", "8"}, {"tp", "4"}, {"gpu", "h100-sxm"}});
  CHECK(value(tp, "kv_cache") == Approx(value(r, "kv_cache") / 4));  // the same BF16 cache over 4 ranks
  CHECK(value(tp, "comm_buffers") > 0);
  CHECK_THROWS_AS(run("fit", "inference", {{"model", "llama-3-70b"}, {"tokens", "8k"}, {"tp", "3"}, {"gpu", "h100-sxm"}}), UserError);
  CHECK_THROWS_AS(run("fit", "inference", {{"params", "70e9"}, {"tokens", "8k"}, {"gpu", "h100-sxm"}}), UserError);
  const Result big = run("fit", "inference", {{"model", "llama-3-70b"}, {"tokens", "8k"}, {"batch", "64"}, {"gpu", "h100-sxm"}});
  CHECK_FALSE(fits(big));
  CHECK(big.check_failed == false);
  const Result req = run("fit", "inference", {{"model", "llama-3-70b"}, {"tokens", "8k"}, {"batch", "64"}, {"gpu", "h100-sxm"}, {"require_fit", ""}});
  CHECK(req.check_failed);
  CHECK(value(big, "min_devices") >= 2);
}

TEST_CASE("MoE with sliding windows (gpt-oss-120b overlay)", "[fit][calc][overlay]") {
  FitOverlay o;
  const Result w = run("fit", "weights", {{"model", "test-gpt-oss-120b"}, {"dtype", "bf16"}, {"expert_dtype", "mxfp4"}, {"gpu", "h100-sxm"}});
  CHECK(value(w, "params") == Approx(116.8e9).epsilon(0.01));
  // OpenAI's 5.13e9 active leaves out the input-embedding lookup (0.58e9); the count here includes it.
  CHECK(value(w, "active_params") == Approx(5.13e9 + 201088.0 * 2880).epsilon(0.01));
  CHECK(value(w, "weights") < 80e9);  // the point of MXFP4 experts: one 80 GB GPU
  CHECK(fits(w));
  const Result inf = run("fit", "inference", {{"model", "test-gpt-oss-120b"}, {"dtype", "bf16"}, {"expert_dtype", "mxfp4"},
                                       {"tokens", "128k"}, {"batch", "1"}, {"gpu", "h100-sxm"}});
  // Half the layers slide over 128 tokens: the cache is about half a full-attention cache.
  const double full = 36.0 * 2 * 8 * 64 * 2 * 128000;
  CHECK(value(inf, "kv_cache") == Approx(full / 2 + 18.0 * 2 * 8 * 64 * 2 * 128).epsilon(1e-9));
}

TEST_CASE("MLA and MoE (DeepSeek-V3 overlay)", "[fit][calc][overlay]") {
  FitOverlay o;
  const Result w = run("fit", "weights", {{"model", "test-deepseek-v3"}, {"dtype", "fp8"}});
  CHECK(value(w, "params") == Approx(671e9).epsilon(0.01));
  CHECK(value(w, "active_params") == Approx(37e9).epsilon(0.03));
  const Result inf = run("fit", "inference", {{"model", "test-deepseek-v3"}, {"dtype", "fp8"}, {"tokens", "32k"}, {"batch", "4"},
                                       {"tp", "8"}, {"gpu", "h200-sxm"}});
  // The MLA latent (512 + 64 per layer) is replicated on every tensor-parallel rank.
  CHECK(value(inf, "kv_cache") == Approx(61.0 * (512 + 64) * 2 * 32000 * 4));
  CHECK(value(inf, "min_devices") >= 5);  // 671 GB of FP8 weights over 127 GB usable per H200
}

TEST_CASE("fit train and rlhf calculators", "[fit][calc]") {
  const Result t = run("fit", "train", {{"params", "70e9"}, {"gpu", "h100-sxm"}});
  CHECK(value(t, "state_total") == 1.12e12);
  CHECK(value(t, "min_devices_state") == 14);
  const Result z = run("fit", "train", {{"model", "llama-3-70b"}, {"zero", "3"}, {"devices", "64"}, {"tp", "8"}, {"gpu", "h100-sxm"}});
  CHECK(value(z, "state_per_device") == Approx(value(z, "state_total") / 64));
  CHECK(value(z, "activations_per_device") > 0);
  CHECK_THROWS_AS(run("fit", "train", {{"params", "70e9"}, {"zero", "4"}}), UserError);
  CHECK_THROWS_AS(run("fit", "train", {{"params", "70e9"}, {"devices", "10"}, {"tp", "4"}}), UserError);
  const Result g = run("fit", "rlhf", {{"method", "grpo"}, {"model", "llama-3-8b"}, {"rollout_tokens", "2k"}, {"prompts", "16"}, {"group", "8"}});
  CHECK(value(g, "rollout_kv") > 0);
  CHECK(value(g, "saving_vs_ppo") == Approx(16.0 / 36));
}

TEST_CASE("device memory is what software sees, and the note says which figure", "[fit][issue19]") {
  Catalog::instance().reset();
  const Result v = run("fit", "inference", {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"tokens", "8k"}});
  CHECK(value(v, "memory") == 81559.0 * 1024 * 1024);  // nvidia-smi's 81,559 MiB, not the marketed 80e9 B
  CHECK(has_note(v, "the capacity software sees on h100-sxm (memory_visible"));
  CHECK(has_note(v, "marketed as 80 GB"));
  const Result m = run("fit", "inference", {{"model", "llama-3-70b"}, {"gpu", "h100-pcie"}, {"tokens", "8k"}});
  CHECK(value(m, "memory") == 80e9);  // no published visible figure: the label, said so
  CHECK(has_note(m, "the marketed capacity of h100-pcie (memory_capacity)"));
  const Result f = run("fit", "inference", {{"model", "llama-3-70b"}, {"memory", "80GB"}, {"tokens", "8k"}});
  CHECK_FALSE(has_note(f, "memory_visible"));
}

TEST_CASE("the weight format defaults to the model's native checkpoint format", "[fit][issue19]") {
  Catalog::instance().reset();
  const Result g = run("fit", "inference", {{"model", "gpt-oss-120b"}, {"gpu", "h100-sxm"}, {"tokens", "8k"}});
  CHECK(g.verdicts.at(0).ok);  // MXFP4 experts: 65 GB, one 80 GB-class GPU
  CHECK(has_note(g, "routed experts in mxfp4: the native checkpoint format of gpt-oss-120b"));
  const Result b = run("fit", "inference", {{"model", "gpt-oss-120b"}, {"gpu", "h100-sxm"}, {"tokens", "8k"}, {"dtype", "bf16"}});
  CHECK_FALSE(b.verdicts.at(0).ok);  // --dtype bf16 without --expert-dtype: every weight in BF16
  // One default for fit weights and fit inference without a model: bf16.
  const Result w = run("fit", "weights", {{"params", "70e9"}});
  const Result i = run("fit", "inference", {{"params", "70e9"}, {"layers", "80"}, {"hidden_size", "8192"}, {"heads", "64"}, {"kv_heads", "8"},
                                     {"memory", "80GB"}, {"tokens", "1k"}});
  for (const Result* r : {&w, &i})
    for (const auto& in : r->inputs)
      if (in.key == "dtype") CHECK(std::get<std::string>(in.value) == "bf16");
}

TEST_CASE("every model's native format is a storage format infracalc knows", "[fit][catalog][issue19]") {
  Catalog::instance().reset();
  int with_native = 0;
  for (const Entry* e : Catalog::instance().all("model")) {
    for (const char* field : {"native_format", "native_expert_format"}) {
      const FieldRef* f = e->field_ref(field);
      if (f == nullptr) continue;
      ++with_native;
      INFO(e->id() << "." << field);
      REQUIRE(f->value->kind == Node::Kind::string);
      CHECK(find_storage_format(f->value->str) != nullptr);
    }
  }
  CHECK(with_native >= 4);
}
