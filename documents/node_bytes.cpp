#include "documents/node_bytes.hpp"

#include <bit>
#include <cstdint>

namespace infracalc {

namespace {

// Format: a version byte, then each node depth-first as its kind, a byte saying which of its other fields differ from
// their defaults, its line and column, and those fields alone: string, number (8 bytes), integer (8 bytes), date,
// members (count, then each key and node), items (count, then each node). Counts, lengths and positions are
// LEB128 varints, signed ones zigzag-encoded.
constexpr unsigned char kVersion = 2;
enum Field : unsigned char { kStr = 1, kNumber = 2, kInteger = 4, kTrue = 8, kDate = 16, kMembers = 32, kItems = 64 };
// Far deeper than any data file: a damaged tree is refused before its nesting can exhaust the stack.
constexpr int kMaxDepth = 256;

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_signed(std::string& out, std::int64_t v) {
  put_varint(out, (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
}

void put_fixed(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void put_text(std::string& out, std::string_view s) {
  put_varint(out, s.size());
  out.append(s);
}

void put_node(std::string& out, const Node& n) {
  const std::uint64_t number = std::bit_cast<std::uint64_t>(n.number);
  const bool date = n.date.year != 0 || n.date.month != 0 || n.date.day != 0;
  const unsigned char fields = (n.str.empty() ? 0 : kStr) | (number == 0 ? 0 : kNumber) | (n.integer == 0 ? 0 : kInteger) |
                               (n.boolean ? kTrue : 0) | (date ? kDate : 0) | (n.members.empty() ? 0 : kMembers) |
                               (n.items.empty() ? 0 : kItems);
  out.push_back(static_cast<char>(n.kind));
  out.push_back(static_cast<char>(fields));
  put_signed(out, n.line);
  put_signed(out, n.column);
  if (fields & kStr) put_text(out, n.str);
  if (fields & kNumber) put_fixed(out, number);
  if (fields & kInteger) put_fixed(out, static_cast<std::uint64_t>(n.integer));
  if (fields & kDate) {
    put_signed(out, n.date.year);
    put_signed(out, n.date.month);
    put_signed(out, n.date.day);
  }
  if (fields & kMembers) {
    put_varint(out, n.members.size());
    for (const auto& m : n.members) {
      put_text(out, m.first);
      put_node(out, m.second);
    }
  }
  if (fields & kItems) {
    put_varint(out, n.items.size());
    for (const auto& item : n.items) put_node(out, item);
  }
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : s_(bytes) {}

  bool node(Node& n, int depth) {
    if (depth > kMaxDepth || s_.size() - at_ < 2) return false;
    const auto kind = static_cast<unsigned char>(s_[at_++]);
    const auto fields = static_cast<unsigned char>(s_[at_++]);
    if (kind > static_cast<unsigned char>(Node::Kind::null) || fields >= 128) return false;
    n.kind = static_cast<Node::Kind>(kind);
    std::int64_t line = 0, column = 0;
    if (!small(line) || !small(column)) return false;
    n.line = static_cast<int>(line);
    n.column = static_cast<int>(column);
    std::uint64_t number = 0, integer = 0, count = 0;
    if ((fields & kStr) && !text(n.str)) return false;
    if ((fields & kNumber) && !fixed(number)) return false;
    if ((fields & kInteger) && !fixed(integer)) return false;
    n.number = std::bit_cast<double>(number);
    n.integer = static_cast<std::int64_t>(integer);
    n.boolean = (fields & kTrue) != 0;
    if (fields & kDate) {
      std::int64_t year = 0, month = 0, day = 0;
      if (!small(year) || !small(month) || !small(day)) return false;
      n.date = Date{static_cast<int>(year), static_cast<int>(month), static_cast<int>(day)};
    }
    if (fields & kMembers) {
      if (!varint(count) || count > s_.size() - at_) return false;
      n.members.resize(static_cast<std::size_t>(count));
      for (auto& m : n.members)
        if (!text(m.first) || !node(m.second, depth + 1)) return false;
    }
    if (fields & kItems) {
      if (!varint(count) || count > s_.size() - at_) return false;
      n.items.resize(static_cast<std::size_t>(count));
      for (auto& item : n.items)
        if (!node(item, depth + 1)) return false;
    }
    return true;
  }

  [[nodiscard]] bool version() { return at_ < s_.size() && static_cast<unsigned char>(s_[at_++]) == kVersion; }
  [[nodiscard]] bool done() const { return at_ == s_.size(); }

 private:
  bool varint(std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= s_.size()) return false;
      const auto b = static_cast<unsigned char>(s_[at_++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  // A zigzag varint that fits an int (positions and date fields).
  bool small(std::int64_t& v) {
    std::uint64_t u = 0;
    if (!varint(u)) return false;
    v = static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1);
    return v >= INT32_MIN && v <= INT32_MAX;
  }
  bool fixed(std::uint64_t& v) {
    if (s_.size() - at_ < 8) return false;
    v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s_[at_ + i])) << (8 * i);
    at_ += 8;
    return true;
  }
  bool text(std::string& out) {
    std::uint64_t n = 0;
    if (!varint(n) || n > s_.size() - at_) return false;
    out.assign(s_.data() + at_, static_cast<std::size_t>(n));
    at_ += static_cast<std::size_t>(n);
    return true;
  }

  std::string_view s_;
  std::size_t at_ = 0;
};

}  // namespace

std::string node_to_bytes(const Node& node) {
  std::string out;
  out.push_back(static_cast<char>(kVersion));
  put_node(out, node);
  return out;
}

Expected<Node> node_from_bytes(std::string_view bytes) {
  Reader r(bytes);
  Node n;
  if (!r.version() || !r.node(n, 0) || !r.done())
    return Error{"a stored document tree is damaged or from another version", "rebuild infracalc (its data is embedded at build time)"};
  return n;
}

}  // namespace infracalc
