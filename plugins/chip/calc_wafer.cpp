// `chip wafer`: wafer-scale anatomy (dies, cores, SRAM, per-core fabric bandwidth), core sparing against
// Poisson defects, and chiplet die yield.
#include <fmt/format.h>

#include "plugins/chip/chip_math.hpp"
#include "plugins/chip/chip_calculators.hpp"
#include "host/context.hpp"
#include "units/counts.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

using chip::PerSquareMeter;

constexpr Dim kPerArea = dims::none / dims::area;


// The formatter has no display rule for an inverse area; defect densities are quoted per cm2.
std::string per_cm2(const Context& ctx, PerSquareMeter d) { return ctx.quote_number(d.value() * 1e-4) + "/cm2"; }

// Dies and cores from the grid; returns the physical core count, or 0 when none is known.
double resolve_cores(Context& ctx) {
  const bool rows = ctx.has("die_rows");
  if (rows != ctx.has("die_cols"))
    throw UserError{{rows ? "--die-rows needs --die-cols" : "--die-cols needs --die-rows", "give the die grid: --die-rows 12 --die-cols 7"}};
  double dies = 0;
  if (rows) {
    dies = static_cast<double>(count_product(ctx.integer("die_rows"), ctx.integer("die_cols"), {"--die-rows", "dies", "give a smaller grid"}));
    ctx.set_number("dies", dies);
  }
  if (ctx.has("cores")) {
    if (ctx.has("cores_per_die"))
      throw UserError{{"--cores contradicts --cores-per-die", "give the physical cores, or the die grid and cores per die"}};
    return static_cast<double>(ctx.integer("cores"));
  }
  if (!ctx.has("cores_per_die")) return 0;
  if (dies == 0) throw UserError{{"--cores-per-die needs the die grid", "give --die-rows 12 --die-cols 7"}};
  return dies * static_cast<double>(ctx.integer("cores_per_die"));
}

Bytes sram_per_core(Context& ctx) {
  const bool banks = ctx.has("banks");
  if (banks != ctx.has("bank_size"))
    throw UserError{{banks ? "--banks needs --bank-size" : "--bank-size needs --banks", "give both: --banks 8 --bank-size 6KiB"}};
  if (!banks) return ctx.get<Bytes>("sram_per_core");
  if (ctx.origin("sram_per_core") == Origin::flag)
    throw UserError{{"--sram-per-core contradicts --banks and --bank-size", "give either the banks or the SRAM per core"}};
  return static_cast<double>(ctx.integer("banks")) * ctx.get<Bytes>("bank_size");
}

void run_cores(Context& ctx, double cores, PerSquareMeter density) {
  const double enabled = ctx.has("enabled_cores") ? static_cast<double>(ctx.integer("enabled_cores")) : 0.0;
  if (cores > 0 && enabled > cores)
    throw UserError{{fmt::format("--enabled-cores {:g} exceeds the {:g} physical cores", enabled, cores),
                     "enabled cores are the physical cores less the spares"}};
  if (cores > 0) ctx.set_number("cores", cores);
  if (enabled > 0) ctx.set_number("enabled_cores", enabled);
  const double used = enabled > 0 ? enabled : cores;
  const Bytes per_core = sram_per_core(ctx);
  ctx.set("sram_per_core", per_core);
  if (used > 0) {
    ctx.set("total_sram", used * per_core);
    if (ctx.has("fabric_bandwidth")) ctx.set("fabric_per_core", ctx.get<BytesPerSecond>("fabric_bandwidth") / used);
  }
  if (cores <= 0) return;
  const auto core_area = ctx.get<SquareMeters>("core_area");
  const double defective = chip::defective_cores(cores, density, core_area);
  ctx.set_number("expected_defects", chip::expected_defects(density, cores * core_area));
  ctx.set_number("defective_cores", defective);
  ctx.set_number("core_yield", chip::poisson_yield(chip::expected_defects(density, core_area)));
  if (enabled <= 0) return;
  const double spares = cores - enabled;
  ctx.set_number("spare_cores", spares);
  ctx.set_number("enabled_share", enabled / cores);
  ctx.set_number("reserve_share", spares / cores);
  ctx.verdict("spares_cover", spares >= defective,
              fmt::format("{} spare cores against {} expected defective ({} cores x (1 - exp(-{} x {}))); the rest of the "
                          "reserve goes to routing around defects and to parametric losses",
                          ctx.quote_count(spares), ctx.quote_number(defective), ctx.quote_count(cores), per_cm2(ctx, density),
                          ctx.quote(core_area, "mm2")));
}

void run_chiplets(Context& ctx, PerSquareMeter density) {
  const bool regions = ctx.has("regions");
  if (ctx.has("defective") && !regions)
    throw UserError{{"--defective needs --regions", "give the dies the part is split into: --regions 4 --defective 1"}};
  if (regions && ctx.has("defective")) {
    const auto n = ctx.integer("regions");
    const auto bad = ctx.integer("defective");
    if (bad > n)
      throw UserError{{fmt::format("--defective {} exceeds --regions {}", bad, n), "at most every die can be bad"}};
    ctx.set_number("usable_dies", static_cast<double>(n - bad));
  }
  if (!ctx.has("chiplet_area")) return;
  const auto area = ctx.get<SquareMeters>("chiplet_area");
  const double lambda = chip::expected_defects(density, area);
  const double poisson = chip::poisson_yield(lambda);
  ctx.set_number("die_yield_poisson", poisson);
  ctx.set_number("die_yield_murphy", chip::murphy_yield(lambda));
  if (!regions) return;
  const auto n = static_cast<double>(ctx.integer("regions"));
  ctx.set_number("expected_good_dies", n * poisson);
  ctx.set_number("monolithic_yield", chip::poisson_yield(n * lambda));
  ctx.note(fmt::format("one die of {} at {} defect density: yield exp(-{}) = {}; one monolithic part of {} x the area "
                       "yields exp(-{}) = {}, which is why a part is split into dies tested before assembly",
                       ctx.quote(area, "mm2"), per_cm2(ctx, density), ctx.quote_number(lambda), ctx.quote_number(poisson),
                       ctx.quote_count(n), ctx.quote_number(n * lambda), ctx.quote_number(chip::poisson_yield(n * lambda))));
}

void run_wafer(Context& ctx) {
  const auto density = ctx.get<PerSquareMeter>("defect_density");
  const double cores = resolve_cores(ctx);
  run_cores(ctx, cores, density);
  if (ctx.has("memory_bandwidth")) {
    const auto wafers = static_cast<double>(ctx.integer("wafers"));
    ctx.set("system_memory_bandwidth", wafers * ctx.get<BytesPerSecond>("memory_bandwidth"));
  }
  run_chiplets(ctx, density);
}

}  // namespace

Calculator chip_wafer_calculator() {
  Calculator c;
  c.name = "wafer";
  c.summary = "wafer-scale anatomy: dies, cores, SRAM, per-core fabric bandwidth, core sparing and chiplet die yield";
  c.description =
      "dies = rows x cols (WSE: 12 x 7 = 84); cores = dies x cores per die, or --cores; SRAM = cores x SRAM per core "
      "(WSE-3: 900,000 x 48 KiB = 44.2 GB; 8 banks x 6 KiB = 48 KiB); fabric per core = aggregate / cores (26.75 PB/s / "
      "900,000 = 29.7 GB/s); system memory bandwidth = wafers x per-wafer. Defects are Poisson: a core of area A at "
      "density D is bad with probability 1 - exp(-D A) (Cerebras, Jan 2025: 0.05 mm2 cores, ~0.001 defects/mm2, "
      "970,000 physical and 900,000 enabled cores). A die of area A yields exp(-D A) (Poisson) or ((1 - exp(-D A)) / "
      "(D A))^2 (Murphy); split into N dies, one bad die leaves N - 1 usable. Ignores clustering of defects.";
  c.refs = {{"gpu", {"accelerator"}, "accelerator id: enabled cores, fabric and memory bandwidth (wse-3)"}};
  c.inputs = {
      {.name = "die_rows", .kind = InputKind::integer, .help = "rows of the die grid on the wafer", .example = "12",
       .optional = true, .most = 10'000},
      {.name = "die_cols", .kind = InputKind::integer, .help = "columns of the die grid", .example = "7", .optional = true,
       .most = 10'000},
      {.name = "cores_per_die", .kind = InputKind::integer, .help = "physical cores per die", .example = "11560",
       .optional = true},
      {.name = "cores", .kind = InputKind::integer, .help = "physical cores on the wafer (WSE-3: ~970,000)",
       .example = "970000", .optional = true},
      {.name = "enabled_cores", .kind = InputKind::integer, .help = "cores enabled after sparing (WSE-3: 900,000)",
       .example = "900000", .catalog = "gpu.compute_units", .optional = true},
      {.name = "sram_per_core", .kind = InputKind::quantity, .dim = dims::information,
       .help = "SRAM per core (WSE-3: 48 KiB, Cerebras)", .default_value = "48KiB"},
      {.name = "banks", .kind = InputKind::integer, .help = "SRAM banks per core", .example = "8", .optional = true,
       .most = 1'000'000},
      {.name = "bank_size", .kind = InputKind::quantity, .dim = dims::information, .help = "bytes per SRAM bank",
       .example = "6KiB", .optional = true},
      {.name = "fabric_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "aggregate on-wafer fabric bandwidth", .example = "214Pb/s", .catalog = "gpu.fabric_bandwidth",
       .optional = true},
      {.name = "memory_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "memory (SRAM) bandwidth of one wafer", .example = "21PB/s", .catalog = "gpu.memory_bandwidth",
       .optional = true},
      {.name = "wafers", .kind = InputKind::integer, .help = "wafers in the system (a rack of three CS systems: 3)",
       .default_value = "1", .most = 1'000'000},
      {.name = "defect_density", .kind = InputKind::quantity, .dim = kPerArea,
       .help = "killer defects per area (default: ~0.001/mm2, the TSMC 5 nm figure Cerebras uses)",
       .default_value = "0.1/cm2", .bound = Bound::non_negative},
      {.name = "core_area", .kind = InputKind::quantity, .dim = dims::area,
       .help = "area of one core (default: ~0.05 mm2, a WSE-3 core, Cerebras)", .default_value = "0.05mm2"},
      {.name = "chiplet_area", .kind = InputKind::quantity, .dim = dims::area, .help = "area of one die of a chiplet part",
       .example = "800mm2", .optional = true},
      {.name = "regions", .kind = InputKind::integer, .help = "dies a part is split into", .example = "4", .optional = true,
       .most = 1'000'000},
      {.name = "defective", .kind = InputKind::integer, .help = "dies found bad", .example = "1",
       .bound = Bound::non_negative, .optional = true, .most = 1'000'000},
  };
  c.outputs = {
      {"dies", dims::none, "dies in the grid"},
      {"cores", dims::none, "physical cores"},
      {"enabled_cores", dims::none, "cores enabled after sparing"},
      {"sram_per_core", dims::information, "SRAM per core", "KiB"},
      {"total_sram", dims::information, "SRAM of the enabled cores (physical when enabled is unknown)", "GB"},
      {"fabric_per_core", dims::data_rate, "fabric bandwidth per core: aggregate / cores", "GB/s"},
      {"system_memory_bandwidth", dims::data_rate, "memory bandwidth of all wafers", "PB/s"},
      {"expected_defects", dims::none, "expected defects on the cores' silicon: D x cores x core area"},
      {"defective_cores", dims::none, "expected defective cores: cores x (1 - exp(-D x core area))"},
      {"core_yield", dims::none, "share of cores without a defect"},
      {"spare_cores", dims::none, "physical - enabled cores"},
      {"enabled_share", dims::none, "enabled / physical cores"},
      {"reserve_share", dims::none, "1 - enabled share"},
      {"usable_dies", dims::none, "dies left when the defective ones are set aside: regions - defective"},
      {"die_yield_poisson", dims::none, "die yield exp(-D A)"},
      {"die_yield_murphy", dims::none, "die yield ((1 - exp(-D A)) / (D A))^2"},
      {"expected_good_dies", dims::none, "regions x Poisson die yield"},
      {"monolithic_yield", dims::none, "Poisson yield of one die of regions x chiplet area"},
  };
  c.run = run_wafer;
  c.source = __FILE__;
  c.verdicts = {
      {"spares_cover", "the spare cores cover the expected defective cores"},
  };
  return c;
}

}  // namespace infracalc
