// The WebAssembly engine: one exported function, a batch record in and its result line out, through the same
// code as `infracalc batch` (plan/batch_record.hpp), so every number a page shows is the command line's number.
#include <cstddef>
#include <string>
#include <string_view>

#include <emscripten/emscripten.h>

#include "host/context.hpp"
#include "plan/batch_record.hpp"

namespace {

// The last result, kept until the next call so the caller can read it through the returned pointer.
std::string last_result;

}  // namespace

extern "C" {

/// Runs one batch record (a JSON object as UTF-8 text, as one line of `infracalc batch` input) as record number
/// `record` (1-based: `infracalc batch` numbers its lines) and returns its result line, without the newline:
/// exactly what `infracalc batch` prints for it, an error line included. The text stays valid until the next
/// call. Records that name files (an input file, a plan) fail as they do in a batch run without --files-from.
EMSCRIPTEN_KEEPALIVE const char* infracalc_run_record(const char* record_json, int record) {
  // The command line's defaults: no --as-of (the newest dated entries), --digits 4, decimal prefixes.
  const infracalc::RunOptions options;
  last_result.clear();
  std::string_view text = record_json == nullptr ? std::string_view() : std::string_view(record_json);
  // As `infracalc batch` reads a line: without its line ending.
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  (void)infracalc::process_batch_record(text, record > 0 ? static_cast<std::size_t>(record) : 1, options, last_result);
  if (!last_result.empty() && last_result.back() == '\n') last_result.pop_back();
  return last_result.c_str();
}

}  // extern "C"
