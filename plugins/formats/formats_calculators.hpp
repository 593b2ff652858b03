// The formats calculators (one calc_<name>.cpp each) and the helpers they share (formats_inputs.cpp; internal to the plugin).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "host/context.hpp"
#include "plugins/formats/element.hpp"
#include "plugins/formats/storage.hpp"

namespace infracalc::formats {

/// A --dtype resolved to its storage entry (absent for E8M0) and its element layout.
struct FormatRef {
  /// The storage table entry, or nullptr for element-only formats (e8m0).
  const StorageFormat* storage = nullptr;
  /// The element layout.
  const ElementSpec* element = nullptr;
};

/// Every name --dtype accepts: the storage formats plus the E8M0 scale.
[[nodiscard]] std::vector<std::string_view> dtype_names();
/// Resolves a --dtype name.
[[nodiscard]] FormatRef resolve_format(std::string_view name);
/// The code as binary digits grouped sign.exponent.mantissa ("1.11.0"); plain digits for integers and E8M0.
[[nodiscard]] std::string code_text(const ElementSpec& s, std::uint32_t code);
/// Parses a code given as binary digits (separators . _ | allowed, optional 0b) or hex (0x...).
[[nodiscard]] std::uint32_t parse_code(const ElementSpec& s, const std::string& text, std::string_view flag);

/// The --dtype input every formats calculator takes.
[[nodiscard]] Input dtype_input();
/// The class of a code in words: "normal", "subnormal", "zero", "infinity", "NaN".
[[nodiscard]] const char* class_name(CodeClass c);
/// A decoded value as text: 10 significant digits (every code of an 8-bit or smaller format exactly), NaN, ±inf, ±0.
[[nodiscard]] std::string value_text(double v);

/// `formats info`.
[[nodiscard]] Calculator info_calculator();
/// `formats decode`.
[[nodiscard]] Calculator decode_calculator();
/// `formats encode`.
[[nodiscard]] Calculator encode_calculator();
/// `formats bits`.
[[nodiscard]] Calculator bits_calculator();
/// `formats error`.
[[nodiscard]] Calculator error_calculator();

}  // namespace infracalc::formats
