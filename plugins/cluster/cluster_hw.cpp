#include "plugins/cluster/cluster_hw.hpp"

#include <fmt/format.h>

#include "host/catalog_input.hpp"

namespace infracalc::cluster {

std::vector<CatalogRef> hardware_refs() {
  return {{"gpu", {"accelerator"}, "accelerator id: memory, dense peak at --precision, scale-up link"},
          {"system", {"system"}, "system id: scale-up domain, accelerators per node, NVLink/ICI and NIC bandwidth per accelerator"}};
}

Input precision_input() {
  return {.name = "precision", .kind = InputKind::choice,
          .help = "training precision: picks the accelerator's dense peak (peak.<precision>_dense)", .default_value = "bf16",
          .choices = {"bf16", "fp16", "fp8", "tf32", "fp4", "mxfp8", "mxfp4", "nvfp4"}};
}

std::vector<Input> hardware_inputs() {
  return {
      {.name = "memory", .kind = InputKind::quantity, .dim = dims::information,
       .help = "memory per accelerator (default: --gpu memory_capacity)", .example = "80GB", .optional = true},
      {.name = "peak", .kind = InputKind::quantity, .dim = dims::flop_rate,
       .help = "dense peak of one accelerator at the training precision (default: --gpu peak.<precision>_dense)",
       .example = "989TFLOP/s", .optional = true},
      {.name = "scaleup_domain", .kind = InputKind::integer,
       .help = "accelerators in one scale-up (NVLink/ICI) domain (default: --system scaleup_domain)", .example = "8",
       .optional = true},
      {.name = "gpus_per_node", .kind = InputKind::integer, .help = "accelerators per node (default: --system accelerators_per_node)",
       .example = "8", .optional = true},
      {.name = "scaleup_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "scale-up bandwidth of one accelerator, one direction (default: its scale-up interconnect's bandwidth_per_direction)",
       .example = "450GB/s", .optional = true},
      {.name = "scaleout_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "scale-out (NIC) bandwidth of one accelerator, one direction (default: --system nic_speed x nics_per_node / "
               "accelerators_per_node)",
       .example = "50GB/s", .optional = true},
  };
}

std::optional<FlopsPerSecond> catalog_peak(Context& ctx, const Entry& gpu, const std::string& precision) {
  return ctx.catalog<FlopsPerSecond>(gpu, "peak." + precision + "_dense");
}

namespace {

std::optional<int> catalog_count(Context& ctx, const Entry& e, std::string_view path) {
  auto q = ctx.catalog<Number>(e, path);
  if (!q) return std::nullopt;
  return static_cast<int>(q->value());
}

// The scale-up link's per-direction bandwidth from its interconnect file, when the entry names one.
std::optional<BytesPerSecond> link_per_direction(Context& ctx, const Entry& e, std::string* type) {
  auto id = ctx.catalog_text(e, "scaleup_interconnect");
  if (!id) return std::nullopt;
  const Entry* link = Catalog::instance().find(*id);
  if (link == nullptr) return std::nullopt;
  if (auto t = link->text("type")) *type = *t;
  return ctx.catalog<BytesPerSecond>(*link, "bandwidth_per_direction");
}

}  // namespace

Hardware resolve_hardware(Context& ctx) {
  Hardware hw;
  hw.gpu = ctx.ref("gpu");
  hw.system = ctx.ref("system");
  if (hw.system != nullptr && hw.gpu == nullptr) {
    if (auto acc = hw.system->text("accelerator")) hw.gpu = &Catalog::instance().get(*acc, {"accelerator"}, "--system accelerator");
  }
  if (hw.system == nullptr && hw.gpu != nullptr) {
    // The accelerator file has no domain size; the catalog system that carries this accelerator does.
    for (const Entry* s : Catalog::instance().all("system")) {
      auto acc = s->text("accelerator");
      auto type = s->text("type");
      if (acc && *acc == hw.gpu->id() && type && *type == "node") {
        hw.system = s;
        ctx.note(fmt::format("scale-up domain and node size from {} (the catalog node that carries {}); give --system to choose another",
                             s->id(), hw.gpu->id()));
        break;
      }
    }
  }
  if (ctx.has("memory")) hw.memory = ctx.get<Bytes>("memory");
  else if (hw.gpu) {
    if (const auto dm = device_memory_of(ctx, *hw.gpu)) hw.memory = dm->bytes;  // what software sees, else the marketed capacity
  }
  const std::string precision = ctx.has("precision") ? ctx.text("precision") : std::string("bf16");
  if (ctx.has("peak")) hw.peak = ctx.get<FlopsPerSecond>("peak");
  else if (hw.gpu) hw.peak = catalog_peak(ctx, *hw.gpu, precision);

  if (ctx.has("scaleup_domain")) hw.domain = ctx.count("scaleup_domain");
  else if (hw.system) hw.domain = catalog_count(ctx, *hw.system, "scaleup_domain").value_or(0);
  if (ctx.has("gpus_per_node")) hw.per_node = ctx.count("gpus_per_node");
  else if (hw.system) hw.per_node = catalog_count(ctx, *hw.system, "accelerators_per_node").value_or(0);
  if (hw.domain == 0 && hw.per_node > 0) hw.domain = hw.per_node;

  if (ctx.has("scaleup_bandwidth")) {
    hw.scaleup = ctx.get<BytesPerSecond>("scaleup_bandwidth");
  } else {
    for (const Entry* e : {hw.system, hw.gpu}) {
      if (e == nullptr || hw.scaleup) continue;
      hw.scaleup = link_per_direction(ctx, *e, &hw.scaleup_type);
    }
    if (!hw.scaleup) {
      // Only a combined figure in the catalog: the files note these are both directions together.
      std::optional<BytesPerSecond> both;
      if (hw.system) both = ctx.catalog<BytesPerSecond>(*hw.system, "scaleup_bandwidth_per_accelerator");
      if (!both && hw.gpu) both = ctx.catalog<BytesPerSecond>(*hw.gpu, "scaleup_bandwidth");
      if (both) {
        hw.scaleup = *both / 2.0;
        hw.scaleup_type = "ici";
        ctx.note(fmt::format("scale-up bandwidth per direction = half the catalog's {} (both directions combined)", ctx.quote(*both)));
      }
    }
  }
  if (ctx.has("scaleout_bandwidth")) {
    hw.scaleout = ctx.get<BytesPerSecond>("scaleout_bandwidth");
  } else if (hw.system) {
    auto speed = ctx.catalog<BytesPerSecond>(*hw.system, "nic_speed");
    auto nics = catalog_count(ctx, *hw.system, "nics_per_node");
    if (speed && nics && hw.per_node > 0) hw.scaleout = *speed * static_cast<double>(*nics) / static_cast<double>(hw.per_node);
  }
  return hw;
}

}  // namespace infracalc::cluster
