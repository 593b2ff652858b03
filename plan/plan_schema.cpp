#include "plan/plan_schema.hpp"

#include <mutex>

#include "plugins/formats/storage.hpp"

namespace infracalc::plan {

namespace {

std::vector<KeyDef> build_keys() {
  const auto formats = storage_format_names();
  using K = KeyKind;
  std::vector<KeyDef> k;
  // plan
  k.push_back({.section = "plan", .name = "name", .kind = K::text, .help = "title of the scenario", .example = "Llama 3 70B chat on H100"});
  k.push_back({.section = "plan", .name = "description", .kind = K::text, .help = "what the scenario is for", .example = "..."});
  // model
  k.push_back({.section = "model", .name = "id", .kind = K::id, .help = "the model (catalog id)", .example = "llama-3-70b", .kinds = {"model"}});
  k.push_back({.section = "model", .name = "dtype", .kind = K::choice,
               .help = "weight storage format (default: the model's native checkpoint format, else bf16)", .example = "fp8",
               .choices = formats});
  k.push_back({.section = "model", .name = "kv_dtype", .kind = K::choice, .help = "KV-cache storage format", .default_value = "bf16",
               .example = "fp8", .choices = formats, .mode = "serve"});
  k.push_back({.section = "model", .name = "expert_dtype", .kind = K::choice, .help = "storage format of routed MoE experts (default: dtype)",
               .example = "fp4-e2m1", .choices = formats});
  // hardware
  k.push_back({.section = "hardware", .name = "gpu", .kind = K::id, .help = "the accelerator (catalog id); or give system",
               .example = "h100-sxm", .kinds = {"accelerator"}});
  k.push_back({.section = "hardware", .name = "system", .kind = K::id,
               .help = "a catalog system (a node such as dgx-h100, or a rack such as gb200-nvl72): accelerator, GPUs per node and rack, power",
               .example = "dgx-h100", .kinds = {"system"}});
  k.push_back({.section = "hardware", .name = "gpus", .kind = K::integer,
               .help = "a fixed fleet size: serving gives the capacity, training the duration (instead of a rate or a deadline)",
               .example = "16384"});
  k.push_back({.section = "hardware", .name = "gpus_per_node", .kind = K::integer,
               .help = "accelerators per node (default: the system's, else 8)", .example = "8"});
  k.push_back({.section = "hardware", .name = "nodes_per_rack", .kind = K::integer,
               .help = "nodes per rack when the hardware is a node or a bare GPU", .default_value = "4", .example = "4"});
  k.push_back({.section = "hardware", .name = "gpus_per_rack", .kind = K::integer,
               .help = "accelerators per rack (default: the rack system's, else gpus_per_node x nodes_per_rack)", .example = "32"});
  k.push_back({.section = "hardware", .name = "host_power", .kind = K::quantity, .dim = dims::power,
               .help = "power of one node without its accelerators (CPUs, memory, NICs, fans); needed when hardware is a bare GPU",
               .example = "2.5 kW", .unit = "kW"});
  k.push_back({.section = "hardware", .name = "tp", .kind = K::integer,
               .help = "tensor-parallel devices per model replica; auto: the smallest power of two that holds one sequence",
               .default_value = "auto", .example = "8", .auto_ok = true});
  k.push_back({.section = "hardware", .name = "pp", .kind = K::integer, .help = "pipeline stages (training)", .default_value = "1",
               .example = "16", .mode = "train"});
  k.push_back({.section = "hardware", .name = "performance", .kind = K::choice,
               .help = "expected: decode, prefill and serving at the efficiencies fitted to published measurements "
                       "(docs/validation.md); ceiling: 100% of the datasheet (also --ideal)",
               .default_value = "expected", .choices = {"expected", "ceiling"}, .mode = "serve"});
  k.push_back({.section = "hardware", .name = "mbu", .kind = K::quantity,
               .help = "achieved share of memory bandwidth in decode; below 100% it replaces the calibration with this share",
               .default_value = "100%", .example = "80%",
               .bound = Bound::fraction, .mode = "serve"});
  k.push_back({.section = "hardware", .name = "mfu", .kind = K::quantity, .help = "achieved share of peak FLOP/s in prefill and decode",
               .default_value = "100%", .example = "50%", .bound = Bound::fraction, .mode = "serve"});
  k.push_back({.section = "hardware", .name = "memory_utilization", .kind = K::quantity,
               .help = "share of device memory the server may use (vLLM's gpu_memory_utilization)", .default_value = "0.9",
               .example = "0.95", .bound = Bound::fraction, .mode = "serve"});
  k.push_back({.section = "hardware", .name = "idle_fraction", .kind = K::quantity,
               .help = "power at zero load as a share of full load (default: the system's idle_power / power, else the "
                       "accelerator's idle_power / tdp, else 0)",
               .example = "30%", .bound = Bound::fraction0});
  k.push_back({.section = "hardware", .name = "fabric", .kind = K::choice, .help = "scale-out fabric: none, fat-tree or rail-optimised",
               .default_value = "rail-optimised", .choices = {"none", "fat-tree", "rail-optimised"}});
  k.push_back({.section = "hardware", .name = "switch", .kind = K::id, .help = "fabric switch (catalog id)",
               .default_value = "quantum-2-qm9700", .example = "spectrum-4-sn5600", .kinds = {"network"}});
  k.push_back({.section = "hardware", .name = "switch_power", .kind = K::quantity, .dim = dims::power,
               .help = "power of one fabric switch without optics, when the catalog has none", .example = "1.5 kW", .unit = "W"});
  k.push_back({.section = "hardware", .name = "nics_per_gpu", .kind = K::integer,
               .help = "scale-out NIC ports per GPU (default: the system's NICs per node / GPUs per node, else 1)", .example = "1"});
  k.push_back({.section = "hardware", .name = "oversubscription", .kind = K::text, .help = "leaf down:up ratio of the fabric",
               .default_value = "1:1", .example = "3:1"});
  k.push_back({.section = "hardware", .name = "host_cables", .kind = K::choice, .help = "NIC-to-leaf cables: optical or copper",
               .default_value = "optical", .choices = {"optical", "copper"}});
  // workload
  k.push_back({.section = "workload", .name = "type", .kind = K::choice,
               .help = "serve (a request load), train (a training run) or finetune (a fine-tuning job, described in [finetune])",
               .example = "serve", .choices = {"serve", "train", "finetune"}});
  k.push_back({.section = "workload", .name = "rate", .kind = K::quantity, .dim = dims::frequency,
               .help = "requests per second to serve at peak", .example = "50/s", .unit = "req/s", .mode = "serve"});
  k.push_back({.section = "workload", .name = "prompt", .kind = K::quantity, .dim = dims::token, .help = "prompt tokens per request",
               .example = "2000", .mode = "serve"});
  k.push_back({.section = "workload", .name = "output", .kind = K::quantity, .dim = dims::token, .help = "output tokens per request",
               .example = "500", .mode = "serve"});
  k.push_back({.section = "workload", .name = "batch", .kind = K::integer,
               .help = "sequences decoded together per replica; auto: the largest that fits memory, max_batch and the tpot target",
               .default_value = "auto", .example = "64", .auto_ok = true, .mode = "serve"});
  k.push_back({.section = "workload", .name = "max_batch", .kind = K::integer,
               .help = "cap on the automatic batch (vLLM's max_num_seqs default)", .default_value = "256", .example = "128", .mode = "serve"});
  k.push_back({.section = "workload", .name = "ttft", .kind = K::quantity, .dim = dims::time, .help = "time-to-first-token target",
               .example = "2 s", .mode = "serve"});
  k.push_back({.section = "workload", .name = "tpot", .kind = K::quantity, .dim = dims::time,
               .help = "time-per-output-token target (also caps the automatic batch)", .example = "50 ms", .mode = "serve"});
  k.push_back({.section = "workload", .name = "chunked_prefill", .kind = K::choice,
               .help = "the simulated engine splits prompts into chunks that share steps with decodes (Sarathi-Serve)",
               .default_value = "false", .choices = {"false", "true"}, .mode = "serve"});
  k.push_back({.section = "workload", .name = "max_load", .kind = K::quantity,
               .help = "replicas run at most this share of their capacity at the peak rate", .default_value = "80%", .example = "70%",
               .bound = Bound::fraction, .mode = "serve"});
  k.push_back({.section = "workload", .name = "tokens", .kind = K::quantity, .dim = dims::token, .help = "training tokens",
               .example = "15.6e12", .mode = "train"});
  k.push_back({.section = "workload", .name = "deadline", .kind = K::quantity, .dim = dims::time,
               .help = "wall-clock time the run must finish in (gives the accelerator count)", .example = "90 d", .mode = "train"});
  k.push_back({.section = "workload", .name = "mfu", .kind = K::quantity, .help = "model FLOPs utilisation over the whole run",
               .default_value = "40%", .example = "38%", .bound = Bound::fraction, .mode = "train"});
  k.push_back({.section = "workload", .name = "seq", .kind = K::quantity, .dim = dims::token, .help = "training sequence length",
               .default_value = "8192", .example = "8192", .mode = "train"});
  k.push_back({.section = "workload", .name = "micro_batch", .kind = K::integer, .help = "sequences per device per micro-step",
               .default_value = "1", .example = "1", .mode = "train"});
  k.push_back({.section = "workload", .name = "zero", .kind = K::integer, .help = "ZeRO stage 0-3 (optimizer state sharding)",
               .default_value = "1", .example = "1", .bound = Bound::non_negative, .mode = "train"});
  k.push_back({.section = "workload", .name = "recompute", .kind = K::choice, .help = "activation recomputation",
               .default_value = "selective", .choices = {"none", "selective", "full"}, .mode = "train"});
  k.push_back({.section = "workload", .name = "optimizer", .kind = K::choice, .help = "optimizer (state per parameter)",
               .default_value = "adamw", .choices = {"adam", "adamw", "sgd", "adafactor", "adam8bit"}, .mode = "train"});
  k.push_back({.section = "workload", .name = "goodput", .kind = K::quantity,
               .help = "useful share of the paid time (failures, restarts, checkpoints)", .default_value = "100%", .example = "90%",
               .bound = Bound::fraction, .mode = "train"});
  // finetune: the inputs of `fit finetune`; a key left out takes that calculator's default.
  k.push_back({.section = "finetune", .name = "method", .kind = K::choice,
               .help = "full (every parameter trains), lora (16-bit frozen base, adapters train; Hu et al. 2021) or qlora (4-bit NF4 "
                       "base; Dettmers et al. 2023)",
               .example = "qlora", .choices = {"full", "lora", "qlora"}, .mode = "finetune"});
  k.push_back({.section = "finetune", .name = "rank", .kind = K::integer,
               .help = "LoRA rank r (default: fit finetune's, 16)", .example = "64", .mode = "finetune"});
  k.push_back({.section = "finetune", .name = "targets", .kind = K::choice,
               .help = "matrices with adapters: qv, attn, mlp or all (default: fit finetune's, all, as QLoRA recommends)",
               .example = "all", .choices = {"qv", "attn", "mlp", "all"}, .mode = "finetune"});
  k.push_back({.section = "finetune", .name = "dtype", .kind = K::choice,
               .help = "frozen base format (default: bf16 for lora, NF4 with double quantization for qlora)", .example = "int4-g64",
               .choices = formats, .mode = "finetune"});
  k.push_back({.section = "finetune", .name = "dataset_tokens", .kind = K::quantity, .dim = dims::token,
               .help = "tokens in the fine-tuning dataset", .example = "100M", .mode = "finetune"});
  k.push_back({.section = "finetune", .name = "epochs", .kind = K::quantity, .help = "passes over the dataset (default: 1)",
               .example = "3", .mode = "finetune"});
  k.push_back({.section = "finetune", .name = "seq", .kind = K::quantity, .dim = dims::token,
               .help = "sequence length (default: fit finetune's, 2048)", .example = "4096", .mode = "finetune"});
  k.push_back({.section = "finetune", .name = "micro_batch", .kind = K::integer, .help = "sequences per step per device (default: 1)",
               .example = "4", .mode = "finetune"});
  k.push_back({.section = "finetune", .name = "zero", .kind = K::integer,
               .help = "ZeRO stage 0-3 over the devices; 3 also shards the frozen base, as FSDP does (default: 0)", .example = "3",
               .bound = Bound::non_negative, .mode = "finetune"});
  k.push_back({.section = "finetune", .name = "recompute", .kind = K::choice,
               .help = "activation recomputation (default: full, the gradient checkpointing fine-tuning recipes switch on)",
               .example = "full", .choices = {"none", "selective", "full"}, .mode = "finetune"});
  k.push_back({.section = "finetune", .name = "optimizer", .kind = K::choice, .help = "optimizer of the trained parameters (default: adamw)",
               .example = "adamw", .choices = {"adam", "adamw", "sgd", "adafactor", "adam8bit"}, .mode = "finetune"});
  k.push_back({.section = "finetune", .name = "mfu", .kind = K::quantity,
               .help = "model FLOPs utilisation (default: fit finetune's 40%, the pretraining figure; small adapter runs often reach less)",
               .example = "30%", .bound = Bound::fraction, .mode = "finetune"});
  // site
  k.push_back({.section = "site", .name = "grid", .kind = K::id, .help = "electricity grid (catalog id): tariff and carbon intensity",
               .example = "us-virginia", .kinds = {"grid"}});
  k.push_back({.section = "site", .name = "tariff", .kind = K::quantity, .dim = dims::money_per_energy,
               .help = "delivered electricity price (overrides the grid's)", .example = "$0.08/kWh", .unit = "$/kWh"});
  k.push_back({.section = "site", .name = "pue", .kind = K::quantity, .help = "power usage effectiveness: facility / IT energy",
               .example = "1.2", .bound = Bound::positive});
  k.push_back({.section = "site", .name = "efficiency", .kind = K::id,
               .help = "a PUE/WUE benchmark (catalog id of type efficiency), used when pue or wue is not given",
               .example = "efficiency-google-fleet", .kinds = {"facility"}, .facility_type = "efficiency"});
  k.push_back({.section = "site", .name = "climate", .kind = K::id,
               .help = "the site's climate (catalog id, data/climate/): PUE and WUE from its typical year through the cooling "
                       "plant, as `cooling climate` computes them, when pue or wue is not given",
               .example = "ashburn-va", .kinds = {"climate"}});
  k.push_back({.section = "site", .name = "climate_cooling", .kind = K::choice,
               .help = "the plant `cooling climate` runs the site's year through (default: air for cooling-air and cooling-rear-door, "
                       "direct-liquid for the liquid technologies, whose facility side is warm water)",
               .example = "direct-liquid", .choices = {"air", "direct-liquid"}});
  k.push_back({.section = "site", .name = "climate_water", .kind = K::choice,
               .help = "the climate's plant may evaporate water: cooling towers, evaporative coolers (default: cooling climate's, yes)",
               .example = "no", .choices = {"yes", "no"}});
  k.push_back({.section = "site", .name = "wue", .kind = K::quantity, .dim = dims::water_intensity,
               .help = "site water per IT energy", .example = "0.3 L/kWh", .bound = Bound::non_negative});
  k.push_back({.section = "site", .name = "carbon_intensity", .kind = K::quantity, .dim = dims::carbon_intensity,
               .help = "grid carbon intensity (overrides grid)", .example = "300 g/kWh", .bound = Bound::non_negative});
  k.push_back({.section = "site", .name = "cooling", .kind = K::id,
               .help = "cooling technology (catalog id of type cooling); auto: the ladder's recommendation for the rack",
               .default_value = "auto", .example = "cooling-air", .kinds = {"facility"}, .auto_ok = true, .facility_type = "cooling"});
  k.push_back({.section = "site", .name = "coolant", .kind = K::choice, .help = "liquid loop coolant", .default_value = "water",
               .choices = {"water", "pg25"}});
  k.push_back({.section = "site", .name = "supply", .kind = K::quantity, .dim = dims::temperature,
               .help = "coolant supply temperature (default: the cooling technology's, else 30 degC)", .example = "30 degC",
               .bound = Bound::any, .point = true});
  k.push_back({.section = "site", .name = "delta_t", .kind = K::quantity, .dim = dims::temperature,
               .help = "coolant temperature rise across a rack (default: the cooling technology's, else 10 K)", .example = "10 K"});
  k.push_back({.section = "site", .name = "cdu", .kind = K::id, .help = "coolant distribution unit (catalog id of type cdu)",
               .example = "cdu-coolit-chx1000", .kinds = {"facility"}, .facility_type = "cdu"});
  k.push_back({.section = "site", .name = "it_power", .kind = K::quantity, .dim = dims::power,
               .help = "IT power available: serving plans fill it with replicas instead of sizing for a rate", .example = "100 MW",
               .unit = "MW"});
  k.push_back({.section = "site", .name = "period", .kind = K::quantity, .dim = dims::time,
               .help = "period of the energy, water and carbon figures (serving)", .default_value = "1 yr", .example = "1 yr"});
  // money
  k.push_back({.section = "money", .name = "capex_per_gpu", .kind = K::quantity, .dim = dims::currency,
               .help = "equipment and installation per accelerator: its share of the server, rack and install (network is added from the fabric)",
               .example = "$40000"});
  k.push_back({.section = "money", .name = "purchase", .kind = K::id,
               .help = "a purchase-price entry (catalog id, dated 'purchase') when capex_per_gpu is not given: the accelerator alone, or a system's price shared by its accelerators",
               .example = "h100-sxm-purchase", .kinds = {"price"}});
  k.push_back({.section = "money", .name = "life", .kind = K::quantity, .dim = dims::time,
               .help = "depreciation life of the equipment", .example = "4 yr"});
  k.push_back({.section = "money", .name = "sold_share", .kind = K::quantity,
               .help = "share of the hours in the life the fleet is in service (billed)", .default_value = "100%", .example = "90%",
               .bound = Bound::fraction});
  k.push_back({.section = "money", .name = "cost_of_capital", .kind = K::quantity,
               .help = "annual cost of capital (financing annuity); leave it out for no financing", .example = "8%",
               .bound = Bound::fraction});
  k.push_back({.section = "money", .name = "financing", .kind = K::quantity, .dim = dims::money_rate,
               .help = "flat financing per in-service accelerator-hour (instead of cost_of_capital)", .example = "$0.45/h",
               .bound = Bound::non_negative, .unit = "$/h"});
  k.push_back({.section = "money", .name = "maintenance", .kind = K::quantity, .dim = dims::money_rate,
               .help = "maintenance and staff per installed accelerator-hour (every hour of the life, in service or not)",
               .default_value = "$0/h", .example = "$0.30/h",
               .bound = Bound::non_negative, .unit = "$/h"});
  k.push_back({.section = "money", .name = "residual_value", .kind = K::quantity, .dim = dims::currency,
               .help = "resale value per accelerator at the end of its life", .default_value = "$0", .example = "$5000",
               .bound = Bound::non_negative});
  k.push_back({.section = "money", .name = "idle_power_share", .kind = K::quantity,
               .help = "power drawn in hours out of service, as a share of the in-service power (default: the idle floor, "
                       "hardware.idle_fraction of full load)",
               .example = "30%",
               .bound = Bound::fraction0});
  k.push_back({.section = "money", .name = "switch_price", .kind = K::quantity, .dim = dims::currency, .help = "price of one fabric switch",
               .example = "$30000"});
  k.push_back({.section = "money", .name = "transceiver_price", .kind = K::quantity, .dim = dims::currency,
               .help = "price of one pluggable transceiver", .example = "$900"});
  k.push_back({.section = "money", .name = "cable_price", .kind = K::quantity, .dim = dims::currency, .help = "price of one cable",
               .example = "$150"});
  k.push_back({.section = "money", .name = "rental", .kind = K::id,
               .help = "a rental entry (catalog id) to compare owning with renting", .example = "h100-sxm-rental-aws", .kinds = {"price"}});
  k.push_back({.section = "money", .name = "rental_tier", .kind = K::choice, .help = "which rental price series",
               .default_value = "on-demand", .choices = {"on-demand", "committed", "capacity-block", "spot"}});
  return k;
}

}  // namespace

const std::vector<SectionDef>& plan_sections() {
  static const std::vector<SectionDef> s = {
      {"plan", "name and description"},
      {"model", "the model and its storage formats"},
      {"hardware", "accelerator or system, packaging, parallelism, efficiencies, fabric"},
      {"workload", "serve: request rate, prompt and output lengths, latency targets; train: tokens, deadline, MFU"},
      {"finetune", "a fine-tuning job (workload.type = \"finetune\"): method, rank, targets, dataset tokens, epochs"},
      {"site", "electricity, PUE or climate, cooling, coolant, power budget"},
      {"money", "capital, life, financing, maintenance, network prices, rental to compare"},
      {"line", "[[line]] name = \"...\", expr = \"@a / @b\": extra worksheet lines computed from others"},
      {"sweep", "\"section.key\" = [values]: evaluate the plan over the grid"},
      {"variant", "[[variant]] name = \"...\" plus \"section.key\" = value: named sets of overrides, swept like a key"},
      {"report", "columns = [...] for sweep rows; pareto = [...] keys to minimise (key:max to maximise)"},
  };
  return s;
}

const std::vector<KeyDef>& plan_keys() {
  static const std::vector<KeyDef> keys = build_keys();
  return keys;
}

const KeyDef* find_key(std::string_view path, std::string_view mode) {
  const auto& keys = plan_keys();
  const auto dot = path.find('.');
  if (dot != std::string_view::npos) {
    const auto section = path.substr(0, dot);
    const auto name = path.substr(dot + 1);
    for (const auto& k : keys)
      if (k.section == section && k.name == name) return &k;
    return nullptr;
  }
  const KeyDef* found = nullptr;
  for (const auto& k : keys) {
    if (k.name != path || (!mode.empty() && !k.mode.empty() && k.mode != mode)) continue;
    if (found != nullptr) return nullptr;  // ambiguous without a mode: mfu is in hardware (serve) and workload (train)
    found = &k;
  }
  return found;
}

std::vector<std::string_view> key_paths() {
  static std::vector<std::string> paths;
  static std::once_flag once;
  std::call_once(once, [] {
    for (const auto& k : plan_keys()) paths.push_back(k.path());
  });
  return {paths.begin(), paths.end()};
}

}  // namespace infracalc::plan
