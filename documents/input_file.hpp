// Reading a whole input file (a data file, a plan, a request trace, a model config) with the checks every
// reader needs: it exists, it is a file and not a directory or a device, and it is not absurdly large.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "units/expected.hpp"

namespace infracalc {

/// Size limits of the inputs infracalc reads whole, in bytes: far above any real file of the kind.
namespace input_limits {
/// A data file (TOML) or a plan: the largest shipped data file is under 100 kB.
inline constexpr std::uint64_t document = std::uint64_t{16} << 20;
/// A Hugging Face config.json: real ones are a few kB.
inline constexpr std::uint64_t model_config = std::uint64_t{64} << 20;
/// A request trace (PROMPT OUTPUT [ARRIVAL] lines): ten million requests fit in about 200 MB.
inline constexpr std::uint64_t request_trace = std::uint64_t{256} << 20;
}  // namespace input_limits

/// The whole content of `path`, read by `who` (the flag or command, for the message), or an Error naming
/// the path and what is wrong: missing or unreadable, a directory, a device or socket, larger than `limit`
/// bytes, or a read error. Pipes (`<(...)`, /dev/stdin) are read up to the limit.
[[nodiscard]] Expected<std::string> read_input_file(const std::string& path, std::string_view who, std::uint64_t limit);

}  // namespace infracalc
