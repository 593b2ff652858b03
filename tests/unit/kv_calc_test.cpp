// The kv calculators end to end, with model files for DeepSeek-V3 and Gemma 3 27B written as overlays (the
// built-in catalog may not have them) and their figures checked against independently computed values.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "catalog/catalog.hpp"
#include "host/context.hpp"
#include "plugins/kv/kv_plugin.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;
namespace fs = std::filesystem;

namespace {

struct KvOverlay {
  fs::path path;
  KvOverlay() {
    path = fs::temp_directory_path() / ("infracalc-kv-test-" + std::to_string(::getpid()));
    fs::create_directories(path / "models");
    std::ofstream(path / "models" / "test-deepseek-v3.toml") << R"toml(id = "test-deepseek-v3"
name = "DeepSeek-V3 (test overlay)"
kind = "model"
layers = 61
hidden_size = 7168
attention_heads = 128
kv_heads = 128
head_dim = 128
ffn_size = 18432
vocab_size = 129280
max_context = "163840 tok"
params_total = 671e9
params_active = 37e9

[attention]
layout = "mla"
kv_lora_rank = 512
q_lora_rank = 1536
qk_rope_head_dim = 64
qk_nope_head_dim = 128
v_head_dim = 128

[moe]
experts = 256
experts_per_token = 8
shared_experts = 1
expert_ffn_size = 2048
dense_layers = 3

[meta]
as_of = 2024-12-26
sources = ["deepseek-ai/DeepSeek-V3 config.json (huggingface.co)", "DeepSeek-V3 Technical Report (arXiv:2412.19437)"]
basis = "published"
)toml";
    std::ofstream(path / "models" / "test-gemma-3-27b.toml") << R"toml(id = "test-gemma-3-27b"
name = "Gemma 3 27B (test overlay)"
kind = "model"
layers = 62
hidden_size = 5376
attention_heads = 32
kv_heads = 16
head_dim = 128
ffn_size = 21504
vocab_size = 262208
max_context = "131072 tok"
params_total = 27.4e9

[attention]
sliding_window = "1024 tok"
layer_pattern = ["sliding", "sliding", "sliding", "sliding", "sliding", "full"]

[meta]
as_of = 2025-03-12
sources = ["google/gemma-3-27b-it config.json (huggingface.co)", "Gemma 3 Technical Report (arXiv:2503.19786)"]
basis = "published"
)toml";
    fs::create_directories(path / "prices");
    std::ofstream(path / "prices" / "test-cache-prices.toml") << R"toml(id = "test-cache-prices"
name = "Prompt-cache multipliers (test overlay)"
kind = "price"
item = "prompt caching"
cache_write = 2
cache_read = [{ as_of = 2024-08-14, value = "10%" }, { as_of = 2025-01-01, value = "20%" }]

[meta]
as_of = 2025-01-01
sources = ["test fixture"]
basis = "estimate"
)toml";
    Catalog::instance().reset();
    Catalog::instance().add_overlay_dir(path.string());
  }
  ~KvOverlay() {
    Catalog::instance().reset();
    fs::remove_all(path);
  }
};

bool verdict(const Result& r, std::string_view key) {
  for (const auto& v : r.verdicts)
    if (v.key == key) return v.ok;
  FAIL("no verdict " << key);
  return false;
}

}  // namespace

TEST_CASE("DeepSeek-V3 from its model file: the MLA latent, per token and per device", "[kv][calc]") {
  KvOverlay o;
  const auto r = run("kv", "size", {{"model", "test-deepseek-v3"}, {"dtype", "bf16"}, {"tokens", "1"}, {"tp", "8"}});
  CHECK(value(r, "kv_bytes_per_token") == 70272);
  CHECK(value(r, "kv_bytes_per_token_per_device") == 70272);
  // Against caching decompressed K (192 wide) and V (128 wide) for all 128 heads.
  CHECK(value(r, "factor_vs_mha") == Approx(128.0 * 320 / 576));
  const auto c = run("kv", "compare", {{"model", "test-deepseek-v3"}, {"dtype", "bf16"}, {"tokens", "1"}});
  CHECK(value(c, "mla_bytes_per_token") == 70272);
  CHECK(value(c, "mha_bytes_per_token") == 61.0 * 128 * 320 * 2);
  CHECK(value(c, "mla_factor") == Approx(128.0 * 320 / 576));
}

TEST_CASE("Gemma 3 27B from its model file: windows from the layer pattern", "[kv][calc]") {
  KvOverlay o;
  const auto r = run("kv", "size", {{"model", "test-gemma-3-27b"}, {"dtype", "bf16"}, {"tokens", "128Ki"}});
  CHECK(value(r, "kv_total") == 11173625856.0);
  CHECK(value(r, "sliding_layers") == 52);
  // A flag overrides the file: turn the windows off and every layer grows.
  const auto full = run("kv", "size", {{"model", "test-gemma-3-27b"}, {"dtype", "bf16"}, {"tokens", "128Ki"}, {"layer_pattern", "full"}});
  CHECK(value(full, "kv_total") == 62.0 * 131072 * 8192);
  // The whole 40 GB, as the source case counts it (fit's reserve is the default since issue 19).
  const auto cap = run("kv", "capacity", {{"model", "test-gemma-3-27b"}, {"dtype", "bf16"}, {"memory", "40GB"}, {"weights", "0GB"},
                                    {"utilization", "100%"}, {"reserve", "0GB"}});
  CHECK(value(cap, "max_context") == 482956);
}

TEST_CASE("capacity puts the weights in first", "[kv][calc]") {
  KvOverlay o;
  const auto r = run("kv", "capacity", {{"model", "test-deepseek-v3"}, {"dtype", "fp8"}, {"system", "gb200-nvl72"}, {"tokens", "1M"}});
  CHECK(value(r, "devices") == 72);
  CHECK(value(r, "weights_total") == Approx(value(r, "weights_per_device") * 72));
  CHECK(value(r, "weights_total") > 6.5e11);  // ~671e9 parameters at 1 B
  CHECK(value(r, "kv_required") == 1e6 * 61 * 576);
  CHECK(verdict(r, "fits"));
  const auto tight = run("kv", "capacity", {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"tp", "4"}, {"utilization", "90%"},
                                      {"reserve", "2GB"}, {"context", "8000"}});
  const double visible = 81559.0 * 1024 * 1024;  // h100-sxm memory_visible: what nvidia-smi reports (issue 19, item 5)
  const double budget = visible * 0.9 - 2e9 - value(tight, "weights_total") / 4;
  CHECK(value(tight, "kv_budget_per_device") == Approx(budget));
  CHECK(value(tight, "max_batch") == std::floor(budget / (8000.0 * 81920)));
  CHECK(value(tight, "max_batch") > 0);
}

TEST_CASE("calculators refuse contradictory or missing inputs", "[kv][calc]") {
  CHECK(error_of("kv", "size", {{"layers", "80"}, {"heads", "64"}, {"kv_heads", "8"}, {"head_dim", "128"}, {"attention", "mha"}, {"tokens", "1"}})
            .find("contradicts") != std::string::npos);
  CHECK(error_of("kv", "size", {{"kv_heads", "8"}, {"head_dim", "128"}, {"tokens", "1"}}).find("--layers") != std::string::npos);
  CHECK(error_of("kv", "size", {{"layers", "80"}, {"head_dim", "128"}, {"tokens", "1"}}).find("--kv-heads") != std::string::npos);
  CHECK(error_of("kv", "size", {{"model", "llama-3-70b"}, {"tokens", "1"}, {"pp", "81"}}).find("--pp") != std::string::npos);
  CHECK(error_of("kv", "size", {{"model", "llama-3-70b"}, {"tokens", "1"}, {"shared_layers", "80"}}).find("--shared-layers") != std::string::npos);
  CHECK(error_of("kv", "size", {{"model", "llama-3-70b"}, {"tokens", "1"}, {"kv_group_size", "64"}, {"dtype", "int4"}}).find("--kv-scales group") !=
        std::string::npos);
  CHECK(error_of("kv", "capacity", {{"layers", "80"}, {"kv_heads", "8"}, {"head_dim", "128"}, {"memory", "80GB"}}).find("weights") !=
        std::string::npos);
  CHECK(error_of("kv", "capacity", {{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"devices", "8"}, {"tp", "2"}}).find("--tp") !=
        std::string::npos);
  CHECK(error_of("kv", "paged", {{"requests", "1+1"}}).find("pool size") != std::string::npos);
  CHECK(error_of("kv", "paged", {{"requests", "1+1"}, {"count", "5"}, {"blocks", "4"}}).find("one of") != std::string::npos);
  CHECK(error_of("kv", "paged", {{"requests", "100+100"}, {"blocks", "100"}, {"max_len", "150"}}).find("--max-len") != std::string::npos);
  CHECK(error_of("kv", "offload", {{"tokens", "1000"}}).find("cache size") != std::string::npos);
  CHECK(error_of("kv", "work", {{"tokens", "5"}, {"step", "6"}}).find("--step") != std::string::npos);
  CHECK(error_of("kv", "compress", {{"model", "llama-3-70b"}, {"prompt", "100"}, {"cachegen_ratio", "0.5"}}).find("--cachegen-ratio") !=
        std::string::npos);
}

TEST_CASE("paged reports reservation waste against paging on a seeded stream", "[kv][calc]") {
  const auto r = run("kv", "paged", {{"count", "200"}, {"seed", "11"}, {"blocks", "2000"}, {"max_len", "4096"}, {"prompt_mean", "300"},
                               {"output_mean", "200"}, {"arrival_rate", "1"}});
  CHECK(value(r, "requests") == 200);
  CHECK(value(r, "reservation_waste") > 0.8);
  CHECK(value(r, "final_block_waste") < 0.1);
  CHECK(value(r, "blocks_freed") == value(r, "blocks_allocated"));
  CHECK(value(r, "blocks_reused") > 0);
  // The same seed gives the same answer.
  const auto again = run("kv", "paged", {{"count", "200"}, {"seed", "11"}, {"blocks", "2000"}, {"max_len", "4096"}, {"prompt_mean", "300"},
                                   {"output_mean", "200"}, {"arrival_rate", "1"}});
  CHECK(value(again, "steps") == value(r, "steps"));
  const auto traced = run("kv", "paged", {{"requests", "3x20+5"}, {"blocks", "10"}, {"trace", ""}});
  bool has_trace = false;
  for (const auto& t : traced.tables) has_trace = has_trace || t.name == "trace";
  CHECK(has_trace);
}

TEST_CASE("offload and prefix figures", "[kv][calc]") {
  const auto o = run("kv", "offload", {{"model", "llama-3-70b"}, {"tokens", "128000"}, {"chunk", "1MB"}});
  // 41,943 chunks of 1 MB each pay the 50 us NVMe latency.
  CHECK(value(o, "nvme_move_time") == Approx(41944 * 50e-6 + 41.94304e9 / 13e9));
  CHECK(value(o, "cxl_vs_nvme_latency") == Approx(250));
  const auto p = run("kv", "prefix", {{"prefix", "1000"}, {"requests", "4"}, {"cache_read", "50%"}, {"cache_write", "1"}, {"hit_rate", "10%"}});
  CHECK(value(p, "break_even_hit_rate") == 0);
  CHECK(value(p, "cost_multiplier") == Approx(0.95));
}

TEST_CASE("prompt-cache multipliers come from a price entry, dated or plain", "[kv][calc]") {
  KvOverlay o;
  const Plugin& p = kv_plugin();
  const RawInputs raw = {{"prefix", "2000"}, {"requests", "10"}, {"price", "test-cache-prices"}};
  const auto newest = run_calculator(p, *p.find("prefix"), raw);
  CHECK(value(newest, "break_even_hit_rate") == Approx(1.0 / 1.8));
  RunOptions old;
  old.as_of = Date::parse("2024-12-01");
  const auto dated = run_calculator(p, *p.find("prefix"), raw, old);
  CHECK(value(dated, "break_even_hit_rate") == Approx(1.0 / 1.9));
  bool cited = false;
  for (const auto& pr : dated.provenance) cited = cited || (pr.id == "test-cache-prices" && pr.as_of == "2024-08-14");
  CHECK(cited);
  // A flag still wins over the entry.
  RawInputs flagged = raw;
  flagged.push_back({"cache_write", "1.25"});
  flagged.push_back({"cache_read", "10%"});
  CHECK(value(run_calculator(p, *p.find("prefix"), flagged), "break_even_hit_rate") == Approx(0.25 / 1.15));
}

TEST_CASE("a context past the model's trained one is a note, not an error", "[kv][calc]") {
  auto said = [](const Result& r) {
    for (const auto& n : r.notes)
      if (n.find("exceeds the 8,192-token context llama-3-70b was trained for") != std::string::npos) return true;
    return false;
  };
  CHECK(said(run("kv", "size", {{"model", "llama-3-70b"}, {"tokens", "1M"}})));
  CHECK_FALSE(said(run("kv", "size", {{"model", "llama-3-70b"}, {"tokens", "8192"}})));
  CHECK(said(run("kv", "capacity", {{"model", "llama-3-70b"}, {"memory", "80GB"}, {"devices", "8"}, {"context", "32k"}})));
}

// Issue 19, item 15: the HBM fit counts the weights, and host-memory latencies below the PCIe round trip are warned about.
TEST_CASE("kv offload: the weights share HBM, and DRAM/CXL latency below a PCIe round trip is flagged", "[kv][calc][implausible]") {
  auto says = [](const Result& res, const std::string& what) {
    for (const auto& note : res.notes)
      if (note.find(what) != std::string::npos) return true;
    return false;
  };
  // Llama 3 8B: 4 x 128k tokens = 67 GB of cache fits 80 GB alone, not beside its 16 GB of 16-bit weights.
  const auto o = run("kv", "offload", {{"model", "llama-3-8b"}, {"tokens", "128000"}, {"batch", "4"}});
  CHECK_FALSE(verdict(o, "hbm_fits"));
  CHECK(says(o, "less the model's 16-bit weights"));
  // --hbm-reserved replaces the weights.
  CHECK(verdict(run("kv", "offload", {{"model", "llama-3-8b"}, {"tokens", "128000"}, {"batch", "4"}, {"hbm_reserved", "0GB"}}), "hbm_fits"));
  // Llama 3 70B's weights alone fill an 80 GB device.
  CHECK(says(run("kv", "offload", {{"model", "llama-3-70b"}, {"tokens", "1000"}}), "no HBM is left for the cache"));
  // 200 ns CXL and 100 ns DRAM (the media's own latency) against a PCIe read of at least ~1 us.
  const auto c = run("kv", "offload", {{"cache", "40GB"}});
  CHECK(says(c, "--cxl-latency 200 ns is the memory's own access time"));
  CHECK(says(c, "--dram-latency 100 ns"));
  CHECK_FALSE(says(run("kv", "offload", {{"cache", "40GB"}, {"dram_latency", "1.5us"}, {"cxl_latency", "2us"}}), "implausible"));
}

// Issue 20, item 9: notes quote numbers with the run's options (--digits, --binary), through Context::quote.
TEST_CASE("notes honour the run's digits and binary prefixes", "[kv][calc][format]") {
  const Plugin& p = kv_plugin();
  const RawInputs raw = {{"model", "llama-3-8b"}, {"memory", "80GB"}};
  auto note_with = [&](const FormatOptions& number) {
    RunOptions o;
    o.number = number;
    for (const auto& n : run_calculator(p, *p.find("capacity"), raw, o).notes)
      if (n.rfind("usable memory per device", 0) == 0) return n;
    return std::string();
  };
  CHECK(note_with({}).find("= 80 GB x 0.9 - 1.5 GB reserved = 70.5 GB;") != std::string::npos);
  CHECK(note_with({.digits = 2, .binary = false}).find("= 80 GB x 0.9 - 1.5 GB reserved = 70 GB;") != std::string::npos);
  CHECK(note_with({.digits = 6, .binary = true}).find("= 74.5058 GiB x 0.9 - 1.39698 GiB reserved = 65.6582 GiB;") != std::string::npos);
}

TEST_CASE("Context::quote and friends format with the run's options", "[core][format]") {
  const Plugin& p = kv_plugin();
  RunOptions o;
  o.number = {.digits = 3, .binary = true};
  Context ctx(p, *p.find("capacity"), {{"model", "llama-3-8b"}, {"memory", "80GB"}}, o);
  CHECK(ctx.quote(from_base<Bytes>(1024.0 * 1024 * 1024 * 1.5)) == "1.5 GiB");
  CHECK(ctx.quote(from_base<Seconds>(0.0123456)) == "12.3 ms");
  CHECK(ctx.quote(from_base<Seconds>(7200.0), "h") == "2 h");
  CHECK(ctx.quote_count(8192) == "8,192");
  CHECK(ctx.quote_number(0.123456) == "0.123");
  CHECK(ctx.quote_percent(0.40) == "40%");
  CHECK(ctx.quote_percent(0.123456) == "12.3%");
}
