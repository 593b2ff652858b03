// `formats encode`: which code a value gets, with the rounding and range it meets.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "host/number_list.hpp"
#include "plugins/formats/block.hpp"
#include "plugins/formats/codec.hpp"
#include "plugins/formats/formats_calculators.hpp"

namespace infracalc::formats {

namespace {

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
      t.rows.push_back({Quantity::number(in[i]), code_text(s, c), Quantity::number(back[i]), Quantity::number(err)});
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
        st.rows.push_back({Quantity::number(static_cast<double>(b)), code_text(sc, c), Quantity::number(decode_code(sc, c).value)});
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

}  // namespace

Calculator encode_calculator() {
  Calculator c;
  c.name = "encode";
  c.summary = "round a value (or a block of values) into a format: round to nearest even, saturating as specified";
  c.description =
      "Round to nearest, ties to even. FP8 casts overflow to Inf (E5M2) or NaN (E4M3) unless --saturate yes; FP6, FP4 "
      "and integers always saturate. Block formats (MX, NVFP4, group-scaled integers) encode --values as whole blocks: "
      "MX scale 2^(floor(log2 amax) - emax), NVFP4 scale amax / 6 rounded to E4M3 under an FP32 tensor scale.";
  c.inputs = {
      dtype_input(),
      {.name = "value", .kind = InputKind::quantity, .dim = dims::none, .help = "one value to encode", .example = "3.3",
       .bound = Bound::any, .optional = true},
      {.name = "values", .kind = InputKind::text, .help = "values separated by commas, encoded as one tensor (block formats)",
       .example = "0.1,2.5,-7", .optional = true},
      {.name = "saturate", .kind = InputKind::choice,
       .help = "overflow: default (as the format specifies), yes (clamp to the largest finite), no (Inf or NaN)",
       .default_value = "default", .choices = {"default", "yes", "no"}},
      {.name = "scale", .kind = InputKind::quantity, .dim = dims::none,
       .help = "divide the value by this scale before encoding (a per-tensor or group scale)", .example = "0.05",
       .optional = true},
  };
  c.outputs = {
      {"code", dims::none, "the code as an unsigned integer"},
      {"decoded", dims::none, "the value the code holds (times --scale)"},
      {"error", dims::none, "decoded - value"},
      {"relative_error", dims::none, "(decoded - value) / |value|"},
      {"spacing", dims::none, "gap between neighbouring representable values at this magnitude"},
      {"rms_error", dims::none, "root-mean-square error over --values"},
      {"max_error", dims::none, "largest absolute error over --values"},
      {"stored_bytes", dims::information, "bytes the encoded values occupy, scales included"},
      {"tensor_scale", dims::none, "NVFP4 FP32 tensor scale"},
  };
  c.run = run_encode;
  c.source = __FILE__;
  c.tables = {
      {"encoding", "how the value was encoded"},
      {"scales", "block scales of the tensor"},
      {"values", "each value, its code and what it decodes to"},
  };
  c.verdicts = {
      {"exact", "the value encodes without rounding"},
      {"in_range", "the value is within the format's finite range"},
  };
  return c;
}

}  // namespace infracalc::formats
