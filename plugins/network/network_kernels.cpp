#include "plugins/network/network_plugin.hpp"

namespace infracalc {

std::vector<Kernel> network_kernels() { return {}; }

}  // namespace infracalc
