#include "plan/plan_run.hpp"

#include <utility>

#include "plan/plan_output.hpp"

namespace infracalc::plan {

namespace {

PlanSpec prepared_spec(std::string_view text, const std::string& source, const PlanRequest& request, Problems& problems) {
  PlanSpec spec = parse_plan_text(text, source, problems);
  if (spec.syntax_error) problems.throw_if_any();
  apply_sets(spec, request.sets, problems);
  // A key swept on the command line counts as given, as one in the file's [sweep] does.
  std::vector<std::string> swept;
  for (const auto& ax : request.sweeps) {
    const auto eq = ax.find('=');
    if (const KeyDef* k = find_key(ax.substr(0, eq), spec.mode()); k != nullptr && eq != std::string::npos) swept.push_back(k->path());
  }
  validate(spec, problems, swept);
  return spec;
}

}  // namespace

PreparedPlan::PreparedPlan(std::string_view plan_text, const std::string& source, const PlanRequest& request, const RunOptions& ro)
    : text(plan_text), spec(prepared_spec(text, source, request, problems)), program(build_program(spec, problems)), ev(program, ro),
      in(ev.inputs(spec, problems)), runs(request.runs) {
  ev.share_runs(runs);
  if (request.sweep) sweep = make_sweep(spec, program, request.sweeps, request.columns, request.pareto, problems);
  problems.throw_if_any();
}

Sheet worksheet_sheet(const PreparedPlan& p, const RunOptions& ro) {
  Evaluator single(p.program, ro);
  single.share_runs(p.runs);
  return single.evaluate(p.sweep.axes.empty() ? p.in : first_point(single, p.spec, p.in, p.sweep));
}

void throw_if_failed(const Sheet& sheet) {
  if (sheet.errors.empty()) return;
  const std::size_t more = sheet.errors.size() - 1;
  throw UserError{{"plan: " + sheet.errors.front() + (more > 0 ? " (and " + std::to_string(more) + " more)" : std::string()),
                   "`infracalc plan FILE --check` lists every problem"}};
}

std::string plan_json_text(PreparedPlan& p, const RunOptions& ro) {
  if (p.sweep.axes.empty()) {
    const Sheet sheet = p.ev.evaluate(p.in);
    throw_if_failed(sheet);
    return plan_json(Worksheet{p.spec, p.program, sheet});
  }
  // As `plan --json` writes a sweep: rows as JSON Lines in grid order, or the Pareto front's rows.
  p.ev.set_cross_checks(false);
  writers::OutputOptions json;
  json.format = writers::OutputFormat::json;
  json.number = ro.number;
  std::string out;
  SweepStats stats;
  if (p.sweep.pareto.empty()) {
    SweepStreamer streamer(p.program, p.sweep, json, [&](std::string_view piece) { out += piece; });
    run_sweep(p.ev, p.spec, p.in, p.sweep, stats, [&](SweepRow&& r) { streamer.add(r); });
    streamer.finish();
  } else {
    ParetoFront front(p.sweep);
    run_sweep(p.ev, p.spec, p.in, p.sweep, stats, [&](SweepRow&& r) { front.add(std::move(r)); });
    out = render_sweep(p.program, p.sweep, front.take_rows(), json);
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace infracalc::plan
