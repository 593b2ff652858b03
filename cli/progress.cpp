#include "cli/progress.hpp"

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

#include "units/format.hpp"

namespace infracalc::cli {

namespace {

// The bar appears once the work has run this long (a quick command never flickers one; INFRACALC_PROGRESS_DELAY
// sets it in milliseconds, 0 for at once), and redraws this often.
std::chrono::milliseconds quiet_period() {
  const char* env = std::getenv("INFRACALC_PROGRESS_DELAY");
  if (env == nullptr || *env == '\0') return std::chrono::milliseconds(1000);
  char* end = nullptr;
  const long ms = std::strtol(env, &end, 10);
  return std::chrono::milliseconds(end != env && *end == '\0' && ms >= 0 ? ms : 1000);
}
constexpr auto kRedraw = std::chrono::milliseconds(100);

}  // namespace

bool Progress::stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

Progress::Progress(std::string label, double total, bool enabled)
    : label_(std::move(label)), total_(total), enabled_(enabled), quiet_(quiet_period()) {}

Progress::~Progress() { finish(); }

void Progress::finish() {
  if (drawn_) std::fputs("\r\x1b[K", stderr);
  drawn_ = false;
  enabled_ = false;
}

bool Progress::stdout_is_terminal() { return isatty(STDOUT_FILENO) != 0; }

std::string Progress::line() const {
  const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  std::string out = label_ + " ";
  if (total_ > 0) {
    constexpr int kWidth = 24;
    const double share = std::min(1.0, done_ / total_);
    const int filled = static_cast<int>(share * kWidth);
    out += "[" + std::string(static_cast<std::size_t>(filled), '#') + std::string(static_cast<std::size_t>(kWidth - filled), '-') + "] ";
    out += format_count(done_, 15) + "/" + format_count(total_, 15) + fmt::format(" {:.0f}%", share * 100);
    if (done_ > 0 && share < 1) {
      const double left = seconds * (total_ - done_) / done_;
      out += " " + format_human(Quantity{left, dims::time, false}, FormatOptions{.digits = 2}) + " left";
    }
  } else {
    out += format_count(done_, 15) + " done";
  }
  if (!what_.empty()) out += "  " + what_;
  return out;
}

void Progress::advance(double n, std::string_view what) {
  done_ += n;
  if (!what.empty()) what_ = std::string(what);
  if (!enabled_) return;
  const auto now = Clock::now();
  if (now - start_ < quiet_ || (drawn_ && now - last_ < kRedraw)) return;
  last_ = now;
  drawn_ = true;
  // \x1b[K clears what a longer previous line left; the bar is cut to 100 columns so it never wraps in a terminal.
  std::string text = line();
  if (text.size() > 100) text.resize(100);
  std::fprintf(stderr, "\r%s\x1b[K", text.c_str());
  std::fflush(stderr);
}

}  // namespace infracalc::cli
