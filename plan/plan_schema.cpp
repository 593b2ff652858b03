#include "plan/plan_schema.hpp"

#include <mutex>
#include <stdexcept>

#include "plugins/formats/storage.hpp"
#include "plugins/registry.hpp"

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
  k.push_back({.section = "model", .name = "dtype", .input = "fit weights dtype"});
  k.push_back({.section = "model", .name = "kv_dtype", .default_value = "bf16", .mode = "serve", .input = "kv size dtype",
               .default_why = "serving engines keep the cache in the model's 16-bit format, bf16 for current checkpoints (vLLM's kv_cache_dtype auto)"});
  k.push_back({.section = "model", .name = "expert_dtype", .help = "storage format of routed MoE experts (default: dtype)", .input = "fit weights expert_dtype"});
  // hardware
  k.push_back({.section = "hardware", .name = "gpu", .kind = K::id, .help = "the accelerator (catalog id); or give system",
               .example = "h100-sxm", .kinds = {"accelerator"}});
  k.push_back({.section = "hardware", .name = "system", .kind = K::id,
               .help = "a catalog system (a node such as dgx-h100, or a rack such as gb200-nvl72): accelerator, GPUs per node and rack, power",
               .example = "dgx-h100", .kinds = {"system"}});
  k.push_back({.section = "hardware", .name = "gpus", .help = "a fixed fleet size: serving gives the capacity, training the duration (instead of a rate or a deadline)", .input = "cluster train gpus"});
  k.push_back({.section = "hardware", .name = "gpus_per_node", .kind = K::integer,
               .help = "accelerators per node (default: the system's, else 8)", .example = "8"});
  k.push_back({.section = "hardware", .name = "nodes_per_rack", .kind = K::integer,
               .help = "nodes per rack when the hardware is a node or a bare GPU", .default_value = "4", .example = "4"});
  k.push_back({.section = "hardware", .name = "gpus_per_rack", .kind = K::integer,
               .help = "accelerators per rack (default: the rack system's, else gpus_per_node x nodes_per_rack)", .example = "32"});
  k.push_back({.section = "hardware", .name = "host_power", .help = "power of one node without its accelerators (CPUs, memory, NICs, fans); needed when hardware is a bare GPU", .unit = "kW", .input = "power rack host_w"});
  k.push_back({.section = "hardware", .name = "tp", .kind = K::integer,
               .help = "tensor-parallel devices per model replica; auto: the smallest power of two that holds one sequence",
               .default_value = "auto", .example = "8", .auto_ok = true});
  k.push_back({.section = "hardware", .name = "pp", .mode = "train", .input = "fit train pp"});
  k.push_back({.section = "hardware", .name = "performance", .help = "expected: decode, prefill and serving at the efficiencies fitted to published measurements "
                       "(docs/validation.md); ceiling: 100% of the datasheet (also --ideal)",
               .default_value = "expected", .mode = "serve", .input = "serve capacity simulate_with",
               .default_why = "a plan buys hardware: it sizes with what deployments measure, the ceiling only when asked"});
  k.push_back({.section = "hardware", .name = "mbu", .help = "achieved share of memory bandwidth in decode; below 100% it replaces the calibration with this share",
               .default_value = "100%", .mode = "serve", .input = "serve capacity mbu"});
  k.push_back({.section = "hardware", .name = "mfu", .help = "achieved share of peak FLOP/s in prefill and decode", .default_value = "100%", .mode = "serve", .input = "serve capacity mfu"});
  k.push_back({.section = "hardware", .name = "memory_utilization", .mode = "serve", .input = "serve capacity memory_utilization"});
  k.push_back({.section = "hardware", .name = "idle_fraction", .kind = K::quantity,
               .help = "power at zero load as a share of full load (default: the system's idle_power / power, else the "
                       "accelerator's idle_power / tdp, else 0)",
               .example = "30%", .bound = Bound::fraction0});
  k.push_back({.section = "hardware", .name = "fabric", .help = "scale-out fabric: none, fat-tree or rail-optimised", .default_value = "rail-optimised", .input = "network fabric design", .more_choices = {"none"}, .default_why = "GPU clusters are cabled rail-optimised (NVIDIA's DGX SuperPOD reference architectures)"});
  k.push_back({.section = "hardware", .name = "switch", .kind = K::id, .default_value = "quantum-2-qm9700", .kinds = {"network"}, .input = "network fabric switch"});
  k.push_back({.section = "hardware", .name = "switch_power", .unit = "W", .input = "network fabric switch_power"});
  k.push_back({.section = "hardware", .name = "nics_per_gpu", .kind = K::integer,
               .help = "scale-out NIC ports per GPU (default: the system's NICs per node / GPUs per node, else 1)", .example = "1"});
  k.push_back({.section = "hardware", .name = "oversubscription", .input = "network fabric oversubscription"});
  k.push_back({.section = "hardware", .name = "host_cables", .input = "network fabric host_cables"});
  // workload
  k.push_back({.section = "workload", .name = "type", .kind = K::choice,
               .help = "serve (a request load), train (a training run) or finetune (a fine-tuning job, described in [finetune])",
               .example = "serve", .choices = {"serve", "train", "finetune"}});
  k.push_back({.section = "workload", .name = "rate", .kind = K::quantity, .dim = dims::frequency,
               .help = "requests per second to serve at peak", .example = "50/s", .unit = "req/s", .mode = "serve"});
  k.push_back({.section = "workload", .name = "prompt", .help = "prompt tokens per request", .mode = "serve", .input = "serve capacity prompt_tokens",
               .default_why = "the plan asks for it: the prompt length sizes the cache and the prefill"});
  k.push_back({.section = "workload", .name = "output", .help = "output tokens per request", .mode = "serve", .input = "serve capacity tokens_per_answer"});
  k.push_back({.section = "workload", .name = "batch", .kind = K::integer,
               .help = "sequences decoded together per replica; auto: the largest that fits memory, max_batch and the tpot target",
               .default_value = "auto", .example = "64", .auto_ok = true, .mode = "serve"});
  k.push_back({.section = "workload", .name = "max_batch", .kind = K::integer,
               .help = "cap on the automatic batch (vLLM's max_num_seqs default)", .default_value = "256", .example = "128", .mode = "serve"});
  k.push_back({.section = "workload", .name = "ttft", .mode = "serve", .input = "serve capacity ttft_target"});
  k.push_back({.section = "workload", .name = "tpot", .help = "time-per-output-token target (also caps the automatic batch)", .mode = "serve", .input = "serve capacity tpot_target"});
  k.push_back({.section = "workload", .name = "chunked_prefill", .default_value = "false", .mode = "serve", .input = "serve capacity chunked_prefill"});
  k.push_back({.section = "workload", .name = "max_load", .kind = K::quantity,
               .help = "replicas run at most this share of their capacity at the peak rate", .default_value = "80%", .example = "70%",
               .bound = Bound::fraction, .mode = "serve"});
  k.push_back({.section = "workload", .name = "tokens", .mode = "train", .input = "cluster train tokens"});
  k.push_back({.section = "workload", .name = "deadline", .help = "wall-clock time the run must finish in (gives the accelerator count)", .mode = "train", .input = "cluster train duration"});
  k.push_back({.section = "workload", .name = "mfu", .mode = "train", .input = "cluster train mfu"});
  k.push_back({.section = "workload", .name = "seq", .help = "training sequence length", .mode = "train", .input = "cluster train seq"});
  k.push_back({.section = "workload", .name = "micro_batch", .mode = "train", .input = "fit train micro_batch"});
  k.push_back({.section = "workload", .name = "zero", .default_value = "1", .mode = "train", .input = "fit train zero",
               .default_why = "large runs shard the optimizer state over data parallelism (Megatron-LM's distributed optimizer is ZeRO-1)"});
  k.push_back({.section = "workload", .name = "recompute", .mode = "train", .input = "cluster train recompute"});
  k.push_back({.section = "workload", .name = "optimizer", .mode = "train", .input = "fit train optimizer"});
  k.push_back({.section = "workload", .name = "goodput", .kind = K::quantity,
               .help = "useful share of the paid time (failures, restarts, checkpoints)", .default_value = "100%", .example = "90%",
               .bound = Bound::fraction, .mode = "train"});
  // finetune: the inputs of `fit finetune`; a key left out takes that calculator's default.
  k.push_back({.section = "finetune", .name = "method", .mode = "finetune", .input = "fit finetune method", .default_why = "the plan asks for it: the method decides the job"});
  k.push_back({.section = "finetune", .name = "rank", .mode = "finetune", .input = "fit finetune rank"});
  k.push_back({.section = "finetune", .name = "targets", .mode = "finetune", .input = "fit finetune targets"});
  k.push_back({.section = "finetune", .name = "dtype", .mode = "finetune", .input = "fit finetune dtype"});
  k.push_back({.section = "finetune", .name = "dataset_tokens", .mode = "finetune", .input = "fit finetune dataset_tokens"});
  k.push_back({.section = "finetune", .name = "epochs", .mode = "finetune", .input = "fit finetune epochs"});
  k.push_back({.section = "finetune", .name = "seq", .mode = "finetune", .input = "fit finetune seq"});
  k.push_back({.section = "finetune", .name = "micro_batch", .mode = "finetune", .input = "fit finetune micro_batch"});
  k.push_back({.section = "finetune", .name = "zero", .mode = "finetune", .input = "fit finetune zero"});
  k.push_back({.section = "finetune", .name = "recompute", .mode = "finetune", .input = "fit finetune recompute"});
  k.push_back({.section = "finetune", .name = "optimizer", .mode = "finetune", .input = "fit finetune optimizer"});
  k.push_back({.section = "finetune", .name = "mfu", .mode = "finetune", .input = "fit finetune mfu"});
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
  k.push_back({.section = "site", .name = "climate_water", .input = "cooling climate water"});
  k.push_back({.section = "site", .name = "wue", .kind = K::quantity, .dim = dims::water_intensity,
               .help = "site water per IT energy", .example = "0.3 L/kWh", .bound = Bound::non_negative});
  k.push_back({.section = "site", .name = "carbon_intensity", .kind = K::quantity, .dim = dims::carbon_intensity,
               .help = "grid carbon intensity (overrides grid)", .example = "300 g/kWh", .bound = Bound::non_negative});
  k.push_back({.section = "site", .name = "cooling", .kind = K::id,
               .help = "cooling technology (catalog id of type cooling); auto: the ladder's recommendation for the rack",
               .default_value = "auto", .example = "cooling-air", .kinds = {"facility"}, .auto_ok = true, .facility_type = "cooling"});
  k.push_back({.section = "site", .name = "coolant", .input = "cooling flow coolant"});
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
  k.push_back({.section = "money", .name = "life", .input = "tco hour life"});
  k.push_back({.section = "money", .name = "sold_share", .help = "share of the hours in the life the fleet is in service (billed)", .default_value = "100%", .input = "tco hour sold_share"});
  k.push_back({.section = "money", .name = "cost_of_capital", .help = "annual cost of capital (financing annuity); leave it out for no financing", .input = "tco hour cost_of_capital"});
  k.push_back({.section = "money", .name = "financing", .help = "flat financing per in-service accelerator-hour (instead of cost_of_capital)", .unit = "$/h", .input = "tco hour financing"});
  k.push_back({.section = "money", .name = "maintenance", .unit = "$/h", .input = "tco hour maintenance"});
  k.push_back({.section = "money", .name = "residual_value", .help = "resale value per accelerator at the end of its life", .input = "tco hour residual_value"});
  k.push_back({.section = "money", .name = "idle_power_share", .kind = K::quantity,
               .help = "power drawn in hours out of service, as a share of the in-service power (default: the idle floor, "
                       "hardware.idle_fraction of full load)",
               .example = "30%",
               .bound = Bound::fraction0});
  k.push_back({.section = "money", .name = "switch_price", .help = "price of one fabric switch", .input = "network fabric switch_price"});
  k.push_back({.section = "money", .name = "transceiver_price", .input = "network fabric transceiver_price"});
  k.push_back({.section = "money", .name = "cable_price", .input = "network fabric cable_price"});
  k.push_back({.section = "money", .name = "rental", .kind = K::id,
               .help = "a rental entry (catalog id) to compare owning with renting", .example = "h100-sxm-rental-aws", .kinds = {"price"}});
  k.push_back({.section = "money", .name = "rental_tier", .input = "cost token tier"});
  return k;
}

const Input* find_input(std::string_view path) {
  const auto a = path.find(' ');
  const auto b = path.rfind(' ');
  if (a == std::string_view::npos || a == b) return nullptr;
  const Plugin* p = find_plugin(path.substr(0, a));
  const Calculator* c = p != nullptr ? p->find(path.substr(a + 1, b - a - 1)) : nullptr;
  if (c != nullptr)
    for (const auto& in : c->inputs)
      if (in.name == path.substr(b + 1)) return &in;
  return nullptr;
}

// The descriptor is the one description of an input: what the key does not word for the plan comes from it.
void derive_from_input(KeyDef& k) {
  const Input* in = find_input(k.input);
  if (in == nullptr) throw std::logic_error("plan key " + k.path() + ": no calculator input \"" + std::string(k.input) + "\"");
  switch (in->kind) {
    case InputKind::quantity: k.kind = KeyKind::quantity; break;
    case InputKind::integer: k.kind = KeyKind::integer; break;
    case InputKind::choice: k.kind = KeyKind::choice; break;
    // A catalog id is text to the calculator; the key keeps its kinds for the planner's check.
    case InputKind::text: k.kind = k.kind == KeyKind::id ? KeyKind::id : KeyKind::text; break;
    // A file cannot hold a bare switch: it is written true or false.
    case InputKind::flag: k.kind = KeyKind::choice; break;
  }
  k.dim = in->dim;
  k.choices = in->kind == InputKind::flag ? std::vector<std::string_view>{"false", "true"} : in->choices;
  k.choices.insert(k.choices.end(), k.more_choices.begin(), k.more_choices.end());
  k.bound = in->bound;
  k.point = in->point;
  if (k.example.empty()) k.example = in->example;
  if (k.help.empty()) k.help = in->help;
  if (k.default_value.empty() && k.default_why.empty()) k.default_value = in->default_value;
}

}  // namespace

const Input* key_input(const KeyDef& key) { return key.input.empty() ? nullptr : find_input(key.input); }

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
  static const std::vector<KeyDef> keys = [] {
    std::vector<KeyDef> k = build_keys();
    for (auto& key : k)
      if (!key.input.empty()) derive_from_input(key);
    return k;
  }();
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
