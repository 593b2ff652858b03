#include <algorithm>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/plan_command.hpp"
#include "plan/plan_schema.hpp"
#include "documents/atomic_file.hpp"
#include "units/printable.hpp"

namespace infracalc::cli {

namespace {

// The values a starting scenario sets, per kind: enough for the planner to run (plan init KIND | plan - works),
// taken from the shipped examples (examples/*.toml), whose comments give their sources.
struct Starter {
  std::string_view path;
  std::string_view toml;  // the value as TOML text
};

struct Template {
  std::string_view kind;
  std::string_view title;
  std::string_view mode;  // the workload type
  std::vector<Starter> values;
};

const std::vector<Template>& templates() {
  static const std::vector<Template> t = {
      {"serve", "serve a model at a request rate", "serve",
       {{"plan.name", "\"My serving plan\""}, {"model.id", "\"llama-3-70b\""}, {"model.dtype", "\"bf16\""},
        {"hardware.system", "\"dgx-h100\""}, {"hardware.tp", "8"}, {"workload.type", "\"serve\""}, {"workload.rate", "\"20/s\""},
        {"workload.prompt", "2000"}, {"workload.output", "500"}, {"workload.tpot", "\"50 ms\""}, {"workload.ttft", "\"1 s\""},
        {"site.grid", "\"us-virginia\""}, {"site.pue", "1.3"}, {"money.capex_per_gpu", "\"$40000\""}, {"money.life", "\"4 yr\""}}},
      {"train", "a training run: tokens, fleet, deadline", "train",
       {{"plan.name", "\"My training plan\""}, {"model.id", "\"llama-3-70b\""}, {"model.dtype", "\"bf16\""},
        {"hardware.system", "\"dgx-h100\""}, {"hardware.gpus", "2048"}, {"hardware.tp", "8"}, {"hardware.pp", "4"},
        {"workload.type", "\"train\""}, {"workload.tokens", "\"2e12\""}, {"workload.seq", "8192"}, {"workload.mfu", "\"40%\""},
        {"site.grid", "\"us-texas\""}, {"site.pue", "1.2"}, {"money.capex_per_gpu", "\"$40000\""}, {"money.life", "\"5 yr\""}}},
      {"finetune", "a fine-tuning job: method, dataset, devices", "finetune",
       {{"plan.name", "\"My fine-tuning job\""}, {"model.id", "\"llama-3.1-8b\""}, {"hardware.system", "\"dgx-h100\""},
        {"hardware.gpus", "8"}, {"hardware.fabric", "\"none\""}, {"workload.type", "\"finetune\""}, {"finetune.method", "\"lora\""},
        {"finetune.dataset_tokens", "\"100M\""}, {"site.grid", "\"us-virginia\""}, {"site.climate", "\"ashburn-va\""},
        {"money.capex_per_gpu", "\"$40000\""}, {"money.life", "\"4 yr\""}}},
      {"site", "how much a power budget holds and what it costs", "serve",
       {{"plan.name", "\"My 100 MW site\""}, {"model.id", "\"llama-3-70b\""}, {"model.dtype", "\"fp8\""}, {"model.kv_dtype", "\"fp8\""},
        {"hardware.system", "\"dgx-h200\""}, {"hardware.tp", "4"}, {"hardware.switch", "\"quantum-x800-q3400\""}, {"workload.type", "\"serve\""}, {"workload.prompt", "2000"},
        {"workload.output", "500"}, {"workload.tpot", "\"50 ms\""}, {"workload.max_load", "\"70%\""}, {"site.it_power", "\"100 MW\""}, {"site.pue", "1.2"},
        {"site.grid", "\"us-virginia\""}, {"money.capex_per_gpu", "\"$45000\""}, {"money.life", "\"4 yr\""}}},
  };
  return t;
}

// A value from the schema as TOML text: numbers bare, everything else quoted.
std::string toml_value(const plan::KeyDef& k, std::string_view text) {
  const bool number = !text.empty() && text.find_first_not_of("0123456789.") == std::string_view::npos;
  if (number && (k.kind == plan::KeyKind::integer || k.kind == plan::KeyKind::quantity)) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string plan_template(std::string_view kind) {
  const Template* t = nullptr;
  for (const auto& x : templates())
    if (x.kind == kind) t = &x;
  if (t == nullptr)
    throw UserError{{"plan init: unknown kind \"" + printable(kind) + "\"", "plan init serve, plan init train, plan init finetune or plan init site"}};
  std::string out = fmt::format(
      "# A starting scenario: {} (`infracalc plan init {}`). Run it with `infracalc plan FILE`.\n"
      "# Every key a {} plan reads is here, with what it means; the set ones are a working example to edit, the\n"
      "# commented ones (#) take the default shown, or stay unset. `infracalc plan --help` and docs/plan.md say more.\n",
      t->title, t->kind, t->mode);
  // The sections and keys come from the planner's schema, so a new key appears here as soon as it exists.
  for (const auto& s : plan::plan_sections()) {
    std::string body;
    for (const auto& k : plan::plan_keys()) {
      if (k.section != s.name || (!k.mode.empty() && k.mode != t->mode)) continue;
      const std::string path = k.path();
      std::string line = "# " + std::string(k.help);
      if (!k.default_value.empty()) line += " (default " + std::string(k.default_value) + ")";
      body += line + "\n";
      const auto set = std::find_if(t->values.begin(), t->values.end(), [&](const Starter& v) { return v.path == path; });
      if (set != t->values.end()) {
        body += std::string(k.name) + " = " + std::string(set->toml) + "\n";
      } else {
        const std::string_view shown = !k.default_value.empty() ? k.default_value : k.example;
        body += "# " + std::string(k.name) + " = " + (shown.empty() ? std::string("\"\"") : toml_value(k, shown)) + "\n";
      }
    }
    if (body.empty()) continue;
    out += "\n[" + std::string(s.name) + "]  # " + std::string(s.help) + "\n" + body;
  }
  return out;
}

ExitStatus run_plan_init(std::string_view kind, const std::string& out_file, bool force) {
  const std::string text = plan_template(kind);
  if (out_file.empty() || out_file == "-") {
    emit(text);
    return ExitStatus::ok;
  }
  AtomicFile f(out_file, force);
  f.write(text);
  f.commit();
  report("wrote", out_file);
  return ExitStatus::ok;
}

}  // namespace infracalc::cli
