#include "documents/input_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "units/printable.hpp"

namespace infracalc {

namespace {

std::string size_text(std::uint64_t bytes) { return fmt::format("{} MiB", bytes >> 20); }

// Closes the descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Expected<std::string> read_input_file(const std::string& path, std::string_view who, std::uint64_t limit) {
  const std::string shown = printable(path);
  const std::string prefix = who.empty() ? std::string() : std::string(who) + ": ";
  // O_NONBLOCK: opening a FIFO with no writer must not hang; it is cleared again before reading.
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0)
    return Error{fmt::format("{}cannot read \"{}\": {}", prefix, shown, std::strerror(errno)), "check the path and its permissions"};
  struct stat st{};
  if (::fstat(f.fd, &st) != 0)
    return Error{fmt::format("{}cannot read \"{}\": {}", prefix, shown, std::strerror(errno)), "check the path and its permissions"};
  if (S_ISDIR(st.st_mode)) return Error{fmt::format("{}\"{}\" is a directory", prefix, shown), "give the path of a file inside it"};
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    return Error{fmt::format("{}\"{}\" is not a regular file (a device or a socket)", prefix, shown),
                 "give the path of a file; a device such as /dev/zero never ends"};
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > limit)
    return Error{fmt::format("{}\"{}\" is {:.1f} MiB, more than the {} infracalc reads", prefix, shown,
                             static_cast<double>(st.st_size) / (1 << 20), size_text(limit)),
                 "no real file of this kind is near that size: check the path"};
  const int flags = ::fcntl(f.fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(f.fd, F_SETFL, flags & ~O_NONBLOCK);
  std::string text;
  if (S_ISREG(st.st_mode)) text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{fmt::format("{}error reading \"{}\": {}", prefix, shown, std::strerror(errno)), "check the file"};
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > limit)
      return Error{fmt::format("{}\"{}\" is longer than the {} infracalc reads", prefix, shown, size_text(limit)),
                   "no real file of this kind is near that size: check the path"};
  }
  return text;
}

}  // namespace infracalc
