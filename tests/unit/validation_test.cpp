// `infracalc validate` and `calibrate`: the shipped corpus predicted through the calculators within the
// bounds of issue 18, predictions that follow from the configuration (never from the id or the measured
// value), skipped entries with a reason, and a fit that recovers parameters it generated data with.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>

#include "catalog/measured.hpp"
#include "documents/toml_reader.hpp"
#include "plugins/decode/efficiency.hpp"
#include "validation/fit.hpp"
#include "validation/predict.hpp"

using namespace infracalc;
using validation::Family;

namespace {

const std::vector<validation::Prediction>& shipped_predictions() {
  static const std::vector<validation::Prediction> rows = validation::predict_all(embedded_measurements());
  return rows;
}

}  // namespace

TEST_CASE("validate: every shipped measurement is predicted or skipped with a reason", "[validation]") {
  const auto& entries = embedded_measurements();
  const auto& rows = shipped_predictions();
  REQUIRE(rows.size() == entries.size());
  int predicted = 0;
  for (const auto& r : rows) {
    if (r.skipped.empty()) {
      ++predicted;
      CHECK(r.command.rfind("infracalc ", 0) == 0);
      CHECK(r.measured > 0);
      CHECK(std::isfinite(r.expected));
      CHECK(r.expected > 0);
    } else {
      CHECK(r.skipped.size() > 10);
    }
  }
  CHECK(predicted >= 70);
}

TEST_CASE("validate: inference predictions within issue 18's bounds", "[validation]") {
  const validation::Summary s = validation::summarize(shipped_predictions(), Family::inference);
  CHECK(s.points >= 60);
  CHECK(s.median_abs_error <= 0.10);
  CHECK(s.p90_abs_error <= 0.25);
  // Leave-one-out (recorded by `infracalc calibrate --published`): within 1.5x the in-sample median.
  const decode::ErrorBand band = decode::error_band("inference");
  CHECK(band.loo_median > 0);
  CHECK(band.loo_median <= 1.5 * s.median_abs_error);
}

TEST_CASE("validate: training predictions within issue 18's bounds", "[validation]") {
  const validation::Summary s = validation::summarize(shipped_predictions(), Family::training);
  CHECK(s.points >= 8);
  CHECK(s.median_abs_error <= 0.10);
  CHECK(s.p90_abs_error <= 0.20);
  const decode::ErrorBand band = decode::error_band("training");
  CHECK(band.loo_median > 0);
  CHECK(band.loo_median <= 1.5 * s.median_abs_error);
}

TEST_CASE("validate: the shipped error bands are those of the shipped parameters", "[validation]") {
  for (Family f : {Family::inference, Family::training}) {
    const validation::Summary s = validation::summarize(shipped_predictions(), f);
    const decode::ErrorBand band = decode::error_band(validation::family_name(f));
    CHECK(band.points == s.points);
    CHECK(band.median == Approx(s.median_abs_error).margin(1e-5));
    CHECK(band.p90 == Approx(s.p90_abs_error).margin(1e-5));
  }
}

TEST_CASE("validate: a prediction follows from the configuration, not from the id or the measured value", "[validation]") {
  const auto& entries = embedded_measurements();
  const Measurement* m = nullptr;
  for (const auto& e : entries)
    if (e.id == "trtllm017-llama31-70b-h100-tp2-2048-128") m = &e;
  REQUIRE(m != nullptr);
  Measurement renamed = *m;
  renamed.id = "something-else";
  renamed.result = Node{};
  renamed.result.kind = Node::Kind::table;
  renamed.result.members.push_back({"tokens_per_second", Node{}});
  renamed.result.members.back().second.kind = Node::Kind::string;
  renamed.result.members.back().second.str = "1 tok/s";
  const validation::Prediction a = validation::run_plan(*m, validation::plan_for(*m));
  const validation::Prediction b = validation::run_plan(renamed, validation::plan_for(renamed));
  REQUIRE(a.skipped.empty());
  REQUIRE(b.skipped.empty());
  CHECK(a.expected == b.expected);
  // A different configuration gives a different prediction.
  Measurement longer = *m;
  for (auto& [k, v] : longer.config.members)
    if (k == "output_len") v.integer = 2048, v.number = 2048;
  const validation::Prediction c = validation::run_plan(longer, validation::plan_for(longer));
  REQUIRE(c.skipped.empty());
  CHECK(c.expected > 2 * a.expected);
}

TEST_CASE("validate: an entry the model cannot predict says why", "[validation]") {
  auto root = read_toml(R"toml([[measurement]]
id = "x"
kind = "inference-throughput"
source = "s"
locator = "l"
date = 2025-01-01
hardware = "a GPU nobody has"
accelerator = "no-such-gpu"
count = 1
model = "Llama-3.1 8B"
precision = "FP8"
software = "vLLM"
quote = "q"
notes = "n"
[measurement.config]
input_len = 128
output_len = 128
[measurement.result]
tokens_per_second = "100 tok/s"
)toml",
                        "x.toml");
  REQUIRE(root.ok());
  const auto entries = read_measurements(root.value(), "x.toml");
  REQUIRE(entries.ok());
  const auto rows = validation::predict_all(entries.value());
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].skipped.find("no-such-gpu") != std::string::npos);
}

TEST_CASE("calibrate: the fit recovers the predictions of parameters it generated data with", "[validation]") {
  // Every third entry keeps the test quick under the sanitizers while spanning every family and engine.
  std::vector<Measurement> subset;
  for (std::size_t i = 0; i < embedded_measurements().size(); i += 3) subset.push_back(embedded_measurements()[i]);
  const validation::CorpusResiduals corpus(subset);
  REQUIRE(corpus.entries().size() >= 20);
  // Targets: the corpus predicted with known parameters, different from the priors.
  decode::Efficiency truth = decode::prior_efficiency();
  truth.bandwidth_fraction = 0.7;
  truth.matmul_fraction_8 = 0.5;
  std::vector<double> target;
  {
    const decode::ScopedEfficiency scope(truth);
    for (std::size_t i = 0; i < corpus.entries().size(); ++i)
      target.push_back(validation::run_plan(*corpus.entries()[i], corpus.plans()[i], false).expected);
  }
  const validation::Residuals residuals = [&](const decode::Efficiency& e) {
    const decode::ScopedEfficiency scope(e);
    std::vector<double> r;
    for (std::size_t i = 0; i < corpus.entries().size(); ++i)
      r.push_back(std::log(validation::run_plan(*corpus.entries()[i], corpus.plans()[i], false).expected / target[i]));
    return r;
  };
  const auto params = validation::fit_params();
  const validation::FitResult f = validation::fit(params, decode::prior_efficiency(), decode::prior_efficiency(), residuals, 20);
  CHECK(f.cost < f.start_cost);
  std::vector<double> after;
  for (double r : residuals(f.params)) after.push_back(std::fabs(r));
  std::sort(after.begin(), after.end());
  WARN("median " << after[after.size() / 2] << " worst " << after.back());
  CHECK(after[after.size() / 2] < 0.02);
  // Only the product of the bandwidth share and each engine's scale is seen by the data; the product for
  // TensorRT-LLM, which most points use, is recovered.
  const double product = f.params.bandwidth_fraction * f.params.engine(decode::Engine::trtllm).bandwidth_scale;
  const double want = truth.bandwidth_fraction * truth.engine(decode::Engine::trtllm).bandwidth_scale;
  CHECK(product == Approx(want).epsilon(0.05));
}
