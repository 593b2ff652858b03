// `model import`: Hugging Face config.json fixtures for nine architectures convert to model files whose
// parameter counts match the catalog's entries; bad configs fail with errors that name the field.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "catalog/catalog.hpp"
#include "catalog/hf_import.hpp"
#include "documents/atomic_file.hpp"
#include "documents/json.hpp"
#include "units/format.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = fs::path(__FILE__).parent_path().parent_path() / "fixtures" / "hf";

Node fixture(const std::string& name) {
  const fs::path p = kFixtures / (name + ".json");
  INFO(p.string());
  REQUIRE(fs::exists(p));
  auto node = read_json(slurp(p), p.string());
  REQUIRE(node.ok());
  return node.value();
}

Node json(const std::string& text) {
  auto node = read_json(text, "config.json");
  REQUIRE(node.ok());
  return node.value();
}

HfImport convert(const Node& n, const std::string& id) {
  HfImportOptions opt;
  opt.id = id;
  opt.source = id + "/config.json";
  opt.as_of = Date{2025, 1, 1};
  auto r = import_hf_config(n, opt);
  if (!r) FAIL(r.error().text());
  return r.value();
}

std::string import_error(const std::string& text) {
  HfImportOptions opt;
  opt.source = "config.json";
  auto r = import_hf_config(json(text), opt);
  REQUIRE_FALSE(r.ok());
  return r.error().text();
}

const char* kLlama = R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
  "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256, "hidden_act": "silu"})";

}  // namespace

TEST_CASE("each fixture imports and its parameter count matches the catalog entry", "[catalog][import]") {
  Catalog::instance().reset();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"llama-3-8b", "llama-3-8b"},       {"mistral-7b", "mistral-7b"},       {"mixtral-8x7b", "mixtral-8x7b"},
      {"qwen2.5-7b", "qwen2.5-7b"},       {"qwen3-30b-a3b", "qwen3-30b-a3b"}, {"deepseek-v3", "deepseek-v3"},
      {"gemma-2-9b", "gemma-2-9b"},       {"gemma-3-27b", "gemma-3-27b"},     {"gpt-oss-20b", "gpt-oss-20b"}};
  for (const auto& [fixture_name, catalog_id] : cases) {
    INFO(fixture_name);
    const HfImport imp = convert(fixture(fixture_name), "imported-" + fixture_name);
    const Entry* ref = Catalog::instance().find(catalog_id);
    REQUIRE(ref != nullptr);
    const ModelArch want = read_model_arch(*ref).value_or_throw();
    const ModelArch& got = imp.arch;
    CHECK(got.layers == want.layers);
    CHECK(got.hidden_size == want.hidden_size);
    CHECK(got.attention_heads == want.attention_heads);
    CHECK(got.kv_heads == want.kv_heads);
    CHECK(got.head_dim == want.head_dim);
    CHECK(got.vocab_size == want.vocab_size);
    CHECK(got.tied_embeddings == want.tied_embeddings);
    CHECK(got.attention_bias == want.attention_bias);
    CHECK(got.layout == want.layout);
    CHECK(got.sliding_window == want.sliding_window);
    CHECK(got.layer_types == want.layer_types);
    CHECK(got.moe.has_value() == want.moe.has_value());
    CHECK(got.mla.has_value() == want.mla.has_value());
    CHECK(imp.params.total == Approx(count_params(want).total).epsilon(1e-9));
    CHECK(imp.params.active == Approx(count_params(want).active).epsilon(1e-9));
    CHECK(imp.toml.find("sources = [\"imported-" + fixture_name + "/config.json") != std::string::npos);
  }
}

TEST_CASE("import reads MoE and MLA field names of each family", "[catalog][import]") {
  const HfImport ds = convert(fixture("deepseek-v3"), "ds");
  REQUIRE(ds.arch.mla);
  CHECK(ds.arch.mla->kv_lora_rank == 512);
  CHECK(ds.arch.mla->q_lora_rank == 1536);
  CHECK(ds.arch.moe->experts == 256);
  CHECK(ds.arch.moe->shared_experts == 1);
  CHECK(ds.arch.moe->dense_layers == 3);
  const HfImport q = convert(fixture("qwen3-30b-a3b"), "q");
  CHECK(q.arch.moe->experts == 128);
  CHECK(q.arch.moe->expert_ffn_size == 768);
  const HfImport oss = convert(fixture("gpt-oss-20b"), "o");
  CHECK(oss.arch.moe->experts_per_token == 4);
  CHECK(oss.toml.find("layer_pattern = [\"sliding\", \"full\"]") != std::string::npos);
  const HfImport qwen2 = convert(fixture("qwen2.5-7b"), "q2");
  CHECK(qwen2.arch.attention_bias);
  CHECK(qwen2.arch.sliding_window == 0);  // use_sliding_window is false
}

TEST_CASE("missing and contradictory fields are errors that name the field", "[catalog][import]") {
  std::string no_layers = kLlama;
  no_layers.replace(no_layers.find("\"num_hidden_layers\": 32, "), 25, "");
  CHECK_THAT(import_error(no_layers), Catch::Contains("num_hidden_layers: missing"));
  std::string bad_kv = kLlama;
  bad_kv.replace(bad_kv.find("\"num_key_value_heads\": 8"), 24, "\"num_key_value_heads\": 6");
  CHECK_THAT(import_error(bad_kv), Catch::Contains("num_key_value_heads (6) must divide num_attention_heads (32)"));
  CHECK_THAT(import_error(R"({"model_type": "bert", "hidden_size": 768})"), Catch::Contains("model_type: \"bert\" is not supported"));
  CHECK_THAT(import_error(R"({"hidden_size": 768})"), Catch::Contains("model_type: missing"));
  std::string neg = kLlama;
  neg.replace(neg.find("\"hidden_size\": 4096"), 19, "\"hidden_size\": -4096");
  CHECK_THAT(import_error(neg), Catch::Contains("hidden_size: expected a positive whole number"));
  CHECK_THAT(import_error(R"({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
    "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 8, "num_experts_per_tok": 9})"),
             Catch::Contains("num_experts_per_tok (9) exceeds the number of experts (8)"));
  CHECK_THAT(import_error(R"({"model_type": "gpt_oss", "hidden_size": 2880, "num_hidden_layers": 2, "num_attention_heads": 64,
    "intermediate_size": 2880, "vocab_size": 201088, "num_local_experts": 32, "num_experts_per_tok": 4, "experts_per_token": 2})"),
             Catch::Contains("num_experts_per_tok (4) contradicts experts_per_token (2)"));
  CHECK_THAT(import_error(R"({"model_type": "gpt_oss", "hidden_size": 2880, "num_hidden_layers": 3, "num_attention_heads": 64,
    "intermediate_size": 2880, "vocab_size": 201088, "num_local_experts": 32, "num_experts_per_tok": 4,
    "layer_types": ["sliding_attention", "full_attention"], "sliding_window": 128})"),
             Catch::Contains("layer_types: has 2 entries but num_hidden_layers is 3"));
  CHECK_THAT(import_error(R"({"model_type": "gemma2", "hidden_size": 3584, "num_hidden_layers": 42, "num_attention_heads": 16,
    "head_dim": 256, "intermediate_size": 14336, "vocab_size": 256000})"),
             Catch::Contains("sliding_window: missing"));
  CHECK_THAT(import_error(R"({"model_type": "deepseek_v3", "hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 128,
    "intermediate_size": 18432, "vocab_size": 129280, "n_routed_experts": 256, "moe_intermediate_size": 2048,
    "num_experts_per_tok": 8, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "v_head_dim": 128})"),
             Catch::Contains("qk_rope_head_dim: missing"));
}

TEST_CASE("the suggested id comes from _name_or_path or the fallback", "[catalog][import]") {
  CHECK(hf_suggest_id(json(R"({"_name_or_path": "meta-llama/Meta-Llama-3-8B"})"), "x") == "meta-llama-3-8b");
  CHECK(hf_suggest_id(json("{}"), "My Model_v2") == "my-model-v2");
  CHECK(hf_suggest_id(json("{}"), "") == "imported-model");
}

TEST_CASE("an imported file loads through the catalog as an overlay", "[catalog][import]") {
  const fs::path dir = fs::temp_directory_path() / ("infracalc-overlay-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "models");
  const HfImport imp = convert(fixture("mixtral-8x7b"), "my-mixtral");
  write_file_atomically((dir / "models" / "my-mixtral.toml").string(), imp.toml, false);
  Catalog::instance().reset();
  Catalog::instance().add_overlay_dir(dir.string());
  const Entry* e = Catalog::instance().find("my-mixtral");
  REQUIRE(e != nullptr);
  CHECK(e->overlay());
  auto arch = read_model_arch(*e);
  REQUIRE(arch.ok());
  CHECK(arch.value().params_total_published == Approx(46.70e9).epsilon(0.001));
  Catalog::instance().reset();
  fs::remove_all(dir);
}

TEST_CASE("the importer's count limit is the model reader's", "[catalog][import]") {
  std::string huge = kLlama;
  huge.replace(huge.find("\"num_hidden_layers\": 32"), 23, "\"num_hidden_layers\": 3000000000");
  const std::string e = import_error(huge);
  CHECK_THAT(e, Catch::Contains("num_hidden_layers (3000000000) is above 10,000"));
  CHECK(e.find("please report") == std::string::npos);
  std::string limit = kLlama;
  limit.replace(limit.find("\"vocab_size\": "), 14, "\"vocab_size\": 2000000001, \"x\": ");
  CHECK_THAT(import_error(limit), Catch::Contains("vocab_size (2000000001) is above"));
}

TEST_CASE("counts past the model limits are errors naming the field, never a wrapped parameter count", "[catalog][import]") {
  // 2e9 experts once wrapped the int product in the parameter count and wrote a negative params_total.
  const std::string err = import_error(R"({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
    "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 2000000000, "num_experts_per_tok": 2})");
  CHECK_THAT(err, Catch::Contains("num_local_experts (2000000000) is above"));
  CHECK_THAT(err, Catch::Contains(format_count(static_cast<double>(kMaxExperts), 15)));
  std::string deep = kLlama;
  deep.replace(deep.find("\"num_hidden_layers\": 32"), 23, "\"num_hidden_layers\": " + std::to_string(kMaxLayers + 1));
  CHECK_THAT(import_error(deep), Catch::Contains("num_hidden_layers"));
  // Every count within its limit, but together past the parameter limit: an error, not a huge or negative file.
  const std::string big = import_error(R"({"model_type": "mixtral", "hidden_size": 10000000, "num_hidden_layers": 10000, "num_attention_heads": 32,
    "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 10000000, "vocab_size": 32000, "num_local_experts": 1000000,
    "num_experts_per_tok": 2})");
  CHECK_THAT(big, Catch::Contains("parameters, more than"));
  // Largest counts within the limits: the count stays finite and positive.
  const HfImport ok = convert(json(R"({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
    "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 100000, "num_experts_per_tok": 2})"),
                              "many-experts");
  CHECK(ok.params.total > 0);
  CHECK(ok.params.total > 100000.0 * 3 * 4096 * 14336 * 32);
}

namespace {

// A fixture imported and counted, with the relative error against a published count.
double off_by(const HfImport& imp, double published, bool active = false) {
  const double got = active ? imp.params.active : imp.params.total;
  return std::abs(got - published) / published;
}

}  // namespace

TEST_CASE("GPT-2, GPT-NeoX, Falcon and Phi-3 import with their own MLP, bias and norm conventions", "[catalog][import]") {
  const HfImport gpt2 = convert(fixture("gpt2"), "gpt2");
  CHECK(gpt2.arch.layers == 12);
  CHECK(gpt2.arch.hidden_size == 768);
  CHECK(gpt2.arch.attention_heads == 12);
  CHECK(gpt2.arch.ffn_size == 4 * 768);  // n_inner is absent: 4 x n_embd
  CHECK_FALSE(gpt2.arch.gated_mlp);
  CHECK(gpt2.arch.tied_embeddings);
  CHECK(gpt2.arch.linear_bias);
  CHECK(gpt2.arch.norm_bias);
  CHECK(gpt2.arch.learned_positions == 1024);
  CHECK(gpt2.arch.max_context == 1024);
  // Token and position embeddings, 12 blocks of biased Conv1D projections and two LayerNorms, the final LayerNorm.
  const double h = 768, v = 50257, f = 4 * h;
  const double block = 2 * 2 * h + (h * 3 * h + 3 * h) + (h * h + h) + (h * f + f) + (f * h + h);
  CHECK(gpt2.params.total == Approx(v * h + 1024 * h + 12 * block + 2 * h).epsilon(1e-12));
  CHECK(off_by(gpt2, 124e6) <= 0.01);

  const HfImport neox = convert(fixture("pythia-410m"), "pythia-410m");
  CHECK_FALSE(neox.arch.gated_mlp);
  CHECK_FALSE(neox.arch.tied_embeddings);
  CHECK(neox.arch.linear_bias);
  CHECK(neox.arch.learned_positions == 0);  // rotary
  CHECK(neox.toml.find("activation = \"gelu\"") != std::string::npos);
  CHECK(neox.params.total == Approx(405'334'016.0).epsilon(1e-12));  // the Pythia README's own count

  const HfImport falcon = convert(fixture("falcon-7b"), "falcon-7b");
  CHECK(falcon.arch.kv_heads == 1);  // multi_query without new_decoder_architecture
  CHECK(falcon.arch.layout == AttentionLayout::mqa);
  CHECK(falcon.arch.ffn_size == 4 * 4544);
  CHECK_FALSE(falcon.arch.gated_mlp);
  CHECK_FALSE(falcon.arch.linear_bias);  // "bias": false
  CHECK(falcon.arch.tied_embeddings);
  // The model card rounds 6.92e9 to 7B; the MoE tolerance of the catalog tests (2%) covers the rounding.
  CHECK(off_by(falcon, 7e9) <= 0.02);

  const HfImport phi3 = convert(fixture("phi-3-mini-4k-instruct"), "phi3");
  CHECK(phi3.arch.gated_mlp);  // fused gate_up_proj is still a gate
  CHECK(phi3.arch.kv_heads == 32);
  CHECK_FALSE(phi3.arch.linear_bias);
  CHECK_FALSE(phi3.arch.norm_bias);
  CHECK(phi3.arch.sliding_window == 2047);
  CHECK(off_by(phi3, 3.8e9) <= 0.01);
}

TEST_CASE("Falcon's new decoder architecture groups queries over num_kv_heads", "[catalog][import]") {
  const HfImport f40 = convert(json(R"({"model_type": "falcon", "hidden_size": 8192, "num_hidden_layers": 60, "num_attention_heads": 128,
    "num_kv_heads": 8, "new_decoder_architecture": true, "multi_query": true, "bias": false, "vocab_size": 65024})"),
                               "falcon-40b");
  CHECK(f40.arch.kv_heads == 8);
  CHECK(f40.arch.layout == AttentionLayout::gqa);
  CHECK(f40.arch.tied_embeddings);  // FalconConfig's default
}

TEST_CASE("Llama 4 imports its experts, dense width and chunked attention as a window", "[catalog][import]") {
  Catalog::instance().reset();
  const HfImport scout = convert(fixture("llama-4-scout"), "scout");
  CHECK(scout.arch.layers == 48);
  REQUIRE(scout.arch.moe);
  CHECK(scout.arch.moe->experts == 16);
  CHECK(scout.arch.moe->shared_experts == 1);
  CHECK(scout.arch.moe->expert_ffn_size == 8192);
  CHECK(scout.arch.moe->dense_layers == 0);
  CHECK(scout.arch.ffn_size == 16384);
  CHECK(scout.arch.sliding_window == 8192);
  CHECK(scout.toml.find("layer_pattern = [\"sliding\", \"sliding\", \"sliding\", \"full\"]") != std::string::npos);
  CHECK(count_layers(scout.arch, LayerAttention::full) == 12);
  bool noted = false;
  for (const auto& n : scout.notes) noted = noted || n.find("attention_chunk_size 8192") != std::string::npos;
  CHECK(noted);
  const ModelArch want = read_model_arch(*Catalog::instance().find("llama-4-scout")).value_or_throw();
  CHECK(scout.params.total == Approx(count_params(want).total).epsilon(1e-9));
  CHECK(off_by(scout, 109e9) <= 0.02);
  CHECK(off_by(scout, 17e9, true) <= 0.02);
  // Maverick alternates dense and MoE layers (interleave_moe_layer_step 2): 24 dense layers, as the catalog keeps them.
  std::string maverick = R"({"model_type": "llama4", "text_config": {"model_type": "llama4_text", "hidden_size": 5120, "num_hidden_layers": 48,
    "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
    "num_local_experts": 128, "num_experts_per_tok": 1, "interleave_moe_layer_step": 2, "vocab_size": 202048, "attention_chunk_size": 8192,
    "hidden_act": "silu"}, "tie_word_embeddings": false})";
  const HfImport mav = convert(json(maverick), "maverick");
  CHECK(mav.arch.moe->dense_layers == 24);
  const ModelArch want_mav = read_model_arch(*Catalog::instance().find("llama-4-maverick")).value_or_throw();
  CHECK(mav.params.total == Approx(count_params(want_mav).total).epsilon(1e-9));
  CHECK(mav.params.active == Approx(count_params(want_mav).active).epsilon(1e-9));
}

TEST_CASE("Jamba imports as a hybrid: Mamba layers, attention every eighth layer, experts every other layer", "[catalog][import]") {
  const HfImport jamba = convert(fixture("jamba-v0.1"), "jamba");
  REQUIRE(jamba.arch.ssm);
  CHECK(jamba.arch.ssm->d_state == 16);
  CHECK(jamba.arch.ssm->d_conv == 4);
  CHECK(jamba.arch.ssm->d_inner == 8192);
  CHECK(jamba.arch.ssm->dt_rank == 256);
  CHECK(jamba.arch.ssm->state_dtype == "bf16");
  CHECK(count_layers(jamba.arch, LayerAttention::state_space) == 28);
  CHECK(count_layers(jamba.arch, LayerAttention::full) == 4);
  CHECK(jamba.arch.layer_types[4] == LayerAttention::full);
  CHECK(jamba.arch.layer_types[12] == LayerAttention::full);
  CHECK(jamba.arch.layer_types[0] == LayerAttention::state_space);
  REQUIRE(jamba.arch.moe);
  CHECK(jamba.arch.moe->experts == 16);
  CHECK(jamba.arch.moe->dense_layers == 16);
  // 28 Mamba mixers (mamba_ssm's Mamba plus Jamba's dt/B/C norms) counted independently of ssm_mixer_params.
  const double h = 4096, di = 8192, ds = 16, r = 256;
  const double mixer = h * 2 * di + (di * 4 + di) + di * (r + 2 * ds) + (r * di + di) + di * ds + di + di * h + (r + 2 * ds);
  CHECK(jamba.params.ssm == Approx(28 * mixer).epsilon(1e-12));
  CHECK(off_by(jamba, 52e9) <= 0.02);
  CHECK(off_by(jamba, 12e9, true) <= 0.02);
}

TEST_CASE("the id comes from _name_or_path or name_or_path, never from config.json itself", "[catalog][import]") {
  CHECK(hf_name_of(fixture("phi-3-mini-4k-instruct")) == "Phi-3-mini-4k-instruct");
  CHECK(hf_suggest_id(fixture("phi-3-mini-4k-instruct"), "config") == "phi-3-mini-4k-instruct");
  CHECK(hf_suggest_id(json(R"({"name_or_path": "tiiuae/falcon-7b"})"), "config") == "falcon-7b");
  CHECK(hf_name_of(json(R"({"_name_or_path": "./"})")).empty());
  CHECK(hf_name_of(fixture("gpt2")).empty());  // the fallback (the file or folder name) applies
}

TEST_CASE("bad hybrid and Llama 4 configs are errors that name the field", "[catalog][import]") {
  CHECK_THAT(import_error(R"({"model_type": "jamba", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
    "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 65536, "num_experts_per_tok": 2, "attn_layer_period": 8,
    "attn_layer_offset": 8})"),
             Catch::Contains("attn_layer_offset (8) must be below attn_layer_period (8)"));
  CHECK_THAT(import_error(R"({"model_type": "llama4_text", "hidden_size": 5120, "num_hidden_layers": 4, "num_attention_heads": 40,
    "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 8192, "intermediate_size_mlp": 16384, "num_local_experts": 16,
    "num_experts_per_tok": 1, "vocab_size": 202048, "attention_chunk_size": 8192, "no_rope_layers": [1, 1, 0]})"),
             Catch::Contains("no_rope_layers: has 3 entries but num_hidden_layers is 4"));
  CHECK_THAT(import_error(R"({"model_type": "falcon", "hidden_size": 8192, "num_hidden_layers": 60, "num_attention_heads": 128,
    "new_decoder_architecture": true, "vocab_size": 65024})"),
             Catch::Contains("num_kv_heads: missing"));
}
