// `data check`: the built-in catalog is clean, and each rule catches what it is for.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "catalog/catalog.hpp"
#include "catalog/check.hpp"
#include "catalog/schema.hpp"

using namespace infracalc;
namespace fs = std::filesystem;

namespace {

// A scratch overlay directory, removed (with the catalog's overlays) at the end of the test.
struct Overlay {
  fs::path dir;
  Overlay() {
    dir = fs::temp_directory_path() / ("infracalc-check-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    Catalog::instance().reset();
  }
  ~Overlay() {
    Catalog::instance().reset();
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  void add(const std::string& rel, const std::string& text) const {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel) << text;
  }
  std::vector<Finding> check() const {
    Catalog::instance().add_overlay_dir(dir.string());
    return check_catalog(Catalog::instance(), Date{2026, 11, 29});
  }
};

bool has(const std::vector<Finding>& fs, const std::string& text, bool error = true) {
  for (const auto& f : fs)
    if (f.error == error && (f.message.find(text) != std::string::npos || f.where.find(text) != std::string::npos)) return true;
  return false;
}

std::size_t errors(const std::vector<Finding>& fs) {
  std::size_t n = 0;
  for (const auto& f : fs) n += f.error ? 1 : 0;
  return n;
}

const char* kGpu = R"(id = "test-gpu"
name = "Test GPU"
kind = "accelerator"
vendor = "test"
memory_capacity = "80 GB"
memory_bandwidth = "3 TB/s"
tdp = "700 W"

[peak]
bf16_dense = "1 PFLOP/s"
bf16_sparse = "2 PFLOP/s"

[meta]
as_of = 2024-01-01
sources = ["test"]
)";

}  // namespace

TEST_CASE("the built-in catalog passes data check with no errors and no warnings", "[catalog][check]") {
  Catalog::instance().reset();
  const auto findings = check_catalog(Catalog::instance(), Date{2026, 11, 29});
  // Allowed: measurements on hardware the catalog has no file for yet (they cannot be predicted).
  std::size_t others = 0;
  for (const auto& f : findings)
    if (!is_unpredictable_measurement(f)) {
      ++others;
      WARN(f.where << ": " << f.message);
    }
  CHECK(others == 0);
}

TEST_CASE("a clean overlay file passes", "[catalog][check]") {
  Overlay o;
  o.add("accelerators/test-gpu.toml", kGpu);
  CHECK(errors(o.check()) == 0);
}

TEST_CASE("data check catches unit slips, ranges, dates, refs, dense > sparse and typos", "[catalog][check]") {
  Overlay o;
  std::string bad = kGpu;
  auto replace = [&](const std::string& from, const std::string& to) { bad.replace(bad.find(from), from.size(), to); };
  replace("\"80 GB\"", "\"80 GB/s\"");                           // wrong dimension
  replace("\"700 W\"", "\"700 kW\"");                             // implausible
  replace("bf16_sparse = \"2 PFLOP/s\"", "bf16_sparse = \"0.5 PFLOP/s\"");  // dense > sparse
  replace("as_of = 2024-01-01", "as_of = 2027-01-01");            // future
  replace("tdp =", "scaleup_interconnect = \"nvlink-99\"\nmemory_bandwith = \"1 TB/s\"\ntdp =");
  o.add("accelerators/test-gpu.toml", bad);
  const auto f = o.check();
  CHECK(has(f, "memory_capacity: expected an amount of data"));
  CHECK(has(f, "tdp: 700 kW is outside the plausible range"));
  CHECK(has(f, "peak.bf16_dense exceeds peak.bf16_sparse"));
  CHECK(has(f, "is in the future"));
  CHECK(has(f, "no catalog entry \"nvlink-99\""));
  CHECK(has(f, "memory_bandwith: field not described", false));
}

TEST_CASE("data check reports missing fields, bad ids, folder mismatches and duplicates", "[catalog][check]") {
  Overlay o;
  std::string gpu = kGpu;
  gpu.replace(gpu.find("memory_bandwidth = \"3 TB/s\"\n"), 28, "");
  o.add("accelerators/test-gpu.toml", gpu);
  std::string model = kGpu;
  model.replace(model.find("id = \"test-gpu\""), 15, "id = \"Test_Model\"");
  o.add("models/Test_Model.toml", model);
  o.add("models/test-gpu-2.toml", std::string(kGpu).replace(0, 15, "id = \"test-gpu-2\""));  // an accelerator in models/
  o.add("a/dup.toml", std::string(kGpu).replace(0, 15, "id = \"dup\""));
  o.add("b/dup.toml", std::string(kGpu).replace(0, 15, "id = \"dup\""));
  const auto f = o.check();
  CHECK(has(f, "missing required field 'memory_bandwidth'"));
  CHECK(has(f, "id \"Test_Model\" is not a valid id; hint: an id is 1 to 100 lower-case letters"));
  CHECK(has(f, "does not match its folder"));
  CHECK(has(f, "duplicate id \"dup\""));
}

TEST_CASE("data check rejects a model whose architecture disagrees with its published count", "[catalog][check]") {
  Overlay o;
  o.add("models/tiny.toml", R"(id = "tiny"
name = "Tiny"
kind = "model"
layers = 32
hidden_size = 4096
attention_heads = 32
kv_heads = 8
head_dim = 128
ffn_size = 14336
vocab_size = 32000
params_total = 9e9

[meta]
as_of = 2024-01-01
sources = ["test"]
)");
  CHECK(has(o.check(), "params_total: the architecture gives 7,241,732,096"));
}

TEST_CASE("data check wants a date on every entry of a dated series", "[catalog][check]") {
  Overlay o;
  o.add("prices/p.toml", R"(id = "p"
name = "P"
kind = "price"
item = "h100-sxm"

[[on_demand]]
value = "$2/h"
source = "test"

[meta]
as_of = 2024-01-01
sources = ["test"]
)");
  CHECK(has(o.check(), "each dated entry needs as_of"));
}

TEST_CASE("schema paths ignore array indices", "[catalog][schema]") {
  CHECK(schema_path("properties[3].density") == "properties.density");
  CHECK(schema_path("on_demand[12]") == "on_demand");
  REQUIRE(find_field_spec("facility", "properties[0].temperature") != nullptr);
  CHECK(find_field_spec("facility", "properties[0].temperature")->point);
  CHECK(find_field_spec("accelerator", "peak.fp8_dense") != nullptr);
  CHECK(find_field_spec("accelerator", "no_such_field") == nullptr);
}

TEST_CASE("docs/data.md describes every field of the schema", "[catalog][schema][docs]") {
  const fs::path doc = fs::path(__FILE__).parent_path().parent_path().parent_path() / "docs" / "data.md";
  std::ifstream in(doc);
  REQUIRE(in.good());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& spec : field_specs()) {
    INFO(spec.kind << "." << spec.path);
    CHECK(text.find("### Fields of kind `" + std::string(spec.kind) + "`") != std::string::npos);
    CHECK(text.find("| `" + std::string(spec.path) + "`") != std::string::npos);
  }
}
