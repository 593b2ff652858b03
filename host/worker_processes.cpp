#include "host/worker_processes.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "units/expected.hpp"

namespace infracalc {

void put_size(std::string& b, std::size_t v) { b.append(reinterpret_cast<const char*>(&v), sizeof v); }

void put_text(std::string& b, std::string_view s) {
  put_size(b, s.size());
  b.append(s);
}

std::size_t begin_record(std::string& b, char tag) {
  const std::size_t at = b.size();
  put_size(b, 0);
  b.push_back(tag);
  return at;
}

void end_record(std::string& b, std::size_t at) {
  const std::size_t len = b.size() - at - sizeof(std::size_t);
  std::memcpy(b.data() + at, &len, sizeof len);
}

bool write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    const ssize_t n = ::write(fd, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    s.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return fmt::format("killed by signal {}{}{}", sig, name != nullptr ? " (SIG" : "", name != nullptr ? std::string(name) + ")" : "");
  }
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return "stopped";
}

std::size_t RecordFields::size() {
  std::size_t v = 0;
  std::memcpy(&v, take(sizeof v).data(), sizeof v);
  return v;
}

std::string RecordFields::text() { return std::string(take(size())); }

std::string_view RecordFields::take(std::size_t n) {
  if (n > rec_.size() - pos_) throw std::logic_error("worker record cut short");
  const std::string_view s = rec_.substr(pos_, n);
  pos_ += n;
  return s;
}

WorkerProcesses::WorkerProcesses(std::size_t count, std::string what, std::string hint, const std::function<int(std::size_t, int)>& body)
    : what_(std::move(what)), hint_(std::move(hint)) {
  // The workers inherit the stdio buffers: what is pending must be written once, by this process.
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  for (std::size_t k = 0; k < count; ++k) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw UserError{{fmt::format("{}: cannot open a pipe: {}", what_, std::strerror(errno)), hint_}};
    // A worker may run ahead of the reader by what the pipe holds; a larger pipe (best effort) lets it.
    (void)::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      throw UserError{{fmt::format("{}: cannot start a worker: {}", what_, std::strerror(errno)), hint_}};
    }
    if (pid == 0) {
      // A worker must not outlive the process that started it.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      ::close(fds[0]);
      for (const auto& w : list_) ::close(w.fd);
      int code = 3;
      try {
        code = body(k, fds[1]);
      } catch (...) {
      }
      std::fflush(stderr);
      ::_exit(code);
    }
    ::close(fds[1]);
    list_.push_back({pid, fds[0], {}, 0, false});
  }
}

WorkerProcesses::~WorkerProcesses() {
  for (std::size_t k = 0; k < list_.size(); ++k)
    if (list_[k].pid > 0) {
      ::kill(list_[k].pid, SIGKILL);
      (void)reap(k);
    }
  for (auto& w : list_)
    if (w.fd >= 0) ::close(w.fd);
}

bool WorkerProcesses::has_record(const Worker& w) {
  const std::size_t have = w.buf.size() - w.pos;
  if (have < sizeof(std::size_t)) return false;
  std::size_t len = 0;
  std::memcpy(&len, w.buf.data() + w.pos, sizeof len);
  return have - sizeof len >= len;
}

bool WorkerProcesses::read_some(Worker& w) {
  if (w.pos > 0 && (w.pos == w.buf.size() || w.pos > (1 << 20))) {
    w.buf.erase(0, w.pos);
    w.pos = 0;
  }
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(w.fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      w.eof = true;
      return false;
    }
    w.buf.append(chunk, static_cast<std::size_t>(n));
    return true;
  }
}

std::optional<std::string_view> WorkerProcesses::next_or_end(std::size_t k) {
  Worker& w = list_[k];
  while (!has_record(w)) {
    if (w.eof || !read_some(w)) {
      if (w.pos != w.buf.size()) throw UserError{{ended_early(k, reap(k)), hint_}};
      return std::nullopt;
    }
  }
  std::size_t len = 0;
  std::memcpy(&len, w.buf.data() + w.pos, sizeof len);
  const std::string_view rec(w.buf.data() + w.pos + sizeof len, len);
  w.pos += sizeof len + len;
  return rec;
}

std::string_view WorkerProcesses::next(std::size_t k) {
  if (auto rec = next_or_end(k)) return *rec;
  throw UserError{{ended_early(k, reap(k)), hint_}};
}

std::optional<std::size_t> WorkerProcesses::ready() {
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<std::size_t> who;
    for (std::size_t k = 0; k < list_.size(); ++k) {
      const Worker& w = list_[k];
      if (has_record(w)) return k;
      // Ended with nothing left to read, or with a partial record next_or_end reports.
      if (w.eof) {
        if (w.pos != w.buf.size()) return k;
        continue;
      }
      fds.push_back({w.fd, POLLIN, 0});
      who.push_back(k);
    }
    if (fds.empty()) return std::nullopt;
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw UserError{{fmt::format("{}: cannot wait for the workers: {}", what_, std::strerror(errno)), hint_}};
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      Worker& w = list_[who[i]];
      if (!read_some(w)) return who[i];  // its end: the caller reaps it
      if (has_record(w)) return who[i];
    }
  }
}

int WorkerProcesses::reap(std::size_t k) {
  Worker& w = list_[k];
  int status = 0;
  if (w.pid <= 0) return status;  // reaped already: waitpid(-1) would wait for any child
  while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
  }
  w.pid = -1;
  return status;
}

std::string WorkerProcesses::ended_early(std::size_t k, int status) const {
  return fmt::format("{}: worker {} of {} {} before its results were complete", what_, k + 1, list_.size(), how_it_ended(status));
}

unsigned available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 1U;
}

}  // namespace infracalc
