// Input safety (issue 23, items 14, 16, 18, 19): the terminal escaper, strict UTF-8, the id grammar, calendar dates
// and spreadsheet cells. The command-line side is tests/cli/input_safety_test.sh and tests/bad-inputs/input-safety.toml.
#include <catch2/catch.hpp>

#include <random>

#include "plan/output.hpp"
#include "catalog/catalog.hpp"
#include "catalog/hf_import.hpp"
#include "documents/json.hpp"
#include "units/printable.hpp"

using namespace infracalc;

namespace {

// True when `s` is well-formed UTF-8 with no C0 control but those `allowed`, no DEL, no C1 control and no
// bidirectional control: what may reach a terminal.
bool terminal_safe(std::string_view s, std::string_view allowed = "") {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 && allowed.find(static_cast<char>(c)) == std::string_view::npos) return false;
    if (c == 0x7F) return false;
    const std::size_t len = utf8_sequence_length(s.substr(i));
    if (len == 0) return false;
    if (len > 1) {
      std::uint32_t cp = c & (0x7Fu >> len);
      for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
      if ((cp >= 0x80 && cp <= 0x9F) || cp == 0x61C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
          (cp >= 0x2066 && cp <= 0x2069))
        return false;
    }
    i += len;
  }
  return true;
}

}  // namespace

TEST_CASE("the terminal escaper leaves no control, bidi override or invalid UTF-8 (property)", "[safety]") {
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> byte(0, 255), length(0, 40);
  // Bytes that start the dangerous sequences, so that random text hits them often.
  const std::string seeds[] = {"\x1b]0;", "\x1b[2J", "\xe2\x80\xae", "\xe2\x81\xa6", "\xc2\x9b", "\x7f", "\xc0\xaf", "\xed\xa0\x80", "\n", "\t"};
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    for (int n = length(rng); n > 0; --n) {
      if (byte(rng) < 32) s += seeds[static_cast<std::size_t>(byte(rng)) % std::size(seeds)];
      else s += static_cast<char>(byte(rng));
    }
    const std::string text = printable(s, Keep::text);
    const std::string lines = printable(s, Keep::lines);
    const std::string ascii = printable(s);
    INFO("input bytes: " << printable(s));
    REQUIRE(terminal_safe(text));
    REQUIRE(terminal_safe(lines, "\n\t"));
    REQUIRE(terminal_safe(ascii));
    REQUIRE(std::all_of(ascii.begin(), ascii.end(), [](char c) { return c >= 0x20 && c < 0x7F; }));
    REQUIRE(text.find('\x1b') == std::string::npos);
    REQUIRE(terminal_safe(excerpt(s, 10)));
  }
}

TEST_CASE("the terminal escaper keeps printable text and names what it escapes", "[safety]") {
  CHECK(printable("caf\xC3\xA9 \xC3\x97 \xC2\xB5s", Keep::text) == "caf\xC3\xA9 \xC3\x97 \xC2\xB5s");  // é × µ stay
  CHECK(printable("\x1b]0;pwned\x07", Keep::text) == "\\x1B]0;pwned\\x07");
  CHECK(printable("a\xE2\x80\xAE" "b", Keep::text) == "aU+202Eb");
  CHECK(printable("\xE2\x81\xA6x\xE2\x81\xA9", Keep::text) == "U+2066xU+2069");
  CHECK(printable("\xC2\x9B" "31m\x7F", Keep::text) == "U+009B31m\\x7F");
  CHECK(printable("a\nb\tc", Keep::text) == "a\\x0Ab\\x09c");
  CHECK(printable("a\nb\tc\x1b", Keep::lines) == "a\nb\tc\\x1B");
  CHECK(excerpt("0123456789", 4) == "0123...");
  CHECK(excerpt("\xC3\xA9\xC3\xA9\xC3\xA9", 3) == "\xC3\xA9...");  // never cuts inside a character
}

TEST_CASE("UTF-8 is well formed only in its shortest form, without surrogates, up to U+10FFFF", "[safety]") {
  CHECK(utf8_sequence_length("\xC2\x80") == 2);
  CHECK(utf8_sequence_length("\xED\x9F\xBF") == 3);      // U+D7FF
  CHECK(utf8_sequence_length("\xEE\x80\x80") == 3);      // U+E000
  CHECK(utf8_sequence_length("\xF4\x8F\xBF\xBF") == 4);  // U+10FFFF
  CHECK(utf8_sequence_length("\xC0\xAF") == 0);          // overlong '/'
  CHECK(utf8_sequence_length("\xC1\xBF") == 0);
  CHECK(utf8_sequence_length("\xE0\x80\xAF") == 0);
  CHECK(utf8_sequence_length("\xF0\x80\x80\xAF") == 0);
  CHECK(utf8_sequence_length("\xED\xA0\x80") == 0);      // U+D800
  CHECK(utf8_sequence_length("\xED\xBF\xBF") == 0);      // U+DFFF
  CHECK(utf8_sequence_length("\xF4\x90\x80\x80") == 0);  // U+110000
  CHECK(utf8_sequence_length("\xF5\x80\x80\x80") == 0);
  for (const char* bad : {"\"\xC0\xAF\"", "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"", "\"\xE0\x80\x80\""}) {
    INFO(printable(bad));
    CHECK_FALSE(read_json(bad, "t.json").ok());
  }
  CHECK(read_json("\"\xF4\x8F\xBF\xBF \xED\x9F\xBF\"", "t.json").ok());
}

TEST_CASE("ids have one grammar", "[safety]") {
  for (const char* good : {"h100-sxm", "llama-3.1-8b", "qwen2.5-72b", "a", "x_y", "gpt-oss-20b", "b200"}) {
    INFO(good);
    CHECK(valid_id(good));
  }
  for (const char* bad : {"", "../x", "/abs/p", "a/b", "..", ".x", "x.", "a..b", "a.-b", "Upper", "a b", "a\nb", "a\x1b[2J", "-x", "x-",
                          "caf\xC3\xA9"}) {
    INFO(printable(bad));
    CHECK_FALSE(valid_id(bad));
  }
  CHECK_FALSE(valid_id(std::string(101, 'a')));
  CHECK(valid_id(std::string(100, 'a')));
  // Ids made from config names always follow it.
  auto id_of = [](const std::string& name) {
    auto n = read_json("{\"_name_or_path\": \"" + name + "\"}", "c.json");
    REQUIRE(n.ok());
    return hf_suggest_id(n.value(), "x");
  };
  CHECK(id_of("org/Llama..3_.x") == "llama-3-x");
  CHECK(id_of("org/A.B.C") == "a.b.c");
  CHECK(id_of("org/" + std::string(150, 'z')) == std::string(100, 'z'));
  CHECK(id_of("org/..") == "x");
}

TEST_CASE("dates are calendar days", "[safety]") {
  CHECK(Date::parse("2024-02-29").valid());
  CHECK_FALSE(Date::parse("2023-02-29").valid());
  CHECK_FALSE(Date::parse("2024-02-31").valid());
  CHECK_FALSE(Date::parse("2024-04-31").valid());
  CHECK_FALSE(Date::parse("0000-01-01").valid());
  CHECK(Date::parse("2000-02-29").valid());
  CHECK_FALSE(Date::parse("1900-02-29").valid());
  CHECK(Date::days_in_month(2100, 2) == 28);
}

TEST_CASE("spreadsheet text never starts a formula, and numbers stay numbers", "[safety]") {
  CHECK(writers::spreadsheet_text("=HYPERLINK(\"x\")") == "'=HYPERLINK(\"x\")");
  CHECK(writers::spreadsheet_text("+cmd") == "'+cmd");
  CHECK(writers::spreadsheet_text("-cmd|' /C calc'!A0") == "'-cmd|' /C calc'!A0");
  CHECK(writers::spreadsheet_text("@SUM(1)") == "'@SUM(1)");
  CHECK(writers::spreadsheet_text("-3.5") == "-3.5");
  CHECK(writers::spreadsheet_text("+1e3") == "+1e3");
  CHECK(writers::spreadsheet_text("-inf") == "'-inf");
  CHECK(writers::spreadsheet_text("h100-sxm") == "h100-sxm");
  CHECK(writers::spreadsheet_text("") == "");
  CHECK(writers::csv_cell("=a,b") == "\"'=a,b\"");
}
