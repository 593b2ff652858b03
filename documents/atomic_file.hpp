// Writing output files without ever leaving a half-written file or clobbering one: a temporary file in
// the same directory, moved into place only when complete; several files of one run move together
// (OutputSet) or not at all.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace infracalc {

/// A file being written: created as a hidden temporary next to the target, moved into place by commit().
/// If it is destroyed without commit(), or the process gets SIGINT/SIGTERM/SIGHUP, the temporary is removed.
///
/// Without `force` the target is never replaced, even by a file that appears while this one is written: the
/// temporary is moved with renameat2(RENAME_NOREPLACE) (or link(2), or an O_EXCL placeholder where the file
/// system has neither), so of several processes writing one name exactly one succeeds. With `force` only a
/// regular file is replaced: a symbolic link, device, FIFO or socket is refused.
class AtomicFile {
 public:
  /// Prepares to write `target`. Throws UserError if the target exists and `force` is false, if it is one
  /// of `inputs` (an input file is never overwritten, even with force; compared by device and inode, so a
  /// link to an input counts), if it is a directory, symbolic link or other non-regular file, or if the
  /// directory is not writable.
  AtomicFile(std::string target, bool force, const std::vector<std::string>& inputs = {});
  /// Removes the temporary file if commit() did not run.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// The temporary path to write to (for libraries that open files themselves).
  [[nodiscard]] const std::string& temp_path() const { return temp_; }
  /// The final path.
  [[nodiscard]] const std::string& target() const { return target_; }
  /// Appends bytes to the temporary file; throws UserError on a write error (disk full).
  void write(std::string_view bytes);
  /// Flushes, syncs and moves the temporary file to the target; throws UserError on failure (nothing written).
  void commit();
  /// This run has nothing to put at the target: commit() leaves no new file, and with `force` removes an
  /// old file of that name (it belongs to the set of outputs being replaced).
  void skip();
  /// True after skip().
  [[nodiscard]] bool skipped() const { return skip_; }

 private:
  friend class OutputSet;
  // The two halves of commit(), for OutputSet: install() puts the new file in place and keeps the old
  // one aside (undo() puts it back), finish() drops the old one. Signals are blocked around both.
  void install();
  void replace_existing();  // keeps the old target aside, then renames the temporary over it
  void undo() noexcept;
  void finish() noexcept;

  std::string target_;
  std::string temp_;
  std::string backup_;  // the replaced file, kept until finish()
  int fd_ = -1;
  int slot_ = -1;       // the signal handler's record of temp_
  bool force_ = false;
  bool skip_ = false;
  bool installed_ = false;
  bool created_ = false;  // install() created the target (undo() removes it)
  bool committed_ = false;
};

/// The output files of one run as one transaction: each written to its own temporary, then all moved into
/// place by commit() only when every one is complete. If one cannot be placed (a file that appeared without
/// --force, a failed rename) the ones already placed are taken back and the old files restored; if the set
/// is destroyed without commit() (an error, an exception) or the process gets SIGINT/SIGTERM/SIGHUP while
/// the files are written, every temporary (and every directory the set created) is removed. commit() runs
/// with those signals blocked, so a signal lands before or after the whole set, never inside it.
class OutputSet {
 public:
  OutputSet() = default;
  /// Removes the temporaries and the directories created, unless commit() ran.
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  /// Adds a file to the set (the checks of AtomicFile's constructor apply at once).
  AtomicFile& add(std::string target, bool force, const std::vector<std::string>& inputs = {});
  /// Creates `dir` and any missing parents; those it created are removed again if the set is not committed.
  void create_directory(const std::string& dir);
  /// Moves every file into place, or none; throws UserError naming the file that failed.
  void commit();

 private:
  std::vector<std::unique_ptr<AtomicFile>> files_;
  std::vector<std::pair<std::string, int>> made_dirs_;  // path and signal slot, parents first
  bool committed_ = false;
};

/// Writes `content` to `path` through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view content, bool force,
                           const std::vector<std::string>& inputs = {});

}  // namespace infracalc
