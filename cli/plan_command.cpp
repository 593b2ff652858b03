#include "cli/plan_command.hpp"
#include "cli/progress.hpp"

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <optional>

#include "cli/commands.hpp"
#include "cli/plan_eval.hpp"
#include "cli/plan_output.hpp"
#include "cli/plan_svg.hpp"
#include "cli/plan_sweep.hpp"
#include "cli/plan_xlsx.hpp"
#include "units/printable.hpp"
#include "plugins/core/atomic_file.hpp"
#include "plugins/core/words.hpp"

namespace infracalc::cli {

namespace {
// Rows a worksheet holds below its header (Excel's limit is 1,048,576 rows).
constexpr double kWorkbookRows = 1'048'575;
}  // namespace

std::string plan_help() {
  std::string out =
      "usage: infracalc plan FILE.toml [--set section.key=VALUE ...] [--sweep key=v1,v2 ...] [--pareto a,b]\n"
      "                     [--columns a,b] [--xlsx FILE] [--plot DIR] [--force] [--check] [--stats] [--ideal] [output options]\n\n"
      "  Decode, prefill and serving figures are the expected ones (efficiencies fitted to published measurements,\n"
      "  docs/validation.md); --ideal plans with the ceilings (100% of the datasheet), as hardware.performance = ceiling.\n\n"
      "  One scenario file to a worksheet: the model, the hardware, the workload (serve a request rate, or train\n"
      "  for a number of tokens), the site and the money. The planner chains the plugins (fit, kv, decode, the\n"
      "  serving model, fleet sizing, network fabric, power, cooling, tco, cost) and prints every line with its\n"
      "  value, unit and how it was made (input, catalog value with its date, plugin, formula). Lines computed\n"
      "  from other lines are formulas and stay formulas in the --xlsx workbook.\n\n"
      "options\n"
      "  --set section.key=VALUE   override a plan value (repeatable): --set workload.rate=50/s\n"
      "  --sweep key=V1,V2,...     evaluate over a grid (repeatable; key=LOW..HIGH:N[:log] for N points);\n"
      "                            one row per point as a table, --csv or --json (JSON Lines)\n"
      "  --columns a,b,...         line keys reported per sweep point (default: the summary lines)\n"
      "  --pareto a,b:max,...      keep the points no other point beats on every objective (minimised; :max maximises)\n"
      "  --xlsx FILE               write a workbook: Inputs, one sheet per step, live formulas\n"
      "  --plot DIR                write SVG charts: roofline, memory, cost per Mtok, rack power, occupancy\n"
      "  --force                   replace existing output files (an input file is never replaced)\n"
      "  --check                   validate the plan and exit (2 with every problem listed)\n"
      "  --stats                   sweep points per second and plugin runs on stderr\n\n"
      "exit status: 0 ok; 1 a check failed (fits, ttft/tpot targets, capacity, power budget, cooling, scale-up;\n"
      "             in a sweep, a check or a step at any point: stderr counts them); 2 the plan is invalid or a\n"
      "             step failed (a swept system the catalog has no price for, too: prices follow the hardware)\n\n"
      "plan keys by section (key = default (the workload it applies to): meaning)\n";
  for (const auto& s : plan::plan_sections()) {
    out += fmt::format("  [{}] {}\n", s.name, s.help);
    for (const auto& k : plan::plan_keys()) {
      if (k.section != s.name) continue;
      const std::string left = std::string(k.name) + (k.default_value.empty() ? "" : " = " + std::string(k.default_value)) +
                               (k.mode.empty() ? "" : " (" + std::string(k.mode) + ")");
      out += fmt::format("    {:<34} {}\n", left, std::string(k.help));
    }
  }
  out += "\n  Formulas, the chain and the examples: docs/plan.md; examples/*.toml.\n\n" + output_options_help();
  return out;
}

std::string plan_record_json(const std::string& file, const std::vector<std::string>& sets, const RunOptions& ro) {
  plan::Problems problems;
  plan::PlanSpec spec = plan::load_plan_file(file, problems);
  if (spec.syntax_error) problems.throw_if_any();
  plan::apply_sets(spec, sets, problems);
  plan::validate(spec, problems, {});
  const plan::Program program = plan::build_program(spec, problems);
  plan::Evaluator ev(program, ro);
  const plan::InputSet in = ev.inputs(spec, problems);
  problems.throw_if_any();
  const plan::Sheet sheet = ev.evaluate(in);
  if (!sheet.errors.empty())
    throw UserError{{"plan: " + sheet.errors.front() +
                         (sheet.errors.size() > 1 ? fmt::format(" (and {} more)", sheet.errors.size() - 1) : std::string()),
                     "`infracalc plan FILE --check` lists every problem"}};
  return plan::plan_json(plan::Worksheet{spec, program, sheet});
}

ExitStatus run_plan(const PlanOptions& o, const GlobalOptions& g) {
  if (o.keys) {
    std::string out;
    for (const auto& k : plan::plan_keys()) out += k.path() + "\n";
    emit(out);
    return ExitStatus::ok;
  }
  if (o.file.empty()) throw UserError{{"plan: missing the plan file", "e.g. infracalc plan examples/llama3-70b-h100.toml"}};
  RunOptions ro;
  ro.as_of = as_of_option(g);
  ro.number = g.out.number;
  plan::Problems problems;
  plan::PlanSpec spec = plan::load_plan_file(o.file, problems);
  if (spec.syntax_error) problems.throw_if_any();
  plan::apply_sets(spec, o.sets, problems);
  std::vector<std::string> swept;
  for (const auto& ax : o.sweeps) {
    const auto eq = ax.find('=');
    if (const plan::KeyDef* k = plan::find_key(ax.substr(0, eq), spec.mode()); k != nullptr && eq != std::string::npos) swept.push_back(k->path());
  }
  plan::validate(spec, problems, swept);
  const plan::Program program = plan::build_program(spec, problems);
  plan::Evaluator ev(program, ro);
  const plan::InputSet in = ev.inputs(spec, problems);
  const plan::SweepPlan sweep = plan::make_sweep(spec, program, o.sweeps, o.columns, o.pareto, problems);
  problems.throw_if_any();
  if (o.check_only) return ExitStatus::ok;
  // The output files of the run are one transaction (OutputSet): their targets are checked before anything is
  // printed (an existing file without --force, an input: the plan file or any overlay data file, a link or a
  // device), each is written to a temporary, all are moved into place together, and only then is the worksheet
  // printed. A failure, or SIGINT, leaves the old files as they were and nothing new; a closed stdout does not
  // stop the files (OutputFilesPending).
  std::vector<std::string> inputs = data_inputs();
  inputs.push_back(o.file);
  std::optional<OutputFilesPending> pending;
  OutputSet outputs;
  AtomicFile* xlsx = nullptr;
  std::vector<AtomicFile*> plots;
  if (!o.xlsx.empty()) {
    if (!plan::xlsx_available()) plan::write_xlsx({spec, program, plan::Sheet{}}, nullptr, o.xlsx, o.force, inputs);
    xlsx = &outputs.add(o.xlsx, o.force, inputs);
  }
  if (!o.plot_dir.empty()) plots = plan::prepare_plots(outputs, o.plot_dir, o.force, inputs);
  if (xlsx != nullptr || !plots.empty()) pending.emplace();

  if (sweep.axes.empty()) {
    const plan::Sheet sheet = ev.evaluate(in);
    const plan::Worksheet w{spec, program, sheet};
    if (!sheet.errors.empty()) {
      // A plan with a failed step is not a result: the errors go to stderr and nothing to stdout (exit 2).
      for (const auto& e : sheet.errors) report("error", e);
      throw UserError{{"plan " + o.file + ": " + plural(static_cast<std::int64_t>(sheet.errors.size()), "step or line", "steps or lines") +
                           " failed; no worksheet and no files written",
                       "fix the inputs named above (`infracalc PLUGIN CALC --help` documents each step's inputs)"}};
    }
    const std::string text = plan::render_plan(w, g.out);
    if (xlsx != nullptr) plan::write_xlsx(w, nullptr, *xlsx);
    if (!plots.empty()) plan::fill_plots(w, plots);
    outputs.commit();
    emit(text);
    for (const auto& c : sheet.checks)
      if (c && !c->first) return ExitStatus::check_failed;
    return ExitStatus::ok;
  }

  ev.set_cross_checks(false);
  plan::SweepStats stats;
  // Rows stream to stdout as they are computed (CSV, JSON Lines) and are kept only where something needs them
  // all: the Pareto front (only its rows), a table's column widths, or the workbook's Sweep sheet. The files
  // are placed after the last row; the pending-files guard keeps a closed stdout from stopping them.
  const bool workbook = xlsx != nullptr || !plots.empty();
  const bool stream = sweep.pareto.empty() && plan::streams(g.out);
  double points = 1;
  for (const auto& a : sweep.axes) points *= static_cast<double>(a.size());
  if (workbook && sweep.pareto.empty() && points > kWorkbookRows)
    throw UserError{{fmt::format("the sweep has {:.4g} points; a workbook's Sweep sheet holds at most {:.0f} rows", points, kWorkbookRows),
                     "add --pareto to keep the front only, or write the rows as CSV without --xlsx"}};
  plan::SweepTally tally(program);
  plan::ParetoFront front(sweep);
  plan::SweepStreamer streamer(program, sweep, g.out, [](std::string_view piece) { emit(printable(piece, Keep::lines)); });
  std::vector<plan::SweepRow> kept;
  // Rows streamed to the same terminal would tear the bar: then there is none.
  Progress bar("plan sweep", points, Progress::stderr_is_terminal() && !(stream && Progress::stdout_is_terminal()));
  plan::run_sweep(ev, spec, in, sweep, stats, [&](plan::SweepRow&& r) {
    bar.advance();
    tally.add(r);
    if (!sweep.pareto.empty()) {
      front.add(std::move(r));
      return;
    }
    if (stream) streamer.add(r);
    if (!stream || workbook) kept.push_back(std::move(r));
  });
  bar.finish();
  const std::vector<plan::SweepRow> shown = sweep.pareto.empty() ? std::move(kept) : front.take_rows();
  if (stream) streamer.finish();
  // Labels and text cells come from the plan.
  const std::string text = stream ? std::string() : printable(plan::render_sweep(program, sweep, shown, g.out), Keep::lines);
  if (workbook) {
    plan::Evaluator single(program, ro);
    const plan::Sheet sheet = single.evaluate(plan::first_point(single, spec, in, sweep));
    const plan::Worksheet w{spec, program, sheet};
    const plan::SweepTable table{&sweep, &shown};
    if (xlsx != nullptr) plan::write_xlsx(w, &table, *xlsx);
    if (!plots.empty()) plan::fill_plots(w, plots);
  }
  outputs.commit();
  emit(text);
  if (!sweep.notes.empty()) {
    finish_output();
    for (const auto& n : sweep.notes) report("note", n);
  }
  if (o.stats) {
    finish_output();
    std::fprintf(stderr, "plan: %zu points in %.3f s (%.0f points/s); %zu plugin runs, %zu answered from the memo%s\n", stats.points,
                 stats.seconds, stats.seconds > 0 ? static_cast<double>(stats.points) / stats.seconds : 0.0, stats.runs, stats.hits,
                 sweep.pareto.empty() ? "" : fmt::format("; {} points on the Pareto front", shown.size()).c_str());
  }
  // As a single plan: a point that fails a check (or a step) makes the exit status 1; the rows are still
  // printed, and stderr says how many of all the points (not only those on a Pareto front) failed.
  const std::string failed = tally.text();
  if (failed.empty()) return ExitStatus::ok;
  finish_output();
  report("plan " + o.file, failed);
  return ExitStatus::check_failed;
}

}  // namespace infracalc::cli
