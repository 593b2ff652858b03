#include "plan_test_util.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

namespace plan_test {

using namespace infracalc;

double Loaded::q(const std::string& key) const {
  const int i = program->find(key);
  INFO("line " << key);
  REQUIRE(i >= 0);
  const auto& v = sheet.values[static_cast<std::size_t>(i)];
  INFO("why: " << sheet.why[static_cast<std::size_t>(i)]);
  REQUIRE(v.has_value());
  REQUIRE(std::holds_alternative<Quantity>(*v));
  return std::get<Quantity>(*v).value;
}

bool Loaded::has(const std::string& key) const {
  const int i = program->find(key);
  return i >= 0 && sheet.values[static_cast<std::size_t>(i)].has_value();
}

std::string Loaded::text(const std::string& key) const {
  const int i = program->find(key);
  REQUIRE(i >= 0);
  const auto& v = sheet.values[static_cast<std::size_t>(i)];
  REQUIRE(v.has_value());
  return plan::cell_text(*v);
}

namespace {
std::unique_ptr<Loaded> finish(std::unique_ptr<Loaded> l, const std::vector<std::string>& sets) {
  plan::apply_sets(l->spec, sets, l->problems);
  plan::validate(l->spec, l->problems);
  l->program = std::make_unique<plan::Program>(plan::build_program(l->spec, l->problems));
  l->ev = std::make_unique<plan::Evaluator>(*l->program, RunOptions{});
  l->in = l->ev->inputs(l->spec, l->problems);
  if (l->problems.empty()) l->sheet = l->ev->evaluate(l->in);
  return l;
}
}  // namespace

std::unique_ptr<Loaded> load_text(const std::string& toml, const std::vector<std::string>& sets) {
  auto l = std::make_unique<Loaded>();
  l->spec = plan::parse_plan_text(toml, "test.toml", l->problems);
  return finish(std::move(l), sets);
}

std::unique_ptr<Loaded> load_example(const std::string& name, const std::vector<std::string>& sets) {
  auto l = std::make_unique<Loaded>();
  l->spec = plan::load_plan_file((root() / "examples" / name).string(), l->problems);
  return finish(std::move(l), sets);
}

}  // namespace plan_test
