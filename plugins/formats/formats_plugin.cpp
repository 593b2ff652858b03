#include "plugins/formats/formats_plugin.hpp"

#include "plugins/formats/formats_run.hpp"

namespace infracalc {

namespace {

using namespace formats;

Input dtype_input() {
  return {.name = "dtype", .kind = InputKind::choice,
          .help = "number format: fp32 tf32 bf16 fp16, fp8 (= fp8-e4m3) fp8-e5m2, fp6-e3m2 fp6-e2m3, fp4-e2m1, int8 int4, "
                  "int8-g128 int4-g128 int4-g64 int4-g32 (FP16 group scales), mxfp8 mxfp8-e5m2 mxfp6 mxfp6-e3m2 mxfp4 mxint8 "
                  "(OCP MX), nvfp4, e8m0 (the MX scale)",
          .example = "fp8-e4m3", .choices = dtype_names()};
}

Calculator info_calc() {
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

Calculator decode_calc() {
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

Calculator encode_calc() {
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

Calculator bits_calc() {
  Calculator c;
  c.name = "bits";
  c.summary = "storage bits per value including block, group and tensor scales";
  c.description =
      "bits/value = element bits + scale bits / block (+ tensor scale bits / tensor values). MXFP4: 4 + 8/32 = 4.25 (a "
      "32-value block is 136 bits = 17 B); NVFP4: 4 + 8/16 = 4.5 plus one FP32 scale per tensor; INT4 with an FP16 "
      "scale per group of g: 4 + 16/g. 2:4 sparsity keeps half the values plus a 2-bit index for each.";
  c.inputs = {
      dtype_input(),
      {.name = "block", .kind = InputKind::integer, .help = "values per block or group scale (overrides the format's own)",
       .example = "128", .optional = true, .most = 1'048'576},
      {.name = "scale_format", .kind = InputKind::choice, .help = "block scale encoding (default: E8M0 for floats, FP16 for integers)",
       .example = "fp16", .choices = {"e8m0", "fp8-e4m3", "fp16", "bf16", "fp32"}, .optional = true},
      {.name = "tensor_values", .kind = InputKind::integer, .help = "values per tensor, to spread the per-tensor scale",
       .example = "16Mi", .optional = true},
      {.name = "count", .kind = InputKind::quantity, .dim = dims::none, .help = "number of values (e.g. parameters) to size",
       .example = "70e9", .optional = true},
      {.name = "sparsity", .kind = InputKind::choice, .help = "structured sparsity: none or 2:4", .default_value = "none",
       .choices = {"none", "2:4"}},
  };
  c.outputs = {
      {"bits_per_value", dims::information, "average bits per value, scales (and sparsity metadata) included", "bit"},
      {"element_bits", dims::information, "bits of one element", "bit"},
      {"scale_bits_per_value", dims::information, "scale bits spread over each value", "bit"},
      {"bytes_per_value", dims::information, "average bytes per value", "B"},
      {"block_bits", dims::information, "bits of one block: elements plus its scale", "bit"},
      {"block_bytes", dims::information, "bytes of one block", "B"},
      {"fp32_block_bits", dims::information, "the same block held in FP32", "bit"},
      {"vs_fp32", dims::none, "times smaller than FP32"},
      {"vs_fp16", dims::none, "times smaller than FP16/BF16"},
      {"vs_fp8", dims::none, "times smaller than FP8"},
      {"scale_overhead", dims::none, "share of the stored bits spent on scales"},
      {"total", dims::information, "bytes of --count values, scales included"},
      {"naive_total", dims::information, "bytes of --count values counting element bits only"},
      {"sparsity", dims::none, "share of values that are zero and not stored"},
      {"max_sparse_speedup", dims::none, "upper bound on the speed-up from skipping zeros: 1 / (1 - sparsity)"},
  };
  c.run = run_bits;
  c.source = __FILE__;
  return c;
}

Calculator error_calc() {
  Calculator c;
  c.name = "error";
  c.summary = "quantization error of formats on a seeded Gaussian tensor with injected outliers";
  c.description =
      "Draws --size values from N(0, 1) (splitmix64 + Box-Muller, seeded), replaces --outliers of them (or "
      "--outlier-share) with +-outlier_sigmas, quantizes the tensor in each format of --dtypes into real byte buffers, "
      "decodes it and reports RMS error, max error, SNR = 10 log10(sum x^2 / sum (x - q)^2), and the error on the bulk and "
      "on the outliers. '--size 32 --outliers 1' is the one-outlier block; int4 vs fp4-e2m1 compares grids.";
  c.inputs = {
      {.name = "dtypes", .kind = InputKind::text, .help = "formats to compare, separated by commas",
       .default_value = "int4,fp4-e2m1,int4-g32,mxfp4,nvfp4", .example = "int4,fp4-e2m1,mxfp4,nvfp4"},
      {.name = "size", .kind = InputKind::integer, .help = "values in the tensor", .default_value = "4096", .example = "65536",
       .most = 16'777'216, .most_why = "the statistics settle long before that"},
      {.name = "outliers", .kind = InputKind::integer, .help = "number of outliers (overrides --outlier-share)",
       .example = "1", .bound = Bound::non_negative, .optional = true},
      {.name = "outlier_share", .kind = InputKind::quantity, .dim = dims::none, .help = "share of values that are outliers",
       .default_value = "0.1%", .example = "0.5%", .bound = Bound::fraction0},
      {.name = "outlier_sigmas", .kind = InputKind::quantity, .dim = dims::none,
       .help = "outlier magnitude in standard deviations of the bulk", .default_value = "50", .example = "20"},
      {.name = "seed", .kind = InputKind::integer, .help = "random seed", .default_value = "1", .example = "7",
       .bound = Bound::non_negative, .most = kMaxSeed},
  };
  c.outputs = {
      {"signal_rms", dims::none, "RMS of the tensor"},
      {"outliers", dims::none, "outliers injected"},
      {"best_snr_db", dims::none, "the best signal-to-noise ratio among the formats, in dB"},
  };
  c.run = run_error;
  c.source = __FILE__;
  c.tables = {
      {"error", "quantization error of the format"},
  };
  return c;
}

Plugin make_formats_plugin() {
  Plugin p;
  p.name = "formats";
  p.doc = "docs/formats.md";
  p.calculators = {info_calc(), decode_calc(), encode_calc(), bits_calc(), error_calc()};
  p.kernels = formats_kernels();
  return p;
}

}  // namespace

const Plugin& formats_plugin() {
  static const Plugin p = make_formats_plugin();
  return p;
}

}  // namespace infracalc
