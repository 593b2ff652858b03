// Times whole-process runs of a command: spawns it N times (stdout to /dev/null) and prints the median,
// 10th and 90th percentile wall-clock times in milliseconds. Usage: proc_time N CMD [ARGS...]
// With --rss instead of N it runs the command once and prints its peak resident set size in KiB.
// With --vs N REF [ARGS...] -- CMD [ARGS...] it runs REF and CMD alternately, N times each after 3 warm-up
// pairs, and prints CMD's median, REF's median and their ratio: on a shared machine both see the same load,
// so the ratio holds where the milliseconds do not.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

// One run of argv[0] with stdout to /dev/null; its wall time in ms, or a negative value if it failed.
double run_once(char** cmd, const posix_spawn_file_actions_t* fa) {
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, cmd[0], fa, nullptr, cmd, environ) != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  const auto t1 = std::chrono::steady_clock::now();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int versus(int argc, char** argv) {
  const int n = std::atoi(argv[2]);
  int sep = 3;
  while (sep < argc && std::string(argv[sep]) != "--") ++sep;
  if (n <= 0 || sep == 3 || sep + 1 >= argc) {
    std::fprintf(stderr, "usage: proc_time --vs N REF [ARGS...] -- CMD [ARGS...]\n");
    return 2;
  }
  argv[sep] = nullptr;  // REF's argv ends here
  char** ref = argv + 3;
  char** cmd = argv + sep + 1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  std::vector<double> a, b;
  for (int i = 0; i < n + 3; ++i) {
    const double tr = run_once(ref, &fa);
    const double tc = run_once(cmd, &fa);
    if (tr < 0 || tc < 0) {
      std::fprintf(stderr, "proc_time: %s failed\n", tr < 0 ? ref[0] : cmd[0]);
      return 2;
    }
    if (i >= 3) {
      a.push_back(tc);
      b.push_back(tr);
    }
  }
  const double mc = median(a), mr = median(b);
  std::printf("%.3f %.3f %.2f\n", mc, mr, mc / mr);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::string(argv[1]) == "--vs") return versus(argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: proc_time N CMD [ARGS...]\n");
    return 2;
  }
  const bool rss = std::string(argv[1]) == "--rss";
  const int n = rss ? 1 : std::atoi(argv[1]);
  std::vector<double> ms;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  for (int i = 0; i < (rss ? 1 : n + 3); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid = 0;
    if (posix_spawn(&pid, argv[2], &fa, nullptr, argv + 2, environ) != 0) {
      std::perror("proc_time: spawn");
      return 2;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    const auto t1 = std::chrono::steady_clock::now();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "proc_time: command failed (status %d)\n", status);
      return 2;
    }
    if (i >= 3) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());  // 3 warm-up runs
  }
  if (rss) {
    rusage ru{};
    getrusage(RUSAGE_CHILDREN, &ru);
    std::printf("%ld\n", ru.ru_maxrss);
    return 0;
  }
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms[static_cast<std::size_t>(p * static_cast<double>(ms.size() - 1))]; };
  std::printf("%.3f %.3f %.3f\n", pct(0.5), pct(0.1), pct(0.9));
  return 0;
}
