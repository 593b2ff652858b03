// `kv ladder`: the memory and storage ladder an accelerator sees, on-chip SRAM to network storage, with each rung's
// capacity, bandwidth and latency against the rung above, and the CXL latency budget. The source documents' rules
// of thumb ("each tier ~10x less bandwidth than the one above", "each rung ~10-100x larger and slower") are checked
// against the figures rather than assumed.
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "host/context.hpp"
#include "plugins/kv/kv_calculators.hpp"
#include "plugins/kv/kv_offload.hpp"
#include "plugins/kv/kv_tier_inputs.hpp"
#include "units/format.hpp"

namespace infracalc::kv {

namespace {

// "Fits the rule": a step between 3x and 30x counts as "about 10x" (half an order of magnitude either way).
constexpr double kAboutTenLow = 3, kAboutTenHigh = 30;

Tier rung(Context& ctx, const std::string& name) {
  return {name, ctx.get<Bytes>(name + "_capacity"), ctx.get<BytesPerSecond>(name + "_bandwidth"), ctx.get<Seconds>(name + "_latency")};
}

void run_ladder(Context& ctx) {
  note_device_memory(ctx, "hbm_capacity");
  // The CXL budget: a CXL.mem read is a DDR read behind the device's controller and the link's retimers.
  const Seconds ddr = ctx.get<Seconds>("dram_latency");
  const Seconds budget = ddr + ctx.get<Seconds>("cxl_controller_adder") + static_cast<double>(ctx.count("retimers")) * ctx.get<Seconds>("retimer_adder");
  ctx.set("cxl_latency_budget", budget);
  const Seconds cxl = ctx.has("cxl_latency") ? ctx.get<Seconds>("cxl_latency") : budget;
  ctx.set("cxl_latency", cxl);

  std::vector<Tier> rungs = {rung(ctx, "sram"), rung(ctx, "hbm"), rung(ctx, "dram"),
                             {"cxl", ctx.get<Bytes>("cxl_capacity"), ctx.get<BytesPerSecond>("cxl_bandwidth"), cxl},
                             rung(ctx, "nvme"), rung(ctx, "network")};
  Table t{"ladder", "each rung against the one above: capacity and latency grow by, bandwidth falls by",
          {{"rung"},
           {"capacity", dims::information},
           {"bandwidth", dims::data_rate},
           {"latency", dims::time},
           {"capacity_x", dims::none, "x"},
           {"bandwidth_drop", dims::none, "x"},
           {"latency_x", dims::none, "x"}},
          {}};
  int about_ten = 0, slower = 0;
  std::vector<std::string> faster;
  for (std::size_t i = 0; i < rungs.size(); ++i) {
    const Tier& r = rungs[i];
    std::vector<Cell> row = {r.name, to_quantity(r.capacity), to_quantity(r.bandwidth), to_quantity(r.latency)};
    if (i == 0) {
      for (int k = 0; k < 3; ++k) row.emplace_back(std::string("-"));
    } else {
      const Tier& up = rungs[i - 1];
      const double drop = (up.bandwidth / r.bandwidth).value(), lat = (r.latency / up.latency).value();
      row.push_back(Quantity::number((r.capacity / up.capacity).value()));
      row.push_back(Quantity::number(drop));
      row.push_back(Quantity::number(lat));
      if (drop >= kAboutTenLow && drop <= kAboutTenHigh) ++about_ten;
      if (lat > 1) ++slower;
      else faster.push_back(fmt::format("{} ({} after {}'s {})", r.name, ctx.quote(r.latency), up.name, ctx.quote(up.latency)));
    }
    t.rows.push_back(std::move(row));
  }
  ctx.add_table(std::move(t));
  const auto by = [&](const char* a, const char* b) {
    const auto find = [&](const char* n) -> const Tier& {
      for (const auto& r : rungs)
        if (r.name == n) return r;
      throw std::logic_error(n);
    };
    return (find(a).latency / find(b).latency).value();
  };
  ctx.set_number("hbm_vs_dram_latency", by("hbm", "dram"));
  ctx.set_number("cxl_vs_dram_latency", by("cxl", "dram"));
  ctx.set_number("nvme_vs_cxl_latency", by("nvme", "cxl"));
  const int steps = static_cast<int>(rungs.size()) - 1;
  ctx.note(fmt::format("bandwidth: {} of {} steps fall by 3-30x (\"each tier ~10x less bandwidth than the one above\" holds for those only)",
                       about_ten, steps));
  ctx.note(fmt::format("latency: {} of {} steps are slower than the rung above{}", slower, steps,
                       faster.empty() ? std::string() : fmt::format("; faster than the rung above: {} (the \"each rung slower\" ladder holds for capacity, not latency)",
                                                                    fmt::join(faster, ", "))));
  ctx.note(fmt::format("CXL latency budget: {} DDR + {} controller + {} x {} retimer = {}{}", ctx.quote(ddr),
                       ctx.quote(ctx.get<Seconds>("cxl_controller_adder")), ctx.count("retimers"),
                       ctx.quote(ctx.get<Seconds>("retimer_adder")), ctx.quote(budget),
                       ctx.has("cxl_latency") ? "; the ladder uses --cxl-latency " + ctx.quote(cxl) : std::string()));
  ctx.note("latency is the medium's access latency; an accelerator reaches host DRAM, CXL memory and NVMe over PCIe, whose round "
           "trip (about 1 us) comes on top (kv offload says so); defaults describe one H100-class GPU and are sourced in docs/kv.md");
}

}  // namespace

Calculator ladder_calculator() {
  Calculator c;
  c.name = "ladder";
  c.summary = "the memory ladder SRAM, HBM, DRAM, CXL, NVMe, network storage: capacity, bandwidth, latency and each rung's ratio to the one above";
  c.description =
      "One row per rung as one accelerator sees it: capacity, bandwidth and access latency, and against the rung above how many "
      "times the capacity and latency grow and the bandwidth falls. The CXL rung's latency is the budget ddr_latency + "
      "controller_adder + retimers x retimer_adder unless --cxl-latency is given. Also hbm / ddr and nvme / cxl latency. "
      "Defaults: an H100 SXM (or --gpu), the kv offload tiers, Llama 3's storage share per GPU.";
  c.refs = {{"gpu", {"accelerator"}, "accelerator from the catalog: sets the SRAM and HBM rungs"}};
  c.inputs = {
      {.name = "sram_capacity", .kind = InputKind::quantity, .dim = dims::information, .help = "on-chip SRAM or last-level cache",
       .default_value = "50 MB", .example = "230MB", .catalog = "gpu.sram"},
      {.name = "sram_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "on-chip SRAM (L2) bandwidth",
       .default_value = "5.5 TB/s", .example = "80TB/s", .catalog = "gpu.sram_bandwidth"},
      {.name = "sram_latency", .kind = InputKind::quantity, .dim = dims::time, .help = "on-chip SRAM (L2 hit) latency", .default_value = "200 ns",
       .example = "30ns"},
  };
  for (auto& in : tier_inputs()) {
    if (in.name == "hbm_reserved") continue;
    if (in.name == "cxl_latency") {
      in.help = "CXL memory access latency (default: the budget dram_latency + cxl_controller_adder + retimers x retimer_adder)";
      in.default_value = {};
      in.optional = true;
    }
    c.inputs.push_back(in);
  }
  c.inputs.push_back({.name = "cxl_controller_adder", .kind = InputKind::quantity, .dim = dims::time,
                      .help = "latency the CXL memory controller adds to a DDR read", .default_value = "100 ns", .example = "150ns",
                      .bound = Bound::non_negative});
  c.inputs.push_back({.name = "retimers", .kind = InputKind::integer, .help = "CXL retimers on the path", .default_value = "0", .example = "1",
                      .bound = Bound::non_negative, .most = 16, .most_why = "a PCIe 5.0 link allows two retimers; 16 is far beyond any topology"});
  c.inputs.push_back({.name = "retimer_adder", .kind = InputKind::quantity, .dim = dims::time, .help = "latency each retimer adds",
                      .default_value = "30 ns", .example = "40ns", .bound = Bound::non_negative});
  c.inputs.push_back({.name = "network_capacity", .kind = InputKind::quantity, .dim = dims::information,
                      .help = "network storage reachable (shared by the whole cluster)", .default_value = "240 PB", .example = "10PB"});
  c.inputs.push_back({.name = "network_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
                      .help = "network storage bandwidth per accelerator (the system's sustained rate / accelerators)", .default_value = "122 MB/s",
                      .example = "1GB/s"});
  c.inputs.push_back({.name = "network_latency", .kind = InputKind::quantity, .dim = dims::time, .help = "network storage read latency",
                      .default_value = "1 ms", .example = "500us"});
  c.outputs = {
      {"cxl_latency_budget", dims::time, "dram_latency + cxl_controller_adder + retimers x retimer_adder"},
      {"cxl_latency", dims::time, "the CXL rung's latency: --cxl-latency, or the budget"},
      {"hbm_vs_dram_latency", dims::none, "HBM latency / DDR latency"},
      {"cxl_vs_dram_latency", dims::none, "CXL latency / DDR latency"},
      {"nvme_vs_cxl_latency", dims::none, "NVMe latency / CXL latency"},
  };
  c.run = run_ladder;
  c.source = __FILE__;
  c.tables = {
      {"ladder", "each memory tier against the one above: capacity and latency grow, bandwidth falls"},
  };
  return c;
}

}  // namespace infracalc::kv
