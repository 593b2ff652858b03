// Whole counts computed from inputs (replicas, accelerators, nodes, blocks, steps): one checked way to turn
// a real-valued count into an integer, so an extreme input is a UserError naming it, never a wrapped or
// saturated integer in the output.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace infracalc {

/// The largest count a calculator turns into an integer or reports: a double holds every integer up to
/// 2^53 (about 9.007e15) exactly, and integer inputs have the same limit.
inline constexpr double kMaxCount = 9.0e15;

/// The most tokens a per-sequence token input may hold as an integer: far past any model's context, small
/// enough that sums and products of a few of them stay exact.
inline constexpr std::int64_t kMaxTokens = 1'000'000'000'000;

/// How a real-valued count becomes whole.
enum class Rounding : std::uint8_t {
  /// Round up: the physics needs the whole unit (a replica, an accelerator, a node).
  up,
  /// Round down: only whole units fit (sequences in a pool, replicas a pod holds).
  down,
};

/// What a count is and which input drove it, for the error when it cannot be represented.
struct CountOf {
  /// The input that drove the count, as the user typed it ("--target-rate").
  std::string_view driver;
  /// The counted things, plural ("replicas").
  std::string_view what;
  /// How to bring the count back into range.
  std::string_view hint;
};

/// `x` rounded as asked, a ratio within a relative 1e-9 of a whole number taken as that number (21.6 / 21.6
/// is one replica, not two). Throws UserError "<driver>: needs more than <most> <what>" when `x` is not
/// finite or the result exceeds `most`, and "<driver>: gives a negative number of <what>" below zero.
[[nodiscard]] std::int64_t whole_count(double x, Rounding r, const CountOf& of, double most = kMaxCount);

/// whole_count for a count the calculation holds in an int (at most 2^31 - 1, or `most` if lower).
[[nodiscard]] int whole_int(double x, Rounding r, const CountOf& of, double most = kMaxCount);

/// a x b for counts (replicas x devices per replica), checked against `most` like whole_count.
[[nodiscard]] std::int64_t count_product(std::int64_t a, std::int64_t b, const CountOf& of, double most = kMaxCount);

/// The divisors of `n` for a hint ("1, 2, 4, 8, 16, 32, 64, 128, 256"), cut short with ", ..., n" when long.
[[nodiscard]] std::string divisors_text(std::int64_t n);

}  // namespace infracalc
