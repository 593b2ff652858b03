// Must not compile: passing a time where a data rate is expected. With CONTROL defined, a rate is passed.
#include "units/system.hpp"

namespace {
infracalc::Seconds read_time(infracalc::Bytes size, infracalc::BytesPerSecond bandwidth) { return size / bandwidth; }
}  // namespace

int main() {
  const auto size = infracalc::from_base<infracalc::Bytes>(140e9);
#ifdef CONTROL
  const auto arg = infracalc::from_base<infracalc::BytesPerSecond>(3.35e12);
#else
  const auto arg = infracalc::from_base<infracalc::Seconds>(3.35e12);
#endif
  return read_time(size, arg).value() > 0 ? 0 : 1;
}
