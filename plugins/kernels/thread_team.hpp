// A fixed team of worker threads for reference kernels: every call runs one function on all of them
// (the caller is thread 0) and returns when all have finished. Cheap enough to call per matrix product.
#pragma once

#include <condition_variable>
#include <exception>
#include <cstddef>
#include <functional>
#include <mutex>
#include <pthread.h>
#include <time.h>
#include <thread>
#include <utility>
#include <vector>

namespace infracalc::kernels {

/// The number of hardware threads (at least 1).
[[nodiscard]] int hardware_threads();

/// A team of threads that run the same function together.
class ThreadTeam {
 public:
  /// Starts `threads - 1` workers (the caller is the last member); 0 means one per hardware thread.
  explicit ThreadTeam(int threads = 0);
  /// Stops and joins the workers.
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  /// Members, the caller included.
  [[nodiscard]] int size() const { return size_; }
  /// Runs fn(member, size) on every member and waits for all; an exception in a member is rethrown here.
  void run(const std::function<void(int, int)>& fn);
  /// CPU time each member has used so far, in seconds (member 0 is the calling thread). Unlike wall time,
  /// it does not grow while another process holds the core.
  [[nodiscard]] std::vector<double> cpu_seconds() const;

 private:
  void work(int member);

  int size_ = 1;
  std::vector<std::thread> workers_;
  std::vector<clockid_t> clocks_;
  std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  const std::function<void(int, int)>* job_ = nullptr;
  std::size_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

/// The share [begin, end) of `n` items that `member` of `members` handles, in blocks of `align` items.
[[nodiscard]] std::pair<std::size_t, std::size_t> share(std::size_t n, int member, int members, std::size_t align = 1);

/// Runs `fn(i)` for every item i in [0, n), items dealt in turn to the team's members, and returns the
/// results in item order: independent pieces of a reference kernel spread over the cores.
template <class Fn>
[[nodiscard]] auto map_items(ThreadTeam& team, std::size_t n, Fn fn) -> std::vector<decltype(fn(std::size_t{}))> {
  std::vector<decltype(fn(std::size_t{}))> out(n);
  team.run([&](int member, int members) {
    for (std::size_t i = static_cast<std::size_t>(member); i < n; i += static_cast<std::size_t>(members)) out[i] = fn(i);
  });
  return out;
}

}  // namespace infracalc::kernels
