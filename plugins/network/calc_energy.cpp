// `network energy`: pJ/bit from watts and rate (and back), optics technologies, fabric watts, wire energy.
#include <fmt/format.h>

#include "plugins/network/energy_math.hpp"
#include "plugins/network/network_calculators.hpp"
#include "plugins/network/network_common.hpp"
#include "units/format.hpp"

namespace infracalc::net {

namespace {


void run_energy(Context& ctx) {
  std::vector<std::string> notes;
  Maybe<Watts> power;
  Maybe<BytesPerSecond> rate;
  Maybe<JoulesPerByte> epb;
  if (ctx.has("power")) power.set(ctx.get<Watts>("power"));
  if (ctx.has("rate")) rate.set(ctx.get<BytesPerSecond>("rate"));
  if (ctx.has("energy_per_bit")) epb.set(ctx.get<JoulesPerByte>("energy_per_bit"));
  if (ctx.has("optics")) {
    const OpticsSpec o = read_optics(ctx, find_entry(ctx.text("optics"), {"network"}, "--optics"));
    if (!power && !epb) power.set(o.power_per_port);
    if (!rate) rate.set(o.port_speed);
    notes.push_back(fmt::format("{}: {} per port at {}", o.id, ctx.quote(o.power_per_port),
                                ctx.quote(o.port_speed, "b/s")));
  }
  const int given = (power ? 1 : 0) + (rate ? 1 : 0) + (epb ? 1 : 0);
  if (given == 3)
    throw UserError{{"--power, --rate and --energy-per-bit all given: one follows from the other two", "drop one of them"}};
  if (power && rate) epb.set(energy_per_bit(*power, *rate));
  else if (epb && rate) power.set(power_at(*epb, *rate));
  else if (power && epb) rate.set(rate_at(*power, *epb));
  if (epb) ctx.set("energy_per_bit", *epb);
  if (power) ctx.set("power", *power);
  if (rate) ctx.set("rate", *rate);
  if (given == 2 || ctx.has("optics"))
    notes.push_back("energy per bit divides power by the one-direction rate (an 800G module moves 800 Gb/s each way)");

  if (ctx.has("baseline_power")) {
    if (!power || !rate) throw UserError{{"--baseline-power needs the power and rate being compared", "give --power and --rate"}};
    const Watts base = ctx.get<Watts>("baseline_power");
    ctx.set("baseline_energy_per_bit", energy_per_bit(base, *rate));
    ctx.set_number("reduction", reduction(*power, base));
    ctx.set("saving_per_port", base - *power);
    notes.push_back(fmt::format("reduction = 1 - {} / {} at the same {}", ctx.quote(*power), ctx.quote(base),
                                ctx.quote(*rate, "b/s")));
  }

  // Fabric watts: optics at every optical port end, plus switch chips or systems.
  Watts fabric{};
  bool have_fabric = false;
  const BytesPerSecond port_speed =
      ctx.has("port_speed") ? ctx.get<BytesPerSecond>("port_speed") : rate.value;
  if (ctx.has("ports")) {
    if (!epb) throw UserError{{"--ports needs the optics' energy per bit", "give --optics ID, --energy-per-bit, or --power and --rate"}};
    if (port_speed.value() <= 0) throw UserError{{"--ports needs the port speed", "give --port-speed 400Gb/s"}};
    const Watts op = optics_power(static_cast<double>(ctx.integer("ports")), *epb, port_speed);
    ctx.set("optics_power", op);
    fabric += op;
    have_fabric = true;
  }
  if (ctx.has("switches")) {
    Maybe<Watts> each;
    if (ctx.has("switch_power")) each.set(ctx.get<Watts>("switch_power"));
    else if (ctx.has("switch"))
      if (auto w = switch_power_of(ctx, find_entry(ctx.text("switch"), {"network"}, "--switch"), notes)) each.set(*w);
    if (!each) throw UserError{{"--switches needs the power of one switch", "give --switch-power 1.5kW (the catalog has none for this switch)"}};
    const Watts sp = *each * static_cast<double>(ctx.integer("switches"));
    ctx.set("switch_power", sp);
    fabric += sp;
    have_fabric = true;
  }
  if (have_fabric) ctx.set("fabric_power", fabric);

  // Optics technologies side by side at the same port count and speed.
  if (ctx.has("ports") || ctx.has("optics") || ctx.flag("technologies")) {
    Table t{"technologies", "Optics technologies (per port end; power scaled by energy per bit to the port speed)",
            {{"optics", {}, ""},
             {"power_per_port", dims::power, ""},
             {"quoted_at", dims::data_rate, "b/s"},
             {"energy_per_bit", dims::energy_per_bit, ""},
             {"power_at_port_speed", dims::power, ""},
             {"total_power", dims::power, ""}},
            {}};
    const double ports = ctx.has("ports") ? static_cast<double>(ctx.integer("ports")) : 1.0;
    const BytesPerSecond speed = port_speed.value() > 0 ? port_speed : from_base<BytesPerSecond>(100e9);
    for (const Entry* e : Catalog::instance().all("network")) {
      if (e->text("type").value_or("") != "optics") continue;
      const OpticsSpec o = read_optics(ctx, *e);
      const Watts each = power_at(o.energy_per_bit, speed);
      t.rows.push_back({o.id, to_quantity(o.power_per_port), to_quantity(o.port_speed), to_quantity(o.energy_per_bit),
                        to_quantity(each), to_quantity(each * ports)});
    }
    ctx.add_table(std::move(t));
  }

  if (ctx.has("wire_energy") || ctx.has("distance") || ctx.has("bits")) {
    if (!ctx.has("bits") || !ctx.has("wire_energy") || !ctx.has("distance"))
      throw UserError{{"on-chip wire energy needs --bits, --wire-energy and --distance", "e.g. --bits 32B --wire-energy 1pJ/bit/mm --distance 13mm"}};
    const Joules e = wire_energy(ctx.get<Bytes>("bits"), ctx.get<JoulesPerByteMeter>("wire_energy"), ctx.get<Meters>("distance"));
    ctx.set("transfer_energy", e);
    notes.push_back("wire energy = bits x energy per bit per length x distance; drivers, repeaters and routers are extra");
  } else if (ctx.has("bits") && epb) {
    ctx.set("transfer_energy", ctx.get<Bytes>("bits") * *epb);
  }
  if (given < 2 && !ctx.has("ports") && !ctx.has("switches") && !ctx.has("bits") && !ctx.has("optics"))
    throw UserError{{"network energy: nothing to compute", "give two of --power, --rate, --energy-per-bit (or --optics ID), "
                                                           "or --ports/--switches for fabric watts, or --bits/--wire-energy/--distance"}};
  for (auto& n : notes) ctx.note(std::move(n));
}

}  // namespace

Calculator make_energy_calculator() {
  Calculator c;
  c.name = "energy";
  c.summary = "energy per bit from watts and rate and back; optics and switch watts of a fabric; on-chip wire energy";
  c.description =
      "energy per bit = power / rate (rate in one direction, as module makers quote it); power = energy per bit x rate. "
      "--baseline-power gives the saving 1 - P / P_baseline at the same rate. Fabric watts = ports x energy per bit x port "
      "speed (optics at every optical port end) + switches x switch power. The technologies table puts the catalog's "
      "pluggable (DSP), linear-drive (LPO) and co-packaged (CPO) optics side by side at the same port speed. Wire energy "
      "= bits x pJ/bit/mm x distance.";
  c.inputs = {
      {.name = "power", .kind = InputKind::quantity, .dim = dims::power, .help = "power of the device or port", .example = "15W",
       .optional = true},
      {.name = "rate", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "data rate it moves, one direction",
       .example = "800Gb/s", .optional = true},
      {.name = "energy_per_bit", .kind = InputKind::quantity, .dim = dims::energy_per_bit, .help = "energy per transferred bit",
       .example = "5pJ/bit", .optional = true},
      {.name = "optics", .kind = InputKind::text,
       .help = "optics catalog id or pluggable, lpo, cpo, cpo-davisson: fills power per port and its speed",
       .example = "lpo", .optional = true},
      {.name = "baseline_power", .kind = InputKind::quantity, .dim = dims::power,
       .help = "power of the reference device at the same rate; adds the reduction", .example = "15W", .optional = true},
      {.name = "ports", .kind = InputKind::integer, .help = "optical port ends in the fabric (each end of an optical link has one)",
       .example = "4096", .optional = true},
      {.name = "port_speed", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "speed of each port for the fabric optics (default --rate)", .example = "400Gb/s", .optional = true},
      {.name = "switches", .kind = InputKind::integer, .help = "switches in the fabric", .example = "96", .optional = true},
      {.name = "switch", .kind = InputKind::text, .help = "switch catalog id: power of one switch", .example = "tomahawk-5",
       .optional = true},
      {.name = "switch_power", .kind = InputKind::quantity, .dim = dims::power, .help = "power of one switch (overrides --switch)",
       .example = "1.5kW", .optional = true},
      {.name = "bits", .kind = InputKind::quantity, .dim = dims::information, .help = "data moved (for transfer energy)",
       .example = "32B", .optional = true},
      {.name = "wire_energy", .kind = InputKind::quantity, .dim = dims::energy_per_bit_length,
       .help = "on-chip wire energy per bit per length", .example = "1pJ/bit/mm", .optional = true},
      {.name = "distance", .kind = InputKind::quantity, .dim = dims::length, .help = "wire distance travelled", .example = "13mm",
       .optional = true},
      {.name = "technologies", .kind = InputKind::flag, .help = "show the optics technologies table"},
  };
  c.outputs = {
      {"energy_per_bit", dims::energy_per_bit, "energy per bit = power / rate"},
      {"power", dims::power, "power = energy per bit x rate"},
      {"rate", dims::data_rate, "rate (one direction)", "b/s"},
      {"baseline_energy_per_bit", dims::energy_per_bit, "energy per bit of the baseline device"},
      {"reduction", dims::none, "1 - power / baseline power", "%"},
      {"saving_per_port", dims::power, "baseline power - power"},
      {"optics_power", dims::power, "ports x energy per bit x port speed"},
      {"switch_power", dims::power, "switches x power of one switch"},
      {"fabric_power", dims::power, "optics power + switch power"},
      {"transfer_energy", dims::energy, "energy to move --bits (over --distance of wire, or at --energy-per-bit)"},
  };
  c.run = run_energy;
  c.source = __FILE__;
  c.tables = {
      {"technologies", "optics technologies per port end, power scaled to the port speed"},
  };
  return c;
}

}  // namespace infracalc::net
