#include "catalog/schema.hpp"

#include <array>

namespace infracalc {

namespace {

using namespace dims;
// Named here so that the plugin namespace infracalc::power never competes with it in a unity batch.
using dims::power;

// Compound dimensions the data files use that have no name in units/dim.hpp.
constexpr Dim kViscosity = pressure * time;
constexpr Dim kConductivity = power / length / temperature;
constexpr Dim kFlowPerPower = volume_flow / power;

constexpr FieldSpec q(std::string_view kind, std::string_view path, Dim dim, double min, double max,
                      std::string_view meaning, bool required = false) {
  FieldSpec s{kind, path, dim, min, max};
  s.required = required;
  s.meaning = meaning;
  return s;
}
constexpr FieldSpec count(std::string_view kind, std::string_view path, double min, double max, std::string_view meaning,
                          bool required = false) {
  return q(kind, path, none, min, max, meaning, required);
}
constexpr FieldSpec t(std::string_view kind, std::string_view path, std::string_view meaning, bool required = false) {
  FieldSpec s{kind, path, none, 0, 0};
  s.text = true;
  s.required = required;
  s.meaning = meaning;
  return s;
}
constexpr FieldSpec ref(std::string_view kind, std::string_view path, std::string_view target, std::string_view meaning) {
  FieldSpec s = t(kind, path, meaning);
  s.ref_kind = target;
  return s;
}
constexpr FieldSpec b(std::string_view kind, std::string_view path, std::string_view meaning) {
  FieldSpec s{kind, path, none, 0, 0};
  s.boolean = true;
  s.meaning = meaning;
  return s;
}
constexpr FieldSpec list(std::string_view kind, std::string_view path, std::string_view meaning) {
  FieldSpec s{kind, path, none, 0, 0};
  s.list = true;
  s.meaning = meaning;
  return s;
}
constexpr FieldSpec numbers(std::string_view kind, std::string_view path, double min, double max, std::string_view meaning) {
  FieldSpec s{kind, path, none, min, max};
  s.numbers = true;
  s.meaning = meaning;
  return s;
}
constexpr FieldSpec point(std::string_view kind, std::string_view path, std::string_view meaning) {
  FieldSpec s = q(kind, path, temperature, 200, 420, meaning);
  s.point = true;
  return s;
}

// Plausible ranges are wide on purpose: they catch unit slips (GB typed for TB, W for kW, bits for
// bytes), not outliers. Values are in base units: B, B/s, FLOP/s, W, m, m2, kg, s, K, USD, tok.
constexpr FieldSpec kSpecs[] = {
    // ---- accelerator: one chip or package (per GPU for multi-GPU products) ----
    t("accelerator", "vendor", "maker, lower case (nvidia, amd, google, aws, intel, groq, cerebras, apple, qualcomm)", true),
    t("accelerator", "type", "gpu, tpu, asic, wafer, soc or npu"),
    t("accelerator", "architecture", "microarchitecture or generation name (Hopper, CDNA 3, Trillium)"),
    t("accelerator", "form_factor", "SXM5, PCIe, OAM, superchip module, SoC, ..."),
    t("accelerator", "memory_type", "HBM3, HBM3e, GDDR7, LPDDR5X, on-chip SRAM"),
    q("accelerator", "memory_capacity", information, 1e6, 1e14, "device memory the accelerator addresses directly (GB)", true),
    q("accelerator", "memory_visible", information, 1e6, 1e14,
      "device memory software sees (nvidia-smi / rocm-smi total, MiB or GiB); what fit, kv, serve and plan use"),
    q("accelerator", "memory_bandwidth", data_rate, 1e9, 1e17, "peak device-memory bandwidth (TB/s)", true),
    q("accelerator", "tdp", power, 0.1, 1e5, "thermal design or maximum board power (W)"),
    q("accelerator", "idle_power", power, 0.01, 1e5, "power drawn idle, powered on with no work (W); the note says how measured"),
    q("accelerator", "die_area", area, 1e-6, 0.1, "silicon area of the compute die(s) (mm2)"),
    count("accelerator", "transistors", 1e6, 1e14, "transistor count"),
    t("accelerator", "process", "foundry process node name"),
    t("accelerator", "launch", "first availability, YYYY-MM or YYYY-Qn"),
    q("accelerator", "scaleup_bandwidth", data_rate, 1e8, 1e16,
      "chip-to-chip scale-up bandwidth per chip; the note says per direction or both directions combined"),
    ref("accelerator", "scaleup_interconnect", "interconnect", "id of the scale-up link (nvlink-4, ici-v5p, ...)"),
    ref("accelerator", "host_interconnect", "interconnect", "id of the host link (pcie-5, nvlink-c2c, ...)"),
    q("accelerator", "scaleout_bandwidth", data_rate, 1e8, 1e15, "integrated network ports per chip (Gaudi RoCE, TPU DCN)"),
    count("accelerator", "compute_units", 1, 1e7, "SMs, CUs, TensorCores, NeuronCores or cores"),
    count("accelerator", "gpu_cores", 1, 1e4, "GPU cores of an SoC (Apple)"),
    q("accelerator", "sram", information, 1e5, 1e12, "on-chip SRAM or last-level cache (MB)"),
    q("accelerator", "sram_bandwidth", data_rate, 1e10, 1e18, "on-chip SRAM bandwidth"),
    q("accelerator", "fabric_bandwidth", data_rate, 1e10, 1e18, "on-chip or on-wafer network bandwidth"),
    q("accelerator", "clock", frequency, 1e7, 1e10, "boost or nominal clock (GHz)"),
    q("accelerator", "npu_peak", flop_rate, 1e9, 1e16, "peak of the neural engine / NPU (TOP/s); the note names the precision"),
    q("accelerator", "cpu_memory_capacity", information, 1e8, 1e13, "CPU-attached memory in the same package (GH200, GB200)"),
    q("accelerator", "cpu_memory_bandwidth", data_rate, 1e9, 1e14, "bandwidth of that CPU memory"),
    q("accelerator", "peak.*", flop_rate, 1e9, 1e19, "peak rate per precision, <precision>_dense or _sparse (TFLOP/s, TOP/s)"),
    // ---- system: a node, a rack or a pod ----
    t("system", "vendor", "maker", true),
    t("system", "type", "node, rack or pod"),
    ref("system", "accelerator", "accelerator", "id of the accelerator it holds"),
    count("system", "accelerators", 1, 1e7, "accelerators in the system", true),
    count("system", "accelerators_per_node", 1, 1e3, "accelerators in one node or compute tray"),
    count("system", "nodes", 1, 1e6, "nodes or compute trays in the system"),
    count("system", "racks", 1, 1e5, "racks in the system"),
    count("system", "accelerators_per_rack", 1, 1e4, "accelerators in one rack"),
    count("system", "scaleup_domain", 1, 1e6, "accelerators in one NVLink / ICI / Infinity Fabric domain"),
    ref("system", "scaleup_interconnect", "interconnect", "id of the scale-up link"),
    q("system", "scaleup_bandwidth_per_accelerator", data_rate, 1e9, 1e15, "scale-up bandwidth of one accelerator"),
    q("system", "scaleup_bandwidth_total", data_rate, 1e10, 1e18, "aggregate scale-up bandwidth of the domain"),
    t("system", "scaleup_topology", "switched, full mesh, 3D torus, ..."),
    count("system", "switch_chips", 0, 1e5, "scale-up switch ASICs (NVSwitch) in the system"),
    ref("system", "switch", "network", "id of the scale-up switch"),
    q("system", "accelerator_memory_total", information, 1e9, 1e16, "accelerator memory of the whole system"),
    q("system", "memory_bandwidth_total", data_rate, 1e10, 1e18, "accelerator-memory bandwidth of the whole system"),
    t("system", "host_cpu", "host CPU model"),
    count("system", "host_cpus", 0, 1e5, "host CPU sockets in the system"),
    count("system", "host_cpu_cores", 0, 1e7, "host CPU cores in the system"),
    q("system", "host_memory", information, 1e9, 1e16, "host (CPU) memory in the system"),
    ref("system", "host_link", "interconnect", "id of the link between one accelerator and host memory (pcie-5, nvlink-c2c)"),
    ref("system", "nic", "network", "id of the scale-out NIC"),
    count("system", "nics_per_node", 0, 64, "scale-out NICs (compute fabric) per node"),
    count("system", "nics", 0, 1e6, "scale-out NICs in the whole system"),
    q("system", "nic_speed", data_rate, 1e8, 1e13, "line rate of one scale-out NIC port (Gb/s)"),
    count("system", "dpus_per_node", 0, 16, "DPUs / storage-and-management NICs per node"),
    q("system", "power", power, 100, 1e9, "maximum power of the whole system (kW)"),
    q("system", "idle_power", power, 10, 1e9, "power of the whole system idle, powered on with no work (kW); the note says how known"),
    q("system", "power_per_rack", power, 100, 2e6, "power of one rack (kW)"),
    count("system", "rack_units", 1, 100, "height in rack units"),
    t("system", "cooling", "air, liquid (direct-to-chip), hybrid"),
    q("system", "weight", mass, 1, 1e6, "weight (kg)"),
    t("system", "launch", "first availability"),
    q("system", "peak.*", flop_rate, 1e12, 1e21, "aggregate peak rate of the system per precision"),
    // ---- interconnect: a link standard or generation ----
    t("interconnect", "type", "pcie, nvlink, c2c, cxl, ualink, infiniband, ethernet, ici, neuronlink, infinity-fabric", true),
    t("interconnect", "generation", "generation or version name"),
    t("interconnect", "vendor", "owner of the standard or product"),
    q("interconnect", "transfer_rate", frequency, 1e8, 1e12, "raw transfers per second per lane (GT/s)"),
    q("interconnect", "lane_rate", data_rate, 1e7, 1e12, "signalling rate of one lane in one direction (Gb/s)"),
    t("interconnect", "signaling", "NRZ or PAM4"),
    t("interconnect", "encoding", "line code or framing (128b/130b, 1b/1b FLIT with FEC, 64b/66b, 256b/257b RS-FEC)"),
    count("interconnect", "encoding_efficiency", 0.5, 1, "payload share after line coding (128/130 = 0.9846)"),
    count("interconnect", "lanes", 1, 1024, "lanes in the reference width each direction (16 for x16)"),
    count("interconnect", "links", 1, 1024, "links per device"),
    q("interconnect", "link_bandwidth", data_rate, 1e7, 1e13, "one link, one direction, after encoding"),
    q("interconnect", "bandwidth_per_direction", data_rate, 1e7, 1e14, "reference width or whole device, one direction, after encoding"),
    q("interconnect", "bandwidth_bidirectional", data_rate, 1e7, 1e14, "both directions combined"),
    q("interconnect", "energy_per_bit", energy_per_bit, 1e-15, 1e-9, "energy per transferred bit (pJ/bit)"),
    q("interconnect", "reach", length, 1e-4, 1e6, "typical reach of the medium"),
    count("interconnect", "max_devices", 1, 1e7, "largest domain the standard addresses"),
    t("interconnect", "released", "specification release or first product, YYYY-MM"),
    ref("interconnect", "phy", "interconnect", "id of the physical layer it reuses (CXL on PCIe)"),
    // ---- network: switches, NICs, DPUs and optics ----
    t("network", "type", "switch, nic, dpu, optics or cable", true),
    t("network", "vendor", "maker", true),
    t("network", "protocol", "infiniband, ethernet, nvlink, ..."),
    count("network", "ports", 1, 1e4, "ports at port_speed"),
    q("network", "port_speed", data_rate, 1e8, 1e13, "line rate of one port (Gb/s)"),
    q("network", "capacity", data_rate, 1e9, 1e15, "sum of the port rates in one direction (Tb/s); note the vendor's convention"),
    count("network", "serdes_lanes", 1, 1e5, "electrical lanes of the ASIC"),
    q("network", "serdes_rate", data_rate, 1e8, 1e12, "signalling rate of one lane (Gb/s)"),
    q("network", "power", power, 0.1, 1e5, "NICs, DPUs: typical or maximum power; the note says which (switches use chip_power and system_power)"),
    q("network", "chip_power", power, 0.1, 1e5, "switch: the ASIC alone; not used for fabric power"),
    q("network", "system_power", power, 1, 1e5, "switch: the whole box without optics (ASIC, CPU, fans, supply losses), typical; fabrics use it"),
    q("network", "power_per_port", power, 0.05, 100, "power per port (optics)"),
    q("network", "energy_per_bit", energy_per_bit, 1e-15, 1e-8, "power divided by the rate (pJ/bit)"),
    q("network", "latency", time, 1e-10, 1e-3, "port-to-port latency"),
    q("network", "reach", length, 1e-2, 1e6, "reach of the optics or cable"),
    t("network", "form_factor", "OSFP, QSFP-DD, PCIe card, 1U switch, ..."),
    t("network", "host_interface", "host bus of a NIC (PCIe Gen5 x16)"),
    t("network", "process", "process node of the ASIC"),
    t("network", "launch", "first availability"),
    t("network", "media", "fibre or copper type, wavelength"),
    count("network", "transistors", 1e6, 1e13, "transistor count of the ASIC"),
    t("network", "cooling", "air or liquid"),
    // ---- model ----
    t("model", "vendor", "publisher, lower case"),
    t("model", "family", "model family"),
    t("model", "architecture", "Hugging Face architecture class"),
    t("model", "release", "release date, YYYY-MM-DD or YYYY-MM"),
    t("model", "native_format", "storage format of the published checkpoint's weights (bf16, fp8, ...): the default --dtype"),
    t("model", "native_expert_format", "storage format of the routed experts when it differs (gpt-oss: mxfp4): the default --expert-dtype"),
    count("model", "layers", 1, 1000, "transformer layers", true),
    count("model", "hidden_size", 16, 1e6, "residual width", true),
    count("model", "attention_heads", 1, 1024, "query heads per layer", true),
    count("model", "kv_heads", 1, 1024, "key/value heads per layer", true),
    count("model", "head_dim", 1, 4096, "width of one query/key head", true),
    count("model", "ffn_size", 1, 1e7, "dense MLP intermediate width"),
    t("model", "activation", "swiglu, geglu, gelu, relu"),
    count("model", "vocab_size", 1, 1e7, "vocabulary size"),
    b("model", "tied_embeddings", "input embedding and output head share one matrix"),
    b("model", "attention_bias", "q, k and v projections carry biases"),
    b("model", "linear_bias", "every linear layer carries a bias: q, k, v, output and MLP projections (GPT-2, GPT-NeoX)"),
    t("model", "norm", "layernorm (weight and bias) or rmsnorm (weight only, the default)"),
    count("model", "position_embeddings", 1, 1e7, "learned absolute position embeddings (GPT-2's n_positions); absent for RoPE"),
    q("model", "max_context", token, 1, 1e9, "longest supported context (tokens)"),
    q("model", "training_batch_tokens", token, 1e3, 1e10, "global batch of the published pre-training run at full size (tokens per optimizer step): cluster layout's default"),
    count("model", "params_total", 1e6, 1e14, "published total parameter count", true),
    count("model", "params_active", 1e6, 1e14, "published parameters active per token (MoE)"),
    b("model", "active_excludes_embedding", "the published active count leaves out the input embedding"),
    t("model", "attention.layout", "mha, gqa, mqa or mla"),
    q("model", "attention.sliding_window", token, 1, 1e9, "window of sliding-window layers (tokens)"),
    list("model", "attention.layer_pattern", "full/sliding/ssm per layer, repeated cyclically"),
    count("model", "attention.kv_shared_layers", 0, 1000, "layers that reuse an earlier layer's KV cache"),
    count("model", "attention.kv_lora_rank", 1, 1e5, "MLA latent width"),
    count("model", "attention.q_lora_rank", 0, 1e5, "MLA query latent width (0 = none)"),
    count("model", "attention.qk_rope_head_dim", 1, 4096, "MLA decoupled RoPE key width"),
    count("model", "attention.qk_nope_head_dim", 1, 4096, "MLA per-head query/key width without RoPE"),
    count("model", "attention.v_head_dim", 1, 4096, "MLA per-head value width"),
    count("model", "moe.experts", 1, 1e5, "routed experts per MoE layer"),
    count("model", "moe.experts_per_token", 1, 1e4, "routed experts active per token"),
    count("model", "moe.shared_experts", 0, 1e3, "shared experts per MoE layer"),
    count("model", "moe.expert_ffn_size", 1, 1e6, "intermediate width of one expert"),
    count("model", "moe.dense_layers", 0, 1000, "leading layers with a dense MLP"),
    t("model", "ssm.kind", "mamba (Mamba-1, the default) or mamba2"),
    count("model", "ssm.d_state", 1, 1e5, "state width per channel (mamba_d_state, ssm_state_size)"),
    count("model", "ssm.d_conv", 1, 1e3, "causal convolution kernel width (mamba_d_conv, conv_kernel)"),
    count("model", "ssm.d_inner", 1, 1e7, "expanded inner width (expand x hidden_size)"),
    count("model", "ssm.dt_rank", 1, 1e6, "Mamba-1 dt projection rank (default ceil(hidden_size / 16))"),
    count("model", "ssm.heads", 1, 1e5, "Mamba-2 heads"),
    count("model", "ssm.groups", 1, 1e5, "Mamba-2 B/C groups (n_groups, default 1)"),
    b("model", "ssm.conv_bias", "the convolution carries a bias (default true)"),
    b("model", "ssm.proj_bias", "in_proj and out_proj carry biases (default false)"),
    b("model", "ssm.inner_norms", "RMSNorms on dt, B and C inside the mixer (Jamba)"),
    t("model", "ssm.state_dtype", "storage format of the recurrent conv and SSM state (default bf16)"),
    // ---- price: dated series of prices ----
    t("price", "item", "what is priced: a catalog id or a description", true),
    t("price", "unit_of_sale", "accelerator-hour, accelerator, system, rack, token"),
    t("price", "currency_note", "how a non-USD quote was converted"),
    t("price", "provider", "who sells it, lower case (aws, lambda, anthropic, openai); absent for market-wide figures"),
    t("price", "instance", "the provider's instance type or offer (p5.48xlarge)"),
    count("price", "gpus_per_instance", 1, 1e5,
          "accelerators in one instance; rental prices are per accelerator (instance price / this)"),
    t("price", "region", "the provider's region the prices are quoted for (us-east-1)"),
    q("price", "on_demand", money_rate, 1e-6, 1, "on-demand rental per accelerator-hour ($/h)"),
    q("price", "committed", money_rate, 1e-6, 1, "reserved or contracted rental per accelerator-hour ($/h)"),
    q("price", "capacity_block", money_rate, 1e-6, 1, "short-term reserved block per accelerator-hour ($/h)"),
    q("price", "spot", money_rate, 1e-6, 1, "spot or interruptible rental per accelerator-hour ($/h)"),
    q("price", "purchase", currency, 1, 1e10, "purchase price of one unit ($)"),
    q("price", "input", money_per_token, 1e-11, 1e-2, "API price per input token ($/Mtok)"),
    q("price", "output", money_per_token, 1e-11, 1e-2, "API price per output token ($/Mtok)"),
    count("price", "cache_read", 0, 1, "cached-input price as a share of the base input price (%)"),
    count("price", "cache_write", 1, 5, "cache-write price as a multiple of the base input price"),
    count("price", "cache_write_1h", 1, 5,
          "cache-write price for the optional 1-hour cache lifetime, as a multiple of the base input price"),
    q("price", "cache_ttl", time, 1, 604800, "default lifetime of a prompt-cache entry (min)"),
    // ---- climate: a site's typical meteorological year, binned ----
    t("climate", "country", "ISO country code", true),
    t("climate", "station", "weather station (WMO id)", true),
    count("climate", "latitude", -90, 90, "degrees north"),
    count("climate", "longitude", -180, 180, "degrees east"),
    q("climate", "elevation", length, -500, 9000, "station elevation (m)"),
    t("climate", "dataset", "typical-year dataset and its period (TMY3, TMYx, IWEC)", true),
    point("climate", "annual_dry_bulb_mean", "mean dry-bulb temperature over the year (degC)"),
    point("climate", "annual_wet_bulb_mean", "mean wet-bulb temperature over the year (degC)"),
    point("climate", "bins.start", "lower edge of the first temperature bin (degC)"),
    q("climate", "bins.width", temperature, 0.1, 10, "width of one temperature bin (K)"),
    count("climate", "bins.count", 1, 1000, "temperature bins per histogram"),
    count("climate", "month.month", 1, 12, "month of the year"),
    count("climate", "month.hours", 672, 744, "hours in the month"),
    point("climate", "month.dry_bulb_mean", "mean dry-bulb temperature of the month (degC)"),
    point("climate", "month.wet_bulb_mean", "mean wet-bulb temperature of the month (degC)"),
    point("climate", "month.dew_point_mean", "mean dew point of the month (degC)"),
    numbers("climate", "month.dry_bulb_hours", 0, 744, "hours of the month in each dry-bulb bin"),
    numbers("climate", "month.wet_bulb_hours", 0, 744, "hours of the month in each wet-bulb bin"),
    // ---- grid: a region's electricity ----
    t("grid", "region", "region or market name", true),
    t("grid", "country", "ISO country code"),
    t("grid", "operator", "grid operator or ISO/RTO"),
    q("grid", "tariff", money_per_energy, 1e-10, 1e-6, "industrial electricity price ($/kWh), dated series"),
    q("grid", "carbon_intensity", carbon_intensity, 1e-11, 1e-6, "average generation carbon intensity (g/kWh), dated series"),
    count("grid", "renewable_share", 0, 1, "share of generation from renewables, dated series"),
    // ---- facility: cooling technologies, coolants, CDUs, efficiency benchmarks ----
    t("facility", "type", "cooling, coolant, cdu, efficiency, requirement, piping or embodied-carbon", true),
    t("facility", "vendor", "maker, for products"),
    q("facility", "rack_density_min", power, 0, 1e7, "lowest rack power the technology is used for (kW)"),
    q("facility", "rack_density_max", power, 100, 1e7, "highest rack power demonstrated or announced (kW); the note says which"),
    q("facility", "rack_density_typical", power, 100, 1e7, "upper end of mainstream deployments (kW)"),
    q("facility", "heat_flux_limit", heat_flux, 1e3, 1e9, "die-average heat flux it removes at the package, with the lid and cooler base spreading the heat (W/cm2)"),
    q("facility", "package_power_limit", power, 1, 1e5, "heat one package's cooler carries (air: the largest package that ships air-cooled)"),
    t("facility", "heat_transfer", "what carries the heat: air, single-phase liquid, boiling dielectric"),
    t("facility", "composition", "what the coolant is"),
    point("facility", "freezing_point", "freezing point of the coolant"),
    point("facility", "properties.temperature", "temperature of this row of properties"),
    q("facility", "properties.density", density, 500, 2500, "density (kg/m3)"),
    q("facility", "properties.specific_heat", specific_heat, 500, 6000, "specific heat capacity (J/(kg*K))"),
    q("facility", "properties.viscosity", kViscosity, 1e-5, 1, "dynamic viscosity (mPa*s)"),
    q("facility", "properties.thermal_conductivity", kConductivity, 0.01, 10, "thermal conductivity (W/(m*K))"),
    q("facility", "capacity", power, 1e3, 1e8, "heat a CDU moves at its rated approach (kW)"),
    q("facility", "flow", volume_flow, 1e-6, 10, "rated coolant flow (L/min)"),
    q("facility", "flow_per_power", kFlowPerPower, 1e-10, 1e-6, "secondary flow per kW of heat (L/min/kW)"),
    q("facility", "approach", temperature, 0.1, 30, "secondary supply minus facility water supply (K)"),
    point("facility", "supply_temperature", "design coolant supply temperature"),
    point("facility", "return_temperature", "design coolant return temperature"),
    q("facility", "delta_t", temperature, 0.5, 50, "design temperature rise (K)"),
    q("facility", "pressure_drop", pressure, 1, 1e7, "pressure drop at rated flow"),
    t("facility", "form_factor", "in-row, in-rack, rear door, tank"),
    point("facility", "flow_by_supply.supply_temperature", "facility coolant supply temperature of this row"),
    q("facility", "flow_by_supply.flow", volume_flow, 1e-6, 10, "minimum coolant flow at that supply temperature"),
    q("facility", "flow_by_supply.pressure_drop", pressure, 1, 1e7, "pressure drop at that flow"),
    t("facility", "scope", "what a benchmark covers (industry survey, one operator's fleet)"),
    count("facility", "pue", 1, 3, "power usage effectiveness, dated series"),
    q("facility", "wue", water_intensity, 0, 1e-8, "water usage effectiveness (L/kWh), dated series"),
    // piping: a pipe series (Schedule 40 steel) for sizing and Darcy-Weisbach pressure drop
    q("facility", "roughness", length, 0, 0.01, "absolute wall roughness of the pipe material (mm)"),
    t("facility", "sizes.nominal", "nominal pipe size (NPS), e.g. 2 or 1-1/2"),
    q("facility", "sizes.outer_diameter", length, 1e-3, 5, "outside diameter of this size (mm)"),
    q("facility", "sizes.wall", length, 1e-4, 0.1, "wall thickness of this size (mm); inside diameter = outside - 2 x wall"),
    // embodied-carbon: a manufacturing (cradle-to-gate) footprint
    ref("facility", "accelerator", "accelerator", "id of the accelerator an embodied-carbon footprint is for"),
    count("facility", "accelerators_per_baseboard", 1, 1e3, "accelerators on the board the footprint was published for"),
    q("facility", "embodied_per_baseboard", mass, 1, 1e6, "cradle-to-gate carbon of the whole board (kgCO2e)"),
    q("facility", "embodied_per_accelerator", mass, 0.1, 1e5, "cradle-to-gate carbon per accelerator, with its share of the board (kgCO2e)"),
    count("facility", "shares.*", 0, 1, "share of the embodied carbon by component (memory, other_ics, thermal_mechanical, ...)"),
    // ---- memory, storage, reliability ----
    t("memory", "type", "hbm, ddr, lpddr, gddr, cxl", true),
    q("memory", "bandwidth_per_device", data_rate, 1e8, 1e13, "bandwidth of one stack, channel or module"),
    q("memory", "capacity_per_device", information, 1e6, 1e13, "capacity of one stack, channel or module"),
    q("memory", "pin_rate", data_rate, 1e7, 1e11, "data rate per pin (Gb/s)"),
    count("memory", "interface_width", 1, 1e5, "data bits per stack or channel"),
    q("memory", "latency", time, 1e-9, 1e-3, "typical load-to-use latency"),
    t("memory", "released", "standard release or first product"),
    t("storage", "type", "nvme, object, parallel-fs", true),
    q("storage", "read_bandwidth", data_rate, 1e6, 1e14, "sequential read bandwidth"),
    q("storage", "write_bandwidth", data_rate, 1e6, 1e14, "sequential write bandwidth"),
    q("storage", "capacity", information, 1e9, 1e18, "capacity"),
    q("storage", "latency", time, 1e-7, 1, "typical access latency"),
    t("reliability", "scope", "what population the figures describe", true),
    count("reliability", "accelerators", 1, 1e7, "accelerators in the observed population"),
    q("reliability", "duration", time, 3600, 1e9, "observation window"),
    count("reliability", "interruptions", 0, 1e7, "interruptions in the window"),
    count("reliability", "unexpected_interruptions", 0, 1e7, "unplanned interruptions in the window"),
    count("reliability", "hardware_share", 0, 1, "share of unplanned interruptions due to hardware"),
    q("reliability", "mtbf_per_accelerator", time, 3600, 1e12, "mean time between failures of one accelerator"),
    q("reliability", "job_mtbf", time, 60, 1e9, "mean time between interruptions of the whole job"),
    // ---- calibration: the efficiency models' parameters (plugins/decode/efficiency.hpp) ----
    count("calibration", "bandwidth_fraction", 0.05, 1, "asymptotic share of the datasheet memory bandwidth"),
    q("calibration", "bandwidth_half", information, 0, 1e12, "bytes per step at which half that share is reached"),
    count("calibration", "matmul_fraction_16bit", 0.05, 1, "asymptotic share of the dense peak, 16-bit matrix multiplies"),
    count("calibration", "matmul_fraction_8bit", 0.05, 1, "asymptotic share of the dense peak, 8-bit matrix multiplies"),
    count("calibration", "matmul_fraction_4bit", 0.05, 1, "asymptotic share of the dense peak, 4-bit matrix multiplies"),
    count("calibration", "matmul_half_tokens", 0, 1e6, "tokens per step at which half the matrix-multiply share is reached"),
    count("calibration", "attention_fraction", 0.05, 1, "share of the peak fused attention reaches in prefill"),
    count("calibration", "collective_fraction", 0.05, 1, "asymptotic share of the link bandwidth a collective reaches"),
    q("calibration", "collective_half", information, 0, 1e12, "message size at which half that share is reached"),
    q("calibration", "collective_latency", time, 0, 1e-2, "time per collective step beyond its bytes"),
    q("calibration", "sequence_overhead", time, 0, 1e-2, "scheduling and sampling time per sequence per step"),
    count("calibration", "training_comm_overlap", 0, 1, "share of a training step's tensor-parallel communication hidden"),
    count("calibration", "engines.*.bandwidth_scale", 0.05, 2, "engine's multiplier on the bandwidth share"),
    count("calibration", "engines.*.compute_scale", 0.05, 2, "engine's multiplier on the matrix-multiply share"),
    q("calibration", "engines.*.step_overhead", time, 0, 1, "engine's fixed time per step"),
    count("calibration", "engines.*.max_batch", 1, 1e6, "engine's default largest batch"),
    count("calibration", "band.*.median_abs_error", 0, 10, "median |expected / measured - 1| of the fit"),
    count("calibration", "band.*.p90_abs_error", 0, 10, "90th percentile of the same"),
    count("calibration", "band.*.points", 0, 1e6, "published points in the band"),
    count("calibration", "band.*.loo_median_abs_error", 0, 10, "median error when each point is left out of the fit"),
};

bool matches(std::string_view pattern, std::string_view path) {
  while (!pattern.empty()) {
    const auto pd = pattern.find('.');
    const auto qd = path.find('.');
    const std::string_view ps = pattern.substr(0, pd);
    const std::string_view qs = path.substr(0, qd);
    if (ps != "*" && ps != qs) return false;
    if (pd == std::string_view::npos) return qd == std::string_view::npos;
    if (qd == std::string_view::npos) return false;
    pattern.remove_prefix(pd + 1);
    path.remove_prefix(qd + 1);
  }
  return path.empty();
}

}  // namespace

std::span<const FieldSpec> field_specs() { return kSpecs; }

std::string schema_path(std::string_view path) {
  std::string out;
  bool in_index = false;
  for (char c : path) {
    if (c == '[') in_index = true;
    else if (c == ']') in_index = false;
    else if (!in_index) out += c;
  }
  return out;
}

const FieldSpec* find_field_spec(std::string_view kind, std::string_view path) {
  std::string p = schema_path(path);
  for (const auto& s : kSpecs)
    if (s.kind == kind && matches(s.path, p)) return &s;
  return nullptr;
}

}  // namespace infracalc
