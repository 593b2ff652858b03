// The helpers every formats calculator shares: the --dtype input and its resolution, code text, class names.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "plugins/formats/formats_calculators.hpp"
#include "units/suggest.hpp"

namespace infracalc::formats {

Input dtype_input() {
  return {.name = "dtype", .kind = InputKind::choice,
          .help = "number format: fp32 tf32 bf16 fp16, fp8 (= fp8-e4m3) fp8-e5m2, fp6-e3m2 fp6-e2m3, fp4-e2m1, int8 int4, "
                  "int8-g128 int4-g128 int4-g64 int4-g32 (FP16 group scales), mxfp8 mxfp8-e5m2 mxfp6 mxfp6-e3m2 mxfp4 mxint8 "
                  "(OCP MX), nvfp4, e8m0 (the MX scale)",
          .example = "fp8-e4m3", .choices = dtype_names()};
}

std::vector<std::string_view> dtype_names() {
  std::vector<std::string_view> v = storage_format_names();
  v.push_back("e8m0");
  return v;
}

FormatRef resolve_format(std::string_view name) {
  FormatRef r;
  r.storage = find_storage_format(name);
  r.element = r.storage != nullptr ? find_element(r.storage->element) : find_element(name);
  if (r.element == nullptr) {
    const auto names = dtype_names();
    throw UserError{{"--dtype: unknown format \"" + std::string(name) + "\"", did_you_mean(name, names)}};
  }
  return r;
}

std::string code_text(const ElementSpec& s, std::uint32_t code) {
  std::string b;
  for (int i = s.bits - 1; i >= 0; --i) b += ((code >> i) & 1u) != 0 ? '1' : '0';
  if (s.integer || s.special == Special::exponent) return b;
  return b.substr(0, 1) + "." + b.substr(1, static_cast<std::size_t>(s.exp_bits)) + "." +
         b.substr(1 + static_cast<std::size_t>(s.exp_bits));
}

std::uint32_t parse_code(const ElementSpec& s, const std::string& text, std::string_view flag) {
  const std::string f(flag);
  std::string t;
  for (char c : text)
    if (c != '.' && c != '_' && c != '|' && c != ' ') t += c;
  const auto bad = [&](const std::string& why) {
    return UserError{{fmt::format("{}: {} (\"{}\")", f, why, text),
                      fmt::format("{} codes have {} bits: give them as binary digits (e.g. {}) or hex with 0x", s.name, s.bits,
                                  code_text(s, 1u << (s.bits - 1)))}};
  };
  if (t.size() > 2 && (t.rfind("0x", 0) == 0 || t.rfind("0X", 0) == 0)) {
    std::uint64_t v = 0;
    for (std::size_t i = 2; i < t.size(); ++i) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(t[i])));
      const int d = c >= '0' && c <= '9' ? c - '0' : (c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1);
      if (d < 0 || i > 10) throw bad("not a hex code");
      v = v * 16 + static_cast<std::uint64_t>(d);
    }
    if (v >= (std::uint64_t{1} << s.bits)) throw bad(fmt::format("larger than a {}-bit code", s.bits));
    return static_cast<std::uint32_t>(v);
  }
  if (t.size() > 2 && (t.rfind("0b", 0) == 0 || t.rfind("0B", 0) == 0)) t = t.substr(2);
  if (t.empty() || t.find_first_not_of("01") != std::string::npos) throw bad("not a binary code");
  if (static_cast<int>(t.size()) != s.bits) throw bad(fmt::format("{} binary digits, expected {}", t.size(), s.bits));
  std::uint32_t v = 0;
  for (char c : t) v = (v << 1) | static_cast<std::uint32_t>(c - '0');
  return v;
}

const char* class_name(CodeClass c) {
  switch (c) {
    case CodeClass::zero: return "zero";
    case CodeClass::subnormal: return "subnormal";
    case CodeClass::normal: return "normal";
    case CodeClass::infinity: return "infinity";
    case CodeClass::nan: return "NaN";
  }
  return "";
}

std::string value_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "-inf" : "+inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  return fmt::format("{:.10g}", v);
}

}  // namespace infracalc::formats
