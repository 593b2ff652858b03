// Plan keys that feed a calculator input are that input: they name it, and take its description from it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "plan/plan_file.hpp"
#include "plan/plan_model.hpp"
#include "plan/plan_schema.hpp"
#include "plugins/registry.hpp"
#include "tests/unit/plan_test_util.hpp"

using namespace infracalc;
using namespace infracalc::plan;

namespace {

// One example plan of each workload the planner builds a chain for.
const char* const kExamples[] = {"llama3-70b-h100.toml", "deepseek-v3-gb200-nvl72.toml", "llama3-405b-train-16k-h100.toml",
                                 "llama3.1-70b-qlora-h100.toml", "site-100mw.toml"};

// A calculator input one plan key feeds directly, in the example it was seen in.
struct Feed {
  const KeyDef* key = nullptr;
  const Input* input = nullptr;
  std::string path;  // "plugin calculator input"
  std::string example;
};

std::vector<Feed> direct_feeds() {
  std::vector<Feed> feeds;
  for (const char* ex : kExamples) {
    auto l = plan_test::load_example(ex);
    REQUIRE(l->program);
    for (const Step& s : l->program->steps) {
      if (s.c == nullptr) continue;
      for (const Binding& b : s.inputs) {
        if (b.line < 0) continue;
        const Line& line = l->program->lines[static_cast<std::size_t>(b.line)];
        if (line.kind != LineKind::input || line.def == nullptr) continue;
        for (const auto& in : s.c->inputs)
          if (in.name == b.input) feeds.push_back({line.def, &in, s.plugin + " " + s.calculator + " " + b.input, ex});
      }
    }
  }
  return feeds;
}

bool contains(const std::vector<std::string_view>& list, std::string_view v) { return std::find(list.begin(), list.end(), v) != list.end(); }

}  // namespace

TEST_CASE("plan keys that are calculator inputs take kind, dimension, choices and bound from the descriptor", "[plan][keys]") {
  int derived = 0;
  for (const KeyDef& k : plan_keys()) {
    if (k.input.empty()) continue;
    ++derived;
    INFO(k.path() << " is " << k.input);
    const Input* in = key_input(k);
    REQUIRE(in != nullptr);
    CHECK(k.dim == in->dim);
    CHECK(k.bound == in->bound);
    if (in->kind == InputKind::choice) {
      CHECK(k.kind == KeyKind::choice);
      for (auto c : in->choices) CHECK(contains(k.choices, c));
      CHECK(k.choices.size() == in->choices.size() + k.more_choices.size());
    }
    if (in->kind == InputKind::quantity) CHECK(k.kind == KeyKind::quantity);
    if (in->kind == InputKind::integer) CHECK(k.kind == KeyKind::integer);
    CHECK(!k.help.empty());
  }
  CHECK(derived >= 50);
}

TEST_CASE("a plan key's default is its input's, or the key says why not", "[plan][keys]") {
  for (const KeyDef& k : plan_keys()) {
    const Input* in = key_input(k);
    if (in == nullptr || in->default_value.empty()) continue;
    INFO(k.path() << " (default '" << k.default_value << "') is " << k.input << " (default '" << in->default_value << "')");
    if (k.default_value.empty()) {
      CHECK(!k.default_why.empty());  // the plan has no default: it asks for the value
      continue;
    }
    auto mine = parse_value(k, std::string(k.default_value), "plan default");
    auto theirs = parse_value(k, std::string(in->default_value), "input default");
    REQUIRE(mine);
    REQUIRE(theirs);
    if (cell_text(*mine) != cell_text(*theirs)) CHECK(!k.default_why.empty());
  }
}

TEST_CASE("every plan key that feeds a calculator input names the input it is, and agrees with every input it feeds", "[plan][keys]") {
  const auto feeds = direct_feeds();
  REQUIRE(feeds.size() > 50);
  std::map<const KeyDef*, std::set<std::string>> fed;
  for (const Feed& f : feeds) {
    INFO(f.key->path() << " feeds " << f.path << " in " << f.example);
    fed[f.key].insert(f.path);
    CHECK(!f.key->input.empty());
    CHECK(f.key->dim == f.input->dim);
    if (f.input->kind != InputKind::choice) continue;
    // A value the key accepts and the input does not must be refused when the plan is read, naming the key.
    for (auto c : f.key->choices) {
      if (contains(f.input->choices, c) || contains(f.key->more_choices, c)) continue;
      auto l = plan_test::load_example(f.example, {f.key->path() + "=" + std::string(c)});
      INFO("value " << c);
      REQUIRE(!l->problems.empty());
      CHECK(l->problems.text().find(f.key->path()) != std::string::npos);
    }
  }
  // The input a key names is one it feeds: a stale declaration shows here.
  for (const auto& [key, paths] : fed) {
    INFO(key->path() << " names " << key->input);
    CHECK(paths.count(std::string(key->input)) == 1);
  }
}

TEST_CASE("a plan key left at its input's default reaches the calculator as its default, a given one as given", "[plan][keys]") {
  auto origin_of = [](const plan_test::Loaded& l, const std::string& calculator, const std::string& input) {
    for (std::size_t s = 0; s < l.program->steps.size(); ++s) {
      if (l.program->steps[s].calculator != calculator || !l.sheet.runs[s] || !l.sheet.runs[s]->result) continue;
      for (const auto& in : l.sheet.runs[s]->result->inputs)
        if (in.key == input) return in.origin;
    }
    FAIL("no run of " << calculator << " with input " << input);
    return Origin::derived;
  };
  const auto left = plan_test::load_example("llama3.1-70b-qlora-h100.toml");
  CHECK(origin_of(*left, "finetune", "optimizer") == Origin::default_value);
  CHECK(left->q("min_devices") >= 1);
  const auto given = plan_test::load_example("llama3.1-70b-qlora-h100.toml", {"finetune.optimizer=adamw"});
  CHECK(origin_of(*given, "finetune", "optimizer") == Origin::flag);
  CHECK(given->q("memory_per_device") == left->q("memory_per_device"));
}
