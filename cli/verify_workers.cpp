#include "cli/verify_workers.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <optional>
#include <sys/mman.h>
#include <sys/wait.h>
#include <type_traits>

#include "host/worker_processes.hpp"

namespace infracalc::cli {

namespace {

static_assert(std::is_trivially_copyable_v<Quantity>);

enum class Tag : char { started = 's', finished = 'f' };

void encode(std::string& b, std::size_t i, const KernelOutcome& o) {
  const std::size_t at = begin_record(b, static_cast<char>(Tag::finished));
  put_size(b, i);
  put_size(b, o.checks.size());
  for (const auto& c : o.checks) {
    put_text(b, c.figure);
    b.append(reinterpret_cast<const char*>(&c.formula), sizeof(Quantity));
    b.append(reinterpret_cast<const char*>(&c.kernel), sizeof(Quantity));
    b.append(reinterpret_cast<const char*>(&c.rel_tol), sizeof(double));
    b.append(reinterpret_cast<const char*>(&c.abs_tol), sizeof(double));
    b.push_back(c.timing ? 1 : 0);
  }
  put_text(b, o.error);
  end_record(b, at);
}

KernelOutcome decode(RecordFields& f) {
  KernelOutcome o;
  o.checks.resize(f.size());
  for (auto& c : o.checks) {
    c.figure = f.text();
    std::memcpy(&c.formula, f.take(sizeof(Quantity)).data(), sizeof(Quantity));
    std::memcpy(&c.kernel, f.take(sizeof(Quantity)).data(), sizeof(Quantity));
    std::memcpy(&c.rel_tol, f.take(sizeof(double)).data(), sizeof(double));
    std::memcpy(&c.abs_tol, f.take(sizeof(double)).data(), sizeof(double));
    c.timing = f.byte() != 0;
  }
  o.error = f.text();
  return o;
}

// The index of the next kernel to run, shared by the workers (an anonymous shared mapping survives fork), so a
// worker that drew short kernels takes more of them.
class SharedCounter {
 public:
  SharedCounter() {
    void* p = ::mmap(nullptr, sizeof(std::atomic<std::size_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) next_ = new (p) std::atomic<std::size_t>(0);
  }
  SharedCounter(const SharedCounter&) = delete;
  SharedCounter& operator=(const SharedCounter&) = delete;
  ~SharedCounter() {
    if (next_ != nullptr) ::munmap(next_, sizeof(std::atomic<std::size_t>));
  }
  [[nodiscard]] bool ok() const { return next_ != nullptr; }
  std::size_t take() { return next_->fetch_add(1); }

 private:
  std::atomic<std::size_t>* next_ = nullptr;
};
static_assert(std::atomic<std::size_t>::is_always_lock_free, "a lock-free atomic is address-free, so it works across processes");

}  // namespace

std::vector<KernelOutcome> run_in_workers(std::size_t count, unsigned workers, const std::function<KernelOutcome(std::size_t)>& run,
                                          const std::function<void(std::size_t)>& started, const std::function<void(std::size_t)>& finished) {
  std::vector<KernelOutcome> out(count);
  std::vector<bool> done(count, false);
  const auto in_process = [&](std::size_t i) {
    started(i);
    out[i] = run(i);
    done[i] = true;
    finished(i);
  };
  SharedCounter counter;
  const std::size_t n = std::min<std::size_t>(workers, count);
  if (n <= 1 || !counter.ok()) {
    for (std::size_t i = 0; i < count; ++i) in_process(i);
    return out;
  }
  {
    WorkerProcesses pool(n, "verify", "name one plugin at a time: `infracalc verify PLUGIN`", [&](std::size_t /*k*/, int fd) {
      std::string buf;
      for (std::size_t i = counter.take(); i < count; i = counter.take()) {
        buf.clear();
        const std::size_t at = begin_record(buf, static_cast<char>(Tag::started));
        put_size(buf, i);
        end_record(buf, at);
        if (!write_all(fd, buf)) return 1;
        buf.clear();
        encode(buf, i, run(i));
        if (!write_all(fd, buf)) return 1;
      }
      return 0;
    });
    // What each worker is running: a worker that dies leaves that kernel unfinished.
    std::vector<std::optional<std::size_t>> running(n);
    while (const auto k = pool.ready()) {
      const auto rec = pool.next_or_end(*k);
      if (!rec) {
        const int status = pool.reap(*k);
        if (const auto i = running[*k]) {
          out[*i].error = "its worker process " + how_it_ended(status) + " while it ran";
          done[*i] = true;
          finished(*i);
          running[*k].reset();
        }
        continue;
      }
      RecordFields f(*rec);
      const char tag = f.byte();
      const std::size_t i = f.size();
      if (i >= count) throw std::logic_error("verify worker reported an unknown kernel");
      if (tag == static_cast<char>(Tag::started)) {
        running[*k] = i;
        started(i);
      } else {
        out[i] = decode(f);
        done[i] = true;
        running[*k].reset();
        finished(i);
      }
    }
  }
  // Kernels no worker reached (every worker died early) run here.
  for (std::size_t i = 0; i < count; ++i)
    if (!done[i]) in_process(i);
  return out;
}

}  // namespace infracalc::cli
