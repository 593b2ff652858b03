#include "plugins/kv/kv_plugin.hpp"

#include "plugins/kv/kv_calculators.hpp"

namespace infracalc {

namespace {

Plugin make_kv_plugin() {
  Plugin p;
  p.name = "kv";
  p.doc = "docs/kv.md";
  p.calculators.push_back(kv::size_calculator());
  p.calculators.push_back(kv::compare_calculator());
  p.calculators.push_back(kv::capacity_calculator());
  p.calculators.push_back(kv::paged_calculator());
  p.calculators.push_back(kv::prefix_calculator());
  p.calculators.push_back(kv::compress_calculator());
  p.calculators.push_back(kv::offload_calculator());
  p.calculators.push_back(kv::ladder_calculator());
  p.calculators.push_back(kv::work_calculator());
  p.kernels = kv_kernels();
  return p;
}

}  // namespace

const Plugin& kv_plugin() {
  static const Plugin p = make_kv_plugin();
  return p;
}

}  // namespace infracalc
