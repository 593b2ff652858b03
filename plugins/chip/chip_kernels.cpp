// Reference kernels for the chip plugin: a cycle-by-cycle systolic array, and defects scattered over a
// grid of cores.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fmt/format.h>
#include <vector>

#include "plugins/chip/chip_math.hpp"
#include "plugins/chip/chip_plugin.hpp"
#include "plugins/kernels/rng.hpp"
#include "units/bridge.hpp"

namespace infracalc {

namespace {

Quantity n(double v) { return Quantity::number(v); }

// An output-stationary R x C array (Kung and Leiserson 1978): A enters from the left skewed by row, B from
// the top skewed by column, each value moves one PE per cycle, and a PE multiplies and accumulates when both
// of its operand registers hold data. Nothing here knows the count; it is read off the simulation.
std::vector<KernelCheck> run_systolic(const KernelOptions& opt) {
  const int rows = opt.quick ? 8 : 128;
  const int cols = opt.quick ? 12 : 128;
  const int depth = rows + cols + (opt.quick ? 8 : 64);  // long enough for every PE to be busy at once
  std::vector<int> a(static_cast<std::size_t>(rows * depth)), b(static_cast<std::size_t>(depth * cols));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int>(i % 7) - 3;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int>(i % 5) - 2;
  struct Reg {
    int v = 0;
    bool valid = false;
  };
  const auto cells = static_cast<std::size_t>(rows * cols);
  std::vector<Reg> ra(cells), rb(cells), na(cells), nb(cells);
  std::vector<std::int64_t> acc(cells, 0);
  std::int64_t total = 0, busiest = 0;
  for (int t = 0;; ++t) {
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const auto at = static_cast<std::size_t>(i * cols + j);
        if (j == 0) {
          const int k = t - i;
          na[at] = {k >= 0 && k < depth ? a[static_cast<std::size_t>(i * depth + k)] : 0, k >= 0 && k < depth};
        } else {
          na[at] = ra[at - 1];
        }
        if (i == 0) {
          const int k = t - j;
          nb[at] = {k >= 0 && k < depth ? b[static_cast<std::size_t>(k * cols + j)] : 0, k >= 0 && k < depth};
        } else {
          nb[at] = rb[at - static_cast<std::size_t>(cols)];
        }
      }
    std::swap(ra, na);
    std::swap(rb, nb);
    std::int64_t now = 0;
    for (std::size_t at = 0; at < cells; ++at)
      if (ra[at].valid && rb[at].valid) {
        acc[at] += static_cast<std::int64_t>(ra[at].v) * rb[at].v;
        ++now;
      }
    total += now;
    busiest = std::max(busiest, now);
    if (t > depth + rows + cols) break;
  }
  std::int64_t worst = 0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      std::int64_t ref = 0;
      for (int k = 0; k < depth; ++k)
        ref += static_cast<std::int64_t>(a[static_cast<std::size_t>(i * depth + k)]) * b[static_cast<std::size_t>(k * cols + j)];
      worst = std::max(worst, std::abs(ref - acc[static_cast<std::size_t>(i * cols + j)]));
    }
  const double per_cycle = chip::systolic_macs(rows, cols);
  return {
      {fmt::format("MACs per cycle of a {}x{} array, all PEs busy", rows, cols), n(per_cycle), n(static_cast<double>(busiest)), 0.0},
      {fmt::format("MACs of a {}x{}x{} product = rows x cols per cycle x depth", rows, depth, cols), n(per_cycle * depth),
       n(static_cast<double>(total)), 0.0},
      {"systolic product against the plain triple loop: largest difference", n(0), n(static_cast<double>(worst)), 0.0, 0.0},
  };
}

// Each core is a grid of tiny cells, each holding a defect with probability D x cell area (a Bernoulli
// field that tends to a Poisson process as the cells shrink); a core is bad when any of its cells is.
std::vector<KernelCheck> run_defects(const KernelOptions& opt) {
  const int cores = opt.quick ? 20'000 : 200'000;
  constexpr int cells_per_core = 100;
  const auto density = from_base<chip::PerSquareMeter>(1e5);      // 0.1 /mm2: many defects, tight statistics
  const auto core_area = from_base<SquareMeters>(0.5e-6);          // 0.5 mm2 (lambda = 0.05 per core)
  const double p = (density * core_area).value() / cells_per_core;
  kernels::Rng rng(2025);
  std::int64_t bad = 0;
  for (int c = 0; c < cores; ++c) {
    bool hit = false;
    for (int s = 0; s < cells_per_core; ++s) hit = (rng.uniform() < p) || hit;
    bad += hit ? 1 : 0;
  }
  const double formula = chip::defective_cores(cores, density, core_area);
  const double share = formula / cores;
  const double five_sigma = 5.0 * std::sqrt(cores * share * (1 - share)) / formula;
  return {{fmt::format("defective cores of {} at lambda 0.05 per core (Monte Carlo, 5 sigma)", cores), n(formula),
           n(static_cast<double>(bad)), five_sigma}};
}

}  // namespace

std::vector<Kernel> chip_kernels() {
  return {
      {"systolic-array", "a cycle-by-cycle output-stationary systolic array: MACs per cycle = rows x cols, and its product",
       run_systolic},
      {"core-defects", "defects scattered over a grid of cores against cores x (1 - exp(-D A))", run_defects},
  };
}

}  // namespace infracalc
