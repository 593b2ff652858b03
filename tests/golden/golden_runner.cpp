// Runs every golden case in tests/golden/*.toml against the built binary: each case is a command line,
// a key into its JSON output, an expected value (with units) and a relative tolerance.
#include <algorithm>
#include <map>
#include <optional>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "documents/json.hpp"
#include "tests/golden/json_schema.hpp"
#include "documents/toml_reader.hpp"
#include "units/parse.hpp"

extern char** environ;

namespace {

using infracalc::Node;

struct Outcome {
  int status = -1;
  std::string out, err;
};

// Runs the binary with the given arguments and stdin text, capturing stdout and stderr.
Outcome run(const std::string& exe, const std::vector<std::string>& args, const std::string& input) {
  int out_pipe[2], err_pipe[2], in_pipe[2];
  Outcome o;
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0 || pipe(in_pipe) != 0) return o;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
  posix_spawn_file_actions_addclose(&fa, out_pipe[0]);
  posix_spawn_file_actions_addclose(&fa, err_pipe[0]);
  posix_spawn_file_actions_addclose(&fa, in_pipe[1]);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(in_pipe[0]);
  // Inputs here are small (well under a pipe buffer), so writing before reading cannot deadlock.
  if (!input.empty() && write(in_pipe[1], input.data(), input.size()) < 0) std::perror("golden_runner: stdin");
  close(in_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return o;
  }
  std::array<pollfd, 2> fds{pollfd{out_pipe[0], POLLIN, 0}, pollfd{err_pipe[0], POLLIN, 0}};
  char buf[65536];
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds.data(), fds.size(), -1) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP)) == 0) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? o.out : o.err).append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  o.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return o;
}

// Follows a dotted path ("results.kv_total.value", "tables.x.rows.0.2") through a JSON tree.
const Node* lookup(const Node& root, const std::string& path) {
  const Node* cur = &root;
  std::size_t start = 0;
  while (cur != nullptr && start <= path.size()) {
    auto dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (cur->kind == Node::Kind::array) {
      const std::size_t i = static_cast<std::size_t>(std::atoi(part.c_str()));
      cur = i < cur->items.size() ? &cur->items[i] : nullptr;
    } else {
      // A key may hold dots itself (hw compare's ratio "peak.fp8_dense"): the shortest run of parts the object has.
      const Node* next = cur->find(part);
      while (next == nullptr && dot != std::string::npos) {
        dot = path.find('.', dot + 1);
        part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        next = cur->find(part);
      }
      cur = next;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return cur;
}

std::string str_of(const Node* n) {
  if (n == nullptr) return "(missing)";
  switch (n->kind) {
    case Node::Kind::string: return "\"" + n->str + "\"";
    case Node::Kind::boolean: return n->boolean ? "true" : "false";
    case Node::Kind::integer:
    case Node::Kind::floating: {
      std::ostringstream s;
      s.precision(10);
      s << n->number;
      return s.str();
    }
    default: return std::string(n->kind_name());
  }
}

struct Case {
  std::string file, id;
  std::vector<std::string> args;
  std::string key;
  const Node* expect = nullptr;
  double tol = 0.0;
  int exit_code = 0;
  std::string stderr_contains;
  std::string stdin_text;
  bool json = true;
};

// Checks one case; returns "" on success, else the reason.
// The schema a JSON line must follow: `infracalc schema PLUGIN CALC` for a calculator's output, else the general
// one (`infracalc schema`) for any other result document or failed batch record; each fetched once.
const Node* schema_for(const std::string& exe, const std::vector<std::string>& args) {
  static std::map<std::string, std::optional<Node>> cache;
  std::vector<std::string> words = {"schema"};
  if (args.size() >= 2 && args[0] != "calc" && args[0] != "batch") words = {"schema", args[0], args[1]};
  const std::string key = words.size() > 1 ? words[1] + " " + words[2] : "";
  auto it = cache.find(key);
  if (it == cache.end()) {
    const Outcome o = run(exe, words, "");
    std::optional<Node> schema;
    if (o.status == 0)
      if (auto doc = infracalc::read_json(o.out, "schema"); doc.ok()) schema = std::move(doc).value();
    it = cache.emplace(key, std::move(schema)).first;
  }
  if (it->second) return &*it->second;
  return key.empty() ? nullptr : schema_for(exe, {});
}

// Every JSON line a successful command printed that is a result document (or a failed batch record) follows its
// schema.
std::string check_schema(const std::string& exe, const Case& c, const std::string& out) {
  for (std::size_t start = 0; start < out.size();) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    auto doc = infracalc::read_json(line, "stdout");
    if (!doc || (doc->find("results") == nullptr && doc->find("error") == nullptr)) continue;
    const Node* schema = schema_for(exe, c.args);
    if (schema == nullptr) return "no schema to check the output against";
    if (std::string why = golden::schema_violation(doc.value(), *schema); !why.empty()) return "output breaks its JSON Schema: " + why;
  }
  return "";
}

std::string check(const std::string& exe, const Case& c) {
  std::vector<std::string> args = c.args;
  if (c.json) args.emplace_back("--json");
  const Outcome o = run(exe, args, c.stdin_text);
  if (o.status != c.exit_code)
    return "exit status " + std::to_string(o.status) + ", expected " + std::to_string(c.exit_code) + "; stderr: " + o.err;
  if (!c.stderr_contains.empty() && o.err.find(c.stderr_contains) == std::string::npos)
    return "stderr does not contain \"" + c.stderr_contains + "\": " + o.err;
  // A usage error prints no result: nothing on stdout (batch reports failed records on stdout by design).
  if (c.exit_code == 2 && !o.out.empty()) return "exit 2 but stdout is not empty: " + o.out.substr(0, 200);
  for (const char* bad : {"nan", "inf", "NaN", "Inf"})
    if (o.out.find(std::string("\"value\": ") + bad) != std::string::npos) return "output contains a non-finite value";
  if (c.json && o.status == 0)
    if (std::string why = check_schema(exe, c, o.out); !why.empty()) return why;
  if (c.expect == nullptr) return "";
  auto doc = infracalc::read_json(o.out, "stdout");
  if (!doc) return "output is not JSON: " + doc.error().text() + "\n" + o.out.substr(0, 400);
  std::string key = c.key;
  if (key.find('.') == std::string::npos) key = "results." + key;
  const Node* got = lookup(doc.value(), key);
  // A value whose key names a unit is carried in that unit (energy_per_bit in J/bit): read it back to base units
  // through its "unit", so expectations stay in base units whatever the key says.
  double to_base = 1;
  if (got != nullptr && got->is_table() && got->find("value") != nullptr) {
    const Node* unit = got->find("unit");
    got = got->find("value");
    if (unit != nullptr && unit->kind == Node::Kind::string) {
      auto u = infracalc::parse_unit(unit->str);
      if (!u) return "unit \"" + unit->str + "\" does not parse: " + u.error().text();
      if (!u->point) to_base = u->factor;
      if (c.expect->kind == Node::Kind::string) {
        auto want = infracalc::parse_quantity(c.expect->str);
        if (want && want->dim != u->dim)
          return "unit " + unit->str + " has another dimension than the expected \"" + c.expect->str + "\"";
      }
    }
  }
  if (got == nullptr) return "no key " + key + " in the output";
  if (c.expect->kind == Node::Kind::boolean) {
    if (got->kind != Node::Kind::boolean || got->boolean != c.expect->boolean) return "got " + str_of(got);
    return "";
  }
  double want = 0;
  if (c.expect->is_number()) {
    want = c.expect->number;
  } else if (c.expect->kind == Node::Kind::string) {
    auto q = infracalc::parse_quantity(c.expect->str);
    if (!q) {
      if (got->kind == Node::Kind::string && got->str == c.expect->str) return "";
      return "got " + str_of(got) + ", expected \"" + c.expect->str + "\"";
    }
    want = q->value;
  }
  if (!got->is_number()) return "got " + str_of(got) + ", expected a number";
  const double value = got->number * to_base;
  const double diff = std::fabs(value - want);
  if (diff > c.tol * std::fabs(want) + 1e-12 * std::max(1.0, std::fabs(want)))
    return "got " + str_of(got) + " (" + std::to_string(value) + " in base units), expected " + str_of(c.expect) + " (" +
           std::to_string(want) + " in base units) within " +
           std::to_string(c.tol * 100) + "%";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: golden_runner INFRACALC CASE_DIR [FILTER]\n");
    return 2;
  }
  const std::string exe = argv[1];
  const std::string filter = argc > 3 ? argv[3] : "";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(argv[2]))
    if (e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<Node> docs;
  docs.reserve(files.size());
  int total = 0, failed = 0;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    auto doc = infracalc::read_toml(ss.str(), f.string());
    if (!doc) {
      std::fprintf(stderr, "%s\n", doc.error().text().c_str());
      return 2;
    }
    docs.push_back(std::move(doc).value());
    const Node* cases = docs.back().find("case");
    if (cases == nullptr) continue;
    for (const auto& n : cases->items) {
      Case c;
      c.file = f.filename().string();
      if (const Node* x = n.find("id")) c.id = x->str;
      if (!filter.empty() && c.id.find(filter) == std::string::npos && c.file.find(filter) == std::string::npos) continue;
      const std::string dir = f.parent_path().string();
      auto expand = [&](std::string s) {
        for (std::size_t pos; (pos = s.find("{dir}")) != std::string::npos;) s.replace(pos, 5, dir);
        return s;
      };
      if (const Node* a = n.find("args"))
        for (const auto& i : a->items) c.args.push_back(expand(i.str));
      if (const Node* x = n.find("stdin")) c.stdin_text = expand(x->str);
      if (const Node* x = n.find("key")) c.key = x->str;
      c.expect = n.find("expect");
      if (const Node* x = n.find("tol")) c.tol = x->number;
      if (const Node* x = n.find("exit")) c.exit_code = static_cast<int>(x->integer);
      if (const Node* x = n.find("stderr")) c.stderr_contains = x->str;
      if (const Node* x = n.find("json")) c.json = x->boolean;
      if (c.id.empty() || c.args.empty() || (c.expect != nullptr && c.key.empty())) {
        std::fprintf(stderr, "%s: case %s lacks id, args or key\n", c.file.c_str(), c.id.c_str());
        return 2;
      }
      ++total;
      const std::string why = check(exe, c);
      if (!why.empty()) {
        ++failed;
        std::string cmd;
        for (const auto& a : c.args) cmd += " '" + a + "'";
        std::fprintf(stderr, "FAIL %s:%s\n  infracalc%s\n  %s\n", c.file.c_str(), c.id.c_str(), cmd.c_str(), why.c_str());
      }
    }
  }
  std::printf("golden: %d cases, %d passed, %d failed\n", total, total - failed, failed);
  return failed == 0 && total > 0 ? 0 : 1;
}
