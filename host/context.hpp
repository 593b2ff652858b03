// The host side of the plugin contract: resolves a calculator's inputs from flags, the catalog and
// defaults, hands them to the calculator with their types, and collects the result.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/plugin.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc {

/// The text inputs of one run: (key, value) pairs. Keys may be snake_case or kebab-case; catalog
/// references use their ref name ("model", "gpu"); a flag input with an empty value is set.
using RawInputs = std::vector<std::pair<std::string, std::string>>;

/// Where a long calculation reports how far it has come: `done` of `total` steps (simulated seconds, requests).
/// The CLI sets one only when stderr is a terminal; batch, plan and JSON paths leave it empty.
using ProgressSink = std::function<void(double done, double total)>;

/// Options that apply to the whole run.
struct RunOptions {
  /// --as-of: dated series (prices, tariffs) use the newest entry not after this date.
  Date as_of;
  /// --digits and --binary: how notes and table text quote numbers (Context::quote and friends).
  FormatOptions number;
  /// Progress of a long run (a `serve simulate`); empty reports nothing.
  ProgressSink progress;
};

/// What a calculator sees while it runs: typed inputs, catalog access with provenance, and the result.
class Context {
 public:
  /// Resolves every declared input; throws UserError naming the first bad or missing one.
  Context(const Plugin& plugin, const Calculator& calc, const RawInputs& raw, const RunOptions& options);

  /// True when the input has a value (from a flag, the catalog or a default).
  [[nodiscard]] bool has(std::string_view key) const;
  /// The input as a run-time quantity.
  [[nodiscard]] Quantity quantity(std::string_view key) const;
  /// The input as a named quantity type; the dimension is checked.
  template <class Q>
  [[nodiscard]] Q get(std::string_view key) const {
    return as<Q>(quantity(key), flag_name(key));
  }
  /// A dimensionless input as a plain number.
  [[nodiscard]] double number(std::string_view key) const;
  /// An integer input, within the bounds its descriptor declares (the host checked it).
  [[nodiscard]] std::int64_t integer(std::string_view key) const;
  /// An integer input as an int; the input's declared `most` must fit an int (else a logic error).
  [[nodiscard]] int count(std::string_view key) const;
  /// A choice or text input.
  [[nodiscard]] const std::string& text(std::string_view key) const;
  /// A flag input.
  [[nodiscard]] bool flag(std::string_view key) const;
  /// Where an input came from.
  [[nodiscard]] Origin origin(std::string_view key) const;
  /// The catalog entry given for a reference flag (--model, --gpu), or nullptr.
  [[nodiscard]] const Entry* ref(std::string_view name) const;
  /// Run options.
  [[nodiscard]] const RunOptions& options() const { return options_; }

  /// A quantity for note or table text, honouring --digits and --binary: format_human(q, options().number,
  /// unit_hint), e.g. quote(weights, "GB") is "140 GB" (or "130.4 GiB" with --binary).
  [[nodiscard]] std::string quote(const Quantity& q, std::string_view unit_hint = {}) const;
  /// quote() for a named quantity type (Bytes, Seconds, ...).
  template <class Q>
  [[nodiscard]] std::string quote(const Q& q, std::string_view unit_hint = {}) const {
    return quote(to_quantity(q), unit_hint);
  }
  /// A dimensionless count for note text (parameters, accelerators, sequences): format_count with --digits, exact
  /// with thousands separators when whole and below 10^12 ("4,096"), otherwise with significant digits.
  [[nodiscard]] std::string quote_count(double v) const;
  /// A plain number for note text (a ratio, a factor, a PUE): format_number with --digits.
  [[nodiscard]] std::string quote_number(double v) const;
  /// A share as a percentage for note text: 0.4 → "40%", with --digits significant digits.
  [[nodiscard]] std::string quote_percent(double share) const;
  /// Reports that `done` of `total` steps of a long calculation are finished (no-op without a sink).
  void progress(double done, double total) const {
    if (options_.progress) options_.progress(done, total);
  }

  /// A catalog quantity with provenance recorded; nullopt when the field is absent.
  [[nodiscard]] std::optional<Quantity> catalog_quantity(const Entry& e, std::string_view path, const Expectation& want);
  /// A catalog quantity as a named type; nullopt when the field is absent.
  template <class Q>
  [[nodiscard]] std::optional<Q> catalog(const Entry& e, std::string_view path) {
    auto q = catalog_quantity(e, path, expectation_of<Q>());
    if (!q) return std::nullopt;
    return as<Q>(*q, e.id() + "." + std::string(path));
  }
  /// A catalog text field with provenance recorded; nullopt when absent.
  [[nodiscard]] std::optional<std::string> catalog_text(const Entry& e, std::string_view path);
  /// Records that a catalog value was used.
  void cite(const Provenance& p);

  /// Sets a declared output from a named quantity type.
  template <class Q>
  void set(std::string_view key, const Q& q) {
    set_quantity(key, to_quantity(q));
  }
  /// Sets a declared output; throws UserError if the value is not finite.
  void set_quantity(std::string_view key, const Quantity& q);
  /// Sets a dimensionless declared output.
  void set_number(std::string_view key, double v) { set_quantity(key, Quantity::number(v)); }
  /// Adds a verdict.
  void verdict(std::string_view key, bool ok, std::string text);
  /// Adds a note.
  void note(std::string text);
  /// Adds a table; throws UserError if a quantity cell is not finite.
  void add_table(Table table);
  /// Marks that a check the user asked for failed: the command exits 1.
  void fail_check() { result_.check_failed = true; }

  /// The result so far.
  [[nodiscard]] Result& result() { return result_; }
  /// "--kv-heads" for "kv_heads".
  [[nodiscard]] static std::string flag_name(std::string_view key);

 private:
  // Fills the implied references, the inputs the record did not type (catalog fields, defaults), their citations and
  // notes; typed inputs get a place holding their key.
  void resolve_untyped(const std::vector<bool>& typed);
  const ResolvedInput* find(std::string_view key) const;
  const ResolvedInput& need(std::string_view key) const;

  const Calculator& calc_;
  RunOptions options_;
  std::vector<std::pair<std::string, const Entry*>> refs_;
  std::vector<int> at_;      // for each declared input, its place in result_.inputs as resolved, or -1
  std::vector<int> out_at_;  // for each declared output, its place in result_.values once set, or -1
  std::size_t outputs_set_ = 0;  // how many values set_quantity added
  std::size_t inputs_placed_ = 0;  // how many inputs the host resolved; a calculator may add more
  Result result_;
};

/// Resolves the inputs, runs the calculator and returns its result. Throws UserError for bad input.
[[nodiscard]] Result run_calculator(const Plugin& plugin, const Calculator& calc, const RawInputs& raw,
                                    const RunOptions& options = {});

/// snake_case from kebab-case ("kv-heads" → "kv_heads").
[[nodiscard]] std::string snake_key(std::string_view key);

}  // namespace infracalc
