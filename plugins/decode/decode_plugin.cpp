#include "plugins/decode/decode_plugin.hpp"

#include "plugins/decode/decode_calculators.hpp"

namespace infracalc {

namespace {

Plugin make_decode_plugin() {
  Plugin p;
  p.name = "decode";
  p.doc = "docs/decode.md";
  p.calculators.push_back(decode::roofline_calculator());
  p.calculators.push_back(decode::ceiling_calculator());
  p.calculators.push_back(decode::prefill_calculator());
  p.calculators.push_back(decode::tp_calculator());
  p.calculators.push_back(decode::attention_calculator());
  p.calculators.push_back(decode::speculative_calculator());
  p.calculators.push_back(decode::moe_calculator());
  p.calculators.push_back(decode::breakdown_calculator());
  p.calculators.push_back(decode::timeline_calculator());
  p.calculators.push_back(decode::sample_calculator());
  p.calculators.push_back(decode::offload_calculator());
  p.kernels = decode_kernels();
  return p;
}

}  // namespace

const Plugin& decode_plugin() {
  static const Plugin p = make_decode_plugin();
  return p;
}

}  // namespace infracalc
