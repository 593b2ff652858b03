#include "plugins/network/allreduce.hpp"

#include <barrier>
#include <stdexcept>
#include <thread>

namespace infracalc::net {

double ring_bytes_per_worker(double bytes, std::int64_t workers) {
  const auto n = static_cast<double>(workers);
  return 2.0 * (n - 1.0) / n * bytes;
}

RingRun ring_allreduce(std::vector<std::vector<double>> buffers) {
  const std::size_t n = buffers.size();
  if (n == 0) throw std::invalid_argument("ring all-reduce needs at least one worker");
  const std::size_t len = buffers[0].size();
  for (const auto& b : buffers)
    if (b.size() != len) throw std::invalid_argument("ring all-reduce buffers differ in length");
  RingRun run;
  run.bytes_sent.assign(n, 0);
  run.steps = n > 1 ? static_cast<int>(2 * (n - 1)) : 0;
  if (n == 1) {
    run.buffers = std::move(buffers);
    return run;
  }
  // Chunk c covers [start(c), start(c + 1)); chunks differ in size by at most one element.
  auto start = [&](std::size_t c) { return c * len / n; };
  // mailbox[w] holds what worker w - 1 sent it this step.
  std::vector<std::vector<double>> mailbox(n);
  std::vector<std::size_t> mailbox_chunk(n, 0);
  // One step of worker w in two halves, which the barrier keeps apart: every worker sends before any receives.
  auto send = [&](std::size_t w, std::size_t step) {
    const std::size_t next = (w + 1) % n;
    // Reduce-scatter sends chunk (w - s) mod n; all-gather then forwards the reduced chunk (w + 1 - s) mod n.
    const bool gather = step >= n - 1;
    const std::size_t s = gather ? step - (n - 1) : step;
    const std::size_t chunk = gather ? (w + 1 + n - s % n) % n : (w + n - s % n) % n;
    const auto& mine = buffers[w];
    mailbox[next].assign(mine.begin() + static_cast<std::ptrdiff_t>(start(chunk)),
                         mine.begin() + static_cast<std::ptrdiff_t>(start(chunk + 1)));
    mailbox_chunk[next] = chunk;
    run.bytes_sent[w] += static_cast<std::int64_t>(mailbox[next].size() * sizeof(double));
  };
  auto receive = [&](std::size_t w, std::size_t step) {
    const bool gather = step >= n - 1;
    auto& buf = buffers[w];
    const std::size_t c = mailbox_chunk[w];
    for (std::size_t i = 0; i < mailbox[w].size(); ++i) {
      if (gather) buf[start(c) + i] = mailbox[w][i];
      else buf[start(c) + i] += mailbox[w][i];
    }
  };
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  // The WebAssembly engine has no threads: the workers take their halves in turn, in the order the barriers
  // impose on the threads, so every buffer holds the same sums in the same order of additions.
  for (std::size_t step = 0; step < 2 * (n - 1); ++step) {
    for (std::size_t w = 0; w < n; ++w) send(w, step);
    for (std::size_t w = 0; w < n; ++w) receive(w, step);
  }
#else
  std::barrier sync(static_cast<std::ptrdiff_t>(n));
  auto worker = [&](std::size_t w) {
    for (std::size_t step = 0; step < 2 * (n - 1); ++step) {
      send(w, step);
      sync.arrive_and_wait();
      receive(w, step);
      sync.arrive_and_wait();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < n; ++w) threads.emplace_back(worker, w);
  for (auto& t : threads) t.join();
#endif
  run.buffers = std::move(buffers);
  return run;
}

}  // namespace infracalc::net
