// Times whole-process runs of a command: spawns it N times (stdout to /dev/null) and prints the median,
// 10th and 90th percentile wall-clock times in milliseconds. Usage: proc_time N CMD [ARGS...]
// With --rss instead of N it runs the command once and prints its peak resident set size in KiB.
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

int main(int argc, char** argv) {
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
