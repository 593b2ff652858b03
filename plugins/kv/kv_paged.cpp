#include "plugins/kv/kv_paged.hpp"
#include "documents/input_file.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <fstream>
#include <fmt/format.h>
#include <numeric>
#include <random>
#include <sstream>

#include "units/counts.hpp"
#include "units/expected.hpp"
#include "units/printable.hpp"

namespace infracalc::kv {

namespace {

struct Seq {
  PagedRequest req;
  std::int64_t generated = 0;
  std::vector<std::int32_t> blocks;
  bool swapped = false;  // preempted by swapping: its blocks are in host memory
  [[nodiscard]] std::int64_t tokens() const { return req.prompt + generated; }
};

class Scheduler {
 public:
  Scheduler(const std::vector<PagedRequest>& requests, const PagedConfig& config)
      : cfg_(config), pool_(config.blocks), order_(requests.size()) {
    seqs_.reserve(requests.size());
    for (const auto& r : requests) {
      Seq s;
      s.req = r;
      seqs_.push_back(std::move(s));
    }
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t a, std::size_t b) { return requests[a].arrival < requests[b].arrival; });
    report_.outcomes.resize(requests.size());
  }

  PagedReport run() {
    std::size_t done = 0;
    std::int64_t step = 0;
    while (done < seqs_.size()) {
      if (step >= cfg_.max_steps)
        throw UserError{{fmt::format("kv paged: the stream did not finish within {} steps", cfg_.max_steps),
                         "shorten the requests or give more blocks"}};
      if (running_.empty() && waiting_.empty() && next_ < order_.size())
        step = std::max(step, seqs_[order_[next_]].req.arrival);  // idle until the next arrival
      arrivals(step);
      const bool preempted = decode(step);
      if (!preempted) admit(step);
      sample(step);
      done += retire(step);
      ++step;
    }
    report_.pool = pool_.stats();
    return std::move(report_);
  }

 private:
  void event(std::int64_t step, const char* what, std::size_t r, std::int64_t blocks) {
    if (!cfg_.trace) return;
    report_.events.push_back({step, what, static_cast<std::int64_t>(r), blocks, pool_.used_blocks(), seqs_[r].tokens()});
  }

  void arrivals(std::int64_t step) {
    while (next_ < order_.size() && seqs_[order_[next_]].req.arrival <= step) {
      waiting_.push_back(order_[next_]);
      event(step, "arrive", order_[next_], 0);
      ++next_;
    }
  }

  // vLLM's default policy: the most recently admitted running sequence is preempted first, and goes back
  // to the front of the waiting queue.
  std::size_t preempt_last(std::int64_t step) {
    const std::size_t victim = running_.back();
    running_.pop_back();
    Seq& s = seqs_[victim];
    const auto n = static_cast<std::int64_t>(s.blocks.size());
    pool_.release(s.blocks);
    s.blocks.clear();
    if (cfg_.preemption == Preemption::swap) {
      s.swapped = true;
      report_.swapped_blocks += n;
    }
    ++report_.preemptions;
    ++report_.outcomes[victim].preemptions;
    waiting_.push_front(victim);
    event(step, "preempt", victim, -n);
    return victim;
  }

  // Every running sequence writes the K/V of one more token; a sequence whose last block is full needs a
  // new one first.
  bool decode(std::int64_t step) {
    bool preempted = false;
    for (std::size_t i = 0; i < running_.size(); ++i) {
      const std::size_t r = running_[i];
      Seq& s = seqs_[r];
      if (s.generated >= s.req.output) continue;  // admitted and finished earlier this step
      if (s.tokens() % cfg_.block_size == 0) {
        std::optional<std::int32_t> b = pool_.allocate();
        bool self_preempted = false;
        while (!b) {
          preempted = true;
          if (preempt_last(step) == r) {
            self_preempted = true;
            break;
          }
          b = pool_.allocate();
        }
        if (self_preempted) break;  // r was the last running sequence
        s.blocks.push_back(*b);
        ++s.generated;
        ++report_.generated_tokens;
        event(step, "grow", r, 1);
        continue;
      }
      ++s.generated;
      ++report_.generated_tokens;
    }
    return preempted;
  }

  // First come, first served: the head of the queue is admitted when its blocks are free (no skipping
  // ahead), as vLLM's FCFS scheduler does. A fresh or recomputed sequence is prefilled and produces one
  // token in the same step; a swapped-in sequence resumes decoding next step.
  void admit(std::int64_t step) {
    while (!waiting_.empty() && static_cast<std::int64_t>(running_.size()) < cfg_.max_running) {
      const std::size_t r = waiting_.front();
      Seq& s = seqs_[r];
      const bool swap_in = s.swapped;
      // A swapped-in sequence gets its blocks back and decodes next step; it is only let in when the block
      // for that next token is free too, so it is not preempted again at once.
      const std::int64_t need = blocks_for(s.tokens() + (swap_in ? 0 : 1), cfg_.block_size);
      if (pool_.free_blocks() < blocks_for(s.tokens() + 1, cfg_.block_size)) break;
      waiting_.pop_front();
      pool_.allocate_into(s.blocks, need);
      if (report_.outcomes[r].admitted < 0) report_.outcomes[r].admitted = step;
      if (swap_in) {
        s.swapped = false;
        event(step, "resume", r, need);
      } else {
        const bool resumed = s.generated > 0;
        if (resumed) report_.recomputed_tokens += s.tokens();
        ++s.generated;
        ++report_.generated_tokens;
        event(step, resumed ? "resume" : "admit", r, need);
      }
      running_.push_back(r);
    }
  }

  void sample(std::int64_t step) {
    std::int64_t tokens = 0;
    for (auto r : running_) tokens += seqs_[r].tokens();
    report_.samples.push_back({step, static_cast<std::int32_t>(running_.size()), static_cast<std::int32_t>(waiting_.size()),
                               pool_.used_blocks(), tokens});
  }

  std::size_t retire(std::int64_t step) {
    std::size_t finished = 0;
    std::vector<std::size_t> still;
    still.reserve(running_.size());
    for (auto r : running_) {
      Seq& s = seqs_[r];
      if (s.generated < s.req.output) {
        still.push_back(r);
        continue;
      }
      report_.final_slack_slots += static_cast<std::int64_t>(s.blocks.size()) * cfg_.block_size - s.tokens();
      const auto n = static_cast<std::int64_t>(s.blocks.size());
      pool_.release(s.blocks);
      s.blocks.clear();
      report_.outcomes[r].finished = step;
      event(step, "finish", r, -n);
      ++finished;
    }
    running_ = std::move(still);
    return finished;
  }

  PagedConfig cfg_;
  BlockAllocator pool_;
  std::vector<Seq> seqs_;
  std::vector<std::size_t> order_;
  std::size_t next_ = 0;
  std::deque<std::size_t> waiting_;
  std::vector<std::size_t> running_;
  PagedReport report_;
};

std::int64_t parse_count(const std::string& s, const std::string& label, const std::string& item, bool allow_zero) {
  std::size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty() || v < (allow_zero ? 0 : 1) || v > 1'000'000'000LL)
    throw UserError{{fmt::format("{}: \"{}\" is not a valid request (bad number \"{}\")", label, excerpt(item), excerpt(s)),
                     "write PROMPT+OUTPUT, PROMPT+OUTPUT@ARRIVAL or NxPROMPT+OUTPUT, e.g. 512+128,4x100+20@5"}};
  return v;
}

void parse_item(const std::string& raw, const std::string& label, std::vector<PagedRequest>& out) {
  std::string item;
  for (char c : raw)
    if (c != ' ' && c != '\t' && c != '\r') item += c;
  if (item.empty()) return;
  std::int64_t copies = 1;
  if (const auto x = item.find('x'); x != std::string::npos) {
    copies = parse_count(item.substr(0, x), label, raw, false);
    item = item.substr(x + 1);
  }
  PagedRequest r;
  if (const auto at = item.find('@'); at != std::string::npos) {
    r.arrival = parse_count(item.substr(at + 1), label, raw, true);
    item = item.substr(0, at);
  }
  const auto plus = item.find('+');
  if (plus == std::string::npos)
    throw UserError{{fmt::format("{}: \"{}\" has no '+' between prompt and output tokens", label, raw), "e.g. 512+128"}};
  r.prompt = parse_count(item.substr(0, plus), label, raw, true);
  r.output = parse_count(item.substr(plus + 1), label, raw, false);
  if (copies > 1'000'000 || out.size() + static_cast<std::size_t>(copies) > 1'000'000)
    throw UserError{{label + ": more than 1,000,000 requests", "simulate a smaller sample of the stream"}};
  out.insert(out.end(), static_cast<std::size_t>(copies), r);
}

// The raw 64-bit output of mt19937_64 is fixed by the standard, unlike its distributions, so the same seed
// gives the same stream with any standard library.
double unit_uniform(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

std::int64_t draw_length(std::mt19937_64& g, std::int64_t mean, LengthDistribution d) {
  switch (d) {
    case LengthDistribution::fixed: return mean;
    case LengthDistribution::uniform: return 1 + static_cast<std::int64_t>(unit_uniform(g) * static_cast<double>(2 * mean - 1));
    case LengthDistribution::exponential: {
      const double x = -static_cast<double>(mean) * std::log1p(-unit_uniform(g));
      return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(x)));
    }
  }
  return mean;
}

}  // namespace

PagedReport simulate_paged(const std::vector<PagedRequest>& requests, const PagedConfig& config) {
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto need = blocks_for(requests[i].prompt + requests[i].output, config.block_size);
    if (need > config.blocks)
      throw UserError{{fmt::format("kv paged: request {} ({} + {} tokens) needs {} blocks of {} tokens; the pool has {}", i + 1,
                                   requests[i].prompt, requests[i].output, need, config.block_size, config.blocks),
                       "give more --blocks (or --memory), or shorten the request"}};
  }
  return Scheduler(requests, config).run();
}

std::vector<PagedRequest> parse_requests(const std::string& text, const std::string& label) {
  std::vector<PagedRequest> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line = line.substr(0, hash);
    const bool whitespace_form = line.find('+') == std::string::npos && line.find_first_not_of(" \t\r") != std::string::npos;
    if (whitespace_form) {
      std::istringstream f(line);
      std::vector<std::string> parts;
      for (std::string p; f >> p;) parts.push_back(p);
      if (parts.size() < 2 || parts.size() > 3)
        throw UserError{{fmt::format("{}: \"{}\" should be PROMPT OUTPUT [ARRIVAL]", label, excerpt(line)), "e.g. 512 128 0"}};
      PagedRequest r;
      r.prompt = parse_count(parts[0], label, line, true);
      r.output = parse_count(parts[1], label, line, false);
      if (parts.size() == 3) r.arrival = parse_count(parts[2], label, line, true);
      out.push_back(r);
      continue;
    }
    std::size_t start = 0;
    while (start <= line.size()) {
      const auto comma = line.find(',', start);
      parse_item(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start), label, out);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (out.empty()) throw UserError{{label + ": no requests given", "e.g. 512+128,100+20@5"}};
  return out;
}

std::vector<PagedRequest> random_requests(std::int64_t count, std::uint64_t seed, std::int64_t prompt_mean,
                                          std::int64_t output_mean, LengthDistribution dist, double rate, std::int64_t max_len) {
  std::mt19937_64 g(seed);
  std::vector<PagedRequest> out;
  out.reserve(static_cast<std::size_t>(count));
  double t = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    PagedRequest r;
    r.prompt = std::min(draw_length(g, prompt_mean, dist), max_len - 1);
    r.output = std::min(draw_length(g, output_mean, dist), max_len - r.prompt);
    if (rate > 0) t += -std::log1p(-unit_uniform(g)) / rate;
    r.arrival = whole_count(t, Rounding::down, {"--arrival-rate", "steps before the last arrival", "a higher --arrival-rate"});
    out.push_back(r);
  }
  return out;
}

}  // namespace infracalc::kv

namespace infracalc::kv {

std::string read_requests_file(const std::string& path) {
  return read_input_file(path, "--requests-file", input_limits::request_trace).value_or_throw();
}

}  // namespace infracalc::kv
