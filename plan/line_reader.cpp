#include "plan/line_reader.hpp"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

#include "units/expected.hpp"
#include "units/printable.hpp"

namespace infracalc {

LineReader::Got LineReader::next(std::string& line) {
  line.clear();
  bool started = false;
  for (;;) {
    if (pos_ == len_) {
      len_ = std::fread(buf_, 1, sizeof buf_, f_);
      pos_ = 0;
      if (len_ == 0) {
        if (std::ferror(f_) != 0) return Got::error;
        skipping_ = false;
        return started ? Got::record : Got::end;
      }
    }
    const char* start = buf_ + pos_;
    const auto* nl = static_cast<const char*>(std::memchr(start, '\n', len_ - pos_));
    const std::size_t take = nl != nullptr ? static_cast<std::size_t>(nl - start) : len_ - pos_;
    pos_ += take + (nl != nullptr ? 1 : 0);
    if (skipping_) {
      if (nl != nullptr) skipping_ = false;
      continue;
    }
    started = true;
    if (line.size() + take > limit_) {
      line.clear();
      line.shrink_to_fit();
      skipping_ = nl == nullptr;
      return Got::too_long;
    }
    line.append(start, take);
    if (nl != nullptr) return Got::record;
  }
}

std::FILE* open_lines(const std::string& path, std::string_view who, std::string_view hint) {
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (in == nullptr) throw UserError{{std::string(who) + ": cannot open \"" + printable(path) + "\": " + std::strerror(errno), "check the path"}};
  struct stat st{};
  if (::fstat(::fileno(in), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
    std::fclose(in);
    throw UserError{{std::string(who) + ": \"" + printable(path) + "\" is " + (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file (a device or a socket)"),
                     std::string(hint)}};
  }
  return in;
}

}  // namespace infracalc
