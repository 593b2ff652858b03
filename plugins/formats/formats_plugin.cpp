#include "plugins/formats/formats_plugin.hpp"

#include "plugins/formats/formats_calculators.hpp"

namespace infracalc {

namespace {

Plugin make_formats_plugin() {
  Plugin p;
  p.name = "formats";
  p.doc = "docs/formats.md";
  p.calculators = {formats::info_calculator(), formats::decode_calculator(), formats::encode_calculator(), formats::bits_calculator(),
                   formats::error_calculator()};
  p.kernels = formats_kernels();
  return p;
}

}  // namespace

const Plugin& formats_plugin() {
  static const Plugin p = make_formats_plugin();
  return p;
}

}  // namespace infracalc
