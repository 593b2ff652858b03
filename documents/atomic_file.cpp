#include "documents/atomic_file.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include "units/expected.hpp"

namespace infracalc {

namespace fs = std::filesystem;

namespace {

// What the signal handler removes: temporaries being written (files) and directories an OutputSet created
// (removed after the files, if empty). A slot is claimed before its path is filled and published after.
constexpr int kSlots = 64;
constexpr int kFree = 0, kClaimed = 1, kFile = 2, kDir = 3;
// Constant-initialised (zero, in .bss): a constructor run at start-up would touch all 64 pages of the array in
// every process, a quarter of a query's page faults, though most never write a file.
struct Slot {
  std::atomic<int> kind{kFree};
  char path[4096]{};
};
constinit Slot g_slots[kSlots];

extern "C" void remove_temps_on_signal(int sig) {
  // async-signal-safe: unlink, rmdir, signal, raise
  for (auto& s : g_slots)
    if (s.kind.load() == kFile) ::unlink(s.path);
  for (int pass = 0; pass < 8; ++pass)  // a parent is empty only once its children are gone
    for (int i = kSlots - 1; i >= 0; --i)
      if (g_slots[i].kind.load() == kDir) ::rmdir(g_slots[i].path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Installed whenever the first slot of a quiet spell is claimed, so a handler set meanwhile (a test framework's)
// does not hide the temporaries.
void install_handlers() {
  for (const auto& s : g_slots)
    if (s.kind.load() != kFree) return;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, remove_temps_on_signal);
}

int claim_slot(const std::string& path, int kind) {
  if (path.size() >= sizeof g_slots[0].path) throw UserError{{"output path too long: " + path, ""}};
  install_handlers();
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (g_slots[i].kind.compare_exchange_strong(expected, kClaimed)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].kind.store(kind);
      return i;
    }
  }
  throw UserError{{"too many output files at once (" + std::to_string(kSlots) + ")", "write fewer files in one run"}};
}

void release_slot(int& slot) {
  if (slot >= 0) g_slots[slot].kind.store(kFree);
  slot = -1;
}

// The signals an OutputSet's commit holds back, so that it is never interrupted halfway.
class BlockSignals {
 public:
  BlockSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
    sigprocmask(SIG_BLOCK, &set, &old_);
  }
  ~BlockSignals() { sigprocmask(SIG_SETMASK, &old_, nullptr); }
  BlockSignals(const BlockSignals&) = delete;
  BlockSignals& operator=(const BlockSignals&) = delete;

 private:
  sigset_t old_{};
};

std::string errno_text(int e = errno) { return std::strerror(e); }

bool is_input(const std::string& target, const std::vector<std::string>& inputs) {
  struct stat t {};
  const bool exists = ::stat(target.c_str(), &t) == 0;  // follows links: a link to an input is the input
  std::error_code ec;
  const fs::path canon = fs::weakly_canonical(target, ec);
  for (const auto& in : inputs) {
    if (in == target) return true;
    struct stat s {};
    if (exists && ::stat(in.c_str(), &s) == 0 && s.st_dev == t.st_dev && s.st_ino == t.st_ino) return true;
    std::error_code ec2;
    if (!ec && fs::weakly_canonical(in, ec2) == canon && !ec2) return true;
  }
  return false;
}

UserError exists_error(const std::string& target, bool raced) {
  return UserError{{target + (raced ? " already exists (another process wrote it meanwhile); nothing was written" : " already exists"),
                    "pass --force to replace it, or choose another name"}};
}

// With --force only a regular file is replaced; anything else is refused, whatever --force says.
void check_replaceable(const std::string& target, const struct stat& st) {
  if (S_ISDIR(st.st_mode)) throw UserError{{target + " is a directory", "name a file"}};
  if (S_ISLNK(st.st_mode))
    throw UserError{{target + " is a symbolic link; --force replaces only regular files", "remove the link or write to another name"}};
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file";
    throw UserError{{target + " is " + std::string(what) + "; --force replaces only regular files", "write to a regular file"}};
  }
}

std::string sibling_pattern(const std::string& target, const char* tag) {
  const fs::path p(target);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  return (dir / ("." + p.filename().string() + tag + "-XXXXXX")).string();
}

// Moves `from` to a new name `to` that must not exist. 0 or an errno; EEXIST when `to` exists.
int place_new(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return errno;
  // A file system without RENAME_NOREPLACE: a hard link fails with EEXIST just the same.
  if (::link(from.c_str(), to.c_str()) == 0) {
    ::unlink(from.c_str());
    return 0;
  }
  if (errno == EEXIST) return EEXIST;
  if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP) return errno;
  // Neither (FAT, some network file systems): claim the name with O_EXCL, then rename over the claim.
  const int fd = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  ::close(fd);
  if (::rename(from.c_str(), to.c_str()) == 0) return 0;
  const int e = errno;
  ::unlink(to.c_str());
  return e;
}

// Keeps the file at `target` under a new hidden name (a second hard link, so `target` never disappears; a
// move where hard links are not supported). Returns the name; `moved` says which.
std::string keep_aside(const std::string& target, bool& moved) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::string reserve = sibling_pattern(target, ".old");
    const int fd = ::mkstemp(reserve.data());
    if (fd < 0) throw UserError{{"cannot replace " + target + ": " + errno_text(), "check that the directory is writable; nothing was written"}};
    ::close(fd);
    const std::string name = reserve + "~";  // unique while `reserve` exists
    if (::link(target.c_str(), name.c_str()) == 0) {
      ::unlink(reserve.c_str());
      moved = false;
      return name;
    }
    const int e = errno;
    if (e == EEXIST) {
      ::unlink(reserve.c_str());
      continue;
    }
    if (::rename(target.c_str(), reserve.c_str()) == 0) {
      moved = true;
      return reserve;
    }
    const int e2 = errno;
    ::unlink(reserve.c_str());
    throw UserError{{"cannot replace " + target + ": " + errno_text(e2), "nothing was written"}};
  }
  throw UserError{{"cannot replace " + target + ": no free name for the old file", "nothing was written"}};
}

}  // namespace

AtomicFile::AtomicFile(std::string target, bool force, const std::vector<std::string>& inputs) : target_(std::move(target)), force_(force) {
  if (target_.empty()) throw UserError{{"no output file name given", "name the file to write"}};
  if (is_input(target_, inputs))
    throw UserError{{"refusing to write " + target_ + ": it is an input of this command", "choose another output file"}};
  struct stat st {};
  if (::lstat(target_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw UserError{{target_ + " is a directory", "name a file"}};
    if (!force_) throw exists_error(target_, false);
    check_replaceable(target_, st);
  }
  std::string pattern = sibling_pattern(target_, ".tmp");
  const fs::path dir = fs::path(pattern).parent_path();
  fd_ = ::mkstemp(pattern.data());
  if (fd_ < 0) throw UserError{{"cannot create a file in " + dir.string() + ": " + errno_text(), "check that the directory exists and is writable"}};
  temp_ = pattern;
  try {
    slot_ = claim_slot(temp_, kFile);
  } catch (...) {
    ::close(fd_);
    ::unlink(temp_.c_str());
    throw;
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!installed_ && !temp_.empty()) ::unlink(temp_.c_str());
  release_slot(slot_);
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

void AtomicFile::skip() { skip_ = true; }

void AtomicFile::install() {
  if (installed_) return;
  if (fd_ >= 0) {
    // A file written by a library through temp_path() is already on disk; fsync whatever is there.
    if (!skip_ && ::fsync(fd_) != 0 && errno != EINVAL)
      throw UserError{{"cannot write " + target_ + ": " + errno_text(), "nothing was written"}};
    ::fchmod(fd_, 0644);
    ::close(fd_);
    fd_ = -1;
  }
  struct stat st {};
  const bool exists = ::lstat(target_.c_str(), &st) == 0;
  if (skip_) {
    // Nothing new; with --force an old file of the set goes (and comes back on undo()).
    ::unlink(temp_.c_str());
    if (exists && force_) {
      check_replaceable(target_, st);
      bool moved = false;
      backup_ = keep_aside(target_, moved);
      if (!moved && ::unlink(target_.c_str()) != 0) {
        const int e = errno;
        ::unlink(backup_.c_str());
        backup_.clear();
        throw UserError{{"cannot remove the old " + target_ + ": " + errno_text(e), "nothing was written"}};
      }
    }
  } else if (exists) {
    if (!force_) throw exists_error(target_, true);
    check_replaceable(target_, st);  // again: it may have changed since the constructor looked
    replace_existing();
  } else if (const int e = place_new(temp_, target_); e == EEXIST) {
    if (!force_) throw exists_error(target_, true);
    // --force, and a file appeared meanwhile: replace it as above.
    struct stat now {};
    if (::lstat(target_.c_str(), &now) == 0) check_replaceable(target_, now);
    replace_existing();
  } else if (e != 0) {
    throw UserError{{"cannot move the new file into place at " + target_ + ": " + errno_text(e), "nothing was written"}};
  } else {
    created_ = true;
  }
  temp_.clear();
  release_slot(slot_);
  installed_ = true;
}

void AtomicFile::replace_existing() {
  bool moved = false;
  backup_ = keep_aside(target_, moved);
  if (::rename(temp_.c_str(), target_.c_str()) == 0) return;
  const int e = errno;
  if (moved) ::rename(backup_.c_str(), target_.c_str());
  else ::unlink(backup_.c_str());
  backup_.clear();
  throw UserError{{"cannot move the new file into place at " + target_ + ": " + errno_text(e), "nothing was written"}};
}

void AtomicFile::undo() noexcept {
  if (!installed_) return;
  if (!backup_.empty()) ::rename(backup_.c_str(), target_.c_str());  // the old file back, over the new one
  else if (created_) ::unlink(target_.c_str());
  backup_.clear();
  created_ = false;
  installed_ = false;
}

void AtomicFile::finish() noexcept {
  if (!backup_.empty()) ::unlink(backup_.c_str());
  backup_.clear();
  committed_ = true;
}

void AtomicFile::commit() {
  const BlockSignals block;
  try {
    install();
  } catch (...) {
    undo();
    throw;
  }
  finish();
}

OutputSet::~OutputSet() {
  if (!committed_) {
    for (auto it = files_.rbegin(); it != files_.rend(); ++it) (*it)->undo();
    files_.clear();  // removes the temporaries
    for (auto it = made_dirs_.rbegin(); it != made_dirs_.rend(); ++it) ::rmdir(it->first.c_str());
  }
  for (auto& d : made_dirs_) release_slot(d.second);
}

AtomicFile& OutputSet::add(std::string target, bool force, const std::vector<std::string>& inputs) {
  files_.push_back(std::make_unique<AtomicFile>(std::move(target), force, inputs));
  return *files_.back();
}

void OutputSet::create_directory(const std::string& dir) {
  std::vector<fs::path> missing;
  fs::path p = fs::path(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();  // "charts/" names "charts"
  while (!p.empty()) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0) break;
    missing.push_back(p);
    const fs::path parent = p.parent_path();
    if (parent == p) break;
    p = parent;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    const std::string path = it->string();
    if (::mkdir(path.c_str(), 0777) != 0) {
      if (errno == EEXIST) continue;  // made by someone else meanwhile: not ours to remove
      throw UserError{{"cannot create the directory " + path + ": " + errno_text(), "give a writable directory"}};
    }
    made_dirs_.emplace_back(path, -1);
    made_dirs_.back().second = claim_slot(path, kDir);
  }
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UserError{{dir + " is not a directory", "give a directory"}};
}

void OutputSet::commit() {
  const BlockSignals block;
  std::size_t placed = 0;
  try {
    for (; placed < files_.size(); ++placed) files_[placed]->install();
  } catch (...) {
    while (placed > 0) files_[--placed]->undo();
    throw;
  }
  for (auto& f : files_) f->finish();
  committed_ = true;
}

void write_file_atomically(const std::string& path, std::string_view content, bool force, const std::vector<std::string>& inputs) {
  AtomicFile f(path, force, inputs);
  f.write(content);
  f.commit();
}

}  // namespace infracalc
