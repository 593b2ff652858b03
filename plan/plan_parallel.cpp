#include "plan/plan_parallel.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <type_traits>
#include <vector>

#include "host/worker_processes.hpp"

namespace infracalc::plan {

namespace {

// Rows travel as records of host/worker_processes; a Quantity goes as its bytes.
static_assert(std::is_trivially_copyable_v<Quantity>);

enum class Tag : char { row = 'r', block_end = 'b', stats = 's', failure = 'f' };

void encode_row(std::string& b, const SweepRow& r) {
  const std::size_t at = begin_record(b, static_cast<char>(Tag::row));
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

SweepRow decode_row(RecordFields& f) {
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

// A worker's whole life: its blocks, in order, each followed by a block-end record (flushed, since the reader
// waits for that block), then its plugin-run counts. Returns its exit code.
int run_worker(int fd, std::size_t me, std::size_t jobs, std::size_t blocks, std::size_t block, std::size_t first, std::size_t end,
               Evaluator& ev, const PlanSpec& spec, const InputSet& base, const SweepPlan& sweep) {
  std::string buf;
  std::size_t whole = 0;  // buf up to here holds whole records
  bool reader_gone = false;
  auto flush = [&] {
    if (!reader_gone && !write_all(fd, buf)) reader_gone = true;
    buf.clear();
    whole = 0;
  };
  auto failure = [&](std::string_view message, std::string_view hint) {
    // The rows before the failing point go first, as one process would have printed them before the error.
    buf.resize(whole);
    const std::size_t at = begin_record(buf, static_cast<char>(Tag::failure));
    put_text(buf, message);
    put_text(buf, hint);
    end_record(buf, at);
  };
  int code = 0;
  try {
    std::size_t runs = 0, hits = 0;
    for (std::size_t b = me; b < blocks && !reader_gone; b += jobs) {
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
      end_record(buf, begin_record(buf, static_cast<char>(Tag::block_end)));
      flush();
    }
    const std::size_t at = begin_record(buf, static_cast<char>(Tag::stats));
    put_size(buf, runs);
    put_size(buf, hits);
    end_record(buf, at);
  } catch (const UserError& e) {
    failure(e.error.message, e.error.hint);
    code = 2;
  } catch (const std::exception& e) {
    failure(std::string("plan sweep: internal error in a worker: ") + e.what(), "--jobs 1 runs the sweep in this process");
    code = 3;
  }
  flush();
  return reader_gone ? 1 : code;
}

}  // namespace

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
  WorkerProcesses workers(n_jobs, "plan sweep", "--jobs 1 runs the sweep in this process", [&](std::size_t k, int fd) {
    return run_worker(fd, k, n_jobs, blocks, block, first, end, ev, spec, base, sweep);
  });
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t k = b % n_jobs;
    for (;;) {
      RecordFields f(workers.next(k));
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
    RecordFields f(workers.next(k));
    if (f.byte() != static_cast<char>(Tag::stats)) throw std::logic_error("sweep worker sent rows after its last block");
    runs += f.size();
    hits += f.size();
    if (const int status = workers.reap(k); !WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw UserError{{fmt::format("plan sweep: worker {} of {} {}", k + 1, n_jobs, how_it_ended(status)), "--jobs 1 runs the sweep in this process"}};
  }
  stats.points = span;
  stats.runs = runs;
  stats.hits = hits;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace infracalc::plan
