// Helpers shared by the unit tests of calculators: run one through the host, read an output, an error or a note.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "host/context.hpp"

namespace calc_test {

/// A plugin's calculator run through the host on raw inputs (fails the test when either is unknown).
infracalc::Result run(std::string_view plugin, std::string_view calc, const infracalc::RawInputs& raw,
                      infracalc::RunOptions opt = {});
/// An output's value in base units (fails the test when the result has no such output).
double value(const infracalc::Result& r, std::string_view key);
/// The text of the input error a run throws, or "no error".
std::string error_of(std::string_view plugin, std::string_view calc, const infracalc::RawInputs& raw);
/// True when one of the result's notes contains the text.
bool has_note(const infracalc::Result& r, std::string_view text);
/// A whole file's bytes (empty when it cannot be read).
std::string slurp(const std::filesystem::path& p);

}  // namespace calc_test
