// The WebAssembly engine: a batch record in and its result line out, and a plan's text in and what `infracalc plan`
// writes for it out, through the same code as the command line (plan/batch_record.hpp, plan/plan_run.hpp), so every
// number a page shows is the command line's number.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <emscripten/emscripten.h>

#include "documents/json.hpp"
#include "host/context.hpp"
#include "plan/batch_record.hpp"
#include "plan/plan_html.hpp"
#include "plan/plan_run.hpp"

namespace {

// The last result, kept until the next call so the caller can read it through the returned pointer.
std::string last_result;

std::string_view text_of(const char* text) { return text == nullptr ? std::string_view() : std::string_view(text); }

// A request's string member, or `fallback` when it has none.
std::string request_text(const infracalc::Node& request, const char* key, std::string fallback) {
  const infracalc::Node* v = request.find(key);
  if (v == nullptr) return fallback;
  if (v->kind != infracalc::Node::Kind::string)
    throw infracalc::UserError{{"request: \"" + std::string(key) + "\" must be a string", R"(e.g. {"file": "plan.toml", "set": {"workload.rate": "50/s"}, "sweep": [], "view": "json"})"}};
  return v->str;
}

std::string run_plan(std::string_view toml, std::string_view request_json) {
  using namespace infracalc;
  const RunOptions options;
  Node request;
  request.kind = Node::Kind::table;
  if (!request_json.empty()) {
    auto doc = read_json(request_json, "request");
    if (!doc) throw UserError{doc.error()};
    request = std::move(doc.value());
  }
  if (!request.is_table()) throw UserError{{"request: expected a JSON object", R"(e.g. {"file": "plan.toml", "set": {"workload.rate": "50/s"}})"}};
  for (const auto& [k, v] : request.members)
    if (k != "file" && k != "set" && k != "sweep" && k != "view" && k != "runs")
      throw UserError{{"request: unknown key \"" + k + "\"", "a request has file, set, sweep, view and runs, each optional"}};
  plan::PlanRequest run;
  // The page re-runs its plan at every what-if move: steps whose inputs did not move come from the earlier runs. A
  // fresh request runs every step and keeps nothing (the panel's warm-up).
  static const auto runs = std::make_shared<plan::RunCache>();
  const std::string kept = request_text(request, "runs", "kept");
  if (kept != "kept" && kept != "fresh")
    throw UserError{{"request: unknown runs \"" + kept + "\"", "kept (steps come from earlier requests where their inputs match) or fresh"}};
  if (kept == "kept") run.runs = runs;
  if (const Node* set = request.find("set")) run.sets = record_sets(*set);
  if (const Node* sweep = request.find("sweep")) {
    if (sweep->kind != Node::Kind::array) throw UserError{{"request: \"sweep\" must be an array of --sweep texts", R"(e.g. {"sweep": ["batch=8,16"]})"}};
    for (const auto& axis : sweep->items) {
      if (axis.kind != Node::Kind::string) throw UserError{{"request: \"sweep\" must be an array of --sweep texts", R"(e.g. {"sweep": ["batch=8,16"]})"}};
      run.sweeps.push_back(axis.str);
    }
  }
  const std::string file = request_text(request, "file", "plan.toml");
  const std::string view = request_text(request, "view", "json");
  if (view != "json" && view != "worksheet" && view != "html")
    throw UserError{{"request: unknown view \"" + view + "\"", "json (what plan --json prints), worksheet (its JSON of one point) or html (the page plan --html writes)"}};
  plan::PreparedPlan p(toml, file, run, options);
  // The engine has no files: a key whose input names one cannot be read here.
  for (const auto& [path, value] : p.spec.values)
    if (const plan::KeyDef* k = plan::find_key(path, p.spec.mode()); k != nullptr)
      if (const Input* input = plan::key_input(*k); input != nullptr && input->names_file)
        throw UserError{{path + " names a file, which the engine in a page cannot read", "run the plan with `infracalc plan`"}};
  if (view == "json") return plan::plan_json_text(p, options);
  const plan::Sheet sheet = plan::worksheet_sheet(p, options);
  // As `plan --html` and `--xlsx`: a single plan with a failed step is refused; a sweep's page shows its first point
  // and the steps that failed there.
  if (p.sweep.axes.empty()) plan::throw_if_failed(sheet);
  const plan::Worksheet w{p.spec, p.program, sheet, p.runs.get()};
  if (view == "worksheet") return plan::plan_json(w);
  std::string page = plan::render_html(w, options.number);
  if (!page.empty() && page.back() == '\n') page.pop_back();
  return page;
}

}  // namespace

extern "C" {

/// Runs one batch record (a JSON object as UTF-8 text, as one line of `infracalc batch` input) as record number
/// `record` (1-based: `infracalc batch` numbers its lines) and returns its result line, without the newline:
/// exactly what `infracalc batch` prints for it, an error line included. The text stays valid until the next
/// call. Records that name files (an input file, a plan) fail as they do in a batch run without --files-from.
EMSCRIPTEN_KEEPALIVE const char* infracalc_run_record(const char* record_json, int record) {
  // The command line's defaults: no --as-of (the newest dated entries), --digits 4, decimal prefixes.
  const infracalc::RunOptions options;
  last_result.clear();
  std::string_view text = text_of(record_json);
  // As `infracalc batch` reads a line: without its line ending.
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  (void)infracalc::process_batch_record(text, record > 0 ? static_cast<std::size_t>(record) : 1, options, last_result);
  if (!last_result.empty() && last_result.back() == '\n') last_result.pop_back();
  return last_result.c_str();
}

/// Runs a plan given as its TOML text with a request, a JSON object with four optional members: "file", the name
/// the plan goes by in positions and output (the path `infracalc plan` was given; "plan.toml" when absent), "set",
/// the overrides of `--set` as a batch plan record writes them ({"workload.rate": "50/s"}; "" removes a value),
/// "sweep", the axes of `--sweep` (["batch=8,16"]), and "view": "json" (the default: what `infracalc plan FILE --json` prints, a single plan's worksheet or a sweep's JSON
/// Lines), "worksheet" (the worksheet JSON of a single plan or of a sweep's first point) or "html" (the page
/// `plan --html` writes for that worksheet, without the what-if panel), and "runs": "kept" (the default: a step whose
/// calculator and inputs match one of an earlier request is not run again) or "fresh" (every step runs, and nothing is
/// kept). Returns that text without its last newline,
/// or an error document {"schema_version": 1, "error": ..., "hint": ...}. The text stays valid until the next call.
EMSCRIPTEN_KEEPALIVE const char* infracalc_run_plan(const char* plan_toml, const char* request_json) {
  last_result.clear();
  try {
    last_result = run_plan(text_of(plan_toml), text_of(request_json));
  } catch (const infracalc::UserError& e) {
    infracalc::append_batch_error(last_result, 0, nullptr, e.error);
    last_result.pop_back();
  }
  return last_result.c_str();
}

}  // extern "C"
