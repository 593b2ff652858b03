#include "plan/plan_parallel.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <string>
#include <string_view>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace infracalc::plan {

namespace {

// Processes, not threads: a worker owns a copy of everything the evaluation touches (the catalog's lazily
// parsed entries, the plugins' memos), so nothing needs a lock and nothing one point does can reach another.
// Rows travel as length-prefixed binary records; both ends are this binary, so a Quantity goes as its bytes.
static_assert(std::is_trivially_copyable_v<Quantity>);

enum class Tag : char { row = 'r', block_end = 'b', stats = 's', failure = 'f' };

void put_size(std::string& b, std::size_t v) { b.append(reinterpret_cast<const char*>(&v), sizeof v); }
void put_text(std::string& b, std::string_view s) {
  put_size(b, s.size());
  b.append(s);
}

// Starts a record; end_record writes its length in front.
std::size_t begin_record(std::string& b, Tag t) {
  const std::size_t at = b.size();
  put_size(b, 0);
  b.push_back(static_cast<char>(t));
  return at;
}
void end_record(std::string& b, std::size_t at) {
  const std::size_t len = b.size() - at - sizeof(std::size_t);
  std::memcpy(b.data() + at, &len, sizeof len);
}

void encode_row(std::string& b, const SweepRow& r) {
  const std::size_t at = begin_record(b, Tag::row);
  put_size(b, r.point);
  put_size(b, r.labels.size());
  for (const auto& l : r.labels) put_text(b, l);
  put_size(b, r.values.size());
  for (const auto& v : r.values) {
    if (!v) {
      b.push_back('n');
    } else if (const auto* q = std::get_if<Quantity>(&*v)) {
      b.push_back('q');
      b.append(reinterpret_cast<const char*>(q), sizeof(Quantity));
    } else {
      b.push_back('t');
      put_text(b, std::get<std::string>(*v));
    }
  }
  put_text(b, r.failed);
  put_text(b, r.error);
  end_record(b, at);
}

// Reads one record's fields in order.
class Fields {
 public:
  explicit Fields(std::string_view rec) : rec_(rec) {}
  std::size_t size() {
    std::size_t v = 0;
    std::memcpy(&v, take(sizeof v).data(), sizeof v);
    return v;
  }
  std::string text() { return std::string(take(size())); }
  char byte() { return take(1)[0]; }
  std::string_view take(std::size_t n) {
    if (n > rec_.size() - pos_) throw std::logic_error("sweep worker record cut short");
    const std::string_view s = rec_.substr(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  std::string_view rec_;
  std::size_t pos_ = 0;
};

SweepRow decode_row(Fields& f) {
  SweepRow r;
  r.point = f.size();
  r.labels.resize(f.size());
  for (auto& l : r.labels) l = f.text();
  r.values.resize(f.size());
  for (auto& v : r.values) {
    const char k = f.byte();
    if (k == 'q') {
      Quantity q;
      std::memcpy(&q, f.take(sizeof q).data(), sizeof q);
      v = q;
    } else if (k == 't') {
      v = f.text();
    }
  }
  r.failed = f.text();
  r.error = f.text();
  return r;
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
  if (WIFEXITED(status)) return fmt::format("exited with status {} without its rows", WEXITSTATUS(status));
  return "stopped";
}

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string buf;
  std::size_t pos = 0;
};

// The workers of one sweep. Whatever ends the sweep early (a worker's error, a closed stdout, an exception in
// the sink) ends them too: the destructor kills and reaps every worker still running.
class Workers {
 public:
  Workers() = default;
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;
  ~Workers() {
    for (auto& w : list)
      if (w.pid > 0) {
        ::kill(w.pid, SIGKILL);
        reap(w);
      }
    for (auto& w : list)
      if (w.fd >= 0) ::close(w.fd);
  }

  // The next record from worker `k`; a worker that closes its pipe before the record ends a UserError.
  std::string_view next(std::size_t k) {
    Worker& w = list[k];
    auto fill = [&](std::size_t need) {
      while (w.buf.size() - w.pos < need) {
        if (w.pos > 0 && w.pos == w.buf.size()) {
          w.buf.clear();
          w.pos = 0;
        }
        char chunk[1 << 16];
        const ssize_t n = ::read(w.fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          const int status = reap(w);
          throw UserError{{fmt::format("plan sweep: worker {} of {} {}", k + 1, list.size(), how_it_ended(status)),
                           "--jobs 1 runs the sweep in this process"}};
        }
        w.buf.append(chunk, static_cast<std::size_t>(n));
      }
    };
    if (w.pos > (1 << 20)) {
      w.buf.erase(0, w.pos);
      w.pos = 0;
    }
    fill(sizeof(std::size_t));
    std::size_t len = 0;
    std::memcpy(&len, w.buf.data() + w.pos, sizeof len);
    fill(sizeof len + len);
    const std::string_view rec(w.buf.data() + w.pos + sizeof len, len);
    w.pos += sizeof len + len;
    return rec;
  }

  int reap(Worker& w) {
    int status = 0;
    if (w.pid <= 0) return status;  // reaped already: waitpid(-1) would wait for any child
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    w.pid = -1;
    return status;
  }

  std::vector<Worker> list;
};

// A worker's whole life: its blocks, in order, each followed by a block-end record (flushed, since the reader
// waits for that block), then its plugin-run counts. It never returns: _exit skips the parent's atexit work
// and stdio buffers, which belong to the parent.
[[noreturn]] void run_worker(int fd, std::size_t me, std::size_t jobs, std::size_t blocks, std::size_t block, std::size_t first, std::size_t end,
                       Evaluator& ev, const PlanSpec& spec, const InputSet& base, const SweepPlan& sweep) {
  std::string buf;
  std::size_t whole = 0;  // buf up to here holds whole records
  auto flush = [&] {
    if (!write_all(fd, buf)) ::_exit(1);
    buf.clear();
    whole = 0;
  };
  int code = 0;
  try {
    std::size_t runs = 0, hits = 0;
    for (std::size_t b = me; b < blocks; b += jobs) {
      const std::size_t lo = first + b * block;
      const std::size_t hi = std::min(end, lo + block);
      SweepStats s;
      run_sweep_range(ev, spec, base, sweep, lo, hi, s, [&](SweepRow&& r) {
        encode_row(buf, r);
        whole = buf.size();
        if (buf.size() >= (1 << 16)) flush();
      });
      runs += s.runs;
      hits += s.hits;
      end_record(buf, begin_record(buf, Tag::block_end));
      flush();
    }
    const std::size_t at = begin_record(buf, Tag::stats);
    put_size(buf, runs);
    put_size(buf, hits);
    end_record(buf, at);
  } catch (const UserError& e) {
    // The rows before the failing point go first, as one process would have printed them before the error.
    buf.resize(whole);
    const std::size_t at = begin_record(buf, Tag::failure);
    put_text(buf, e.error.message);
    put_text(buf, e.error.hint);
    end_record(buf, at);
    code = 2;
  } catch (const std::exception& e) {
    buf.resize(whole);
    const std::size_t at = begin_record(buf, Tag::failure);
    put_text(buf, std::string("plan sweep: internal error in a worker: ") + e.what());
    put_text(buf, "--jobs 1 runs the sweep in this process");
    end_record(buf, at);
    code = 3;
  }
  flush();
  ::_exit(code);
}

}  // namespace

unsigned available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 1U;
}

void run_sweep_parallel(Evaluator& ev, const PlanSpec& spec, const InputSet& base, const SweepPlan& sweep, std::size_t first,
                        std::size_t end, unsigned jobs, SweepStats& stats, const std::function<void(SweepRow&&)>& sink) {
  const std::size_t span = end > first ? end - first : 0;
  // About eight blocks per worker, so that a worker whose points cost more (a grid's far end re-runs the serving
  // simulation more often) does not hold the others up for long; at most 4,096 points, so that restarting the
  // incremental evaluation at each block's first point stays noise.
  const std::size_t block = std::clamp<std::size_t>(span / (std::max(jobs, 1U) * std::size_t{8}), 1, 4096);
  const std::size_t blocks = (span + block - 1) / block;
  const std::size_t n_jobs = std::min<std::size_t>(jobs, blocks);
  if (n_jobs <= 1) {
    run_sweep_range(ev, spec, base, sweep, first, end, stats, sink);
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::fflush(nullptr);
  Workers workers;
  const pid_t parent = ::getpid();
  for (std::size_t k = 0; k < n_jobs; ++k) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw UserError{{std::string("plan sweep: cannot open a pipe: ") + std::strerror(errno), "--jobs 1"}};
    // A worker runs about a block ahead of the reader; a larger pipe (best effort) lets it.
    (void)::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      throw UserError{{std::string("plan sweep: cannot start a worker: ") + std::strerror(errno), "--jobs 1 runs the sweep in this process"}};
    }
    if (pid == 0) {
      // A worker must not outlive the sweep that started it.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      ::close(fds[0]);
      for (const auto& w : workers.list) ::close(w.fd);
      run_worker(fds[1], k, n_jobs, blocks, block, first, end, ev, spec, base, sweep);
    }
    ::close(fds[1]);
    workers.list.push_back({pid, fds[0], {}, 0});
  }
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t k = b % n_jobs;
    for (;;) {
      const std::string_view rec = workers.next(k);
      Fields f(rec);
      const char tag = f.byte();
      if (tag == static_cast<char>(Tag::row)) {
        sink(decode_row(f));
      } else if (tag == static_cast<char>(Tag::block_end)) {
        break;
      } else if (tag == static_cast<char>(Tag::failure)) {
        std::string message = f.text();
        std::string hint = f.text();
        throw UserError{{std::move(message), std::move(hint)}};
      } else {
        throw std::logic_error("sweep worker sent an unknown record");
      }
    }
  }
  std::size_t runs = 0, hits = 0;
  for (std::size_t k = 0; k < n_jobs; ++k) {
    Fields f(workers.next(k));
    if (f.byte() != static_cast<char>(Tag::stats)) throw std::logic_error("sweep worker sent rows after its last block");
    runs += f.size();
    hits += f.size();
    if (const int status = workers.reap(workers.list[k]); !WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw UserError{{fmt::format("plan sweep: worker {} of {} {}", k + 1, n_jobs, how_it_ended(status)), "--jobs 1 runs the sweep in this process"}};
  }
  stats.points = span;
  stats.runs = runs;
  stats.hits = hits;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace infracalc::plan
