// The command line: one table of commands (as in ninja), CLI11 for flags, and the exit-status contract.
// This is the only translation unit that includes CLI11.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <optional>

#include "cli/app.hpp"
#include "cli/calculator_svg.hpp"
#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "units/printable.hpp"
#include "cli/plan_command.hpp"
#include "plan/plan_file.hpp"
#include "cli/progress.hpp"
#include "catalog/embedded.hpp"
#include "documents/atomic_file.hpp"
#include "host/context.hpp"
#include "host/input_aliases.hpp"
#include "plugins/registry.hpp"
#include "units/suggest.hpp"

namespace infracalc::cli {

namespace {


/// A built-in command's entry point (argv[0] is the command name); its name, summary, options and completions
/// are the row of command_table() with the same name.
struct Command {
  std::string_view name;
  ExitStatus (*run)(int argc, char** argv);
};

// Global output options, registered on every command's parser.
void add_global(CLI::App& app, GlobalOptions& g) {
  // The names come from the one table (command_table.cpp), which hoisting and completions also read.
  for (const auto& o : output_options()) {
    const std::string n(o.name);
    if (n == "--format") app.add_option(n, g.format, "table, json, csv or md");
    else if (n == "--json") app.add_flag(n, g.json, "JSON output");
    else if (n == "--csv") app.add_flag(n, g.csv, "CSV output");
    else if (n == "--digits") app.add_option(n, g.out.number.digits, "significant digits");
    else if (n == "--binary") app.add_flag(n, g.out.number.binary, "binary prefixes");
    else if (n == "--color") app.add_option(n, g.color, "auto, always or never");
    else if (n == "--as-of") app.add_option(n, g.as_of, "date for dated series");
    else if (n == "--data-dir") app.add_option(n, g.data_dirs, "overlay data directory")->allow_extra_args(false);  // one per use, repeatable
    else if (n == "--table") app.add_option(n, g.out.table, "table to write with --csv");
    else if (n != "--fields") throw std::logic_error("output option " + n + " has no binding in add_global");  // --fields: calculators and batch
  }
}

// How many words the output option at argv[i] spans (the option and its value), or 0 when argv[i] is none.
int output_option_words(int argc, char** argv, int i) {
  const std::string_view a = argv[i];
  const std::string_view name = a.substr(0, a.find('='));
  // The output options of command_table.cpp (and --fields, which calculators and batch add).
  for (const auto& o : output_options())
    if (o.name == name) return o.value != ValueKind::none && name.size() == a.size() && i + 1 < argc ? 2 : 1;
  return 0;
}

// Output options given before the command (`infracalc --json kv size ...`), or between a plugin and its
// calculator, move to the end of the line (before a `--`), where every command's parser reads them.
std::vector<char*> hoist_output_options(int argc, char** argv) {
  std::vector<char*> head{argv[0]};
  std::vector<char*> moved;
  int i = 1;
  // The words up to the command, then (for a plugin) up to its calculator.
  for (int words = 0; i < argc && words < 2;) {
    if (const int n = output_option_words(argc, argv, i); n > 0) {
      moved.insert(moved.end(), argv + i, argv + i + n);
      i += n;
      continue;
    }
    head.push_back(argv[i]);
    const bool plugin = words == 0 && is_plugin(argv[i]);
    ++i;
    words = plugin ? words + 1 : 2;
  }
  if (moved.empty()) return {argv, argv + argc};
  std::vector<char*> out = head;
  int dash = i;
  while (dash < argc && std::string_view(argv[dash]) != "--") ++dash;
  out.insert(out.end(), argv + i, argv + dash);
  out.insert(out.end(), moved.begin(), moved.end());
  out.insert(out.end(), argv + dash, argv + argc);
  return out;
}

// The long option names (without "--") the words up to a `--` spell, `--name` and `--name=VALUE` alike.
std::vector<std::string_view> named_options(int argc, char** argv) {
  std::vector<std::string_view> out;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;
    if (a.size() >= 3 && a.substr(0, 2) == "--") out.push_back(a.substr(2, a.find('=') == std::string_view::npos ? std::string_view::npos : a.find('=') - 2));
  }
  return out;
}

// Rejects unknown --flags before CLI11 sees them: an option that is none of `names` (long names without "--"), with
// the nearest as a did-you-mean.
void check_flags(const std::string& command, const std::vector<std::string>& names, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") break;
    if (a.rfind("--", 0) != 0 || a.size() < 3) continue;
    a = a.substr(2, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - 2);
    if (std::find(names.begin(), names.end(), a) != names.end()) continue;
    std::vector<std::string_view> views(names.begin(), names.end());
    std::string hint = did_you_mean(a, views, "--");
    throw UserError{{command + ": unknown option '--" + a + "'", hint.empty() ? "see `infracalc " + command + " --help`" : hint}};
  }
}

std::vector<std::string> long_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    for (const auto& n : o->get_lnames()) names.push_back(n);
  return names;
}

/// Thrown after a command printed its --help: the command is done, with status 0.
struct HelpPrinted {};

// Parses with CLI11, mapping its errors to UserError (exit 2); CLI11's own --help prints and ends the command.
// `known`: every long option of the command, when the app holds only those the words name (run_plugin).
void parse(CLI::App& app, int argc, char** argv, const std::vector<std::string>* known = nullptr) {
  check_flags(app.get_name(), known != nullptr ? *known : long_names(app), argc, argv);
  // A single-value option given twice keeps the last value (as in ripgrep), never CLI11's "at most 1" error.
  for (CLI::Option* o : app.get_options())
    if (o->get_multi_option_policy() == CLI::MultiOptionPolicy::Throw && o->get_items_expected_max() <= 1)
      o->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    emit(app.help() + "\n" + output_options_help());
    throw HelpPrinted{};
  } catch (const CLI::ParseError& e) {
    throw UserError{{app.get_name() + ": " + e.what(), "see `infracalc " + app.get_name() + " --help`"}};
  }
}

void prepare(GlobalOptions& g) {
  finish_global_options(g);
  apply_data_dirs(g);
}

ExitStatus cmd_calc(int argc, char** argv) {
  CLI::App app{"evaluate a unit-checked expression", "calc"};
  GlobalOptions g;
  add_global(app, g);
  std::vector<std::string> words;
  app.add_option("expression", words, "the expression");
  bool units = false;
  app.add_flag("--units", units, "list every unit with its dimension");
  bool help = false;
  app.set_help_flag();
  app.add_flag("--help,-h", help);
  if (argc >= 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) help = true;
  if (help) {
    emit("usage: infracalc calc EXPR [-> UNIT]\n\n"
         "  Unit-checked arithmetic: + - * / (also x and ÷), ^, parentheses, min max ceil floor sqrt abs round exp ln log10 log2.\n"
         "  Numbers take units (3.35 TB/s, $2.50/h, 30 degC, 128k); '-> UNIT' converts the answer.\n"
         "  GB is 10^9 B and GiB 2^30 B; yr is the Julian year (365.25 d); degC and degF are points, K a difference.\n"
         "  `infracalc calc --units` lists every unit with its dimension.\n\n"
         "examples\n  infracalc calc '140 GB / (3.35 TB/s)'\n  infracalc calc '700 W * 1 yr -> MWh'\n"
         "  infracalc calc '192 GiB -> GB'\n\n" + output_options_help());
    return ExitStatus::ok;
  }
  // An expression that starts with a minus ("-nan", "-3 W") reads as an option; say so instead of
  // reporting a missing expression.
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-') continue;
    const std::string name = a.substr(0, a.find('='));
    if (app.get_option_no_throw(name) != nullptr) continue;
    throw UserError{{"calc: \"" + printable(a) + "\" reads as an option, not as the start of the expression",
                     "put -- before an expression that starts with a minus: infracalc calc -- '" + printable(a) + "'"}};
  }
  parse(app, argc, argv);
  prepare(g);
  if (units) return run_calc_units(g);
  if (words.empty()) throw UserError{{"calc: expression is required", "see `infracalc calc --help`"}};
  std::string expr;
  for (const auto& w : words) expr += (expr.empty() ? "" : " ") + w;
  return run_calc(expr, g);
}

ExitStatus cmd_list(int argc, char** argv) {
  CLI::App app{"list plugins and calculators", "list"};
  GlobalOptions g;
  add_global(app, g);
  parse(app, argc, argv);
  prepare(g);
  return run_list(g);
}

ExitStatus cmd_verify(int argc, char** argv) {
  CLI::App app{"run reference kernels", "verify"};
  GlobalOptions g;
  add_global(app, g);
  std::vector<std::string> plugins;
  KernelOptions k;
  bool calibrate = false;
  app.add_option("plugins", plugins);
  app.add_flag("--quick", k.quick, "small sizes");
  app.add_flag("--trace", k.trace, "step-by-step traces on stderr");
  app.add_flag("--calibrate", calibrate, "write this machine's measured figures to the user data dir");
  bool help = false;
  app.set_help_flag();
  app.add_flag("--help,-h", help);
  parse(app, argc, argv);
  if (help) {
    emit("usage: infracalc verify [PLUGIN...] [--quick] [--trace] [--calibrate]\n\n"
         "  Runs each plugin's reference kernels and compares them with its formulas; exits 1 if any check fails.\n"
         "  --quick runs small sizes and skips timing checks (in a full run a timing check outside tolerance is reported as\n"
         "  \"warn\", never a failure: a busy machine slows any measurement); --calibrate (with decode) writes this machine's measured\n"
         "  bandwidth and peak to accelerators/this-host.toml in the user data dir, for --gpu this-host.\n\n" +
         output_options_help());
    return ExitStatus::ok;
  }
  prepare(g);
  if (calibrate) {
    if (k.quick) throw UserError{{"verify --calibrate measures at full size and cannot run with --quick", "drop --quick"}};
    if (plugins.empty()) plugins.push_back("decode");
    if (std::find(plugins.begin(), plugins.end(), "decode") == plugins.end())
      throw UserError{{"verify --calibrate: the calibration comes from the decode kernels", "run `infracalc verify decode --calibrate`"}};
  }
  // The measurement steps of the long kernels print their lines with --trace; a terminal gets a progress bar.
  k.progress = k.trace;
  const ExitStatus status = run_verify(plugins, k, g);
  if (calibrate) write_calibration(k);
  return status;
}

ExitStatus cmd_validate(int argc, char** argv) {
  CLI::App app{"predict published measurements", "validate"};
  GlobalOptions g;
  add_global(app, g);
  ValidateOptions o;
  app.add_option("--kind", o.kind);
  app.add_option("--file", o.file);
  bool help = false;
  app.set_help_flag();
  app.add_flag("--help,-h", help);
  parse(app, argc, argv);
  if (help) {
    emit("usage: infracalc validate [--kind inference|training|power] [--file F]\n\n"
         "  Predicts every published measurement in data/measured (or in F, a file in the same format) through the\n"
         "  calculators and prints predicted, measured and error for each, then the median and 90th-percentile |error|\n"
         "  and the five worst; entries that cannot be predicted are listed with the reason. docs/validation.md\n\n" +
         output_options_help());
    return ExitStatus::ok;
  }
  prepare(g);
  return run_validate(o, g);
}

ExitStatus cmd_calibrate(int argc, char** argv) {
  CLI::App app{"fit the efficiency parameters", "calibrate"};
  GlobalOptions g;
  add_global(app, g);
  CalibrateOptions o;
  bool no_loo = false;
  app.add_flag("--published", o.published);
  app.add_option("--out", o.out);
  app.add_flag("--no-loo", no_loo);
  app.add_option("--iterations", o.iterations)->check(CLI::Range(1, 1000));
  bool help = false;
  app.set_help_flag();
  app.add_flag("--help,-h", help);
  parse(app, argc, argv);
  if (help) {
    emit("usage: infracalc calibrate --published [--out FILE] [--no-loo] [--iterations N]\n\n"
         "  Fits the efficiency parameters (bandwidth, matrix-multiply, attention and collective shares, per-step overheads\n"
         "  per engine) to the published measurements in data/measured, printing each point's residual and a leave-one-out\n"
         "  refit of every point; --out data/calibration/efficiency.toml writes the result (rebuild to ship it).\n\n" +
         output_options_help());
    return ExitStatus::ok;
  }
  prepare(g);
  o.loo = !no_loo;
  return run_calibrate(o, g);
}

ExitStatus cmd_hw(int argc, char** argv) {
  CLI::App app{"hardware catalog", "hw"};
  GlobalOptions g;
  add_global(app, g);
  std::vector<std::string> words;
  ListFilter f;
  app.add_option("words", words);
  app.add_option("--vendor", f.vendor);
  app.add_option("--kind", f.kind);
  app.add_option("--min-memory", f.min_memory);
  app.add_option("--available-by", f.available_by, "hw list: only parts available by this month (YYYY-MM)");
  app.add_option("--sort", f.sort, "hw list: rank by this field, largest first (bf16 = peak.bf16_dense)");
  bool help = false;
  app.set_help_flag();
  app.add_flag("--help,-h", help);
  parse(app, argc, argv);
  if (help) {
    emit(std::string("usage: infracalc hw list [--vendor V] [--kind K] [--min-memory 100GB] [--available-by YYYY-MM] [--sort FIELD]\n"
         "       infracalc hw show ID [--json]\n"
         "       infracalc hw compare ID ID...\n\n"
         "  Hardware in the catalog: accelerators and systems by default; --kind interconnect, network, memory,\n"
         "  storage, or a type such as gpu, tpu, switch, nic, optics. Every value shows its date and source.\n"
         "  --available-by drops, and lists, the parts whose first availability (launch) is after that month (a quarter\n"
         "  counts from its last month); --sort ranks what is left by a field, largest first (bf16 = peak.bf16_dense).\n\n") + output_options_help());
    return ExitStatus::ok;
  }
  prepare(g);
  const std::string sub = words.empty() ? "list" : words.front();
  if (sub != "list" && (!f.available_by.empty() || !f.sort.empty()))
    throw UserError{{"hw " + sub + ": --available-by and --sort belong to hw list", "e.g. infracalc hw list --available-by 2026-06 --sort bf16"}};
  if (sub == "list") return run_hw_list(f, g);
  if (sub == "show") {
    if (words.size() != 2) throw UserError{{"hw show takes one id", "e.g. infracalc hw show h100-sxm"}};
    return run_entry_show(words[1], {"accelerator", "system"}, g);
  }
  if (sub == "compare") return run_hw_compare({words.begin() + 1, words.end()}, g);
  throw UserError{{"hw: unknown subcommand '" + sub + "'", did_you_mean(sub, {"list", "show", "compare"})}};
}

ExitStatus cmd_model(int argc, char** argv) {
  CLI::App app{"model catalog", "model"};
  GlobalOptions g;
  add_global(app, g);
  std::vector<std::string> words;
  ListFilter f;
  ImportOptions imp;
  app.add_option("words", words);
  app.add_option("--vendor", f.vendor);
  app.add_option("--kind", f.kind);
  app.add_option("--out", imp.out, "model import: output file (ID.toml)");
  app.add_option("--id", imp.id, "model import: id of the new entry");
  app.add_option("--name", imp.name, "model import: name of the new entry");
  app.add_flag("--force", imp.force, "model import: replace an existing file");
  bool help = false;
  app.set_help_flag();
  app.add_flag("--help,-h", help);
  parse(app, argc, argv);
  if (help) {
    emit(std::string("usage: infracalc model list [--vendor V]\n"
         "       infracalc model show ID [--json]\n"
         "       infracalc model import config.json [--out ID.toml] [--id ID] [--name NAME] [--force]\n\n"
         "  show prints the architecture with its sources and the parameter counts computed from it (derived.*).\n"
         "  import turns a Hugging Face config.json into a model data file for an overlay directory (--data-dir).\n\n") + output_options_help());
    return ExitStatus::ok;
  }
  prepare(g);
  const std::string sub = words.empty() ? "list" : words.front();
  if (sub != "import" && (!imp.out.empty() || !imp.id.empty() || !imp.name.empty() || imp.force))
    throw UserError{{"model " + sub + ": --out, --id, --name and --force belong to model import", "e.g. infracalc model import config.json --out my-model.toml"}};
  if (sub == "list") return run_model_list(f, g);
  if (sub == "show") {
    if (words.size() != 2) throw UserError{{"model show takes one id", "e.g. infracalc model show llama-3-70b"}};
    return run_entry_show(words[1], {"model"}, g);
  }
  if (sub == "import") {
    if (words.size() != 2) throw UserError{{"model import takes one config.json", "e.g. infracalc model import path/to/config.json --out my-model.toml"}};
    imp.file = words[1];
    return run_model_import(imp, g);
  }
  throw UserError{{"model: unknown subcommand '" + sub + "'", did_you_mean(sub, {"list", "show", "import"})}};
}

ExitStatus cmd_data(int argc, char** argv) {
  CLI::App app{"data files", "data"};
  GlobalOptions g;
  add_global(app, g);
  std::vector<std::string> words;
  ListFilter f;
  app.add_option("words", words);
  app.add_option("--vendor", f.vendor);
  app.add_option("--kind", f.kind);
  bool help = false;
  app.set_help_flag();
  app.add_flag("--help,-h", help);
  parse(app, argc, argv);
  if (help) {
    emit(std::string("usage: infracalc data check\n"
         "       infracalc data list [--kind K] [--vendor V]\n"
         "       infracalc data show ID [--as-of DATE]\n\n"
         "  check lints every data file (built-in and overlays) and exits 2 on errors.\n"
         "  show prints any entry; for dated series (prices, tariffs) '*' marks the entry --as-of picks.\n"
         "  The file format is described in docs/data.md.\n\n") + output_options_help());
    return ExitStatus::ok;
  }
  prepare(g);
  if (words.empty()) throw UserError{{"data: missing subcommand", "data check | data list [--kind K] | data show ID [--as-of DATE]"}};
  const std::string& sub = words.front();
  if (sub == "check") return run_data_check(g);
  if (sub == "list") return run_data_list(f, g);
  if (sub == "show") {
    if (words.size() != 2) throw UserError{{"data show takes one id", "e.g. infracalc data show h100-sxm-rental --as-of 2024-06-01"}};
    return run_entry_show(words[1], {}, g);
  }
  throw UserError{{"data: unknown subcommand '" + sub + "'", did_you_mean(sub, {"check", "list", "show"})}};
}

ExitStatus cmd_schema(int argc, char** argv) {
  CLI::App app{"JSON Schema of the JSON output", "schema"};
  std::vector<std::string> words;
  bool help = false;
  app.set_help_flag();
  app.add_flag("--help,-h", help);
  app.add_option("words", words, "PLUGIN CALC");
  parse(app, argc, argv);
  if (help) {
    emit("usage: infracalc schema [PLUGIN CALC]\n\n"
         "  The JSON Schema (draft 2020-12) of the JSON output. Without arguments: any result document (calculators,\n"
         "  calc, batch) or a failed batch record. With a calculator: its document, every input and output by name in\n"
         "  the unit its JSON carries. docs/schema/ holds them all (docs/schema/generate.sh writes them).\n");
    return ExitStatus::ok;
  }
  return run_schema(words);
}

ExitStatus cmd_completions(int argc, char** argv) {
  CLI::App app{"shell completions", "completions"};
  std::string shell;
  app.add_option("shell", shell)->required();
  parse(app, argc, argv);
  return run_completions(shell);
}

ExitStatus cmd_batch(int argc, char** argv) {
  CLI::App app{"JSON Lines in, JSON Lines out", "batch"};
  GlobalOptions g;
  add_global(app, g);
  std::string path;
  bool fail_fast = false;
  bool help = false;
  app.set_help_flag();
  app.add_flag("--help,-h", help);
  app.add_option("file", path, "input file, or - for stdin (the default)");
  app.add_flag("--fail-fast", fail_fast, "stop at the first failing record");
  app.add_option("--fields", g.fields, "only these results in each line");
  std::string files_from;
  app.add_option("--files-from", files_from, "the directory whose files records may name (requests_file)");
  parse(app, argc, argv);
  if (help) {
    emit("usage: infracalc batch [FILE|-] [--fail-fast] [--files-from DIR] [--fields A,B] [--as-of DATE] [--data-dir DIR]\n\n"
         "  Reads JSON Lines, one calculation per line:\n"
         "    {\"plugin\": \"kv\", \"calculator\": \"size\", \"inputs\": {\"model\": \"llama-3-70b\", \"tokens\": \"8000\"}, \"id\": \"a\"}\n"
         "  and writes one JSON result per line (the same object as --json, with \"record\": N, the line number), or\n"
         "  {\"record\": N, \"error\": ..., \"hint\": ...}\n"
         "  for a record that fails; the others go on. Exit status 1 when any record failed, 2 for usage errors.\n"
         "  A record may name a file (\"requests_file\") only under the directory given with --files-from DIR, a path\n"
         "  relative to it; without --files-from such a record fails.\n"
         "  A plan record {\"plan\": \"FILE.toml\", \"set\": {\"workload.rate\": \"50/s\"}, \"id\": \"b\"} writes the worksheet of\n"
         "  `plan FILE.toml --set ... --json` (no sweeps); FILE lies under --files-from DIR. --fields trims calculator records.\n");
    return ExitStatus::ok;
  }
  prepare(g);
  return run_batch(path, fail_fast, files_from, g);
}

ExitStatus cmd_plan_init(int argc, char** argv) {
  CLI::App app{"a commented starting scenario", "plan init"};
  std::string kind, out;
  bool force = false, help = false;
  app.set_help_flag();
  app.add_flag("--help,-h", help);
  app.add_option("kind", kind, "serve, train, finetune or site");
  app.add_option("--out", out, "write the scenario to this file instead of standard output");
  app.add_flag("--force", force, "replace an existing --out file");
  parse(app, argc, argv);
  if (help) {
    emit("usage: infracalc plan init serve|train|finetune|site [--out FILE] [--force]\n\n"
         "  Writes a starting scenario: every key that kind of plan reads, each with what it means and its default,\n"
         "  and a working example set (serve: a chat service on DGX H100; train: a 2-trillion-token run on 2,048\n"
         "  H100; finetune: LoRA of Llama 3.1 8B on one DGX H100; site: what a 100 MW power budget holds).\n"
         "  `infracalc plan init serve | infracalc plan -` runs it.\n");
    return ExitStatus::ok;
  }
  if (kind.empty())
    throw UserError{{"plan init: which kind of scenario?", "plan init serve, plan init train, plan init finetune or plan init site"}};
  return run_plan_init(kind, out, force);
}

ExitStatus cmd_plan_merge(int argc, char** argv) {
  CLI::App app{"join the parts of a sharded sweep", "plan merge"};
  GlobalOptions g;
  add_global(app, g);
  PlanOptions o;
  std::vector<std::string> parts;
  bool help = false;
  app.set_help_flag();
  app.add_flag("--help,-h", help);
  app.add_option("parts", parts, "the part files --shard K/N wrote");
  app.add_option("--xlsx", o.xlsx, "write a workbook");
  app.add_option("--plot", o.plot_dir, "write SVG charts into a directory");
  app.add_option("--html", o.html, "write the worksheet as one self-contained HTML page");
  app.add_flag("--force", o.force, "replace existing output files");
  app.add_flag("--stats", o.stats, "sweep statistics on stderr");
  parse(app, argc, argv);
  if (help) {
    emit("usage: infracalc plan merge PART... [--xlsx FILE] [--plot DIR] [--html FILE] [--force] [--stats] [output options]\n\n"
         "  Joins the parts of a sweep split with `plan FILE --sweep ... --shard K/N` (one per machine: a Slurm job\n"
         "  array, GNU parallel over ssh, a Kubernetes indexed job) into the table, Pareto front, workbook, charts and\n"
         "  exit status the unsplit sweep gives, byte for byte. Every part of 1/N ... N/N must be given, each once,\n"
         "  all from the same command; the plan file must be readable here, unchanged (its digest is in each part),\n"
         "  with the same overlay data. The output format is chosen here (--csv, --json, --format md, the table).\n\n" +
         output_options_help());
    return ExitStatus::ok;
  }
  prepare(g);
  return run_plan_merge(parts, o, g);
}

ExitStatus cmd_plan(int argc, char** argv) {
  if (argc >= 2 && std::string_view(argv[1]) == "init") return cmd_plan_init(argc - 1, argv + 1);
  if (argc >= 2 && std::string_view(argv[1]) == "merge") return cmd_plan_merge(argc - 1, argv + 1);
  CLI::App app{"plan a deployment from a scenario file", "plan"};
  GlobalOptions g;
  add_global(app, g);
  PlanOptions o;
  bool help = false;
  app.set_help_flag();
  app.add_flag("--help,-h", help);
  app.add_option("file", o.file, "the plan file (TOML)");
  app.add_option("--set", o.sets, "override a plan value: section.key=VALUE")->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--sweep", o.sweeps, "sweep a key: key=V1,V2 or key=LOW..HIGH:N")->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--columns", o.columns, "line keys per sweep point");
  app.add_option("--pareto", o.pareto, "objectives of the Pareto front");
  app.add_option("--xlsx", o.xlsx, "write a workbook");
  app.add_option("--plot", o.plot_dir, "write SVG charts into a directory");
  app.add_option("--html", o.html, "write the worksheet as one self-contained HTML page");
  app.add_flag("--force", o.force, "replace existing output files");
  app.add_flag("--check", o.check_only, "validate only");
  bool ideal = false;
  app.add_flag("--ideal", ideal, "plan with the ceilings (100% of the datasheet) instead of the expected figures");
  app.add_flag("--stats", o.stats, "sweep statistics on stderr");
  app.add_flag("--keys", o.keys, "list every plan key");
  app.add_option("--shard", o.shard, "evaluate part K of N of the sweep (K/N) and write it for plan merge");
  std::string jobs;
  app.add_option("--jobs", jobs, "worker processes for a sweep (default: every core)");
  parse(app, argc, argv);
  if (!jobs.empty()) o.jobs = parse_jobs(jobs);
  if (help) {
    emit(plan_help());
    return ExitStatus::ok;
  }
  prepare(g);
  if (ideal) o.sets.push_back("hardware.performance=ceiling");
  return run_plan(o, g);
}

ExitStatus cmd_help(int argc, char** argv);

constexpr Command kCommands[] = {
    {"calc", cmd_calc},   {"verify", cmd_verify}, {"validate", cmd_validate}, {"calibrate", cmd_calibrate},
    {"plan", cmd_plan},   {"batch", cmd_batch},   {"list", cmd_list},         {"hw", cmd_hw},
    {"model", cmd_model}, {"data", cmd_data},     {"schema", cmd_schema}, {"completions", cmd_completions}, {"help", cmd_help},
};

std::string main_help() {
  std::string out = fmt::format(
      "infracalc {}: AI-infrastructure calculator and planner\n\n"
      "usage: infracalc <plugin> <calculator> [--input VALUE ...] [--model ID] [--gpu ID] [output options]\n"
      "       infracalc <command> [args]\n\ncommands\n",
      infracalc_version());
  for (const auto& c : command_table()) out += fmt::format("  {:<12} {}\n", c.name, c.summary);
  out += "\nplugins\n";
  for (const auto& p : plugin_table()) out += fmt::format("  {:<12} {}\n", p.name, p.summary);
  out += "\nexit codes: 0 ok; 1 a requested check failed; 2 usage, unit, input or data error\n"
         "`infracalc PLUGIN --help` lists calculators; `infracalc PLUGIN CALC --help` lists inputs and outputs.\n";
  return out;
}

ExitStatus cmd_help(int argc, char** argv) {
  if (argc >= 2) {
    const std::string_view topic = argv[1];
    if (const Plugin* p = find_plugin(topic)) {
      emit(argc >= 3 && p->find(argv[2]) != nullptr ? calculator_help(*p, *p->find(argv[2])) : plugin_help(*p));
      return ExitStatus::ok;
    }
    // `help plan` is `plan --help`, and so for every built-in command.
    for (const auto& c : kCommands)
      if (c.name == topic && c.name != "help") {
        std::string name(c.name), flag("--help");
        char* args[] = {name.data(), flag.data(), nullptr};
        return c.run(2, args);
      }
    std::vector<std::string_view> names;
    for (const auto& c : command_table()) names.push_back(c.name);
    for (const auto& p : plugin_table()) names.push_back(p.name);
    const std::string hint = did_you_mean(topic, names);
    throw UserError{{"help: no command or plugin '" + printable(topic) + "'", hint.empty() ? "run `infracalc help` for the list" : hint}};
  }
  emit(main_help());
  return ExitStatus::ok;
}

ExitStatus run_plugin(const Plugin& p, int argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h" ||
      std::string_view(argv[1]) == "help") {
    emit(plugin_help(p));
    return ExitStatus::ok;
  }
  const Calculator* calc = p.find(argv[1]);
  if (calc == nullptr) {
    std::vector<std::string_view> names;
    for (const auto& c : p.calculators) names.push_back(c.name);
    std::string hint = did_you_mean(argv[1], names);
    throw UserError{{std::string(p.name) + ": unknown calculator '" + argv[1] + "'",
                     hint.empty() ? "see `infracalc " + std::string(p.name) + " --help`" : hint}};
  }
  CLI::App app{std::string(calc->summary), std::string(p.name) + " " + std::string(calc->name)};
  app.set_help_flag();
  bool help = false;
  app.add_flag("--help,-h", help);
  GlobalOptions g;
  add_global(app, g);
  app.add_option("--fields", g.fields, "only these results");
  // --plot and --force, from the one table (command_table.cpp), for a calculator that declares a chart.
  std::string plot;
  bool force = false;
  if (calc->chart != Chart::none)
    for (const auto& o : chart_options()) {
      const std::string name(o.name);
      if (name == "--plot") app.add_option(name, plot, "write the chart as an SVG file");
      else if (name == "--force") app.add_flag(name, force, "replace an existing --plot file");
      else throw std::logic_error("chart option " + name + " has no binding in run_plugin");
    }
  // CLI11 is given only the inputs the words name: each add_option compares its names with those of every option
  // added before it, 0.6 million of a `decode ceiling` query's 4 million instructions for the 40 it would otherwise
  // add. An option the words do not name cannot change the parse; an unknown one is refused against them all.
  const std::size_t n = calc->refs.size() + calc->inputs.size();
  std::vector<std::string> values(n);
  struct Given {
    std::string input;
    CLI::Option* option;
    std::size_t value;  // index into values
  };
  std::vector<Given> opts;
  std::vector<std::string> known = long_names(app);
  const std::vector<std::string_view> named = named_options(argc, argv);
  auto wanted = [&](std::string_view name) {
    known.emplace_back(name);
    return std::find(named.begin(), named.end(), name) != named.end();
  };
  std::size_t i = 0;
  for (const auto& r : calc->refs) {
    const std::string flag = Context::flag_name(r.name);
    if (wanted(std::string_view(flag).substr(2))) opts.push_back({std::string(r.name), app.add_option(flag, values[i], std::string(r.help)), i});
    ++i;
  }
  for (const auto& in : calc->inputs) {
    std::string flag = Context::flag_name(in.name);
    bool any = wanted(std::string_view(flag).substr(2));
    for (auto a : input_aliases(*calc, in)) {  // --utilization for --utilisation
      const std::string alias = Context::flag_name(a);
      flag += "," + alias;
      any = wanted(std::string_view(alias).substr(2)) || any;
    }
    if (any && in.kind == InputKind::flag) {
      const std::string help_text(in.help);
      opts.push_back({std::string(in.name), app.add_flag(flag, help_text), i});
    } else if (any) {
      CLI::Option* o = app.add_option(flag, values[i], std::string(in.help));
      // A text input may take several words (`--compare pcie-5 nvlink-c2c`); they reach the calculator
      // joined by commas, the same text as `--compare pcie-5,nvlink-c2c`.
      if (in.kind == InputKind::text)
        o->multi_option_policy(CLI::MultiOptionPolicy::Join)->delimiter(',')->expected(1, CLI::detail::expected_max_vector_size)->allow_extra_args();
      opts.push_back({std::string(in.name), o, i});
    }
    ++i;
  }
  parse(app, argc - 1, argv + 1, &known);  // argv[1] is the calculator name, CLI11's "program name"
  if (help) {
    emit(calculator_help(p, *calc));
    return ExitStatus::ok;
  }
  prepare(g);
  RawInputs raw;
  for (const Given& o : opts)
    if (o.option->count() > 0) raw.emplace_back(o.input, values[o.value]);
  RunOptions ro;
  ro.as_of = as_of_option(g);
  ro.number = g.out.number;
  // A long run (a `serve simulate` of many requests) draws a bar on stderr, only when it is a terminal and the result
  // is the human table: machine formats (JSON, CSV) keep both streams to what the command computes.
  std::optional<Progress> bar;
  if (Progress::stderr_is_terminal() && g.out.format == writers::OutputFormat::table) {
    const std::string label = std::string(p.name) + " " + std::string(calc->name);
    ro.progress = [&bar, label](double done, double total) {
      if (!bar) bar.emplace(label, total);
      bar->reach(done);
    };
  }
  std::vector<std::string> fields;
  if (!g.fields.empty()) {
    std::vector<std::string_view> declared;
    for (const auto& o : calc->outputs) declared.push_back(o.name);
    fields = writers::field_list(g.fields, declared);  // before the run: a typo is reported at once
  }
  // The chart's target is checked before the run (an existing file without --force, an overlay data file, a
  // directory), written to a temporary and moved into place before the result is printed, as plan --plot does.
  std::optional<AtomicFile> chart;
  std::optional<OutputFilesPending> pending;
  if (!plot.empty()) {
    try {
      chart.emplace(plot, force, data_inputs());
    } catch (const UserError& e) {
      throw UserError{{"--plot " + e.error.message, e.error.hint}};
    }
    pending.emplace();
  }
  Result r = run_calculator(p, *calc, raw, ro);
  if (bar) bar->finish();
  if (chart) {
    chart->write(calculator_svg(*calc, r));
    chart->commit();
  }
  writers::keep_fields(r, fields);
  emit(writers::render_result(r, g.out));
  return r.check_failed ? ExitStatus::check_failed : ExitStatus::ok;
}

ExitStatus dispatch(int argc_in, char** argv_in) {
  // The shells' completion scripts call `infracalc __complete WORD...` (the words typed so far, the last one the
  // one being completed); the words are read as they stand, output options included.
  // The build writes the manual page with `infracalc __man` (CMakeLists.txt): from the same tables as the help.
  if (argc_in >= 2 && std::string_view(argv_in[1]) == "__man") {
    emit(man_page(infracalc_version(), embedded_newest_date()));
    return ExitStatus::ok;
  }
  if (argc_in >= 2 && std::string_view(argv_in[1]) == "__complete") {
    emit(completion_text(std::vector<std::string>(argv_in + 2, argv_in + argc_in)));
    return ExitStatus::ok;
  }
  std::vector<char*> args = hoist_output_options(argc_in, argv_in);
  const int argc = static_cast<int>(args.size());
  char** argv = args.data();
  if (argc < 2) {
    emit(main_help());
    return ExitStatus::usage;
  }
  const std::string_view first = argv[1];
  if (first == "--version" || first == "-V" || first == "version") {
    emit(fmt::format("infracalc {} (data as of {})\n", infracalc_version(), embedded_newest_date()));
    return ExitStatus::ok;
  }
  if (first == "--help" || first == "-h") {
    emit(main_help());
    return ExitStatus::ok;
  }
  for (const auto& c : kCommands)
    if (c.name == first) return c.run(argc - 1, argv + 1);
  if (const Plugin* p = argc > 2 ? find_plugin_for(first, argv[2]) : find_plugin(first)) return run_plugin(*p, argc - 1, argv + 1);
  std::vector<std::string_view> names;
  for (const auto& c : command_table()) names.push_back(c.name);
  for (const auto& p : plugin_table()) names.push_back(p.name);
  std::string hint = did_you_mean(first, names);
  throw UserError{{"unknown command or plugin '" + std::string(first) + "'",
                   hint.empty() ? "run `infracalc --help` for the list" : hint}};
}

}  // namespace

}  // namespace infracalc::cli

int main(int argc, char** argv) {
  using infracalc::cli::ExitStatus;
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe shows up as EPIPE on write, handled quietly
  ExitStatus status = ExitStatus::usage;
  try {
    status = infracalc::cli::dispatch(argc, argv);
  } catch (const infracalc::cli::HelpPrinted&) {
    status = ExitStatus::ok;
  } catch (const infracalc::plan::PlanProblems& e) {
    infracalc::cli::finish_output();
    for (const auto& line : e.lines) infracalc::cli::report("error", line);
    return static_cast<int>(ExitStatus::usage);
  } catch (const infracalc::UserError& e) {
    infracalc::cli::finish_output();
    infracalc::cli::report("error", e.error.text());
    return static_cast<int>(ExitStatus::usage);
  } catch (const std::exception& e) {
    infracalc::cli::finish_output();
    infracalc::cli::report("internal error", std::string(e.what()) + " (please report this)");
    return static_cast<int>(ExitStatus::usage);
  }
  infracalc::cli::finish_output();
  return infracalc::cli::exit_status(status);
}
