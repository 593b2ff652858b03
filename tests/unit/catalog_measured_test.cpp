// The published-measurement reader (catalog/measured.hpp) and the data/measured/ corpus.
#include <catch2/catch.hpp>
#include <set>

#include "catalog/catalog.hpp"
#include "catalog/check.hpp"
#include "catalog/measured.hpp"
#include "documents/toml_reader.hpp"
#include "plugins/formats/storage.hpp"

using namespace infracalc;

namespace {

constexpr const char* kOne = R"toml([[measurement]]
id = "trtllm017-llama31-70b-h100-tp2-2048-128"
kind = "inference-throughput"
source = "TensorRT-LLM Performance Overview"
locator = "docs/source/performance/perf-overview.md"
date = 2025-01-30
hardware = "2x H100 80GB HBM3"
accelerator = "h100-sxm"
count = 2
model = "Llama-3.1 70B"
model_id = "llama-3.1-70b"
precision = "FP8"
weights = "fp8"
kv = "fp8"
engine = "trtllm"
software = "TensorRT-LLM 0.17"
quote = "| 2048, 128 | 809 | 772.66 |"
notes = "offline"
[measurement.config]
tp = 2
input_len = 2048
output_len = 128
scenario = "offline max throughput"
[measurement.result]
tokens_per_second = "772.66 tok/s (output, all 2 GPUs)"
)toml";

Expected<std::vector<Measurement>> read_text(const std::string& text) {
  auto root = read_toml(text, "m.toml");
  REQUIRE(root.ok());
  return read_measurements(root.value(), "m.toml");
}

// kOne with `from` replaced by `to`.
std::string with(const std::string& from, const std::string& to) {
  std::string s = kOne;
  const auto pos = s.find(from);
  REQUIRE(pos != std::string::npos);
  return s.replace(pos, from.size(), to);
}

}  // namespace

TEST_CASE("a measurement is read with its location, config and result", "[measured]") {
  auto r = read_text(kOne);
  REQUIRE(r.ok());
  REQUIRE(r.value().size() == 1);
  const Measurement& m = r.value().front();
  CHECK(m.file == "m.toml");
  CHECK(m.location == "m.toml:1:1");
  CHECK(m.id == "trtllm017-llama31-70b-h100-tp2-2048-128");
  CHECK(m.date == "2025-01-30");
  CHECK(m.count == 2);
  CHECK(m.model_id == "llama-3.1-70b");
  CHECK(m.weights == "fp8");
  CHECK(m.kv == "fp8");
  CHECK(m.engine == "trtllm");
  CHECK(m.config_int("tp") == 2);
  CHECK(m.config_int("output_len") == 128);
  CHECK_FALSE(m.config_int("scenario").has_value());
  CHECK_FALSE(m.config_int("pp").has_value());
  CHECK(m.config_string("scenario") == std::optional<std::string>("offline max throughput"));
  REQUIRE(m.result_value("tokens_per_second") != nullptr);
  // The reader keeps values as written; `data check` is what requires them to parse.
  CHECK(m.result_value("tokens_per_second")->str == "772.66 tok/s (output, all 2 GPUs)");
  CHECK(m.result_value("ttft_mean") == nullptr);
}

TEST_CASE("optional keys may be left out", "[measured]") {
  auto r = read_text(with("model_id = \"llama-3.1-70b\"\n", ""));
  REQUIRE(r.ok());
  CHECK(r.value().front().model_id.empty());
  auto no_config = read_text(with("[measurement.config]\ntp = 2\ninput_len = 2048\noutput_len = 128\nscenario = \"offline max throughput\"\n", ""));
  REQUIRE(no_config.ok());
  CHECK_FALSE(no_config.value().front().config_int("tp").has_value());
}

TEST_CASE("malformed measurements are errors naming file:line:col", "[measured]") {
  auto missing = read_text(with("quote = \"| 2048, 128 | 809 | 772.66 |\"\n", ""));
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("m.toml:1:1") && Catch::Contains("'quote'"));

  auto kind = read_text(with("\"inference-throughput\"", "\"inference-speed\""));
  REQUIRE_FALSE(kind.ok());
  CHECK_THAT(kind.error().message, Catch::Contains("m.toml:3:8") && Catch::Contains("unknown measurement kind"));

  auto date = read_text(with("date = 2025-01-30", "date = \"2025-01-30\""));
  REQUIRE_FALSE(date.ok());
  CHECK_THAT(date.error().message, Catch::Contains("m.toml:6:8") && Catch::Contains("TOML date"));

  auto count = read_text(with("count = 2", "count = 2.5"));
  REQUIRE_FALSE(count.ok());
  CHECK_THAT(count.error().message, Catch::Contains("'count'"));

  auto engine = read_text(with("engine = \"trtllm\"", "engine = \"tensorrt\""));
  REQUIRE_FALSE(engine.ok());
  CHECK_THAT(engine.error().message, Catch::Contains("unknown engine"));

  auto typo = read_text(with("model_id =", "modelid ="));
  REQUIRE_FALSE(typo.ok());
  CHECK_THAT(typo.error().message, Catch::Contains("unknown key 'modelid'"));
  CHECK_THAT(typo.error().hint, Catch::Contains("model_id"));

  auto no_result = read_text(with("[measurement.result]\ntokens_per_second = \"772.66 tok/s (output, all 2 GPUs)\"\n", ""));
  REQUIRE_FALSE(no_result.ok());
  CHECK_THAT(no_result.error().message, Catch::Contains("[measurement.result]"));

  std::string twice = kOne;
  twice.append("\n").append(kOne);
  auto dup = read_text(twice);
  REQUIRE_FALSE(dup.ok());
  CHECK_THAT(dup.error().message, Catch::Contains("duplicate measurement id"));

  auto none = read_text("id = \"x\"\n");
  REQUIRE_FALSE(none.ok());
  CHECK_THAT(none.error().message, Catch::Contains("no [[measurement]] tables"));
}

TEST_CASE("lint_measurements reports every problem, not only the first", "[measured]") {
  std::string text = with("count = 2", "count = -1");
  text.append("\n").append(with("\"inference-throughput\"", "\"speed\""));
  auto root = read_toml(text, "m.toml");
  REQUIRE(root.ok());
  std::vector<Measurement> out;
  const auto errors = lint_measurements(root.value(), "m.toml", out);
  CHECK(out.size() == 2);
  CHECK(errors.size() >= 3);  // the negative count, the unknown kind, the duplicate id
}

TEST_CASE("a missing file is an error", "[measured]") {
  auto r = read_measurement_file("/nonexistent/measured.toml");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("/nonexistent/measured.toml"));
}

TEST_CASE("the embedded corpus parses, has unique ids and passes data check", "[measured]") {
  auto& c = Catalog::instance();
  c.reset();
  const auto& all = embedded_measurements();
  CHECK(all.size() >= 130);
  std::set<std::string> ids;
  for (const auto& m : all) {
    CHECK(ids.insert(m.id).second);
    CHECK(m.file.rfind("data/measured/", 0) == 0);
    CHECK_FALSE(m.result.members.empty());
  }
  // Measured files are not catalog entries: the index and lookups leave them out.
  CHECK(c.find("mlperf-inference") == nullptr);
  for (const auto& item : c.index()) CHECK(item.kind != "measured");
  const auto names = storage_format_names();
  for (const auto& f : check_catalog(c, Date{2026, 11, 29}, names)) {
    INFO(f.where << ": " << f.message);
    CHECK_FALSE(f.error);
  }
  c.reset();
}
