// The plugin host: input resolution, origins, overrides, declared outputs and errors.
#include <catch2/catch.hpp>
#include <filesystem>

#include "catalog/catalog.hpp"
#include "host/context.hpp"
#include "host/input_aliases.hpp"
#include "plan/output.hpp"
#include "plugins/registry.hpp"

using namespace infracalc;

namespace {
Result kv_size(const RawInputs& raw) {
  const Plugin* p = find_plugin("kv");
  REQUIRE(p != nullptr);
  return run_calculator(*p, *p->find("size"), raw);
}
const ResolvedInput& input(const Result& r, const std::string& key) {
  for (const auto& i : r.inputs)
    if (i.key == key) return i;
  FAIL("no input " << key);
  return r.inputs.front();
}
}  // namespace

TEST_CASE("a model fills inputs from the catalog and says so", "[host]") {
  Catalog::instance().reset();
  const Result r = kv_size({{"model", "llama-3-70b"}, {"tokens", "8000"}});
  CHECK(r.find("kv_bytes_per_token")->q.value == 327680);
  CHECK(r.find("kv_total")->q.value == 2621440000.0);
  CHECK(input(r, "layers").origin == Origin::catalog);
  CHECK(input(r, "layers").from == "llama-3-70b");
  CHECK(input(r, "tokens").origin == Origin::flag);
  CHECK(input(r, "dtype").origin == Origin::default_value);
  CHECK(r.provenance.size() == 4);
  for (const auto& p : r.provenance) CHECK(p.as_of == "2024-04-18");
}

TEST_CASE("results naming one model share their citations until one cites more", "[host]") {
  Catalog::instance().reset();
  const Result a = kv_size({{"model", "llama-3-70b"}, {"tokens", "8000"}});
  const Result b = kv_size({{"model", "llama-3-70b"}, {"tokens", "16"}});
  CHECK(a.provenance.same_list(b.provenance));
  Citations more = b.provenance;
  Provenance extra;
  extra.id = "test-extra";
  extra.field = "something";
  more.push_back(extra);
  CHECK_FALSE(more.same_list(b.provenance));
  CHECK(more.size() == 5);
  CHECK(b.provenance.size() == 4);
  CHECK(a.provenance.size() == 4);
  for (const auto& p : a.provenance) CHECK(p.id == "llama-3-70b");
  const Result c = kv_size({{"model", "llama-3-8b"}, {"tokens", "8000"}});
  CHECK_FALSE(c.provenance.same_list(a.provenance));
  // The writer keeps the JSON of the list it wrote last: records alternating between models cite their own.
  for (int i = 0; i < 3; ++i)
    for (const Result* r : {&a, &c, &b}) {
      std::string out;
      writers::append_result_json(out, *r);
      const std::string cited = out.substr(out.find("\"provenance\""));
      const bool big = r != &c;
      CHECK((cited.find("\"llama-3-70b\"") != std::string::npos) == big);
      CHECK((cited.find("\"llama-3-8b\"") != std::string::npos) == !big);
    }
}

TEST_CASE("an explicit flag overrides the catalog", "[host]") {
  Catalog::instance().reset();
  const Result r = kv_size({{"model", "llama-3-70b"}, {"tokens", "1"}, {"layers", "40"}});
  CHECK(r.find("kv_bytes_per_token")->q.value == 163840);
  CHECK(input(r, "layers").origin == Origin::flag);
}

TEST_CASE("kebab-case keys are accepted", "[host]") {
  const Result r = kv_size({{"layers", "80"}, {"kv-heads", "8"}, {"head-dim", "128"}, {"tokens", "8000"}});
  CHECK(r.find("kv_total")->q.value == 2621440000.0);
}

namespace {
std::string kv_size_error(const RawInputs& raw) {
  try {
    (void)kv_size(raw);
  } catch (const UserError& e) {
    return e.error.text();
  }
  return "no error";
}
}  // namespace

TEST_CASE("bad inputs name the input and the fix", "[host]") {
  const RawInputs base = {{"layers", "80"}, {"kv_heads", "8"}, {"head_dim", "128"}};
  auto with = [&](std::pair<std::string, std::string> extra) {
    RawInputs r = base;
    r.push_back(std::move(extra));
    return r;
  };
  CHECK_THAT(kv_size_error(with({"tokens", "0"})), Catch::Contains("--tokens: expected a value greater than zero"));
  CHECK_THAT(kv_size_error(with({"tokens", "-5"})), Catch::Contains("greater than zero"));
  CHECK_THAT(kv_size_error(with({"tokens", "5 GB"})), Catch::Contains("a token count"));
  CHECK_THAT(kv_size_error(base), Catch::Contains("missing --tokens"));
  RawInputs frac = base;
  frac.push_back({"tokens", "100"});
  frac.push_back({"batch", "1.5"});
  CHECK_THAT(kv_size_error(frac), Catch::Contains("whole number"));
  RawInputs unknown = base;
  unknown.push_back({"tokens", "100"});
  unknown.push_back({"tokns", "5"});
  CHECK_THAT(kv_size_error(unknown), Catch::Contains("did you mean '--tokens'"));
  RawInputs dtype = base;
  dtype.push_back({"tokens", "100"});
  dtype.push_back({"dtype", "fp61"});
  CHECK_THAT(kv_size_error(dtype), Catch::Contains("expected one of"));
  CHECK_THAT(kv_size_error({{"model", "llama-3-7b"}, {"tokens", "1"}}), Catch::Contains("'llama-3-70b'"));
  CHECK_THAT(kv_size_error({{"model", "h100-sxm"}, {"tokens", "1"}}), Catch::Contains("not a model"));
}

TEST_CASE("contradictory attention inputs are rejected", "[host]") {
  CHECK_THAT(kv_size_error({{"layers", "80"}, {"heads", "64"}, {"kv_heads", "8"}, {"head_dim", "128"}, {"tokens", "1"},
                       {"attention", "mqa"}}),
             Catch::Contains("contradicts"));
  CHECK_THAT(kv_size_error({{"layers", "80"}, {"heads", "8"}, {"kv_heads", "64"}, {"head_dim", "128"}, {"tokens", "1"}}),
             Catch::Contains("larger than --heads"));
}

TEST_CASE("every plugin descriptor is well formed", "[host]") {
  for (const auto& e : plugin_table()) {
    const Plugin& p = e.get();
    INFO(p.name);
    CHECK(p.name == e.name);
    CHECK_FALSE(e.summary.empty());
    CHECK(plugin_summary(p.name) == e.summary);
    CHECK_FALSE(p.calculators.empty());
    CHECK_FALSE(p.doc.empty());
    for (const auto& c : p.calculators) {
      INFO(c.name);
      // --help names the file that declares the calculator, in the plugin's own folder.
      CHECK(c.source_file().rfind("plugins/" + std::string(p.name) + "/", 0) == 0);
      CHECK(std::filesystem::exists(std::string(c.source)));
      CHECK(static_cast<bool>(c.run));
      CHECK_FALSE(c.outputs.empty());
      for (const auto& in : c.inputs) {
        INFO(in.name);
        CHECK_FALSE(in.help.empty());
        CHECK(in.name.find('-') == std::string_view::npos);
        if (in.kind == InputKind::choice) CHECK_FALSE(in.choices.empty());
      }
      for (const auto& o : c.outputs) CHECK_FALSE(o.help.empty());
    }
  }
}

TEST_CASE("shared input aliases resolve to the declared input, only where the dimension fits", "[host]") {
  Catalog::instance().reset();
  const Plugin* cluster = find_plugin("cluster");
  REQUIRE(cluster != nullptr);
  const Calculator& coll = *cluster->find("collective");
  const Result r = run_calculator(*cluster, coll, {{"op", "all-reduce"}, {"size", "1GB"}, {"ranks", "8"}, {"bandwidth", "400Gb/s"}});
  CHECK(std::get<std::string>(input(r, "op").value) == "allreduce");
  CHECK(std::get<Quantity>(input(r, "bytes").value).value == 1e9);
  // formats error's --size counts values: --bytes is not another name for it.
  const Plugin* formats = find_plugin("formats");
  REQUIRE(formats != nullptr);
  const Calculator& err = *formats->find("error");
  for (const auto& in : err.inputs)
    if (in.name == "size") CHECK(input_aliases(err, in).empty());
  CHECK_THROWS_AS(run_calculator(*formats, err, {{"bytes", "4096"}}), UserError);
  // network energy's --rate is a data rate, not an arrival rate.
  const Plugin* network = find_plugin("network");
  REQUIRE(network != nullptr);
  const Calculator& energy = *network->find("energy");
  for (const auto& in : energy.inputs)
    if (in.name == "rate") CHECK(input_aliases(energy, in).empty());
  CHECK(choice_alias("reduce-scatter") == "reducescatter");
  CHECK(choice_alias("ring") == "ring");
}
