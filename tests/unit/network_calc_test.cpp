// The network calculators through the host: catalog fill-in, flags, bits vs bytes, errors.
#include <catch2/catch.hpp>

#include "host/context.hpp"
#include "plugins/registry.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;

TEST_CASE("network link reads the catalog and keeps bits and bytes apart", "[network][calc]") {
  const Result r = run("network", "link", {{"link", "pcie5-x16"}});
  CHECK(value(r, "raw_per_direction") == Approx(64e9));
  CHECK(value(r, "per_direction") == Approx(63.0153846e9));
  CHECK(r.find("per_direction_bits")->unit_hint == "b/s");
  CHECK(r.find("per_direction")->unit_hint == "B/s");
  CHECK(value(r, "transfer_rate") == Approx(32e9));
  CHECK_FALSE(r.provenance.empty());
}

TEST_CASE("network link compares two links", "[network][calc]") {
  const Result r = run("network", "link", {{"compare", "pcie-5-x16,nvlink-c2c"}});
  CHECK(value(r, "ratio_raw") == Approx(900.0 / 128));
  CHECK(value(r, "second_both_directions") == Approx(900e9));
  REQUIRE(r.tables.size() == 1);
  CHECK(r.tables[0].rows.size() == 2);
}

TEST_CASE("Ethernet lanes: 100 Gb/s of data on a 106.25 Gb/s line", "[network][calc]") {
  const Result r = run("network", "link", {{"link", "ethernet-800g"}});
  CHECK(value(r, "lane_signaling_rate") * 8 == Approx(106.25e9));
  CHECK(value(r, "symbol_rate") == Approx(53.125e9));
  CHECK(value(r, "per_direction") * 8 == Approx(800e9));
}

TEST_CASE("network link errors", "[network][calc]") {
  CHECK(error_of("network", "link", {}).find("no link given") != std::string::npos);
  CHECK(error_of("network", "link", {{"link", "pcie-9"}}).find("pcie-9") != std::string::npos);
  CHECK(error_of("network", "link", {{"link", "pcie-5"}, {"compare", "a,b"}}).find("which is first") != std::string::npos);
  CHECK(error_of("network", "link", {{"lane_rate", "100Gb/s"}, {"transfer_rate", "100GT/s"}}).find("both") != std::string::npos);
}

TEST_CASE("network fabric: parts, optics watts and cost", "[network][calc]") {
  const Result r = run("network", "fabric", {{"gpus", "1024"},
                                  {"switch", "quantum-2-qm9700"},
                                  {"switch_power", "1kW"},
                                  {"switch_price", "$20000"},
                                  {"transceiver_price", "$500"},
                                  {"cable_price", "$100"}});
  CHECK(value(r, "tiers") == 2);
  CHECK(value(r, "leaves") == 32);
  CHECK(value(r, "spines") == 16);
  CHECK(value(r, "links") == 1024 + 1024);
  // 1,024 single-port NIC modules; at the switches twin-port 800G modules, two 400G ports each: 32 leaves x (16 down +
  // 16 up) + 16 spines x 32 = 1,536.
  CHECK(value(r, "nic_transceivers") == 1024);
  CHECK(value(r, "switch_transceivers") == 1536);
  CHECK(value(r, "transceivers") == 2560);
  CHECK(value(r, "optical_ends") == 4096);
  // 4,096 ends x 18.75 pJ/bit x 400 Gb/s = 30.72 kW: watts are per port end, whatever the module grouping
  CHECK(value(r, "optics_power") == Approx(30720));
  CHECK(value(r, "switch_power") == Approx(48000));
  CHECK(value(r, "parts_cost") == Approx(48 * 20000.0 + 2560 * 500.0 + 2048 * 100.0));
  CHECK(value(r, "bisection_bandwidth") * 8 == Approx(512 * 400e9));
}

TEST_CASE("network fabric: co-packaged switch optics need no switch-side modules", "[network][calc]") {
  const Result r = run("network", "fabric", {{"gpus", "1024"}, {"radix", "64"}, {"nic_speed", "400Gb/s"}, {"optics", "cpo"}});
  CHECK(value(r, "transceivers") == 1024);  // NIC ends only
  CHECK(value(r, "optical_ends") == 4096);
}

TEST_CASE("network fabric: 800G switch ports split for 400G NICs", "[network][calc]") {
  const Result r = run("network", "fabric", {{"gpus", "2048"}, {"switch", "spectrum-4-sn5600"}, {"nic_speed", "400Gb/s"}});
  CHECK(value(r, "radix") == 128);
  CHECK(value(r, "tiers") == 2);
  CHECK(error_of("network", "fabric", {{"gpus", "64"}, {"switch", "spectrum-4-sn5600"}, {"nic_speed", "300Gb/s"}}).find("split evenly") !=
        std::string::npos);
}

TEST_CASE("network su: GB200 NVL72 halls", "[network][calc]") {
  const Result r = run("network", "su", {{"system", "gb200-nvl72"}, {"sus", "16"}, {"switch", "quantum-2-qm9700"}});
  CHECK(value(r, "gpus") == 9216);
  CHECK(value(r, "racks") == 128);
  CHECK(value(r, "tiers") == 3);
  CHECK(value(r, "compute_power") == Approx(128 * 132e3));
}

TEST_CASE("network energy modes", "[network][calc]") {
  CHECK(value(run("network", "energy", {{"power", "15W"}, {"rate", "800Gb/s"}}), "energy_per_bit") == Approx(18.75e-12 * 8));
  const Result f = run("network", "energy", {{"optics", "lpo"}, {"ports", "100"}, {"port_speed", "800Gb/s"}, {"switches", "2"}, {"switch_power", "1kW"}});
  CHECK(value(f, "optics_power") == Approx(850));
  CHECK(value(f, "fabric_power") == Approx(2850));
  CHECK(error_of("network", "energy", {{"switches", "4"}, {"switch", "quantum-x800-q3400"}}).find("--switch-power") != std::string::npos);
}

TEST_CASE("network nics, scaleup, switch, optics, reach, allreduce", "[network][calc]") {
  CHECK(value(run("network", "nics", {{"system", "gb200-nvl72"}}), "aggregate") * 8 == Approx(1.6e12));
  CHECK(value(run("network", "scaleup", {{"system", "gb200-nvl72"}}), "bisection") == Approx(36 * 900e9));
  CHECK(value(run("network", "switch", {{"switch", "tomahawk-6"}, {"port_speed", "1.6Tb/s"}}), "ports") == 64);
  CHECK(value(run("network", "optics", {{"ports", "64"}, {"port_speed", "800Gb/s"}, {"fibers_per_port", "8"}}), "fibers") == 512);
  const Result reach = run("network", "reach", {{"link", "ethernet-400g"}, {"distance", "1.5m"}});
  CHECK(value(reach, "passive_copper_reach") == 2);
  CHECK(reach.verdicts.front().ok);
  CHECK(value(run("network", "allreduce", {{"values", "1,2,3"}}), "result") == 6);
  CHECK(error_of("network", "allreduce", {{"values", "1,2"}, {"workers", "3"}}).find("one value per worker") != std::string::npos);
}

TEST_CASE("network fabric: transceivers as a DGX SuperPOD is built (twin-port at the switches)", "[network][calc]") {
  // 4,096 GPUs at 400G on 800G switch ports split in two (radix 128): 64 leaves, 32 spines. NIC side 4,096 single-port
  // modules; switch side 12,288 port ends in twin-port cages = 6,144 modules. One module per port end would count 16,384.
  const Result r = run("network", "fabric", {{"gpus", "4096"}, {"switch", "spectrum-4-sn5600"}, {"nic_speed", "400Gb/s"}, {"design", "rail-optimised"}});
  CHECK(value(r, "tiers") == 2);
  CHECK(value(r, "optical_ends") == 16384);
  CHECK(value(r, "nic_transceivers") == 4096);
  CHECK(value(r, "switch_transceivers") == 6144);
  CHECK(value(r, "transceivers") == 10240);
  // The same GPUs on 64-port QM9700s take three tiers: 4,096 NIC modules and 5 x 2,048 twin-port modules (leaf down,
  // leaf up, aggregation down and up, core).
  const Result q = run("network", "fabric", {{"gpus", "4096"}, {"switch", "quantum-2-qm9700"}, {"design", "rail-optimised"}});
  CHECK(value(q, "tiers") == 3);
  CHECK(value(q, "optical_ends") == 24576);
  CHECK(value(q, "switch_transceivers") == 10240);
  CHECK(value(q, "transceivers") == 14336);
  // 800G links: one module per port.
  const Result e = run("network", "fabric", {{"gpus", "1024"}, {"switch", "spectrum-4-sn5600"}});
  CHECK(value(e, "switch_transceivers") == value(e, "optical_ends") - 1024);
  // Copper host links: no NIC modules, no leaf host-facing modules.
  const Result c = run("network", "fabric", {{"gpus", "1024"}, {"switch", "quantum-2-qm9700"}, {"host_cables", "copper"}});
  CHECK(value(c, "nic_transceivers") == 0);
  CHECK(value(c, "transceivers") == 32 * 16 + 16 * 32);
  // A partly filled leaf: 100 hosts on 32-port leaves (16 down, 16 up): host side 6 full leaves x 8 modules + one leaf of
  // 4 hosts (2 modules); uplinks 7 x 8; 4 spines of 28 ports, 14 modules each.
  const Result p = run("network", "fabric", {{"gpus", "100"}, {"radix", "32"}, {"nic_speed", "400Gb/s"}, {"gpus_per_node", "4"}});
  CHECK(value(p, "nic_transceivers") == 100);
  CHECK(value(p, "leaves") == 7);
  CHECK(value(p, "spines") == 4);
  CHECK(value(p, "switch_transceivers") == 50 + 56 + 56);
}

TEST_CASE("network fabric: notes for a fabric smaller than one rail group", "[network][calc]") {
  const Result one = run("network", "fabric", {{"gpus", "24"}, {"switch", "quantum-2-qm9700"}, {"design", "rail-optimised"}});
  CHECK(value(one, "tiers") == 1);
  bool said = false;
  for (const auto& n : one.notes) {
    CHECK(n.find("0 rail groups") == std::string::npos);
    CHECK(n.find("tier(s)") == std::string::npos);
    if (n.find("on one switch") != std::string::npos) said = true;
  }
  CHECK(said);
  const Result two = run("network", "fabric", {{"gpus", "24"}, {"radix", "16"}, {"nic_speed", "400Gb/s"}, {"design", "rail-optimised"}});
  CHECK(value(two, "tiers") == 2);
  bool group = false;
  for (const auto& n : two.notes)
    if (n.find("one rail group of 3 nodes (room for 8)") != std::string::npos) group = true;
  CHECK(group);
}

TEST_CASE("network switch: ports, speed and capacity must agree", "[network][calc]") {
  CHECK(error_of("network", "switch", {{"capacity", "51.2Tb/s"}, {"ports", "128"}, {"port_speed", "800Gb/s"}}).find("contradicts") !=
        std::string::npos);
  CHECK(value(run("network", "switch", {{"capacity", "51.2Tb/s"}, {"ports", "64"}, {"port_speed", "800Gb/s"}}), "ports") == 64);
  CHECK(error_of("network", "switch", {{"switch", "tomahawk-5"}, {"ports", "64"}, {"port_speed", "1600Gb/s"}}).find("at most 32 ports") !=
        std::string::npos);
  // Fewer ports than the switch has: a partly used switch.
  const Result part = run("network", "switch", {{"switch", "tomahawk-5"}, {"ports", "32"}, {"port_speed", "800Gb/s"}});
  CHECK(value(part, "capacity") * 8 == Approx(25.6e12));
  CHECK(value(part, "ports") == 32);
}

TEST_CASE("network link: PCIe widths", "[network][calc]") {
  CHECK(error_of("network", "link", {{"link", "pcie-5-x17"}}).find("x1, x2, x4, x8 or x16") != std::string::npos);
  CHECK(error_of("network", "link", {{"link", "cxl-3-x3"}}).find("x1, x2, x4, x8 or x16") != std::string::npos);
  CHECK(value(run("network", "link", {{"link", "pcie-5-x8"}}), "lanes") == 8);
  CHECK(value(run("network", "link", {{"link", "nvlink-5"}, {"lanes", "3"}}), "lanes") == 3);  // not a PCIe width rule
}

// Issue 19, item 11: Broadcom entries once gave the ASIC's power and NVIDIA ones the whole box, so the same fabric
// differed by 1.9x in switch watts. Fabrics now count the switch system without optics (system_power) for both.
TEST_CASE("network fabric: switch power is the system's for Broadcom and NVIDIA alike", "[network][calc][switch-power]") {
  const RawInputs common = {{"gpus", "2048"}, {"nic_speed", "400Gb/s"}, {"design", "fat-tree"}};
  RawInputs th5 = common, sn5600 = common;
  th5.push_back({"switch", "tomahawk-5"});
  sn5600.push_back({"switch", "spectrum-4-sn5600"});
  const Result b = run("network", "fabric", th5);
  const Result n = run("network", "fabric", sn5600);
  // Same size and radix (64 x 800G split into 128 x 400G): the same switch count.
  REQUIRE(value(b, "switches") == value(n, "switches"));
  // Two 51.2 Tb/s boxes without optics: within 25% of each other (913 W and 940 W typical), not 500 W against 940 W.
  const double r = value(b, "switch_power") / value(n, "switch_power");
  CHECK(r > 0.8);
  CHECK(r < 1.25);
  // The output says which figure it used.
  auto says = [](const Result& res, const std::string& what) {
    for (const auto& note : res.notes)
      if (note.find(what) != std::string::npos) return true;
    return false;
  };
  CHECK(says(b, "tomahawk-5 power: the switch system's 913 W (system_power, without optics), not the ASIC's 500 W (chip_power)"));
  CHECK(says(n, "spectrum-4-sn5600 power: the switch system's 940 W (system_power, without optics)"));
}
