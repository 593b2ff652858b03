// The cost plugin: closed forms, the serving simulation and the calculators.
#include <catch2/catch.hpp>

#include "catalog/catalog.hpp"
#include "plugins/cluster/cluster_math.hpp"
#include "host/context.hpp"
#include "plugins/cost/cost_math.hpp"
#include "plugins/cost/cost_ledger.hpp"
#include "plugins/serve/serve_math.hpp"
#include "plugins/registry.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;
using namespace infracalc::cost;

namespace {
UsdPerHour usd_per_hour(double v) { return from_base<UsdPerHour>(v / 3600.0); }
UsdPerToken per_mtok(double v) { return from_base<UsdPerToken>(v / 1e6); }
Tokens tok(double n) { return from_base<Tokens>(n); }
double mtok(UsdPerToken p) { return p.value() * 1e6; }

}  // namespace

TEST_CASE("price per token from an hourly price", "[cost]") {
  const TokensPerSecond tput = from_base<TokensPerSecond>(2500);
  CHECK(mtok(price_per_token(usd_per_hour(2.20), 1, tput, 1.0)) == Approx(0.244444));
  CHECK(mtok(price_per_token(usd_per_hour(2.20), 8, from_base<TokensPerSecond>(20000), 1.0)) == Approx(0.244444));
  CHECK(mtok(price_per_token(usd_per_hour(2.20), 1, tput, 0.5)) == Approx(0.488889));
  CHECK(gpu_hour_for(per_mtok(0.42), 1, from_base<TokensPerSecond>(2000), 1.0).value() * 3600 == Approx(3.024));
}

TEST_CASE("answers: hidden tokens bill as output, samples multiply", "[cost]") {
  AnswerTokens a{tok(1000), tok(500), tok(4500), 1, false};
  const Usd one = answer_cost(a, per_mtok(3), per_mtok(15));
  CHECK(one.value() == Approx(0.003 + 5000 * 15e-6));
  a.samples = 4;
  CHECK(answer_cost(a, per_mtok(3), per_mtok(15)) / one == Approx(4.0));
  a.shared_prompt = true;
  CHECK(answer_cost(a, per_mtok(3), per_mtok(15)).value() == Approx(0.003 + 4 * 5000 * 15e-6));
  CHECK(answer_tokens(a).value() == Approx(1000 + 4 * 5000));
}

TEST_CASE("agent steps re-send the history", "[cost]") {
  const auto full = agent_steps(3, tok(2000), tok(500), tok(1000), true);
  REQUIRE(full.size() == 3);
  CHECK(full[0].fresh_input.value() == 2000);
  CHECK(full[0].repeated_input.value() == 0);
  CHECK(full[1].repeated_input.value() == 2000);
  CHECK(full[1].fresh_input.value() == 1500);
  CHECK(full[2].repeated_input.value() == 3500);
  const auto none = agent_steps(3, tok(2000), tok(500), tok(1000), false);
  CHECK((none[2].fresh_input + none[2].repeated_input).value() == 3000);
  CallPrices p{per_mtok(3), per_mtok(15)};
  CHECK(attempt_cost(full, p, from_base<Usd>(0.01)).value() == Approx((2000 + 3500 + 5000) * 3e-6 + 1500 * 15e-6 + 0.03));
}

TEST_CASE("retries: expected attempts and success", "[cost]") {
  CHECK(expected_attempts(1.0, 3) == 1.0);
  CHECK(expected_attempts(0.5, 0) == Approx(1.0));
  CHECK(expected_attempts(0.5, 2) == Approx(1.75));
  CHECK(success_probability(0.5, 2) == Approx(0.875));
  CHECK(expected_attempts(0.2, 100) == Approx(5.0).epsilon(1e-6));
}

TEST_CASE("prompt cache break-even", "[cost]") {
  CachePricing anthropic{per_mtok(3), 0.10, 1.25, {}};
  CHECK(break_even_requests(anthropic, tok(1e5), from_base<Seconds>(0)) == 2);
  CachePricing openai{per_mtok(2.5), 0.5, 1.0, {}};
  CHECK(break_even_requests(openai, tok(1e5), from_base<Seconds>(0)) == 2);  // equal at 1, cheaper from 2
  CachePricing one_hour{per_mtok(3), 0.10, 2.0, {}};
  CHECK(break_even_requests(one_hour, tok(1e5), from_base<Seconds>(0)) == 3);
  CachePricing useless{per_mtok(3), 1.0, 1.0, {}};
  CHECK(!break_even_requests(useless, tok(1e5), from_base<Seconds>(0)));
  // An exact tie at n = 2 (write 1.5, read 0.5): 2 requests cost the same, so 3 are needed.
  CachePricing tie{per_mtok(1), 0.5, 1.5, {}};
  CHECK(break_even_requests(tie, tok(1000), from_base<Seconds>(0)) == 3);
  CHECK(prefix_cost_cached(tok(1e5), 10, anthropic, from_base<Seconds>(0)).value() == Approx(0.645));
}

TEST_CASE("training rent", "[cost]") {
  const Flops f = cluster::six_nd(70e9, tok(15e12));
  CHECK(f.value() == Approx(6.3e24));
  const Seconds t = accelerator_time(f, from_base<FlopsPerSecond>(1e15), 0.4);
  CHECK(t.value() / 3600 == Approx(4.375e6));
  CHECK(rent(t, usd_per_hour(2), 1.0).value() == Approx(8.75e6));
  CHECK(rent(t, usd_per_hour(2), 0.8).value() == Approx(8.75e6 / 0.8));
}

TEST_CASE("the serving ledger charges every paid second", "[cost]") {
  serve::SimInput in;
  in.requests = serve::draw_requests(40, 3, 500, 150, serve::LengthDist::uniform, 1 << 30);
  serve::poisson_arrivals(in.requests, from_base<PerSecond>(2.0), 3);
  serve::EngineConfig e;
  e.max_batch = 8;
  const serve::LinearStepModel model(from_base<Seconds>(0.02), from_base<Seconds>(0.001), from_base<Seconds>(1e-4));
  const Ledger a = charge_run(in, e, model, usd_per_hour(3.6));
  const Ledger b = charge_run(in, e, model, usd_per_hour(3.6));
  CHECK(a.paid.value() == b.paid.value());  // deterministic
  CHECK((a.input_cost + a.output_cost + a.idle_cost).value() == Approx(a.paid.value()));
  double prompts = 0, decoded = 0, sum = 0;
  for (const auto& q : in.requests) {
    prompts += static_cast<double>(q.prompt);
    decoded += static_cast<double>(q.output - 1);  // the first token comes with the prefill
  }
  for (const auto& c : a.request_cost) sum += c.value();
  CHECK(a.input_tokens.value() == prompts);
  CHECK(a.output_tokens.value() == decoded);
  CHECK(sum == Approx((a.input_cost + a.output_cost).value()));
  CHECK(a.utilisation() <= 1.0);
  CHECK(serve::batch_throughput(8, from_base<Seconds>(0.028)).value() == Approx(8 / 0.028));
}

TEST_CASE("cost calculators end to end", "[cost]") {
  Catalog::instance().reset();
  CHECK(run("cost", "token", {{"gpu-hour", "$2.20/h"}, {"throughput", "2500tok/s"}}).find("price_per_token")->q.value * 1e6 ==
        Approx(0.244444));
  const Result c = run("cost", "cache", {{"api", "anthropic-claude-3-5-sonnet"}, {"prefix-tokens", "100k"}});
  CHECK(c.find("break_even_requests")->q.value == 2);
  const Result t = run("cost", "train", {{"gpus", "1000"}, {"duration", "30d"}, {"gpu-hour", "$2.50/h"}});
  CHECK(t.find("rent")->q.value == Approx(1.8e6));
  const Result a = run("cost", "answer", {{"visible-tokens", "500"}, {"hidden-tokens", "4500"}, {"output-price", "$10/Mtok"}});
  CHECK(a.find("reasoning_multiplier")->q.value == Approx(10));
}

TEST_CASE("cost errors name the input and the fix", "[cost]") {
  CHECK_THAT(error_of("cost", "token", {{"throughput", "2500tok/s"}}), Catch::Contains("missing --gpu-hour"));
  CHECK_THAT(error_of("cost", "answer", {{"visible-tokens", "0"}, {"output-price", "$1/Mtok"}}), Catch::Contains("needs output tokens"));
  CHECK_THAT(error_of("cost", "task", {{"steps", "0"}, {"tokens-per-step", "10"}, {"output-price", "$1/Mtok"}}),
             Catch::Contains("--steps"));
  CHECK_THAT(error_of("cost", "task", {{"steps", "3"}, {"tokens-per-step", "10"}, {"output-price", "$1/Mtok"}, {"cache", ""}}),
             Catch::Contains("--cache needs"));
  CHECK_THAT(error_of("cost", "cache", {{"input-price", "$1/Mtok"}, {"read-multiplier", "10%"}, {"write-multiplier", "125%"},
                                {"prefix-tokens", "1000"}, {"storage-price", "$1/(Mtok*h)"}}),
             Catch::Contains("--stored"));
  CHECK_THAT(error_of("cost", "train", {{"gpu-hour", "$2/h"}}), Catch::Contains("missing --duration"));
}
