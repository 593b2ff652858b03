// Must not compile: adding a power to a data size. With CONTROL defined, the same file adds two powers.
#include "units/system.hpp"

int main() {
  const infracalc::Watts p = infracalc::from_base<infracalc::Watts>(700.0);
#ifdef CONTROL
  const infracalc::Watts b = infracalc::from_base<infracalc::Watts>(1.0);
#else
  const infracalc::Bytes b = infracalc::from_base<infracalc::Bytes>(1.0);
#endif
  const auto sum = p + b;
  return sum.value() > 0 ? 0 : 1;
}
