// The TOML reader on characters beyond ASCII: kept in strings and comments, refused (with a position) where the
// parser expects a separator, since toml++ 3.3's whitespace test is undefined for most of them.
#include <catch2/catch.hpp>

#include <string>

#include "documents/toml_reader.hpp"

using namespace infracalc;

namespace {
std::string toml_error(const std::string& text) {
  auto n = read_toml(text, "m.toml");
  return n ? std::string("(parsed)") : n.error().message;
}
std::string string_of(const std::string& text, const char* key) {
  auto n = read_toml(text, "m.toml");
  REQUIRE(n.ok());
  const Node* v = n->find(key);
  REQUIRE(v != nullptr);
  return v->str;
}
}  // namespace

TEST_CASE("characters beyond ASCII stay in strings and comments", "[core][toml]") {
  CHECK(string_of("name = \"Ca\xC3\xA9 \xC2\xB2\" # \xC2\xB0\x43 and \xC3\x97\n", "name") == "Ca\xC3\xA9 \xC2\xB2");
  CHECK(string_of("name = 'lit \xC2\xB5s'\n", "name") == "lit \xC2\xB5s");
  CHECK(string_of("\"k\xC3\xA9y\" = 'v'\nname = \"\"\"a\xC2\xB2\n\xC3\xA9\"\"\"\n", "name") == "a\xC2\xB2\n\xC3\xA9");
  // Quotes and escapes inside strings do not end them early: the character after each is still inside.
  CHECK(string_of("name = \"q\\\"\xC2\xB2\"\n", "name") == "q\"\xC2\xB2");
  CHECK(string_of("name = '''a'\xC2\xB2'''\n", "name") == "a'\xC2\xB2");
  CHECK(string_of("name = \"\"\"a\"\"\"\"\"\nb = '\xC2\xB2'\n", "name") == "a\"\"");
  CHECK(string_of("name = \"\"\"a\\\n   b\xC2\xB2\"\"\"\n", "name") == "ab\xC2\xB2");
  CHECK(string_of("\xEF\xBB\xBFname = 'x'\n", "name") == "x");
}

TEST_CASE("a character beyond ASCII where a separator belongs is an error with its position", "[core][toml]") {
  // The reproducers fuzz_plan and fuzz_toml_catalog found (both reached toml++'s TOML_UNREACHABLE).
  CHECK(toml_error("[model]\nid \xC3\x94\"llama-3-70b\"\n") == "m.toml:2:4: character 'U+00D4' is outside a string or comment");
  CHECK(toml_error("kind\xC2\xB2 = 1\n") == "m.toml:1:5: character 'U+00B2' is outside a string or comment");
  CHECK(toml_error("a = 1 \xD0\x96\n") == "m.toml:1:7: character 'U+0416' is outside a string or comment");
  CHECK(toml_error("a = [1,\xEF\xB9\x90 2]\n") == "m.toml:1:8: character 'U+FE50' is outside a string or comment");
  // After the closing quote the parser is outside the string again; a comment ends at its line.
  CHECK(toml_error("a = \"x\"\xC2\xB2\n") == "m.toml:1:8: character 'U+00B2' is outside a string or comment");
  CHECK(toml_error("# \xC2\xB2\n\xC2\xB2 = 1\n") == "m.toml:2:1: character 'U+00B2' is outside a string or comment");
  // A quote inside a bare value opens no string: the parser reads 0"... and 1."... up to the next separator,
  // testing each character (the fuzz_toml_catalog reproducer `fp8_sparse =0"3957.8\xC2\xB2FLOP/s"`).
  CHECK(toml_error("a =0\"3957.8\xC2\xB2 TFLOP/s\"\n") == "m.toml:1:12: character 'U+00B2' is outside a string or comment");
  CHECK(toml_error("a = 1.\"\xC2\xB2\"\n") == "m.toml:1:8: character 'U+00B2' is outside a string or comment");
  CHECK(toml_error("a = true'\xC2\xB2'\n") == "m.toml:1:10: character 'U+00B2' is outside a string or comment");
  CHECK(toml_error("a = \"x\" \"\xC2\xB2\"\n") == "m.toml:1:10: character 'U+00B2' is outside a string or comment");
  // A bracket inside a bare value opens nothing either (8["..." is read as one value up to a separator).
  CHECK(toml_error("a =8[\"meta-ll\xC2\xB3oB\"]\n") == "m.toml:1:14: character 'U+00B3' is outside a string or comment");
  // Where a key or a value starts, a quote does open one: dotted keys, headers, arrays, inline tables.
  CHECK(string_of("a.\"b\xC3\xA9\" = 1\nname = [ {k = 1}, \n \"\xC3\xA9\" ]\n[\"t\xC3\xA9\"]\n", "name") == "");
  auto nested = read_toml("x = [[1, 2], ['\xC3\xA9']]\ny = { a.\"\xC3\xA9\" = \"\xC3\xA9\", b = ['\xC3\xA9'] }\n", "m.toml");
  CHECK(nested.ok());
  // Invalid UTF-8 outside a string is shown as a byte.
  CHECK(toml_error("a = 1\n\xFF\n") == "m.toml:2:1: character '\\xFF' is outside a string or comment");
  auto n = read_toml("k\xC3\xA9y = 1\n", "m.toml");
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().hint.find("inside quoted strings") != std::string::npos);
}

TEST_CASE("the two backslash positions in a multi-line string refuse characters beyond ASCII", "[core][toml]") {
  CHECK(toml_error("a = \"\"\"x\\\xC2\xB2\"\"\"\n") == "m.toml:1:10: character 'U+00B2' follows a backslash");
  CHECK(toml_error("a = \"\"\"x\\  \xC2\xB2\"\"\"\n") == "m.toml:1:12: character 'U+00B2' follows a backslash");
  CHECK(toml_error("a = \"\"\"x\\\n\n   \xC3\xA9" "clair\"\"\"\n") ==
        "m.toml:3:4: character 'U+00E9' is the first after a line-ending backslash");
  CHECK(toml_error("a = \"\"\"x\\\r\n\xC3\xA9\"\"\"\n") ==
        "m.toml:2:1: character 'U+00E9' is the first after a line-ending backslash");
  // In a single-line string, or a literal one, a backslash is harmless.
  CHECK(string_of("a = 'x\\\xC2\xB2'\n", "a") == "x\\\xC2\xB2");
  CHECK(toml_error("a = \"x\\\xC2\xB2\"\n").find("m.toml:1:") == 0);
}
