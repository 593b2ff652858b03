// Predictions of published measurements through the calculators: each entry of data/measured (or of a
// user's file) becomes the command a user would type (`serve capacity`, `decode ceiling`, `decode
// prefill`, `cluster layout`), run in-process; its expected (calibrated) and ceiling figures are set
// against the measured number. Nothing is looked up by id: a prediction follows from the model, the
// hardware and the configuration the entry states.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/measured.hpp"
#include "host/context.hpp"
#include "host/plugin.hpp"

namespace infracalc::validation {

/// The family an entry belongs to for error bands and --kind.
enum class Family : std::uint8_t { inference, training, power };

/// "inference", "training", "power".
[[nodiscard]] const char* family_name(Family f);
/// The family of a measurement kind ("inference-throughput" → inference).
[[nodiscard]] Family family_of(const std::string& kind);

/// One calculator run a prediction needs.
struct CalculatorRun {
  /// Plugin and calculator, e.g. "serve", "capacity".
  std::string plugin, calculator;
  /// The inputs, as a user would type them.
  RawInputs inputs;
  /// The output that answers the measurement (expected and ceiling keys).
  std::string expected_key, ceiling_key;
  /// Multiplies both outputs (e.g. the decode steps of a latency, or the peak for TFLOP/s).
  double scale = 1;
  /// Another output both are multiplied by (e.g. the recomputation factor for hardware FLOPs); empty for none.
  std::string factor_key = {};
};

/// How an entry is predicted, or why it cannot be.
struct Plan {
  /// The measured value in base units (tok/s, s, a fraction, FLOP/s).
  double measured = 0;
  /// What is compared, e.g. "output tok/s (system)".
  std::string metric;
  /// The display unit of the metric ("tok/s", "s", "%", "TFLOP/s").
  std::string unit;
  /// The runs whose (scaled) outputs add up to the prediction.
  std::vector<CalculatorRun> runs;
  /// An upper bound the prediction cannot exceed, from the configuration (an offered load of q requests/s
  /// yields at most q × output tokens/s); 0 for none.
  double cap = 0;
  /// Why the entry is not predicted (empty when it is).
  std::string skipped;
};

/// The prediction plan of one entry.
[[nodiscard]] Plan plan_for(const Measurement& m);

/// One predicted entry.
struct Prediction {
  /// The entry.
  const Measurement* entry = nullptr;
  /// Its family.
  Family family = Family::inference;
  /// What was compared and in what unit.
  std::string metric, unit;
  /// The measured value.
  double measured = 0;
  /// The calibrated prediction.
  double expected = 0;
  /// The ceiling (physics at 100% of the datasheet).
  double ceiling = 0;
  /// expected / measured − 1.
  double error = 0;
  /// The command line that gives the expected figure (first run).
  std::string command;
  /// Why it was skipped (empty when predicted).
  std::string skipped;
};

/// Runs a plan with the current efficiency parameters (decode::efficiency()). `with_ceiling`: also read
/// the ceiling output.
[[nodiscard]] Prediction run_plan(const Measurement& m, const Plan& p, bool with_ceiling = true);

/// Predicts every entry (skipped ones keep their reason).
[[nodiscard]] std::vector<Prediction> predict_all(const std::vector<Measurement>& entries);

/// Summary of errors over predicted entries.
struct Summary {
  /// Entries predicted.
  int points = 0;
  /// Median |error|.
  double median_abs_error = 0;
  /// 90th percentile of |error| (nearest rank).
  double p90_abs_error = 0;
  /// Mean signed error (bias).
  double mean_error = 0;
};

/// The summary of the predicted entries of one family (all families when nullopt).
[[nodiscard]] Summary summarize(const std::vector<Prediction>& rows, std::optional<Family> family);

/// "infracalc serve capacity --model ... --gpu ...".
[[nodiscard]] std::string command_text(const CalculatorRun& r);

}  // namespace infracalc::validation
