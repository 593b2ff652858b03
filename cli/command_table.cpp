#include "cli/command_table.hpp"

namespace infracalc::cli {

namespace {

using V = ValueKind;

constexpr OptionSpec kOutput[] = {
    {"--format", V::format},     {"--json", V::none},   {"--csv", V::none},  {"--digits", V::text},
    {"--binary", V::none},       {"--color", V::color}, {"--as-of", V::text}, {"--data-dir", V::directory},
    {"--table", V::text},        {"--fields", V::text},
};

// A calculator with a chart writes it as plan --xlsx writes a workbook: one file, never replaced without --force.
constexpr OptionSpec kChart[] = {{"--plot", V::file}, {"--force"}};

constexpr OptionSpec kCalc[] = {{"--units"}};
constexpr OptionSpec kVerify[] = {{"--quick"}, {"--trace"}, {"--calibrate"}};
constexpr OptionSpec kValidate[] = {{"--kind", V::measurement_kind}, {"--file", V::file}};
constexpr OptionSpec kCalibrate[] = {{"--published"}, {"--out", V::file}, {"--no-loo"}, {"--iterations", V::text}};
constexpr OptionSpec kPlan[] = {{"--set", V::plan_key},  {"--sweep", V::plan_key}, {"--columns", V::text}, {"--pareto", V::text},
                                {"--xlsx", V::file},     {"--plot", V::directory}, {"--html", V::file},      {"--force"},
                                {"--check"},
                                {"--ideal"},             {"--stats"},              {"--keys"},             {"--shard", V::text},
                                {"--jobs", V::text}};
constexpr OptionSpec kBatch[] = {{"--fail-fast"}, {"--files-from", V::directory}};
constexpr OptionSpec kHwList[] = {{"--vendor", V::text},     {"--kind", V::hardware_kind}, {"--min-memory", V::text},
                                   {"--available-by", V::text}, {"--sort", V::text}};
constexpr OptionSpec kModelList[] = {{"--vendor", V::text}};
constexpr OptionSpec kModelImport[] = {{"--out", V::file}, {"--id", V::text}, {"--name", V::text}, {"--force"}};
constexpr OptionSpec kDataList[] = {{"--vendor", V::text}, {"--kind", V::entry_kind}};

constexpr SubcommandSpec kHw[] = {{"list", V::none, kHwList}, {"show", V::hardware_id}, {"compare", V::hardware_id}};
constexpr SubcommandSpec kModel[] = {{"list", V::none, kModelList}, {"show", V::model_id}, {"import", V::file, kModelImport}};
constexpr SubcommandSpec kData[] = {{"check"}, {"list", V::none, kDataList}, {"show", V::entry_id}};

constexpr CommandSpec kCommands[] = {
    {"calc", "evaluate a unit-checked expression: infracalc calc '140 GB / (3.35 TB/s)'; calc --units lists the units", V::text, kCalc},
    {"verify", "run the reference kernels that check each plugin's formulas", V::plugin, kVerify},
    {"validate", "predict published measurements through the calculators: validate [--kind inference|training] [--file F]",
     V::none, kValidate},
    {"calibrate", "fit the efficiency parameters to data/measured: calibrate --published [--out FILE]", V::none, kCalibrate},
    {"plan", "a deployment from a scenario file: plan FILE.toml [--set k=v] [--sweep k=a,b] [--xlsx F] [--plot DIR]", V::file,
     kPlan},
    {"batch", "JSON Lines in, JSON Lines out: one calculation per record", V::file, kBatch},
    {"list", "list plugins and their calculators"},
    {"hw", "hardware catalog: hw list [--vendor V --kind K --min-memory M --available-by YYYY-MM --sort F] | hw show ID | hw compare ID ID...", V::none, {}, kHw},
    {"model", "model catalog: model list | model show ID | model import config.json [--out F] [--force]", V::none, {}, kModel},
    {"data", "data files: data check | data list [--kind K] | data show ID [--as-of DATE]", V::none, {}, kData},
    {"schema", "JSON Schema (draft 2020-12) of the JSON output: schema [PLUGIN CALC] (docs/schema/)", V::plugin, {}, {}, false},
    {"completions", "shell completions: completions bash|zsh|fish", V::shell, {}, {}, false},
    {"help", "this help, or help PLUGIN", V::plugin, {}, {}, false},
};

}  // namespace

std::span<const CommandSpec> command_table() { return kCommands; }

const CommandSpec* find_command(std::string_view name) {
  for (const auto& c : kCommands)
    if (c.name == name) return &c;
  return nullptr;
}

std::span<const OptionSpec> output_options() { return kOutput; }

std::span<const OptionSpec> chart_options() { return kChart; }

}  // namespace infracalc::cli
