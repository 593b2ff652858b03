// `formats error`: the quantization error of a format on a distribution of values.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "host/number_list.hpp"
#include "plugins/formats/block.hpp"
#include "plugins/formats/error_study.hpp"
#include "plugins/formats/formats_calculators.hpp"
#include "units/suggest.hpp"

namespace infracalc::formats {

namespace {

void run_error(Context& ctx) {
  TensorRecipe r;
  r.count = static_cast<std::size_t>(ctx.integer("size"));
  r.outlier_sigmas = ctx.number("outlier_sigmas");
  r.seed = static_cast<std::uint64_t>(ctx.integer("seed"));
  if (ctx.has("outliers")) {
    r.outliers = static_cast<std::size_t>(ctx.integer("outliers"));
    if (r.outliers > r.count) throw UserError{{"--outliers: more outliers than values", "lower --outliers or raise --size"}};
  } else {
    r.outliers = static_cast<std::size_t>(std::llround(ctx.number("outlier_share") * static_cast<double>(r.count)));
  }
  const auto names = split_list(ctx.text("dtypes"), ", ");
  if (names.empty()) throw UserError{{"--dtypes: no format given", "e.g. --dtypes int4,fp4-e2m1,mxfp4,nvfp4"}};
  const SyntheticTensor t = make_tensor(r);
  double sig = 0;
  for (float x : t.values) sig += static_cast<double>(x) * x;
  ctx.set_number("signal_rms", std::sqrt(sig / static_cast<double>(r.count)));
  ctx.set_number("outliers", static_cast<double>(r.outliers));
  Table tab{"error",
            "quantization error",
            {{"format", {}, {}},
             {"bits_per_value", dims::information, "bit"},
             {"bytes", dims::information, {}},
             {"rms_error", dims::none, {}},
             {"max_error", dims::none, {}},
             {"snr_db", dims::none, {}},
             {"rms_error_bulk", dims::none, {}},
             {"rms_error_outliers", dims::none, {}},
             {"zeroed_share", dims::none, {}}},
            {}};
  double best = -1e300;
  std::string best_name;
  for (const auto& n : names) {
    const StorageFormat* sf = find_storage_format(n);
    if (sf == nullptr) {
      const auto all = storage_format_names();
      throw UserError{{"--dtypes: unknown format \"" + n + "\"", did_you_mean(n, all)}};
    }
    if (sf->name == "fp32") throw UserError{{"--dtypes: fp32 reproduces an FP32 tensor exactly; there is no error to measure", "drop fp32"}};
    const ErrorStats e = measure_error(t, layout_of(*sf));
    if (!std::isfinite(e.snr_db)) throw UserError{{"--dtypes: " + n + " reproduces this tensor exactly", "drop it from the list"}};
    tab.rows.push_back({std::string(sf->name), Quantity{8.0 * static_cast<double>(e.bytes) / static_cast<double>(r.count) / 8.0, dims::information},
                        Quantity{static_cast<double>(e.bytes), dims::information}, Quantity::number(e.rms), Quantity::number(e.max_abs),
                        Quantity::number(e.snr_db), Quantity::number(e.rms_bulk), Quantity::number(e.rms_outliers),
                        Quantity::number(e.zeroed_share)});
    if (e.snr_db > best) {
      best = e.snr_db;
      best_name = std::string(sf->name);
    }
  }
  ctx.add_table(std::move(tab));
  ctx.set_number("best_snr_db", best);
  ctx.note(fmt::format("tensor: {} values N(0, 1) from seed {}, with {} outliers of magnitude {} sigma at random positions and signs",
                       r.count, r.seed, r.outliers, r.outlier_sigmas));
  ctx.note("best signal-to-noise ratio: " + best_name);
  ctx.note("bits_per_value and bytes count what is stored: elements, block scales and the FP32 tensor scale");
  ctx.note("per-tensor formats (int4, fp4-e2m1, fp8) scale by the tensor's largest magnitude, so one outlier coarsens every value; "
           "block formats confine it to its block of 32 (MX) or 16 (NVFP4)");
}

}  // namespace

Calculator error_calculator() {
  Calculator c;
  c.name = "error";
  c.summary = "quantization error of formats on a seeded Gaussian tensor with injected outliers";
  c.description =
      "Draws --size values from N(0, 1) (splitmix64 + Box-Muller, seeded), replaces --outliers of them (or "
      "--outlier-share) with +-outlier_sigmas, quantizes the tensor in each format of --dtypes into real byte buffers, "
      "decodes it and reports RMS error, max error, SNR = 10 log10(sum x^2 / sum (x - q)^2), and the error on the bulk and "
      "on the outliers. '--size 32 --outliers 1' is the one-outlier block; int4 vs fp4-e2m1 compares grids.";
  c.inputs = {
      {.name = "dtypes", .kind = InputKind::text, .help = "formats to compare, separated by commas",
       .default_value = "int4,fp4-e2m1,int4-g32,mxfp4,nvfp4", .example = "int4,fp4-e2m1,mxfp4,nvfp4"},
      {.name = "size", .kind = InputKind::integer, .help = "values in the tensor", .default_value = "4096", .example = "65536",
       .most = 16'777'216, .most_why = "the statistics settle long before that"},
      {.name = "outliers", .kind = InputKind::integer, .help = "number of outliers (overrides --outlier-share)",
       .example = "1", .bound = Bound::non_negative, .optional = true},
      {.name = "outlier_share", .kind = InputKind::quantity, .dim = dims::none, .help = "share of values that are outliers",
       .default_value = "0.1%", .example = "0.5%", .bound = Bound::fraction0},
      {.name = "outlier_sigmas", .kind = InputKind::quantity, .dim = dims::none,
       .help = "outlier magnitude in standard deviations of the bulk", .default_value = "50", .example = "20"},
      {.name = "seed", .kind = InputKind::integer, .help = "random seed", .default_value = "1", .example = "7",
       .bound = Bound::non_negative, .most = kMaxSeed},
  };
  c.outputs = {
      {"signal_rms", dims::none, "RMS of the tensor"},
      {"outliers", dims::none, "outliers injected"},
      {"best_snr_db", dims::none, "the best signal-to-noise ratio among the formats, in dB"},
  };
  c.run = run_error;
  c.source = __FILE__;
  c.tables = {
      {"error", "quantization error of the format"},
  };
  return c;
}

}  // namespace infracalc::formats
