// Writing output files without ever leaving a half-written file or clobbering one: a temporary file in
// the same directory, renamed into place only when complete.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace infracalc {

/// A file being written: created as a hidden temporary next to the target, moved into place by commit().
/// If it is destroyed without commit(), or the process gets SIGINT/SIGTERM/SIGHUP, the temporary is removed.
class AtomicFile {
 public:
  /// Prepares to write `target`. Throws UserError if the target exists and `force` is false, if it is one
  /// of `inputs` (an input file is never overwritten, even with force), or if the directory is not writable.
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
  /// Flushes, syncs and renames the temporary file over the target; throws UserError on failure.
  void commit();

 private:
  std::string target_;
  std::string temp_;
  int fd_ = -1;
  bool committed_ = false;
};

/// Writes `content` to `path` through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view content, bool force,
                           const std::vector<std::string>& inputs = {});

}  // namespace infracalc
