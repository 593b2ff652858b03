// The wording helpers of host/words.hpp: plurals for counts in notes and the article before a
// spoken number.
#include <catch2/catch.hpp>

#include "host/words.hpp"

using namespace infracalc;

TEST_CASE("plural writes the singular only for one", "[wording]") {
  CHECK(plural(1, "tier") == "1 tier");
  CHECK(plural(2, "tier") == "2 tiers");
  CHECK(plural(0, "retry", "retries") == "0 retries");
  CHECK(plural(std::int64_t{16384}, "link") == "16,384 links");
  CHECK(plural(1.0, "sample") == "1 sample");
  CHECK(plural(1.5, "accelerator") == "1.5 accelerators");
  CHECK(plural(1, "leaf", "leaves") == "1 leaf");
  CHECK(plural(3, "leaf", "leaves") == "3 leaves");
}

TEST_CASE("article follows how the number is spoken", "[wording]") {
  CHECK(article("8") == "an");
  CHECK(article("8.5") == "an");
  CHECK(article("80") == "an");
  CHECK(article("800 Gb/s") == "an");
  CHECK(article("11") == "an");
  CHECK(article("18") == "an");
  CHECK(article("18,000") == "an");
  CHECK(article("11000") == "an");
  CHECK(article("110") == "a");
  CHECK(article("1800") == "a");
  CHECK(article("7") == "a");
  CHECK(article("100") == "a");
  CHECK(article("0.8") == "a");
  CHECK(article("$8k") == "an");
  CHECK(article("") == "a");
}
