// `network scaleup`: a switched scale-up domain such as the GB200 NVL72: switch chips and trays from the GPUs'
// links and the chips' ports, and the domain's bandwidth per GPU, per chip and in all.
#include <fmt/format.h>

#include "host/words.hpp"
#include "plugins/network/network_calculators.hpp"
#include "plugins/network/network_common.hpp"
#include "units/format.hpp"

namespace infracalc::net {

namespace {

void run_scaleup(Context& ctx) {
  std::vector<std::string> notes;
  const std::int64_t gpus = ctx.integer("gpus");
  Maybe<BytesPerSecond> per_link;
  std::int64_t links = 0;
  if (ctx.has("link")) {
    const LinkSpec s = link_from_text(ctx, ctx.text("link"), "--link", notes);
    per_link.set(link_rates(s).link_data);
    links = static_cast<std::int64_t>(s.links);
  }
  if (ctx.has("links_per_gpu")) links = ctx.integer("links_per_gpu");
  if (ctx.has("link_bandwidth")) per_link.set(ctx.get<BytesPerSecond>("link_bandwidth"));
  if (links < 1) throw UserError{{"network scaleup: links per GPU unknown", "give --links-per-gpu 18 or --link nvlink-5"}};
  if (!per_link) throw UserError{{"network scaleup: link bandwidth unknown", "give --link-bandwidth 50GB/s (one link, one direction) or --link ID"}};
  std::int64_t ports = 0;
  if (ctx.has("switch")) {
    const Entry& sw = find_entry(ctx.text("switch"), {"network"}, "--switch");
    if (auto p = catalog_count(ctx, sw, "ports")) ports = static_cast<std::int64_t>(*p);
  }
  if (ctx.has("switch_ports")) ports = ctx.integer("switch_ports");
  if (ports < 1) throw UserError{{"network scaleup: switch ports unknown", "give --switch-ports 72 or --switch ID"}};
  const std::int64_t per_tray = ctx.integer("chips_per_tray");

  const std::int64_t gpu_links = gpus * links;
  const std::int64_t chips = ceil_div(gpu_links, ports);
  const std::int64_t trays = ceil_div(chips, per_tray);
  ctx.set_number("gpu_links", static_cast<double>(gpu_links));
  ctx.set_number("switch_chips", static_cast<double>(chips));
  ctx.set_number("switch_trays", static_cast<double>(trays));
  ctx.set_number("switch_ports_total", static_cast<double>(chips * ports));
  ctx.set_number("switch_ports_used", static_cast<double>(gpu_links));
  const BytesPerSecond gpu_dir = *per_link * static_cast<double>(links);
  ctx.set("per_gpu_per_direction", gpu_dir);
  ctx.set("per_gpu_both", gpu_dir * 2.0);
  ctx.set("aggregate_per_direction", gpu_dir * static_cast<double>(gpus));
  ctx.set("aggregate_both", gpu_dir * 2.0 * static_cast<double>(gpus));
  ctx.set("per_chip_per_direction", *per_link * static_cast<double>(ports));
  ctx.set("per_chip_both", *per_link * 2.0 * static_cast<double>(ports));
  ctx.set("bisection", gpu_dir * (static_cast<double>(gpus / 2)));
  const bool even = links % chips == 0;
  if (even) ctx.set_number("links_per_gpu_per_chip", static_cast<double>(links / chips));
  ctx.verdict("one_hop_all_to_all", even,
              even ? fmt::format("each GPU has {} to every one of the {}: any GPU reaches any other through one chip "
                                 "at full rate", plural(links / chips, "link"), plural(chips, "switch chip"))
                   : fmt::format("{} per GPU do not spread evenly over {}", plural(links, "link"), plural(chips, "chip")));
  if (gpu_links % ports != 0)
    notes.push_back(fmt::format("switch chips rounded up: {} GPU links need {} ports, {} chips offer {}", gpu_links, gpu_links, chips,
                                chips * ports));
  notes.push_back(fmt::format("switch chips = {} GPUs x {} links / {} ports = {} (the fewest with enough ports; a vendor may use "
                              "more, as HGX H100's four chips with 5+5+4+4 links per GPU); trays = chips / {} per tray",
                              gpus, links, ports, chips, per_tray));
  notes.push_back("NVIDIA quotes both directions added ('1.8 TB/s per GPU', '130 TB/s per NVL72'); per direction is half");
  for (auto& n : notes) ctx.note(std::move(n));
}

}  // namespace

Calculator make_scaleup_calculator() {
  Calculator c;
  c.name = "scaleup";
  c.summary = "switched scale-up domain (NVL72): switch chips and trays, links, bandwidth per GPU, per chip and in all";
  c.description =
      "GPU links = GPUs x links per GPU; switch chips = ceil(GPU links / ports per chip) (NVL72: 72 x 18 / 72 = 18 chips, 9 "
      "trays of 2); per GPU = links x link rate (18 x 50 GB/s = 900 GB/s each way, 1.8 TB/s both); per chip = ports x link "
      "rate (72 x 50 GB/s = 3.6 TB/s each way, 7.2 TB/s both); aggregate = GPUs x per GPU (129.6 TB/s both); bisection = "
      "GPUs/2 x per GPU, one direction.";
  c.refs = {{"system", {"system"}, "rack system from the catalog (gb200-nvl72): domain size, link, switch, chips per tray"}};
  c.inputs = {
      {.name = "gpus", .kind = InputKind::integer, .help = "GPUs in the scale-up domain", .example = "72", .catalog = "system.scaleup_domain"},
      {.name = "link", .kind = InputKind::text, .help = "scale-up link id (nvlink-5): links per GPU and link rate", .example = "nvlink-5",
       .catalog = "system.scaleup_interconnect", .optional = true},
      {.name = "links_per_gpu", .kind = InputKind::integer, .help = "links from each GPU (overrides --link)", .example = "18",
       .optional = true},
      {.name = "link_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "one link, one direction (overrides --link)",
       .example = "50GB/s", .optional = true},
      {.name = "switch", .kind = InputKind::text, .help = "switch chip id: ports per chip", .example = "nvswitch-gen4",
       .catalog = "system.switch", .optional = true},
      {.name = "switch_ports", .kind = InputKind::integer, .help = "ports per switch chip (overrides --switch)", .example = "72",
       .optional = true},
      {.name = "chips_per_tray", .kind = InputKind::integer, .help = "switch chips per switch tray", .default_value = "2",
       .catalog = "system.switch_chips_per_tray"},
  };
  c.outputs = {
      {"gpu_links", dims::none, "GPUs x links per GPU"},
      {"switch_chips", dims::none, "switch chips (rounded up)"},
      {"switch_trays", dims::none, "switch trays (rounded up)"},
      {"switch_ports_total", dims::none, "ports on all switch chips"},
      {"switch_ports_used", dims::none, "ports the GPU links use"},
      {"links_per_gpu_per_chip", dims::none, "links from each GPU to each chip"},
      {"per_gpu_per_direction", dims::data_rate, "one GPU, one direction", "B/s"},
      {"per_gpu_both", dims::data_rate, "one GPU, both directions added", "B/s"},
      {"aggregate_per_direction", dims::data_rate, "all GPUs, one direction", "B/s"},
      {"aggregate_both", dims::data_rate, "all GPUs, both directions added", "B/s"},
      {"per_chip_per_direction", dims::data_rate, "one switch chip, one direction", "B/s"},
      {"per_chip_both", dims::data_rate, "one switch chip, both directions added", "B/s"},
      {"bisection", dims::data_rate, "half the GPUs to the other half, one direction", "B/s"},
  };
  c.run = run_scaleup;
  c.source = __FILE__;
  c.verdicts = {
      {"one_hop_all_to_all", "every GPU reaches every other through one switch chip"},
  };
  return c;
}

}  // namespace infracalc::net
