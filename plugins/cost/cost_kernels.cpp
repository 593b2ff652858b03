// Reference kernels for cost: a serving run simulated by the serve plugin and accounted token by token against
// the per-token closed forms; a prompt cache with a lifetime walked request by request; agent tasks sampled
// attempt by attempt; a training run stepped hour by hour.
#include <cmath>
#include <fmt/format.h>

#include "plugins/cost/cost_ledger.hpp"
#include "plugins/cost/cost_math.hpp"
#include "plugins/cost/cost_plugin.hpp"
#include "plugins/serve/serve_math.hpp"
#include "units/bridge.hpp"

namespace infracalc {

namespace {

using namespace cost;

UsdPerHour per_hour(double usd) { return from_base<UsdPerHour>(usd / 3600.0); }
Tokens tok(double n) { return from_base<Tokens>(n); }
Seconds sec(double s) { return from_base<Seconds>(s); }

// Measured step times: 20 ms a decode step (the weights) + 0.4 ms per sequence (its KV), 20,000 prompt tokens/s.
const Seconds kStepBase = sec(0.020);
const Seconds kStepPerSequence = sec(0.0004);
const TokensPerSecond kPrefillRate = from_base<TokensPerSecond>(20000.0);

serve::LinearStepModel step_model() { return {kStepBase, kStepPerSequence, tok(1.0) / kPrefillRate}; }

std::vector<serve::Request> requests(int n, std::int64_t prompt, std::int64_t output) {
  std::vector<serve::Request> r(static_cast<std::size_t>(n));
  for (auto& q : r) {
    q.prompt = prompt;
    q.output = output;
  }
  return r;
}

std::vector<KernelCheck> run_serving(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const UsdPerHour gpu_hour = per_hour(2.20);
  const serve::LinearStepModel model = step_model();
  // Saturated: every request queued at t = 0, equal lengths, a whole number of batches: every decode step runs a
  // full batch, so each request's accounted cost must equal the per-token closed form exactly. The first output
  // token comes out of the prefill, so a 300-token answer takes 299 decode steps.
  serve::SimInput sat;
  sat.requests = requests(opt.quick ? 64 : 512, 1000, 300);
  serve::EngineConfig engine;
  engine.max_batch = 16;
  engine.step_tokens = 16000;
  const Ledger a = charge_run(sat, engine, model, gpu_hour);
  const UsdPerToken p_in = price_per_token(gpu_hour, 1.0, kPrefillRate, 1.0);
  const UsdPerToken p_out = price_per_token(gpu_hour, 1.0, serve::batch_throughput(16, kStepBase + 16.0 * kStepPerSequence), 1.0);
  const Usd closed = call_cost(tok(1000), p_in, tok(299), p_out);
  Usd worst = a.request_cost.front();  // the request furthest from the closed form
  for (const auto& c : a.request_cost)
    if (std::fabs((c - closed) / closed) > std::fabs((worst - closed) / closed)) worst = c;
  if (opt.trace)
    fmt::print(stderr, "serving (saturated): {} requests, {} steps, wall {:.1f} s, paid ${:.4f}\n", sat.requests.size(), a.run.steps.size(),
               a.wall.value(), a.paid.value());
  out.push_back({"cost of a 1,000-in / 300-out request at a full batch of 16 (299 decode steps)", to_quantity(closed), to_quantity(worst),
                 1e-9});
  out.push_back({"output price at a full batch of 16 (accounted / tokens)", to_quantity(p_out), to_quantity(a.output_cost / a.output_tokens),
                 1e-9});
  out.push_back({"input price at the prefill rate (accounted / tokens)", to_quantity(p_in), to_quantity(a.input_cost / a.input_tokens), 1e-9});

  // Poisson arrivals and mixed lengths: batches vary and the accelerator idles. Every paid second is either charged
  // to a token or idle, and the per-token price with utilisation must reproduce the whole bill.
  serve::SimInput mix;
  mix.requests = serve::draw_requests(opt.quick ? 300 : 3000, 7, 1600, 600, serve::LengthDist::uniform, 1 << 30);
  serve::poisson_arrivals(mix.requests, from_base<PerSecond>(0.6), 7);
  engine.max_batch = 24;
  engine.step_tokens = 8192;
  const Ledger b = charge_run(mix, engine, model, gpu_hour);
  if (opt.trace)
    fmt::print(stderr, "serving (mixed): {} requests, {} steps, utilisation {:.3f}, wall {:.0f} s\n", mix.requests.size(), b.run.steps.size(),
               b.utilisation(), b.wall.value());
  Usd per_request = from_base<Usd>(0.0);
  for (const auto& c : b.request_cost) per_request += c;
  out.push_back({"bill = tokens' charges + idle time (mixed run)", to_quantity(b.paid), to_quantity(per_request + b.idle_cost), 1e-9});
  // All of the paid time is spread over the output tokens by the closed form with busy throughput and utilisation.
  const TokensPerSecond busy_rate = b.output_tokens / (b.prefill_time + b.decode_time);
  out.push_back({"all-in price per output token with utilisation (mixed run)",
                 to_quantity(price_per_token(gpu_hour, 1.0, busy_rate, b.utilisation())), to_quantity(b.paid / b.output_tokens), 1e-9});
  return out;
}

// A prefix cache with a lifetime refreshed by every hit: walks the requests in time order and bills each one
// as a write (miss) or a read (hit).
struct CacheWalk {
  double cost = 0;
  int writes = 0;
};

CacheWalk walk_cache(const std::vector<double>& times, double lifetime, double prefix, double price, double read, double write) {
  CacheWalk w;
  double expires = -1;
  for (double t : times) {
    const bool hit = t <= expires;
    w.cost += prefix * price * (hit ? read : write);
    if (!hit) ++w.writes;
    expires = t + lifetime;
  }
  return w;
}

std::vector<KernelCheck> run_cache_walk(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  struct Provider {
    const char* name;
    double read, write;
  };
  const Provider providers[] = {{"125% write, 10% read", 0.10, 1.25}, {"100% write, 50% read", 0.50, 1.0}, {"120% write, 12% read", 0.12, 1.2}};
  const double prefix = 100000, price = 3e-6, lifetime = 300;
  for (const auto& pr : providers) {
    CachePricing p;
    p.input = from_base<UsdPerToken>(price);
    p.read_multiplier = pr.read;
    p.write_multiplier = pr.write;
    // Requests one minute apart stay inside the lifetime: one write, then reads.
    std::vector<double> times;
    for (int i = 0; i < 12; ++i) times.push_back(60.0 * i);
    const CacheWalk w = walk_cache(times, lifetime, prefix, price, pr.read, pr.write);
    out.push_back({fmt::format("12 requests one minute apart, {}", pr.name),
                   to_quantity(prefix_cost_cached(tok(prefix), 12, p, sec(0))), Quantity{w.cost, dims::currency}, 1e-12});
    // The smallest number of requests inside the lifetime for which caching is cheaper than sending the prefix each time.
    long walked = -1;
    for (int n = 1; n <= 100 && walked < 0; ++n) {
      std::vector<double> burst(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) burst[static_cast<std::size_t>(i)] = 10.0 * i;
      if (walk_cache(burst, lifetime, prefix, price, pr.read, pr.write).cost < n * prefix * price) walked = n;
    }
    out.push_back({fmt::format("break-even requests, {}", pr.name),
                   Quantity::number(static_cast<double>(break_even_requests(p, tok(prefix), sec(0)).value_or(-1))),
                   Quantity::number(static_cast<double>(walked)), 0.0});
  }
  // Gaps longer than the lifetime force rewrites: with one request every 6 minutes and a 5-minute lifetime every
  // request writes, so the closed form applies to runs of requests, not to the whole day.
  {
    std::vector<double> times;
    for (int i = 0; i < (opt.quick ? 50 : 500); ++i) times.push_back(360.0 * i);
    const CacheWalk w = walk_cache(times, lifetime, prefix, price, 0.1, 1.25);
    out.push_back({"requests 6 min apart with a 5 min lifetime: every one writes", Quantity::number(static_cast<double>(times.size())),
                   Quantity::number(w.writes), 0.0});
  }
  return out;
}

// Samples agent tasks: each attempt makes its calls one by one, carrying the growing history; an attempt fails
// with probability 1 - p, and a failure is retried up to R times.
std::vector<KernelCheck> run_agents(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const int tasks = opt.quick ? 20000 : 200000;
  struct Case {
    int steps;
    double p;
    int retries;
    bool full;
  };
  const Case cases[] = {{20, 0.35, 2, true}, {4, 0.9, 1, true}, {12, 0.6, 3, false}};
  const double prompt = 3000, output = 700, tool = 1200, in_price = 3e-6, out_price = 15e-6, tool_cost = 0.002;
  std::uint64_t state = 12345;
  auto uniform = [&]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;  // Knuth's MMIX LCG
    return static_cast<double>(state >> 11) * 0x1.0p-53;
  };
  for (const auto& c : cases) {
    // One attempt, call by call.
    double attempt = 0, context = prompt;
    for (int k = 1; k <= c.steps; ++k) {
      attempt += context * in_price + output * out_price + tool_cost;
      context = c.full ? context + output + tool : prompt + tool;
    }
    double sum = 0, sum2 = 0;
    int successes = 0;
    for (int t = 0; t < tasks; ++t) {
      double spent = 0;
      for (int a = 0; a <= c.retries; ++a) {
        spent += attempt;
        if (uniform() < c.p) {
          ++successes;
          break;
        }
      }
      sum += spent;
      sum2 += spent * spent;
    }
    const double mean = sum / tasks;
    const double sd = std::sqrt(std::max(0.0, sum2 / tasks - mean * mean));
    const double tol = 4.0 * sd / std::sqrt(static_cast<double>(tasks)) / mean;  // four standard errors
    CallPrices prices{from_base<UsdPerToken>(in_price), from_base<UsdPerToken>(out_price)};
    const Usd closed_attempt =
        attempt_cost(agent_steps(c.steps, tok(prompt), tok(output), tok(tool), c.full), prices, from_base<Usd>(tool_cost));
    out.push_back({fmt::format("cost of one {}-step attempt ({} history)", c.steps, c.full ? "full" : "no"), to_quantity(closed_attempt),
                   Quantity{attempt, dims::currency}, 1e-12});
    out.push_back({fmt::format("expected cost per task, {} steps, p = {:g}, {} retries ({} sampled)", c.steps, c.p, c.retries, tasks),
                   to_quantity(closed_attempt * expected_attempts(c.p, c.retries)), Quantity{mean, dims::currency}, tol});
    const double p_hat = static_cast<double>(successes) / tasks;
    const double p_true = success_probability(c.p, c.retries);
    out.push_back({fmt::format("success within {} retries, p = {:g}", c.retries, c.p), Quantity::number(p_true), Quantity::number(p_hat),
                   4.0 * std::sqrt(p_true * (1 - p_true) / tasks) / p_true});
  }
  return out;
}

// Steps a training run hour by hour until the work is done, paying for every accelerator each hour.
std::vector<KernelCheck> run_training(const KernelOptions& /*opt*/) {
  std::vector<KernelCheck> out;
  const double flops = 6.3e24, peak = 1e15, mfu = 0.4, gpus = 4096, price = 2.0;
  double done = 0, paid_hours = 0;
  while (done < flops) {
    const double step = std::min(1.0, (flops - done) / (gpus * peak * mfu * 3600.0));  // last hour may be partial
    done += gpus * peak * mfu * 3600.0 * step;
    paid_hours += gpus * step;
  }
  const Seconds closed = accelerator_time(from_base<Flops>(flops), from_base<FlopsPerSecond>(peak), mfu);
  out.push_back({"rent of 6.3e24 FLOP at 40% of 1 PFLOP/s, $2/h, 4,096 accelerators", to_quantity(rent(closed, per_hour(price), 1.0)),
                 Quantity{paid_hours * price, dims::currency}, 1e-9});
  out.push_back({"training rent: 1,000 accelerators for 30 days at $2.50/h",
                 to_quantity(rent(sec(30 * 86400.0) * 1000.0, per_hour(2.5), 1.0)), Quantity{1000 * 30 * 24 * 2.5, dims::currency}, 1e-12});
  return out;
}

}  // namespace

std::vector<Kernel> cost_kernels() {
  return {{"serving-ledger", "serve's continuous-batching simulation, GPU-seconds charged token by token, against the per-token prices",
           run_serving},
          {"cache-walk", "prompt cache with a refreshed lifetime walked request by request, against cached cost and break-even",
           run_cache_walk},
          {"agent-sampling", "agent tasks sampled attempt by attempt with retries, against expected cost and success", run_agents},
          {"train-steps", "a training run stepped hour by hour, paying every accelerator, against the rent", run_training}};
}

}  // namespace infracalc
