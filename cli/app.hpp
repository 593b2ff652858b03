// What every command shares: global options, the exit-status enum and the stdout sink.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "plan/output.hpp"
#include "documents/node.hpp"

namespace infracalc::cli {

/// Process exit statuses (the design's contract).
enum class ExitStatus : int {
  ok = 0,            ///< evaluated, and every requested check passed
  check_failed = 1,  ///< evaluated, but a check the user asked for failed (--require-fit, verify)
  usage = 2,         ///< usage, unit, input or data error
};

/// Options every command accepts.
struct GlobalOptions {
  /// How results are written.
  writers::OutputOptions out;
  /// --as-of DATE for dated series, "" for the newest.
  std::string as_of;
  /// --color auto|always|never.
  std::string color = "auto";
  /// --format value (table, json, csv, md).
  std::string format = "table";
  /// --json shorthand.
  bool json = false;
  /// --csv shorthand.
  bool csv = false;
  /// --data-dir overlays.
  std::vector<std::string> data_dirs;
  /// --fields a,b: the results to keep (calculators and batch; "" keeps all).
  std::string fields;
};

/// The infracalc version ("0.1.0").
[[nodiscard]] std::string_view infracalc_version();

/// The date of --as-of (an unset Date when it was not given); a text that is not YYYY-MM-DD naming a calendar day
/// (2024-02-31, 2023-02-29) throws UserError.
[[nodiscard]] Date as_of_option(const GlobalOptions& g);
/// Resolves --format/--json/--csv and --color into out; throws UserError for bad values.
void finish_global_options(GlobalOptions& g);
/// Adds the overlay directories from $INFRACALC_DATA, the user data dir and --data-dir to the catalog.
void apply_data_dirs(const GlobalOptions& g);
/// The user data directory ($XDG_DATA_HOME/infracalc or ~/.local/share/infracalc).
[[nodiscard]] std::string user_data_dir();

/// Writes to stdout (buffered). A closed pipe ends the process quietly with status 0 and another write error
/// (a full disk) with status 2, unless output files are pending (OutputFilesPending): then the error is kept,
/// the rest of stdout is dropped, and the command goes on to write its files; exit_status() says how it ends.
void emit(std::string_view text);
/// Flushes stdout at exit, with the same rules.
void finish_output();
/// While one lives, a failed write to stdout does not end the process before the output files the command
/// was asked for (--xlsx, --plot, --out) are written: whatever happens to stdout, they are written (or the
/// command fails for their own reasons), never silently skipped.
class OutputFilesPending {
 public:
  OutputFilesPending();
  ~OutputFilesPending();
  OutputFilesPending(const OutputFilesPending&) = delete;
  OutputFilesPending& operator=(const OutputFilesPending&) = delete;
};
/// The process exit status for a command that returned `status`: `status` itself, or 2 when a write to stdout
/// failed other than by a closed pipe (a closed pipe is the reader's choice and stays quiet, as in emit()).
[[nodiscard]] int exit_status(ExitStatus status);
/// Every data file a run may read from the overlay directories (--data-dir, INFRACALC_DATA, the user data
/// directory): the `inputs` an output file must never replace.
[[nodiscard]] std::vector<std::string> data_inputs();
/// Writes "LABEL: TEXT" and a line feed to stderr: the one way a message reaches stderr. TEXT is escaped
/// (units/printable.hpp, Keep::text), so bytes from input or data (ESC, OSC, C0/C1, DEL, invalid UTF-8,
/// bidirectional overrides) never reach the terminal raw.
void report(std::string_view label, std::string_view text);

}  // namespace infracalc::cli
