// `network optics`: WDM lanes per fibre, photonic I/O channel arithmetic, ring-modulator thermal budget, and the
// fibre count behind a switch's optical ports.
#include <fmt/format.h>

#include "plugins/network/network_calculators.hpp"
#include "plugins/network/network_common.hpp"
#include "units/format.hpp"

namespace infracalc::net {

namespace {

void run_optics(Context& ctx) {
  std::vector<std::string> notes;
  bool any = false;
  if (ctx.has("wavelengths") || ctx.has("wavelength_rate")) {
    if (!ctx.has("wavelengths") || !ctx.has("wavelength_rate"))
      throw UserError{{"per-fibre WDM rate needs --wavelengths and --wavelength-rate", "e.g. --wavelengths 8 --wavelength-rate 50Gb/s"}};
    const BytesPerSecond f = ctx.get<BytesPerSecond>("wavelength_rate") * static_cast<double>(ctx.integer("wavelengths"));
    ctx.set("per_fiber", f);
    notes.push_back("per fibre = wavelengths x rate per wavelength, one direction on that fibre");
    any = true;
  }
  if (ctx.has("channels") || ctx.has("channel_rate")) {
    if (!ctx.has("channels") || !ctx.has("channel_rate"))
      throw UserError{{"channel arithmetic needs --channels and --channel-rate", "e.g. --channels 1024 --channel-rate 56Gb/s"}};
    const BytesPerSecond dir = ctx.get<BytesPerSecond>("channel_rate") * static_cast<double>(ctx.integer("channels"));
    ctx.set("per_direction", dir);
    ctx.set("both_directions", dir * 2.0);
    if (ctx.has("fibers")) ctx.set("per_fiber_both", dir * 2.0 / static_cast<double>(ctx.integer("fibers")));
    notes.push_back("channels carry their rate in each direction: total (both directions) = 2 x channels x rate");
    any = true;
  }
  if (ctx.has("channel_spacing") || ctx.has("ring_drift")) {
    if (!ctx.has("channel_spacing") || !ctx.has("ring_drift"))
      throw UserError{{"the thermal budget needs --channel-spacing and --ring-drift", "e.g. --channel-spacing 0.8nm --ring-drift 0.1nm/K"}};
    const Kelvin dt = ctx.get<Meters>("channel_spacing") / ctx.get<MetersPerKelvin>("ring_drift");
    ctx.set("thermal_shift_one_channel", dt);
    ctx.set("thermal_budget_half_channel", dt / 2.0);
    notes.push_back("a ring resonator drifting by the channel spacing lands on its neighbour's wavelength; half of that already "
                    "puts it between channels, so rings need active heater control");
    any = true;
  }
  if (ctx.has("ports") && ctx.has("port_speed")) {
    const auto ports = static_cast<double>(ctx.integer("ports"));
    ctx.set("switch_capacity", ctx.get<BytesPerSecond>("port_speed") * ports);
    ctx.set_number("fibers", ports * static_cast<double>(ctx.integer("fibers_per_port")));
    notes.push_back(fmt::format("fibres = ports x {} per port (a duplex FR4 port uses 2; a DR4 port uses 8)", ctx.integer("fibers_per_port")));
    any = true;
  }
  if (!any)
    throw UserError{{"network optics: nothing to compute",
                     "give --wavelengths and --wavelength-rate, --channels and --channel-rate, --channel-spacing and --ring-drift, "
                     "or --ports and --port-speed"}};
  for (auto& n : notes) ctx.note(std::move(n));
}

}  // namespace

Calculator make_optics_calculator() {
  Calculator c;
  c.name = "optics";
  c.summary = "WDM rate per fibre, photonic channel totals, ring-modulator thermal budget, fibres behind optical ports";
  c.description =
      "per fibre = wavelengths x rate per wavelength (8 x 50G = 400G); channel totals = channels x rate per direction, doubled "
      "for both directions (1,024 x 56 Gb/s = 57.3 Tb/s each way, 114.7 Tb/s both); temperature that shifts a ring by one "
      "channel = channel spacing / drift (0.8 nm / 0.1 nm/K = 8 K); switch capacity = ports x port speed, fibres = ports x "
      "fibres per port.";
  c.inputs = {
      {.name = "wavelengths", .kind = InputKind::integer, .help = "WDM wavelengths (lanes) per fibre", .example = "8", .optional = true},
      {.name = "wavelength_rate", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "data rate per wavelength",
       .example = "50Gb/s", .optional = true},
      {.name = "channels", .kind = InputKind::integer, .help = "serial optical channels (each carries its rate in each direction)",
       .example = "1024", .optional = true},
      {.name = "channel_rate", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "rate of one channel, one direction",
       .example = "56Gb/s", .optional = true},
      {.name = "fibers", .kind = InputKind::integer, .help = "fibres the channels share", .example = "256", .optional = true},
      {.name = "channel_spacing", .kind = InputKind::quantity, .dim = dims::length, .help = "WDM channel spacing (0.8 nm ~ 100 GHz grid)",
       .example = "0.8nm", .optional = true},
      {.name = "ring_drift", .kind = InputKind::quantity, .dim = dims::length_per_temperature,
       .help = "resonance drift of a silicon ring modulator per kelvin", .example = "0.1nm/K", .optional = true},
      {.name = "ports", .kind = InputKind::integer, .help = "optical ports of a switch", .example = "128", .optional = true},
      {.name = "port_speed", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "rate of one optical port", .example = "400Gb/s",
       .optional = true},
      {.name = "fibers_per_port", .kind = InputKind::integer, .help = "fibres per optical port (duplex FR4: 2, DR4: 8)",
       .default_value = "2"},
  };
  c.outputs = {
      {"per_fiber", dims::data_rate, "wavelengths x rate per wavelength", "b/s"},
      {"per_direction", dims::data_rate, "channels x channel rate, one direction", "b/s"},
      {"both_directions", dims::data_rate, "both directions added", "b/s"},
      {"per_fiber_both", dims::data_rate, "both directions / fibres", "b/s"},
      {"thermal_shift_one_channel", dims::temperature, "temperature change that moves a ring by one channel"},
      {"thermal_budget_half_channel", dims::temperature, "temperature change that moves it half a channel"},
      {"switch_capacity", dims::data_rate, "ports x port speed, one direction", "b/s"},
      {"fibers", dims::none, "ports x fibres per port"},
  };
  c.run = run_optics;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc::net
