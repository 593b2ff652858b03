// `formats info`: what a format can hold: its codes, range, precision and special values.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "plugins/formats/formats_calculators.hpp"

namespace infracalc::formats {

namespace {

// Distinct finite values: finite codes, less one for a negative zero.
double distinct_finite(const ElementSpec& s) {
  if (s.bits > 19) return std::ldexp(1.0, 32) - std::ldexp(1.0, 24) - 1.0;  // FP32: exponent 255 is Inf/NaN
  double n = 0;
  bool neg_zero = false;
  for (std::uint32_t c = 0; c < code_count(s); ++c) {
    const Decoded d = decode_code(s, c);
    if (!std::isfinite(d.value)) continue;
    ++n;
    if (d.value == 0 && std::signbit(d.value)) neg_zero = true;
  }
  return n - (neg_zero ? 1 : 0);
}

void add_info_tables(Context& ctx, const ElementSpec& s) {
  Table t{"special_codes", "notable codes", {{"what", {}, {}}, {"code", {}, {}}, {"value", {}, {}}}, {}};
  auto row = [&](const std::string& what, std::uint32_t code) {
    t.rows.push_back({what, code_text(s, code), value_text(decode_code(s, code).value)});
  };
  if (s.integer) {
    row("zero", 0);
    row("one", 1);
    row("largest", encode_value(s, max_finite(s), true).code);
    row("smallest (most negative)", 1u << (s.bits - 1));
  } else if (s.special == Special::exponent) {
    row("smallest, 2^-127", 0);
    row("one", 127);
    row("largest, 2^127", 254);
    row("NaN", 255);
  } else {
    const std::uint32_t sign = 1u << (s.bits - 1);
    row("+0", 0);
    row("-0", sign);
    row("smallest subnormal", 1);
    row("largest subnormal", (1u << s.man_bits) - 1);
    row("smallest normal", 1u << s.man_bits);
    row("one", encode_value(s, 1.0, false).code);
    const std::uint32_t top = encode_value(s, max_finite(s), true).code;
    row("largest finite", top);
    row("most negative finite", top | sign);
    if (has_inf(s)) row("+inf", encode_value(s, HUGE_VAL, false).code);
    if (has_nan(s))
      row(fmt::format("NaN (one of {} codes)", s.special == Special::single_nan ? 2 : 2 * ((1u << s.man_bits) - 1)),
          encode_value(s, std::nan(""), false).code);
  }
  ctx.add_table(std::move(t));
  if (s.bits <= 6) {
    Table all{"codes", "every code", {{"code", {}, {}}, {"class", {}, {}}, {"value", dims::none, {}}}, {}};
    for (std::uint32_t c = 0; c < code_count(s); ++c) {
      const Decoded d = decode_code(s, c);
      all.rows.push_back({code_text(s, c), std::string(class_name(d.cls)), Quantity::number(d.value)});
    }
    ctx.add_table(std::move(all));
  }
}

void run_info(Context& ctx) {
  const FormatRef f = resolve_format(ctx.text("dtype"));
  const ElementSpec& s = *f.element;
  ctx.set("bits", from_base<Bytes>(s.bits / 8.0));
  ctx.set("storage_bits_per_value", from_base<Bytes>((f.storage != nullptr ? f.storage->bits_per_value : s.bits) / 8.0));
  ctx.set_number("exponent_bits", s.exp_bits);
  ctx.set_number("mantissa_bits", s.man_bits);
  if (!s.integer) ctx.set_number("bias", s.bias);
  ctx.set_number("max_finite", max_finite(s));
  if (s.integer) ctx.set_number("min_finite", -max_finite(s) - 1);
  ctx.set_number("min_normal", min_normal(s));
  ctx.set_number("min_subnormal", min_subnormal(s));
  ctx.set_number("epsilon", epsilon(s));
  ctx.set_number("codes", std::ldexp(1.0, s.bits));
  ctx.set_number("distinct_finite_values", distinct_finite(s));
  if (!s.integer) ctx.set_number("dynamic_range_binades", std::log2(max_finite(s) / min_subnormal(s)));
  if (f.storage != nullptr && f.storage->block > 0) {
    const ElementSpec* sc = find_element(f.storage->scale);
    ctx.set_number("block_values", f.storage->block);
    ctx.set("scale_bits", from_base<Bytes>(f.storage->scale_bits / 8.0));
    const double elem_max = f.storage->name == "mxint8" ? 127.0 / 64.0 : max_finite(s);
    if (sc != nullptr) ctx.set_number("block_max", elem_max * max_finite(*sc));
  }
  ctx.verdict("has_infinities", has_inf(s), has_inf(s) ? "exponent all ones with a zero mantissa is ±infinity" : "no infinity codes");
  ctx.verdict("has_nan", has_nan(s),
              s.special == Special::single_nan ? "only S.1111.111 is NaN; every other code is finite"
              : s.special == Special::ieee     ? "exponent all ones with a non-zero mantissa is NaN"
              : s.special == Special::exponent ? "0xFF is NaN"
                                               : "every code is a number; in MX blocks a NaN scale marks the block");
  const bool block = f.storage != nullptr && f.storage->block > 0;
  ctx.verdict("saturates", s.saturates || block,
              block         ? "block-scaled elements clamp to the largest finite value"
              : s.saturates ? "a cast clamps out-of-range values to the largest finite value"
                            : "a plain cast overflows to infinity or NaN; scaled (MX, NVFP4) and --saturate yes casts clamp");
  ctx.note(fmt::format("{}: {} sign, {} exponent and {} mantissa bits{}", s.title, s.integer ? 1 : (s.special == Special::exponent ? 0 : 1),
                       s.exp_bits, s.man_bits, s.integer ? "" : fmt::format(", bias {}", s.bias)));
  if (f.storage != nullptr && !f.storage->note.empty()) ctx.note(fmt::format("{}: {}", f.storage->name, f.storage->note));
  if (f.storage != nullptr && f.storage->block > 0)
    ctx.note(fmt::format("element limits above are for one {} element; a value is element x block scale{}", s.name,
                         f.storage->tensor_scale_bits > 0 ? " x tensor scale" : ""));
  if (f.storage != nullptr && f.storage->name == "mxint8")
    ctx.note("MXINT8 elements carry an implicit factor 2^-6: code 127 is 1.984375 before the block scale");
  add_info_tables(ctx, s);
}

}  // namespace

Calculator info_calculator() {
  Calculator c;
  c.name = "info";
  c.summary = "what a number format can hold: bits, range, precision, infinities and NaNs";
  c.description =
      "Floats: value = (-1)^s x 2^(e - bias) x (1 + m / 2^M) for exponent fields e > 0, (-1)^s x 2^(1 - bias) x m / 2^M "
      "for e = 0 (subnormals). The largest finite value uses the top exponent (IEEE-like formats keep it for Inf/NaN; "
      "E4M3 keeps only S.1111.111 for NaN, so 448 = 2^8 x 1.75; E5M2 gives 57,344 = 2^15 x 1.75). Machine epsilon is "
      "2^-M. Block formats show their element and block scale.";
  c.inputs = {dtype_input()};
  c.outputs = {
      {"bits", dims::information, "bits of one element code", "bit"},
      {"storage_bits_per_value", dims::information, "average bits per value in memory, block and group scales included", "bit"},
      {"exponent_bits", dims::none, "exponent field width"},
      {"mantissa_bits", dims::none, "mantissa (trailing significand) width; value bits for integers"},
      {"bias", dims::none, "exponent bias"},
      {"max_finite", dims::none, "largest finite value of one element"},
      {"min_finite", dims::none, "most negative value (integers)"},
      {"min_normal", dims::none, "smallest positive normal value"},
      {"min_subnormal", dims::none, "smallest positive subnormal value (the smallest normal when there are none)"},
      {"epsilon", dims::none, "machine epsilon: the gap between 1 and the next value, 2^-mantissa_bits"},
      {"codes", dims::none, "number of codes, 2^bits"},
      {"distinct_finite_values", dims::none, "distinct finite numbers the codes hold (+0 and -0 count once)"},
      {"dynamic_range_binades", dims::none, "log2(largest finite / smallest subnormal)"},
      {"block_values", dims::none, "values sharing one block scale"},
      {"scale_bits", dims::information, "bits of one block scale", "bit"},
      {"block_max", dims::none, "largest element times the largest block scale"},
  };
  c.run = run_info;
  c.source = __FILE__;
  c.tables = {
      {"codes", "every code of a format of at most 8 bits"},
      {"special_codes", "notable codes: largest, smallest, NaN, infinity"},
  };
  c.verdicts = {
      {"has_infinities", "the format has infinity codes"},
      {"has_nan", "the format has NaN codes"},
      {"saturates", "a plain cast saturates instead of overflowing"},
  };
  return c;
}

}  // namespace infracalc::formats
