// Newline-terminated records from a stream (batch records, sweep parts), read in 64 KiB blocks and never held
// past a limit: a stream of zeros or one endless line must not exhaust memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace infracalc {

/// Reads lines of at most `limit` bytes from a FILE (not owned).
class LineReader {
 public:
  /// What next() found.
  enum class Got : std::uint8_t { record, too_long, end, error };
  /// A reader of `f` whose lines may hold up to `limit` bytes.
  LineReader(std::FILE* f, std::size_t limit) : f_(f), limit_(limit) {}
  /// The next line, without its newline. A line past the limit is reported (too_long) as soon as the limit is
  /// crossed, so an endless line is seen at once; the next call first skips the rest of it. A last line
  /// without a newline is a record; a read error is `error` (errno tells which).
  Got next(std::string& line);

 private:
  std::FILE* f_;
  std::size_t limit_;
  char buf_[1 << 16];
  std::size_t pos_ = 0, len_ = 0;
  bool skipping_ = false;
};

/// Opens `path` for reading lines: a regular file or a pipe (`<(...)`). A missing or unreadable path, a directory,
/// a device or a socket is a UserError from `who` ("batch") with `hint` saying what to give instead.
[[nodiscard]] std::FILE* open_lines(const std::string& path, std::string_view who, std::string_view hint);

}  // namespace infracalc
