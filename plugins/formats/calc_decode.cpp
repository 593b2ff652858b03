// `formats decode`: what a code means in a format.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "plugins/formats/formats_calculators.hpp"

namespace infracalc::formats {

namespace {

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

}  // namespace

Calculator decode_calculator() {
  Calculator c;
  c.name = "decode";
  c.summary = "decode one code into its sign, exponent and mantissa fields and its value";
  c.description =
      "value = (-1)^s x 2^(e - bias) x (1 + m / 2^M), or x 2^(1 - bias) x (m / 2^M) when e = 0. E2M1 code 1110 is -4: "
      "sign 1, exponent 11 (3 - 1 = 2), mantissa 0. With --scale-code the element is multiplied by its block scale "
      "(E8M0 for MX, E4M3 for NVFP4) and --tensor-scale.";
  c.inputs = {
      dtype_input(),
      {.name = "code", .kind = InputKind::text, .help = "the code: binary digits (separators . _ | allowed) or hex 0x..",
       .example = "1110"},
      {.name = "scale_code", .kind = InputKind::text, .help = "block scale code of a block format (E8M0 or E4M3)",
       .example = "0x7f", .optional = true},
      {.name = "tensor_scale", .kind = InputKind::quantity, .dim = dims::none, .help = "NVFP4 per-tensor FP32 scale",
       .example = "0.01", .optional = true},
  };
  c.outputs = {
      {"value", dims::none, "the value of the code (absent for Inf and NaN)"},
      {"magnitude", dims::none, "absolute value"},
      {"sign", dims::none, "sign bit"},
      {"exponent_field", dims::none, "exponent field as stored"},
      {"mantissa_field", dims::none, "mantissa field as stored"},
      {"exponent", dims::none, "unbiased exponent (1 - bias for subnormals)"},
      {"significand", dims::none, "1.m for normals, 0.m for subnormals"},
      {"scale", dims::none, "decoded block scale"},
      {"scaled_value", dims::none, "element x block scale x tensor scale"},
  };
  c.run = run_decode;
  c.source = __FILE__;
  c.tables = {
      {"fields", "the code's fields: sign, exponent, mantissa"},
  };
  c.verdicts = {
      {"finite", "the code is a finite value (not NaN or infinity)"},
  };
  return c;
}

}  // namespace infracalc::formats
