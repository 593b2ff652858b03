// The serve simulator, its step model and its closed forms.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "catalog/model_arch.hpp"
#include "plugins/decode/decode_math.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/serve/serve_math.hpp"
#include "plugins/serve/serve_requests.hpp"
#include "plugins/serve/serve_sim.hpp"
#include "plugins/serve/serve_stats.hpp"
#include "units/parse.hpp"

using namespace infracalc;
using namespace infracalc::serve;

namespace {

Seconds sec(double s) { return from_base<Seconds>(s); }

decode::Workload sim_workload(const char* id) {
  const Entry* e = Catalog::instance().find(id);
  REQUIRE(e != nullptr);
  auto arch = read_model_arch(*e);
  REQUIRE(arch);
  const StorageFormat& bf16 = *find_storage_format("bf16");
  return decode::workload_from_arch(*arch, bf16, bf16);
}

decode::Roof h100() { return {from_base<BytesPerSecond>(3.35e12), from_base<FlopsPerSecond>(989.4e12)}; }

RooflineStepModel llama() { return {sim_workload("llama-3.1-8b"), h100(), 1, std::nullopt, from_base<Bytes>(2.0), Seconds{}}; }

// A step model that prices every step sequence by sequence: the reference the grouped pricing must equal.
class Listed final : public StepModel {
 public:
  explicit Listed(const StepModel& m) : m_(m) {}
  [[nodiscard]] Seconds time(std::span<const SeqWork> work) const override { return m_.time(work); }

 private:
  const StepModel& m_;
};

void same_run(const SimResult& a, const SimResult& b) {
  REQUIRE(a.requests.size() == b.requests.size());
  for (std::size_t i = 0; i < a.requests.size(); ++i) {
    const RequestOutcome &x = a.requests[i], &y = b.requests[i];
    CHECK(x.scheduled.value() == y.scheduled.value());
    CHECK(x.first_token.value() == y.first_token.value());
    CHECK(x.last_token.value() == y.last_token.value());
    CHECK(x.done.value() == y.done.value());
    CHECK(x.preemptions == y.preemptions);
  }
  REQUIRE(a.steps.size() == b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    const StepSample &x = a.steps[i], &y = b.steps[i];
    CHECK((x.duration == y.duration && x.running == y.running && x.waiting == y.waiting && x.decoding == y.decoding &&
           x.prefill_tokens == y.prefill_tokens && x.blocks_used == y.blocks_used && x.kv_tokens == y.kv_tokens));
  }
  CHECK(a.makespan.value() == b.makespan.value());
  CHECK(a.preemptions == b.preemptions);
  CHECK(a.recomputed_tokens == b.recomputed_tokens);
  CHECK(a.swapped_blocks == b.swapped_blocks);
  CHECK(a.pool.reuses == b.pool.reuses);
  CHECK(a.pool.peak_used == b.pool.peak_used);
}

std::vector<Request> fixed(int n, std::int64_t p, std::int64_t o) {
  std::vector<Request> r(static_cast<std::size_t>(n));
  for (auto& q : r) {
    q.prompt = p;
    q.output = o;
  }
  return r;
}

}  // namespace

TEST_CASE("the step model matches decode's step formulas", "[serve][step]") {
  for (const char* id : {"llama-3.1-8b", "gemma-3-27b", "deepseek-v3", "mistral-7b"}) {
    const decode::Workload w = sim_workload(id);
    for (int tp : {1, 2}) {
      const RooflineStepModel m(w, h100(), tp, std::nullopt, from_base<Bytes>(2.0), Seconds{});
      for (double ctx : {0.0, 1.0, 4095.0, 30000.0}) {
        const std::vector<SeqWork> batch(7, SeqWork{static_cast<std::int64_t>(ctx), 1, false});
        const auto a = decode::decode_step(w, 7, from_base<Tokens>(ctx), tp).cost();
        const auto b = m.detail(batch).cost();
        CHECK(b.bytes.value() == Approx(a.bytes.value()).epsilon(1e-12));
        CHECK(b.flops.value() == Approx(a.flops.value()).epsilon(1e-12));
        // The time is decode's step_time on the same cost.
        CHECK(m.time(batch).value() == Approx(decode::step_time(a, h100()).total.value()).epsilon(1e-12));
      }
      for (double n : {1.0, 100.0, 5000.0}) {
        const std::vector<SeqWork> p(2, SeqWork{0, static_cast<std::int64_t>(n), true});
        const auto a = decode::prefill_step(w, 2, from_base<Tokens>(n), true, tp).cost();
        const auto b = m.detail(p).cost();
        CHECK(b.bytes.value() == Approx(a.bytes.value()).epsilon(1e-12));
        CHECK(b.flops.value() == Approx(a.flops.value()).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("a mixed step costs its parts' reads and arithmetic with one weight read", "[serve][step]") {
  const RooflineStepModel m = llama();
  const std::vector<SeqWork> mixed = {{500, 1, false}, {2000, 1, false}, {0, 256, true}};
  const auto d = m.detail(mixed);
  const auto one = [&](SeqWork s) { return m.detail(std::span<const SeqWork>(&s, 1)); };
  const auto a = one(mixed[0]), b = one(mixed[1]), c = one(mixed[2]);
  CHECK(d.kv_read.value() == Approx((a.kv_read + b.kv_read + c.kv_read).value()));
  CHECK(d.attention_flops.value() == Approx((a.attention_flops + b.attention_flops + c.attention_flops).value()));
  // Dense: the same matrices whatever the tokens, plus one input-embedding row looked up per token.
  CHECK(d.weights.value() == Approx((a.weights + 257.0 * m.workload().embedding_row).value()));
  CHECK(d.matmul_flops.value() == Approx(258 * a.matmul_flops.value()));
  CHECK(m.time({}).value() == 0);
}

TEST_CASE("static batching leaves 1,950 decode slots idle", "[serve][sim]") {
  const LinearStepModel step(sec(0.01), Seconds{}, Seconds{});
  EngineConfig e;
  e.batching = Batching::static_batch;
  e.max_batch = 2;
  SimInput in;
  in.requests = {{Seconds{}, 100, 50}, {Seconds{}, 100, 2000}};
  const SimResult r = simulate(in, e, step);
  CHECK(r.idle_slot_steps == 1950);
  CHECK(r.batch_slot_steps == 4000);
  CHECK(r.output_tokens == 2050);
  CHECK(r.requests[0].last_token.value() == Approx(0.49));
  CHECK(r.requests[0].done.value() == Approx(19.99));  // returned with its batch
  // Continuous batching returns the short answer as soon as it is done, and pads nothing.
  e.batching = Batching::continuous;
  const SimResult c = simulate(in, e, step);
  CHECK(c.idle_slot_steps == 0);
  CHECK(c.requests[0].done.value() == Approx(0.49));
}

TEST_CASE("static batches form first come, first served within the KV pool", "[serve][sim]") {
  const LinearStepModel step(sec(0.01), Seconds{}, Seconds{});
  EngineConfig e;
  e.batching = Batching::static_batch;
  e.max_batch = 8;
  e.kv_blocks = 10;  // 160 tokens: two slots of 60 + 20 padded length (5 blocks each)
  e.block_size = 16;
  SimInput in;
  in.requests = fixed(6, 60, 20);
  const SimResult r = simulate(in, e, step);
  CHECK(r.batches == 3);
  CHECK(r.peak_running == 2);
  CHECK(r.pool.peak_used == 10);
}

TEST_CASE("a saturated continuous batch repeats the closed-form cycle", "[serve][sim]") {
  const RooflineStepModel m = llama();
  EngineConfig e;
  e.max_batch = 24;
  e.step_tokens = 6000;
  SimInput in;
  in.requests = fixed(96, 1500, 250);
  const SimResult r = simulate(in, e, m);
  const SaturatedCycle c = saturated_cycle(m, 24, 1500, 250, 6000);
  CHECK(c.prefill_steps == 6);  // 4 prompts of 1,500 per 6,000-token step
  CHECK(summarize(r, 0).output_rate.value() == Approx(c.output_rate.value()).epsilon(1e-9));
  CHECK(r.makespan.value() == Approx(4 * c.cycle.value()).epsilon(1e-9));
}

TEST_CASE("the staggered steady state holds within 5%", "[serve][sim]") {
  const RooflineStepModel m = llama();
  EngineConfig e;
  e.max_batch = 32;
  e.step_tokens = 8192;
  SimInput in;
  in.requests = draw_requests(3000, 17, 600, 200, LengthDist::uniform, 1 << 30);
  double steps = 0, sum = 0;
  for (const auto& q : in.requests) {
    const double d = static_cast<double>(q.output - 1);
    steps += d;
    sum += d * (d - 1) / 2;
  }
  const SimResult r = simulate(in, e, m);
  const SteadyState s = steady_state(m, 32, 600, steps / 3000, sum / 3000);
  CHECK(summarize(r, 0).request_rate.value() == Approx(s.request_rate.value()).epsilon(0.05));
}

TEST_CASE("Little's law: occupancy against rate x time", "[serve][sim]") {
  const RooflineStepModel m = llama();
  EngineConfig e;
  e.max_batch = 64;
  SimInput in;
  in.requests = draw_requests(2000, 4, 500, 80, LengthDist::exponential, 1 << 30);
  poisson_arrivals(in.requests, from_base<PerSecond>(30.0), 4);
  const SimResult r = simulate(in, e, m);
  const Summary s = summarize(r, 0);
  CHECK(s.mean_running == Approx(little_concurrency(s.request_rate, s.mean_residence)).epsilon(1e-9));
  double lat = 0;
  for (const auto& q : r.requests) lat += q.latency().value();
  CHECK(s.mean_in_system == Approx(s.request_rate.value() * lat / 2000).epsilon(1e-9));
  CHECK(s.request_rate.value() == Approx(30.0).epsilon(0.05));  // stable: departures keep up with arrivals
}

TEST_CASE("runs are deterministic per seed", "[serve][sim]") {
  const RooflineStepModel m = llama();
  EngineConfig e;
  e.kv_blocks = 2000;
  auto run = [&](std::uint64_t seed) {
    SimInput in;
    in.requests = draw_requests(200, seed, 800, 300, LengthDist::exponential, 1 << 30);
    poisson_arrivals(in.requests, from_base<PerSecond>(12.0), seed);
    return simulate(in, e, m);
  };
  const SimResult a = run(5), b = run(5), c = run(6);
  CHECK(a.makespan.value() == b.makespan.value());
  CHECK(a.preemptions == b.preemptions);
  CHECK(summarize(a, 2000).ttft.p95.value() == summarize(b, 2000).ttft.p95.value());
  CHECK(a.makespan.value() != c.makespan.value());
}

TEST_CASE("KV pressure preempts and every token is still generated once", "[serve][sim]") {
  const LinearStepModel step(sec(0.02), sec(0.0002), sec(1e-5));
  for (auto pre : {kv::Preemption::recompute, kv::Preemption::swap}) {
    EngineConfig e;
    e.max_batch = 32;
    e.kv_blocks = 200;
    e.preemption = pre;
    e.swap_time_per_block = sec(1e-5);
    SimInput in;
    in.requests = draw_requests(100, 2, 200, 400, LengthDist::uniform, 1 << 30);
    std::int64_t want = 0;
    for (const auto& q : in.requests) want += q.output;
    std::int64_t over = 0;
    const SimResult r = simulate(in, e, step, [&](const StepEvent& ev) { over += ev.sample->blocks_used > 200 ? 1 : 0; });
    CHECK(r.preemptions > 0);
    CHECK(r.output_tokens == want);
    CHECK(over == 0);
    CHECK(r.pool.allocations == r.pool.frees);
    if (pre == kv::Preemption::swap) {
      CHECK(r.swapped_blocks > 0);
    } else {
      CHECK(r.recomputed_tokens > 0);
    }
    for (const auto& q : r.requests) CHECK(q.done >= q.last_token);
  }
}

TEST_CASE("a request larger than the pool is refused", "[serve][sim]") {
  const LinearStepModel step(sec(0.01), Seconds{}, Seconds{});
  EngineConfig e;
  e.kv_blocks = 4;
  e.block_size = 16;
  SimInput in;
  in.requests = {{Seconds{}, 60, 10}};
  CHECK_THROWS_AS(simulate(in, e, step), UserError);
  e.step_tokens = 8;
  e.kv_blocks = 0;
  CHECK_THROWS_AS(simulate(in, e, step), UserError);  // step_tokens below max_batch
}

TEST_CASE("chunked prefill keeps decodes running through long prompts", "[serve][sim]") {
  const RooflineStepModel m = llama();
  SimInput in;
  in.requests = draw_requests(300, 8, 4000, 200, LengthDist::uniform, 1 << 30);
  poisson_arrivals(in.requests, from_base<PerSecond>(6.0), 8);
  EngineConfig plain;
  EngineConfig chunked;
  chunked.chunked_prefill = true;
  chunked.step_tokens = 512;
  const Summary a = summarize(simulate(in, plain, m), 0);
  const Summary b = summarize(simulate(in, chunked, m), 0);
  CHECK(b.tpot.p99 < a.tpot.p99);
  CHECK(b.output_rate.value() == Approx(a.output_rate.value()).epsilon(0.05));
}

TEST_CASE("a closed loop keeps its users busy", "[serve][sim]") {
  const LinearStepModel step(sec(0.02), Seconds{}, Seconds{});
  EngineConfig e;
  SimInput in;
  in.requests = fixed(12, 10, 51);  // 50 decode steps of 20 ms: 1 s per answer
  in.closed = ClosedLoop{3, sec(1.0), false};
  const SimResult r = simulate(in, e, step);
  // 4 rounds of 3 users: 1 s answering, 1 s thinking, except after the last.
  CHECK(r.makespan.value() == Approx(7.0));
  CHECK(r.requests[3].arrival.value() == Approx(2.0));
  CHECK(r.requests[3].user == 0);
}

TEST_CASE("percentiles interpolate between order statistics", "[serve][stats]") {
  std::vector<double> v = {4, 1, 3, 2, 5};
  CHECK(quantile(v, 0.5) == 3);
  CHECK(quantile(v, 0.95) == Approx(4.8));
  CHECK(quantile(v, 0.0) == 1);
  std::vector<double> one = {7};
  CHECK(quantile(one, 0.99) == 7);
  const Percentiles p = percentiles({0.1, 0.2, 0.3, 0.4});
  CHECK(p.mean.value() == Approx(0.25));
  CHECK(p.p50.value() == Approx(0.25));
}

TEST_CASE("the occupancy table integrates to the run's occupancy", "[serve][stats]") {
  const RooflineStepModel m = llama();
  SimInput in;
  in.requests = draw_requests(300, 1, 700, 150, LengthDist::exponential, 1 << 30);
  poisson_arrivals(in.requests, from_base<PerSecond>(10.0), 1);
  EngineConfig e;
  e.kv_blocks = 3000;
  const SimResult r = simulate(in, e, m);
  const auto bins = occupancy(r, 37, 3000);
  double area = 0, tokens = 0;
  for (const auto& b : bins) {
    area += b.running * (b.end - b.start);
    tokens += b.output_rate * (b.end - b.start);
  }
  const Summary s = summarize(r, 3000);
  CHECK(area / r.makespan.value() == Approx(s.mean_running).epsilon(1e-9));
  CHECK(tokens == Approx(static_cast<double>(r.output_tokens)).epsilon(1e-9));
  CHECK(bins.back().end == Approx(r.makespan.value()));
}

TEST_CASE("static padding and other closed forms", "[serve][math]") {
  const StaticPadding p = static_padding({50, 2000}, 2);
  CHECK(p.idle == 1950);
  CHECK(p.utilisation == Approx(0.5125));
  const StaticPadding q = static_padding({3, 1, 2, 5, 5}, 2);  // batches {3,1} {2,5} {5}
  CHECK(q.slot_steps == 6 + 10 + 5);
  CHECK(q.idle == 21 - 16);
  CHECK(pod_throughput(72, from_base<TokensPerSecond>(3000)).value() == 216000);
  CHECK(answers_per_second(from_base<TokensPerSecond>(216000), from_base<Tokens>(10000)).value() == Approx(21.6));
  CHECK(replicas_for(from_base<PerSecond>(21.6), from_base<PerSecond>(21.6)) == 1);
  CHECK(replicas_for(from_base<PerSecond>(100), from_base<PerSecond>(24.5)) == 5);
  CHECK(image_tokens(448, 448, 14, 1) == 1024);
  CHECK(image_tokens(448, 448, 14, 4) == 256);
  CHECK(image_tokens(450, 448, 14, 1) == 33 * 32);  // a partial patch still costs a token
  CHECK(video_frames(sec(30), from_base<PerSecond>(2)) == 60);
  CHECK(video_tokens(60, 256, 2) == 30 * 256);
  CHECK(turn_time(sec(5), from_base<Tokens>(10000), sec(0.0095)).value() == Approx(100));
  CHECK(sampler_time(25, 2, sec(0.02), sec(0.05)).value() == Approx(1.05));
  CHECK(closed_loop_throughput(16, sec(1), sec(3)).value() == Approx(4));
  CHECK(transfer_time(from_base<Bytes>(1e9), from_base<BytesPerSecond>(50e9), 2, sec(1e-5)).value() == Approx(0.01 + 1e-5));
}

TEST_CASE("a prefix-cache hit prefills only the suffix, over the cached prefix", "[serve][math]") {
  const RooflineStepModel m = llama();
  const Seconds full = prefill_time(m, 32000, 0);
  const Seconds hit = prefill_time(m, 32000, 30000);
  CHECK(hit < full);
  // The suffix attends over the prefix: dearer than the same number of fresh tokens.
  CHECK(hit > prefill_time(m, 2000, 0));
  CHECK(prefill_time(m, 100, 100).value() == 0);
}

TEST_CASE("request lists and trace files", "[serve][requests]") {
  const auto a = parse_request_list("2x100+50, 30+7", "--requests");
  REQUIRE(a.size() == 3);
  CHECK(a[2].prompt == 30);
  CHECK(a[2].output == 7);
  CHECK_THROWS_AS(parse_request_list("100+50@3", "--requests"), UserError);
  CHECK_THROWS_AS(parse_request_list("0+50", "--requests"), UserError);
  bool timed = false;
  const auto b = parse_request_file("# trace\n100 20 1.5s\n50 10 250ms\n", "f", timed);
  CHECK(timed);
  REQUIRE(b.size() == 2);
  CHECK(b[0].arrival.value() == Approx(0.25));  // sorted by arrival
  CHECK_THROWS_AS(parse_request_file("100 20 1.5s\n50 10\n", "f", timed), UserError);
  CHECK_THROWS_AS(parse_request_file("100 20 1.5GB\n", "f", timed), UserError);
  const auto c = parse_request_file("100 20\n3x5+5\n", "f", timed);
  CHECK(!timed);
  CHECK(c.size() == 4);
}

TEST_CASE("seeded lengths are independent of the arrival process", "[serve][requests]") {
  auto a = draw_requests(50, 3, 300, 100, LengthDist::exponential, 1 << 20);
  const auto b = draw_requests(50, 3, 300, 100, LengthDist::exponential, 1 << 20);
  poisson_arrivals(a, from_base<PerSecond>(5), 3);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].output == b[i].output);
  CHECK(a.back().arrival.value() > 0);
  const auto clipped = draw_requests(100, 1, 500, 500, LengthDist::exponential, 800);
  for (const auto& q : clipped) CHECK(q.prompt + q.output <= 800);
}

TEST_CASE("a rate parses as a count per time", "[serve][units]") {
  const auto q = parse_input("20/s", Expectation{dims::frequency, false}, "--rate");
  REQUIRE(q);
  CHECK(q->value == 20);
  const auto m = parse_input("120/min", Expectation{dims::frequency, false}, "--rate");
  REQUIRE(m);
  CHECK(m->value == Approx(2));
}

TEST_CASE("a uniform step priced in constant time equals the step of its copies", "[serve][step]") {
  for (const char* id : {"llama-3.1-8b", "deepseek-v3", "gemma-3-27b"}) {
    const RooflineStepModel m(sim_workload(id), h100(), 2, decode::Link{from_base<BytesPerSecond>(450e9), sec(1e-6)}, from_base<Bytes>(2.0),
                              sec(1e-4));
    for (const SeqWork w : {SeqWork{3000, 1, false}, SeqWork{0, 2048, true}, SeqWork{9000, 512, true}}) {
      const std::vector<SeqWork> copies(37, w);
      CHECK(m.uniform_time(37, w).value() == Approx(m.time(copies).value()).epsilon(1e-12));
    }
  }
  const LinearStepModel lin(sec(0.02), sec(0.001), sec(1e-4));
  const std::vector<SeqWork> dec(5, SeqWork{10, 1, false});
  CHECK(lin.uniform_time(5, SeqWork{10, 1, false}).value() == Approx(lin.time(dec).value()));
  const std::vector<SeqWork> pre(3, SeqWork{0, 100, true});
  CHECK(lin.uniform_time(3, SeqWork{0, 100, true}).value() == Approx(lin.time(pre).value()));
}

TEST_CASE("a decode group prices exactly as its sequences one by one", "[serve][step]") {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> context(0, 40000);
  for (const char* id : {"llama-3.1-8b", "deepseek-v3", "qwen3-30b-a3b", "gemma-3-27b", "mistral-7b"}) {
    const RooflineStepModel m(sim_workload(id), h100(), 2, decode::Link{from_base<BytesPerSecond>(450e9), from_base<Seconds>(1e-6)},
                              from_base<Bytes>(2.0), from_base<Seconds>(1e-4));
    for (int n : {1, 3, 64, 255}) {
      std::vector<SeqWork> work;
      DecodeGroup group{n, 0};
      for (int i = 0; i < n; ++i) {
        // Contexts on both sides of a sliding window, and at it.
        work.push_back({i % 5 == 0 && m.window() > 0 ? m.window() - (i % 2) : context(rng), 1, false});
        group.context_sum += work.back().context;
        if (work.back().context < m.window()) {
          ++group.below_window;
          group.below_window_context += work.back().context;
        }
      }
      const std::vector<SeqWork> rest = {{0, 512, true}, {1000, 37, true}};
      work.insert(work.end(), rest.begin(), rest.end());
      REQUIRE(m.prices_group(group));
      // The same double, not a close one: the simulator's grouped and listed runs must not drift apart.
      CHECK(m.group_time(group, rest).value() == m.time(work).value());
      CHECK(m.group_time(group, {}).value() == m.time(std::span<const SeqWork>(work).first(static_cast<std::size_t>(n))).value());
    }
  }
  const LinearStepModel lin(sec(0.02), sec(0.0002), sec(1e-5));
  const std::vector<SeqWork> rest = {{0, 100, true}};
  const std::vector<SeqWork> all = {{5, 1, false}, {9, 1, false}, {0, 100, true}};
  CHECK(lin.prices_group({2, 14}));
  CHECK(lin.group_time({2, 14}, rest).value() == lin.time(all).value());
}

TEST_CASE("grouped decodes simulate exactly as decodes priced one by one", "[serve][sim]") {
  const RooflineStepModel llama_8b = llama();
  // Gemma 3 1B: five of every six layers attend over a 512-token window, which these prompts cross.
  const RooflineStepModel gemma(sim_workload("gemma-3-1b"), h100(), 1, std::nullopt, from_base<Bytes>(2.0), Seconds{});
  REQUIRE(gemma.window() > 0);
  REQUIRE(gemma.window() < 1500);
  SimInput open;
  open.requests = draw_requests(120, 3, 1500, 300, LengthDist::exponential, 1 << 14);
  SimInput closed;
  closed.requests = draw_requests(90, 4, 800, 200, LengthDist::uniform, 1 << 14);
  closed.closed = ClosedLoop{16, sec(0.5), true};
  // Light load: a few sequences at a time, most steps run by the simulator's quiet-step loop.
  SimInput light;
  light.requests = draw_requests(40, 5, 1000, 400, LengthDist::exponential, 1 << 14);
  poisson_arrivals(light.requests, from_base<PerSecond>(0.5), 5);
  for (const RooflineStepModel* model : {&llama_8b, &gemma}) {
  const RooflineStepModel& m = *model;
  const Listed listed(m);
  REQUIRE(m.prices_group({4, 4000, 1, 100}));
  // Enough load to fill a pool of 1,200 blocks: the small model serves ten times the rate.
  poisson_arrivals(open.requests, from_base<PerSecond>(model == &gemma ? 200.0 : 20.0), 3);
  for (const SimInput* in : {&open, &closed, &light}) {
    for (bool chunked : {false, true}) {
      for (std::int64_t blocks : {std::int64_t{0}, std::int64_t{1200}}) {
        for (auto pre : {kv::Preemption::recompute, kv::Preemption::swap}) {
          EngineConfig e;
          e.max_batch = 48;
          e.chunked_prefill = chunked;
          e.step_tokens = chunked ? 512 : 8192;
          e.kv_blocks = blocks;
          e.preemption = pre;
          e.swap_time_per_block = sec(2e-6);
          const SimResult a = simulate(*in, e, m);
          const SimResult b = simulate(*in, e, listed);
          if (blocks > 0 && in == &open) CHECK(a.preemptions > 0);
          same_run(a, b);
          // An observer sees every step, so the simulator runs them all through its scheduling loop.
          std::int64_t seen = 0;
          same_run(a, simulate(*in, e, m, [&](const StepEvent&) { ++seen; }));
          CHECK(seen == static_cast<std::int64_t>(a.steps.size()));
          // Without the step record the requests fare the same.
          SimInput bare = *in;
          bare.record_steps = false;
          const SimResult c = simulate(bare, e, m);
          CHECK(c.steps.empty());
          CHECK(c.step_count == a.step_count);
          CHECK(a.step_count == static_cast<std::int64_t>(a.steps.size()));
          SimResult with_record = a;
          with_record.steps.clear();
          same_run(with_record, c);
        }
      }
    }
  }
  }
}
