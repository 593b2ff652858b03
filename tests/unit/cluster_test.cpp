// The cluster plugin: collectives, training compute, pipeline schedules, expert routing, failures,
// recomputation and layouts, each against hand-derived values and against its own simulator.
#include <catch2/catch.hpp>
#include <cmath>

#include "catalog/catalog.hpp"
#include "catalog/model_arch.hpp"
#include "plugins/cluster/collectives.hpp"
#include "plugins/cluster/experts.hpp"
#include "plugins/cluster/layout.hpp"
#include "plugins/cluster/pipeline.hpp"
#include "plugins/cluster/recompute.hpp"
#include "plugins/cluster/reliability.hpp"
#include "plugins/cluster/cluster_math.hpp"
#include "host/context.hpp"
#include "plugins/registry.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;
using namespace infracalc::cluster;

namespace {

ModelArch arch(const std::string& id) {
  const Entry* e = Catalog::instance().find(id);
  REQUIRE(e != nullptr);
  auto m = read_model_arch(*e);
  REQUIRE(m);
  return m.value();
}

const LinkModel kLink{from_base<Seconds>(5e-6), from_base<BytesPerSecond>(100e9)};

}  // namespace

TEST_CASE("ring all-reduce moves 2(P-1)/P of the buffer in 2(P-1) steps", "[cluster]") {
  for (int p : {2, 3, 8, 64, 1000}) {
    const auto c = collective_cost(CollectiveOp::allreduce, CollectiveAlgo::ring, from_base<Bytes>(1e9), p, kLink);
    CHECK(c.steps == 2 * (p - 1));
    CHECK(c.sent_per_rank.value() == Approx(2.0 * (p - 1) / p * 1e9));
    CHECK(c.time.value() == Approx(2.0 * (p - 1) * 5e-6 + 2.0 * (p - 1) / p * 1e9 / 100e9));
    // With no latency, nccl-tests' bus bandwidth is the link bandwidth.
    const auto z = collective_cost(CollectiveOp::allreduce, CollectiveAlgo::ring, from_base<Bytes>(1e9), p,
                                   LinkModel{from_base<Seconds>(0), from_base<BytesPerSecond>(100e9)});
    CHECK(z.busbw.value() == Approx(100e9));
  }
}

TEST_CASE("all-gather, reduce-scatter and all-to-all byte counts", "[cluster]") {
  const Bytes s = from_base<Bytes>(8e9);
  for (auto op : {CollectiveOp::allgather, CollectiveOp::reducescatter}) {
    const auto ring = collective_cost(op, CollectiveAlgo::ring, s, 8, kLink);
    const auto tree = collective_cost(op, CollectiveAlgo::tree, s, 8, kLink);
    CHECK(ring.sent_per_rank.value() == Approx(7e9));
    CHECK(tree.sent_per_rank.value() == Approx(7e9));  // recursive doubling/halving: same bytes, log2 P steps
    CHECK(ring.steps == 7);
    CHECK(tree.steps == 3);
    CHECK_THROWS_AS(collective_cost(op, CollectiveAlgo::tree, s, 6, kLink), UserError);
  }
  const auto pairwise = collective_cost(CollectiveOp::alltoall, CollectiveAlgo::ring, s, 8, kLink);
  const auto bruck = collective_cost(CollectiveOp::alltoall, CollectiveAlgo::tree, s, 8, kLink);
  CHECK(pairwise.sent_per_rank.value() == Approx(7e9));
  CHECK(bruck.sent_per_rank.value() == Approx(12e9));  // 3 rounds of 4 blocks of S/8
  CHECK(bruck.steps == 3);
  CHECK_THROWS_AS(collective_cost(CollectiveOp::alltoall, CollectiveAlgo::in_network, s, 8, kLink), UserError);
  CHECK(collective_cost(CollectiveOp::allreduce, CollectiveAlgo::ring, s, 1, kLink).time.value() == 0.0);
}

TEST_CASE("binomial trees reach every rank once", "[cluster]") {
  for (int p : {1, 2, 5, 8, 13, 64, 100}) {
    int children = 0;
    for (int r = 0; r < p; ++r) children += binomial_children(r, p);
    CHECK(children == p - 1);
  }
  CHECK(ceil_log2(1) == 0);
  CHECK(ceil_log2(1000) == 10);
  const auto tree = collective_cost(CollectiveOp::allreduce, CollectiveAlgo::tree, from_base<Bytes>(1e6), 1000, kLink);
  CHECK(tree.steps == 20);
  CHECK(tree.wire_total.value() == Approx(2.0 * 999 * 1e6));
}

TEST_CASE("in-network reduction halves the bytes of a large ring", "[cluster]") {
  const Bytes s = from_base<Bytes>(1e9);
  const auto ring = collective_cost(CollectiveOp::allreduce, CollectiveAlgo::ring, s, 512, kLink);
  const auto sharp = collective_cost(CollectiveOp::allreduce, CollectiveAlgo::in_network, s, 512, kLink);
  CHECK(sharp.sent_per_rank.value() == Approx(1e9));
  CHECK(sharp.steps == 2);
  CHECK(sharp.sent_per_rank.value() / ring.sent_per_rank.value() == Approx(512.0 / (2 * 511)));
}

TEST_CASE("6ND, the attention term and the run time", "[cluster]") {
  CHECK(six_nd(70e9, from_base<Tokens>(15e12)).value() == Approx(6.3e24));
  const Seconds t = run_time(from_base<Flops>(6.3e24), 4096, from_base<FlopsPerSecond>(1e15), 0.4);
  CHECK(t.value() == Approx(3845214.84375));
  CHECK(devices_for(from_base<Flops>(6.3e24), t, from_base<FlopsPerSecond>(1e15), 0.4) == Approx(4096));
  // PaLM's 12 L H Q T with full counting.
  const ModelArch m = arch("llama-3.1-405b");
  const double want = 12.0 * m.layers * m.attention_heads * m.head_dim * 8192;
  CHECK(attention_training_per_token(m, from_base<Tokens>(8192), AttentionCount::full).value() == Approx(want));
  // Causal: a position attends to (s + 1)/2 positions on average.
  CHECK(mean_context(8192, 0, AttentionCount::causal) == Approx(4096.5));
  CHECK(mean_context(10, 0, AttentionCount::causal) == Approx(5.5));
  CHECK(mean_context(10, 4, AttentionCount::causal) == Approx((1 + 2 + 3 + 4 + 6 * 4) / 10.0));
  CHECK(mean_context(10, 4, AttentionCount::full) == Approx(4));
  CHECK(hardware_per_model_flop(fit::Recompute::full, from_base<Flops>(1), from_base<Flops>(0.1)) == Approx(4.0 / 3.0));
  CHECK(hardware_per_model_flop(fit::Recompute::selective, from_base<Flops>(1), from_base<Flops>(0.3)) == Approx(1.1));
}

TEST_CASE("cluster train: deadline, count and utilisation", "[cluster]") {
  const Result r = run("cluster", "train", {{"params", "70e9"}, {"tokens", "15T"}, {"peak", "1PFLOP/s"}, {"mfu", "40%"}, {"days", "90"}});
  CHECK(value(r, "gpus") == 2026);
  CHECK(value(r, "duration") <= 90 * 86400.0);
  CHECK(value(r, "gpu_time") == Approx(6.3e24 / 0.4e15));
  CHECK_THROWS_AS(run("cluster", "train", {{"params", "70e9"}, {"tokens", "15T"}, {"peak", "1PFLOP/s"}, {"days", "9"}, {"duration", "9d"}}), UserError);
  CHECK_THROWS_AS(run("cluster", "train", {{"tokens", "15T"}, {"peak", "1PFLOP/s"}, {"gpus", "8"}}), UserError);
  CHECK_THROWS_AS(run("cluster", "train", {{"params", "70e9"}, {"tokens", "15T"}, {"peak", "1PFLOP/s"}, {"gpus", "8"}, {"mfu", "1.5"}}), UserError);
}

TEST_CASE("pipeline simulator matches the bubble and in-flight formulas", "[cluster]") {
  for (int p : {1, 2, 3, 4, 7, 8})
    for (int m : {1, 2, 5, 8, 16}) {
      for (auto s : {Schedule::gpipe, Schedule::one_f_one_b}) {
        const auto r = simulate_pipeline(s, p, m, 1, 1.0, 2.0);
        CHECK(r.bubble == Approx(bubble_fraction(p, m, 1)).margin(1e-12));
        CHECK(r.peak_in_flight[0] == Approx(stage_activations_in_flight(s, p, m, 1)));
      }
      if (m % p == 0 && p > 1)
        for (int v : {2, 3, 4}) {
          const auto r = simulate_pipeline(Schedule::interleaved, p, m, v, 1.0, 2.0);
          CHECK(r.bubble == Approx(bubble_fraction(p, m, v)).margin(1e-12));
          CHECK(static_cast<double>(r.peak_in_flight[0]) / v == Approx(stage_activations_in_flight(Schedule::interleaved, p, m, v)));
        }
    }
  CHECK_THROWS_AS(simulate_pipeline(Schedule::interleaved, 4, 6, 2, 1.0, 2.0), UserError);
}

TEST_CASE("stage layer ranges cover every layer once", "[cluster]") {
  for (int layers : {16, 80, 126})
    for (int stages : {1, 2, 3, 7, 16}) {
      int next = 1;
      for (int s = 0; s < stages; ++s) {
        const auto [first, last] = stage_layers(layers, stages, s);
        CHECK(first == next);
        next = last + 1;
      }
      CHECK(next == layers + 1);
    }
}

TEST_CASE("expert capacity and the binomial drop rate", "[cluster]") {
  CHECK(expert_capacity(32768, 8, 2, 1.25) == 10240);
  CHECK(expert_capacity(100, 3, 1, 1.0) == 34);
  double prev = 1.0;
  for (std::int64_t c : {900, 1000, 1024, 1100, 1200}) {
    const double d = expected_drop_rate_uniform(4096, 8, 2, c);
    CHECK(d < prev);
    prev = d;
  }
  CHECK(expected_drop_rate_uniform(4096, 8, 2, 4096) == 0.0);
  RoutingSetup s;
  s.tokens = 4096;
  s.experts = 16;
  s.k = 2;
  s.capacity = 512;
  s.trials = 3;
  s.seed = 42;
  const auto a = simulate_routing(s), b = simulate_routing(s);
  CHECK(a.drop_rate == b.drop_rate);  // seeded: the same answer every time
  s.skew = 1.0;
  const auto skewed = simulate_routing(s);
  CHECK(skewed.drop_rate > a.drop_rate);
  CHECK(skewed.imbalance > a.imbalance);
}

TEST_CASE("Young, Daly and the expected wall time", "[cluster]") {
  const Seconds m = from_base<Seconds>(18000), d = from_base<Seconds>(120);
  CHECK(fleet_mtbf(from_base<Seconds>(50000 * 3600.0), 10000).value() == Approx(18000));
  CHECK(young_interval(d, m).value() == Approx(std::sqrt(2 * 120 * 18000.0)));
  CHECK(daly_interval(d, m).value() < young_interval(d, m).value());
  CHECK(daly_interval(from_base<Seconds>(5e4), m).value() == Approx(18000));  // delta >= 2M: checkpoint every M
  // Rare failures: wall time tends to work x (tau + delta)/tau.
  const Seconds w = expected_wall_time(from_base<Seconds>(3600), from_base<Seconds>(600), from_base<Seconds>(60), from_base<Seconds>(0),
                                       from_base<Seconds>(1e12));
  CHECK(w.value() == Approx(3600 * 660 / 600.0).epsilon(1e-6));
  // A short segment loses half of itself on average.
  CHECK(expected_loss_per_failure(from_base<Seconds>(60), m).value() == Approx(30).epsilon(1e-3));
  // The optimum is an optimum.
  auto goodput = [&](double tau) {
    return tau / expected_wall_time(from_base<Seconds>(tau), from_base<Seconds>(tau), d, from_base<Seconds>(300), m).value();
  };
  const double best = daly_interval(d, m).value();
  CHECK(goodput(best) > goodput(best * 0.7));
  CHECK(goodput(best) > goodput(best * 1.4));
}

TEST_CASE("failures calculator: catalog rate and blast radius", "[cluster]") {
  const Result r = run("cluster", "failures", {{"gpus", "16384"}});
  CHECK(value(r, "fleet_mtbf") == Approx(54 * 86400.0 / 419));
  CHECK_FALSE(r.provenance.empty());
  const Result s = run("cluster", "failures", {{"gpus", "144"}, {"mtbf_per_gpu", "50000h"}, {"replica_gpus", "72"}, {"checkpoint_time", "30s"},
                                    {"restart_time", "5min"}, {"work", "10d"}});
  CHECK(value(s, "in_flight_lost_share") == Approx(0.5));
  CHECK(value(s, "wall_time") > 10 * 86400.0);
  CHECK(value(s, "goodput") < 1.0);
  CHECK_THROWS_AS(run("cluster", "failures", {{"gpus", "8"}, {"replica_gpus", "16"}}), UserError);
}

TEST_CASE("√n checkpointing: closed forms against the real chain", "[cluster]") {
  for (int n = 1; n <= 40; ++n)
    for (int k = 1; k <= n; ++k) {
      const ChainRun run = run_chain(n, 4, k, false);
      CHECK(run.kept == checkpoints_kept(n, k));
      CHECK(run.peak_held == peak_activations(n, k));
      CHECK(run.recomputed == recomputed_layers(n, k));
    }
  CHECK(sqrt_interval(9) == 3);
  CHECK(sqrt_interval(10) == 4);
  const ChainRun a = run_chain(50, 8, 1, false), b = run_chain(50, 8, sqrt_interval(50), false);
  for (std::size_t i = 0; i < a.param_grad.size(); ++i) CHECK(a.param_grad[i] == b.param_grad[i]);
}

TEST_CASE("layout: Llama 3 405B on 16,384 H100s", "[cluster]") {
  // The paper's rows come out of the fewest-devices rule with a full optimizer copy per replica (--zero 0); under the
  // default ZeRO-1 the rule needs only 4 stages (checked at the end).
  const Result r = run("cluster", "layout", {{"model", "llama-3.1-405b"}, {"gpus", "16384"}, {"gpu", "h100-sxm"}, {"seq", "8192"}, {"batch_sequences", "2048"}, {"zero", "0"}});
  CHECK(value(r, "tp") == 8);
  CHECK(value(r, "pp") == 16);
  CHECK(value(r, "dp") == 128);
  CHECK(value(r, "cp") == 1);
  // Memory parts add up.
  CHECK(value(r, "memory_per_device") == Approx(value(r, "weights_per_device") + value(r, "grads_per_device") + value(r, "optimizer_per_device") +
                                                value(r, "activations_per_device") + value(r, "framework_reserve")));
  const Result l = run("cluster", "layout", {{"model", "llama-3.1-405b"}, {"gpus", "16384"}, {"gpu", "h100-sxm"}, {"seq", "131072"}, {"batch_sequences", "128"}, {"zero", "0"}});
  CHECK(value(l, "cp") == 16);
  CHECK(value(l, "dp") == 8);
  const Result z = run("cluster", "layout", {{"model", "llama-3.1-405b"}, {"gpus", "16384"}, {"gpu", "h100-sxm"}, {"seq", "8192"}, {"batch_sequences", "2048"}});
  CHECK(value(z, "tp") == 8);
  CHECK(value(z, "pp") == 4);
  CHECK(value(z, "dp") == 512);
}

TEST_CASE("layout: rules reject what cannot work", "[cluster]") {
  LayoutProblem p;
  p.arch = arch("llama-3.1-70b");
  p.params = count_params(p.arch).total;
  p.active = p.params;
  p.gpus = 64;
  p.memory = from_base<Bytes>(80e9);
  p.domain = 8;
  p.seq = from_base<Tokens>(8192);
  p.reserve = from_base<Bytes>(2e9);
  p.global_batch = 64;
  p.recompute = {fit::Recompute::full};
  CHECK_FALSE(evaluate_layout(p, 16, 1, 4, 1, fit::Recompute::full).feasible);  // beyond the NVLink domain
  CHECK_FALSE(evaluate_layout(p, 3, 1, 4, 1, fit::Recompute::full).feasible);   // 3 does not divide 64 heads (nor 64 GPUs / 4)
  const Layout ok = evaluate_layout(p, 8, 1, 4, 1, fit::Recompute::full);
  CHECK(ok.dp == 2);
  CHECK(ok.microbatches == 32);
  CHECK(ok.feasible);
  const Layout deep = evaluate_layout(p, 8, 1, 8, 1, fit::Recompute::full);
  CHECK(deep.microbatches == 64);
  CHECK(deep.feasible);
  p.global_batch = 4;  // 4 sequences per step cannot fill 8 stages
  const Layout starved = evaluate_layout(p, 8, 1, 8, 1, fit::Recompute::full);
  CHECK_FALSE(starved.feasible);
  CHECK(starved.reason.find("cannot fill") != std::string::npos);
  p.global_batch = 64;
  const auto all = search_layouts(p);
  REQUIRE_FALSE(all.empty());
  CHECK(all.front().feasible);
  CHECK(all.front().tp <= 8);
}

TEST_CASE("checkpoint and fleet calculators", "[cluster]") {
  const Result c = run("cluster", "checkpoint", {{"params", "1e9"}, {"gpus", "8"}, {"gpus_per_node", "8"}, {"gpu", "h100-sxm"}});
  CHECK(value(c, "checkpoint_size") == Approx(14e9));
  CHECK(value(c, "shard_per_gpu") == Approx(14e9 / 8));
  const Result w = run("cluster", "checkpoint", {{"params", "1e9"}, {"contents", "weights"}});
  CHECK(value(w, "checkpoint_size") == Approx(2e9));
  const Result f = run("cluster", "fleet", {{"system", "gb200-nvl72"}});
  CHECK(value(f, "chips") == 72);
  CHECK(value(f, "scaleup_domains") == 1);
}

// Issue 19, item 13: without a batch the layout ran 4 x PP micro-batches per pipeline (131M tokens for Llama 3
// 405B on 16,384 GPUs) and kept a full optimizer copy per replica. The defaults now follow published practice and
// the notes say where each came from.
TEST_CASE("layout: defaults follow published practice and say where they came from", "[cluster][layout-defaults]") {
  const Result r = run("cluster", "layout", {{"model", "llama-3.1-405b"}, {"gpus", "16384"}, {"gpu", "h100-sxm"}});
  CHECK(value(r, "tokens_per_step") == 16777216.0);  // 16M tokens: 2,048 sequences of 8,192 (Llama 3, section 3.4.1)
  CHECK(has_note(r, "llama-3.1-405b's published training recipe (training_batch_tokens: Llama Team (Dubey et al.)"));
  CHECK(has_note(r, "ZeRO-1 by default: the distributed optimizer (Megatron-LM's --use-distributed-optimizer)"));
  bool zero_one = false;
  for (const auto& in : r.inputs)
    if (in.key == "zero")
      zero_one = in.origin == Origin::default_value && std::holds_alternative<Quantity>(in.value) && std::get<Quantity>(in.value).value == 1;
  CHECK(zero_one);
  // A model without a recipe: the stated rule, 4M tokens from 1B parameters.
  const Result q = run("cluster", "layout", {{"model", "qwen2.5-72b"}, {"gpus", "1024"}, {"gpu", "h100-sxm"}});
  CHECK(value(q, "tokens_per_step") == 4194304.0);
  CHECK(has_note(q, "Llama 2's global batch for every size from 7B to 70B (Touvron et al. 2023, section 2.2)"));
  // A given batch wins and no default note appears.
  const Result g = run("cluster", "layout", {{"model", "llama-3.1-405b"}, {"gpus", "16384"}, {"gpu", "h100-sxm"}, {"global_batch", "8Mi"}});
  CHECK(value(g, "tokens_per_step") == 8388608.0);
  CHECK_FALSE(has_note(g, "published training recipe"));
}

TEST_CASE("layout: days to train a token budget, at the ceiling's and the expected step", "[cluster]") {
  const Result r = run("cluster", "layout", {{"model", "llama-3.1-405b"}, {"gpus", "16384"}, {"gpu", "h100-sxm"}, {"seq", "8192"},
                                  {"batch_sequences", "2048"}, {"zero", "0"}, {"tokens", "15.6T"}});
  const double steps = std::ceil(15.6e12 / value(r, "tokens_per_step"));
  CHECK(value(r, "days_to_train") == Approx(steps * value(r, "step_time")).epsilon(1e-12));
  CHECK(value(r, "expected_days_to_train") == Approx(steps * value(r, "expected_step_time")).epsilon(1e-12));
  CHECK(value(r, "expected_days_to_train") > 0);
  // Without --tokens there is no budget to divide.
  const Result n = run("cluster", "layout", {{"model", "llama-3.1-405b"}, {"gpus", "16384"}, {"gpu", "h100-sxm"}, {"seq", "8192"},
                                  {"batch_sequences", "2048"}, {"zero", "0"}});
  CHECK(n.find("days_to_train") == nullptr);
}

// Issue 19, item 15: implausible training runs get a warning that names the input and the limit it breaks.
TEST_CASE("cluster train: state that cannot fit, and constant MFU at very large scale, are warned about", "[cluster][implausible]") {
  // 405B parameters x 16 bytes = 6.5 TB of training state against one H100's memory.
  const Result one = run("cluster", "train", {{"model", "llama-3.1-405b"}, {"tokens", "15T"}, {"gpu", "h100-sxm"}, {"gpus", "1"}});
  CHECK(has_note(one, "implausible: the mixed-precision Adam training state of 405,853,388,800 parameters (16 B each"));
  CHECK(has_note(one, "of --gpus 1 ("));
  // 8,192 of them hold it, and stay below the scale warning.
  const Result fleet = run("cluster", "train", {{"model", "llama-3.1-405b"}, {"tokens", "15T"}, {"gpu", "h100-sxm"}, {"gpus", "8192"}});
  CHECK_FALSE(has_note(fleet, "Adam training state"));
  CHECK_FALSE(has_note(fleet, "MFU falls with scale"));
  // 100,000 accelerators at a constant 40% MFU: point at cluster failures.
  const Result big = run("cluster", "train", {{"model", "llama-3.1-405b"}, {"tokens", "15T"}, {"gpu", "h100-sxm"}, {"gpus", "100000"}});
  CHECK(has_note(big, "above 10,000 accelerators MFU falls with scale"));
  CHECK(has_note(big, "cluster failures"));
}
