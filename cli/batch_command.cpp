// `infracalc batch`: JSON Lines in, JSON Lines out — one calculation per record, streamed.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "plan/batch_record.hpp"
#include "plan/line_reader.hpp"
#include "cli/plan_command.hpp"
#include "host/context.hpp"
#include "plugins/registry.hpp"
#include "units/printable.hpp"

namespace infracalc::cli {

namespace {
// A record longer than this is an error for that record, skipped to its end without being held whole: a
// record is a few hundred bytes, and a stream of zeros or one endless line must not exhaust memory.
constexpr std::size_t kMaxRecord = std::size_t{16} << 20;
}  // namespace

ExitStatus run_batch(const std::string& path, bool fail_fast, const std::string& files_from, const GlobalOptions& g) {
  std::FILE* in = stdin;
  if (!path.empty() && path != "-") in = open_lines(path, "batch", "give a file of JSON records, one per line, or - for standard input");
  RunOptions ro;
  ro.as_of = as_of_option(g);
  ro.number = g.out.number;  // notes in a record's JSON quote numbers as the command line asked (--digits, --binary)
  // --fields names results of any calculator (records differ); a name none declares is a usage error.
  std::vector<std::string> fields;
  if (!g.fields.empty()) {
    std::vector<std::string_view> declared;
    for (const auto& e : plugin_table())
      if (const Plugin* p = find_plugin(e.name))
        for (const auto& c : p->calculators)
          for (const auto& o : c.outputs)
            if (std::find(declared.begin(), declared.end(), o.name) == declared.end()) declared.push_back(o.name);
    fields = writers::field_list(g.fields, declared);
  }
  std::string out;
  out.reserve(1 << 16);
  std::size_t record = 0;
  std::size_t failed = 0;
  std::size_t processed = 0;
  auto reader = std::make_unique<LineReader>(in, kMaxRecord);
  std::string line;
  LineReader::Got got{};
  while ((got = reader->next(line)) == LineReader::Got::record || got == LineReader::Got::too_long) {
    ++record;
    std::optional<Error> err;
    if (got == LineReader::Got::too_long) {
      ++processed;
      err = Error{fmt::format("longer than {} MiB", kMaxRecord >> 20), "a record is one JSON object on one line, a few hundred bytes"};
      append_batch_error(out, record, nullptr, *err);
    } else {
      std::string_view text(line);
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
      if (text.find_first_not_of(" \t") == std::string_view::npos) continue;  // blank lines are skipped
      ++processed;
      err = process_batch_record(text, record, ro, out, files_from, fields, plan_record_json);
    }
    if (err) {
      ++failed;
      // Whole lines reach stdout before the message goes to stderr, so `2>&1` never splits a record.
      emit(out);
      out.clear();
      finish_output();
      report("error", "record " + std::to_string(record) + ": " + err->text());
      if (fail_fast) break;
    }
    if (out.size() > (1 << 16) - 4096) {
      emit(out);
      out.clear();
      finish_output();  // a reader downstream (jq, a pipeline) sees whole records as they are done
    }
  }
  emit(out);
  finish_output();
  if (got == LineReader::Got::error) {
    const int saved = errno;
    if (in != stdin) std::fclose(in);
    throw UserError{{"batch: error reading " + (in == stdin ? std::string("standard input") : "\"" + printable(path) + "\"") + ": " +
                         std::strerror(saved),
                     "the records before it were processed"}};
  }
  if (in != stdin) std::fclose(in);
  if (failed > 0) std::fprintf(stderr, "batch: %zu of %zu records failed\n", failed, processed);
  return failed == 0 ? ExitStatus::ok : ExitStatus::check_failed;
}

}  // namespace infracalc::cli
