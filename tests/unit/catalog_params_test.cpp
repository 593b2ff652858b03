// Every model in the catalog: the parameter count computed from its architecture must match the
// published one (1% dense, 2% MoE, total and active), and the issue's must-hold values.
#include <catch2/catch.hpp>
#include <cmath>

#include "catalog/catalog.hpp"
#include "catalog/check.hpp"
#include "catalog/model_arch.hpp"
#include "documents/toml_reader.hpp"

using namespace infracalc;

namespace {

const Entry& entry(const char* id) {
  const Entry* e = Catalog::instance().find(id);
  REQUIRE(e != nullptr);
  return *e;
}

double q(const Entry& e, const char* path, Dim d) { return e.quantity(path, {d, false}).value_or_throw().value; }

}  // namespace

TEST_CASE("every catalog model's computed parameter count matches its published count", "[catalog][models]") {
  Catalog::instance().reset();
  const auto models = Catalog::instance().all("model");
  REQUIRE(models.size() >= 20);
  for (const Entry* e : models) {
    INFO("model " << e->id());
    auto arch = read_model_arch(*e);
    REQUIRE(arch.ok());
    const ModelArch& m = arch.value();
    const ParamCount c = count_params(m);
    const double tol = param_tolerance(m.moe.has_value());
    REQUIRE(m.params_total_published > 0);
    CHECK(std::abs(c.total - m.params_total_published) / m.params_total_published <= tol);
    if (m.moe) {
      REQUIRE(m.params_active_published > 0);
      CHECK(std::abs(active_as_published(m, c) - m.params_active_published) / m.params_active_published <= tol);
    }
    // The parts add up and the active count never exceeds the total.
    CHECK(c.total == Approx(c.embeddings + c.attention + c.ssm + c.mlp + c.router + c.norms));
    CHECK(c.active <= c.total * (1 + 1e-12));
  }
}

TEST_CASE("the catalog covers the issue's required model families", "[catalog][models]") {
  for (const char* id : {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b", "llama-3.1-405b", "mixtral-8x7b",
                         "mixtral-8x22b", "deepseek-v3", "deepseek-r1", "qwen2.5-7b", "qwen2.5-72b", "qwen3-30b-a3b",
                         "gpt-oss-20b", "gpt-oss-120b", "gemma-2-9b", "gemma-3-27b", "mistral-7b"}) {
    INFO(id);
    CHECK(Catalog::instance().find(id) != nullptr);
  }
}

TEST_CASE("llama-3-70b: 80 layers, 8 KV heads, head dim 128, about 70.6e9 parameters", "[catalog][models]") {
  auto m = read_model_arch(entry("llama-3-70b")).value_or_throw();
  CHECK(m.layers == 80);
  CHECK(m.kv_heads == 8);
  CHECK(m.head_dim == 128);
  CHECK(count_params(m).total == Approx(70.6e9).epsilon(0.01));
  CHECK(m.layout == AttentionLayout::gqa);
}

TEST_CASE("deepseek-v3: MLA, about 671e9 total and 37e9 active", "[catalog][models]") {
  auto m = read_model_arch(entry("deepseek-v3")).value_or_throw();
  REQUIRE(m.mla.has_value());
  REQUIRE(m.moe.has_value());
  CHECK(m.layout == AttentionLayout::mla);
  CHECK(m.mla->kv_lora_rank == 512);
  CHECK(m.mla->qk_rope_head_dim == 64);
  CHECK(m.moe->dense_layers == 3);
  const ParamCount c = count_params(m);
  CHECK(c.total == Approx(671e9).epsilon(0.01));
  CHECK(c.active == Approx(37e9).epsilon(0.02));
}

TEST_CASE("sliding-window layouts read from the catalog", "[catalog][models]") {
  auto gemma = read_model_arch(entry("gemma-3-27b")).value_or_throw();
  CHECK(gemma.sliding_window == 1024);
  REQUIRE(gemma.layer_types.size() == 62);
  CHECK(gemma.layer_types[5] == LayerAttention::full);
  CHECK(gemma.layer_types[0] == LayerAttention::sliding);
  CHECK(gemma.layer_types[61] == LayerAttention::sliding);  // 62 = 10 x 6 + 2: the pattern repeats cyclically
  auto mistral = read_model_arch(entry("mistral-7b")).value_or_throw();
  CHECK(std::all_of(mistral.layer_types.begin(), mistral.layer_types.end(),
                    [](LayerAttention a) { return a == LayerAttention::sliding; }));
  auto oss = read_model_arch(entry("gpt-oss-120b")).value_or_throw();
  CHECK(oss.layer_types[0] == LayerAttention::sliding);
  CHECK(oss.layer_types[1] == LayerAttention::full);
  CHECK(oss.active_excludes_embedding);
}

TEST_CASE("h100-sxm: 80 GB, 3.35 TB/s, dense BF16 989.4 TFLOP/s, 700 W, each dated and sourced", "[catalog][hardware]") {
  const Entry& e = entry("h100-sxm");
  CHECK(q(e, "memory_capacity", dims::information) == Approx(80e9));
  CHECK(q(e, "memory_bandwidth", dims::data_rate) == Approx(3.35e12));
  CHECK(q(e, "peak.bf16_dense", dims::flop_rate) == Approx(989.4e12));
  CHECK(q(e, "tdp", dims::power) == Approx(700));
  for (const char* f : {"memory_capacity", "memory_bandwidth", "peak.bf16_dense", "tdp"}) {
    INFO(f);
    auto ref = e.field(f);
    REQUIRE(ref);
    CHECK(Date::parse(ref->provenance.as_of).valid());
    CHECK_FALSE(ref->provenance.source.empty());
  }
}

TEST_CASE("the catalog holds at least 30 accelerators with the required fields", "[catalog][hardware]") {
  const auto accs = Catalog::instance().all("accelerator");
  CHECK(accs.size() >= 30);
  for (const Entry* e : accs) {
    INFO(e->id());
    CHECK(e->quantity("memory_capacity", {dims::information, false}).ok());
    CHECK(e->quantity("memory_bandwidth", {dims::data_rate, false}).ok());
    CHECK(e->text("vendor").has_value());
  }
}

TEST_CASE("dated series pick the newest entry not after --as-of", "[catalog][prices]") {
  const Entry& e = entry("h100-sxm-rental-aws");
  auto first = e.dated("on_demand", Date{2024, 1, 1});
  REQUIRE(first);
  CHECK(first->provenance.as_of == "2023-07-26");
  auto later = e.dated("on_demand", Date{2025, 7, 1});
  REQUIRE(later);
  CHECK(later->provenance.as_of == "2025-06-05");
  CHECK_FALSE(e.dated("on_demand", Date{2020, 1, 1}));
  auto newest = e.dated("on_demand", Date{});
  REQUIRE(newest);
  CHECK(newest->provenance.as_of == "2025-06-05");
}

namespace {

// Reads a model file from text after replacing one line of llama-3-70b's architecture.
Expected<ModelArch> arch_with(const std::string& from, const std::string& to) {
  std::string text = R"(id = "m"
name = "M"
kind = "model"
layers = 80
hidden_size = 8192
attention_heads = 64
kv_heads = 8
head_dim = 128
ffn_size = 28672
activation = "swiglu"
vocab_size = 128256
params_total = 70.6e9
[meta]
as_of = 2024-04-18
sources = ["test"]
)";
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  auto node = read_toml(text, "m.toml");
  REQUIRE(node.ok());
  auto entry = Entry::from_node(std::move(node).value(), "m.toml", true);
  REQUIRE(entry.ok());
  return read_model_arch(*entry.value());
}

}  // namespace

TEST_CASE("a model file's structural counts are checked before any arithmetic, naming the file and field", "[catalog][models]") {
  REQUIRE(arch_with("kv_heads = 8", "kv_heads = 8").ok());
  struct Bad {
    const char* from;
    const char* to;
    const char* says;
  };
  const Bad cases[] = {
      {"kv_heads = 8", "kv_heads = 0", "kv_heads: expected a whole number from 1 to"},
      {"attention_heads = 64", "attention_heads = 0", "attention_heads: expected a whole number from 1"},
      {"layers = 80", "layers = 2000000000", "layers: expected a whole number from 1 to 10,000"},
      {"layers = 80", "layers = 2147483647", "layers: expected a whole number from 1 to 10,000"},
      {"layers = 80", "layers = 0", "layers: expected a whole number from 1"},
      {"head_dim = 128", "head_dim = -128", "head_dim: expected a whole number"},
      {"hidden_size = 8192", "hidden_size = 1e12", "hidden_size: expected a whole number"},
      {"kv_heads = 8", "kv_heads = 7", "kv_heads (7) must divide attention_heads (64)"},
      {"params_total = 70.6e9", "params_total = -5", "params_total: expected a count above 0"},
  };
  for (const auto& c : cases) {
    INFO(c.to);
    auto a = arch_with(c.from, c.to);
    REQUIRE_FALSE(a.ok());
    CHECK_THAT(a.error().text(), Catch::Contains("m.toml"));
    CHECK_THAT(a.error().text(), Catch::Contains(c.says));
  }
}

TEST_CASE("parameter counts stay finite and positive at the model limits", "[catalog][models]") {
  ModelArch m;
  m.layers = static_cast<int>(kMaxLayers);
  m.hidden_size = static_cast<int>(kMaxWidth);
  m.attention_heads = static_cast<int>(kMaxHeads);
  m.kv_heads = static_cast<int>(kMaxHeads);
  m.head_dim = static_cast<int>(kMaxHeadDim);
  m.ffn_size = static_cast<int>(kMaxWidth);
  m.vocab_size = static_cast<int>(kMaxVocab);
  m.moe = MoeDims{static_cast<int>(kMaxExperts), static_cast<int>(kMaxExperts), static_cast<int>(kMaxExperts), static_cast<int>(kMaxWidth), 1};
  const ParamCount c = count_params(m);
  CHECK(std::isfinite(c.total));
  CHECK(c.total > 0);
  CHECK(c.mlp > 1e24);  // 2e6 experts x 9,999 layers x 3 x 1e7 x 1e7: an int product would have wrapped
  CHECK(c.active > 0);
}
