// `decode offload`: placement, the link's share of the step, agreement with `decode ceiling` when nothing is
// offloaded, and --system filling --gpu and the host link.
#include <catch2/catch.hpp>

#include "host/context.hpp"
#include "plugins/decode/decode_offload.hpp"
#include "plugins/decode/decode_plugin.hpp"
#include "plugins/fit/fit_plugin.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;
using namespace infracalc::decode;

namespace {
Result run_offload(const RawInputs& raw) {
  const Plugin& p = decode_plugin();
  return run_calculator(p, *p.find("offload"), raw);
}
Result run_ceiling(const RawInputs& raw) {
  const Plugin& p = decode_plugin();
  return run_calculator(p, *p.find("ceiling"), raw);
}
const ResolvedInput* input(const Result& r, std::string_view key) {
  for (const auto& ri : r.inputs)
    if (ri.key == key) return &ri;
  return nullptr;
}
Bytes gb(double v) { return from_base<Bytes>(v * 1e9); }
}  // namespace

TEST_CASE("offload placement keeps the cache resident and spills weights first", "[decode][offload]") {
  const auto p = place_offload(gb(60), gb(140), gb(10), false);
  REQUIRE(p);
  CHECK(p->kv_resident.value() == Approx(10e9));
  CHECK(p->weights_resident.value() == Approx(50e9));
  CHECK(p->weights_offloaded.value() == Approx(90e9));
  CHECK(p->kv_offloaded.value() == 0);
  CHECK_FALSE(place_offload(gb(5), gb(140), gb(10), false));
  const auto kv = place_offload(gb(5), gb(140), gb(10), true);
  REQUIRE(kv);
  CHECK(kv->weights_resident.value() == 0);
  CHECK(kv->kv_offloaded.value() == Approx(5e9));
  const auto none = place_offload(gb(200), gb(140), gb(10), false);
  REQUIRE(none);
  CHECK(none->offloaded().value() == 0);
}

TEST_CASE("offload step: sum without prefetch, max with it", "[decode][offload]") {
  const BytesPerSecond link = from_base<BytesPerSecond>(64e9);
  const OffloadStep seq = offload_step(from_base<Seconds>(0.02), gb(64), link, false);
  CHECK(seq.link.value() == Approx(1.0));
  CHECK(seq.total.value() == Approx(1.02));
  const OffloadStep pre = offload_step(from_base<Seconds>(0.02), gb(64), link, true);
  CHECK(pre.total.value() == Approx(1.0));
}

TEST_CASE("nothing offloaded: decode offload agrees with decode ceiling exactly", "[decode][offload]") {
  const RawInputs common = {{"model", "llama-3-8b"}, {"gpu", "h100-sxm"}, {"batch", "8"}, {"tokens", "4k"}};
  const Result o = run_offload(common);
  const Result c = run_ceiling(common);
  CHECK(value(o, "offloaded_bytes") == 0);
  CHECK(value(o, "link_time") == 0);
  CHECK(value(o, "step_time") == value(c, "step_time"));
  CHECK(value(o, "tokens_per_second") == value(c, "tokens_per_second"));
  CHECK(value(o, "expected_step_time") == value(c, "expected_step_time"));
  CHECK(value(o, "slowdown") == 1.0);
}

TEST_CASE("Llama-3-70B BF16 on one H100 over PCIe 5.0 streams the weights that do not fit", "[decode][offload]") {
  const Result r = run_offload({{"model", "llama-3-70b"}, {"gpu", "h100-sxm"}, {"dtype", "bf16"}, {"host_link", "pcie-5"}});
  const double offloaded = value(r, "weights_offloaded");
  CHECK(value(r, "weights_resident") + offloaded == Approx(value(r, "weights_bytes")));
  CHECK(value(r, "link_time") == Approx(offloaded / 63.02e9));
  CHECK(value(r, "step_time") == Approx(value(r, "device_time") + value(r, "link_time")));
  CHECK(value(r, "step_time") > 0.9);  // about a second per token
  CHECK(value(r, "slowdown") > 20);
  REQUIRE(r.tables.size() == 1);
  CHECK(r.tables[0].rows.size() == 4);
}

TEST_CASE("a system fills the GPU and the host link; a flag still wins", "[decode][offload][system]") {
  const Result r = run_offload({{"model", "llama-3-70b"}, {"system", "gb200-nvl72"}});
  CHECK(value(r, "host_bandwidth") == Approx(450e9));
  const ResolvedInput* mem = input(r, "memory");
  REQUIRE(mem != nullptr);
  CHECK(mem->origin == Origin::catalog);
  CHECK(mem->from == "gb200");
  CHECK(r.find("host_memory") != nullptr);
  const Result flag = run_offload({{"model", "llama-3-70b"}, {"system", "gb200-nvl72"}, {"gpu", "h100-sxm"}, {"host_bandwidth", "32GB/s"}});
  CHECK(input(flag, "memory")->from == "h100-sxm");
  CHECK(value(flag, "host_bandwidth") == Approx(32e9));
  const Plugin& fp = fit_plugin();
  const Result fit = run_calculator(fp, *fp.find("inference"), {{"model", "llama-3-8b"}, {"system", "dgx-h100"}, {"tokens", "8k"}});
  CHECK(value(fit, "replicas") == 8);
  CHECK(input(fit, "memory")->from == "h100-sxm");
}
