// The fit of the efficiency parameters (plugins/decode/efficiency.hpp) to published measurements:
// Levenberg-Marquardt (Levenberg 1944, Marquardt 1963) on the log ratio of expected to measured, every
// prediction made through the calculators, with weak priors that hold parameters the corpus does not
// constrain at their literature values; then a leave-one-out refit for every point.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "plugins/decode/efficiency.hpp"
#include "validation/predict.hpp"

namespace infracalc::validation {

/// One fitted parameter: how it is read from and written to the parameters, and its prior.
struct FitParam {
  /// Key in data/calibration/efficiency.toml ("bandwidth_fraction", "engines.vllm.step_overhead").
  std::string key;
  /// Reads the value (a share, or a quantity in base units).
  std::function<double(const decode::Efficiency&)> get;
  /// Writes it.
  std::function<void(decode::Efficiency&, double)> set;
  /// True for shares in (0, 1) (fitted as logits); otherwise positive values fitted as logarithms.
  bool share = false;
  /// Display unit for the file ("" for plain numbers, "MB", "us", "ms").
  std::string unit;
  /// Prior width in the fitted (logit or log) space.
  double prior_width = 1.0;
};

/// Every fitted parameter.
[[nodiscard]] std::vector<FitParam> fit_params();

/// A residual function: log(expected / measured) for each point under the parameters `e`.
using Residuals = std::function<std::vector<double>(const decode::Efficiency& e)>;

/// Result of a fit.
struct FitResult {
  /// The fitted parameters.
  decode::Efficiency params;
  /// Sum of squared residuals (data and priors) at the start and at the end.
  double start_cost = 0, cost = 0;
  /// Iterations run.
  int iterations = 0;
};

/// Fits `params` starting from `start` to the residuals; `prior` is the point the priors pull towards.
/// `max_iterations` bounds the Levenberg-Marquardt loop.
[[nodiscard]] FitResult fit(const std::vector<FitParam>& params, const decode::Efficiency& start, const decode::Efficiency& prior,
                            const Residuals& residuals, int max_iterations);

/// The residuals of the predicted entries (their plans made once), each run under the parameters given.
class CorpusResiduals {
 public:
  /// Plans every entry; entries that cannot be predicted are left out.
  explicit CorpusResiduals(const std::vector<Measurement>& entries);
  /// log(expected / measured) of every planned entry, except `leave_out` (an index into entries(), or -1).
  [[nodiscard]] std::vector<double> operator()(const decode::Efficiency& e, int leave_out = -1) const;
  /// The planned entries.
  [[nodiscard]] const std::vector<const Measurement*>& entries() const { return entries_; }
  /// Their plans.
  [[nodiscard]] const std::vector<Plan>& plans() const { return plans_; }

 private:
  std::vector<const Measurement*> entries_;
  std::vector<Plan> plans_;
};

/// The parameters as efficiency_toml writes them (six significant digits), so that error bands computed
/// from them are those of the shipped file.
[[nodiscard]] decode::Efficiency as_written(decode::Efficiency e);

/// data/calibration/efficiency.toml for fitted parameters, with the error bands found.
[[nodiscard]] std::string efficiency_toml(const decode::Efficiency& e, const std::vector<std::pair<std::string, Summary>>& bands,
                                          const std::vector<std::pair<std::string, double>>& loo_medians, int entries,
                                          const std::string& as_of);

}  // namespace infracalc::validation
