// The wording helpers: plurals for counts in notes and the article before a spoken number.
#include <catch2/catch.hpp>

#include "plugins/core/wording.hpp"

using namespace infracalc;

TEST_CASE("count_noun writes the singular only for one", "[wording]") {
  CHECK(count_noun(1, "tier") == "1 tier");
  CHECK(count_noun(2, "tier") == "2 tiers");
  CHECK(count_noun(0, "retry", "retries") == "0 retries");
  CHECK(count_noun(std::int64_t{16384}, "link") == "16384 links");
  CHECK(count_noun(1.0, "sample") == "1 sample");
  CHECK(count_noun(1.5, "accelerator") == "1.5 accelerators");
  CHECK(count_noun(1, "leaf", "leaves") == "1 leaf");
  CHECK(count_noun(3, "leaf", "leaves") == "3 leaves");
}

TEST_CASE("article_for_number follows how the number is spoken", "[wording]") {
  CHECK(article_for_number("8") == "an");
  CHECK(article_for_number("8.5") == "an");
  CHECK(article_for_number("80") == "an");
  CHECK(article_for_number("800 Gb/s") == "an");
  CHECK(article_for_number("11") == "an");
  CHECK(article_for_number("18") == "an");
  CHECK(article_for_number("18,000") == "an");
  CHECK(article_for_number("11000") == "an");
  CHECK(article_for_number("110") == "a");
  CHECK(article_for_number("1800") == "a");
  CHECK(article_for_number("7") == "a");
  CHECK(article_for_number("100") == "a");
  CHECK(article_for_number("0.8") == "a");
  CHECK(article_for_number("$8k") == "an");
  CHECK(article_for_number("") == "a");
}
