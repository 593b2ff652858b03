#include "cli/app.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include "catalog/catalog.hpp"
#include "units/printable.hpp"
#include "units/suggest.hpp"

namespace infracalc::cli {

void finish_global_options(GlobalOptions& g) {
  const std::vector<std::string_view> formats = {"table", "json", "csv", "md"};
  if (g.json && g.csv) throw UserError{{"--json and --csv cannot both be given", "pick one output format"}};
  std::string f = g.json ? "json" : g.csv ? "csv" : g.format;
  if (f == "table") g.out.format = writers::OutputFormat::table;
  else if (f == "json") g.out.format = writers::OutputFormat::json;
  else if (f == "csv") g.out.format = writers::OutputFormat::csv;
  else if (f == "md" || f == "markdown") g.out.format = writers::OutputFormat::md;
  else throw UserError{{"--format: expected table, json, csv or md, got \"" + f + "\"", did_you_mean(f, formats)}};
  if (g.out.number.digits < 1 || g.out.number.digits > 17)
    throw UserError{{"--digits: expected 1 to 17 significant digits, got " + std::to_string(g.out.number.digits), "the default is 4"}};
  if (g.color == "always") {
    g.out.color = true;
  } else if (g.color == "never") {
    g.out.color = false;
  } else if (g.color == "auto") {
    const char* no_color = std::getenv("NO_COLOR");
    g.out.color = isatty(STDOUT_FILENO) != 0 && (no_color == nullptr || *no_color == '\0');
  } else {
    throw UserError{{"--color: expected auto, always or never, got \"" + g.color + "\"", ""}};
  }
}

std::string user_data_dir() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x != nullptr && *x != '\0') return std::string(x) + "/infracalc";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') return std::string(h) + "/.local/share/infracalc";
  return {};
}

void apply_data_dirs(const GlobalOptions& g) {
  auto& cat = Catalog::instance();
  std::error_code ec;
  if (const std::string u = user_data_dir(); !u.empty() && std::filesystem::is_directory(u, ec)) cat.add_overlay_dir(u, true);
  if (const char* env = std::getenv("INFRACALC_DATA"); env != nullptr && *env != '\0') {
    std::string s(env);
    std::size_t start = 0;
    while (start <= s.size()) {
      const auto colon = s.find(':', start);
      const std::string part = s.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!part.empty()) cat.add_overlay_dir(part);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  for (const auto& d : g.data_dirs) cat.add_overlay_dir(d);
}

namespace {
// Output files still to be written (OutputFilesPending), and the first error writing stdout while they were.
int g_files_pending = 0;
int g_stdout_error = 0;

void stdout_failed(int e) {
  if (g_files_pending == 0) {
    if (e == EPIPE) std::_Exit(0);
    errno = e;
    std::perror("infracalc: write");
    std::_Exit(2);
  }
  // Files were asked for: remember the error, drop the rest of stdout and go on to write them.
  g_stdout_error = e;
  if (e != EPIPE) report("infracalc: write", std::strerror(e));
}
}  // namespace

OutputFilesPending::OutputFilesPending() { ++g_files_pending; }
OutputFilesPending::~OutputFilesPending() { --g_files_pending; }

void emit(std::string_view text) {
  if (text.empty() || g_stdout_error != 0) return;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) stdout_failed(errno);
}

void finish_output() {
  if (g_stdout_error != 0) return;
  if (std::fflush(stdout) != 0) stdout_failed(errno);
}

int exit_status(ExitStatus status) {
  const int s = static_cast<int>(status);
  if (g_stdout_error != 0 && g_stdout_error != EPIPE) return std::max(s, static_cast<int>(ExitStatus::usage));
  return s;
}

std::vector<std::string> data_inputs() {
  std::vector<std::string> files;
  for (const auto& dir : Catalog::instance().overlay_dirs()) {
    std::vector<std::string> f = Catalog::overlay_files(dir, true);
    files.insert(files.end(), f.begin(), f.end());
  }
  return files;
}

std::string_view infracalc_version() { return "0.1.0"; }

Date as_of_option(const GlobalOptions& g) {
  if (g.as_of.empty()) return {};
  const Date d = Date::parse(g.as_of);
  if (d.valid()) return d;
  // The right shape but no such day: say which month is short.
  const Date shape = Date::parse(g.as_of.substr(0, 8) + "01");
  if (shape.valid() && g.as_of.size() == 10)
    throw UserError{{"--as-of: " + g.as_of + " is not a calendar date (" + g.as_of.substr(0, 7) + " has " +
                         std::to_string(Date::days_in_month(shape.year, shape.month)) + " days)",
                     "e.g. --as-of 2025-01-01"}};
  throw UserError{{"--as-of: expected a date YYYY-MM-DD, got \"" + g.as_of + "\"", "e.g. --as-of 2025-01-01"}};
}

void report(std::string_view label, std::string_view text) {
  const std::string line = std::string(label) + ": " + printable(text, Keep::text) + "\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace infracalc::cli
