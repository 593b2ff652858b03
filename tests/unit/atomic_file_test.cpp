// Output files are written whole or not at all, and never over an input or an existing file by accident.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "documents/atomic_file.hpp"
#include "tests/unit/calc_test_util.hpp"
#include "units/expected.hpp"

using namespace infracalc;
using namespace calc_test;
namespace fs = std::filesystem;

namespace {
fs::path fresh_dir() {
  const fs::path d = fs::temp_directory_path() / ("infracalc-atomic-" + std::to_string(::getpid()) + "-" + std::to_string(rand()));
  fs::create_directories(d);
  return d;
}
std::size_t entries(const fs::path& d) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
  return n;
}
}  // namespace

TEST_CASE("a committed file appears whole, and no temporary is left", "[atomic]") {
  const auto d = fresh_dir();
  write_file_atomically((d / "out.csv").string(), "a,b\n1,2\n", false);
  CHECK(slurp(d / "out.csv") == "a,b\n1,2\n");
  CHECK(entries(d) == 1);
  fs::remove_all(d);
}

TEST_CASE("an existing file is kept unless --force", "[atomic]") {
  const auto d = fresh_dir();
  std::ofstream(d / "plan.csv") << "precious";
  CHECK_THROWS_WITH(write_file_atomically((d / "plan.csv").string(), "new", false), Catch::Contains("--force"));
  CHECK(slurp(d / "plan.csv") == "precious");
  write_file_atomically((d / "plan.csv").string(), "new", true);
  CHECK(slurp(d / "plan.csv") == "new");
  fs::remove_all(d);
}

TEST_CASE("an input file is never overwritten, even with --force", "[atomic]") {
  const auto d = fresh_dir();
  std::ofstream(d / "site.toml") << "input";
  CHECK_THROWS_WITH(write_file_atomically((d / "site.toml").string(), "x", true, {(d / "site.toml").string()}),
                    Catch::Contains("input"));
  CHECK(slurp(d / "site.toml") == "input");
  fs::remove_all(d);
}

TEST_CASE("an abandoned write leaves nothing behind", "[atomic]") {
  const auto d = fresh_dir();
  {
    AtomicFile f((d / "half.xlsx").string(), false);
    f.write("partial");
    CHECK(fs::exists(f.temp_path()));
  }
  CHECK(entries(d) == 0);
  fs::remove_all(d);
}

TEST_CASE("a write error is a user error and leaves nothing", "[atomic]") {
  if (!fs::exists("/dev/full")) return;
  // /dev/full is not a directory we can create temporaries in; simulate with a read-only directory instead.
  const auto d = fresh_dir();
  fs::permissions(d, fs::perms::owner_read | fs::perms::owner_exec);
  if (::geteuid() != 0) {
    CHECK_THROWS_AS(write_file_atomically((d / "x.csv").string(), "x", false), UserError);
  }
  fs::permissions(d, fs::perms::owner_all);
  fs::remove_all(d);
}

#include <csignal>
#include <sys/resource.h>
#include <sys/wait.h>

TEST_CASE("SIGINT in the middle of a write leaves neither the file nor a temporary", "[atomic]") {
  const auto d = fresh_dir();
  const std::string target = (d / "plan.xlsx").string();
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    AtomicFile f(target, false);
    f.write("half of a workbook");
    std::raise(SIGINT);  // the handler removes the temporary and the process dies of SIGINT
    _exit(0);            // not reached
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  CHECK_FALSE(fs::exists(target));
  CHECK(entries(d) == 0);
  fs::remove_all(d);
}

TEST_CASE("a full disk is a user error and leaves the old file intact", "[atomic]") {
  const auto d = fresh_dir();
  const std::string target = (d / "report.md").string();
  std::ofstream(target) << "the previous report";
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // A file-size limit makes write() fail with EFBIG, as a full disk fails with ENOSPC.
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit lim{1024, 1024};
    setrlimit(RLIMIT_FSIZE, &lim);
    try {
      write_file_atomically(target, std::string(64 * 1024, 'x'), true);
    } catch (const UserError& e) {
      _exit(e.error.message.find("cannot write") != std::string::npos ? 3 : 4);
    }
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(slurp(target) == "the previous report");
  CHECK(entries(d) == 1);
  fs::remove_all(d);
}

// Issue 23, item 12: "never over an existing file" holds under races, and --force replaces only regular files.
TEST_CASE("of two writers of one new name without --force, the second fails and the first file stays", "[atomic]") {
  const auto d = fresh_dir();
  const std::string target = (d / "same.xlsx").string();
  AtomicFile first(target, false);
  AtomicFile second(target, false);  // both checked while the name was free: a check-then-rename race
  first.write("first");
  second.write("second");
  first.commit();
  CHECK_THROWS_WITH(second.commit(), Catch::Contains("already exists"));
  CHECK(slurp(target) == "first");
  fs::remove_all(d);  // (second's temporary is gone by now too)
}

TEST_CASE("a file that appears while another is written is not replaced without --force", "[atomic]") {
  const auto d = fresh_dir();
  const std::string target = (d / "report.csv").string();
  {
    AtomicFile f(target, false);
    f.write("mine");
    std::ofstream(target) << "theirs";
    CHECK_THROWS_AS(f.commit(), UserError);
  }
  CHECK(slurp(target) == "theirs");
  CHECK(entries(d) == 1);
  fs::remove_all(d);
}

TEST_CASE("forcing replaces only regular files, never a symbolic link, FIFO or device", "[atomic]") {
  const auto d = fresh_dir();
  std::ofstream(d / "real.csv") << "real";
  fs::create_symlink(d / "real.csv", d / "link.csv");
  CHECK_THROWS_WITH(write_file_atomically((d / "link.csv").string(), "x", true), Catch::Contains("symbolic link"));
  CHECK(fs::is_symlink(fs::symlink_status(d / "link.csv")));
  CHECK(slurp(d / "real.csv") == "real");
  REQUIRE(::mkfifo((d / "pipe").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(write_file_atomically((d / "pipe").string(), "x", true), Catch::Contains("FIFO"));
  CHECK(fs::is_fifo(d / "pipe"));
  // A device is refused before anything is created next to it (no temporary in /dev).
  CHECK_THROWS_WITH(AtomicFile("/dev/null", true), Catch::Contains("device"));
  CHECK(entries(d) == 3);
  fs::remove_all(d);
}

TEST_CASE("a hard link to an input is the input", "[atomic]") {
  const auto d = fresh_dir();
  std::ofstream(d / "plan.toml") << "input";
  fs::create_hard_link(d / "plan.toml", d / "out.xlsx");
  CHECK_THROWS_WITH(write_file_atomically((d / "out.xlsx").string(), "x", true, {(d / "plan.toml").string()}), Catch::Contains("input"));
  CHECK(slurp(d / "plan.toml") == "input");
  fs::remove_all(d);
}

// Issue 23, item 11: the outputs of one run are one transaction.
TEST_CASE("an output set is placed whole, or the old files stay and nothing new is left", "[atomic]") {
  const auto d = fresh_dir();
  std::ofstream(d / "a.svg") << "old a";
  {
    OutputSet set;
    set.add((d / "a.svg").string(), true).write("new a");
    set.add((d / "b.svg").string(), true).write("new b");
    AtomicFile& c = set.add((d / "c.svg").string(), false);
    c.write("new c");
    std::ofstream(d / "c.svg") << "someone else's c";  // appears meanwhile: c cannot be placed
    CHECK_THROWS_WITH(set.commit(), Catch::Contains("c.svg"));
  }
  CHECK(slurp(d / "a.svg") == "old a");
  CHECK_FALSE(fs::exists(d / "b.svg"));
  CHECK(slurp(d / "c.svg") == "someone else's c");
  CHECK(entries(d) == 2);
  fs::remove_all(d);
}

TEST_CASE("a committed output set replaces the old set, a skipped file included", "[atomic]") {
  const auto d = fresh_dir();
  std::ofstream(d / "a.svg") << "old a";
  std::ofstream(d / "b.svg") << "old b";
  {
    OutputSet set;
    set.add((d / "a.svg").string(), true).write("new a");
    set.add((d / "b.svg").string(), true).skip();  // this run has no b: the old b goes with the old set
    set.commit();
  }
  CHECK(slurp(d / "a.svg") == "new a");
  CHECK_FALSE(fs::exists(d / "b.svg"));
  CHECK(entries(d) == 1);
  fs::remove_all(d);
}

TEST_CASE("an abandoned output set removes its temporaries and the directories it created", "[atomic]") {
  const auto d = fresh_dir();
  {
    OutputSet set;
    set.create_directory((d / "charts" / "deep").string());
    set.add((d / "charts" / "deep" / "a.svg").string(), false).write("a");
    set.add((d / "book.xlsx").string(), false).write("b");
  }
  CHECK(entries(d) == 0);
  fs::remove_all(d);
}

TEST_CASE("SIGINT while an output set is written leaves the old files and nothing new", "[atomic]") {
  const auto d = fresh_dir();
  std::ofstream(d / "a.svg") << "old a";
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    OutputSet set;
    set.create_directory((d / "new-dir").string());
    set.add((d / "a.svg").string(), true).write("new a");
    set.add((d / "new-dir" / "b.svg").string(), true).write("new b");
    std::raise(SIGINT);
    _exit(0);  // not reached
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(slurp(d / "a.svg") == "old a");
  CHECK(entries(d) == 1);
  fs::remove_all(d);
}
