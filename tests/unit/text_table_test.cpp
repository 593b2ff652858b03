// The shared text writers: columns measured in code points, cut at a character boundary, Markdown escaped.
#include <catch2/catch.hpp>

#include "plan/text_table.hpp"

using namespace infracalc::writers;

TEST_CASE("aligned rows measure UTF-8 cells in code points and trim trailing spaces", "[writers]") {
  const std::string out = aligned_rows({{"step", "time"}, {"µ-batch", "1.2 µs"}, {"x", ""}}, {.indent = "  "});
  CHECK(out == "  step     time\n  µ-batch  1.2 µs\n  x\n");
  CHECK(display_width("1.2 µs") == 6);
}

TEST_CASE("aligned rows cap a column, and cut long cells at a character boundary when asked", "[writers]") {
  const std::string capped = aligned_rows({{"a-very-long-label", "1"}, {"b", "2"}}, {.widest = 4});
  CHECK(capped == "a-very-long-label1\nb     2\n");
  const std::string cut = aligned_rows({{"µµµµµµ", "1"}, {"b", "2"}}, {.widest = 4, .cut = true});
  CHECK(cut == "µµµ~  1\nb     2\n");
}

TEST_CASE("cells are escaped for the terminal before they are measured", "[writers]") {
  const std::string out = aligned_rows({{"a\x1b[31m", "1"}, {"b", "2"}}, {});
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find("\\x1B[31m  1") != std::string::npos);
}

TEST_CASE("Markdown tables escape the cell separator", "[writers]") {
  CHECK(md_table({"k", "v"}, {{"a|b", "1"}}) == "| k | v |\n|---|---|\n| a\\|b | 1 |\n");
  CHECK(bold("x\x1b", false) == "x\\x1B");
  CHECK(green("yes", true) == "\x1b[32myes\x1b[0m");
}
