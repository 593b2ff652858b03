// `chip peak`: peak rate = compute units x matrix units per unit x MACs per cycle per matrix unit x 2 x clock,
// against the catalog's quoted peak at the same precision.
#include <cmath>
#include <fmt/format.h>

#include "plugins/chip/chip_math.hpp"
#include "plugins/chip/chip_calculators.hpp"
#include "host/context.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

// Beyond this the two figures assume different clocks (boost against sustained) or a different MAC count.
constexpr double kPeakTolerance = 0.02;

void run_peak(Context& ctx) {
  const bool has_rows = ctx.has("rows");
  const bool has_cols = ctx.has("cols");
  if (has_rows != has_cols)
    throw UserError{{has_rows ? "--rows needs --cols" : "--cols needs --rows", "give both sides of the systolic array: --rows 128 --cols 128"}};
  double per_unit = 0;
  if (has_rows && ctx.has("macs_per_clock"))
    throw UserError{{"--macs-per-clock contradicts --rows and --cols", "give either the array (--rows --cols) or its MACs per clock"}};
  if (has_rows) {
    per_unit = chip::systolic_macs(ctx.integer("rows"), ctx.integer("cols"));
  } else if (ctx.has("macs_per_clock")) {
    per_unit = ctx.number("macs_per_clock");
  } else {
    throw UserError{{"missing the MACs per cycle of one matrix unit",
                     "give --rows 128 --cols 128 (a systolic array, e.g. a TPU MXU) or --macs-per-clock 512 (an H100 tensor core, dense FP16)"}};
  }
  const auto units = ctx.integer("compute_units");
  const auto matrix = ctx.integer("matrix_units");
  const double ops = ctx.number("ops_per_mac");
  const double macs = chip::chip_macs_per_cycle(units, matrix, per_unit);
  ctx.set_number("macs_per_matrix_unit", per_unit);
  ctx.set_number("macs_per_cycle", macs);
  ctx.set_number("flops_per_cycle", macs * ops);
  if (!ctx.has("clock")) {
    ctx.note("no clock: give --clock (or --gpu ID with a clock in the catalog) for the peak rate");
    return;
  }
  const auto clock = ctx.get<PerSecond>("clock");
  const FlopsPerSecond peak = chip::peak_rate(macs, ops, clock);
  ctx.set("peak", peak);
  ctx.note(fmt::format("peak = {} compute units x {} matrix units x {} MACs/cycle x {} ops/MAC x {} = {}",
                       ctx.quote_count(static_cast<double>(units)), ctx.quote_count(static_cast<double>(matrix)), ctx.quote_count(per_unit),
                       ctx.quote_count(ops), ctx.quote(clock, "Hz"), ctx.quote(peak)));

  const Entry* g = ctx.ref("gpu");
  if (g == nullptr) return;
  const std::string& precision = ctx.text("precision");
  std::string field = "peak." + precision + "_dense";
  auto quoted = ctx.catalog<FlopsPerSecond>(*g, field);
  if (!quoted) {
    field = "peak." + precision + "_sparse";
    quoted = ctx.catalog<FlopsPerSecond>(*g, field);
    if (!quoted) {
      ctx.note(fmt::format("{} quotes no {} peak to compare with", g->id(), precision));
      return;
    }
    ctx.note(fmt::format("{} quotes only a sparse {} peak ({}): it counts skipped zeros, so it is above any dense MAC count",
                         g->id(), precision, field));
  }
  const double ratio = peak / *quoted;
  const PerSecond implied = chip::implied_clock(*quoted, macs, ops);
  ctx.set("catalog_peak", *quoted);
  ctx.set_number("peak_ratio", ratio);
  ctx.set("implied_clock", implied);
  if (std::abs(ratio - 1.0) > kPeakTolerance)
    ctx.note(fmt::format("{}'s {} = {} differs from this count by {}{}: it implies a {} clock against the {} given ({}); a "
                         "quoted peak is at the boost clock, a sustained one runs lower, and a sparse figure counts skipped zeros",
                         g->id(), field, ctx.quote(*quoted), ratio < 1.0 ? "+" : "", ctx.quote_percent(1.0 / ratio - 1.0),
                         ctx.quote(implied, "Hz"), ctx.origin("clock") == Origin::catalog ? "catalog clock" : "clock", ctx.quote(clock, "Hz")));
}

}  // namespace

Calculator chip_peak_calculator() {
  Calculator c;
  c.name = "peak";
  c.summary = "peak rate from the matrix units: compute units x matrix units x MACs per cycle x 2 x clock";
  c.description =
      "peak = compute units x matrix units per unit x MACs per cycle per matrix unit x ops per MAC (2) x clock. A systolic "
      "array of R x C does R x C MACs per cycle (TPU MXU 128x128 = 16,384; 256x256 = 65,536; Groq MXM plane 320x320). "
      "H100 SXM: 132 SMs x 4 tensor cores x 512 dense FP16 FMA per clock x 2 x 1.83 GHz = 989.4 TFLOP/s (Hopper "
      "whitepaper: twice the A100 SM's 1,024 FMA per clock). With --gpu the result is compared with the catalog's quoted "
      "peak at --precision (dense, else sparse); past 2% a note gives the clock the quoted figure implies. Ignores clock "
      "throttling under load and non-matrix work.";
  c.refs = {{"gpu", {"accelerator"}, "accelerator id: compute units, clock and the quoted peak"}};
  c.inputs = {
      {.name = "compute_units", .kind = InputKind::integer,
       .help = "compute units: SMs, TPU TensorCores, Groq MXM planes, Cerebras PEs", .default_value = "1", .example = "132",
       .catalog = "gpu.compute_units"},
      {.name = "matrix_units", .kind = InputKind::integer,
       .help = "matrix units per compute unit: tensor cores per SM (4 since Ampere), MXUs per TPU TensorCore (4 on v4 and v5p)",
       .default_value = "1", .example = "4", .most = 1'000'000},
      {.name = "macs_per_clock", .kind = InputKind::quantity, .dim = dims::none,
       .help = "MACs per cycle of one matrix unit (H100 tensor core: 512 dense FP16; A100: 256; a Cerebras PE: 4 FP16 FMACs)",
       .example = "512", .optional = true},
      {.name = "rows", .kind = InputKind::integer, .help = "rows of a systolic array (its MACs per cycle are rows x cols)",
       .example = "128", .optional = true, .most = 65'536},
      {.name = "cols", .kind = InputKind::integer, .help = "columns of a systolic array", .example = "128", .optional = true,
       .most = 65'536},
      {.name = "clock", .kind = InputKind::quantity, .dim = dims::frequency, .help = "clock the matrix units run at",
       .example = "1.83GHz", .catalog = "gpu.clock", .optional = true},
      {.name = "ops_per_mac", .kind = InputKind::quantity, .dim = dims::none,
       .help = "operations counted per MAC: 2 (a multiply and an add)", .default_value = "2"},
      {.name = "precision", .kind = InputKind::choice, .help = "precision of the catalog peak to compare with",
       .default_value = "fp16", .choices = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4"}},
  };
  c.outputs = {
      {"macs_per_matrix_unit", dims::none, "MACs one matrix unit completes per cycle"},
      {"macs_per_cycle", dims::none, "MACs the whole chip completes per cycle"},
      {"flops_per_cycle", dims::none, "operations per cycle: MACs x ops per MAC"},
      {"peak", dims::flop_rate, "peak rate from the count", "TFLOP/s"},
      {"catalog_peak", dims::flop_rate, "the catalog's quoted peak at --precision", "TFLOP/s"},
      {"peak_ratio", dims::none, "peak / catalog_peak"},
      {"implied_clock", dims::frequency, "the clock the catalog's peak implies for this MAC count", "Hz"},
  };
  c.run = run_peak;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc
