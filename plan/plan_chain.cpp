// The chain: which plugin calculators a plan runs, in what order, fed by which lines, and the lines that
// join them. Serving: fit → kv → decode (ceiling, prefill, operating point) → serving model → fleet →
// network fabric → power → cooling → tco → cost. Training: fit → compute (cluster train) → fleet → fabric →
// power → cooling → tco → cost train. Fine-tuning: fit finetune → fleet → fabric → power → cooling → tco →
// the job's cost. With site.climate the PUE and WUE come from cooling climate. A step whose plugin is not built
// in yet is listed with the reason and every line that needs it stays empty; it runs as soon as the plugin is
// registered.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <fmt/format.h>

#include "plan/plan_builder.hpp"
#include "plan/plan_eval.hpp"
#include "units/counts.hpp"
#include "units/format.hpp"

namespace infracalc::plan {

namespace {

std::optional<Cell> number_cell(double v) { return Cell{Quantity::number(v)}; }

// The site, the facility and the hardware around the accelerator: the inputs every plan shares.
void shared_inputs(ChainBuilder& b, const std::string& mode) {
  b.sheet("inputs");
  b.input("plan.name");
  b.input("model.id", "model");
  b.input("model.dtype");
  if (mode == "serve") b.input("model.kv_dtype");
  b.input("model.expert_dtype");
  b.input("hardware.gpu", "gpu_given");
  b.input("hardware.system");
  b.input("hardware.gpus", "gpus_given");
  b.input("hardware.gpus_per_node", "gpus_per_node_given");
  b.input("hardware.nodes_per_rack");
  b.input("hardware.gpus_per_rack", "gpus_per_rack_given");
  b.input("hardware.host_power");
  b.input("hardware.tp", "tp_given");
  b.input("hardware.idle_fraction", "idle_fraction_given");
  b.input("hardware.fabric");
  b.input("hardware.switch");
  b.input("hardware.switch_power");
  b.input("hardware.nics_per_gpu", "nics_per_gpu_given");
  b.input("hardware.oversubscription");
  b.input("hardware.host_cables");
  b.input("site.grid");
  b.input("site.tariff", "tariff_given");
  b.input("site.pue", "pue_given");
  b.input("site.efficiency");
  b.input("site.climate");
  b.input("site.climate_cooling", "climate_cooling_given");
  b.input("site.climate_water");
  b.input("site.wue", "wue_given");
  b.input("site.carbon_intensity", "carbon_given");
  b.input("site.cooling", "cooling_given");
  b.input("site.coolant");
  b.input("site.supply", "supply_given");
  b.input("site.delta_t", "delta_t_given");
  b.input("site.cdu");
  b.input("money.capex_per_gpu", "capex_given");
  b.input("money.purchase");
  b.input("money.life");
  b.input("money.sold_share");
  b.input("money.cost_of_capital");
  b.input("money.financing");
  b.input("money.maintenance");
  b.input("money.residual_value");
  b.input("money.idle_power_share", "idle_power_share_given");
  b.input("money.switch_price");
  b.input("money.transceiver_price");
  b.input("money.cable_price");
  b.input("money.rental");
  b.input("money.rental_tier");

  // Catalog values and the choices they feed: a given value wins, then the catalog, then a default.
  b.catalog_text("system_gpu", "system", "accelerator", "the system's accelerator");
  b.choice("gpu", {"gpu_given", "system_gpu"}, "", "the accelerator");
  b.catalog("gpu_memory_marketed", "gpu", "memory_capacity", dims::information, "memory per accelerator as marketed (a label)", "GB");
  b.catalog("gpu_memory_visible", "gpu", "memory_visible", dims::information, "memory per accelerator software sees (nvidia-smi / rocm-smi)",
            "GB");
  b.choice("gpu_memory", {"gpu_memory_visible", "gpu_memory_marketed"}, "",
           "memory per accelerator the plan uses: what software sees, else the marketed capacity", "GB");
  b.catalog("gpu_bandwidth", "gpu", "memory_bandwidth", dims::data_rate, "memory bandwidth per accelerator");
  b.catalog("gpu_tdp", "gpu", "tdp", dims::power, "accelerator power (TDP)", "W");
  b.catalog_text("system_type", "system", "type", "system form: node, rack or pod");
  b.catalog("system_power", "system", "power", dims::power, "rated power of the system", "kW");
  // The idle floor: the system's measured or estimated idle draw, else the accelerator's, else none.
  b.catalog("system_idle_power", "system", "idle_power", dims::power, "idle power of the system", "kW");
  b.catalog("gpu_idle_power", "gpu", "idle_power", dims::power, "idle power of the accelerator", "W");
  b.expr("idle_fraction_system", "@system_idle_power / @system_power", "the system's idle power as a share of its rated power", "%");
  b.expr("idle_fraction_gpu", "@gpu_idle_power / @gpu_tdp", "the accelerator's idle power as a share of its TDP", "%");
  b.choice("idle_fraction", {"idle_fraction_given", "idle_fraction_system", "idle_fraction_gpu"}, "0",
           "power at zero load as a share of full load (the idle floor)", "%");
  b.catalog("system_racks", "system", "racks", dims::none, "racks the system spans");
  b.catalog("system_gpus_per_node", "system", "accelerators_per_node", dims::none, "accelerators per node of the system");
  b.catalog("system_gpus_per_rack", "system", "accelerators_per_rack", dims::none, "accelerators per rack of the system");
  b.catalog("system_nics_per_node", "system", "nics_per_node", dims::none, "scale-out NICs per node of the system");
  b.catalog("scaleup_domain", "system", "scaleup_domain", dims::none, "accelerators in one scale-up (NVLink) domain");
  b.choice("gpus_per_node", {"gpus_per_node_given", "system_gpus_per_node"}, "8", "accelerators per node");
  b.expr("gpus_per_rack_nodes", "@gpus_per_node * @nodes_per_rack", "accelerators per rack: nodes per rack x accelerators per node");
  b.choice("gpus_per_rack", {"gpus_per_rack_given", "system_gpus_per_rack", "gpus_per_rack_nodes"}, "", "accelerators per rack");
  b.expr("nics_per_gpu_system", "@system_nics_per_node / @gpus_per_node", "the system's NICs per accelerator");
  b.choice("nics_per_gpu", {"nics_per_gpu_given", "nics_per_gpu_system"}, "1", "scale-out NIC ports per accelerator");
  b.catalog("grid_tariff", "grid", "tariff", dims::money_per_energy, "the grid's electricity price", "$/kWh", true);
  b.catalog("grid_carbon", "grid", "carbon_intensity", dims::carbon_intensity, "the grid's carbon intensity", "", true);
  b.choice("tariff", {"tariff_given", "grid_tariff"}, "", "electricity price delivered", "$/kWh");
  b.catalog("efficiency_pue", "efficiency", "pue", dims::none, "the benchmark's PUE", "", true);
  b.catalog("efficiency_wue", "efficiency", "wue", dims::water_intensity, "the benchmark's WUE", "", true);
  b.choice("carbon_intensity", {"carbon_given", "grid_carbon"}, "", "grid carbon intensity");
  b.catalog("purchase_series", "purchase", "purchase", dims::currency, "the purchase entry's price", "", true);
  b.catalog_text("purchase_unit", "purchase", "unit_of_sale", "what the purchase entry prices");
  b.catalog_text("purchase_item", "purchase", "item", "the item the purchase entry prices");
  b.catalog("purchase_item_gpus", "purchase_item", "accelerators", dims::none, "accelerators of the priced system");
  b.rule(
      "purchase_price", "the entry's price, divided by the system's accelerators when it prices a rack or system",
      {"purchase_series", "purchase_unit", "purchase_item_gpus"},
      [](RuleContext& c) -> std::optional<Cell> {
        const auto price = c.q("purchase_series");
        if (!price) return std::nullopt;
        const std::string unit = c.text("purchase_unit").value_or("accelerator");
        if (unit == "accelerator") return Cell{*price};
        const auto n = c.q("purchase_item_gpus");
        if (!n || n->value < 1) {
          c.error("money.purchase prices one " + unit + ", not one accelerator, and its item names no system; give money.capex_per_gpu");
          return std::nullopt;
        }
        return Cell{Quantity{price->value / n->value, dims::currency, false}};
      },
      "purchase price per accelerator (the accelerator alone, or its share of a priced system)");
  b.choice("capex_per_gpu", {"capex_given", "purchase_price"}, "", "equipment per accelerator before the network");
}

// The packaging a system implies: a node system's power times nodes per rack, a rack system's power per rack.
void rack_power_rule(ChainBuilder& b) {
  b.rule(
      "rack_power_rated", "node system: power x gpus_per_rack / gpus_per_node; rack system: power / racks",
      {"system_type", "system_power", "system_racks", "gpus_per_rack", "gpus_per_node"},
      [](RuleContext& c) -> std::optional<Cell> {
        const auto type = c.text("system_type");
        const auto power = c.q("system_power");
        if (!type || !power) return std::nullopt;
        if (*type == "node") {
          const auto rack = c.q("gpus_per_rack");
          const auto node = c.q("gpus_per_node");
          if (!rack || !node || node->value <= 0) return std::nullopt;
          return Cell{Quantity{power->value * rack->value / node->value, dims::power, false}};
        }
        const double racks = c.q("system_racks").value_or(Quantity::number(1)).value;
        return Cell{Quantity{power->value / std::max(racks, 1.0), dims::power, false}};
      },
      "rated IT power of one rack from the system's datasheet", "kW");
}

void network_steps(ChainBuilder& b) {
  b.sheet("network");
  b.step("fabric", "network", "fabric", "scale-out fabric for the fleet: switches, optics, cables, watts, parts cost",
         {{"gpus", "@gpus"},
          {"nics_per_gpu", "@nics_per_gpu"},
          {"gpus_per_node", "@gpus_per_node"},
          {"design", "@fabric"},
          {"switch", "@switch"},
          {"switch_power", "@switch_power"},
          {"oversubscription", "@oversubscription"},
          {"host_cables", "@host_cables"},
          {"switch_price", "@switch_price"},
          {"transceiver_price", "@transceiver_price"},
          {"cable_price", "@cable_price"}},
         {{"tiers", "fabric_tiers"},
          {"switches", "switches", "fabric switches"},
          {"transceivers", "transceivers", "pluggable transceivers"},
          {"cables", "cables", "cables"},
          {"network_power", "network_power", "fabric power: switches and optics", "kW"},
          {"optics_power", "optics_power", "fabric optics power", "kW"},
          {"power_per_gpu", "network_power_per_gpu", "fabric power per accelerator", "W"},
          {"bisection_per_gpu", "bisection_per_gpu", "bisection bandwidth per accelerator, one direction", "Gb/s"},
          {"parts_cost", "network_parts_cost", "fabric parts: switches, transceivers, cables"}},
         "fabric");
  b.choice("network_power_used", {"network_power", "optics_power"}, "0 W",
           "fabric power counted: switches and optics, the optics alone when the switch's power is unknown, 0 without a fabric", "kW");
  b.choice("network_cost_used", {"network_parts_cost"}, "0 USD", "fabric parts cost counted (0 without prices)");
}

// One rack's power depends only on the packaging, so it comes before the fleet (a power budget sizes the fleet).
void rack_step(ChainBuilder& b) {
  b.sheet("power");
  rack_power_rule(b);
  b.step("rack", "power", "rack", "IT power of one rack from the system's rating or its parts",
         {{"rack_power", "@rack_power_rated"},
          {"gpus", "@gpus_per_rack"},
          {"gpu", "@gpu"},
          {"gpus_per_host", "@gpus_per_node"},
          {"host_w", "@host_power"}},
         {{"rack_power", "rack_power", "IT power of one rack at full load", "kW", true},
          {"per_gpu_all_in", "per_gpu_all_in", "rack power per accelerator, hosts included", "W"}});
}

void power_steps(ChainBuilder& b, const std::string& mode) {
  b.sheet("power");
  b.expr("it_power", "@gpus * @per_gpu_all_in + @network_power_used", "IT power at full load: accelerators with their hosts, plus the fabric",
         "MW", true);
  b.expr("it_power_per_gpu", "@it_power / @gpus", "IT power per accelerator at full load, fabric included", "W");
  // Energy over the period: the arithmetic of `power energy` as live lines, checked against the plugin.
  if (mode == "serve") b.expr("load", "@utilisation", "average load: the fleet's busy share", "%");
  else b.expr("load", "1", "average load: a training run keeps every accelerator busy", "%");
  // Power follows load linearly between the idle floor and full load (Fan, Weber and Barroso 2007); hours out of
  // service draw the idle power. This one average feeds the energy bill and the owner's electricity line alike.
  b.expr("in_service_it_power", "@it_power * (@idle_fraction + @load * (1 - @idle_fraction))",
         "IT power in service at the average load: idle floor + load x (full load - idle)", "MW");
  b.expr("idle_power_share_derived", "@it_power * @idle_fraction / @in_service_it_power",
         "idle draw out of service as a share of the in-service power: the idle floor", "%");
  b.choice("idle_power_share", {"idle_power_share_given", "idle_power_share_derived"}, "0",
           "power drawn in hours out of service, as a share of the in-service power", "%");
  b.expr("average_it_power", "@in_service_it_power * (@sold_share + @idle_power_share * (1 - @sold_share))",
         "average IT power over the period: in service for the in-service share, idle the rest", "MW");
  b.expr("average_load", "@average_it_power / @it_power", "average IT power as a share of full load", "%");
  b.expr("facility_power_full_load", "@it_power * @pue", "facility power at full load: what the grid connection must carry", "MW",
         true);
  b.expr("facility_power_average", "@average_it_power * @pue", "average facility power: average IT power x PUE", "MW", true);
  b.expr("facility_energy", "@facility_power_average * @energy_period", "facility energy over the period", "", true);
  b.expr("energy_bill", "@facility_energy * @tariff", "electricity bill over the period", "", true);
  b.expr("emissions", "@facility_energy * @carbon_intensity", "emissions over the period (location-based)");
  b.expr("average_token_rate", "@throughput_for_energy * @sold_share", "tokens per second averaged over the period (in service only)",
         "tok/s");
  b.expr("energy_per_token", "@facility_power_average / @average_token_rate",
         "facility energy per token served, idle hours included");
  b.cross_check("energy", "power", "energy", "the energy lines against the power plugin",
                {{"power", "@it_power"},
                 {"utilisation", "@average_load"},
                 {"idle_fraction", "0"},
                 {"pue", "@pue"},
                 {"tariff", "@tariff"},
                 {"carbon_intensity", "@carbon_intensity"},
                 {"throughput", "@average_token_rate"},
                 {"period", "@energy_period"}},
                {{"average_power", "average_it_power"},
                 {"facility_power", "facility_power_average"},
                 {"facility_energy", "facility_energy"},
                 {"bill", "energy_bill"},
                 {"emissions", "emissions"},
                 {"energy_per_token", "energy_per_token"}});
}

// The cooling technology, and the PUE and WUE the energy lines use: given, else the site's climate through the
// plant (`cooling climate`, the model `tco siting --climate` uses), else a benchmark.
void cooling_choice(ChainBuilder& b) {
  b.sheet("cooling");
  b.step("choose", "cooling", "choose", "the simplest cooling technology that takes the rack", {{"rack_power", "@rack_power"}},
         {{"recommended_rung", "cooling_rung", "recommended rung of the cooling ladder (1 = air)"}});
  b.rule(
      "cooling_recommended", "the technology on the recommended rung of `cooling choose`'s ladder", {"cooling_rung"},
      [](RuleContext& c) -> std::optional<Cell> {
        const auto run = c.run("choose");
        const auto rung = c.q("cooling_rung");
        if (!run || !run->result || !rung) return std::nullopt;
        for (const auto& t : run->result->tables) {
          if (t.name != "ladder") continue;
          const auto row = static_cast<std::size_t>(rung->value) - 1;
          if (row < t.rows.size())
            if (const auto* id = std::get_if<std::string>(&t.rows[row][0])) return Cell{*id};
        }
        return std::nullopt;
      },
      "recommended cooling technology");
  b.choice("cooling", {"cooling_given", "cooling_recommended"}, "", "cooling technology");
  b.catalog("cooling_max_density", "cooling", "rack_density_max", dims::power, "highest rack power the technology reaches", "kW");
  b.catalog("cooling_supply", "cooling", "supply_temperature", dims::temperature, "the technology's supply temperature", "", false, true);
  b.catalog("cooling_delta_t", "cooling", "delta_t", dims::temperature, "the technology's temperature rise");
  b.rule(
      "climate_plant",
      "@climate_cooling_given, else air for cooling-air and cooling-rear-door (air to the servers) and direct-liquid for the "
      "liquid technologies (warm facility water)",
      {"climate", "climate_cooling_given", "cooling"},
      [](RuleContext& c) -> std::optional<Cell> {
        if (!c.text("climate")) return std::nullopt;
        if (const auto given = c.text("climate_cooling_given")) return Cell{*given};
        const auto tech = c.text("cooling");
        if (!tech) return std::nullopt;
        return Cell{std::string(*tech == "cooling-air" || *tech == "cooling-rear-door" ? "air" : "direct-liquid")};
      },
      "the plant the site's climate runs through");
  b.step("climate", "cooling", "climate", "the site's typical year through the cooling plant: annual PUE and WUE",
         {{"site", "@climate"}, {"cooling", "@climate_plant"}, {"water", "@climate_water"}},
         {{"pue", "climate_pue", "annual PUE of the site's climate through the plant"},
          {"wue", "climate_wue", "annual WUE of the site's climate through the plant", "L/kWh"},
          {"economiser_hours", "climate_economiser_hours", "hours a year on free cooling, dry or evaporative", "h"}},
         "climate");
  b.sheet("inputs");
  b.choice("pue", {"pue_given", "climate_pue", "efficiency_pue"}, "",
           "power usage effectiveness: given, else the site's climate, else the benchmark");
  b.choice("wue", {"wue_given", "climate_wue", "efficiency_wue"}, "",
           "water usage effectiveness: given, else the site's climate, else the benchmark");
}

void cooling_steps(ChainBuilder& b) {
  b.sheet("cooling");
  b.choice("supply", {"supply_given", "cooling_supply"}, "30 degC", "coolant supply temperature");
  b.choice("delta_t", {"delta_t_given", "cooling_delta_t"}, "10 K", "coolant temperature rise across a rack");
  b.step("flow", "cooling", "flow", "coolant flow that carries one rack's heat at the rise",
         {{"heat", "@rack_power"}, {"delta_t", "@delta_t"}, {"supply", "@supply"}, {"coolant", "@coolant"}},
         {{"volume_flow", "coolant_flow_per_rack", "coolant flow per rack at full load", "L/min", true},
          {"return_temperature", "coolant_return", "coolant return temperature"}});
  b.expr("coolant_flow", "@racks * @coolant_flow_per_rack", "coolant flow of all racks at full load", "L/min");
  b.step("cdu", "cooling", "cdu", "coolant distribution units for the racks",
         {{"cdu", "@cdu"}, {"rack_power", "@rack_power"}, {"racks", "@racks"}, {"coolant", "@coolant"}, {"supply", "@supply"}},
         {{"racks_per_cdu", "racks_per_cdu"}, {"cdus_needed", "cdus", "CDUs for the racks"}}, "cdu");
  b.expr("water", "@average_it_power * @energy_period * @wue", "site water over the period (WUE is per IT energy)");
  b.expr("cue", "@pue * @carbon_intensity", "carbon usage effectiveness: CO2 per IT energy");
  b.cross_check("facility", "cooling", "facility", "the water and carbon lines against the cooling plugin",
                {{"it_power", "@average_it_power"}, {"pue", "@pue"}, {"wue", "@wue"}, {"carbon_intensity", "@carbon_intensity"},
                 {"period", "@energy_period"}},
                {{"water", "water"}, {"cue", "cue"}});
}

void tco_steps(ChainBuilder& b) {
  b.sheet("tco");
  b.expr("capex_per_gpu_all_in", "@capex_per_gpu + @network_cost_used / @gpus", "equipment per accelerator with its share of the fabric");
  // The owner's cost of an in-service accelerator-hour: `tco hour`'s four lines as live formulas (a workbook
  // user who changes the capex or the tariff sees them move), checked against the tco plugin.
  b.expr("equipment_per_hour", "(@capex_per_gpu_all_in - @residual_value) / (@life * @sold_share)",
         "equipment: (capex - residual) / (life x in-service share)", "$/h");
  // Electricity is the energy bill itself, spread over the in-service accelerator-hours: one energy figure for both.
  b.expr("electricity_per_hour", "@energy_bill / (@gpus * @sold_share * @energy_period)",
         "electricity: the energy bill over the in-service accelerator-hours (average draw at the load, idle draw out of service)",
         "$/h");
  b.expr("in_service_power_per_gpu", "@in_service_it_power / @gpus", "IT power per accelerator in service, fabric included", "W");
  b.expr("maintenance_per_hour", "@maintenance / @sold_share", "maintenance and staff: per installed hour, spread over the in-service hours",
         "$/h");
  b.expr("financing_annuity",
         "((@capex_per_gpu_all_in - @residual_value * (1 + @cost_of_capital)^(-@life / (1 yr))) * @cost_of_capital / "
         "(1 - (1 + @cost_of_capital)^(-@life / (1 yr))) / (1 yr) - (@capex_per_gpu_all_in - @residual_value) / @life) / @sold_share",
         "financing from the cost of capital: the level annuity less straight-line depreciation, per in-service hour", "$/h");
  b.choice("financing_per_hour", {"financing", "financing_annuity"}, "0 USD/s", "financing per accelerator-hour", "$/h");
  b.expr("owner_cost", "@equipment_per_hour + @electricity_per_hour + @maintenance_per_hour + @financing_per_hour",
         "owner cost per in-service accelerator-hour", "$/h", true);
  b.cross_check("hour", "tco", "hour", "the owner's cost lines against the tco plugin",
                {{"capex_per_gpu", "@capex_per_gpu_all_in"},
                 {"residual_value", "@residual_value"},
                 {"life", "@life"},
                 {"sold_share", "@sold_share"},
                 {"power_per_gpu", "@in_service_power_per_gpu"},
                 {"pue", "@pue"},
                 {"idle_power_share", "@idle_power_share"},
                 {"tariff", "@tariff"},
                 {"maintenance", "@maintenance"},
                 {"financing", "@financing"},
                 {"cost_of_capital", "@cost_of_capital"}},
                {{"equipment", "equipment_per_hour"},
                 {"electricity", "electricity_per_hour"},
                 {"maintenance", "maintenance_per_hour"},
                 {"financing", "financing_per_hour"},
                 {"owner_cost", "owner_cost"}});
  b.expr("fleet_cost_per_hour", "@owner_cost * @gpus", "owner cost of the fleet per in-service hour", "$/h");
  b.expr("capex_total", "@capex_per_gpu_all_in * @gpus", "equipment of the fleet, fabric included", "", true);
  // Money over one year, in $ (the `* 1 yr` already makes it a sum): a "$/yr" display unit would apply the
  // year a second time wherever the unit converts the value (the workbook did, 31,557,600x).
  b.expr("cost_per_year", "@fleet_cost_per_hour * @sold_share * 1 yr", "owner cost of the fleet per year", "", true);
  // A rental price to compare with: the tier's dated series of the rental entry.
  b.catalog("rental_on_demand", "rental", "on_demand", dims::money_rate, "rental price per accelerator-hour, on demand", "$/h", true);
  b.catalog("rental_committed", "rental", "committed", dims::money_rate, "rental price per accelerator-hour, committed", "$/h", true);
  b.catalog("rental_capacity_block", "rental", "capacity_block", dims::money_rate, "rental price per accelerator-hour, capacity block",
            "$/h", true);
  b.catalog("rental_spot", "rental", "spot", dims::money_rate, "rental price per accelerator-hour, spot", "$/h", true);
  b.rule(
      "rental_price", "the rental entry's price for @rental_tier",
      {"rental_on_demand", "rental_committed", "rental_capacity_block", "rental_spot", "rental_tier"},
      [](RuleContext& c) -> std::optional<Cell> {
        const std::string tier = c.text("rental_tier").value_or("on-demand");
        const auto q = tier == "committed"        ? c.q("rental_committed")
                       : tier == "capacity-block" ? c.q("rental_capacity_block")
                       : tier == "spot"           ? c.q("rental_spot")
                                                  : c.q("rental_on_demand");
        if (!q) return std::nullopt;
        return Cell{*q};
      },
      "rental price per accelerator-hour", "$/h");
}

// ---- serving ----------------------------------------------------------------------------------------

std::optional<Cell> tp_auto(RuleContext& c) {
  const auto n = c.q("min_devices");
  if (!n) return std::nullopt;
  double tp = 1;
  while (tp < n->value) tp *= 2;
  return number_cell(tp);
}

// The expected (calibrated) figure of a line, or its ceiling when hardware.performance = ceiling; the ceiling
// also when no expected figure exists (--mbu/--mfu below 100% replace the calibration).
std::function<std::optional<Cell>(RuleContext&)> by_performance(std::string line) {
  return [line](RuleContext& c) -> std::optional<Cell> {
    const bool ceiling = c.text("performance").value_or("expected") == "ceiling";
    auto q = ceiling ? c.q(line + "_ceiling") : c.q(line + "_expected");
    if (!q && !ceiling) q = c.q(line + "_ceiling");
    if (!q) return std::nullopt;
    return Cell{*q};
  };
}

// The largest batch that fits in memory (capped by max_batch) and, with a tpot target, whose time per output
// token at full load meets it: bisection over decode runs at each candidate batch.
std::optional<Cell> batch_auto(RuleContext& c) {
  const auto fit_max = c.q("max_batch_fit");
  const auto cap = c.q("max_batch");
  if (!fit_max || !cap) return std::nullopt;
  double hi = std::min(fit_max->value, cap->value);
  if (hi < 1) return number_cell(1);
  const auto target = c.q("tpot_target");
  const auto prefill = c.q("prefill_time");
  const auto output = c.q("output");
  if (!target || !prefill || !output || output->value <= 0) return number_cell(hi);
  auto tpot = [&](double batch) -> std::optional<double> {
    auto run = c.run_with("decode", {{"batch", format_machine(batch)}});
    if (!run || !run->result) return std::nullopt;
    const Value* step = run->result->find(c.text("performance").value_or("expected") == "ceiling" ? "step_time" : "expected_step_time");
    if (step == nullptr) step = run->result->find("step_time");
    if (step == nullptr) return std::nullopt;
    return step->q.value + (batch - 1) * prefill->value / output->value;
  };
  const auto at_hi = tpot(hi);
  if (!at_hi) return number_cell(hi);
  if (*at_hi <= target->value) return number_cell(hi);
  const auto at_one = tpot(1);
  if (!at_one || *at_one > target->value) return number_cell(1);
  double lo = 1;  // meets the target; hi does not
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    const auto t = tpot(mid);
    if (t && *t <= target->value) lo = mid;
    else hi = mid;
  }
  return number_cell(lo);
}

// Fills an IT power budget: start from the count the budget holds without a fabric and step down whole
// units until the accelerators and the fabric wired for exactly that many fit (usually one or two fabric runs).
std::optional<Cell> gpus_for_budget(RuleContext& c) {
  const auto budget = c.q("it_budget");
  const auto per_gpu = c.q("per_gpu_all_in");
  const auto unit = c.q("gpus_per_unit");
  if (!budget || !per_gpu || !unit || per_gpu->value <= 0 || unit->value < 1) return std::nullopt;
  const bool fabric = c.text("fabric").value_or("none") != "none";
  double units = std::floor(budget->value / (per_gpu->value * unit->value));
  for (int iter = 0; iter < 64 && units >= 1; ++iter) {
    const double n = units * unit->value;
    double net = 0;
    if (fabric) {
      auto run = c.run_with("fabric", {{"gpus", format_machine(n)}});
      if (!run) return std::nullopt;
      if (!run->result) {
        c.error("sizing for site.it_power: network fabric at " + format_machine(n) + " accelerators: " + run->error->text());
        return std::nullopt;
      }
      const Value* v = run->result->find("network_power");
      if (v == nullptr) v = run->result->find("optics_power");
      if (v != nullptr) net = v->q.value;
    }
    if (n * per_gpu->value + net <= budget->value) return number_cell(n);
    units = std::min(units - 1, std::floor(budget->value / ((per_gpu->value + net / n) * unit->value)));
  }
  return number_cell(0);
}

void serve_chain(ChainBuilder& b) {
  shared_inputs(b, "serve");
  b.input("hardware.performance");
  b.input("hardware.mbu");
  b.input("hardware.mfu");
  b.input("hardware.memory_utilization");
  b.input("workload.rate");
  b.input("workload.prompt");
  b.input("workload.output");
  b.input("workload.batch", "batch_given");
  b.input("workload.max_batch");
  b.input("workload.ttft", "ttft_target");
  b.input("workload.tpot", "tpot_target");
  b.input("workload.max_load");
  b.input("workload.chunked_prefill");
  b.input("site.it_power", "it_budget");
  b.input("site.period");
  b.expr("energy_period", "@period", "period of the energy figures");

  b.sheet("model");
  b.step("weights", "fit", "weights", "the model's weights at its storage format",
         {{"model", "@model"}, {"dtype", "@dtype"}, {"expert_dtype", "@expert_dtype"}, {"gpu", "@gpu"}},
         {{"params", "params", "parameters"},
          {"active_params", "active_params_moe", "parameters one token uses (mixture of experts)"},
          {"weights", "weights", "weight bytes, scales included", "GB", true}});
  b.choice("active_params", {"active_params_moe", "params"}, "", "parameters one token uses");

  b.sheet("memory");
  b.expr("context", "@prompt + @output", "context per sequence: prompt and output");
  const std::vector<std::pair<std::string, std::string>> fit_in = {
      {"model", "@model"},   {"gpu", "@gpu"},         {"dtype", "@dtype"}, {"expert_dtype", "@expert_dtype"},
      {"kv_dtype", "@kv_dtype"}, {"tokens", "@context"}, {"memory_utilization", "@memory_utilization"}};
  auto with = [](std::vector<std::pair<std::string, std::string>> v, std::vector<std::pair<std::string, std::string>> more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
  };
  b.step("fit_one", "fit", "inference", "the fewest devices that hold the weights and one sequence", with(fit_in, {{"batch", "1"}}),
         {{"min_devices", "min_devices", "fewest devices for the weights and one sequence"}});
  b.quiet("fit_one");
  b.rule("tp_auto", "smallest power of two >= @min_devices", {"min_devices"}, tp_auto, "tensor parallelism chosen by the planner");
  b.choice("tp", {"tp_given", "tp_auto"}, "", "tensor-parallel devices per replica");
  b.step("fit_tp", "fit", "inference", "the largest batch that fits at this tensor parallelism",
         with(fit_in, {{"batch", "1"}, {"tp", "@tp"}}), {{"max_batch", "max_batch_fit", "largest batch that fits at the context"}});

  b.quiet("fit_tp");
  b.sheet("decode");
  b.expr("decode_context", "@prompt + @output / 2", "average context while decoding: the prompt and half the output");
  const std::vector<std::pair<std::string, std::string>> dec_in = {
      {"model", "@model"}, {"gpu", "@gpu"}, {"dtype", "@dtype"}, {"kv_dtype", "@kv_dtype"}, {"tp", "@tp"}};
  b.step("prefill", "decode", "prefill", "prefill of one prompt: the time to first token without queueing",
         with(dec_in, {{"tokens", "@prompt"}, {"batch", "1"}, {"mfu", "@mfu"}, {"mbu", "@mbu"}}),
         {{"prefill_time", "prefill_time_ceiling", "prefill time of one prompt at 100% of the datasheet"},
          {"expected_prefill_time", "prefill_time_expected", "prefill time of one prompt, calibrated"}});
  b.rule("prefill_time", "@prefill_time_expected, or @prefill_time_ceiling when hardware.performance = ceiling",
         {"performance", "prefill_time_ceiling", "prefill_time_expected"}, by_performance("prefill_time"),
         "prefill time of one prompt");
  b.expr("prefill_tokens_per_second", "@prompt / @prefill_time", "prompt tokens per second in prefill", "tok/s");
  b.sheet("memory");
  b.rule("batch_auto", "largest batch <= min(@max_batch_fit, @max_batch) whose tpot meets @tpot_target (bisection over decode runs)",
         {"max_batch_fit", "max_batch", "tpot_target", "prefill_time", "output", "performance"}, batch_auto, "batch chosen by the planner");
  b.choice("batch", {"batch_given", "batch_auto"}, "", "sequences decoded together per replica");
  b.step("fit", "fit", "inference", "memory per device at the operating point", with(fit_in, {{"batch", "@batch"}, {"tp", "@tp"}}),
         {{"weights", "weights_per_device", "weights per device", "GB"},
          {"kv_cache", "kv_cache_per_device", "KV cache per device at the batch", "GB"},
          {"activations", "activations_per_device", "activations per device", "GB"},
          {"framework_reserve", "framework_reserve", "framework reserve per device", "GB"},
          {"comm_buffers", "comm_buffers", "communication buffers per device", "GB"},
          {"total", "memory_per_device", "memory used per device", "GB"},
          {"usable", "memory_usable", "usable memory per device", "GB"},
          {"headroom", "memory_headroom", "usable memory left per device", "GB"}});

  b.sheet("kv");
  b.step("kv", "kv", "size", "the KV cache of the model at the context and batch",
         {{"model", "@model"}, {"dtype", "@kv_dtype"}, {"tokens", "@context"}, {"batch", "@batch"}, {"tp", "@tp"}},
         {{"kv_bytes_per_token", "kv_bytes_per_token", "KV-cache bytes per token", "", true},
          {"kv_per_sequence", "kv_per_sequence", "KV cache of one sequence"},
          {"kv_total", "kv_total", "KV cache of the batch"},
          {"kv_per_device", "kv_per_device", "KV cache per device"}});

  b.sheet("decode");
  b.step("ceiling", "decode", "ceiling", "single-stream ceiling: batch 1 at the full context, every byte at full bandwidth",
         with(dec_in, {{"batch", "1"}, {"tokens", "@context"}}),
         {{"tokens_per_second_per_stream", "decode_ceiling", "single-stream decode ceiling", "tok/s", true}});
  b.step("decode", "decode", "ceiling", "the replica's decode step at the operating batch",
         with(dec_in, {{"batch", "@batch"}, {"tokens", "@decode_context"}, {"mbu", "@mbu"}, {"mfu", "@mfu"}}),
         {{"step_time", "step_time_ceiling", "decode step time at 100% of the datasheet"},
          {"expected_step_time", "step_time_expected", "decode step time, calibrated"},
          {"intensity", "decode_intensity", "arithmetic intensity of the step"},
          {"memory_time", "decode_memory_time", "memory time of the step"},
          {"compute_time", "decode_compute_time", "compute time of the step"},
          {"ridge_batch", "ridge_batch", "batch at which the step becomes compute-bound"}});
  b.uses_step("batch_auto", "decode", "batch");
  b.rule("step_time", "@step_time_expected, or @step_time_ceiling when hardware.performance = ceiling",
         {"performance", "step_time_ceiling", "step_time_expected"}, by_performance("step_time"), "decode step time");
  b.expr("tokens_per_second", "@batch * (1 tok) / @step_time", "tokens per second of the replica while decoding", "tok/s", true);

  b.sheet("serve");
  // The static serving model: each request costs its replica one prefill plus its share of the decode steps.
  b.expr("ttft_static", "@prefill_time", "time to first token: one prefill on a replica, no queueing");
  b.expr("request_time", "@prefill_time + @output / (1 tok) * @step_time / @batch",
         "replica time per request at full load: its prefill plus its share of the decode steps");
  b.expr("requests_per_second_static", "1 / @request_time", "requests per second one replica completes at full load (static model)",
         "req/s");
  b.expr("tpot_static", "@step_time + (@batch - 1) * @prefill_time / (@output / (1 tok))",
         "time per output token at full load: the step plus the other requests' prefills spread over the output");
  b.expr("latency_static", "@batch * @request_time", "request latency at full load (Little's law: batch / throughput)");
  const bool simulated = ChainBuilder::available("serve", "capacity");
  if (simulated) {
    // One replica simulated by the serve plugin (continuous batching over the KV pool the fit waterfall leaves,
    // step times from the decode roofline): the largest Poisson rate whose p95 TTFT and TPOT meet the targets,
    // or the saturated rate without targets. The calculator searches that rate when given a target rate; the
    // nominal 1/s here only starts the search (its result does not depend on it), so the step does not re-run
    // when the plan's rate changes.
    b.note("serving: one replica simulated by `serve capacity` (continuous batching, p95 latencies); the static model "
           "(*_static lines) is shown beside it");
    b.step("serve", "serve", "capacity", "one replica simulated: the largest rate within the p95 latency targets",
           {{"model", "@model"},
            {"gpu", "@gpu"},
            {"dtype", "@dtype"},
            {"kv_dtype", "@kv_dtype"},
            {"tp", "@tp"},
            {"mbu", "@mbu"},
            {"mfu", "@mfu"},
            {"memory_utilization", "@memory_utilization"},
            {"max_batch", "@batch"},
            {"chunked_prefill", "@chunked_prefill"},
            {"prompt_tokens", "@prompt"},
            {"tokens_per_answer", "@output"},
            {"ttft_target", "@ttft_target"},
            {"tpot_target", "@tpot_target"},
            {"simulate_with", "@performance"},
            {"target_rate", "1/s"}},
           {{"replica_max_rate", "requests_per_second_sim", "largest request rate one simulated replica sustains within the targets",
             "req/s"},
            {"replica_ttft_p95", "ttft_p95", "p95 time to first token of a replica at that rate"},
            {"replica_tpot_p95", "tpot_p95", "p95 time per output token of a replica at that rate"}});
    // Its replica count is for the nominal 1/s; the fleet sheet sizes the plan's rate at @max_load.
    b.nominal_notes("serve", {"replicas = "});
    b.choice("requests_per_second", {"requests_per_second_sim", "requests_per_second_static"}, "",
             "requests per second one replica serves (simulated within the targets; else the static model)", "req/s", true);
    b.choice("ttft", {"ttft_p95", "ttft_static"}, "", "time to first token (simulated p95; else the static floor)", "", true);
    b.choice("tpot", {"tpot_p95", "tpot_static"}, "", "time per output token (simulated p95; else the static model)", "", true);
  } else {
    b.note("serving: a static model of continuous batching (each request takes one prefill plus output/batch decode steps of "
           "its replica; no queueing), built from decode's step and prefill times; the serve plugin is not in this build");
    b.choice("requests_per_second", {"requests_per_second_static"}, "", "requests per second one replica completes at full load",
             "req/s", true);
    b.choice("ttft", {"ttft_static"}, "", "time to first token: one prefill, no queueing", "", true);
    b.choice("tpot", {"tpot_static"}, "", "time per output token at full load", "", true);
  }
  b.expr("replica_tokens_per_second", "@requests_per_second * @output", "output tokens per second of one replica at that rate", "tok/s");

  rack_step(b);
  b.sheet("fleet");
  // Accelerators come in units of purchase: nodes, or whole racks for rack-scale systems. A fleet is a whole
  // number of units, and every accelerator in it runs a replica when tp allows.
  b.rule(
      "gpus_per_unit", "a rack or pod system: accelerators per rack; otherwise accelerators per node",
      {"system_type", "gpus_per_rack", "gpus_per_node"},
      [](RuleContext& c) -> std::optional<Cell> {
        const auto type = c.text("system_type");
        const auto q = type && (*type == "rack" || *type == "pod") ? c.q("gpus_per_rack") : c.q("gpus_per_node");
        if (!q) return std::nullopt;
        return Cell{*q};
      },
      "accelerators per unit of purchase");
  b.expr("replicas_for_rate", "ceil(@rate / (@requests_per_second * @max_load))", "replicas the rate needs at the maximum load");
  b.expr("gpus_load", "ceil(@replicas_for_rate * @tp / @gpus_per_unit) * @gpus_per_unit",
         "accelerators for the rate, in whole units of purchase");
  b.rule("gpus_budget",
         "the most whole units of purchase whose IT power, the fabric for them included (network fabric at that size), "
         "fits @it_budget",
         {"it_budget", "per_gpu_all_in", "gpus_per_unit", "fabric"}, gpus_for_budget, "accelerators the IT power budget holds");
  b.choice("gpus", {"gpus_given", "gpus_budget", "gpus_load"}, "", "accelerators installed", "", true);
  b.expr("replicas", "floor(@gpus / @tp)", "model replicas the accelerators hold");
  b.expr("nodes", "ceil(@gpus / @gpus_per_node)", "nodes");
  b.expr("racks", "ceil(@gpus / @gpus_per_rack)", "racks", "", true);
  b.expr("capacity", "@replicas * @requests_per_second", "requests per second the fleet completes at full load", "req/s");
  b.expr("rate_at_max_load", "@capacity * @max_load", "requests per second at the maximum load", "req/s");
  b.choice("served_rate", {"rate", "rate_at_max_load"}, "", "requests per second served", "req/s");
  b.expr("utilisation", "@served_rate / @capacity", "busy share of the fleet at the served rate", "%");
  b.expr("fleet_tokens_per_second", "@served_rate * @output", "output tokens per second of the fleet", "tok/s", true);

  // The power rack step is sized per rack and does not depend on the fleet; the budget sizing above uses it.
  b.expr("throughput_for_energy", "@fleet_tokens_per_second", "tokens per second the energy serves", "tok/s");
  network_steps(b);
  b.uses_step("gpus_budget", "fabric", "gpus");
  cooling_choice(b);
  power_steps(b, "serve");
  cooling_steps(b);
  tco_steps(b);

  b.sheet("cost");
  b.expr("cost_per_mtok", "@fleet_cost_per_hour / @fleet_tokens_per_second", "owner cost per million output tokens", "$/Mtok", true);
  b.cross_check("token", "cost", "token", "cost per token against the cost plugin, one replica at the fleet's load",
                {{"gpu_hour", "@owner_cost"}, {"gpus", "@tp"}, {"throughput", "@replica_tokens_per_second"}, {"utilisation", "@utilisation"}},
                {{"price_per_token", "cost_per_mtok"}});
  b.expr("cost_per_request", "@cost_per_mtok * @output", "owner cost of one request");
  b.expr("rent_cost_per_mtok", "@rental_price * @gpus / @fleet_tokens_per_second", "rented cost per million output tokens", "$/Mtok");
  b.expr("rent_over_own", "@rent_cost_per_mtok / @cost_per_mtok", "rented cost / owned cost");
  b.cross_check("token_rental", "cost", "token", "the rented cost against the cost plugin",
                {{"rental", "@rental"}, {"tier", "@rental_tier"}, {"gpus", "@tp"}, {"throughput", "@replica_tokens_per_second"},
                 {"utilisation", "@utilisation"}},
                {{"price_per_token", "rent_cost_per_mtok"}}, "rental");

  b.check("fits", "weights, KV cache and activations fit each device at the batch", {"memory_headroom"},
          [](RuleContext& c) -> std::optional<std::pair<bool, std::string>> {
            const auto h = c.q("memory_headroom");
            if (!h) return std::nullopt;
            return std::pair{h->value >= 0, format_human(*h) + " of usable memory left per device"};
          });
  b.check("ttft_target", "time to first token within the target", {"ttft", "ttft_target"},
          [](RuleContext& c) -> std::optional<std::pair<bool, std::string>> {
            const auto v = c.q("ttft");
            const auto t = c.q("ttft_target");
            if (!v || !t) return std::nullopt;
            const bool simulated = c.q("ttft_p95").has_value();
            return std::pair{v->value <= t->value, format_human(*v) + (simulated ? " (p95, simulated)" : " (prefill only, no queueing)") +
                                                       " against " + format_human(*t)};
          });
  b.check("tpot_target", "time per output token within the target", {"tpot", "tpot_target"},
          [](RuleContext& c) -> std::optional<std::pair<bool, std::string>> {
            const auto v = c.q("tpot");
            const auto t = c.q("tpot_target");
            if (!v || !t) return std::nullopt;
            return std::pair{v->value <= t->value,
                             format_human(*v) + (c.q("tpot_p95").has_value() ? " (p95, simulated)" : "") + " against " + format_human(*t)};
          });
  b.check("capacity", "the fleet serves the rate", {"rate", "capacity"}, [](RuleContext& c) -> std::optional<std::pair<bool, std::string>> {
    const auto r = c.q("rate");
    const auto cap = c.q("capacity");
    if (!r || !cap) return std::nullopt;
    return std::pair{r->value <= cap->value, fmt::format("{} req/s asked, {} req/s at full load", format_number(r->value, 4),
                                                         format_number(cap->value, 4))};
  });
  b.check("power_budget", "IT power within the site's budget", {"it_power", "it_budget"},
          [](RuleContext& c) -> std::optional<std::pair<bool, std::string>> {
            const auto p = c.q("it_power");
            const auto budget = c.q("it_budget");
            if (!p || !budget) return std::nullopt;
            return std::pair{p->value <= budget->value * (1 + 1e-9), format_human(*p) + " of " + format_human(*budget)};
          });
}

// ---- training ---------------------------------------------------------------------------------------

// A training fleet sized for a deadline: the accelerators that finish in time with the lost time counted,
// rounded up to whole data-parallel replicas (tp x pp) in whole units of purchase.
void gpus_for_deadline(ChainBuilder& b, const std::string& need) {
  b.choice("tp", {"tp_given", "gpus_per_node"}, "", "tensor-parallel devices");
  b.rule(
      "gpus_granule", "lcm(tp x pp, gpus_per_unit): the step the fleet grows by", {"tp", "pp", "gpus_per_node"},
      [](RuleContext& c) -> std::optional<Cell> {
        const auto tp = c.q("tp");
        const auto pp = c.q("pp");
        const auto unit = c.q("gpus_per_node");
        if (!tp || !pp || !unit) return std::nullopt;
        if (tp->value * pp->value < 1 || unit->value < 1) return std::nullopt;
        if (tp->value * pp->value > kMaxCount || unit->value > kMaxCount) {
          c.error(fmt::format("gpus_granule: tp x pp = {:g} or {:g} accelerators per node is more than 9e15", tp->value * pp->value, unit->value));
          return std::nullopt;
        }
        const auto a = static_cast<long long>(tp->value * pp->value);
        const auto u = static_cast<long long>(unit->value);
        const double lcm = static_cast<double>(a / std::gcd(a, u)) * static_cast<double>(u);
        if (lcm > kMaxCount) {
          c.error(fmt::format("gpus_granule: lcm(tp x pp = {}, {} accelerators per node) is more than 9e15", a, u));
          return std::nullopt;
        }
        return number_cell(lcm);
      },
      "accelerators per step of the fleet");
  b.expr("gpus_deadline", "ceil(" + need + " / @gpus_granule) * @gpus_granule",
         "accelerators for the deadline, lost time counted, in whole replicas and nodes");
  b.choice("gpus", {"gpus_given", "gpus_deadline"}, "", "accelerators", "", true);
}

// What a training or fine-tuning fleet of @gpus needs around it for @run_time at full load: nodes and racks,
// the fabric, power and energy, cooling and the owner's cost per accelerator-hour.
void training_facility(ChainBuilder& b, const std::string& mode) {
  b.sheet("fleet");
  b.expr("nodes", "ceil(@gpus / @gpus_per_node)", "nodes");
  b.expr("racks", "ceil(@gpus / @gpus_per_rack)", "racks", "", true);
  rack_step(b);

  b.expr("throughput_for_energy", "@token_rate", "tokens per second the energy serves", "tok/s");
  network_steps(b);
  cooling_choice(b);
  power_steps(b, mode);
  cooling_steps(b);
  tco_steps(b);
}

// The rented run (@rental_cost) against `cost train` at the rental entry's price.
void rental_cross_check(ChainBuilder& b, std::string purpose) {
  b.cross_check("rent_rental", "cost", "train", std::move(purpose),
                {{"gpus", "@gpus"}, {"duration", "@run_time"}, {"rental", "@rental"}, {"tier", "@rental_tier"}},
                {{"rent", "rental_cost"}}, "rental");
}

// The memory verdict of a training or fine-tuning step: its headroom per device is not negative.
void training_fits_check(ChainBuilder& b, std::string label) {
  b.check("fits", std::move(label), {"memory_headroom"}, [](RuleContext& c) -> std::optional<std::pair<bool, std::string>> {
            const auto h = c.q("memory_headroom");
            if (!h) return std::nullopt;
            return std::pair{h->value >= 0, format_human(*h) + " left per device"};
          });
}

void train_chain(ChainBuilder& b) {
  shared_inputs(b, "train");
  b.input("hardware.pp");
  b.input("workload.tokens");
  b.input("workload.deadline");
  b.input("workload.mfu");
  b.input("workload.seq");
  b.input("workload.micro_batch");
  b.input("workload.zero");
  b.input("workload.recompute");
  b.input("workload.optimizer");
  b.input("workload.goodput");

  b.sheet("model");
  b.step("weights", "fit", "weights", "the model's weights at the training precision",
         {{"model", "@model"}, {"dtype", "@dtype"}, {"expert_dtype", "@expert_dtype"}, {"gpu", "@gpu"}},
         {{"params", "params", "parameters"},
          {"active_params", "active_params_moe", "parameters one token uses (mixture of experts)"},
          {"weights", "weights", "weight bytes at the training precision", "GB", true}});
  b.choice("active_params", {"active_params_moe", "params"}, "", "parameters one token uses (N in 6·N·D)");

  b.sheet("compute");
  if (ChainBuilder::available("cluster", "train")) {
    b.step("train", "cluster", "train", "training FLOPs, accelerators for the deadline or time for the fleet",
           {{"model", "@model"},
            {"gpu", "@gpu"},
            {"tokens", "@tokens"},
            {"seq", "@seq"},
            {"gpus", "@gpus_given"},
            {"duration", "@deadline"},
            {"mfu", "@mfu"},
            {"recompute", "@recompute"}},
           {{"training_flops", "training_flops"},
            {"gpu_time", "gpu_time", "accelerator time: FLOPs / (peak x MFU)", "h"},
            {"gpus", "gpus_sized", "accelerators that finish by the deadline"}});
    gpus_for_deadline(b, "@gpus_sized / @goodput");
  } else {
    b.note("training compute: cost train's work model, the same as cluster train's (its rent at the neutral $1/h is not "
           "used); the cluster plugin's train calculator takes this step when it is built in");
    b.step("work", "cost", "train", "training FLOPs (6·N·D plus attention) and accelerator time at the MFU",
           {{"gpu", "@gpu"}, {"model", "@model"}, {"tokens", "@tokens"}, {"seq", "@seq"}, {"mfu", "@mfu"}, {"gpu_hour", "$1/h"}},
           {{"training_flops_used", "training_flops", "training FLOPs: 6 x active parameters x tokens plus attention"},
            {"useful_accelerator_time", "gpu_time", "accelerator time: FLOPs / (peak x MFU)", "h"}});
    b.expr("gpus_sized", "@gpu_time / @deadline", "accelerators that finish by the deadline");
    gpus_for_deadline(b, "@gpus_sized / @goodput");
  }
  b.expr("run_time", "@gpu_time / @gpus / @goodput", "wall-clock time of the run, lost time included", "d", true);
  b.expr("energy_period", "@run_time", "period of the energy figures: the run");
  b.expr("token_rate", "@tokens / @run_time", "training tokens per second", "tok/s");

  b.sheet("memory");
  b.step("fit", "fit", "train", "training memory per device: sharded state, activations, reserve",
         {{"model", "@model"},
          {"gpu", "@gpu"},
          {"weights_dtype", "@dtype"},
          {"optimizer", "@optimizer"},
          {"zero", "@zero"},
          {"tp", "@tp"},
          {"pp", "@pp"},
          {"devices", "@gpus"},
          {"recompute", "@recompute"},
          {"seq", "@seq"},
          {"micro_batch", "@micro_batch"}},
         {{"state_total", "state_total", "training state of the whole model", "TB"},
          {"state_per_device", "state_per_device", "training state per device", "GB"},
          {"activations_per_device", "activations_per_device", "activations per device", "GB"},
          {"total_per_device", "memory_per_device", "memory used per device", "GB"},
          {"headroom", "memory_headroom", "memory left per device", "GB"},
          {"min_devices", "min_devices", "fewest devices at this tp, pp and ZeRO stage"}});

  training_facility(b, "train");

  b.sheet("cost");
  b.expr("training_cost", "@owner_cost * @gpus * @run_time", "owner cost of the run", "", true);
  b.cross_check("rent", "cost", "train", "the run's cost against the cost plugin",
                {{"gpus", "@gpus"}, {"duration", "@run_time"}, {"gpu_hour", "@owner_cost"}}, {{"rent", "training_cost"}});
  b.expr("cost_per_mtok_trained", "@training_cost / @tokens", "owner cost per million training tokens", "$/Mtok");
  b.expr("rental_cost", "@rental_price * @gpus * @run_time", "the same run rented");
  rental_cross_check(b, "the rented run against the cost plugin");

  training_fits_check(b, "training state and activations fit each device");
  b.check("deadline", "the run finishes by the deadline", {"run_time", "deadline"},
          [](RuleContext& c) -> std::optional<std::pair<bool, std::string>> {
            const auto t = c.q("run_time");
            const auto d = c.q("deadline");
            if (!t || !d) return std::nullopt;
            return std::pair{t->value <= d->value * (1 + 1e-9), format_human(*t) + " against " + format_human(*d)};
          });
}

// ---- fine-tuning ------------------------------------------------------------------------------------

void finetune_chain(ChainBuilder& b) {
  shared_inputs(b, "finetune");
  b.input("finetune.method");
  b.input("finetune.rank");
  b.input("finetune.targets");
  b.input("finetune.dtype", "base_dtype");
  b.input("finetune.dataset_tokens");
  b.input("finetune.epochs");
  b.input("finetune.seq");
  b.input("finetune.micro_batch");
  b.input("finetune.zero");
  b.input("finetune.recompute");
  b.input("finetune.optimizer");
  b.input("finetune.mfu");

  b.sheet("fleet");
  b.choice("gpus", {"gpus_given"}, "", "accelerators: the job's data-parallel devices", "", true);

  // `fit finetune` is the job: its memory, trainable parameters and accelerator time become lines as they are.
  const std::vector<std::pair<std::string, std::string>> job = {
      {"model", "@model"},         {"gpu", "@gpu"},          {"method", "@method"},       {"rank", "@rank"},
      {"targets", "@targets"},     {"dtype", "@base_dtype"}, {"optimizer", "@optimizer"}, {"zero", "@zero"},
      {"devices", "@gpus"},        {"recompute", "@recompute"}, {"seq", "@seq"},         {"micro_batch", "@micro_batch"},
      {"dataset_tokens", "@dataset_tokens"}, {"epochs", "@epochs"}, {"mfu", "@mfu"}};
  b.sheet("finetune");
  b.step("finetune", "fit", "finetune", "the fine-tuning job: trainable parameters, memory per device, accelerator time", job,
         {{"params", "params"},
          {"trainable_params", "trainable_params", "parameters that train", "", true},
          {"trainable_share", "trainable_share", "trainable / total parameters", "%"},
          {"base_weights", "base_weights", "frozen base weights", "GB"},
          {"base_per_device", "base_per_device", "frozen base per device", "GB"},
          {"state_per_device", "state_per_device", "training state of the trained parameters per device", "GB"},
          {"activations_per_device", "activations_per_device", "activations per device", "GB"},
          {"total_per_device", "memory_per_device", "memory used per device", "GB", true},
          {"headroom", "memory_headroom", "memory left per device", "GB"},
          {"min_devices", "min_devices", "fewest devices that fit at this ZeRO stage"},
          {"flops_per_token", "flops_per_token"},
          {"training_tokens", "training_tokens"},
          {"training_flops", "training_flops", "model FLOPs of the job"},
          {"gpu_time", "gpu_time", "accelerator time: FLOPs / (peak x MFU)", "h", true},
          {"duration", "run_time", "wall-clock time of the job on the devices", "h", true}});
  b.expr("energy_period", "@run_time", "period of the energy figures: the job");
  b.expr("token_rate", "@training_tokens / @run_time", "training tokens per second", "tok/s");

  training_facility(b, "finetune");

  b.sheet("cost");
  b.expr("finetune_cost", "@owner_cost * @gpu_time", "owner cost of the job: owner cost per accelerator-hour x accelerator-hours", "",
         true);
  auto priced = job;
  priced.emplace_back("gpu_hour", "@owner_cost");
  b.cross_check("finetune_cost", "fit", "finetune", "the job's cost against fit finetune at the owner's price", priced,
                {{"cost", "finetune_cost"}});
  b.expr("cost_per_mtok_trained", "@finetune_cost / @training_tokens", "owner cost per million training tokens", "$/Mtok");
  b.expr("rental_cost", "@rental_price * @gpu_time", "the same job rented");
  rental_cross_check(b, "the rented job against the cost plugin");

  training_fits_check(b, "the frozen base, the trained state and the activations fit each device");
}

void shared_checks(ChainBuilder& b, const std::string& mode) {
  b.check("cooling", "the cooling technology takes the rack", {"rack_power", "cooling_max_density", "cooling"},
          [](RuleContext& c) -> std::optional<std::pair<bool, std::string>> {
            const auto r = c.q("rack_power");
            const auto m = c.q("cooling_max_density");
            const auto id = c.text("cooling");
            if (!r || !m) return std::nullopt;
            return std::pair{r->value <= m->value, format_human(*r) + " per rack; " + id.value_or("the technology") + " reaches " +
                                                       format_human(*m)};
          });
  if (mode == "finetune") return;  // fit finetune models data-parallel devices only: no tensor parallelism
  b.check("scaleup", "tensor parallelism stays inside one scale-up domain", {"tp", "gpus_per_node", "scaleup_domain"},
          [](RuleContext& c) -> std::optional<std::pair<bool, std::string>> {
            const auto tp = c.q("tp");
            const auto domain = c.q("scaleup_domain").value_or(c.q("gpus_per_node").value_or(Quantity::number(8)));
            if (!tp) return std::nullopt;
            return std::pair{tp->value <= domain.value,
                             fmt::format("tp {} in a scale-up domain of {}", format_number(tp->value, 6), format_number(domain.value, 6))};
          });
}

}  // namespace

Program build_program(const PlanSpec& spec, Problems& problems) {
  Program p;
  p.mode = spec.mode();
  if (p.mode.empty()) p.mode = "serve";
  ChainBuilder b(p, problems);
  if (p.mode == "train") train_chain(b);
  else if (p.mode == "finetune") finetune_chain(b);
  else serve_chain(b);
  shared_checks(b, p.mode);
  for (const auto& s : p.steps)
    if (!s.unavailable.empty()) p.notes.push_back("step " + s.key + " (" + s.plugin + " " + s.calculator + ") waits: " + s.unavailable);
  b.finish(spec.lines);
  static const char* const order[] = {"inputs", "model", "memory", "kv",    "decode", "serve", "compute",
                                      "finetune", "fleet",  "network", "power", "cooling", "tco",  "cost",  "lines"};
  auto rank = [](const std::string& s) {
    for (std::size_t i = 0; i < std::size(order); ++i)
      if (s == order[i]) return i;
    return std::size(order);
  };
  std::stable_sort(p.sheets.begin(), p.sheets.end(), [&](const std::string& a, const std::string& b2) { return rank(a) < rank(b2); });
  return p;
}

}  // namespace infracalc::plan
