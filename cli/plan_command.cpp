#include "cli/plan_command.hpp"
#include "cli/progress.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>

#include "cli/commands.hpp"
#include "catalog/embedded.hpp"
#include "plan/plan_eval.hpp"
#include "plan/plan_parallel.hpp"
#include "plan/plan_part.hpp"
#include "plan/plan_run.hpp"
#include "plan/plan_output.hpp"
#include "plan/plan_svg.hpp"
#include "plan/plan_sweep.hpp"
#include "plan/plan_html.hpp"
#include "plan/plan_xlsx.hpp"
#include "units/printable.hpp"
#include "documents/atomic_file.hpp"
#include "documents/input_file.hpp"
#include "host/words.hpp"
#include "host/worker_processes.hpp"

namespace infracalc::cli {

namespace {
// Rows a worksheet holds below its header (Excel's limit is 1,048,576 rows).
constexpr double kWorkbookRows = 1'048'575;
}  // namespace

std::string plan_help() {
  std::string out =
      "usage: infracalc plan FILE.toml [--set section.key=VALUE ...] [--sweep key=v1,v2 ...] [--pareto a,b]\n"
      "                     [--columns a,b] [--xlsx FILE] [--plot DIR] [--html FILE] [--force] [--check] [--stats] [--ideal] [output options]\n\n"
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
      "  --html FILE               write one self-contained page: summary, checks, charts, every sheet, sources\n"
      "  --force                   replace existing output files (an input file is never replaced)\n"
      "  --check                   validate the plan and exit (2 with every problem listed)\n"
      "  --stats                   sweep points per second and plugin runs on stderr\n"
      "  --jobs N                  worker processes for a sweep (default: every core; the output is the same)\n"
      "  --shard K/N               evaluate part K of N of the sweep and write it as a part file (JSON Lines);\n"
      "                            `infracalc plan merge PART...` joins the parts into the table of the whole sweep\n\n"
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
  plan::PlanRequest request;
  request.sets = sets;
  request.sweep = false;
  plan::PreparedPlan p(plan::read_plan_text(file).text, file, request, ro);
  const plan::Sheet sheet = p.ev.evaluate(p.in);
  plan::throw_if_failed(sheet);
  return plan::plan_json(plan::Worksheet{p.spec, p.program, sheet});
}

namespace {

// The plan of one command line: its file with --set, --sweep, --columns and --pareto, prepared once.
struct PreparedPlan : plan::PreparedPlan {
  PreparedPlan(const PlanOptions& o, const RunOptions& ro) : PreparedPlan(plan::read_plan_text(o.file), o, ro) {}

 private:
  PreparedPlan(const plan::PlanText& text, const PlanOptions& o, const RunOptions& ro)
      : plan::PreparedPlan(text.text, text.source, plan::PlanRequest{o.sets, o.sweeps, o.columns, o.pareto, true, nullptr}, ro) {}
};

// The WebAssembly engine for the what-if panel of --html: the directory INFRACALC_WEB_ENGINE names (set but empty:
// none), else the build-web/ of the source tree this binary was built from (INFRACALC_WEB_ENGINE_DIR, compiled in)
// when `make web` has built it there. Without one the page says how to get it.
plan::WhatIf web_engine() {
  namespace fs = std::filesystem;
  constexpr std::string_view kScript = "infracalc_engine.js";
  constexpr std::string_view kWasm = "infracalc_engine.wasm.gz";
  constexpr std::string_view kLoader = "site/engine_loader.js";
  const char* env = std::getenv("INFRACALC_WEB_ENGINE");
  std::string dir = env != nullptr ? env : INFRACALC_WEB_ENGINE_DIR;
  plan::WhatIf engine;
  if (dir.empty()) return engine;
  std::error_code ec;
  const bool found = fs::is_regular_file(fs::path(dir) / kScript, ec) && fs::is_regular_file(fs::path(dir) / kWasm, ec) &&
                     fs::is_regular_file(fs::path(dir) / kLoader, ec);
  if (!found) {
    if (env == nullptr) return engine;
    throw UserError{{"INFRACALC_WEB_ENGINE=" + printable(dir) + ": no " + std::string(kScript) + ", " + std::string(kWasm) + " and " +
                         std::string(kLoader) + " there",
                     "name the folder `make web` builds (build-web), or set INFRACALC_WEB_ENGINE= (empty) for a page without the what-if panel"}};
  }
  const std::string who = "the what-if panel's engine";
  engine.engine_js = read_input_file((fs::path(dir) / kScript).string(), who, input_limits::document).value_or_throw();
  engine.engine_wasm_gz = read_input_file((fs::path(dir) / kWasm).string(), who, input_limits::document).value_or_throw();
  engine.engine_loader = read_input_file((fs::path(dir) / kLoader).string(), who, input_limits::document).value_or_throw();
  return engine;
}

// The output files of the run, one transaction (OutputSet): their targets are checked before anything is
// printed (an existing file without --force, an input: the plan file or any overlay data file, a link or a
// device), each is written to a temporary, all are moved into place together, and only then is the worksheet
// printed. A failure, or SIGINT, leaves the old files as they were and nothing new; a closed stdout does not
// stop the files (OutputFilesPending).
struct PlanFiles {
  OutputSet outputs;
  AtomicFile* xlsx = nullptr;
  AtomicFile* html = nullptr;
  std::vector<AtomicFile*> plots;
  std::optional<OutputFilesPending> pending;

  std::optional<plan::WhatIf> what_if;

  PlanFiles(const PlanOptions& o, const plan::PreparedPlan& p) {
    std::vector<std::string> inputs = data_inputs();
    inputs.push_back(o.file);
    if (!o.xlsx.empty()) {
      if (!plan::xlsx_available()) plan::write_xlsx({p.spec, p.program, plan::Sheet{}}, nullptr, o.xlsx, o.force, inputs);
      xlsx = &outputs.add(o.xlsx, o.force, inputs);
    }
    if (!o.html.empty()) {
      html = &outputs.add(o.html, o.force, inputs);
      what_if = web_engine();
      what_if->plan_text = p.text;
      what_if->sets = o.sets;
      what_if->sweeps = o.sweeps;
    }
    if (!o.plot_dir.empty()) plots = plan::prepare_plots(outputs, o.plot_dir, o.force, inputs);
    if (any()) pending.emplace();
  }
  [[nodiscard]] bool any() const { return xlsx != nullptr || html != nullptr || !plots.empty(); }
  // The files of one evaluated point: the workbook (with the sweep's rows when there are any), the page, the charts.
  void write(const plan::Worksheet& w, const plan::SweepTable* sweep, const FormatOptions& number) {
    if (xlsx != nullptr) plan::write_xlsx(w, sweep, *xlsx);
    if (html != nullptr) html->write(plan::render_html(w, number, &*what_if));
    if (!plots.empty()) plan::fill_plots(w, plots);
  }
};

// Where a sweep's rows go, whoever computes them (this process, its workers, or the parts plan merge reads):
// rows stream to stdout as they come (CSV, JSON Lines) and are kept only where something needs them all: the
// Pareto front (only its rows), a table's column widths, or the workbook's Sweep sheet.
class SweepOutput {
 public:
  SweepOutput(const PreparedPlan& p, const GlobalOptions& g, bool workbook)
      : tally(p.program), p_(p), workbook_(workbook), stream_(p.sweep.pareto.empty() && plan::streams(g.out)), front_(p.sweep),
        streamer_(p.program, p.sweep, g.out, [](std::string_view piece) { emit(printable(piece, Keep::lines)); }) {
    double points = 1;
    for (const auto& a : p.sweep.axes) points *= static_cast<double>(a.size());
    if (workbook && p.sweep.pareto.empty() && points > kWorkbookRows)
      throw UserError{{fmt::format("the sweep has {:.4g} points; a workbook's Sweep sheet holds at most {:.0f} rows", points, kWorkbookRows),
                       "add --pareto to keep the front only, or write the rows as CSV without --xlsx"}};
    // Rows streamed to the same terminal would tear the bar: then there is none.
    bar_.emplace("plan sweep", points, Progress::stderr_is_terminal() && !(stream_ && Progress::stdout_is_terminal()));
  }

  // One row; `counted` is false for the rows of a merged part, whose points are counted by its trailer.
  void add(plan::SweepRow&& r, bool counted) {
    if (counted) {
      bar_->advance();
      tally.add(r);
    }
    if (!p_.sweep.pareto.empty()) {
      front_.add(std::move(r));
      return;
    }
    if (stream_) streamer_.add(r);
    if (!stream_ || workbook_) kept_.push_back(std::move(r));
  }
  // Points counted elsewhere (a part's trailer) move the bar too.
  void advance(std::size_t points) { bar_->advance(static_cast<double>(points)); }

  // The rows to show (the kept ones, or the front) and the text of a table; streamed rows are flushed.
  std::vector<plan::SweepRow> finish(std::string& text, const GlobalOptions& g) {
    bar_->finish();
    std::vector<plan::SweepRow> shown = p_.sweep.pareto.empty() ? std::move(kept_) : front_.take_rows();
    if (stream_) streamer_.finish();
    // Labels and text cells come from the plan.
    text = stream_ ? std::string() : printable(plan::render_sweep(p_.program, p_.sweep, shown, g.out), Keep::lines);
    return shown;
  }

  plan::SweepTally tally;

 private:
  const PreparedPlan& p_;
  bool workbook_;
  bool stream_;
  plan::ParetoFront front_;
  plan::SweepStreamer streamer_;
  std::vector<plan::SweepRow> kept_;
  std::optional<Progress> bar_;
};

// Evaluates or reads a sweep's rows into `out` (fill), then writes what the run asked for: the table or the rest
// of the stream, the workbook and charts of the first point, the notes, --stats, and the exit status.
ExitStatus finish_sweep(PreparedPlan& p, const PlanOptions& o, const GlobalOptions& g, const RunOptions& ro, PlanFiles& files,
                        const std::function<void(SweepOutput&, plan::SweepStats&)>& fill) {
  p.ev.set_cross_checks(false);
  plan::SweepStats stats;
  SweepOutput out(p, g, files.any());
  fill(out, stats);
  std::string text;
  const std::vector<plan::SweepRow> shown = out.finish(text, g);
  if (files.any()) {
    const plan::Sheet sheet = plan::worksheet_sheet(p, ro);
    plan::RunCache chart_runs;
    const plan::Worksheet w{p.spec, p.program, sheet, &chart_runs};
    const plan::SweepTable table{&p.sweep, &shown};
    files.write(w, &table, g.out.number);
  }
  files.outputs.commit();
  emit(text);
  if (!p.sweep.notes.empty()) {
    finish_output();
    for (const auto& n : p.sweep.notes) report("note", n);
  }
  if (o.stats) {
    finish_output();
    std::fprintf(stderr, "plan: %zu points in %.3f s (%.0f points/s); %zu plugin runs, %zu answered from the memo%s\n", stats.points,
                 stats.seconds, stats.seconds > 0 ? static_cast<double>(stats.points) / stats.seconds : 0.0, stats.runs, stats.hits,
                 p.sweep.pareto.empty() ? "" : fmt::format("; {} points on the Pareto front", shown.size()).c_str());
  }
  // As a single plan: a point that fails a check (or a step) makes the exit status 1; the rows are still
  // printed, and stderr says how many of all the points (not only those on a Pareto front) failed.
  const std::string failed = out.tally.text();
  if (failed.empty()) return ExitStatus::ok;
  finish_output();
  report("plan " + o.file, failed);
  return ExitStatus::check_failed;
}

unsigned jobs_of(const PlanOptions& o) { return o.jobs > 0 ? o.jobs : available_cores(); }

plan::PartHeader part_header(const PlanOptions& o, const GlobalOptions& g) {
  plan::PartHeader h;
  h.plan = o.file;
  h.plan_digest = plan::digest(read_input_file(o.file, "plan", input_limits::document).value_or_throw());
  h.sets = o.sets;
  h.sweeps = o.sweeps;
  h.columns = o.columns;
  h.pareto = o.pareto;
  h.as_of = g.as_of;
  h.overlays = data_inputs();
  h.version = fmt::format("{} (data as of {})", infracalc_version(), embedded_newest_date());
  return h;
}

// --shard K/N: this machine's part of the grid, as a part file on stdout for `plan merge`. With --pareto only
// the part's own front is kept (the front of the whole grid lies inside the union of the parts' fronts).
ExitStatus run_shard(PreparedPlan& p, const PlanOptions& o, const GlobalOptions& g) {
  if (p.sweep.axes.empty()) throw UserError{{"--shard: the plan has no sweep to split", "add --sweep key=V1,V2,... (or a [sweep] table)"}};
  plan::PartHeader h = part_header(o, g);
  const auto [k, n] = plan::parse_shard(o.shard);
  h.shard = k;
  h.shards = n;
  h.points = plan::sweep_points(p.sweep);
  std::tie(h.first, h.end) = plan::shard_range(h.points, k, n);
  std::string buf;
  plan::append_part_header(buf, h);
  p.ev.set_cross_checks(false);
  plan::SweepTally tally(p.program);
  plan::ParetoFront front(p.sweep);
  plan::PartTrailer t;
  auto flush = [&](bool always) {
    if (always || buf.size() >= (1 << 16)) {
      emit(buf);
      buf.clear();
    }
  };
  plan::SweepStats stats;
  Progress bar("plan shard " + o.shard, static_cast<double>(h.end - h.first), Progress::stderr_is_terminal() && !Progress::stdout_is_terminal());
  plan::run_sweep_parallel(p.ev, p.spec, p.in, p.sweep, h.first, h.end, jobs_of(o), stats, [&](plan::SweepRow&& r) {
    bar.advance();
    tally.add(r);
    if (!p.sweep.pareto.empty()) {
      front.add(std::move(r));
      return;
    }
    plan::append_part_row(buf, r);
    ++t.rows;
    flush(false);
  });
  bar.finish();
  for (const auto& r : front.take_rows()) {
    plan::append_part_row(buf, r);
    ++t.rows;
    flush(false);
  }
  t.counts = tally.counts();
  t.runs = stats.runs;
  t.hits = stats.hits;
  plan::append_part_trailer(buf, t);
  flush(true);
  if (o.stats) {
    finish_output();
    std::fprintf(stderr, "plan: shard %s, %zu points in %.3f s (%.0f points/s); %zu plugin runs, %zu answered from the memo; %zu rows\n",
                 o.shard.c_str(), stats.points, stats.seconds, stats.seconds > 0 ? static_cast<double>(stats.points) / stats.seconds : 0.0,
                 stats.runs, stats.hits, t.rows);
  }
  // Failed checks are counted in the part and reported by plan merge; the shard itself succeeded.
  return ExitStatus::ok;
}

}  // namespace

unsigned parse_jobs(const std::string& text) {
  unsigned n = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), n);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || n < 1 || n > 1024)
    throw UserError{{"--jobs: expected a whole number of worker processes from 1 to 1024, got \"" + printable(text) + "\"",
                     "--jobs 1 runs a sweep in this process; without --jobs it uses every core this process may run on"}};
  return n;
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
  if (!o.shard.empty()) {
    (void)plan::parse_shard(o.shard);
    if (o.file == "-") throw UserError{{"--shard: the plan comes from standard input", "give the plan as a file every machine can read"}};
    if (!o.xlsx.empty() || !o.plot_dir.empty() || !o.html.empty())
      throw UserError{{"--shard writes a part of the sweep, not a workbook, a page or charts", "give --xlsx, --html and --plot to `plan merge`"}};
    if (g.json || g.csv || g.format != "table")
      throw UserError{{"--shard writes a part file (JSON Lines that `plan merge` reads), not --json, --csv or --format",
                       "give the output format to `plan merge`"}};
  }
  PreparedPlan p(o, ro);
  if (o.check_only) return ExitStatus::ok;
  if (!o.shard.empty()) return run_shard(p, o, g);
  PlanFiles files(o, p);

  if (p.sweep.axes.empty()) {
    const plan::Sheet sheet = p.ev.evaluate(p.in);
    plan::RunCache chart_runs;
    const plan::Worksheet w{p.spec, p.program, sheet, &chart_runs};
    if (!sheet.errors.empty()) {
      // A plan with a failed step is not a result: the errors go to stderr and nothing to stdout (exit 2).
      for (const auto& e : sheet.errors) report("error", e);
      throw UserError{{"plan " + o.file + ": " + plural(static_cast<std::int64_t>(sheet.errors.size()), "step or line", "steps or lines") +
                           " failed; no worksheet and no files written",
                       "fix the inputs named above (`infracalc PLUGIN CALC --help` documents each step's inputs)"}};
    }
    const std::string text = plan::render_plan(w, g.out);
    files.write(w, nullptr, g.out.number);
    files.outputs.commit();
    emit(text);
    for (const auto& c : sheet.checks)
      if (c && !c->first) return ExitStatus::check_failed;
    return ExitStatus::ok;
  }
  return finish_sweep(p, o, g, ro, files, [&](SweepOutput& out, plan::SweepStats& stats) {
    plan::run_sweep_parallel(p.ev, p.spec, p.in, p.sweep, 0, plan::sweep_points(p.sweep), jobs_of(o), stats,
                             [&](plan::SweepRow&& r) { out.add(std::move(r), true); });
  });
}

ExitStatus run_plan_merge(const std::vector<std::string>& paths, const PlanOptions& given, const GlobalOptions& g) {
  if (paths.empty()) throw UserError{{"plan merge: no parts given", "plan merge part-1.jsonl part-2.jsonl ... (the files --shard K/N wrote)"}};
  std::vector<std::unique_ptr<plan::PartReader>> parts;
  for (const auto& path : paths) parts.push_back(std::make_unique<plan::PartReader>(path));
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a->header().shard < b->header().shard; });
  const plan::PartHeader& h = parts.front()->header();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const plan::PartHeader& x = parts[i]->header();
    if (!x.same_sweep(h))
      throw UserError{{"plan merge: " + printable(paths[i]) + " comes from another sweep than the others (plan, --set, --sweep, --columns, "
                           "--pareto, --as-of, overlays, or infracalc version differ)",
                       "merge the parts of one command line, run with --shard 1/N ... N/N"}};
    if (i > 0 && x.shard == parts[i - 1]->header().shard)
      throw UserError{{fmt::format("plan merge: shard {}/{} is given twice", x.shard, x.shards), "give each part once"}};
  }
  if (parts.size() != h.shards) {
    std::string missing;
    std::size_t at = 0;
    for (std::size_t k = 1; k <= h.shards && missing.size() < 200; ++k) {
      if (at < parts.size() && parts[at]->header().shard == k) {
        ++at;
        continue;
      }
      missing += (missing.empty() ? "" : ", ") + fmt::format("{}/{}", k, h.shards);
    }
    throw UserError{{fmt::format("plan merge: {} of {} parts given; missing {}", parts.size(), h.shards, missing),
                     "run the missing shards (plan FILE --sweep ... --shard K/N) and merge all of them"}};
  }
  // The sweep is rebuilt from the command the parts record, from the same plan file (checked by its digest) and
  // the same overlays, so its columns, units and front are those of the run that was split.
  PlanOptions o = given;
  o.file = h.plan;
  o.sets = h.sets;
  o.sweeps = h.sweeps;
  o.columns = h.columns;
  o.pareto = h.pareto;
  const auto text = read_input_file(o.file, "plan merge", input_limits::document);
  if (!text)
    throw UserError{{"plan merge: the parts were made from the plan " + printable(o.file) + ", which cannot be read here: " + text.error().message,
                     "run plan merge in the directory the shards ran in, with the same plan file"}};
  if (plan::digest(*text) != h.plan_digest)
    throw UserError{{"plan merge: " + printable(o.file) + " is not the plan the parts were made from (it changed since)",
                     "run the shards again with the plan as it is now"}};
  if (data_inputs() != h.overlays)
    throw UserError{{"plan merge: the parts were made with other overlay data files (--data-dir, INFRACALC_DATA, the user data directory)",
                     "merge with the same --data-dir the shards used"}};
  GlobalOptions gm = g;
  gm.as_of = h.as_of;
  RunOptions ro;
  ro.as_of = as_of_option(gm);
  ro.number = g.out.number;
  PreparedPlan p(o, ro);
  if (plan::sweep_points(p.sweep) != h.points)
    throw UserError{{"plan merge: the sweep rebuilt from the parts' command has another number of points", "run the shards again"}};
  PlanFiles files(o, p);
  return finish_sweep(p, o, gm, ro, files, [&](SweepOutput& out, plan::SweepStats& stats) {
    const auto t0 = std::chrono::steady_clock::now();
    plan::SweepRow row;
    for (auto& part : parts) {
      while (part->next(row, p.sweep.axes.size(), p.sweep.columns.size())) out.add(std::move(row), false);
      const plan::PartTrailer& t = part->trailer();
      out.tally.add(t.counts);
      out.advance(t.counts.points);
      stats.points += t.counts.points;
      stats.runs += t.runs;
      stats.hits += t.hits;
    }
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
}

}  // namespace infracalc::cli
