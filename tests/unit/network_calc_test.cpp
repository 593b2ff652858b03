// The network calculators through the host: catalog fill-in, flags, bits vs bytes, errors.
#include <catch2/catch.hpp>

#include "plugins/core/context.hpp"
#include "plugins/registry.hpp"

using namespace infracalc;

namespace {
Result run(const char* calc, const RawInputs& raw) {
  const Plugin* p = find_plugin("network");
  REQUIRE(p != nullptr);
  return run_calculator(*p, *p->find(calc), raw);
}

double value(const Result& r, const char* key) {
  const Value* v = r.find(key);
  REQUIRE(v != nullptr);
  return v->q.value;
}

std::string error_of(const char* calc, const RawInputs& raw) {
  try {
    (void)run(calc, raw);
  } catch (const UserError& e) {
    return e.error.text();
  }
  return "no error";
}
}  // namespace

TEST_CASE("network link reads the catalog and keeps bits and bytes apart", "[network][calc]") {
  const Result r = run("link", {{"link", "pcie5-x16"}});
  CHECK(value(r, "raw_per_direction") == Approx(64e9));
  CHECK(value(r, "per_direction") == Approx(63.0153846e9));
  CHECK(r.find("per_direction_bits")->unit_hint == "b/s");
  CHECK(r.find("per_direction")->unit_hint == "B/s");
  CHECK(value(r, "transfer_rate") == Approx(32e9));
  CHECK_FALSE(r.provenance.empty());
}

TEST_CASE("network link compares two links", "[network][calc]") {
  const Result r = run("link", {{"compare", "pcie-5-x16,nvlink-c2c"}});
  CHECK(value(r, "ratio_raw") == Approx(900.0 / 128));
  CHECK(value(r, "second_both_directions") == Approx(900e9));
  REQUIRE(r.tables.size() == 1);
  CHECK(r.tables[0].rows.size() == 2);
}

TEST_CASE("Ethernet lanes: 100 Gb/s of data on a 106.25 Gb/s line", "[network][calc]") {
  const Result r = run("link", {{"link", "ethernet-800g"}});
  CHECK(value(r, "lane_signaling_rate") * 8 == Approx(106.25e9));
  CHECK(value(r, "symbol_rate") == Approx(53.125e9));
  CHECK(value(r, "per_direction") * 8 == Approx(800e9));
}

TEST_CASE("network link errors", "[network][calc]") {
  CHECK(error_of("link", {}).find("no link given") != std::string::npos);
  CHECK(error_of("link", {{"link", "pcie-9"}}).find("pcie-9") != std::string::npos);
  CHECK(error_of("link", {{"link", "pcie-5"}, {"compare", "a,b"}}).find("which is first") != std::string::npos);
  CHECK(error_of("link", {{"lane_rate", "100Gb/s"}, {"transfer_rate", "100GT/s"}}).find("both") != std::string::npos);
}

TEST_CASE("network fabric: parts, optics watts and cost", "[network][calc]") {
  const Result r = run("fabric", {{"gpus", "1024"},
                                  {"switch", "quantum-2-qm9700"},
                                  {"switch_power", "1kW"},
                                  {"switch_price", "$20000"},
                                  {"transceiver_price", "$500"},
                                  {"cable_price", "$100"}});
  CHECK(value(r, "tiers") == 2);
  CHECK(value(r, "leaves") == 32);
  CHECK(value(r, "spines") == 16);
  CHECK(value(r, "links") == 1024 + 1024);
  CHECK(value(r, "transceivers") == 4096);
  // 4,096 ends x 18.75 pJ/bit x 400 Gb/s = 30.72 kW
  CHECK(value(r, "optics_power") == Approx(30720));
  CHECK(value(r, "switch_power") == Approx(48000));
  CHECK(value(r, "parts_cost") == Approx(48 * 20000.0 + 4096 * 500.0 + 2048 * 100.0));
  CHECK(value(r, "bisection_bandwidth") * 8 == Approx(512 * 400e9));
}

TEST_CASE("network fabric: co-packaged switch optics need no switch-side modules", "[network][calc]") {
  const Result r = run("fabric", {{"gpus", "1024"}, {"radix", "64"}, {"nic_speed", "400Gb/s"}, {"optics", "cpo"}});
  CHECK(value(r, "transceivers") == 1024);  // NIC ends only
  CHECK(value(r, "optical_ends") == 4096);
}

TEST_CASE("network fabric: 800G switch ports split for 400G NICs", "[network][calc]") {
  const Result r = run("fabric", {{"gpus", "2048"}, {"switch", "spectrum-4-sn5600"}, {"nic_speed", "400Gb/s"}});
  CHECK(value(r, "radix") == 128);
  CHECK(value(r, "tiers") == 2);
  CHECK(error_of("fabric", {{"gpus", "64"}, {"switch", "spectrum-4-sn5600"}, {"nic_speed", "300Gb/s"}}).find("split evenly") !=
        std::string::npos);
}

TEST_CASE("network su: GB200 NVL72 halls", "[network][calc]") {
  const Result r = run("su", {{"system", "gb200-nvl72"}, {"sus", "16"}, {"switch", "quantum-2-qm9700"}});
  CHECK(value(r, "gpus") == 9216);
  CHECK(value(r, "racks") == 128);
  CHECK(value(r, "tiers") == 3);
  CHECK(value(r, "compute_power") == Approx(128 * 132e3));
}

TEST_CASE("network energy modes", "[network][calc]") {
  CHECK(value(run("energy", {{"power", "15W"}, {"rate", "800Gb/s"}}), "energy_per_bit") == Approx(18.75e-12 * 8));
  const Result f = run("energy", {{"optics", "lpo"}, {"ports", "100"}, {"port_speed", "800Gb/s"}, {"switches", "2"}, {"switch_power", "1kW"}});
  CHECK(value(f, "optics_power") == Approx(850));
  CHECK(value(f, "fabric_power") == Approx(2850));
  CHECK(error_of("energy", {{"switches", "4"}, {"switch", "quantum-2-qm9700"}}).find("--switch-power") != std::string::npos);
}

TEST_CASE("network nics, scaleup, switch, optics, reach, allreduce", "[network][calc]") {
  CHECK(value(run("nics", {{"system", "gb200-nvl72"}}), "aggregate") * 8 == Approx(1.6e12));
  CHECK(value(run("scaleup", {{"system", "gb200-nvl72"}}), "bisection") == Approx(36 * 900e9));
  CHECK(value(run("switch", {{"switch", "tomahawk-6"}, {"port_speed", "1.6Tb/s"}}), "ports") == 64);
  CHECK(value(run("optics", {{"ports", "64"}, {"port_speed", "800Gb/s"}, {"fibers_per_port", "8"}}), "fibers") == 512);
  const Result reach = run("reach", {{"link", "ethernet-400g"}, {"distance", "1.5m"}});
  CHECK(value(reach, "passive_copper_reach") == 2);
  CHECK(reach.verdicts.front().ok);
  CHECK(value(run("allreduce", {{"values", "1,2,3"}}), "result") == 6);
  CHECK(error_of("allreduce", {{"values", "1,2"}, {"workers", "3"}}).find("one value per worker") != std::string::npos);
}
