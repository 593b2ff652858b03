// `formats bits`: bits per value and storage of a format, block and tensor scales included.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "plugins/formats/formats_calculators.hpp"
#include "plugins/formats/formats_math.hpp"

namespace infracalc::formats {

namespace {

Bytes bits(double b) { return from_base<Bytes>(b / 8.0); }

void run_bits(Context& ctx) {
  const FormatRef f = resolve_format(ctx.text("dtype"));
  const ElementSpec& s = *f.element;
  const double element_bits = f.storage != nullptr ? f.storage->element_bits : s.bits;
  int block = f.storage != nullptr ? f.storage->block : 0;
  std::string scale_name = f.storage != nullptr ? std::string(f.storage->scale) : std::string();
  int tensor_scale_bits = f.storage != nullptr && f.storage->block > 0 ? f.storage->tensor_scale_bits : 0;
  if (ctx.has("block")) {
    block = ctx.count("block");
    if (scale_name.empty()) scale_name = s.integer ? "fp16" : "e8m0";
    if (f.storage != nullptr && f.storage->block > 0 && block != f.storage->block)
      ctx.note(fmt::format("{} is defined with blocks of {}; --block {} describes a variant", f.storage->name, f.storage->block, block));
  }
  if (ctx.has("scale_format")) {
    if (block == 0) throw UserError{{"--scale-format needs a block: this format has no block scale", "add --block N (e.g. --block 128)"}};
    scale_name = ctx.text("scale_format");
  }
  const ElementSpec* scale = scale_name.empty() ? nullptr : find_element(scale_name);
  BitsLayout l;
  l.element = bits(element_bits);
  l.block = block;
  l.scale = bits(scale != nullptr ? scale->bits : 0);
  if (ctx.has("tensor_values")) {
    l.tensor_values = static_cast<double>(ctx.integer("tensor_values"));
    if (tensor_scale_bits == 0 && f.storage != nullptr) tensor_scale_bits = f.storage->tensor_scale_bits;
  }
  l.tensor_scale = bits(tensor_scale_bits);
  const std::string& sparsity = ctx.text("sparsity");
  if (sparsity == "2:4") {
    l.kept = 0.5;
    l.metadata = bits(2);
  }
  const BitsCost c = bits_cost(l);
  ctx.set("bits_per_value", c.per_value);
  ctx.set("element_bits", l.element);
  ctx.set("scale_bits_per_value", c.scale_per_value);
  ctx.set("bytes_per_value", c.per_value);
  if (block > 0) {
    ctx.set("block_bits", c.block);
    ctx.set("block_bytes", c.block);
    ctx.set("fp32_block_bits", static_cast<double>(block) * bits(32));
  }
  ctx.set_number("vs_fp32", 32.0 / (c.per_value.value() * 8));
  ctx.set_number("vs_fp16", 16.0 / (c.per_value.value() * 8));
  ctx.set_number("vs_fp8", 8.0 / (c.per_value.value() * 8));
  ctx.set_number("scale_overhead", c.scale_per_value.value() / (l.element.value() + c.scale_per_value.value()));
  if (ctx.has("count")) {
    const double n = ctx.number("count");
    ctx.set("total", n * c.per_value);
    ctx.set("naive_total", n * l.kept * l.element);
  }
  if (l.kept < 1.0) {
    ctx.set_number("sparsity", 1.0 - l.kept);
    ctx.set_number("max_sparse_speedup", sparse_speedup(l.kept));
    ctx.note("2:4 structured sparsity: two of every four values are zero; the hardware stores the two kept values and a 2-bit "
             "position index for each (Mishra et al. 2021), and can skip at most half the multiplies, so the speed-up is at most 2x");
  }
  std::string formula = fmt::format("{} bit element", element_bits);
  if (block > 0) formula += fmt::format(" + {} bit {} scale / {} values", scale != nullptr ? scale->bits : 0, scale_name, block);
  if (l.tensor_values > 0) formula += fmt::format(" + {} bit tensor scale / {} values", tensor_scale_bits, l.tensor_values);
  ctx.note("bits per value = " + formula);
  if (f.storage != nullptr && f.storage->tensor_scale_bits > 0 && l.tensor_values == 0)
    ctx.note(fmt::format("{} also keeps one {}-bit scale per tensor (give --tensor-values N to spread it; it is negligible for weight tensors)",
                         f.storage->name, f.storage->tensor_scale_bits));
  if (f.storage != nullptr && !f.storage->note.empty()) ctx.note(fmt::format("{}: {}", f.storage->name, f.storage->note));
}

}  // namespace

Calculator bits_calculator() {
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

}  // namespace infracalc::formats
