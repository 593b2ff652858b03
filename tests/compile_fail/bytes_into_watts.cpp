// Must not compile: assigning a data size to a power. With CONTROL defined, a power is assigned.
#include "units/system.hpp"

int main() {
#ifdef CONTROL
  const auto b = infracalc::from_base<infracalc::Watts>(80e9);
#else
  const auto b = infracalc::from_base<infracalc::Bytes>(80e9);
#endif
  infracalc::Watts p = b;
  return p.value() > 0 ? 0 : 1;
}
