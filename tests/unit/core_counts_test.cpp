// The checked count conversion (units/counts.hpp) and the plural and article helpers
// (host/words.hpp) the plugins' notes use.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "units/counts.hpp"
#include "host/words.hpp"
#include "units/expected.hpp"

using namespace infracalc;

namespace {

const CountOf kReplicas{"--target-rate", "replicas", "lower --target-rate"};

std::string count_error(double x, Rounding r = Rounding::up) {
  try {
    (void)whole_count(x, r, kReplicas);
  } catch (const UserError& e) {
    return e.error.text();
  }
  return "no error";
}

}  // namespace

TEST_CASE("whole_count rounds up and down, absorbing ratio noise", "[core][counts]") {
  CHECK(whole_count(21.6 / 21.6, Rounding::up, kReplicas) == 1);
  CHECK(whole_count(4.08, Rounding::up, kReplicas) == 5);
  CHECK(whole_count(4.08, Rounding::down, kReplicas) == 4);
  CHECK(whole_count(0.3 / 0.1, Rounding::down, kReplicas) == 3);  // 2.9999999999999996
  CHECK(whole_count((0.1 + 0.2) / 0.1, Rounding::up, kReplicas) == 3);  // 3.0000000000000004
  CHECK(whole_count(0.0, Rounding::up, kReplicas) == 0);
  // A large exact count is never moved by the slack.
  CHECK(whole_count(1e12 + 1, Rounding::up, kReplicas) == 1'000'000'000'001);
  CHECK(whole_count(9e15, Rounding::up, kReplicas) == 9'000'000'000'000'000);
}

TEST_CASE("whole_count names the input that drove an unrepresentable count", "[core][counts]") {
  CHECK(count_error(1e300) == "--target-rate: needs more than 9e15 replicas; hint: lower --target-rate");
  CHECK(count_error(std::numeric_limits<double>::infinity()).find("needs more than 9e15 replicas") != std::string::npos);
  CHECK(count_error(9.1e15).find("needs more than") != std::string::npos);
  CHECK(count_error(std::nan("")).find("not a number") != std::string::npos);
  CHECK(count_error(-2).find("negative number of replicas") != std::string::npos);
  CHECK_THROWS_AS(whole_int(3e9, Rounding::up, kReplicas), UserError);
  CHECK(whole_int(2.5, Rounding::up, kReplicas) == 3);
  CHECK(count_product(1'000'000, 8, kReplicas) == 8'000'000);
  CHECK_THROWS_AS(count_product(9'000'000'000'000'000, 8, kReplicas), UserError);
}

TEST_CASE("divisors_text lists the divisors for a hint", "[core][counts]") {
  CHECK(divisors_text(256) == "1, 2, 4, 8, 16, 32, 64, 128, 256");
  CHECK(divisors_text(7) == "1, 7");
  CHECK(divisors_text(9'000'000'000'000'000).find(", ..., 9000000000000000") != std::string::npos);
}

TEST_CASE("plural and article write the notes' English", "[core][words]") {
  CHECK(plural(1, "device") == "1 device");
  CHECK(plural(2, "device") == "2 devices");
  CHECK(plural(1024, "request") == "1,024 requests");
  CHECK(plural(3, "micro-batch", "micro-batches") == "3 micro-batches");
  CHECK(with_article("8192-token") == "an 8192-token");
  CHECK(with_article("4096-token") == "a 4096-token");
  CHECK(with_article("80 GB") == "an 80 GB");
  CHECK(with_article("11 GB") == "an 11 GB");
  CHECK(with_article("11,000-token") == "an 11,000-token");
  CHECK(with_article("18000-token") == "an 18000-token");
  CHECK(with_article("110 GB") == "a 110 GB");
  CHECK(with_article("1100 GB") == "a 1100 GB");
  CHECK(with_article("NVLink-class") == "an NVLink-class");
  CHECK(with_article("PCIe") == "a PCIe");
  CHECK(with_article("network") == "a network");
  CHECK(with_article("uniform") == "a uniform");
  CHECK(with_article("idle") == "an idle");
}
