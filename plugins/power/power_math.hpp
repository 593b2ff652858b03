// Typed formulas of the power plugin: rack load from its parts, supply current and resistive loss,
// energy over a period, energy per token, and the load swing of a synchronous training job.
#pragma once

#include <span>

#include "units/system.hpp"

namespace infracalc::pwr {

/// The parts of one rack's IT load: a count and a per-unit power for each kind.
struct RackParts {
  /// Accelerators in the rack.
  Number gpus;
  /// Power of one accelerator.
  Watts gpu_power;
  /// Hosts (servers or compute trays) in the rack.
  Number hosts;
  /// Power of one host without its accelerators (CPUs, memory, fans, drives, board).
  Watts host_power;
  /// NICs in the rack.
  Number nics;
  /// Power of one NIC (with its optics).
  Watts nic_power;
  /// Switches in the rack (scale-up switch trays, top-of-rack).
  Number switches;
  /// Power of one switch.
  Watts switch_power;
  /// Anything else per rack (management, PDUs, rack fans).
  Watts other;
};

/// The IT load of each kind of part and their sum.
struct RackLoad {
  /// All accelerators.
  Watts gpus;
  /// All hosts.
  Watts hosts;
  /// All NICs.
  Watts nics;
  /// All switches.
  Watts switches;
  /// Everything else.
  Watts other;
  /// The sum: the rack's IT power at full load.
  Watts it;
};

/// Sums the parts of a rack.
[[nodiscard]] RackLoad rack_load(const RackParts& parts);

/// Average power under the linear utilisation model P(u) = P_idle + u (P_peak − P_idle), with
/// P_idle = idle_fraction × P_peak (Fan, Weber and Barroso, "Power provisioning for a
/// warehouse-sized computer", ISCA 2007). idle_fraction 0 is energy-proportional.
[[nodiscard]] Watts average_power(Watts peak, Number utilisation, Number idle_fraction);

/// Power drawn upstream of conversion stages of the given efficiency (PSUs, rectifiers).
[[nodiscard]] Watts input_power(Watts output, Number efficiency);

/// How the load is supplied: DC, single-phase AC, or balanced three-phase AC.
enum class Supply { dc, ac_single, ac_three };

/// Supply current: P/V for DC, P/(V·PF) single-phase, P/(√3·V_LL·PF) three-phase (line current).
[[nodiscard]] Amperes supply_current(Watts load, Volts voltage, Supply supply, Number power_factor);

/// Resistance of the current path made of conductors of resistance `conductor` each: out and back
/// (2×) for DC and single-phase, one phase conductor (1×) for three-phase (losses are then 3 × I²R).
[[nodiscard]] Ohms path_resistance(Ohms conductor, Supply supply);

/// Conduction loss I²R in the path (× 3 phases for three-phase), scaled by the distributed-load factor.
[[nodiscard]] Watts conduction_loss(Amperes current, Ohms path, Supply supply, Number distribution_factor);

/// Resistive voltage drop along the path: I·R for DC and single-phase, √3·I·R·PF line-to-line for
/// three-phase (reactance ignored), scaled by the distributed-load factor.
[[nodiscard]] Volts voltage_drop(Amperes current, Ohms path, Supply supply, Number power_factor, Number distribution_factor);

/// Loss ratio between two supply voltages for the same power and the same conductors: (V_a/V_b)².
[[nodiscard]] Number loss_ratio(Volts from, Volts to);

/// Energy of a constant average power over a period.
[[nodiscard]] Joules energy(Watts power, Seconds period);

/// Cost of an energy at a tariff.
[[nodiscard]] Usd energy_cost(Joules energy, UsdPerJoule tariff);

/// Energy per token: power / throughput.
[[nodiscard]] JoulesPerToken energy_per_token(Watts power, TokensPerSecond throughput);

/// PUE of several sites or periods weighted by IT energy: Σ(E_i·PUE_i) / Σ E_i (The Green Grid,
/// WP#49: PUE is a ratio of energies, so it is averaged by energy, never by site count).
[[nodiscard]] Number weighted_pue(std::span<const Joules> it_energy, std::span<const Number> pue);

/// The load swing of a synchronous training job.
struct Swing {
  /// IT load while every accelerator computes.
  Watts high;
  /// IT load while every accelerator waits (checkpoint, collective, data stall).
  Watts low;
  /// high − low.
  Watts step;
  /// step / ramp time.
  WattsPerSecond ramp_rate;
};

/// Swing of an IT load between `low_fraction` and `high_fraction` of its peak in `ramp_time`.
[[nodiscard]] Swing training_swing(Watts it_peak, Number low_fraction, Number high_fraction, Seconds ramp_time);

}  // namespace infracalc::pwr
