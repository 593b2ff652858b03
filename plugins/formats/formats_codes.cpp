// formats info, decode and encode: what a format can hold, what a code means, which code a value gets.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "host/number_list.hpp"
#include "plugins/formats/block.hpp"
#include "plugins/formats/codec.hpp"
#include "plugins/formats/formats_run.hpp"
#include "units/format.hpp"

namespace infracalc::formats {

namespace {

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

Quantity num(double v) { return Quantity::number(v); }

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

bool resolve_saturate(Context& ctx, const ElementSpec& s) {
  const std::string& mode = ctx.text("saturate");
  if (mode == "default") return s.saturates;
  if (mode == "no" && s.special == Special::finite)
    throw UserError{{fmt::format("--saturate no: {} has no infinity or NaN, so out-of-range values always saturate", s.name),
                     "drop --saturate, or use --saturate yes"}};
  return mode == "yes";
}

// The spacing of representable values at |x| (the quantum the rounding works in).
double spacing_at(const ElementSpec& s, double x) {
  if (s.integer) return 1.0;
  const double a = std::fabs(x);
  if (s.special == Special::exponent) return a > 0 ? std::ldexp(1.0, std::ilogb(a)) : 0.0;
  if (a < min_normal(s)) return min_subnormal(s);
  return std::ldexp(1.0, std::min(std::ilogb(a), emax(s)) - s.man_bits);
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
      all.rows.push_back({code_text(s, c), std::string(class_name(d.cls)), num(d.value)});
    }
    ctx.add_table(std::move(all));
  }
}

}  // namespace

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

void run_decode(Context& ctx) {
  const FormatRef f = resolve_format(ctx.text("dtype"));
  const ElementSpec& s = *f.element;
  const std::uint32_t code = parse_code(s, ctx.text("code"), "--code");
  const Decoded d = decode_code(s, code);
  const bool finite = std::isfinite(d.value);
  if (finite) {
    ctx.set_number("value", d.value);
    ctx.set_number("magnitude", std::fabs(d.value));
  }
  ctx.set_number("sign", d.sign);
  if (!s.integer) {
    ctx.set_number("exponent_field", d.exp_field);
    ctx.set_number("mantissa_field", d.man_field);
    if (d.cls == CodeClass::normal || d.cls == CodeClass::subnormal) {
      const int e = s.special == Special::exponent ? static_cast<int>(d.exp_field) - s.bias
                    : d.cls == CodeClass::normal  ? static_cast<int>(d.exp_field) - s.bias
                                                  : 1 - s.bias;
      ctx.set_number("exponent", e);
      ctx.set_number("significand", std::ldexp(std::fabs(d.value), -e));
    }
  }
  ctx.verdict("finite", finite, fmt::format("{} code", class_name(d.cls)));
  Table t{"fields", "fields", {{"field", {}, {}}, {"bits", {}, {}}, {"meaning", {}, {}}}, {}};
  const std::string bits = code_text(s, code);
  if (s.integer) {
    t.rows.push_back({std::string("two's complement"), bits, value_text(d.value)});
  } else if (s.special == Special::exponent) {
    t.rows.push_back({std::string("exponent"), bits, d.cls == CodeClass::nan ? std::string("NaN")
                                                                           : fmt::format("2^({} - 127)", d.exp_field)});
  } else {
    const std::string e_bits = bits.substr(2, static_cast<std::size_t>(s.exp_bits));
    const std::string m_bits = bits.substr(3 + static_cast<std::size_t>(s.exp_bits));
    t.rows.push_back({std::string("sign"), bits.substr(0, 1), std::string(d.sign != 0 ? "negative" : "positive")});
    std::string e_meaning, m_meaning;
    switch (d.cls) {
      case CodeClass::normal:
        e_meaning = fmt::format("{} - bias {} = {}", d.exp_field, s.bias, static_cast<int>(d.exp_field) - s.bias);
        m_meaning = fmt::format("1 + {}/{} = {}", d.man_field, 1u << s.man_bits, 1.0 + std::ldexp(d.man_field, -s.man_bits));
        break;
      case CodeClass::subnormal:
      case CodeClass::zero:
        e_meaning = fmt::format("0: subnormal, exponent 1 - bias = {}", 1 - s.bias);
        m_meaning = fmt::format("0 + {}/{} = {}", d.man_field, 1u << s.man_bits, std::ldexp(d.man_field, -s.man_bits));
        break;
      case CodeClass::infinity:
        e_meaning = "all ones";
        m_meaning = "zero: infinity";
        break;
      case CodeClass::nan:
        e_meaning = "all ones";
        m_meaning = "NaN";
        break;
    }
    t.rows.push_back({std::string("exponent"), e_bits, e_meaning});
    t.rows.push_back({std::string("mantissa"), m_bits, m_meaning});
  }
  ctx.add_table(std::move(t));
  ctx.note(fmt::format("{} {} = {} ({})", s.name, bits, value_text(d.value), class_name(d.cls)));
  if (ctx.has("scale_code")) {
    if (f.storage == nullptr || f.storage->block == 0)
      throw UserError{{fmt::format("--scale-code: {} has no block scale", s.name), "use a block format: mxfp8, mxfp6, mxfp4, mxint8, nvfp4"}};
    const ElementSpec& sc = *find_element(f.storage->scale);
    const std::uint32_t scode = parse_code(sc, ctx.text("scale_code"), "--scale-code");
    const double scale = std::fabs(decode_code(sc, scode).value);
    double elem = d.value;
    if (f.storage->name == "mxint8") elem /= 64.0;
    const double tensor = ctx.has("tensor_scale") ? ctx.number("tensor_scale") : 1.0;
    if (std::isfinite(scale) && finite) {
      ctx.set_number("scale", scale);
      ctx.set_number("scaled_value", elem * scale * tensor);
      ctx.note(fmt::format("value = element {} x scale {} ({} {}){}", value_text(elem), value_text(scale), sc.name,
                           code_text(sc, scode), tensor != 1.0 ? fmt::format(" x tensor scale {}", value_text(tensor)) : ""));
    } else {
      ctx.note("the block scale or the element is NaN: every value of the block decodes to NaN");
    }
  } else if (ctx.has("tensor_scale")) {
    throw UserError{{"--tensor-scale needs --scale-code", "give the block scale code too"}};
  }
}

void run_encode(Context& ctx) {
  const FormatRef f = resolve_format(ctx.text("dtype"));
  const ElementSpec& s = *f.element;
  const bool has_value = ctx.has("value"), has_values = ctx.has("values");
  if (has_value == has_values)
    throw UserError{{"formats encode: give exactly one of --value X or --values LIST", "e.g. --value 3.3 or --values 0.1,2.5,-7"}};
  const bool block = f.storage != nullptr && f.storage->block > 0;
  if (block || has_values) {
    // Whole blocks go through the tensor quantizer: scale selection as the format specifies.
    if (ctx.has("scale")) throw UserError{{"--scale applies to single element codes", "block formats choose their own scales"}};
    const std::vector<double> in = has_values ? parse_number_list(ctx.text("values"), "--values", 65536) : std::vector<double>{ctx.number("value")};
    std::vector<float> x(in.begin(), in.end());
    const TensorLayout L = f.storage != nullptr ? layout_of(*f.storage) : TensorLayout{std::string(s.name), s.id};
    if (!block && L.scaling == Scaling::tensor) ctx.note("per-tensor scale: the list's largest magnitude maps to the largest element value");
    const QuantizedTensor q = quantize(x, L);
    std::vector<float> back(x.size());
    dequantize(q, back);
    Table t{"values", "encoded values",
            {{"input", dims::none, {}}, {"code", {}, {}}, {"decoded", dims::none, {}}, {"error", dims::none, {}}}, {}};
    std::vector<std::uint8_t> codes(x.size());
    const int bits = s.bits;
    if (bits == 4) unpack4(q.payload, codes);
    else if (bits == 6) unpack6(q.payload, codes);
    double sq = 0, mx = 0;
    bool rounded_input = false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double err = static_cast<double>(back[i]) - in[i];
      rounded_input = rounded_input || static_cast<double>(x[i]) != in[i];
      sq += err * err;
      mx = std::max(mx, std::fabs(err));
      const std::uint32_t c = bits <= 6 ? codes[i] : (bits == 8 ? q.payload[i] : encode_fast(s.id, x[i], false));
      t.rows.push_back({num(in[i]), code_text(s, c), num(back[i]), num(err)});
    }
    ctx.set_number("rms_error", std::sqrt(sq / static_cast<double>(x.size())));
    ctx.set_number("max_error", mx);
    ctx.set("stored_bytes", from_base<Bytes>(static_cast<double>(q.bytes())));
    if (block) {
      const ElementSpec& sc = spec(L.scale);
      const std::size_t sw = static_cast<std::size_t>((sc.bits + 7) / 8);
      Table st{"scales", "block scales", {{"block", dims::none, {}}, {"code", {}, {}}, {"scale", dims::none, {}}}, {}};
      for (std::size_t b = 0; b * sw < q.scales.size(); ++b) {
        std::uint32_t c = 0;
        for (std::size_t k = 0; k < sw; ++k) c |= static_cast<std::uint32_t>(q.scales[b * sw + k]) << (8 * k);
        st.rows.push_back({num(static_cast<double>(b)), code_text(sc, c), num(decode_code(sc, c).value)});
      }
      ctx.add_table(std::move(st));
      if (L.tensor_scale) ctx.set_number("tensor_scale", q.tensor_scale);
      ctx.note(L.scale == Elem::e8m0
                   ? "MX scale: 2^(floor(log2(block amax)) - emax of the element), elements rounded to nearest even and clamped (OCP MX v1.0 section 6)"
                   : "NVFP4: tensor scale = amax / (6 x 448); block scale = block amax / 6 / tensor scale rounded to E4M3; elements rounded to nearest even and clamped");
    }
    if (rounded_input) ctx.note("inputs were rounded to FP32 first, as a tensor in memory would be");
    ctx.add_table(std::move(t));
    return;
  }
  const bool sat = resolve_saturate(ctx, s);
  const double scale = ctx.has("scale") ? ctx.number("scale") : 1.0;
  const double x = ctx.number("value") / scale;
  if (s.special == Special::exponent && !(x > 0))
    throw UserError{{"--value: E8M0 holds only positive powers of two", "give a value above zero"}};
  const Encoded e = encode_value(s, x, sat);
  const Decoded d = decode_code(s, e.code);
  ctx.set_number("code", e.code);
  const bool finite = std::isfinite(d.value);
  if (finite) {
    ctx.set_number("decoded", d.value * scale);
    ctx.set_number("error", d.value * scale - x * scale);
    if (x != 0) ctx.set_number("relative_error", (d.value - x) / std::fabs(x));
    ctx.set_number("spacing", spacing_at(s, x) * scale);
  }
  ctx.verdict("exact", finite && d.value == x, finite && d.value == x ? "the value is representable" : "the value was rounded");
  ctx.verdict("in_range", !e.saturated && !e.overflowed,
              e.saturated    ? fmt::format("beyond the largest finite value {}: clamped", value_text(max_finite(s)))
              : e.overflowed ? fmt::format("beyond the largest finite value {}: {}", value_text(max_finite(s)), class_name(d.cls))
                             : "within the finite range");
  Table t{"encoding", "encoding", {{"code", {}, {}}, {"class", {}, {}}, {"value", {}, {}}}, {}};
  t.rows.push_back({code_text(s, e.code), std::string(class_name(d.cls)), value_text(d.value)});
  ctx.add_table(std::move(t));
  ctx.note(fmt::format("{} -> {} {} = {} (round to nearest, ties to even{})", value_text(x), s.name, code_text(s, e.code),
                       value_text(d.value), sat ? ", saturating" : ", overflow to Inf/NaN"));
  if (scale != 1.0) ctx.note(fmt::format("the value was divided by --scale {} before encoding and the decoded value multiplied back", value_text(scale)));
  if (f.storage != nullptr && f.storage->tensor_scale_bits > 0 && scale == 1.0)
    ctx.note(fmt::format("{} tensors carry a per-tensor scale; here the scale is 1 (give --scale to apply one)", f.storage->name));
}

}  // namespace infracalc::formats
