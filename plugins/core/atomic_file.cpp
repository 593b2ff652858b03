#include "plugins/core/atomic_file.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include "units/expected.hpp"

namespace infracalc {

namespace fs = std::filesystem;

namespace {

// The temporary file being written, for the signal handler (one at a time is enough for a CLI).
char g_temp[4096];
std::atomic<bool> g_active{false};

extern "C" void remove_temp_on_signal(int sig) {
  if (g_active.load()) ::unlink(g_temp);  // async-signal-safe
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_handlers() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, remove_temp_on_signal);
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

AtomicFile::AtomicFile(std::string target, bool force, const std::vector<std::string>& inputs) : target_(std::move(target)) {
  if (target_.empty()) throw UserError{{"no output file name given", "name the file to write"}};
  for (const auto& in : inputs)
    if (same_file(in, target_) || in == target_)
      throw UserError{{"refusing to write " + target_ + ": it is an input of this command", "choose another output file"}};
  std::error_code ec;
  if (fs::exists(target_, ec) && !force)
    throw UserError{{target_ + " already exists", "pass --force to replace it, or choose another name"}};
  if (fs::is_directory(target_, ec)) throw UserError{{target_ + " is a directory", "name a file"}};
  const fs::path p(target_);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::string pattern = (dir / ("." + p.filename().string() + ".tmp-XXXXXX")).string();
  if (pattern.size() >= sizeof g_temp) throw UserError{{"output path too long: " + target_, ""}};
  fd_ = ::mkstemp(pattern.data());
  if (fd_ < 0) throw UserError{{"cannot create a file in " + dir.string() + ": " + errno_text(), "check that the directory exists and is writable"}};
  temp_ = pattern;
  install_handlers();
  std::memcpy(g_temp, temp_.c_str(), temp_.size() + 1);
  g_active.store(true);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
  g_active.store(false);
}

void AtomicFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw UserError{{"cannot write " + target_ + ": " + errno_text(), "free some space or choose another location; nothing was written"}};
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void AtomicFile::commit() {
  // A file written by a library through temp_path() is already on disk; fsync whatever is there.
  if (::fsync(fd_) != 0 && errno != EINVAL)
    throw UserError{{"cannot write " + target_ + ": " + errno_text(), "nothing was written"}};
  ::fchmod(fd_, 0644);
  ::close(fd_);
  fd_ = -1;
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    throw UserError{{"cannot move the new file into place at " + target_ + ": " + errno_text(), "nothing was written"}};
  committed_ = true;
  g_active.store(false);
}

void write_file_atomically(const std::string& path, std::string_view content, bool force, const std::vector<std::string>& inputs) {
  AtomicFile f(path, force, inputs);
  f.write(content);
  f.commit();
}

}  // namespace infracalc
