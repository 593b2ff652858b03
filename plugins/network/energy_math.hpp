// Energy per bit: power and data rate, optics per port, fabric watts, on-chip wire energy.
#pragma once

#include "units/system.hpp"

namespace infracalc::net {

/// Energy per bit of a device drawing `power` while moving `rate` (one direction): P / R.
[[nodiscard]] JoulesPerByte energy_per_bit(Watts power, BytesPerSecond rate);

/// Power drawn at `rate` with `epb` per bit: E x R.
[[nodiscard]] Watts power_at(JoulesPerByte epb, BytesPerSecond rate);

/// Rate that `power` sustains at `epb` per bit: P / E.
[[nodiscard]] BytesPerSecond rate_at(Watts power, JoulesPerByte epb);

/// Fractional saving of `power` against `baseline` at the same rate: 1 - P / P_baseline.
[[nodiscard]] double reduction(Watts power, Watts baseline);

/// Optics power of `ports` port ends at `port_speed` each: ports x E x R.
[[nodiscard]] Watts optics_power(double ports, JoulesPerByte epb, BytesPerSecond port_speed);

/// Energy to move `data` over `distance` of on-chip wire costing `wire` per bit per length: bits x E x d.
[[nodiscard]] Joules wire_energy(Bytes data, JoulesPerByteMeter wire, Meters distance);

}  // namespace infracalc::net
