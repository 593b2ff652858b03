// A small document tree (TOML or JSON) with source positions, so that only one translation unit
// includes toml++ and every reader reports `file:line:col`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace infracalc {

/// A calendar date (TOML local date), used for as-of dates.
struct Date {
  /// Year, e.g. 2024.
  int year = 0;
  /// Month 1–12.
  int month = 0;
  /// Day 1–31.
  int day = 0;

  /// True when set.
  [[nodiscard]] bool valid() const { return year > 0; }
  /// ISO 8601 text, "2024-07-23".
  [[nodiscard]] std::string str() const;
  /// True for a day of the Gregorian calendar from 0001-01-01 to 9999-12-31 (2024-02-29 is one, 2023-02-29
  /// and 2024-02-31 are not).
  [[nodiscard]] bool calendar() const;
  /// Days in a month of a year (28 to 31), by the Gregorian leap-year rule.
  static int days_in_month(int year, int month);
  /// Parses "YYYY-MM-DD" naming a calendar day; returns an invalid Date on failure (2024-02-31 included).
  static Date parse(std::string_view text);
  /// Today's date (UTC).
  static Date today();
  /// Chronological order.
  auto operator<=>(const Date&) const = default;
};

/// One node of a parsed document.
struct Node {
  /// A table member: key and value (named first/second so it reads like a map entry).
  struct Member;
  /// What the node holds.
  enum class Kind : std::uint8_t { table, array, string, integer, floating, boolean, date, null };
  /// The kind of this node.
  Kind kind = Kind::null;
  /// String value (kind string).
  std::string str;
  /// Numeric value (kind integer or floating; integers are also stored here).
  double number = 0.0;
  /// Integer value (kind integer).
  std::int64_t integer = 0;
  /// Boolean value.
  bool boolean = false;
  /// Date value.
  Date date;
  /// Members of a table, in document order.
  std::vector<Member> members;
  /// Items of an array.
  std::vector<Node> items;
  /// 1-based source line (0 when unknown).
  int line = 0;
  /// 1-based source column (0 when unknown).
  int column = 0;

  /// Member `key` of a table, or nullptr.
  [[nodiscard]] const Node* find(std::string_view key) const;
  /// Member at a dotted path ("peak.bf16_dense"), or nullptr.
  [[nodiscard]] const Node* at_path(std::string_view dotted) const;
  /// True for tables.
  [[nodiscard]] bool is_table() const { return kind == Kind::table; }
  /// True for integers and floats.
  [[nodiscard]] bool is_number() const { return kind == Kind::integer || kind == Kind::floating; }
  /// The kind in words, for error messages.
  [[nodiscard]] std::string_view kind_name() const;
};

struct Node::Member {
  /// The key.
  std::string first;
  /// The value.
  Node second;
};

/// "file:line:col" for a node in a named source.
[[nodiscard]] std::string position(std::string_view source, const Node& node);

}  // namespace infracalc
