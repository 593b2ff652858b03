// The JSON reader on awkward documents: a byte-order mark, truncated input, non-ASCII bytes in errors.
#include <catch2/catch.hpp>

#include <string>

#include "documents/json.hpp"

using namespace infracalc;

namespace {
std::string json_error(const std::string& text) {
  auto n = read_json(text, "c.json");
  return n ? std::string("(parsed)") : n.error().message;
}
}  // namespace

TEST_CASE("a UTF-8 byte-order mark before the document is skipped", "[core][json]") {
  auto n = read_json("\xEF\xBB\xBF{\"hidden_size\": 8192}", "config.json");
  REQUIRE(n.ok());
  REQUIRE(n->find("hidden_size") != nullptr);
  CHECK(n->find("hidden_size")->integer == 8192);
  // Columns count from the first character after the mark.
  CHECK(json_error("\xEF\xBB\xBF{x}") == "c.json:1:2: expected a string key");
  // A mark anywhere else is an error, shown as a code point.
  CHECK(json_error("{\"a\": \xEF\xBB\xBF 1}") == "c.json:1:7: unexpected character 'U+FEFF'");
  CHECK(json_error("\xEF\xBB\xBF") == "c.json:1:1: unexpected end of input");
}

TEST_CASE("a truncated document says so", "[core][json]") {
  const std::string phrase = "the input ends before the JSON value is complete";
  for (const char* text : {"{", "{\"a\"", "{\"a\":", "{\"a\": 1", "{\"a\": 1,", "[", "[1", "[1,", "{\"a\": [1, {\"b\": 2",
                           "\"abc", "\"ab\\", "\"\\u12", "-", "1.", "1e", "1e+", "tr", "{\"a\": fals", "[nul", "{\"a\": \"\\ud83d"}) {
    INFO(text);
    CHECK_THAT(json_error(text), Catch::Contains(phrase));
  }
  CHECK_THAT(json_error("{\"a\": 1"), Catch::Contains("(inside an object)"));
  CHECK_THAT(json_error("[1, 2"), Catch::Contains("(inside an array)"));
  CHECK_THAT(json_error("{\"a\": \"x"), Catch::Contains("(inside a string)"));
  CHECK_THAT(json_error("[1."), Catch::Contains("(inside a number)"));
  auto n = read_json("{\"a\": ", "c.json");
  REQUIRE_FALSE(n.ok());
  CHECK_THAT(n.error().hint, Catch::Contains("cut short"));
  // Syntax errors that are not truncation keep their own words.
  CHECK(json_error("{\"a\" 1}") == "c.json:1:6: expected ':' after a key");
  CHECK(json_error("[1 2]") == "c.json:1:4: expected ',' or ']' in an array");
  CHECK(json_error("{\"a\": 1,}") == "c.json:1:9: expected a string key");
  CHECK(json_error("trux") == "c.json:1:1: unexpected character 't'");
  CHECK(json_error("") == "c.json:1:1: unexpected end of input");
}

TEST_CASE("errors never print raw non-ASCII or invalid bytes", "[core][json]") {
  CHECK(json_error("\xEF") == "c.json:1:1: unexpected character '\\xEF'");
  CHECK(json_error("{\"a\": \xFF}") == "c.json:1:7: unexpected character '\\xFF'");
  CHECK(json_error("[\xC3\xA9]") == "c.json:1:2: unexpected character 'U+00E9'");
  CHECK(json_error("[\x01]") == "c.json:1:2: unexpected character '\\x01'");
  CHECK(json_error("{\"caf\xC3\xA9\": 1, \"caf\xC3\xA9\": 2}") == "c.json:1:21: duplicate key \"cafU+00E9\"");
  CHECK(json_error("\"\\\xC3\xA9\"") == "c.json:1:4: unknown escape '\\\\xC3'");
  CHECK(json_error("\"a\xFF\"") == "c.json:1:3: invalid UTF-8 in a string (byte \\xFF): a broken or overlong sequence, a surrogate or a code "
                                  "point above U+10FFFF");
  // Valid UTF-8 inside strings still reads back unchanged.
  auto n = read_json("{\"name\": \"caf\xC3\xA9 \xF0\x9F\x98\x80\"}", "c.json");
  REQUIRE(n.ok());
  CHECK(n->find("name")->str == "caf\xC3\xA9 \xF0\x9F\x98\x80");
}

TEST_CASE("the JSON string escaper still replaces invalid UTF-8", "[core][json]") {
  std::string out;
  append_json_string(out, "ok \xC3\xA9 \xFF \x01 \"q\"");
  CHECK(out == "\"ok \xC3\xA9 \xEF\xBF\xBD \\u0001 \\\"q\\\"\"");
}
