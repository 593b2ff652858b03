#include "documents/json.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <cmath>
#include <fmt/format.h>

#include "units/charconv.hpp"
#include "units/printable.hpp"

namespace infracalc {

namespace {

class JsonParser {
 public:
  JsonParser(std::string_view s, std::string_view src) : s_(s), src_(src) {}

  Expected<Node> parse() {
    Node n;
    // A UTF-8 byte-order mark (editors on Windows write one) is not part of the document.
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = line_start_ = 3;
    skip_ws();
    if (!value(n, 0)) return err_;
    skip_ws();
    if (pos_ != s_.size()) return fail("unexpected text after the JSON value");
    return n;
  }

 private:
  Error fail(std::string_view what) {
    err_ = Error{fmt::format("{}:{}:{}: {}", src_, line_, pos_ - line_start_ + 1, what), "check the JSON syntax"};
    return err_;
  }
  bool bad(std::string_view what) {
    fail(what);
    return false;
  }
  // The document stopped inside `where` ("an object", "a string"): a truncated file, not a syntax slip.
  bool truncated(std::string_view where) {
    fail(fmt::format("the input ends before the JSON value is complete (inside {})", where));
    err_.hint = "the text looks cut short: check that the file or line was written completely";
    return false;
  }
  bool at_end() const { return pos_ >= s_.size(); }
  void skip_ws() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\n') {
        ++line_;
        line_start_ = pos_ + 1;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        break;
      }
      ++pos_;
    }
  }
  void mark(Node& n) const {
    n.line = line_;
    n.column = static_cast<int>(pos_ - line_start_ + 1);
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool value(Node& n, int depth) {
    if (depth > 64) return bad("nesting deeper than 64 levels");
    mark(n);
    if (at_end()) return bad("unexpected end of input");  // an empty document (objects and arrays check first)
    const char c = s_[pos_];
    if (c == '{') return object(n, depth);
    if (c == '[') return array(n, depth);
    if (c == '"') {
      n.kind = Node::Kind::string;
      return string(n.str);
    }
    if (literal("true")) {
      n.kind = Node::Kind::boolean;
      n.boolean = true;
      return true;
    }
    if (literal("false")) {
      n.kind = Node::Kind::boolean;
      return true;
    }
    if (literal("null")) {
      n.kind = Node::Kind::null;
      return true;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(n);
    for (std::string_view word : {"true", "false", "null"})
      if (word.substr(0, s_.size() - pos_) == s_.substr(pos_)) return truncated("a literal");  // "tr" at the end
    return bad("unexpected character '" + printable(s_.substr(pos_, std::max<std::size_t>(1, utf8_sequence_length(s_.substr(pos_))))) + "'");
  }

  // Whether `key` is already a member of `n`. Small objects are scanned; past kSmallObject members an index by
  // hash (member positions, since members move as the vector grows) keeps a 100,000-key object linear.
  static constexpr std::size_t kSmallObject = 16;
  static bool duplicate(const Node& n, const std::string& key, std::unordered_multimap<std::size_t, std::size_t>& seen) {
    if (n.members.size() < kSmallObject) {
      for (const auto& m : n.members)
        if (m.first == key) return true;
      return false;
    }
    const std::hash<std::string> hash;
    if (seen.empty())
      for (std::size_t i = 0; i < n.members.size(); ++i) seen.emplace(hash(n.members[i].first), i);
    const std::size_t h = hash(key);
    const auto [lo, hi] = seen.equal_range(h);
    for (auto it = lo; it != hi; ++it)
      if (n.members[it->second].first == key) return true;
    seen.emplace(h, n.members.size());
    return false;
  }

  bool object(Node& n, int depth) {
    std::unordered_multimap<std::size_t, std::size_t> seen;
    n.kind = Node::Kind::table;
    ++pos_;
    skip_ws();
    if (at_end()) return truncated("an object");
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return true;
    }
    // A batch record's objects hold three or four members: growing from one moved every member twice.
    n.members.reserve(4);
    for (;;) {
      skip_ws();
      if (at_end()) return truncated("an object");
      if (s_[pos_] != '"') return bad("expected a string key");
      std::string key;
      if (!string(key)) return false;
      if (duplicate(n, key, seen)) return bad("duplicate key \"" + printable(key) + "\"");
      skip_ws();
      if (at_end()) return truncated("an object");
      if (s_[pos_] != ':') return bad("expected ':' after a key");
      ++pos_;
      skip_ws();
      if (at_end()) return truncated("an object");
      n.members.push_back({std::move(key), Node{}});
      if (!value(n.members.back().second, depth + 1)) return false;
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return true;
      }
      return at_end() ? truncated("an object") : bad("expected ',' or '}' in an object");
    }
  }

  bool array(Node& n, int depth) {
    n.kind = Node::Kind::array;
    ++pos_;
    skip_ws();
    if (at_end()) return truncated("an array");
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return true;
    }
    for (;;) {
      skip_ws();
      if (at_end()) return truncated("an array");
      n.items.emplace_back();
      if (!value(n.items.back(), depth + 1)) return false;
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return true;
      }
      return at_end() ? truncated("an array") : bad("expected ',' or ']' in an array");
    }
  }

  bool number(Node& n) {
    const std::size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    auto digits = [&] {
      const std::size_t d = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ - d;
    };
    const std::size_t int_start = pos_;
    if (digits() == 0) return at_end() ? truncated("a number") : bad("expected digits");
    if (s_[int_start] == '0' && pos_ - int_start > 1) return bad("leading zeros are not allowed");
    bool integral = true;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      integral = false;
      if (digits() == 0) return at_end() ? truncated("a number") : bad("expected digits after '.'");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      integral = false;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (digits() == 0) return at_end() ? truncated("a number") : bad("expected digits in the exponent");
    }
    const std::string_view text = s_.substr(start, pos_ - start);
    double v = 0.0;
    const auto r = read_double(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || !std::isfinite(v)) return bad("number out of range");
    n.number = v;
    if (integral && std::fabs(v) < 9.2e18) {
      n.kind = Node::Kind::integer;
      std::from_chars(text.data(), text.data() + text.size(), n.integer);
    } else {
      n.kind = Node::Kind::floating;
    }
    return true;
  }

  static void put_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool hex4(std::uint32_t& cp) {
    if (pos_ + 4 > s_.size()) return truncated("a string");
    cp = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      cp <<= 4;
      if (c >= '0' && c <= '9') cp |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') cp |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') cp |= static_cast<std::uint32_t>(c - 'A' + 10);
      else return bad("bad hex digit in \\u escape");
    }
    return true;
  }

  bool string(std::string& out) {
    ++pos_;  // opening quote
    while (pos_ < s_.size()) {
      // A run of plain printable ASCII is appended in one piece.
      std::size_t run = pos_;
      while (run < s_.size()) {
        const auto b = static_cast<unsigned char>(s_[run]);
        if (b < 0x20 || b >= 0x80 || b == '"' || b == '\\') break;
        ++run;
      }
      if (run > pos_) {
        out.append(s_.data() + pos_, run - pos_);
        pos_ = run;
        if (pos_ >= s_.size()) break;
      }
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return bad("control character inside a string");
      if (c == '\\') {
        if (++pos_ >= s_.size()) return truncated("a string");
        const char e = s_[pos_++];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            std::uint32_t cp = 0;
            if (!hex4(cp)) return false;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              std::uint32_t lo = 0;
              if (at_end()) return truncated("a string");
              if (s_.substr(pos_, 2) != "\\u") return bad("unpaired surrogate in \\u escape");
              pos_ += 2;
              if (!hex4(lo) || lo < 0xDC00 || lo > 0xDFFF) return bad("bad low surrogate in \\u escape");
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
              return bad("unpaired surrogate in \\u escape");
            }
            put_utf8(out, cp);
            break;
          }
          default:
            return bad("unknown escape '\\" + printable(std::string_view(&e, 1)) + "'");
        }
        continue;
      }
      // Validate UTF-8 sequences so that bad bytes never reach the output.
      const std::size_t len = utf8_sequence_length(s_.substr(pos_));
      if (len == 0)
        return bad("invalid UTF-8 in a string (byte " + printable(s_.substr(pos_, 1)) +
                   "): a broken or overlong sequence, a surrogate or a code point above U+10FFFF");
      out.append(s_.substr(pos_, len));
      pos_ += len;
    }
    return truncated("a string");
  }

  std::string_view s_;
  std::string_view src_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::size_t line_start_ = 0;
  Error err_;
};

}  // namespace

Expected<Node> read_json(std::string_view text, std::string_view source_name) {
  return JsonParser(text, source_name).parse();
}

void append_json_string(std::string& out, std::string_view s) {
  // Fast path: plain printable ASCII (keys, units, ids) is copied in one piece.
  std::size_t plain = 0;
  // Eight bytes at a time: a word is plain when none of its bytes is a control byte, non-ASCII, '"' or '\\'
  // (the zero-byte tests of Anderson's "Bit Twiddling Hacks"; a hit only sends the word to the byte loop).
  constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  auto has_zero = [&](std::uint64_t v) { return (v - ones) & ~v & highs; };
  while (plain + 8 <= s.size()) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + plain, 8);
    if ((w & highs) | ((w - 0x20 * ones) & ~w & highs) | has_zero(w ^ (0x22 * ones)) | has_zero(w ^ (0x5C * ones))) break;
    plain += 8;
  }
  while (plain < s.size()) {
    const auto c = static_cast<unsigned char>(s[plain]);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
    ++plain;
  }
  // A result writes about a hundred strings, most of them short and plain: one append with the quotes.
  if (plain == s.size() && plain <= 62) {
    char quoted[64];
    quoted[0] = '"';
    if (plain != 0) std::memcpy(quoted + 1, s.data(), plain);
    quoted[plain + 1] = '"';
    out.append(quoted, plain + 2);
    return;
  }
  out += '"';
  out.append(s.data(), plain);
  for (std::size_t i = plain; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      default: break;
    }
    if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
      continue;
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
      continue;
    }
    const std::size_t len = utf8_sequence_length(s.substr(i));
    if (len == 0) {
      out += "\uFFFD";
      continue;
    }
    out.append(s.substr(i, len));
    i += len - 1;
  }
  out += '"';
}

}  // namespace infracalc
