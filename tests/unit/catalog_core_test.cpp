// The catalog loader: lazy parsing, provenance, overlays and file:line:col errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "catalog/catalog.hpp"
#include "catalog/check.hpp"
#include "catalog/model_arch.hpp"

using namespace infracalc;
namespace fs = std::filesystem;

namespace {
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("infracalc-test-" + std::to_string(::getpid()) + "-" + std::to_string(rand()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string& name, const std::string& text) const {
    fs::create_directories((path / name).parent_path());
    std::ofstream(path / name) << text;
  }
};
}  // namespace

TEST_CASE("a lookup parses only the file it needs", "[catalog]") {
  auto& c = Catalog::instance();
  c.reset();
  REQUIRE(c.parsed_count() == 0);
  const Entry* e = c.find("h100-sxm");
  REQUIRE(e != nullptr);
  CHECK(c.parsed_count() == 1);
  CHECK(e->kind() == "accelerator");
  CHECK(e->as_of().str() == "2023-03-21");
  auto bw = e->quantity("memory_bandwidth", {dims::data_rate, false});
  REQUIRE(bw.ok());
  CHECK(bw->value == 3.35e12);
  auto peak = e->quantity("peak.bf16_dense", {dims::flop_rate, false});
  REQUIRE(peak.ok());
  CHECK(peak->value == Approx(989.4e12));
}

TEST_CASE("inline tables override provenance per field", "[catalog]") {
  auto& c = Catalog::instance();
  c.reset();
  const Entry* e = c.find("h100-sxm");
  REQUIRE(e != nullptr);
  auto f = e->field("scaleup_bandwidth");
  REQUIRE(f.has_value());
  CHECK_THAT(f->provenance.note, Catch::Contains("both directions"));
  CHECK(f->provenance.basis == "datasheet");
  CHECK_FALSE(f->provenance.source.empty());
}

TEST_CASE("unknown ids get a did-you-mean", "[catalog]") {
  auto& c = Catalog::instance();
  c.reset();
  try {
    (void)c.get("h100", {"accelerator"}, "--gpu");
    FAIL("expected an error");
  } catch (const UserError& e) {
    CHECK_THAT(e.error.message, Catch::Contains("--gpu"));
    CHECK_THAT(e.error.hint, Catch::Contains("h100-"));
  }
  CHECK_THROWS_AS(c.get("llama-3-70b", {"accelerator"}, "--gpu"), UserError);
}

TEST_CASE("an overlay with the same id wins and says so", "[catalog]") {
  TempDir dir;
  dir.write("accelerators/h100-sxm.toml", R"(id = "h100-sxm"
name = "Our H100 measurement"
kind = "accelerator"
vendor = "nvidia"
memory_capacity = "80 GB"
memory_bandwidth = "3.0 TB/s"

[meta]
as_of = 2025-01-01
sources = ["our lab"]
basis = "measured"
)");
  auto& c = Catalog::instance();
  c.reset();
  c.add_overlay_dir(dir.path.string());
  const Entry* e = c.find("h100-sxm");
  REQUIRE(e != nullptr);
  CHECK(e->overlay());
  CHECK(e->quantity("memory_bandwidth", {dims::data_rate, false})->value == 3.0e12);
  c.reset();
}

TEST_CASE("a wrong unit in a data file is a file:line:col error", "[catalog]") {
  TempDir dir;
  dir.write("accelerators/bad-gpu.toml", R"(id = "bad-gpu"
name = "Bad"
kind = "accelerator"
vendor = "x"
memory_capacity = "80 GB"
memory_bandwidth = "3.35 TB"

[meta]
as_of = 2025-01-01
sources = ["test"]
)");
  auto& c = Catalog::instance();
  c.reset();
  c.add_overlay_dir(dir.path.string());
  const Entry* e = c.find("bad-gpu");
  REQUIRE(e != nullptr);
  auto bw = e->quantity("memory_bandwidth", {dims::data_rate, false});
  REQUIRE_FALSE(bw.ok());
  CHECK_THAT(bw.error().message, Catch::Contains("bad-gpu.toml:6:20"));
  CHECK(bw.error().hint == "divide by a time");
  const auto findings = check_catalog(c, Date{2026, 11, 29});
  bool reported = false;
  for (const auto& f : findings) reported = reported || f.message.find("memory_bandwidth") != std::string::npos;
  CHECK(reported);
  c.reset();
}

TEST_CASE("TOML syntax errors carry the position", "[catalog]") {
  TempDir dir;
  dir.write("broken.toml", "id = \"broken\"\nname = \n");
  auto& c = Catalog::instance();
  c.reset();
  c.add_overlay_dir(dir.path.string());
  try {
    (void)c.find("broken");
    FAIL("expected a parse error");
  } catch (const UserError& e) {
    CHECK_THAT(e.error.message, Catch::Contains("broken.toml:2:"));
  }
  c.reset();
}

TEST_CASE("future dates and missing sources are reported", "[catalog]") {
  TempDir dir;
  dir.write("accelerators/future-gpu.toml", R"(id = "future-gpu"
name = "Future"
kind = "accelerator"
vendor = "x"
memory_capacity = "80 GB"
memory_bandwidth = { value = "3 TB/s", as_of = 2099-01-01 }

[meta]
as_of = 2030-01-01
sources = ["test"]
)");
  auto& c = Catalog::instance();
  c.reset();
  c.add_overlay_dir(dir.path.string());
  const auto findings = check_catalog(c, Date{2026, 11, 29});
  int future = 0;
  for (const auto& f : findings) future += f.message.find("in the future") != std::string::npos ? 1 : 0;
  CHECK(future == 2);
  c.reset();
}

TEST_CASE("the built-in data passes data check", "[catalog]") {
  auto& c = Catalog::instance();
  c.reset();
  const auto findings = check_catalog(c, Date::today());
  // Allowed: measurements on hardware the catalog has no file for yet (they cannot be predicted).
  std::size_t others = 0;
  for (const auto& f : findings)
    if (!is_unpredictable_measurement(f)) {
      ++others;
      INFO(f.where + ": " + f.message);
    }
  CHECK(others == 0);
}

TEST_CASE("dated series in an overlay file honour --as-of", "[catalog]") {
  TempDir dir;
  dir.write("prices/test-rent.toml", R"(id = "test-rent"
name = "Test rent"
kind = "price"

[[on_demand]]
as_of = 2023-06-01
value = "$4.00/h"
source = "old list"

[[on_demand]]
as_of = 2025-06-01
value = "$2.20/h"
source = "new list"

[meta]
as_of = 2025-06-01
sources = ["test"]
)");
  auto& c = Catalog::instance();
  c.reset();
  c.add_overlay_dir(dir.path.string());
  const Entry* e = c.find("test-rent");
  REQUIRE(e != nullptr);
  auto newest = e->dated("on_demand", {});
  REQUIRE(newest.has_value());
  CHECK(newest->value->str == "$2.20/h");
  CHECK(newest->provenance.source == "new list");
  auto old = e->dated("on_demand", Date{2024, 1, 1});
  REQUIRE(old.has_value());
  CHECK(old->value->str == "$4.00/h");
  CHECK_FALSE(e->dated("on_demand", Date{2020, 1, 1}).has_value());
  c.reset();
}

TEST_CASE("Llama 3 70B parameters from its architecture", "[catalog][params]") {
  auto& c = Catalog::instance();
  c.reset();
  const Entry* e = c.find("llama-3-70b");
  REQUIRE(e != nullptr);
  auto arch = read_model_arch(*e);
  REQUIRE(arch.ok());
  CHECK(arch->layout == AttentionLayout::gqa);
  const ParamCount p = count_params(*arch);
  CHECK(p.total == Approx(70.55e9).epsilon(0.002));
  CHECK(p.total == Approx(arch->params_total_published).epsilon(0.01));
}

TEST_CASE("an unknown id's hint names the command that lists that kind", "[catalog]") {
  auto& c = Catalog::instance();
  c.reset();
  const auto hint = [&](std::string_view id, const std::vector<std::string_view>& kinds) {
    try {
      (void)c.get(id, kinds, "--x");
    } catch (const UserError& e) {
      return e.error.hint;
    }
    return std::string("no error");
  };
  CHECK_THAT(hint("mars-north", {"grid"}), Catch::Contains("infracalc data list --kind grid"));
  CHECK_THAT(hint("zzzzzzzz", {"reliability"}), Catch::Contains("infracalc data list --kind reliability"));
  CHECK_THAT(hint("zzzzzzzz", {"price"}), Catch::Contains("infracalc data list --kind price"));
  CHECK_THAT(hint("zzzzzzzz", {"model"}), Catch::Contains("infracalc model list"));
  CHECK_THAT(hint("zzzzzzzz", {"network"}), Catch::Contains("infracalc hw list --kind network"));
  CHECK_THAT(hint("zzzzzzzz", {"accelerator", "system"}), Catch::Contains("infracalc hw list"));
}

TEST_CASE("catalog fixes from the output review", "[catalog]") {
  auto& c = Catalog::instance();
  c.reset();
  // The GB200 TDP comes from a 2025 blog post and is dated so.
  const auto tdp = c.get("gb200", {"accelerator"}, "--gpu").field("tdp");
  REQUIRE(tdp);
  CHECK(tdp->provenance.as_of == "2025-08-22");
  // The H200 is the H100's GH100 configuration: the same 50 MB L2.
  const auto h200 = c.get("h200-sxm", {"accelerator"}, "--gpu").quantity("sram", {dims::information, false});
  const auto h100 = c.get("h100-sxm", {"accelerator"}, "--gpu").quantity("sram", {dims::information, false});
  REQUIRE(h200.ok());
  REQUIRE(h100.ok());
  CHECK(h200->value == h100->value);
  // The planner's default switch has a power figure.
  CHECK(c.get("quantum-2-qm9700", {"network"}, "--switch").quantity("system_power", {dims::power, false}).ok());
}
