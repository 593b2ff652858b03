#include "plugins/kernels/thread_team.hpp"

#include <algorithm>

namespace infracalc::kernels {

int hardware_threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

ThreadTeam::ThreadTeam(int threads) : size_(threads > 0 ? threads : hardware_threads()) {
  for (int m = 1; m < size_; ++m) workers_.emplace_back([this, m] { work(m); });
  for (auto& t : workers_) {
    clockid_t c{};
    if (pthread_getcpuclockid(t.native_handle(), &c) != 0) c = CLOCK_MONOTONIC;
    clocks_.push_back(c);
  }
}

std::vector<double> ThreadTeam::cpu_seconds() const {
  auto read = [](clockid_t c) {
    timespec ts{};
    clock_gettime(c, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  std::vector<double> out;
  out.push_back(read(CLOCK_THREAD_CPUTIME_ID));
  for (clockid_t c : clocks_) out.push_back(read(c));
  return out;
}

ThreadTeam::~ThreadTeam() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadTeam::work(int member) {
  std::size_t seen = 0;
  for (;;) {
    const std::function<void(int, int)>* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
    }
    try {
      (*job)(member, size_);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

void ThreadTeam::run(const std::function<void(int, int)>& fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &fn;
    pending_ = size_ - 1;
    error_ = nullptr;
    ++generation_;
  }
  start_cv_.notify_all();
  std::exception_ptr mine;
  try {
    fn(0, size_);
  } catch (...) {
    mine = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
  if (mine) std::rethrow_exception(mine);
  if (error_) std::rethrow_exception(error_);
}

std::pair<std::size_t, std::size_t> share(std::size_t n, int member, int members, std::size_t align) {
  const std::size_t blocks = (n + align - 1) / align;
  const auto m = static_cast<std::size_t>(member);
  const auto ms = static_cast<std::size_t>(std::max(1, members));
  const std::size_t b0 = blocks * m / ms;
  const std::size_t b1 = blocks * (m + 1) / ms;
  return {std::min(n, b0 * align), std::min(n, b1 * align)};
}

}  // namespace infracalc::kernels
