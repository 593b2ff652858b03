// The registry: every plugin built whole or with only the calculator a query names, the same descriptors either way.
#include <catch2/catch.hpp>

#include "plan/output.hpp"
#include "plugins/registry.hpp"

using namespace infracalc;

namespace {
// A calculator's answer to `raw`: its result's JSON, or its refusal.
std::string answer(const Plugin& p, const Calculator& c, const RawInputs& raw) {
  try {
    return writers::result_json(run_calculator(p, c, raw));
  } catch (const UserError& e) {
    return e.error.message;
  }
}
}  // namespace

TEST_CASE("a query builds only its calculator, the same descriptor as the whole plugin's", "[registry]") {
  for (const auto& entry : plugin_table()) {
    const Plugin& all = entry.get();
    REQUIRE(entry.with_only != nullptr);
    for (const auto& c : all.calculators) {
      INFO(entry.name << " " << c.name);
      const Plugin* one = find_plugin_for(entry.name, c.name);
      REQUIRE(one != nullptr);
      CHECK(one != &all);
      CHECK(one->name == all.name);
      CHECK(one->doc == all.doc);
      CHECK(one->kernels.empty());
      REQUIRE(one->calculators.size() == 1);
      const Calculator& built = one->calculators.front();
      CHECK(built.name == c.name);
      CHECK(built.summary == c.summary);
      REQUIRE(built.inputs.size() == c.inputs.size());
      for (std::size_t i = 0; i < c.inputs.size(); ++i) CHECK(built.inputs[i].name == c.inputs[i].name);
      REQUIRE(built.outputs.size() == c.outputs.size());
      for (std::size_t i = 0; i < c.outputs.size(); ++i) CHECK(built.outputs[i].name == c.outputs[i].name);
      CHECK(built.refs.size() == c.refs.size());
      CHECK(find_plugin_for(entry.name, c.name) == one);  // built once
    }
    // A name the plugin lacks gets the whole plugin: its did-you-mean needs every name.
    CHECK(find_plugin_for(entry.name, "no-such-calculator") == &all);
    CHECK(is_plugin(entry.name));
  }
  CHECK(find_plugin_for("no-such-plugin", "size") == nullptr);
  CHECK_FALSE(is_plugin("decod"));
}

TEST_CASE("a calculator built alone answers as the whole plugin's does", "[registry]") {
  const RawInputs decode_raw = {{"model", "llama-3-8b"}, {"gpu", "h100-sxm"}};
  for (const auto* name : {"decode", "kv", "fit"}) {
    const Plugin& all = *find_plugin(name);
    for (const auto& c : all.calculators) {
      INFO(name << " " << c.name);
      const Plugin& one = *find_plugin_for(name, c.name);
      const RawInputs raw = std::string_view(name) == "kv" ? RawInputs{{"model", "llama-3-8b"}} : decode_raw;
      CHECK(answer(all, c, raw) == answer(one, one.calculators.front(), raw));
    }
  }
}
