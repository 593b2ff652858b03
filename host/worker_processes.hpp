// Work spread over forked worker processes that send their results back as length-prefixed binary records
// through a pipe each: plan sweeps (plan/plan_parallel) and verify's kernels (cli/verify_workers). Processes, not
// threads: a worker owns a copy of everything its work touches (the catalog's lazily parsed entries, the
// descriptors' name tables, the plugins' memos), so nothing needs a lock and nothing one worker does reaches
// another. Both ends are this binary, so a trivially copyable value travels as its bytes.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace infracalc {

/// Appends `v` in this machine's byte order.
void put_size(std::string& b, std::size_t v);
/// Appends `s` with its length in front.
void put_text(std::string& b, std::string_view s);
/// Starts a record tagged `tag` at the end of `b` and returns where; end_record writes its length in front.
std::size_t begin_record(std::string& b, char tag);
/// Ends the record begun at `at`.
void end_record(std::string& b, std::size_t at);
/// Writes all of `s` to `fd`; false when the reader has gone.
bool write_all(int fd, std::string_view s);
/// How a worker ended, from its wait status: "killed by signal 11 (SIGSEGV)", "exited with status 3".
[[nodiscard]] std::string how_it_ended(int status);

/// Reads one record's fields in the order they were put; a record cut short is a logic error (both ends are this
/// binary).
class RecordFields {
 public:
  /// The fields of `rec` (a record without its length).
  explicit RecordFields(std::string_view rec) : rec_(rec) {}
  /// A put_size value.
  std::size_t size();
  /// A put_text value.
  std::string text();
  /// One byte (a record's tag is its first).
  char byte() { return take(1)[0]; }
  /// The next `n` bytes.
  std::string_view take(std::size_t n);

 private:
  std::string_view rec_;
  std::size_t pos_ = 0;
};

/// Worker processes forked from this one, each writing records to a pipe this process reads. Whatever ends the
/// work early (an error, an exception in the reader) ends them too: the destructor kills and reaps every worker
/// still running.
class WorkerProcesses {
 public:
  /// Forks `count` workers; worker k runs `body(k, fd)`, writing its records to `fd`, and exits with what it
  /// returns, without running this process's exit handlers or flushing its stdio buffers. `what` names the work in
  /// errors ("plan sweep"); `hint` says how to run it without workers. A worker dies with this process.
  WorkerProcesses(std::size_t count, std::string what, std::string hint, const std::function<int(std::size_t, int)>& body);
  WorkerProcesses(const WorkerProcesses&) = delete;
  WorkerProcesses& operator=(const WorkerProcesses&) = delete;
  /// Kills and reaps the workers still running.
  ~WorkerProcesses();

  /// How many workers there are.
  [[nodiscard]] std::size_t size() const { return list_.size(); }
  /// The next record from worker `k`, waiting for it; a worker that closes its pipe first is a UserError.
  std::string_view next(std::size_t k);
  /// The next record from worker `k`, or nullopt when it closed its pipe at a record boundary (reap it then).
  std::optional<std::string_view> next_or_end(std::size_t k);
  /// A worker whose next record, or whose end, can be read without waiting; waits until there is one. nullopt
  /// when every worker has closed its pipe and every record has been read.
  std::optional<std::size_t> ready();
  /// Waits for worker `k` to exit and returns its wait status (0 when it was reaped already).
  int reap(std::size_t k);
  /// The error for worker `k` ending as `status` where a record was due.
  [[nodiscard]] std::string ended_early(std::size_t k, int status) const;

 private:
  struct Worker {
    pid_t pid = -1;
    int fd = -1;
    std::string buf;
    std::size_t pos = 0;
    bool eof = false;
  };
  // True when worker w's buffer holds a whole record.
  [[nodiscard]] static bool has_record(const Worker& w);
  // Reads what the pipe holds now (at least one byte or its end); false at its end.
  static bool read_some(Worker& w);
  std::string what_, hint_;
  std::vector<Worker> list_;
};

/// The cores this process may run on (its CPU affinity: taskset, a cgroup's cpuset), at least 1.
[[nodiscard]] unsigned available_cores();

}  // namespace infracalc
