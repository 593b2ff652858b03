// Published measurements: numbers someone measured on real hardware, each with its source, locator,
// date, configuration and the quote it comes from. data/measured/ holds the shipped corpus (one file per
// source family); users pass their own files in the same format to `infracalc validate --file`. What an
// entry means for a prediction (which calculator, which result) is decided by the validator, not here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "documents/node.hpp"
#include "units/expected.hpp"

namespace infracalc {

/// One published measurement as written in its file.
struct Measurement {
  /// The file it came from ("data/measured/trtllm.toml" or the user's path).
  std::string file;
  /// "file:line:col" of the entry, for messages.
  std::string location;
  /// Unique id, e.g. "trtllm017-llama31-70b-h100-tp2-2048-128".
  std::string id;
  /// inference-throughput, inference-latency, training-step, training-mfu, training-duration or power.
  std::string kind;
  /// Who published it (document title, publisher, date).
  std::string source;
  /// Where in the source: repository path, URL, table and row.
  std::string locator;
  /// Publication date, "YYYY-MM-DD".
  std::string date;
  /// The hardware as the source describes it.
  std::string hardware;
  /// Catalog accelerator id ("h100-sxm"); empty or unknown ids make the entry unpredictable.
  std::string accelerator;
  /// Accelerators measured together (0: the source does not say).
  std::int64_t count = 0;
  /// The model as the source names it ("Llama-3.1 70B").
  std::string model;
  /// Catalog model id when given explicitly (`model_id`); otherwise empty and resolved by name.
  std::string model_id;
  /// Precision as the source words it.
  std::string precision;
  /// Storage format of the weights as a format id (`weights`, e.g. "fp8"); empty: derive from `precision`.
  std::string weights;
  /// Storage format of the KV cache as a format id (`kv`); empty: derive from `precision`.
  std::string kv;
  /// Serving or training engine class (`engine`: trtllm, vllm, sglang, llamacpp, megatron, other); empty:
  /// derive from `software`.
  std::string engine;
  /// Software and versions as the source states them.
  std::string software;
  /// The short quote the numbers come from.
  std::string quote;
  /// Anything else a reader needs (dataset, what a figure counts).
  std::string notes;
  /// The [config] table (tp, pp, dp, ep, input_len, output_len, batch_size, seq_len, global_batch_seqs,
  /// scenario, ...): kept as written.
  Node config;
  /// The [result] table: measured values as strings with units ("762 tok/s", "42%", "104.7 s").
  Node result;

  /// An integer config value (`config.<key>`), when present and a whole number.
  [[nodiscard]] std::optional<std::int64_t> config_int(std::string_view key) const;
  /// A string config value, when present.
  [[nodiscard]] std::optional<std::string> config_string(std::string_view key) const;
  /// A result value as written (a string with its unit, or a number), when present.
  [[nodiscard]] const Node* result_value(std::string_view key) const;
};

/// The measurement kinds, in the order docs/data.md lists them.
[[nodiscard]] std::span<const std::string_view> measurement_kinds();

/// The engine classes `engine` may name.
[[nodiscard]] std::span<const std::string_view> measurement_engines();

/// Reads every [[measurement]] table of a parsed document into `out` (malformed entries too, as far as they
/// go) and returns every structural problem found, each naming file:line:col; `data check` reports them all.
[[nodiscard]] std::vector<Error> lint_measurements(const Node& root, const std::string& file, std::vector<Measurement>& out);

/// The entries of a parsed document with `[[measurement]]` tables; errors name file:line:col (a missing
/// id, kind, source, locator, date, quote, result; a kind outside the list; a duplicate id).
[[nodiscard]] Expected<std::vector<Measurement>> read_measurements(const Node& root, const std::string& file);

/// Reads and parses a file from disk in this format.
[[nodiscard]] Expected<std::vector<Measurement>> read_measurement_file(const std::string& path);

/// Every entry of the embedded data/measured/ files, in path order (parsed on the first call).
[[nodiscard]] const std::vector<Measurement>& embedded_measurements();

}  // namespace infracalc
