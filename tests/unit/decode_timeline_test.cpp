// The layout timeline: every GPU's intervals tile the round, the shares add up, the pipeline's steady state
// is the classic one, and a layout without pipelining is the ceiling's step.
#include <catch2/catch.hpp>

#include "catalog/catalog.hpp"
#include "catalog/model_arch.hpp"
#include "plugins/decode/decode_timeline.hpp"
#include "plugins/formats/storage.hpp"

using namespace infracalc;
using namespace infracalc::decode;

namespace {

Workload llama70b_workload() {
  const Entry* e = Catalog::instance().find("llama-3-70b");
  REQUIRE(e != nullptr);
  return workload_from_arch(read_model_arch(*e).value_or_throw(), *find_storage_format("bf16"), *find_storage_format("fp16"));
}

const Roof kRoof{from_base<BytesPerSecond>(3.35e12), from_base<FlopsPerSecond>(989e12)};
const Link kNvLink{from_base<BytesPerSecond>(450e9), from_base<Seconds>(1e-6)};

}  // namespace

TEST_CASE("decode timeline: layouts parse in any order and case, and name themselves back", "[decode]") {
  CHECK(layout_name(parse_layout("tp4xpp2").value_or_throw()) == "TP4xPP2");
  CHECK(layout_name(parse_layout("DP2 x TP2 x PP2").value_or_throw()) == "TP2xPP2xDP2");
  CHECK(layout_name(parse_layout("TP1").value_or_throw()) == "TP1");
  CHECK_FALSE(static_cast<bool>(parse_layout("TP4xTP2")));
  CHECK_FALSE(static_cast<bool>(parse_layout("EP8")));
  CHECK_FALSE(static_cast<bool>(parse_layout("TP0")));
  CHECK_FALSE(static_cast<bool>(parse_layout("TP")));
}

TEST_CASE("decode timeline: the intervals tile every GPU's round and the pipeline's period is the classic one", "[decode]") {
  const Workload w = llama70b_workload();
  for (const char* name : {"TP8", "TP4xPP2", "TP2xPP4", "TP2xPP2xDP2", "DP8"}) {
    for (bool prefill : {false, true}) {
      for (int micro : {0, 1, 8}) {
        const Layout l = parse_layout(name).value_or_throw();
        INFO(name << (prefill ? " prefill" : " decode") << " micro " << micro);
        const LayoutRound r = simulate_layout(w, kRoof, kNvLink, l, 64, from_base<Tokens>(prefill ? 512 : 2048), prefill, micro);
        CHECK(r.compute_share + r.communicate_share + r.wait_share == Approx(1.0).epsilon(1e-9));
        for (int g = 0; g < l.tp * l.pp * l.dp; ++g) {
          Seconds at{};
          for (const auto& s : r.segments) {
            if (s.gpu != g) continue;
            CHECK(s.start.value() == Approx(at.value()).margin(1e-12));
            CHECK(s.end > s.start);
            at = s.end;
          }
          CHECK(at.value() == Approx(r.round.value()).epsilon(1e-9));
        }
        if (!prefill && l.pp > 1) {
          const Seconds work = r.stage_compute + r.stage_communicate;
          // Steady state: m micro-batches per round, or the loop through pp stages and hand-overs if that is longer.
          const Seconds period = std::max(static_cast<double>(r.micro_batches) * work, static_cast<double>(l.pp) * (work + r.hand_over));
          CHECK(r.round.value() == Approx(period.value()).epsilon(1e-9));
        }
      }
    }
  }
}

TEST_CASE("decode timeline: without pipelining a round is the ceiling step of the replica's batch", "[decode]") {
  const Workload w = llama70b_workload();
  const LayoutRound dp = simulate_layout(w, kRoof, kNvLink, parse_layout("DP8").value_or_throw(), 64, from_base<Tokens>(2048), false);
  const StepTime step = step_time(decode_step(w, 8, from_base<Tokens>(2048), 1).cost(), kRoof, Seconds{}, Seconds{});
  CHECK(dp.round.value() == Approx(step.total.value()).epsilon(1e-12));
  CHECK(dp.wait_share == Approx(0.0).margin(1e-12));
}
