// The JSON Schemas of `infracalc schema` (issue 20, item 1): each is JSON, each calculator's names every declared
// output in the unit its JSON carries, a real result follows it, and a result with a wrong unit, an undeclared
// result or a missing member does not. (The golden tests check every golden case's output against its schema.)
#include <catch2/catch.hpp>

#include "cli/commands.hpp"
#include "plan/machine_units.hpp"
#include "plan/output.hpp"
#include "host/context.hpp"
#include "documents/json.hpp"
#include "plugins/registry.hpp"
#include "tests/golden/json_schema.hpp"

using namespace infracalc;

namespace {

Node parsed(const std::string& text) {
  auto n = read_json(text, "schema");
  REQUIRE(n.ok());
  return std::move(n).value();
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("every calculator has a schema naming its outputs in their JSON units", "[schema]") {
  std::size_t outputs = 0;
  for (const auto& e : plugin_table()) {
    const Plugin& p = e.get();
    for (const auto& c : p.calculators) {
      INFO(std::string(p.name) + " " + std::string(c.name));
      const Node schema = parsed(cli::result_schema(&p, &c));
      CHECK(schema.find("$schema")->str == "https://json-schema.org/draft/2020-12/schema");
      const Node* results = schema.find("properties")->find("results");
      REQUIRE(results != nullptr);
      for (const auto& o : c.outputs) {
        const Node* r = results->find("properties")->find(o.name);
        REQUIRE(r != nullptr);
        CHECK(r->find("properties")->find("unit")->find("const")->str == writers::machine_quantity(o.name, Quantity{1, o.dim, o.point}).unit);
        ++outputs;
      }
    }
  }
  CHECK(outputs > 900);
  CHECK(parsed(cli::result_schema(nullptr, nullptr)).find("anyOf")->items.size() == 2);
}

TEST_CASE("a result follows its schema, and a broken one does not", "[schema]") {
  const Plugin* p = find_plugin("network");
  REQUIRE(p != nullptr);
  const Calculator* c = p->find("energy");
  const Node schema = parsed(cli::result_schema(p, c));
  const std::string json = writers::result_json(run_calculator(*p, *c, {{"power", "15W"}, {"rate", "800Gb/s"}}));
  CHECK(golden::schema_violation(parsed(json), schema).empty());
  // The general schema accepts it too, and a failed batch record.
  const Node general = parsed(cli::result_schema(nullptr, nullptr));
  CHECK(golden::schema_violation(parsed(json), general).empty());
  CHECK(golden::schema_violation(parsed(R"({"schema_version": 1, "record": 3, "error": "x", "hint": ""})"), general).empty());
  // energy_per_bit is in J/bit: the same value in J/B breaks the schema, as do an undeclared result and a lost member.
  CHECK_THAT(golden::schema_violation(parsed(replaced(json, "\"J/bit\"", "\"J/B\"")), schema), Catch::Contains("energy_per_bit.unit"));
  CHECK_THAT(golden::schema_violation(parsed(replaced(json, "\"results\": {", R"("results": {"watts": {"value": 1, "unit": "W"}, )")), schema),
             Catch::Contains("\"watts\" is not allowed"));
  CHECK_THAT(golden::schema_violation(parsed(replaced(json, "\"notes\": [", "\"remarks\": [")), schema), Catch::Contains("lacks required \"notes\""));
  CHECK_THAT(golden::schema_violation(parsed(replaced(json, "\"plugin\": \"network\"", "\"plugin\": \"kv\"")), schema), Catch::Contains("$.plugin"));
  CHECK_FALSE(golden::schema_violation(parsed(R"({"schema_version": 2, "record": 3, "error": "x", "hint": ""})"), general).empty());
}
