#include "plan/plan_part.hpp"

#include <charconv>
#include <cmath>
#include <optional>
#include <fmt/format.h>

#include "documents/json.hpp"
#include "units/format.hpp"
#include "units/printable.hpp"

namespace infracalc::plan {

namespace {

// A part line is one row of a handful of values; a megabyte is far past any real one.
constexpr std::size_t kMaxLine = std::size_t{1} << 20;
constexpr std::string_view kFormat = "infracalc_plan_part";

void append_key(std::string& out, std::string_view key) {
  out += ", ";
  append_json_string(out, key);
  out += ": ";
}

void append_strings(std::string& out, const std::vector<std::string>& v) {
  out += '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += ", ";
    append_json_string(out, v[i]);
  }
  out += ']';
}

void append_member(std::string& out, std::string_view key, std::string_view text) {
  append_key(out, key);
  append_json_string(out, text);
}

void append_member(std::string& out, std::string_view key, const std::vector<std::string>& texts) {
  append_key(out, key);
  append_strings(out, texts);
}

// A non-negative whole number at `key` of a header or trailer object, or nullopt.
std::optional<std::size_t> count_at(const Node& object, std::string_view key) {
  const Node* n = object.find(key);
  if (n == nullptr || n->kind != Node::Kind::integer || n->integer < 0) return std::nullopt;
  return static_cast<std::size_t>(n->integer);
}

// JSON has no infinities or NaN; a sweep value can be one (a rate over a zero count), so those travel as text.
void append_number(std::string& out, double v) {
  if (std::isfinite(v)) append_machine(out, v);
  else if (std::isnan(v)) append_json_string(out, std::signbit(v) ? "-nan" : "nan");
  else append_json_string(out, v > 0 ? "inf" : "-inf");
}

std::optional<double> read_number(const Node& n) {
  if (n.is_number()) return n.number;
  if (n.kind != Node::Kind::string) return std::nullopt;
  if (n.str == "inf") return HUGE_VAL;
  if (n.str == "-inf") return -HUGE_VAL;
  if (n.str == "nan") return std::nan("");
  if (n.str == "-nan") return -std::nan("");
  return std::nullopt;
}

}  // namespace

bool PartHeader::same_sweep(const PartHeader& o) const {
  return plan == o.plan && plan_digest == o.plan_digest && sets == o.sets && sweeps == o.sweeps && columns == o.columns &&
         pareto == o.pareto && as_of == o.as_of && overlays == o.overlays && version == o.version && shards == o.shards && points == o.points;
}

std::pair<std::size_t, std::size_t> shard_range(std::size_t points, std::size_t shard, std::size_t shards) {
  // points <= 20 million and shards <= 100,000: the product fits 64 bits.
  const auto cut = [&](std::size_t k) { return points * k / shards; };
  return {cut(shard - 1), cut(shard)};
}

std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
  const auto bad = [&]() -> UserError {
    return UserError{{"--shard: expected K/N, part K of N with 1 <= K <= N <= 100000, got \"" + printable(text) + "\"",
                      "e.g. --shard 2/8 evaluates the second eighth of the grid; `plan merge` joins the parts"}};
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw bad();
  std::size_t k = 0, n = 0;
  const char* b = text.data();
  const char* e = text.data() + text.size();
  const auto rk = std::from_chars(b, b + slash, k);
  const auto rn = std::from_chars(b + slash + 1, e, n);
  if (rk.ec != std::errc() || rk.ptr != b + slash || rn.ec != std::errc() || rn.ptr != e || k < 1 || n < 1 || k > n || n > 100000) throw bad();
  return {k, n};
}

std::string digest(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

void append_part_header(std::string& out, const PartHeader& h) {
  out += "{";
  append_json_string(out, kFormat);
  out += ": 1";
  append_member(out, "infracalc", h.version);
  append_member(out, "plan", h.plan);
  append_member(out, "plan_fnv1a64", h.plan_digest);
  append_member(out, "set", h.sets);
  append_member(out, "sweep", h.sweeps);
  append_member(out, "columns", h.columns);
  append_member(out, "pareto", h.pareto);
  append_member(out, "as_of", h.as_of);
  append_member(out, "overlays", h.overlays);
  out += fmt::format(", \"shard\": {}, \"shards\": {}, \"points\": {}, \"first\": {}, \"end\": {}}}\n", h.shard, h.shards, h.points, h.first, h.end);
}

void append_part_row(std::string& out, const SweepRow& r) {
  out += fmt::format("{{\"point\": {}, \"labels\": ", r.point);
  append_strings(out, r.labels);
  out += ", \"values\": [";
  for (std::size_t i = 0; i < r.values.size(); ++i) {
    if (i > 0) out += ", ";
    const auto& v = r.values[i];
    if (!v) {
      out += "null";
    } else if (const auto* q = std::get_if<Quantity>(&*v)) {
      // The value in base units with the exponents of its dimension: exact, whatever unit the output picks.
      out += "{\"base_value\": ";
      append_number(out, q->value);
      out += ", \"dim\": [";
      for (std::size_t k = 0; k < kBaseCount; ++k) out += fmt::format("{}{}", k > 0 ? ", " : "", static_cast<int>(q->dim.e[k]));
      out += q->point ? "], \"temperature_point\": true}" : "]}";
    } else {
      append_json_string(out, std::get<std::string>(*v));
    }
  }
  out += "]";
  append_key(out, "failed");
  append_json_string(out, r.failed);
  append_key(out, "error");
  append_json_string(out, r.error);
  out += "}\n";
}

void append_part_trailer(std::string& out, const PartTrailer& t) {
  out += fmt::format("{{\"end_of_part\": {{\"rows\": {}, \"points\": {}, \"checked\": {}, \"errored\": {}, \"first_error\": ", t.rows,
                     t.counts.points, t.counts.checked, t.counts.errored);
  append_json_string(out, t.counts.first_error);
  out += ", \"by_check\": {";
  for (std::size_t i = 0; i < t.counts.by_check.size(); ++i) {
    if (i > 0) out += ", ";
    append_json_string(out, t.counts.by_check[i].first);
    out += fmt::format(": {}", t.counts.by_check[i].second);
  }
  out += fmt::format("}}, \"runs\": {}, \"hits\": {}}}}}\n", t.runs, t.hits);
}

PartReader::PartReader(const std::string& path)
    : path_(path), f_(open_lines(path, "plan merge", "give the files `plan FILE --sweep ... --shard K/N` wrote")), reader_(f_, kMaxLine) {
  std::string line;
  if (reader_.next(line) != LineReader::Got::record) fail("empty, or not a sweep part");
  line_no_ = 1;
  auto doc = read_json(line, path_ + ":1");
  if (!doc || !doc->is_table() || doc->find(kFormat) == nullptr) fail("not a sweep part (its first line is not the header `plan --shard` writes)");
  const Node& h = *doc;
  const Node* format = h.find(kFormat);
  if (format->kind != Node::Kind::integer || format->integer != 1) fail("a sweep part of another format version");
  auto text = [&](std::string_view key) -> std::string {
    const Node* n = h.find(key);
    if (n == nullptr || n->kind != Node::Kind::string) fail("its header has no text \"" + std::string(key) + "\"");
    return n->str;
  };
  auto texts = [&](std::string_view key) {
    const Node* n = h.find(key);
    if (n == nullptr || n->kind != Node::Kind::array) fail("its header has no list \"" + std::string(key) + "\"");
    std::vector<std::string> out;
    for (const auto& i : n->items) {
      if (i.kind != Node::Kind::string) fail("its header's \"" + std::string(key) + "\" holds something other than text");
      out.push_back(i.str);
    }
    return out;
  };
  auto count = [&](std::string_view key) -> std::size_t {
    const auto n = count_at(h, key);
    if (!n) fail("its header has no count \"" + std::string(key) + "\"");
    return *n;
  };
  header_.version = text("infracalc");
  header_.plan = text("plan");
  header_.plan_digest = text("plan_fnv1a64");
  header_.sets = texts("set");
  header_.sweeps = texts("sweep");
  header_.columns = text("columns");
  header_.pareto = text("pareto");
  header_.as_of = text("as_of");
  header_.overlays = texts("overlays");
  header_.shard = count("shard");
  header_.shards = count("shards");
  header_.points = count("points");
  header_.first = count("first");
  header_.end = count("end");
  if (header_.shard < 1 || header_.shard > header_.shards || header_.points > 20'000'000 ||
      shard_range(header_.points, header_.shard, header_.shards) != std::pair{header_.first, header_.end})
    fail("its header's shard, points and range do not agree");
  next_point_ = header_.first;
}

PartReader::~PartReader() {
  if (f_ != nullptr) std::fclose(f_);
}

void PartReader::fail(const std::string& what) const {
  throw UserError{{"plan merge: " + printable(path_) + (line_no_ > 0 ? ":" + std::to_string(line_no_) : std::string()) + ": " + what,
                   "merge the unchanged files that `plan --shard K/N` wrote, one per shard"}};
}

bool PartReader::next(SweepRow& row, std::size_t axes, std::size_t columns) {
  std::string line;
  const auto got = reader_.next(line);
  ++line_no_;
  if (got == LineReader::Got::end) fail("ends without its last line: the shard did not finish (run it again)");
  if (got == LineReader::Got::error) fail("read error");
  if (got == LineReader::Got::too_long) fail(fmt::format("a line longer than {} MiB", kMaxLine >> 20));
  auto doc = read_json(line, path_ + ":" + std::to_string(line_no_));
  if (!doc) fail(doc.error().message);
  if (!doc->is_table()) fail("a line that is not a JSON object");
  if (const Node* t = doc->find("end_of_part")) {
    auto count = [&](std::string_view key) -> std::size_t {
      const auto n = count_at(*t, key);
      if (!n) fail("its last line has no count \"" + std::string(key) + "\"");
      return *n;
    };
    trailer_.rows = count("rows");
    trailer_.counts.points = count("points");
    trailer_.counts.checked = count("checked");
    trailer_.counts.errored = count("errored");
    trailer_.runs = count("runs");
    trailer_.hits = count("hits");
    const Node* first_error = t->find("first_error");
    const Node* by_check = t->find("by_check");
    if (first_error == nullptr || first_error->kind != Node::Kind::string || by_check == nullptr || !by_check->is_table())
      fail("its last line lacks first_error or by_check");
    trailer_.counts.first_error = first_error->str;
    for (const auto& [key, n] : by_check->members) {
      if (n.kind != Node::Kind::integer || n.integer < 0) fail("its last line counts a check with something other than a count");
      trailer_.counts.by_check.emplace_back(key, static_cast<std::size_t>(n.integer));
    }
    if (trailer_.rows != rows_read_) fail(fmt::format("its last line counts {} rows where the part holds {}", trailer_.rows, rows_read_));
    if (trailer_.counts.points != header_.end - header_.first) fail("its last line counts another number of points than its range holds");
    std::string rest;
    if (reader_.next(rest) != LineReader::Got::end) fail("lines after its last line");
    return false;
  }
  const Node* point = doc->find("point");
  const Node* labels = doc->find("labels");
  const Node* values = doc->find("values");
  const Node* failed = doc->find("failed");
  const Node* error = doc->find("error");
  if (point == nullptr || point->kind != Node::Kind::integer || labels == nullptr || labels->kind != Node::Kind::array || values == nullptr ||
      values->kind != Node::Kind::array || failed == nullptr || failed->kind != Node::Kind::string || error == nullptr ||
      error->kind != Node::Kind::string)
    fail("a row without point, labels, values, failed and error");
  if (point->integer < 0 || static_cast<std::size_t>(point->integer) < next_point_ || static_cast<std::size_t>(point->integer) >= header_.end)
    fail(fmt::format("point {} is out of order or outside the part's points {}..{}", point->integer, header_.first, header_.end - 1));
  if (labels->items.size() != axes || values->items.size() != columns)
    fail(fmt::format("a row of {} labels and {} values where the sweep has {} axes and {} columns", labels->items.size(), values->items.size(), axes,
                     columns));
  row = SweepRow{};
  row.point = static_cast<std::size_t>(point->integer);
  next_point_ = row.point + 1;
  ++rows_read_;
  for (const auto& l : labels->items) {
    if (l.kind != Node::Kind::string) fail("a label that is not text");
    row.labels.push_back(l.str);
  }
  for (const auto& v : values->items) {
    if (v.kind == Node::Kind::null) {
      row.values.emplace_back();
    } else if (v.kind == Node::Kind::string) {
      row.values.emplace_back(v.str);
    } else if (v.is_table()) {
      const Node* base = v.find("base_value");
      const Node* dim = v.find("dim");
      const Node* point_flag = v.find("temperature_point");
      const auto value = base != nullptr ? read_number(*base) : std::nullopt;
      if (!value || dim == nullptr || dim->kind != Node::Kind::array || dim->items.size() != kBaseCount ||
          (point_flag != nullptr && point_flag->kind != Node::Kind::boolean))
        fail("a value without base_value and the dim exponents");
      Quantity q;
      q.value = *value;
      for (std::size_t k = 0; k < kBaseCount; ++k) {
        const Node& e = dim->items[k];
        if (e.kind != Node::Kind::integer || e.integer < -64 || e.integer > 64) fail("a dimension exponent outside -64..64");
        q.dim.e[k] = static_cast<std::int8_t>(e.integer);
      }
      q.point = point_flag != nullptr && point_flag->boolean;
      row.values.emplace_back(q);
    } else {
      fail("a value that is neither null, text nor a quantity");
    }
  }
  row.failed = failed->str;
  row.error = error->str;
  return true;
}

}  // namespace infracalc::plan
