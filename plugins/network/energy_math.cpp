#include "plugins/network/energy_math.hpp"

namespace infracalc::net {

JoulesPerByte energy_per_bit(Watts power, BytesPerSecond rate) { return power / rate; }

Watts power_at(JoulesPerByte epb, BytesPerSecond rate) { return epb * rate; }

BytesPerSecond rate_at(Watts power, JoulesPerByte epb) { return power / epb; }

double reduction(Watts power, Watts baseline) { return 1.0 - (power / baseline).value(); }

Watts optics_power(double ports, JoulesPerByte epb, BytesPerSecond port_speed) { return epb * port_speed * ports; }

Joules wire_energy(Bytes data, JoulesPerByteMeter wire, Meters distance) { return data * wire * distance; }

}  // namespace infracalc::net
