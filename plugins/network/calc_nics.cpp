// `network nics`: scale-out NIC bandwidth per node and per GPU against the scale-up domain, and what a NIC's line
// rate asks of packet handling and host crypto.
#include <cmath>
#include <fmt/format.h>

#include "plugins/network/network_calculators.hpp"
#include "plugins/network/network_common.hpp"
#include "units/format.hpp"

namespace infracalc::net {

namespace {

void run_nics(Context& ctx) {
  std::vector<std::string> notes;
  const std::int64_t nics = ctx.integer("nics");
  const BytesPerSecond speed = ctx.get<BytesPerSecond>("nic_speed");
  const std::int64_t gpus = ctx.integer("gpus_per_node");
  const BytesPerSecond node = speed * static_cast<double>(nics);
  ctx.set("aggregate", node);
  ctx.set("aggregate_bytes", node);
  ctx.set("aggregate_both", node * 2.0);
  ctx.set("per_gpu", node / static_cast<double>(gpus));
  notes.push_back(fmt::format("{} NICs x {} = {} per direction ({})", nics, ctx.quote(speed, "b/s"),
                              ctx.quote(node, "b/s"), ctx.quote(node, "B/s")));

  // The scale-up domain per GPU, one direction: from a link id (links x link rate) or given directly.
  Maybe<BytesPerSecond> up;
  if (ctx.has("scaleup_per_direction")) {
    up.set(ctx.get<BytesPerSecond>("scaleup_per_direction"));
  } else if (ctx.has("scaleup_link")) {
    const LinkSpec s = link_from_text(ctx, ctx.text("scaleup_link"), "--scaleup-link", notes);
    up.set(link_rates(s).per_direction);
    notes.push_back(fmt::format("scale-up per GPU: {} = {} links x {} per direction", s.id, s.links,
                                ctx.quote(link_rates(s).link_data, "B/s")));
  }
  if (up) {
    ctx.set("scaleup_per_gpu", *up);
    ctx.set("scaleup_per_node", *up * static_cast<double>(gpus));
    ctx.set_number("scaleup_to_scaleout", ratio(*up * static_cast<double>(gpus), node));
    notes.push_back("scale-up vs scale-out compares one direction with one direction; a tensor-parallel group inside the "
                    "scale-up domain sees the larger figure, traffic leaving it the smaller");
  }

  if (ctx.has("packet_size")) {
    const Bytes pkt = ctx.get<Bytes>("packet_size");
    const PerSecond rate = speed / pkt;
    ctx.set("packet_rate", rate);
    ctx.set("packet_time", pkt / speed);
    ctx.set("packet_rate_node", rate * static_cast<double>(nics));
    notes.push_back("packet rate = line rate / packet size (frame overheads, preamble and gaps ignored); shown per second");
  }
  if (ctx.has("crypto_per_core")) {
    const BytesPerSecond core = ctx.get<BytesPerSecond>("crypto_per_core");
    const double need = ratio(speed, core);
    ctx.set_number("crypto_cores", std::ceil(need - 1e-9));
    ctx.set_number("crypto_cores_node", std::ceil(need * static_cast<double>(nics) - 1e-9));
    notes.push_back(fmt::format("host cores to encrypt one NIC at line rate = {} / {} = {}, rounded up to whole cores",
                                ctx.quote(speed, "B/s"), ctx.quote(core, "B/s"),
                                format_number(need, 4)));
  }
  for (auto& n : notes) ctx.note(std::move(n));
}

}  // namespace

Calculator make_nics_calculator() {
  Calculator c;
  c.name = "nics";
  c.summary = "scale-out NIC bandwidth per node and per GPU vs the scale-up domain; packet rate and crypto cores at line rate";
  c.description =
      "aggregate = NICs x NIC speed, one direction (eight 400G NICs = 3.2 Tb/s = 400 GB/s); per GPU = aggregate / GPUs per "
      "node. Scale-up per GPU comes from a link id (links x link payload, one direction) or is given; the ratio compares the "
      "node's scale-up with its scale-out, one direction each. Packet rate = NIC speed / packet size; crypto cores = NIC "
      "speed / per-core cipher throughput, rounded up.";
  c.refs = {{"system", {"system"}, "system from the catalog: NICs per node, NIC speed, GPUs per node"}};
  c.inputs = {
      {.name = "nics", .kind = InputKind::integer, .help = "scale-out NICs (ports) per node", .example = "8", .catalog = "system.nics_per_node"},
      {.name = "nic_speed", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "line rate of one NIC port, one direction",
       .example = "400Gb/s", .catalog = "system.nic_speed"},
      {.name = "gpus_per_node", .kind = InputKind::integer, .help = "GPUs per node", .default_value = "8",
       .catalog = "system.accelerators_per_node"},
      {.name = "scaleup_link", .kind = InputKind::text, .help = "scale-up link id per GPU (nvlink-4 = 18 links x 25 GB/s each way)",
       .example = "nvlink-4", .optional = true},
      {.name = "scaleup_per_direction", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "scale-up bandwidth of one GPU, one direction (overrides --scaleup-link)", .example = "450GB/s", .optional = true},
      {.name = "packet_size", .kind = InputKind::quantity, .dim = dims::information, .help = "packet (MTU) size for the packet rate",
       .example = "4096B", .optional = true},
      {.name = "crypto_per_core", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "cipher throughput of one host CPU core (AES-GCM)", .example = "5GB/s", .optional = true},
  };
  c.outputs = {
      {"aggregate", dims::data_rate, "NICs x NIC speed, one direction, shown in Gb/s (bits)", "b/s"},
      {"aggregate_bytes", dims::data_rate, "the same, shown in bytes (GB/s)", "B/s"},
      {"aggregate_both", dims::data_rate, "both directions added, shown in bytes (GB/s)", "B/s"},
      {"per_gpu", dims::data_rate, "scale-out bandwidth per GPU, one direction", "b/s"},
      {"scaleup_per_gpu", dims::data_rate, "scale-up bandwidth per GPU, one direction", "B/s"},
      {"scaleup_per_node", dims::data_rate, "scale-up bandwidth of the node's GPUs, one direction", "B/s"},
      {"scaleup_to_scaleout", dims::none, "scale-up / scale-out bandwidth of the node, one direction each"},
      {"packet_rate", dims::frequency, "packets per second one NIC carries at line rate"},
      {"packet_time", dims::time, "time on the wire of one packet"},
      {"packet_rate_node", dims::frequency, "packets per second for all the node's NICs"},
      {"crypto_cores", dims::none, "host cores to encrypt one NIC's line rate (rounded up)"},
      {"crypto_cores_node", dims::none, "host cores to encrypt all the node's NICs (rounded up)"},
  };
  c.run = run_nics;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc::net
