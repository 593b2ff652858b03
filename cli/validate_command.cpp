// `validate`: every published measurement predicted through the calculators, with its error; `calibrate
// --published`: the fit of the efficiency parameters that produces data/calibration/efficiency.toml.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "plan/output.hpp"
#include "documents/atomic_file.hpp"
#include "plugins/decode/efficiency.hpp"
#include "validation/fit.hpp"
#include "validation/predict.hpp"

namespace infracalc::cli {

namespace {

using validation::Family;
using validation::Prediction;

std::optional<Family> parse_family(const std::string& kind) {
  if (kind.empty()) return std::nullopt;
  for (Family f : {Family::inference, Family::training, Family::power})
    if (kind == validation::family_name(f)) return f;
  throw UserError{{"--kind: expected inference, training or power, got '" + kind + "'", "e.g. --kind inference"}};
}

std::vector<Measurement> load(const std::string& file, std::optional<Family> family) {
  std::vector<Measurement> all = file.empty() ? embedded_measurements() : read_measurement_file(file).value_or_throw();
  std::vector<Measurement> out;
  for (auto& m : all)
    if (!family || validation::family_of(m.kind) == *family) out.push_back(std::move(m));
  if (out.empty()) throw UserError{{"no measurements to validate" + std::string(file.empty() ? "" : " in " + file), "check --kind"}};
  return out;
}

Quantity shown(const Prediction& p, double v) {
  if (p.unit == "tok/s") return Quantity{v, dims::token_rate};
  if (p.unit == "s") return Quantity{v, dims::time};
  if (p.unit == "TFLOP/s") return Quantity{v, dims::flop_rate};
  return Quantity::number(v);
}

void add_summary(Result& r, const std::vector<Prediction>& rows, std::optional<Family> family) {
  const validation::Summary all = validation::summarize(rows, family);
  r.values.push_back({"median_abs_error", Quantity::number(all.median_abs_error), "%"});
  r.values.push_back({"p90_abs_error", Quantity::number(all.p90_abs_error), "%"});
  r.values.push_back({"mean_error", Quantity::number(all.mean_error), "%"});
  r.values.push_back({"predicted", Quantity::number(all.points), ""});
  Table t{"families", "error of the expected figures by family",
          {{"family", {}}, {"points", dims::none}, {"median_abs_error", dims::none, "%"}, {"p90_abs_error", dims::none, "%"},
           {"mean_error", dims::none, "%"}},
          {}};
  for (Family f : {Family::inference, Family::training}) {
    if (family && f != *family) continue;
    const validation::Summary s = validation::summarize(rows, f);
    if (s.points == 0) continue;
    t.rows.push_back({std::string(validation::family_name(f)), Quantity::number(s.points), Quantity::number(s.median_abs_error),
                      Quantity::number(s.p90_abs_error), Quantity::number(s.mean_error)});
  }
  r.tables.push_back(std::move(t));
}

Result validation_result(const std::vector<Prediction>& rows, std::optional<Family> family) {
  Result r;
  r.plugin = "validate";
  add_summary(r, rows, family);
  Table pred{"predictions", "predicted against measured",
             {{"id", {}}, {"metric", {}}, {"measured", {}}, {"expected", {}}, {"ceiling", {}}, {"error", dims::none, "%"}}, {}};
  Table skipped{"skipped", "not predicted", {{"id", {}}, {"reason", {}}}, {}};
  std::vector<const Prediction*> done;
  for (const auto& p : rows) {
    if (!p.skipped.empty()) {
      skipped.rows.push_back({p.entry->id, p.skipped});
      continue;
    }
    done.push_back(&p);
    pred.rows.push_back({p.entry->id, p.metric, shown(p, p.measured), shown(p, p.expected), shown(p, p.ceiling), Quantity::number(p.error)});
  }
  std::sort(done.begin(), done.end(), [](const Prediction* a, const Prediction* b) { return std::fabs(a->error) > std::fabs(b->error); });
  Table worst{"worst", "the five largest errors", {{"id", {}}, {"error", dims::none, "%"}, {"command", {}}}, {}};
  for (std::size_t i = 0; i < std::min<std::size_t>(5, done.size()); ++i)
    worst.rows.push_back({done[i]->entry->id, Quantity::number(done[i]->error), done[i]->command});
  r.tables.push_back(std::move(pred));
  r.tables.push_back(std::move(worst));
  r.tables.push_back(std::move(skipped));
  r.notes.push_back("error = expected / measured - 1; expected is the calibrated figure, ceiling the same calculation at 100% of the datasheet");
  r.notes.push_back("every prediction is the calculator run shown in `worst` (the inputs follow from the entry's model, hardware and "
                    "configuration, never from its id); method and forms: docs/validation.md");
  return r;
}

std::string today_text() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

}  // namespace

ExitStatus run_validate(const ValidateOptions& o, const GlobalOptions& g) {
  const auto family = parse_family(o.kind);
  const std::vector<Measurement> entries = load(o.file, family);
  const std::vector<Prediction> rows = validation::predict_all(entries);
  emit(writers::render_result(validation_result(rows, family), g.out));
  return ExitStatus::ok;
}

ExitStatus run_calibrate(const CalibrateOptions& o, const GlobalOptions& g) {
  if (!o.published) throw UserError{{"calibrate: say what to fit on", "infracalc calibrate --published (data/measured/)"}};
  const std::vector<Measurement>& entries = embedded_measurements();
  const validation::CorpusResiduals corpus(entries);
  const auto params = validation::fit_params();
  const decode::Efficiency& prior = decode::prior_efficiency();
  auto progress = [](const std::string& s) { fmt::print(stderr, "calibrate: {}\n", s); };
  progress(fmt::format("fitting {} parameters on {} predictable measurements", params.size(), corpus.entries().size()));
  validation::FitResult f =
      validation::fit(params, prior, prior, [&](const decode::Efficiency& e) { return corpus(e); }, o.iterations);
  f.params = validation::as_written(f.params);
  progress(fmt::format("cost {:.4g} -> {:.4g} in {} iterations", f.start_cost, f.cost, f.iterations));
  std::vector<Prediction> rows;
  {
    const decode::ScopedEfficiency scope(f.params);
    rows = validation::predict_all(entries);
  }
  std::vector<std::pair<std::string, validation::Summary>> bands;
  for (Family fam : {Family::inference, Family::training}) bands.emplace_back(validation::family_name(fam), validation::summarize(rows, fam));
  // Leave-one-out: refit without each point (warm start from the full fit), then predict it.
  std::vector<std::pair<std::string, double>> loo;
  Result res = validation_result(rows, std::nullopt);
  if (o.loo) {
    std::vector<std::pair<Family, double>> errs;
    Table lt{"leave_one_out", "each point predicted by a fit without it",
             {{"id", {}}, {"in_sample_error", dims::none, "%"}, {"left_out_error", dims::none, "%"}}, {}};
    for (std::size_t i = 0; i < corpus.entries().size(); ++i) {
      const auto li = static_cast<int>(i);
      const validation::FitResult fi = validation::fit(
          params, f.params, prior, [&](const decode::Efficiency& e) { return corpus(e, li); }, o.loo_iterations);
      const decode::ScopedEfficiency scope(fi.params);
      const Prediction p = validation::run_plan(*corpus.entries()[i], corpus.plans()[i], false);
      const decode::ScopedEfficiency full(f.params);
      const Prediction q = validation::run_plan(*corpus.entries()[i], corpus.plans()[i], false);
      errs.emplace_back(p.family, std::fabs(p.error));
      lt.rows.push_back({corpus.entries()[i]->id, Quantity::number(q.error), Quantity::number(p.error)});
      if ((i + 1) % 10 == 0)
        progress(fmt::format("leave-one-out {}/{} (last refit: cost {:.4g} -> {:.4g} in {} iterations)", i + 1, corpus.entries().size(),
                             fi.start_cost, fi.cost, fi.iterations));
    }
    for (Family fam : {Family::inference, Family::training}) {
      std::vector<double> e;
      for (const auto& [ff, v] : errs)
        if (ff == fam) e.push_back(v);
      if (e.empty()) continue;
      std::sort(e.begin(), e.end());
      const std::size_t n = e.size();
      const double median = n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
      loo.emplace_back(validation::family_name(fam), median);
      res.values.push_back({std::string("loo_median_abs_error_") + validation::family_name(fam), Quantity::number(median), "%"});
    }
    res.tables.push_back(std::move(lt));
  }
  std::string newest = "2000-01-01";
  for (const auto& m : entries) newest = std::max(newest, m.date);
  newest = std::min(newest, today_text());
  const std::string toml = validation::efficiency_toml(f.params, bands, loo, static_cast<int>(corpus.entries().size()), newest);
  if (!o.out.empty()) {
    write_file_atomically(o.out, toml, true, data_inputs());  // never over a measurement or data file this run read
    progress("parameters written to " + o.out + " (rebuild to ship them)");
  } else {
    res.notes.push_back("give --out data/calibration/efficiency.toml to write the fitted parameters");
  }
  res.plugin = "calibrate";
  emit(writers::render_result(res, g.out));
  return ExitStatus::ok;
}

}  // namespace infracalc::cli
