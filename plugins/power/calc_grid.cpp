// `power grid`: the load swing a synchronous training job puts on the grid, and the reactive-power
// and storage support sized for it.
#include <cmath>
#include <fmt/format.h>

#include "host/context.hpp"
#include "plugins/power/power_math.hpp"
#include "plugins/power/power_calculators.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

bool origin_is_default(Context& ctx, std::string_view key) { return ctx.has(key) && ctx.origin(key) == Origin::default_value; }

void run_grid(Context& ctx) {
  Watts it = from_base<Watts>(0.0);
  if (ctx.has("it_power")) {
    if (ctx.has("gpus")) throw UserError{{"give --it-power or --gpus with --gpu-power, not both", "--it-power is the whole swinging IT load"}};
    it = ctx.get<Watts>("it_power");
  } else if (ctx.has("gpus") && ctx.has("gpu_power")) {
    it = static_cast<double>(ctx.integer("gpus")) * ctx.get<Watts>("gpu_power");
    ctx.note("--gpus x --gpu-power counts the accelerators only; their hosts and fabric swing less and are left out");
  } else {
    throw UserError{{"power grid: no load: give --it-power, or --gpus with --gpu-power (or --gpu ID)", "e.g. --it-power 1GW"}};
  }
  const Number low = Number::from_value(ctx.number("low_fraction"));
  const Number high = Number::from_value(ctx.number("high_fraction"));
  if (!(low < high)) throw UserError{{"--low-fraction must be below --high-fraction", "e.g. --low-fraction 30% --high-fraction 100%"}};
  const Seconds ramp = ctx.get<Seconds>("ramp_time");
  const pwr::Swing s = pwr::training_swing(it, low, high, ramp);
  ctx.set("high_load", s.high);
  ctx.set("low_load", s.low);
  ctx.set("swing", s.step);
  ctx.set("ramp_rate", s.ramp_rate);
  const double pue = ctx.number("pue");
  if (pue < 1.0) throw UserError{{"--pue is below 1", "PUE is facility / IT energy, at least 1"}};
  // Cooling plant and conversion losses follow the IT load over seconds to minutes, not milliseconds:
  // the fast step is the IT step alone, against the site's peak demand.
  const Watts site_peak = it * pue;
  ctx.set("site_peak", site_peak);
  ctx.set_number("swing_share_of_site", (s.step / site_peak).value());
  if (origin_is_default(ctx, "ramp_time"))
    ctx.note("ramp time: 20 ms, the fast end of the tens of milliseconds reported for synchronous jobs; give --ramp-time");

  const Watts q_low = ctx.number("reactive_low") * it;
  const Watts q_high = ctx.number("reactive_high") * it;
  ctx.set("reactive_support_low", q_low);
  ctx.set("reactive_support_high", q_high);
  ctx.note(fmt::format("fast reactive support (STATCOM-class) sized at {}-{} of the MW load, the range the "
                       "sources give for a 500 MW training cluster (50-100 Mvar)",
                       ctx.quote_number(100 * ctx.number("reactive_low")), ctx.quote_percent(ctx.number("reactive_high"))));

  // Storage that holds the grid draw flat: it must absorb the whole step for as long as the low phase
  // lasts (it charges while the job waits) and deliver it back when the job resumes.
  ctx.set("storage_power", s.step);
  if (ctx.has("event_duration")) {
    const Joules e = s.step * ctx.get<Seconds>("event_duration");
    ctx.set("storage_energy", e);
    if (ctx.has("storage_unit_power") || ctx.has("storage_unit_energy")) {
      double units = 0;
      if (ctx.has("storage_unit_power")) units = std::max(units, std::ceil((s.step / ctx.get<Watts>("storage_unit_power")).value() - 1e-9));
      if (ctx.has("storage_unit_energy")) units = std::max(units, std::ceil((e / ctx.get<Joules>("storage_unit_energy")).value() - 1e-9));
      ctx.set_number("storage_units", units);
      ctx.note("storage units rounded up to whole units; the larger of the power and the energy count governs");
    }
  } else if (ctx.has("storage_unit_power")) {
    ctx.set_number("storage_units", std::ceil((s.step / ctx.get<Watts>("storage_unit_power")).value() - 1e-9));
    ctx.note("storage units sized on power alone (rounded up); give --event-duration to size the energy");
  }
  if (ctx.has("step_time")) {
    const Seconds step = ctx.get<Seconds>("step_time");
    const PerSecond f = 1.0 / step;
    ctx.set("oscillation_frequency", f);
    const double hz = f.value();
    // Electromechanical modes: inter-area 0.1-0.7 Hz, local 0.8-2 Hz (Kundur, Power System Stability and Control, 1994).
    if (hz >= 0.1 && hz <= 2.0)
      ctx.note(fmt::format("the load oscillates at {}, inside the 0.1-2 Hz band of inter-area and local "
                           "electromechanical modes: grid operators will ask for damping or smoothing",
                           ctx.quote(f, "Hz")));
  }
}

}  // namespace

Calculator power_grid_calculator() {
  Calculator c;
  c.name = "grid";
  c.summary = "load swing of a synchronous training job in MW and MW/s, reactive-power and storage support";
  c.description =
      "A synchronous job moves every accelerator between compute (high) and wait (low: checkpoint, collective, "
      "stall) together: swing = P_IT x (high - low), ramp rate = swing / ramp time. Reactive support is sized at "
      "10-20% of the MW load (50-100 Mvar for 500 MW, per the source documents); storage that keeps the grid draw "
      "flat must absorb the swing (MW) for the duration of the low phase (MWh). Facility overhead does not follow "
      "millisecond steps, so the swing is the IT step alone.";
  c.refs = {{"gpu", {"accelerator"}, "accelerator from the catalog: sets --gpu-power from its TDP"}};
  c.inputs = {
      {.name = "it_power", .kind = InputKind::quantity, .dim = dims::power, .help = "IT load of the training job at full compute",
       .example = "1GW", .optional = true},
      {.name = "gpus", .kind = InputKind::integer, .help = "accelerators in the job (instead of --it-power)", .example = "100000",
       .optional = true},
      {.name = "gpu_power", .kind = InputKind::quantity, .dim = dims::power, .help = "power of one accelerator",
       .example = "700W", .catalog = "gpu.tdp", .optional = true},
      {.name = "low_fraction", .kind = InputKind::quantity, .dim = dims::none,
       .help = "load while the job waits, as a share of full", .default_value = "30%", .bound = Bound::fraction0},
      {.name = "high_fraction", .kind = InputKind::quantity, .dim = dims::none, .help = "load while the job computes",
       .default_value = "100%", .bound = Bound::fraction},
      {.name = "ramp_time", .kind = InputKind::quantity, .dim = dims::time, .help = "how fast the load moves between the two",
       .default_value = "20ms", .example = "50ms"},
      {.name = "pue", .kind = InputKind::quantity, .dim = dims::none, .help = "PUE, for the site's peak demand",
       .default_value = "1", .example = "1.2"},
      {.name = "reactive_low", .kind = InputKind::quantity, .dim = dims::none,
       .help = "low end of fast reactive support, as a share of the MW load", .default_value = "10%", .bound = Bound::fraction},
      {.name = "reactive_high", .kind = InputKind::quantity, .dim = dims::none,
       .help = "high end of fast reactive support, as a share of the MW load", .default_value = "20%", .bound = Bound::fraction},
      {.name = "event_duration", .kind = InputKind::quantity, .dim = dims::time,
       .help = "how long a low phase lasts (a checkpoint write, a stall): sizes storage energy", .example = "5min", .optional = true},
      {.name = "storage_unit_power", .kind = InputKind::quantity, .dim = dims::power, .help = "power of one storage unit",
       .example = "1.9MW", .optional = true},
      {.name = "storage_unit_energy", .kind = InputKind::quantity, .dim = dims::energy, .help = "energy of one storage unit",
       .example = "3.9MWh", .optional = true},
      {.name = "step_time", .kind = InputKind::quantity, .dim = dims::time,
       .help = "period of the compute/communicate cycle: the oscillation frequency", .example = "2s", .optional = true},
  };
  c.outputs = {
      {"high_load", dims::power, "IT load while computing", "W"},
      {"low_load", dims::power, "IT load while waiting", "W"},
      {"swing", dims::power, "the step between the two", "W"},
      {"ramp_rate", dims::power_ramp, "swing / ramp time", "W/s"},
      {"site_peak", dims::power, "site peak demand: IT x PUE", "W"},
      {"swing_share_of_site", dims::none, "swing / site peak", "%"},
      {"reactive_support_low", dims::power, "fast reactive support, low end (Mvar)", "var"},
      {"reactive_support_high", dims::power, "fast reactive support, high end (Mvar)", "var"},
      {"storage_power", dims::power, "storage power to hold the grid draw flat: the swing", "W"},
      {"storage_energy", dims::energy, "storage energy: swing x low-phase duration"},
      {"storage_units", dims::none, "storage units needed (rounded up)"},
      {"oscillation_frequency", dims::frequency, "1 / step time", "Hz"},
  };
  c.run = run_grid;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc
