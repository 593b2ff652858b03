// A progress bar on stderr for work that runs longer than about a second (sweeps, a full verify): count, share
// and time left, redrawn at most ten times a second, and only when stderr is a terminal (never in a pipe or a
// log, where the output must stay what the command computes).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace infracalc::cli {

/// A progress bar for `total` steps (0 when the count is unknown).
class Progress {
 public:
  /// A bar labelled `label` ("plan sweep"); drawn only when `enabled` (default: stderr is a terminal).
  Progress(std::string label, double total, bool enabled = stderr_is_terminal());
  /// Clears the bar's line (finish()).
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// `n` more steps are done; `what` names the one now running (a kernel), shown after the count.
  void advance(double n = 1, std::string_view what = {});
  /// `done` steps in all are done now (a calculator's progress sink reports totals, not increments).
  void reach(double done) { advance(done - done_); }
  /// The work is done: clears the bar's line, so that what the command prints next starts on a clean line.
  void finish();
  /// The line the bar draws now (for tests): label, bar, count, share and time left.
  [[nodiscard]] std::string line() const;
  /// True when stderr is a terminal.
  [[nodiscard]] static bool stderr_is_terminal();
  /// True when stdout is a terminal (a bar would interleave with rows streamed there).
  [[nodiscard]] static bool stdout_is_terminal();

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  std::string what_;
  double total_;
  double done_ = 0;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_{};
  std::chrono::milliseconds quiet_;
};

}  // namespace infracalc::cli
