#include "documents/node.hpp"

#include <ctime>
#include <fmt/format.h>

namespace infracalc {

std::string Date::str() const { return valid() ? fmt::format("{:04d}-{:02d}-{:02d}", year, month, day) : ""; }

Date Date::parse(std::string_view t) {
  Date d;
  if (t.size() != 10 || t[4] != '-' || t[7] != '-') return {};
  auto num = [&](std::size_t pos, std::size_t len) {
    int v = 0;
    for (std::size_t i = pos; i < pos + len; ++i) {
      if (t[i] < '0' || t[i] > '9') return -1;
      v = v * 10 + (t[i] - '0');
    }
    return v;
  };
  d.year = num(0, 4);
  d.month = num(5, 2);
  d.day = num(8, 2);
  if (!d.calendar()) return {};
  return d;
}

int Date::days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return 0;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

bool Date::calendar() const { return year >= 1 && year <= 9999 && day >= 1 && day <= days_in_month(year, month); }

Date Date::today() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  return {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday};
}

const Node* Node::find(std::string_view key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

const Node* Node::at_path(std::string_view dotted) const {
  const Node* cur = this;
  while (cur != nullptr) {
    const auto dot = dotted.find('.');
    const Node* next = cur->find(dotted.substr(0, dot));
    if (dot == std::string_view::npos || next == nullptr) return next;
    dotted.remove_prefix(dot + 1);
    cur = next;
  }
  return nullptr;
}

std::string_view Node::kind_name() const {
  switch (kind) {
    case Kind::table: return "a table";
    case Kind::array: return "an array";
    case Kind::string: return "a string";
    case Kind::integer: return "an integer";
    case Kind::floating: return "a number";
    case Kind::boolean: return "a boolean";
    case Kind::date: return "a date";
    case Kind::null: return "null";
  }
  return "a value";
}

std::string position(std::string_view source, const Node& node) {
  return fmt::format("{}:{}:{}", source, node.line, node.column);
}

}  // namespace infracalc
