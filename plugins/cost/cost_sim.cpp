#include "plugins/cost/cost_sim.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

namespace infracalc::cost {

namespace {

// splitmix64 (Steele, Lea and Flood, 2014): a small, seedable, platform-independent stream.
class Stream {
 public:
  explicit Stream(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  int between(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }

 private:
  std::uint64_t s_;
};

struct Request {
  int id;
  double arrival;  // s
  int prompt;
  int output;
  int generated = 0;
};

}  // namespace

TokensPerSecond batch_throughput(int batch, Seconds step_base, Seconds step_per_sequence) {
  return from_base<Tokens>(batch) / (step_base + step_per_sequence * static_cast<double>(batch));
}

ServeRun simulate_serving(const ServeConfig& cfg) {
  Stream rng(cfg.seed);
  std::deque<Request> queue;
  double t_arrive = 0.0;
  for (int i = 0; i < cfg.requests; ++i) {
    if (cfg.arrival_rate.value() > 0) t_arrive += -std::log1p(-rng.uniform()) / cfg.arrival_rate.value();
    queue.push_back({i, t_arrive, rng.between(cfg.prompt_min, cfg.prompt_max), rng.between(cfg.output_min, cfg.output_max)});
  }

  ServeRun run;
  run.request_cost.assign(static_cast<std::size_t>(cfg.requests), from_base<Usd>(0.0));
  for (const auto& r : queue) run.request_tokens.emplace_back(r.prompt, r.output);
  const double usd_per_s = cfg.gpu_hour.value();  // USD per second of accelerator time
  const double per_prompt_token_s = 1.0 / cfg.prefill_rate.value();
  double t = 0, prefill = 0, decode = 0, idle = 0, in_cost = 0, out_cost = 0, in_tok = 0, out_tok = 0, batch_sum = 0;
  std::vector<Request> active;
  int finished = 0;
  while (finished < cfg.requests) {
    // Admit arrived requests while there is room; each prompt is prefilled before decoding resumes.
    while (static_cast<int>(active.size()) < cfg.max_batch && !queue.empty() && queue.front().arrival <= t) {
      Request r = queue.front();
      queue.pop_front();
      auto& cost = run.request_cost[static_cast<std::size_t>(r.id)];
      for (int k = 0; k < r.prompt; ++k) {
        const double c = usd_per_s * per_prompt_token_s;
        cost += from_base<Usd>(c);
        in_cost += c;
        in_tok += 1;
      }
      const double dt = r.prompt * per_prompt_token_s;
      t += dt;
      prefill += dt;
      active.push_back(r);
    }
    if (active.empty()) {
      // Nothing to run: the accelerator waits (and is paid for) until the next arrival.
      const double next = queue.front().arrival;
      idle += next - t;
      t = next;
      continue;
    }
    // One decode step: every active sequence gets one token and an equal share of the step's time.
    const double b = static_cast<double>(active.size());
    const double dt = cfg.step_base.value() + cfg.step_per_sequence.value() * b;
    for (auto& r : active) {
      const double c = usd_per_s * dt / b;
      run.request_cost[static_cast<std::size_t>(r.id)] += from_base<Usd>(c);
      out_cost += c;
      out_tok += 1;
      r.generated += 1;
    }
    t += dt;
    decode += dt;
    batch_sum += b;
    run.steps += 1;
    const auto done = std::remove_if(active.begin(), active.end(), [](const Request& r) { return r.generated >= r.output; });
    finished += static_cast<int>(active.end() - done);
    active.erase(done, active.end());
  }
  run.wall = from_base<Seconds>(t);
  run.prefill_time = from_base<Seconds>(prefill);
  run.decode_time = from_base<Seconds>(decode);
  run.input_tokens = from_base<Tokens>(in_tok);
  run.output_tokens = from_base<Tokens>(out_tok);
  run.paid = from_base<Usd>(usd_per_s * t);
  run.input_cost = from_base<Usd>(in_cost);
  run.output_cost = from_base<Usd>(out_cost);
  run.idle_cost = from_base<Usd>(usd_per_s * idle);
  run.mean_batch = run.steps > 0 ? batch_sum / static_cast<double>(run.steps) : 0.0;
  return run;
}

}  // namespace infracalc::cost
