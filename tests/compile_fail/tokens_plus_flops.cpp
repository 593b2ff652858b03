// Must not compile: tokens and FLOP are different base dimensions. With CONTROL defined, tokens add.
#include "units/system.hpp"

int main() {
  const auto t = infracalc::from_base<infracalc::Tokens>(8000.0);
#ifdef CONTROL
  const auto f = infracalc::from_base<infracalc::Tokens>(1.0);
#else
  const auto f = infracalc::from_base<infracalc::Flops>(1.0);
#endif
  const auto sum = t + f;
  return sum.value() > 0 ? 0 : 1;
}
