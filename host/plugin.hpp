// The plugin contract: a plugin declares typed inputs and outputs, and the host does the rest
// (flags, help, JSON keys, batch keys, completions, catalog fill-in, provenance).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "catalog/catalog.hpp"
#include "host/citations.hpp"
#include "units/dim.hpp"
#include "units/quantity.hpp"

namespace infracalc {

class Context;

/// What kind of value an input takes.
enum class InputKind : std::uint8_t {
  quantity,  ///< a number with a unit of the input's dimension ("3.35 TB/s")
  integer,   ///< a whole count ("80"); count suffixes allowed ("8Ki")
  choice,    ///< one of a fixed list ("fp16")
  text,      ///< free text (a file path, an id list)
  flag,      ///< a switch without a value (--require-fit)
};

/// Which values an input accepts, checked by the host before the calculator runs.
enum class Bound : std::uint8_t {
  any,           ///< any finite value
  positive,      ///< > 0 (the default: most physical inputs)
  non_negative,  ///< >= 0
  fraction,      ///< 0 < x <= 1 ("0.4" or "40%")
  fraction0,     ///< 0 <= x <= 1
  open_fraction, ///< 0 < x < 1 (acceptance rates)
};

/// The largest value an integer input accepts unless its descriptor declares `most`: past any count one
/// question needs, small enough that an int holds it and a product of two stays exact in 64 bits.
inline constexpr std::int64_t kDefaultMaxInteger = 1'000'000'000;

/// Bounds shared by integer inputs of many calculators (see Input::most).
/// Devices along one parallel dimension (tensor, pipeline, expert, context).
inline constexpr std::int64_t kMaxParallel = 32'768;
/// Why kMaxParallel is the limit.
inline constexpr std::string_view kParallelWhy = "no deployment splits one dimension over more than 32,768 devices";
/// Sequences in one batch (or micro-batch).
inline constexpr std::int64_t kMaxBatch = 1'000'000;
/// Why kMaxBatch is the limit.
inline constexpr std::string_view kBatchWhy = "no engine batches more than 1,000,000 sequences; split the load over replicas";
/// A random seed (held exactly by a double).
inline constexpr std::int64_t kMaxSeed = 9'000'000'000'000'000;
/// A parameter-count input (1e15: far past any model).
inline constexpr std::int64_t kMaxParamsInput = 1'000'000'000'000'000;

/// One declared input of a calculator.
struct Input {
  /// Key in snake_case (JSON and batch); the flag is the same in kebab-case: kv_heads → --kv-heads.
  std::string_view name;
  /// Value kind.
  InputKind kind = InputKind::quantity;
  /// Dimension (quantity and integer inputs; integers are dimensionless unless they count tokens).
  Dim dim{};
  /// Help text: what the input means.
  std::string_view help;
  /// Default value as text, parsed like a flag; empty means none.
  std::string_view default_value{};
  /// An example value for help and completions.
  std::string_view example{};
  /// Catalog field that can supply it, as "ref.path" (e.g. "model.layers", "gpu.memory_bandwidth"), or alternatives
  /// "ref.path|ref.path" tried in order (the first field the given entries have wins).
  std::string_view catalog{};
  /// Allowed values for choice inputs.
  std::vector<std::string_view> choices{};
  /// Accepted range.
  Bound bound = Bound::positive;
  /// True when the calculator copes with the input being absent (no default, not required).
  bool optional = false;
  /// True when a temperature point (degC) is expected.
  bool point = false;
  /// Text inputs: true when the value names a file the calculator reads. A batch record may name only a file under
  /// the directory given with `batch --files-from DIR` (a batch stream is often untrusted).
  bool names_file = false;
  /// Integer inputs: the largest value accepted (from a flag, a data file, a default or a batch record). The
  /// host rejects more, naming the input and this bound, so a calculator never sees a wrapped or huge count.
  std::int64_t most = kDefaultMaxInteger;
  /// Integer inputs: why `most` is the limit, for the error's hint ("no model has more layers"); empty for a
  /// generic hint.
  std::string_view most_why{};
};

/// A result table a calculator declares (JSON: a key under "tables"); the host refuses a table it did not declare.
struct TableDecl {
  /// Its key, e.g. "waterfall".
  std::string_view name;
  /// What it holds, one line.
  std::string_view help;
};

/// A verdict a calculator declares (JSON: a key under "verdicts"); the host refuses one it did not declare. A key
/// with one `*` stands for the keys a calculator forms at run time from a name (a cache tier, a catalog technology).
struct VerdictDecl {
  /// Its key, e.g. "fits", or a pattern such as "*_fits".
  std::string_view key;
  /// What `ok: true` means, one line.
  std::string_view help;
};

/// True when `key` is `pattern`, or matches it with its one `*` standing for one or more characters.
[[nodiscard]] bool key_matches(std::string_view pattern, std::string_view key);

/// One declared output value.
struct Output {
  /// Key in snake_case (JSON, CSV, batch, plan references).
  std::string_view name;
  /// Dimension of the value (JSON carries it in base units).
  Dim dim{};
  /// Help text.
  std::string_view help;
  /// Preferred human display unit, e.g. "Gb/s", "L/min", "$/MWh"; empty for the dimension's default.
  std::string_view unit_hint{};
  /// True when the value is a temperature point.
  bool point = false;
};

/// A catalog reference flag such as --model or --gpu.
struct CatalogRef {
  /// Flag name without dashes ("model", "gpu").
  std::string_view name;
  /// Entry kinds it accepts ("model"; "accelerator").
  std::vector<std::string_view> kinds;
  /// Help text.
  std::string_view help;
  /// Other references this one stands for when they are not given: (reference name, field of this entry that holds
  /// its id). A system's {"gpu", "accelerator"} makes `--system dgx-h100` fill --gpu with h100-sxm unless --gpu is given.
  std::vector<std::pair<std::string_view, std::string_view>> implies{};
};

/// A run-time value: a quantity or a piece of text (choices, ids, labels).
using Cell = std::variant<Quantity, std::string>;

/// A column of a result table.
struct Column {
  /// Key in snake_case.
  std::string key;
  /// Dimension of quantity cells; ignored for text columns.
  Dim dim{};
  /// Display unit hint for the column.
  std::string unit_hint{};
};

/// A table in a result (comparisons, waterfalls, sweeps, traces).
struct Table {
  /// Key in snake_case (JSON: results tables are under "tables").
  std::string name;
  /// Title for human output.
  std::string title;
  /// Columns.
  std::vector<Column> columns;
  /// Rows; each row has one cell per column.
  std::vector<std::vector<Cell>> rows;
};

/// Where an input value came from.
enum class Origin : std::uint8_t { flag, catalog, default_value, derived };

/// An input as the calculator saw it.
struct ResolvedInput {
  /// Input key.
  std::string key;
  /// Where it came from.
  Origin origin = Origin::flag;
  /// The value (quantity, or text for choices and ids).
  Cell value;
  /// The text the user or the file gave.
  std::string raw;
  /// The catalog id it came from, when origin is catalog.
  std::string from;
  /// The catalog field it came from (e.g. memory_visible), when origin is catalog and the host filled it.
  std::string field;
};

/// A named yes/no outcome ("fits": no).
struct Verdict {
  /// Key in snake_case.
  std::string key;
  /// The outcome.
  bool ok = false;
  /// A short explanation.
  std::string text;
};

/// One named output value.
struct Value {
  /// Output key.
  std::string key;
  /// The value in base units.
  Quantity q;
  /// Display unit hint copied from the descriptor.
  std::string unit_hint;
};

/// Everything a calculation produced.
struct Result {
  /// Plugin name.
  std::string plugin;
  /// Calculator name.
  std::string calculator;
  /// Inputs in declaration order, with their origins.
  std::vector<ResolvedInput> inputs;
  /// Outputs in the order the calculator set them.
  std::vector<Value> values;
  /// Verdicts.
  std::vector<Verdict> verdicts;
  /// Notes: assumptions, what is left out, warnings.
  std::vector<std::string> notes;
  /// Every catalog value used, with date and source (shared with results that resolved the same entries).
  Citations provenance;
  /// Tables.
  std::vector<Table> tables;
  /// True when a check the user asked for failed (exit code 1).
  bool check_failed = false;

  /// The value with this key, or nullptr.
  [[nodiscard]] const Value* find(std::string_view key) const {
    for (const auto& v : values)
      if (v.key == key) return &v;
    return nullptr;
  }
};

/// One comparison made by a reference kernel: the formula's figure against the kernel's.
struct KernelCheck {
  /// What is compared, e.g. "kv bytes, 4-layer GQA model".
  std::string figure;
  /// The formula's value.
  Quantity formula;
  /// The kernel's value.
  Quantity kernel;
  /// Relative tolerance.
  double rel_tol = 1e-9;
  /// Absolute tolerance (in base units), for figures that should be zero.
  double abs_tol = 0.0;
  /// A timing comparison on this machine (a measured speed against the formula's prediction): reported,
  /// and marked "warn" when outside tolerance, but never a failure, since a busy shared machine can slow
  /// any measurement down.
  bool timing = false;

  /// True when the kernel agrees with the formula within tolerance.
  [[nodiscard]] bool pass() const;
};

/// Options for running kernels.
struct KernelOptions {
  /// Small sizes for the test suite.
  bool quick = false;
  /// Print step-by-step traces to stderr.
  bool trace = false;
  /// Progress lines on stderr for long kernels.
  bool progress = false;
};

/// A reference kernel: computes a plugin's headline figures independently of its formulas.
struct Kernel {
  /// Name, e.g. "kv-buffers".
  std::string_view name;
  /// What it checks, one line.
  std::string_view checks;
  /// Runs it and returns its comparisons.
  std::function<std::vector<KernelCheck>(const KernelOptions&)> run;
  /// Times this machine (its checks compare a measured speed with a prediction): `verify` runs it by itself after
  /// every other kernel, so that no other kernel's load slows what it measures.
  bool alone = false;
};

/// A descriptor's names to their positions, built on first use: the host resolves every input of every batch
/// record by name, and calculators set their outputs by name. A copy starts empty, so a copied descriptor may be
/// changed freely.
class NameIndex {
 public:
  NameIndex() = default;
  /// Starts empty: the copy belongs to another descriptor.
  NameIndex(const NameIndex& /*unused*/) {}
  /// Starts empty, like a copy; noexcept, so a vector of descriptors grows by moving them, not copying.
  NameIndex(NameIndex&& /*unused*/) noexcept {}
  /// Empties the table: it now belongs to another descriptor.
  NameIndex& operator=(const NameIndex& /*unused*/) {
    table_.clear();
    first_ = second_ = nullptr;
    return *this;
  }
  /// Empties the table, like a copy.
  NameIndex& operator=(NameIndex&& /*unused*/) noexcept {
    table_.clear();
    first_ = second_ = nullptr;
    return *this;
  }
  ~NameIndex() = default;

  /// The position of `name` in `inputs`, or inputs.size() + its position in `refs`, or -1 when neither declares it.
  [[nodiscard]] int find(std::string_view name, const std::vector<Input>& inputs, const std::vector<CatalogRef>& refs) const;
  /// The position of `name` in `outputs`, or -1.
  [[nodiscard]] int find(std::string_view name, const std::vector<Output>& outputs) const;

 private:
  [[nodiscard]] int lookup(std::string_view name) const;
  // Adds a name; false when it is already there (the first keeps its position).
  bool add(std::string_view name, int position) const;
  void reset(std::size_t names, const void* first, std::size_t first_count, const void* second, std::size_t second_count) const;
  [[nodiscard]] bool built_from(const void* first, std::size_t first_count, const void* second, std::size_t second_count) const {
    return first_ == first && first_count_ == first_count && second_ == second && second_count_ == second_count && !table_.empty();
  }

  // Open addressing keyed by length and end characters: cheaper than hashing every byte of short names.
  mutable std::vector<std::pair<std::string_view, int>> table_;
  // What the table was built from: it is rebuilt when the descriptor's vectors change.
  mutable const void* first_ = nullptr;
  mutable std::size_t first_count_ = 0;
  mutable const void* second_ = nullptr;
  mutable std::size_t second_count_ = 0;
};

/// A chart a calculator's result can be drawn as: `--plot FILE.svg` (the cli draws it from the result's tables).
enum class Chart : std::uint8_t {
  /// No chart: the calculator takes no --plot.
  none,
  /// A Gantt timeline, one row per device: the table "timeline" (columns layout, gpu, start, end, state) and the
  /// table "layouts" (columns layout, round, per_sequence).
  timeline,
};

/// One calculator: inputs, outputs, the function that computes, and help.
struct Calculator {
  /// Name, e.g. "size".
  std::string_view name;
  /// One-line summary.
  std::string_view summary;
  /// Longer description for --help: the formula and what it leaves out.
  std::string_view description{};
  /// Catalog reference flags it accepts.
  std::vector<CatalogRef> refs{};
  /// Declared inputs.
  std::vector<Input> inputs{};
  /// Declared outputs.
  std::vector<Output> outputs{};
  /// Declared result tables.
  std::vector<TableDecl> tables{};
  /// Declared verdicts.
  std::vector<VerdictDecl> verdicts{};
  /// The computation.
  std::function<void(Context&)> run{};
  /// The source file of the calculator (`__FILE__` where it is declared, next to its run function), so
  /// `--help` can say where its code lives.
  std::string_view source{};
  /// `source` from the repository's top folder ("plugins/kv/calc_size.cpp"), whatever the build's path.
  [[nodiscard]] std::string_view source_file() const {
    const auto at = source.rfind("plugins/");
    return at == std::string_view::npos ? source : source.substr(at);
  }
  /// The chart `--plot FILE.svg` draws from the result; none for most calculators.
  Chart chart = Chart::none;
  /// Names of `inputs` and `refs` to positions (see slot()).
  NameIndex names{};
  /// Names of `outputs` to positions (see output_slot()).
  NameIndex output_names{};

  /// The position of the input called `name` in `inputs`, or inputs.size() + the position of the reference in
  /// `refs`, or -1 when neither declares it.
  [[nodiscard]] int slot(std::string_view name) const { return names.find(name, inputs, refs); }
  /// The position of the output called `name` in `outputs`, or -1.
  [[nodiscard]] int output_slot(std::string_view name) const { return output_names.find(name, outputs); }
};
// Descriptors are built into vectors at first use; growing one must move them (no allocation), not copy them.
static_assert(std::is_nothrow_move_constructible_v<Calculator>);
static_assert(std::is_nothrow_move_constructible_v<Input>);

/// A plugin: a named group of calculators and their kernels.
struct Plugin {
  /// Name, e.g. "kv". Its one-line summary lives in the registry (`plugin_summary`), written once.
  std::string_view name;
  /// Its calculators.
  std::vector<Calculator> calculators;
  /// Its reference kernels.
  std::vector<Kernel> kernels{};
  /// The page in docs/ describing its formulas.
  std::string_view doc{};

  /// The calculator with this name, or nullptr.
  [[nodiscard]] const Calculator* find(std::string_view calc) const {
    for (const auto& c : calculators)
      if (c.name == calc) return &c;
    return nullptr;
  }
};

/// A calculator's name and the function that builds its descriptor. Every plugin lists its calculators in a table of
/// these: the whole plugin is built from it, and so is the plugin with only the calculator a query names.
struct CalculatorFactory {
  /// The name the descriptor declares.
  std::string_view name;
  /// Builds the descriptor.
  Calculator (*build)();
};

/// The plugin `name` with every calculator of `table`, in its order, and `kernels`.
[[nodiscard]] Plugin assemble_plugin(std::string_view name, std::string_view doc, std::span<const CalculatorFactory> table,
                                     std::vector<Kernel> kernels);

/// The plugin `name` holding only the calculator of `table` called `calculator` (its doc, that calculator, no
/// kernels), built on first use into `built` (one slot per row of `table`); nullptr when the table has no such name.
/// A query runs one calculator: building the others cost `decode ceiling` a tenth of its start-up.
[[nodiscard]] const Plugin* plugin_with_only(std::string_view name, std::string_view doc, std::span<const CalculatorFactory> table,
                                             std::span<std::optional<Plugin>> built, std::string_view calculator);

}  // namespace infracalc
