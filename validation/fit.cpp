#include "validation/fit.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "units/bridge.hpp"

namespace infracalc::validation {

namespace {

using decode::Efficiency;
using decode::Engine;

double to_space(const FitParam& p, double v) {
  if (p.share) {
    const double c = std::clamp(v, 1e-6, 1 - 1e-6);
    return std::log(c / (1 - c));
  }
  return std::log(std::max(v, 1e-12));
}

double from_space(const FitParam& p, double x) { return p.share ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x); }

std::vector<double> to_vector(const std::vector<FitParam>& ps, const Efficiency& e) {
  std::vector<double> x;
  for (const auto& p : ps) x.push_back(to_space(p, p.get(e)));
  return x;
}

Efficiency from_vector(const std::vector<FitParam>& ps, Efficiency e, const std::vector<double>& x) {
  for (std::size_t i = 0; i < ps.size(); ++i) ps[i].set(e, from_space(ps[i], x[i]));
  return e;
}

// The spread of a published throughput or MFU figure around what the same configuration gives on another
// run, submitter or software version: about 10% (MLPerf's repeated runs and the TensorRT-LLM table's neighbouring
// releases differ by that much).
constexpr double kDataSpread = 0.10;

// Solves A x = b in place by Gaussian elimination with partial pivoting; false when singular.
bool solve(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>& x) {
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t piv = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    if (std::fabs(a[piv][c]) < 1e-300) return false;
    std::swap(a[c], a[piv]);
    std::swap(b[c], b[piv]);
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (std::size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  x.assign(n, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t k = i + 1; k < n; ++k) s -= a[i][k] * x[k];
    x[i] = s / a[i][i];
  }
  return true;
}

// Data residuals followed by the prior residuals.
std::vector<double> all_residuals(const std::vector<FitParam>& ps, const std::vector<double>& x, const std::vector<double>& x0,
                                  const Efficiency& base, const Residuals& residuals) {
  // Maximum a posteriori: data residuals in units of the spread of published benchmarks (kDataSpread), priors in
  // units of their widths.
  std::vector<double> r = residuals(from_vector(ps, base, x));
  for (double& v : r) v /= kDataSpread;
  for (std::size_t i = 0; i < ps.size(); ++i) r.push_back((x[i] - x0[i]) / ps[i].prior_width);
  return r;
}

double cost_of(const std::vector<double>& r) {
  double c = 0;
  for (double v : r) c += v * v;
  return c;
}

FitParam share(std::string key, double Efficiency::*field, double width = 1.0) {
  return {std::move(key), [field](const Efficiency& e) { return e.*field; }, [field](Efficiency& e, double v) { e.*field = v; }, true,
          "", width};
}

template <class Q>
FitParam quantity(std::string key, Q Efficiency::*field, std::string unit, double width = 2.0) {
  return {std::move(key), [field](const Efficiency& e) { return (e.*field).value(); },
          [field](Efficiency& e, double v) { e.*field = Q::from_value(v); }, false, std::move(unit), width};
}

FitParam positive(std::string key, double Efficiency::*field, double width = 2.0) {
  return {std::move(key), [field](const Efficiency& e) { return e.*field; }, [field](Efficiency& e, double v) { e.*field = v; }, false,
          "", width};
}

std::string value_text(const FitParam& p, double v) {
  if (p.unit.empty()) return fmt::format("{:.6g}", v);
  const double scale = p.unit == "MB" ? 1e6 : p.unit == "us" ? 1e-6 : p.unit == "ms" ? 1e-3 : 1.0;
  return fmt::format("\"{:.6g} {}\"", v / scale, p.unit);
}

double six_digits(double v) { return v == 0 ? 0 : std::stod(fmt::format("{:.6g}", v)); }

}  // namespace

Efficiency as_written(Efficiency e) {
  for (const auto& p : fit_params()) p.set(e, six_digits(p.get(e)));
  for (auto& ee : e.engines) {
    ee.bandwidth_scale = six_digits(ee.bandwidth_scale);
    ee.compute_scale = six_digits(ee.compute_scale);
    ee.step_overhead = Seconds::from_value(six_digits(ee.step_overhead.value() * 1e3) / 1e3);
  }
  return e;
}

std::vector<FitParam> fit_params() {
  std::vector<FitParam> ps = {
      share("bandwidth_fraction", &Efficiency::bandwidth_fraction),
      quantity("bandwidth_half", &Efficiency::bandwidth_half, "MB"),
      share("matmul_fraction_16bit", &Efficiency::matmul_fraction_16),
      share("matmul_fraction_8bit", &Efficiency::matmul_fraction_8),
      share("matmul_fraction_4bit", &Efficiency::matmul_fraction_4),
      positive("matmul_half_tokens", &Efficiency::matmul_half_tokens),
      share("attention_fraction", &Efficiency::attention_fraction),
      share("collective_fraction", &Efficiency::collective_fraction),
      quantity("collective_half", &Efficiency::collective_half, "MB"),
      quantity("collective_latency", &Efficiency::collective_latency, "us"),
      quantity("sequence_overhead", &Efficiency::sequence_overhead, "us"),
      share("training_comm_overlap", &Efficiency::training_comm_overlap),
  };
  for (Engine g : decode::kEngines) {
    if (g == Engine::generic) continue;  // derived from the serving engines after the fit
    const auto i = static_cast<std::size_t>(g);
    const std::string base = std::string("engines.") + decode::engine_name(g) + ".";
    ps.push_back({base + "bandwidth_scale", [i](const Efficiency& e) { return e.engines[i].bandwidth_scale; },
                  [i](Efficiency& e, double v) { e.engines[i].bandwidth_scale = v; }, false, "", 0.3});
    ps.push_back({base + "compute_scale", [i](const Efficiency& e) { return e.engines[i].compute_scale; },
                  [i](Efficiency& e, double v) { e.engines[i].compute_scale = v; }, false, "", 0.3});
    ps.push_back({base + "step_overhead", [i](const Efficiency& e) { return e.engines[i].step_overhead.value(); },
                  [i](Efficiency& e, double v) { e.engines[i].step_overhead = Seconds::from_value(v); }, false, "ms", 1.5});
  }
  return ps;
}

FitResult fit(const std::vector<FitParam>& ps, const Efficiency& start, const Efficiency& prior, const Residuals& residuals,
              int max_iterations) {
  const std::vector<double> x0 = to_vector(ps, prior);
  std::vector<double> x = to_vector(ps, start);
  std::vector<double> r = all_residuals(ps, x, x0, start, residuals);
  FitResult out;
  out.start_cost = out.cost = cost_of(r);
  double lambda = 1e-2;
  int restarts = 0;
  const std::size_t n = ps.size();
  for (int it = 0; it < max_iterations; ++it) {
    out.iterations = it + 1;
    // Forward-difference Jacobian in the fitted space.
    std::vector<std::vector<double>> jt(n);
    for (std::size_t j = 0; j < n; ++j) {
      std::vector<double> xh = x;
      const double h = 1e-3 * std::max(1.0, std::fabs(x[j]));
      xh[j] += h;
      const std::vector<double> rh = all_residuals(ps, xh, x0, start, residuals);
      jt[j].resize(r.size());
      for (std::size_t k = 0; k < r.size(); ++k) jt[j][k] = (rh[k] - r[k]) / h;
    }
    std::vector<std::vector<double>> jtj(n, std::vector<double>(n, 0.0));
    std::vector<double> jtr(n, 0.0);
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t k = 0; k < r.size(); ++k) jtr[a] -= jt[a][k] * r[k];
      for (std::size_t b = a; b < n; ++b) {
        double s = 0;
        for (std::size_t k = 0; k < r.size(); ++k) s += jt[a][k] * jt[b][k];
        jtj[a][b] = jtj[b][a] = s;
      }
    }
    bool improved = false;
    for (int tries = 0; tries < 16 && !improved; ++tries) {
      auto a = jtj;
      for (std::size_t d = 0; d < n; ++d) a[d][d] += lambda * std::max(jtj[d][d], 1e-9);
      std::vector<double> step;
      if (!solve(a, jtr, step)) {
        lambda *= 10;
        continue;
      }
      std::vector<double> xn = x;
      for (std::size_t d = 0; d < n; ++d) xn[d] += std::clamp(step[d], -2.0, 2.0);
      const std::vector<double> rn = all_residuals(ps, xn, x0, start, residuals);
      const double cn = cost_of(rn);
      if (cn < out.cost) {
        const double gain = (out.cost - cn) / out.cost;
        x = xn;
        r = rn;
        out.cost = cn;
        lambda = std::max(lambda / 3, 1e-7);
        improved = true;
        if (gain < 1e-9) it = max_iterations;
      } else {
        lambda *= 4;
      }
    }
    if (!improved) {
      // A kink of the roofline (max of memory and compute) can stall the step: restart the damping once from here.
      if (lambda > 1e3 && restarts++ < 3) {
        lambda = 1e-2;
        continue;
      }
      break;
    }
  }
  // The roofline's kinks (max of memory and compute, the cap of an offered load) leave Levenberg-Marquardt
  // at points where no damped step descends; a compass search (Kolda, Lewis and Torczon 2003) polishes from
  // there without derivatives.
  for (double delta = 0.1; delta > 1e-3 && max_iterations > 0;) {
    bool moved = false;
    for (std::size_t j = 0; j < n; ++j)
      for (double sign : {1.0, -1.0}) {
        std::vector<double> xn = x;
        xn[j] += sign * delta;
        const std::vector<double> rn = all_residuals(ps, xn, x0, start, residuals);
        const double cn = cost_of(rn);
        if (cn < out.cost) {
          x = xn;
          out.cost = cn;
          moved = true;
          break;
        }
      }
    if (!moved) delta /= 2;
  }
  out.params = from_vector(ps, start, x);
  // The generic engine: the geometric mean of the serving engines fitted.
  auto& gen = out.params.engines[static_cast<std::size_t>(Engine::generic)];
  double bs = 0, cs = 0, so = 0;
  int k = 0;
  for (Engine g : {Engine::trtllm, Engine::vllm, Engine::sglang}) {
    const auto& ee = out.params.engine(g);
    bs += std::log(ee.bandwidth_scale);
    cs += std::log(ee.compute_scale);
    so += std::log(std::max(ee.step_overhead.value(), 1e-9));
    ++k;
  }
  gen.bandwidth_scale = std::exp(bs / k);
  gen.compute_scale = std::exp(cs / k);
  gen.step_overhead = Seconds::from_value(std::exp(so / k));
  return out;
}

CorpusResiduals::CorpusResiduals(const std::vector<Measurement>& entries) {
  for (const auto& m : entries) {
    Plan p = plan_for(m);
    if (!p.skipped.empty()) continue;
    if (!run_plan(m, p, false).skipped.empty()) continue;
    entries_.push_back(&m);
    plans_.push_back(std::move(p));
  }
}

std::vector<double> CorpusResiduals::operator()(const Efficiency& e, int leave_out) const {
  const decode::ScopedEfficiency scope(e);
  std::vector<double> r;
  r.reserve(plans_.size());
  for (std::size_t i = 0; i < plans_.size(); ++i) {
    if (static_cast<int>(i) == leave_out) continue;
    const Prediction p = run_plan(*entries_[i], plans_[i], false);
    r.push_back(p.skipped.empty() && p.expected > 0 ? std::log(p.expected / p.measured) : 3.0);
  }
  return r;
}

std::string efficiency_toml(const Efficiency& e, const std::vector<std::pair<std::string, Summary>>& bands,
                            const std::vector<std::pair<std::string, double>>& loo_medians, int entries, const std::string& as_of) {
  std::string out =
      "# Parameters of the efficiency models (plugins/decode/efficiency.hpp), written by `infracalc calibrate --published`\n"
      "# from the published measurements in data/measured/. Do not edit the fitted values by hand: change the corpus, the\n"
      "# priors (efficiency-prior.toml, the literature values the fit starts from and pulls towards) or the model, and refit.\n"
      "id = \"efficiency\"\nname = \"Calibrated efficiency models\"\nkind = \"calibration\"\n";
  const auto ps = fit_params();
  for (const auto& p : ps)
    if (p.key.rfind("engines.", 0) != 0) out += fmt::format("{} = {}\n", p.key, value_text(p, p.get(e)));
  for (Engine g : decode::kEngines) {
    const auto& ee = e.engine(g);
    out += fmt::format("\n[engines.{}]\nbandwidth_scale = {:.6g}\ncompute_scale = {:.6g}\nstep_overhead = \"{:.6g} ms\"\nmax_batch = {}\n",
                       decode::engine_name(g), ee.bandwidth_scale, ee.compute_scale, ee.step_overhead.value() * 1e3, ee.max_batch);
  }
  for (const auto& [family, s] : bands) {
    out += fmt::format("\n[band.{}]\nmedian_abs_error = {:.6f}\np90_abs_error = {:.6f}\npoints = {}\n", family, s.median_abs_error,
                       s.p90_abs_error, s.points);
    for (const auto& [f, loo] : loo_medians)
      if (f == family) out += fmt::format("loo_median_abs_error = {:.6f}\n", loo);
  }
  out += fmt::format(
      "\n[meta]\nas_of = {}\nsources = [\"fit by infracalc calibrate --published on {} published measurements in data/measured/ "
      "(docs/validation.md)\", \"priors: data/calibration/efficiency-prior.toml (each value with its source)\"]\nbasis = \"derived\"\n",
      as_of, entries);
  return out;
}

}  // namespace infracalc::validation
