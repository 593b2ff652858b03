// Request streams for the serving simulator: lengths fixed, from a list or a file, or drawn from a seeded
// distribution; arrival times all at once, a Poisson process, or from a trace file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "units/system.hpp"

namespace infracalc::serve {

/// One request.
struct Request {
  /// When it reaches the server (ignored in a closed loop, where users issue requests as answers return).
  Seconds arrival;
  /// Prompt tokens.
  std::int64_t prompt = 1;
  /// Output tokens to generate (at least 1; the first comes out of the prefill).
  std::int64_t output = 1;
};

/// How lengths are drawn around their means.
enum class LengthDist : std::uint8_t {
  fixed,        ///< every request exactly the mean
  uniform,      ///< uniform on [1, 2 × mean − 1] (the mean is kept)
  exponential,  ///< exponential with the mean, rounded up, at least 1
};

/// Parses "fixed", "uniform" or "exponential".
[[nodiscard]] LengthDist length_dist(const std::string& name);

/// `count` requests with lengths drawn around the means from a stream seeded by `seed` (the same seed
/// gives the same lengths whatever the arrival process), prompt + output clipped to `max_len`; all arrive
/// at t = 0.
[[nodiscard]] std::vector<Request> draw_requests(std::int64_t count, std::uint64_t seed, std::int64_t prompt_mean,
                                                 std::int64_t output_mean, LengthDist dist, std::int64_t max_len);

/// Sets arrival times of a Poisson process of `rate` requests per second (exponential gaps from their own
/// stream seeded by `seed`), the first arrival one gap after t = 0.
void poisson_arrivals(std::vector<Request>& requests, PerSecond rate, std::uint64_t seed);

/// A request list in the kv plugin's syntax (`PROMPT+OUTPUT`, `NxPROMPT+OUTPUT`, comma-separated or one per
/// line); arrivals are not part of it. `label` names the input in errors.
[[nodiscard]] std::vector<Request> parse_request_list(const std::string& text, const std::string& label);

/// A request file: the list syntax, or lines `PROMPT OUTPUT [ARRIVAL]` where ARRIVAL is a time with a unit
/// ("1.25s", "300ms"): a trace to replay. Either every line has an arrival or none does; `has_arrivals`
/// says which. '#' starts a comment.
[[nodiscard]] std::vector<Request> parse_request_file(const std::string& text, const std::string& label, bool& has_arrivals);

}  // namespace infracalc::serve
