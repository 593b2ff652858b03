#include <cmath>
#include <exception>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "cli/verify_workers.hpp"
#include "plan/document.hpp"
#include "documents/atomic_file.hpp"
#include "documents/json.hpp"
#include "host/worker_processes.hpp"
#include "plugins/decode/decode_host.hpp"
#include "plugins/registry.hpp"
#include "units/suggest.hpp"

namespace infracalc::cli {

namespace {
struct Row {
  std::string plugin, kernel;
  KernelCheck check;
  bool pass = false;
  // A timing check outside its tolerance: reported, not counted as a failure.
  bool warn = false;
  std::string error;
};

Row failed_row(std::string_view plugin, std::string_view kernel, std::string error) {
  Row r;
  r.plugin = std::string(plugin);
  r.kernel = std::string(kernel);
  r.check.figure = "kernel did not finish";
  r.pass = false;
  r.error = std::move(error);
  return r;
}

double rel_diff(const KernelCheck& c) {
  const double d = std::fabs(c.kernel.value - c.formula.value);
  return c.formula.value != 0.0 ? d / std::fabs(c.formula.value) : d;
}
// What the check compared, in the terms it passed or failed by: a relative difference against a relative tolerance,
// or (where the check allows an absolute tolerance, for figures that should be zero) the difference in the figure's
// unit against it; "within" or "outside" says which.
std::string difference_text(const KernelCheck& c, const FormatOptions& f) {
  const double d = std::fabs(c.kernel.value - c.formula.value);
  const bool within = c.pass();
  const std::string verdict = within ? "within" : "outside";
  if (c.abs_tol > 0 && (c.formula.value == 0.0 || d <= c.abs_tol)) {
    const Quantity diff{d, c.formula.dim, false}, tol{c.abs_tol, c.formula.dim, false};
    return fmt::format("difference {} ({} the absolute tolerance {})", format_human(diff, f), verdict, format_human(tol, f));
  }
  if (c.rel_tol == 0.0) return fmt::format("relative difference {:.3g} (exact agreement required: {})", rel_diff(c), within ? "met" : "not met");
  return fmt::format("relative difference {:.3g} ({} the tolerance {:.3g}{})", rel_diff(c), verdict, c.rel_tol,
                     c.timing ? ", a timing check: outside it is a warning" : "");
}

}  // namespace

ExitStatus run_verify(const std::vector<std::string>& plugins, const KernelOptions& k, const GlobalOptions& g) {
  std::vector<const Plugin*> chosen;
  if (plugins.empty()) {
    for (const auto& e : plugin_table()) chosen.push_back(&e.get());
  } else {
    std::vector<std::string_view> names;
    for (const auto& e : plugin_table()) names.push_back(e.name);
    for (const auto& name : plugins) {
      const Plugin* p = find_plugin(name);
      if (p == nullptr) throw UserError{{"verify: unknown plugin '" + name + "'", did_you_mean(name, names)}};
      chosen.push_back(p);
    }
  }
#if defined(__GLIBC__)
  // The kernels allocate and free buffers of tens of megabytes again and again; glibc would hand each back to
  // the kernel and fault it in anew (a third of `verify formats` went to page faults in a virtual machine).
  // Keeping freed memory in the heap for this one command removes that without changing what is computed.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  struct Task {
    const Plugin* plugin;
    const Kernel* kernel;
  };
  std::vector<Task> tasks;
  std::vector<std::size_t> pooled, alone;
  for (const Plugin* p : chosen)
    for (const auto& kern : p->kernels) {
      (kern.alone ? alone : pooled).push_back(tasks.size());
      tasks.push_back({p, &kern});
    }
  const auto run_one = [&](std::size_t i) {
    KernelOutcome o;
    try {
      o.checks = tasks[i].kernel->run(k);
    } catch (const std::exception& e) {
      o.error = e.what();
    } catch (const UserError& e) {
      o.error = e.error.text();
    }
    return o;
  };
  Progress bar("verify", static_cast<double>(tasks.size()));
  const auto started = [&](std::size_t i) { bar.advance(0, fmt::format("{} {}", tasks[i].plugin->name, tasks[i].kernel->name)); };
  // A trace is read in order, so it runs in one process; the kernels that time this machine run after the others,
  // one at a time, in this process (verify --calibrate writes what decode-loop measured).
  std::vector<KernelOutcome> outcomes(tasks.size());
  auto from_pool = run_in_workers(
      pooled.size(), k.trace ? 1U : available_cores(), [&](std::size_t j) { return run_one(pooled[j]); },
      [&](std::size_t j) { started(pooled[j]); }, [&](std::size_t /*j*/) { bar.advance(); });
  for (std::size_t j = 0; j < pooled.size(); ++j) outcomes[pooled[j]] = std::move(from_pool[j]);
  for (const std::size_t i : alone) {
    started(i);
    outcomes[i] = run_one(i);
    bar.advance();
  }
  std::vector<Row> rows;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    if (!outcomes[i].error.empty()) {
      rows.push_back(failed_row(t.plugin->name, t.kernel->name, outcomes[i].error));
      continue;
    }
    for (auto& c : outcomes[i].checks) {
      const bool ok = c.pass();
      rows.push_back({std::string(t.plugin->name), std::string(t.kernel->name), c, ok || c.timing, !ok && c.timing, ""});
    }
  }
  bar.finish();
  std::size_t failed = 0, warned = 0;
  for (const auto& r : rows) {
    failed += r.pass ? 0 : 1;
    warned += r.warn ? 1 : 0;
  }
  // For programs: every comparison with both figures in base units; for people: a verdict per comparison (a timing
  // outside its tolerance holds, and says "warn"), then the counts.
  using writers::Member;
  auto quantity = [](const Quantity& q) { return std::vector<Member>{{"value", q.value}, {"unit", writers::machine_unit(q)}}; };
  std::vector<Member> checks;
  std::vector<Verdict> verdicts;
  for (const auto& r : rows) {
    std::vector<Member> one = {{"plugin", r.plugin},
                               {"kernel", r.kernel},
                               {"figure", r.check.figure},
                               {"formula", quantity(r.check.formula)},
                               {"kernel_value", quantity(r.check.kernel)},
                               {"rel_diff", rel_diff(r.check)},
                               {"rel_tol", r.check.rel_tol},
                               {"pass", r.pass}};
    if (r.check.timing) {
      one.push_back({"timing", true});
      one.push_back({"within_tolerance", !r.warn});
    }
    if (!r.error.empty()) one.push_back({"error", r.error});
    checks.push_back({"", std::move(one)});
    const std::string what = r.plugin + " " + r.kernel + (r.error.empty() ? ": " + r.check.figure : "");
    verdicts.push_back({what, r.pass,
                        !r.error.empty() ? "error: " + r.error
                                         : (r.warn ? "warn: " : "") + fmt::format("formula {}  kernel {}  {}", format_human(r.check.formula, g.out.number),
                                                                                   format_human(r.check.kernel, g.out.number),
                                                                                   difference_text(r.check, g.out.number))});
  }
  std::vector<std::string> counts = {fmt::format("{} checks: {} passed, {} failed", rows.size(), rows.size() - failed, failed)};
  if (warned > 0)
    counts.push_back(fmt::format("{} timing check{} outside tolerance (warn): timing on a shared machine is reported, never a failure", warned,
                                 warned == 1 ? "" : "s"));
  writers::Document doc{.title = "verify"};
  doc.head = {{"schema_version", std::int64_t{1}},
              {.key = "verify", .value = std::move(checks), .list = true},
              {"passed", static_cast<std::int64_t>(rows.size() - failed)},
              {"failed", static_cast<std::int64_t>(failed)},
              {"timing_warnings", static_cast<std::int64_t>(warned)}};
  writers::Section compared{.kind = writers::SectionKind::verdicts, .key = "verify", .json = false};
  compared.verdicts = verdicts;
  writers::Section summary{.kind = writers::SectionKind::notes, .key = "summary", .title = "summary", .json = false, .csv = false};
  summary.notes = counts;
  doc.sections = {compared, summary};
  emit(writers::render(doc, g.out));
  return failed == 0 ? ExitStatus::ok : ExitStatus::check_failed;
}

void write_calibration(const KernelOptions& k) {
  if (!decode::host_measured())
    throw UserError{{"verify --calibrate: the decode measurement did not run", "see the decode-loop error above"}};
  const decode::HostMeasurement& m = decode::measure_host(k);
  const std::string dir = user_data_dir();
  if (dir.empty()) throw UserError{{"verify --calibrate: no user data directory (HOME and XDG_DATA_HOME are unset)", "set HOME or XDG_DATA_HOME"}};
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(dir) / "accelerators";
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw UserError{{"verify --calibrate: cannot create " + folder.string() + ": " + ec.message(), "check the permissions"}};
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "%s", "this host");
  const fs::path target = folder / "this-host.toml";
  // Recalibrating replaces the previous measurement: force, through a temporary file and a rename.
  write_file_atomically(target.string(), decode::calibration_toml(m, host), true);
  fmt::print(stderr, "verify: calibration written to {} (as of {}); use it with --gpu this-host --dtype fp32\n", target.string(), m.date);
}

}  // namespace infracalc::cli
