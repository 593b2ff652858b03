#include "plugins/decode/decode_roofline.hpp"

#include <algorithm>

namespace infracalc::decode {

FlopsPerByte ridge_point(FlopsPerSecond peak, BytesPerSecond bandwidth) { return peak / bandwidth; }

FlopsPerSecond attainable(FlopsPerSecond peak, BytesPerSecond bandwidth, FlopsPerByte i) {
  const FlopsPerSecond mem = bandwidth * i;
  return mem < peak ? mem : peak;
}

FlopsPerByte intensity(const StepCost& c) { return c.flops / c.bytes; }

StepTime step_time(const StepCost& c, const Roof& r, Seconds communication, Seconds overhead) {
  StepTime t;
  t.memory = c.bytes / r.bandwidth;
  t.compute = r.peak ? c.flops / *r.peak : Seconds{};
  t.communication = communication;
  t.overhead = overhead;
  t.memory_bound = t.memory >= t.compute;
  t.total = (t.memory_bound ? t.memory : t.compute) + communication + overhead;
  return t;
}

}  // namespace infracalc::decode
