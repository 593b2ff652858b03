#include "plugins/fit/fit_plugin.hpp"

namespace infracalc {

const Plugin& fit_plugin() {
  static const Plugin p = [] {
    Plugin x;
    x.name = "fit";
    x.summary = "memory fit";
    return x;
  }();
  return p;
}

}  // namespace infracalc
