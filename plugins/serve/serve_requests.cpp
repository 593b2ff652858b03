#include "plugins/serve/serve_requests.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

#include "plugins/kernels/rng.hpp"
#include "plugins/kv/kv_paged.hpp"
#include "units/bridge.hpp"
#include "units/parse.hpp"
#include "units/printable.hpp"

namespace infracalc::serve {

namespace {

// Separate streams for lengths and arrival gaps, so a rate sweep keeps the same lengths (common random
// numbers: the curves it draws differ only by the rate).
constexpr std::uint64_t kArrivalStream = 0x5EEDA221A1ULL;

std::int64_t draw_length(kernels::Rng& g, std::int64_t mean, LengthDist d) {
  switch (d) {
    case LengthDist::fixed: return mean;
    case LengthDist::uniform: return 1 + static_cast<std::int64_t>(g.uniform() * static_cast<double>(2 * mean - 1));
    case LengthDist::exponential: {
      const double x = -static_cast<double>(mean) * std::log1p(-g.uniform());
      return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(x)));
    }
  }
  return mean;
}

Request from_kv(const kv::PagedRequest& r, const std::string& label) {
  if (r.arrival != 0)
    throw UserError{{label + ": '@ARRIVAL' steps are not times",
                     "serve simulate takes arrivals from --rate, --users or a file of PROMPT OUTPUT TIME lines (e.g. 512 128 1.5s)"}};
  if (r.prompt < 1) throw UserError{{label + ": a request needs a prompt of at least one token", "e.g. 512+128"}};
  Request q;
  q.prompt = r.prompt;
  q.output = r.output;
  return q;
}

std::int64_t parse_count(const std::string& s, const std::string& label, const std::string& line, std::int64_t least) {
  std::size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || v < least || v > 1'000'000'000LL)
    throw UserError{{fmt::format("{}: \"{}\" is not a valid request (bad count \"{}\")", label, excerpt(line), excerpt(s)),
                     "write PROMPT OUTPUT [ARRIVAL], e.g. 512 128 0.25s"}};
  return v;
}

}  // namespace

LengthDist length_dist(const std::string& name) {
  if (name == "uniform") return LengthDist::uniform;
  if (name == "exponential") return LengthDist::exponential;
  return LengthDist::fixed;
}

std::vector<Request> draw_requests(std::int64_t count, std::uint64_t seed, std::int64_t prompt_mean, std::int64_t output_mean,
                                   LengthDist dist, std::int64_t max_len) {
  kernels::Rng g(seed);
  std::vector<Request> out;
  out.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    Request r;
    r.prompt = std::min(draw_length(g, prompt_mean, dist), max_len - 1);
    r.output = std::min(draw_length(g, output_mean, dist), max_len - r.prompt);
    out.push_back(r);
  }
  return out;
}

void poisson_arrivals(std::vector<Request>& requests, PerSecond rate, std::uint64_t seed) {
  kernels::Rng g(seed ^ kArrivalStream);
  double t = 0;
  for (auto& r : requests) {
    t += -std::log1p(-g.uniform()) / rate.value();
    r.arrival = from_base<Seconds>(t);
  }
}

std::vector<Request> parse_request_list(const std::string& text, const std::string& label) {
  std::vector<Request> out;
  for (const auto& r : kv::parse_requests(text, label)) out.push_back(from_kv(r, label));
  return out;
}

std::vector<Request> parse_request_file(const std::string& text, const std::string& label, bool& has_arrivals) {
  std::vector<Request> out;
  int timed = 0, untimed = 0;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (const auto hash = line.find('#'); hash != std::string::npos) line = line.substr(0, hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{}:{}", label, number);
    if (line.find('+') != std::string::npos) {
      for (const auto& r : kv::parse_requests(line, where)) out.push_back(from_kv(r, where));
      untimed += 1;
      continue;
    }
    std::istringstream f(line);
    std::vector<std::string> parts;
    for (std::string p; f >> p;) parts.push_back(p);
    if (parts.size() < 2 || parts.size() > 3)
      throw UserError{{fmt::format("{}: \"{}\" should be PROMPT OUTPUT [ARRIVAL]", where, excerpt(line)), "e.g. 512 128 0.25s"}};
    Request r;
    r.prompt = parse_count(parts[0], where, line, 1);
    r.output = parse_count(parts[1], where, line, 1);
    if (parts.size() == 3) {
      // A file may hold anything: an error quotes at most a short, escaped prefix of it.
      if (parts[2].size() > 40)
        throw UserError{{fmt::format("{}: arrival \"{}\" is not a time", where, excerpt(parts[2])), "e.g. 0.25s"}};
      auto q = parse_input(parts[2], Expectation{dims::time, false}, where + " arrival");
      if (!q) throw UserError{q.error()};
      if (!(q->value >= 0) || !std::isfinite(q->value))
        throw UserError{{fmt::format("{}: arrival \"{}\" must be a time of zero or more", where, excerpt(parts[2])), "e.g. 0.25s"}};
      r.arrival = from_base<Seconds>(q->value);
      ++timed;
    } else {
      ++untimed;
    }
    out.push_back(r);
  }
  if (out.empty()) throw UserError{{label + ": no requests in the file", "one request per line: PROMPT OUTPUT [ARRIVAL], e.g. 512 128 0.25s"}};
  if (timed > 0 && untimed > 0)
    throw UserError{{label + ": some lines give an arrival time and some do not", "give every line a time (a trace to replay) or none"}};
  if (out.size() > 1'000'000) throw UserError{{label + ": more than 1,000,000 requests", "simulate a smaller sample"}};
  has_arrivals = timed > 0;
  if (has_arrivals)
    std::stable_sort(out.begin(), out.end(), [](const Request& a, const Request& b) { return a.arrival < b.arrival; });
  return out;
}

}  // namespace infracalc::serve
