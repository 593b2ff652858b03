#include <catch2/catch.hpp>
#include <csignal>
#include <set>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/verify_workers.hpp"
#include "host/worker_processes.hpp"

using namespace infracalc;

namespace {

// Worker k writes k + 1 records "k:j", each its own write, so the reader sees them interleaved across workers.
int numbered_records(std::size_t k, int fd) {
  for (std::size_t j = 0; j <= k; ++j) {
    std::string b;
    const std::size_t at = begin_record(b, 'n');
    put_text(b, std::to_string(k) + ":" + std::to_string(j));
    put_size(b, k * 100 + j);
    end_record(b, at);
    if (!write_all(fd, b)) return 1;
  }
  return 0;
}

}  // namespace

TEST_CASE("worker processes: every record of every worker arrives whole, each worker's in its order") {
  WorkerProcesses pool(3, "test", "none", numbered_records);
  REQUIRE(pool.size() == 3);
  std::set<std::string> seen;
  std::vector<std::size_t> next_of(3, 0);
  std::size_t ends = 0;
  while (const auto k = pool.ready()) {
    const auto rec = pool.next_or_end(*k);
    if (!rec) {
      const int status = pool.reap(*k);
      CHECK(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 0);
      ++ends;
      continue;
    }
    RecordFields f(*rec);
    CHECK(f.byte() == 'n');
    const std::string text = f.text();
    CHECK(text == std::to_string(*k) + ":" + std::to_string(next_of[*k]));
    CHECK(f.size() == *k * 100 + next_of[*k]);
    ++next_of[*k];
    seen.insert(text);
  }
  CHECK(ends == 3);
  CHECK(seen.size() == 1 + 2 + 3);
  CHECK(next_of == std::vector<std::size_t>{1, 2, 3});
}

TEST_CASE("worker processes: a worker that stops inside a record is an error naming how it ended") {
  WorkerProcesses pool(1, "test work", "run it in one process", [](std::size_t, int fd) {
    std::string b;
    const std::size_t at = begin_record(b, 'x');
    put_text(b, "a record whose end never comes");
    end_record(b, at);
    b.resize(b.size() - 4);
    (void)write_all(fd, b);
    return 3;
  });
  try {
    (void)pool.next(0);
    FAIL("a record cut short was read");
  } catch (const UserError& e) {
    CHECK(e.error.message.find("test work: worker 1 of 1 exited with status 3") != std::string::npos);
    CHECK(e.error.hint == "run it in one process");
  }
}

TEST_CASE("worker processes: a killed worker is reported by its signal") {
  WorkerProcesses pool(1, "test", "none", [](std::size_t, int) {
    ::raise(SIGKILL);
    return 0;
  });
  CHECK_FALSE(pool.next_or_end(0).has_value());
  const std::string how = how_it_ended(pool.reap(0));
  CHECK(how.find("killed by signal 9") != std::string::npos);
  CHECK(how.find("SIGKILL") != std::string::npos);
}

TEST_CASE("verify workers: outcomes come back in kernel order; a kernel that kills its worker is reported, the rest still run") {
  const auto run = [](std::size_t i) {
    if (i == 3) ::raise(SIGKILL);
    cli::KernelOutcome o;
    KernelCheck c;
    c.figure = "kernel " + std::to_string(i);
    c.formula = Quantity::number(static_cast<double>(i));
    c.kernel = Quantity::number(static_cast<double>(i) + 0.5);
    c.rel_tol = 0.25;
    c.timing = i % 2 == 1;
    o.checks.push_back(c);
    if (i == 5) o.error = "stopped by design";
    return o;
  };
  std::size_t started = 0, finished = 0;
  const auto out = cli::run_in_workers(8, 2, run, [&](std::size_t) { ++started; }, [&](std::size_t) { ++finished; });
  REQUIRE(out.size() == 8);
  CHECK(finished == 8);
  CHECK(started == 8);
  for (std::size_t i = 0; i < 8; ++i) {
    INFO("kernel " << i);
    if (i == 3) {
      CHECK(out[i].checks.empty());
      CHECK(out[i].error.find("killed by signal 9") != std::string::npos);
      continue;
    }
    REQUIRE(out[i].checks.size() == 1);
    const KernelCheck& c = out[i].checks[0];
    CHECK(c.figure == "kernel " + std::to_string(i));
    CHECK(c.formula.value == static_cast<double>(i));
    CHECK(c.kernel.value == static_cast<double>(i) + 0.5);
    CHECK(c.rel_tol == 0.25);
    CHECK(c.timing == (i % 2 == 1));
    CHECK(out[i].error == (i == 5 ? "stopped by design" : ""));
  }
}
