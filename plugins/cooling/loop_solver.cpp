#include "plugins/cooling/loop_solver.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>

namespace infracalc::cooling {

namespace {

// Colebrook-White by fixed-point iteration on x = 1/sqrt(f): x = -2 log10(a + b x). The map contracts
// (|dx'/dx| = 2b / ((a + b x) ln 10) < 1 for turbulent Re), so it converges from any start.
double colebrook_fixed_point(double re, double rel_rough) {
  if (re < 2300.0) return 64.0 / re;
  const double a = rel_rough / 3.7, b = 2.51 / re;
  double x = 7.0;
  for (int i = 0; i < 200; ++i) {
    const double next = -2.0 * std::log10(a + b * x);
    if (std::fabs(next - x) <= 1e-15 * next) {
      x = next;
      break;
    }
    x = next;
  }
  return 1.0 / (x * x);
}

// An edge of the network: a pipe and/or a plate curve in series, at one coolant state.
struct Edge {
  int from = 0, to = 0;
  const Pipe* pipe = nullptr;
  const PlateCurve* plate = nullptr;
  CoolantState state{};
  int rack = -1;  // the rack whose branch this is, or -1 for headers
  int first = 0, last = -1;  // a header segment carries the flow of racks first..last (1-based)
};

double edge_drop(const Edge& e, double mdot) {
  const double sign = mdot < 0 ? -1.0 : 1.0;
  const double m = std::fabs(mdot);
  double dp = 0.0;
  if (e.pipe != nullptr) dp += solver_pipe_drop(*e.pipe, from_base<KilogramsPerSecond>(m), e.state).value();
  if (e.plate != nullptr) {
    const double q = m / e.state.density.value();
    dp += e.plate->dp_ref.value() * std::pow(q / e.plate->q_ref.value(), e.plate->exponent.value());
  }
  return sign * dp;
}

// Mass flow through an edge for a pressure difference (the inverse of edge_drop). The drop rises
// monotonically with the flow, so Newton's method from the last flow, kept inside a bracket that
// bisection falls back on, converges in a few steps.
double edge_flow(const Edge& e, double dp, double scale, double guess) {
  if (dp == 0.0) return 0.0;
  const double target = std::fabs(dp);
  double lo = 0.0, hi = scale;
  while (edge_drop(e, hi) < target) hi *= 2.0;
  double m = std::fabs(guess);
  if (!(m > lo && m < hi)) m = 0.5 * (lo + hi);
  for (int i = 0; i < 100; ++i) {
    const double f = edge_drop(e, m) - target;
    if (f == 0.0) break;
    (f < 0 ? lo : hi) = m;
    const double h = 1e-7 * m;
    const double slope = (edge_drop(e, m + h) - edge_drop(e, m - h)) / (2.0 * h);
    double next = slope > 0 ? m - f / slope : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::fabs(next - m) <= 1e-14 * m || hi - lo <= 1e-15 * hi) {
      m = next;
      break;
    }
    m = next;
  }
  return std::copysign(m, dp);
}

double edge_conductance(const Edge& e, double mdot, double scale) {
  const double m = std::max(std::fabs(mdot), 1e-9 * scale);
  const double h = 1e-6 * m;
  const double slope = (edge_drop(e, m + h) - edge_drop(e, m - h)) / (2.0 * h);
  return 1.0 / std::max(slope, 1e-300);
}

// Dense Gaussian elimination with partial pivoting: solves A x = b in place (A is n x n, row-major).
bool solve_dense(std::vector<double>& a, std::vector<double>& b, int n) {
  for (int c = 0; c < n; ++c) {
    int piv = c;
    for (int r = c + 1; r < n; ++r)
      if (std::fabs(a[r * n + c]) > std::fabs(a[piv * n + c])) piv = r;
    if (std::fabs(a[piv * n + c]) < 1e-300) return false;
    if (piv != c) {
      for (int k = 0; k < n; ++k) std::swap(a[c * n + k], a[piv * n + k]);
      std::swap(b[c], b[piv]);
    }
    for (int r = c + 1; r < n; ++r) {
      const double f = a[r * n + c] / a[c * n + c];
      if (f == 0.0) continue;
      for (int k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
      b[r] -= f * b[c];
    }
  }
  for (int r = n - 1; r >= 0; --r) {
    double s = b[r];
    for (int k = r + 1; k < n; ++k) s -= a[r * n + k] * b[k];
    b[r] = s / a[r * n + r];
  }
  return true;
}

// The temperature at which the coolant's enthalpy above the supply equals `dh` per kilogram.
Expected<TemperaturePoint> temperature_for_enthalpy(const Coolant& c, TemperaturePoint supply, double dh) {
  double lo = supply.value(), hi = c.highest().value();
  auto h_at = [&](double t) { return c.enthalpy_per_kg(TemperaturePoint::from_value(t), supply); };
  auto top = h_at(hi);
  if (!top) return top.error();
  if (top->value() < dh)
    return Error{fmt::format("the coolant would rise past the top of {}'s table ({})", c.name(), point_text(c.highest())),
                 "raise the flow or lower the heat"};
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    const double mid = 0.5 * (lo + hi);
    (h_at(mid).value().value() < dh ? lo : hi) = mid;
  }
  return TemperaturePoint::from_value(0.5 * (lo + hi));
}

}  // namespace

Pascals solver_pipe_drop(const Pipe& pipe, KilogramsPerSecond mass_flow, const CoolantState& s) {
  if (pipe.length.value() <= 0.0) return from_base<Pascals>(0.0);
  const double d = pipe.diameter.value();
  const double area = M_PI * d * d / 4.0;
  const double v = mass_flow.value() / (s.density.value() * area);
  const double re = s.density.value() * v * d / s.viscosity.value();
  if (re <= 0.0) return from_base<Pascals>(0.0);
  const double f = colebrook_fixed_point(re, pipe.roughness.value() / d);
  return from_base<Pascals>(f * pipe.length.value() / d * s.density.value() * v * v / 2.0);
}

Expected<LoopSolution> solve_loop(const LoopSpec& spec, const Coolant& coolant) {
  const int n = static_cast<int>(spec.racks.size());
  if (n == 0) return Error{"the loop has no racks", "give at least one rack"};
  auto at_supply = coolant.at(spec.supply);
  if (!at_supply) return at_supply.error();
  const double m_total = spec.total_flow.value() * at_supply->density.value();
  const bool ideal = spec.header.length.value() <= 0.0;

  // Nodes: 0 = CDU inlet (reference, p = 0), 1 = CDU outlet, supply taps S_k, return taps R_k.
  // With ideal headers every supply tap is the CDU outlet and every return tap the CDU inlet.
  auto S = [&](int k) { return ideal ? 1 : 1 + k; };             // k = 1..n; S(0) = 1
  auto R = [&](int k) { return ideal ? 0 : 1 + n + k; };         // k = 1..n
  const int nodes = ideal ? 2 : 2 + 2 * n;
  Pipe main_return = spec.header;
  main_return.length = spec.header.length * static_cast<double>(n);

  std::vector<TemperaturePoint> outlet(static_cast<std::size_t>(n), spec.supply);
  std::vector<double> p(static_cast<std::size_t>(nodes), 0.0);
  std::vector<double> m_branch(static_cast<std::size_t>(n), m_total / n);
  LoopSolution sol;
  std::vector<Edge> edges;
  std::vector<double> flows;
  bool have_pressures = false;

  for (sol.outer_iterations = 1; sol.outer_iterations <= 50; ++sol.outer_iterations) {
    // Edge list with coolant states at the present temperature estimates.
    edges.clear();
    auto state = [&](TemperaturePoint t) -> Expected<CoolantState> { return coolant.at(t); };
    for (int k = 1; k <= n; ++k) {
      const LoopRack& r = spec.racks[static_cast<std::size_t>(k - 1)];
      if (!ideal) edges.push_back({S(k - 1), S(k), &spec.header, nullptr, *at_supply, -1, k, n});
      auto mean = state(TemperaturePoint::from_value(0.5 * (spec.supply.value() + outlet[static_cast<std::size_t>(k - 1)].value())));
      if (!mean) return mean.error();
      edges.push_back({S(k), R(k), r.hose.length.value() > 0 ? &r.hose : nullptr, &r.plate, *mean, k - 1, k, k});
    }
    if (!ideal) {
      // Return segments carry the mix of the racks upstream of them.
      auto mix_of = [&](int first, int last) -> Expected<CoolantState> {
        double m = 0.0, mt = 0.0;
        for (int j = first; j <= last; ++j) {
          m += m_branch[static_cast<std::size_t>(j - 1)];
          mt += m_branch[static_cast<std::size_t>(j - 1)] * outlet[static_cast<std::size_t>(j - 1)].value();
        }
        return state(TemperaturePoint::from_value(m > 0 ? mt / m : spec.supply.value()));
      };
      if (spec.reverse_return) {
        for (int k = 1; k < n; ++k) {
          auto s = mix_of(1, k);
          if (!s) return s.error();
          edges.push_back({R(k), R(k + 1), &spec.header, nullptr, *s, -1, 1, k});
        }
        auto s = mix_of(1, n);
        if (!s) return s.error();
        edges.push_back({R(n), 0, &main_return, nullptr, *s, -1, 1, n});
      } else {
        for (int k = 1; k <= n; ++k) {
          auto s = mix_of(k, n);
          if (!s) return s.error();
          edges.push_back({R(k), k == 1 ? 0 : R(k - 1), &spec.header, nullptr, *s, -1, k, n});
        }
      }
    }
    // Initial pressures: walk a spanning tree with the flows of the last iteration (equal split first).
    if (!have_pressures) {
      std::fill(p.begin(), p.end(), 0.0);
      std::vector<double> guess(edges.size(), 0.0);
      for (std::size_t i = 0; i < edges.size(); ++i)
        for (int j = edges[i].first; j <= edges[i].last; ++j) guess[i] += m_branch[static_cast<std::size_t>(j - 1)];
      // Pressures: relax along edges from the reference until every reachable node is set.
      std::vector<bool> set(static_cast<std::size_t>(nodes), false);
      set[0] = true;
      for (int pass = 0; pass < nodes + 2; ++pass)
        for (std::size_t i = 0; i < edges.size(); ++i) {
          const Edge& e = edges[i];
          const double dp = edge_drop(e, guess[i]);
          if (set[static_cast<std::size_t>(e.to)] && !set[static_cast<std::size_t>(e.from)]) {
            p[static_cast<std::size_t>(e.from)] = p[static_cast<std::size_t>(e.to)] + dp;
            set[static_cast<std::size_t>(e.from)] = true;
          } else if (set[static_cast<std::size_t>(e.from)] && !set[static_cast<std::size_t>(e.to)]) {
            p[static_cast<std::size_t>(e.to)] = p[static_cast<std::size_t>(e.from)] - dp;
            set[static_cast<std::size_t>(e.to)] = true;
          }
        }
      have_pressures = true;
    }
    // Newton on the node pressures (node 0 fixed): F_i = sum of flows out of i - injection.
    const int unknowns = nodes - 1;
    flows.assign(edges.size(), 0.0);
    std::vector<double> guess_flows(edges.size(), 0.0);
    for (std::size_t i = 0; i < edges.size(); ++i)
      for (int j = edges[i].first; j <= edges[i].last; ++j) guess_flows[i] += m_branch[static_cast<std::size_t>(j - 1)];
    auto residual = [&](const std::vector<double>& pr, std::vector<double>& f) {
      std::fill(f.begin(), f.end(), 0.0);
      for (std::size_t i = 0; i < edges.size(); ++i) {
        const Edge& e = edges[i];
        const double m = edge_flow(e, pr[static_cast<std::size_t>(e.from)] - pr[static_cast<std::size_t>(e.to)], m_total, guess_flows[i]);
        flows[i] = m;
        guess_flows[i] = m;
        if (e.from > 0) f[static_cast<std::size_t>(e.from - 1)] += m;
        if (e.to > 0) f[static_cast<std::size_t>(e.to - 1)] -= m;
      }
      f[0] -= m_total;  // node 1, the CDU outlet, receives the pump's flow
      double worst = 0.0;
      for (double x : f) worst = std::max(worst, std::fabs(x));
      return worst;
    };
    std::vector<double> f(static_cast<std::size_t>(unknowns));
    double norm = residual(p, f);
    // The flow inversions are exact to ~1e-14, so 1e-11 of the flow is the floor worth chasing.
    for (int it = 0; it < 100 && norm > 1e-11 * m_total; ++it) {
      ++sol.newton_iterations;
      std::vector<double> jac(static_cast<std::size_t>(unknowns * unknowns), 0.0);
      for (std::size_t i = 0; i < edges.size(); ++i) {
        const Edge& e = edges[i];
        const double c = edge_conductance(e, flows[i], m_total);
        const int a = e.from - 1, b = e.to - 1;
        if (a >= 0) jac[static_cast<std::size_t>(a * unknowns + a)] += c;
        if (b >= 0) jac[static_cast<std::size_t>(b * unknowns + b)] += c;
        if (a >= 0 && b >= 0) {
          jac[static_cast<std::size_t>(a * unknowns + b)] -= c;
          jac[static_cast<std::size_t>(b * unknowns + a)] -= c;
        }
      }
      std::vector<double> step = f;
      for (double& x : step) x = -x;
      if (!solve_dense(jac, step, unknowns)) return Error{"the loop's pressure equations are singular", "check the rack curves"};
      // Backtracking: halve the step until the imbalance falls.
      double lambda = 1.0;
      bool reduced = false;
      std::vector<double> trial(p.size()), ft(f.size());
      for (int ls = 0; ls < 40; ++ls) {
        trial[0] = 0.0;
        for (int i = 0; i < unknowns; ++i) trial[static_cast<std::size_t>(i + 1)] = p[static_cast<std::size_t>(i + 1)] + lambda * step[static_cast<std::size_t>(i)];
        const double nt = residual(trial, ft);
        if (nt < norm) {
          p = trial;
          f = ft;
          norm = nt;
          reduced = true;
          break;
        }
        lambda *= 0.5;
      }
      if (!reduced) break;  // stagnated at the precision of the flow inversions
    }
    sol.node_residual = norm / m_total;
    // Branch flows, then outlet temperatures from the enthalpy balance.
    double worst_change = 0.0;
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (e.rack < 0) continue;
      const auto k = static_cast<std::size_t>(e.rack);
      m_branch[k] = flows[i];
      if (flows[i] <= 0.0) return Error{fmt::format("rack {} gets no flow", spec.racks[k].name), "check the curves and headers"};
      auto t = temperature_for_enthalpy(coolant, spec.supply, spec.racks[k].heat.value() / flows[i]);
      if (!t) return t.error();
      worst_change = std::max(worst_change, std::fabs(t->value() - outlet[k].value()));
      outlet[k] = *t;
    }
    if (worst_change <= 1e-10 && sol.outer_iterations > 1) break;
  }

  // Results.
  double m_sum = 0.0, heat = 0.0, h_mix = 0.0;
  for (int k = 0; k < n; ++k) {
    const auto ks = static_cast<std::size_t>(k);
    LoopBranch b;
    b.mass_flow = from_base<KilogramsPerSecond>(m_branch[ks]);
    b.flow = from_base<CubicMetersPerSecond>(m_branch[ks] / at_supply->density.value());
    b.outlet = outlet[ks];
    b.rise = difference(outlet[ks], spec.supply);
    b.dp = from_base<Pascals>(p[static_cast<std::size_t>(S(k + 1))] - p[static_cast<std::size_t>(R(k + 1))]);
    sol.branches.push_back(b);
    m_sum += m_branch[ks];
    h_mix += m_branch[ks] * coolant.enthalpy_per_kg(outlet[ks], spec.supply).value().value();
    heat += spec.racks[ks].heat.value();
  }
  auto mixed = temperature_for_enthalpy(coolant, spec.supply, h_mix / m_sum);
  if (!mixed) return mixed.error();
  sol.mixed_return = *mixed;
  sol.heat_picked_up = from_base<Watts>(m_sum * coolant.enthalpy_per_kg(*mixed, spec.supply).value().value());
  sol.mass_residual = std::fabs(m_sum - m_total) / m_total;
  sol.loop_dp = from_base<Pascals>(p[1]);
  (void)heat;
  return sol;
}

}  // namespace infracalc::cooling
