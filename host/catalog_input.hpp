// Inputs a calculator fills from catalog fields it reads itself: dated series (tariffs, carbon
// intensity, PUE, WUE, prices) need the run's --as-of, so the host cannot resolve them up front.
// Shared by every plugin that reads a dated series (power, cooling, tco, cost).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/context.hpp"

namespace infracalc {

/// Fills input `key` from field `path` of the entry given for reference `ref` (e.g. --grid) when no flag
/// set it. A field that is a dated series (an array of {as_of, value} tables) gives its newest entry not
/// after --as-of; a plain field is taken as it is. The value is recorded as an input from the catalog and
/// its provenance cited. Returns true when the input has a value afterwards (false when there is no such
/// entry or field). Throws UserError when the series has no entry on or before --as-of, or the value has
/// the wrong dimension, is not finite or is negative.
bool fill_from_ref(Context& ctx, std::string_view key, std::string_view ref, std::string_view path,
                   const Expectation& want);

/// The share of its full power a part draws when idle: the entry's `idle_power` over its full power (`power` for a
/// system, `tdp` for an accelerator), both cited. nullopt when the entry has no `idle_power` or no full power.
std::optional<double> idle_share_of(Context& ctx, const Entry& e);

/// Fills input `key` (power at zero load as a share of full power) when no flag set it, from the first entry given
/// for `refs` with an idle draw: the entry's own `idle_power` (idle_share_of), or for a system without one, its
/// accelerator's. Records the input as from the catalog and adds a note naming the figures. Returns the id it came
/// from, or an empty string when none carries an idle draw (the input then stays unset).
std::string fill_idle_share(Context& ctx, std::string_view key, std::initializer_list<std::string_view> refs);

/// The catalog spec of an input filled from the memory of the accelerator given as --gpu: the capacity software sees
/// (`memory_visible`, what nvidia-smi or rocm-smi reports), else the marketed `memory_capacity`.
inline constexpr std::string_view kGpuMemoryCatalog = "gpu.memory_visible|gpu.memory_capacity";

/// The memory software sees on accelerator `e` (`memory_visible`), else its marketed `memory_capacity`, cited; and which
/// of the two it is. nullopt when the entry has neither.
struct DeviceMemory {
  Bytes bytes;
  bool visible = false;
};
std::optional<DeviceMemory> device_memory_of(Context& ctx, const Entry& e);

/// A note saying which memory figure input `key` holds when it came from an accelerator entry: the capacity software
/// sees (memory_visible) beside the marketed label, or the marketed capacity because the catalog has no visible figure
/// for that part. Nothing when the input was given as a flag or is absent.
void note_device_memory(Context& ctx, std::string_view key);

/// The --system reference (a node or rack from the catalog). It stands for its accelerator (--gpu) when no --gpu is
/// given, and for the further references in `more` ({reference, field of the system naming it}); `help` says what it sets.
[[nodiscard]] CatalogRef system_ref(std::string_view help,
                                    std::vector<std::pair<std::string_view, std::string_view>> more = {});

/// The weight storage format when no flag gives one, shared by every calculator that takes --dtype for weights.
inline constexpr std::string_view kDefaultWeightFormat = "bf16";

/// Fills the weight-format input `key` (and `expert_key`, when not empty and the calculator has it) when no flag set
/// them: from the model's native checkpoint format (`native_format`, `native_expert_format` of --model), else
/// kDefaultWeightFormat. Records them as catalog or default inputs and notes where the format came from.
void fill_weight_format(Context& ctx, std::string_view key, std::string_view expert_key = {});

/// Records a value the calculator resolved itself (from a catalog field it read) as input `key`, replacing any
/// earlier record of that key; `field` names the catalog field when it came from one.
void record_input(Context& ctx, std::string_view key, Cell value, Origin origin, std::string raw, std::string from,
                  std::string field = {});

}  // namespace infracalc
