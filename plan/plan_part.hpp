// A sweep part: what `plan FILE --sweep ... --shard K/N` writes and `plan merge` reads. JSON Lines: a header
// naming the command that made it (so merge rebuilds the same sweep and refuses parts of another), one line per
// row with each value exact (base units, shortest round-trip digits), and a trailer with the counts of every
// point of the shard (a part cut short has none).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "plan/line_reader.hpp"
#include "plan/plan_sweep.hpp"

namespace infracalc::plan {

/// The command a part came from, and which points it holds.
struct PartHeader {
  /// The plan file as given on the command line.
  std::string plan;
  /// FNV-1a (64-bit) of the plan file's bytes, in hex: merge reads the same file and checks it.
  std::string plan_digest;
  /// --set and --sweep, in order (--ideal is the set hardware.performance=ceiling).
  std::vector<std::string> sets, sweeps;
  /// --columns and --pareto as given.
  std::string columns, pareto;
  /// --as-of ("" for the newest).
  std::string as_of;
  /// The overlay data files the catalog read (--data-dir, $INFRACALC_DATA, the user data dir).
  std::vector<std::string> overlays;
  /// The infracalc version and the date of its built-in data.
  std::string version;
  /// K of N (1 <= K <= N).
  std::size_t shard = 1, shards = 1;
  /// The points of the whole grid, and the first and one-past-last point of this part.
  std::size_t points = 0, first = 0, end = 0;

  /// True when two parts come from the same command (all but shard, first and end equal).
  [[nodiscard]] bool same_sweep(const PartHeader& o) const;
};

/// The end of a part: what its points did (all of them, also those a Pareto front left out) and its plugin runs.
struct PartTrailer {
  /// Rows the part holds.
  std::size_t rows = 0;
  /// Failed checks and steps over the shard's points.
  SweepCounts counts;
  /// Plugin runs and memo hits.
  std::size_t runs = 0, hits = 0;
};

/// Points first..end-1 of shard K of N over a grid of `points` (the same cut on every machine).
[[nodiscard]] std::pair<std::size_t, std::size_t> shard_range(std::size_t points, std::size_t shard, std::size_t shards);
/// Parses "K/N" (1 <= K <= N <= 100000); a UserError naming --shard otherwise.
[[nodiscard]] std::pair<std::size_t, std::size_t> parse_shard(const std::string& text);
/// FNV-1a (64-bit) of `bytes`, as 16 hex digits.
[[nodiscard]] std::string digest(std::string_view bytes);

/// Appends the header line.
void append_part_header(std::string& out, const PartHeader& h);
/// Appends one row.
void append_part_row(std::string& out, const SweepRow& r);
/// Appends the trailer line.
void append_part_trailer(std::string& out, const PartTrailer& t);

/// Reads one part file: its header on open, then rows until the trailer. Every line is checked (a JSON object
/// of the expected shape, values of the declared columns, points rising inside the part's range); any fault is
/// a UserError naming the file and line.
class PartReader {
 public:
  /// Opens `path` and reads its header.
  explicit PartReader(const std::string& path);
  /// Closes the file.
  ~PartReader();
  PartReader(const PartReader&) = delete;
  PartReader& operator=(const PartReader&) = delete;
  /// The header.
  [[nodiscard]] const PartHeader& header() const { return header_; }
  /// The next row of `columns` values and `axes` labels into `row`; false at the trailer (then trailer() holds it).
  /// A file that ends without a trailer is a UserError (a shard that did not finish).
  bool next(SweepRow& row, std::size_t axes, std::size_t columns);
  /// The trailer, once next() returned false.
  [[nodiscard]] const PartTrailer& trailer() const { return trailer_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  std::string path_;
  std::FILE* f_ = nullptr;
  LineReader reader_;
  std::size_t line_no_ = 0;
  std::size_t next_point_ = 0;
  std::size_t rows_read_ = 0;
  PartHeader header_;
  PartTrailer trailer_;
};

}  // namespace infracalc::plan
