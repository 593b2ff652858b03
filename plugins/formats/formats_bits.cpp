// formats bits and error, and the helpers every formats calculator shares.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "host/number_list.hpp"
#include "plugins/formats/block.hpp"
#include "plugins/formats/error_study.hpp"
#include "plugins/formats/formats_math.hpp"
#include "plugins/formats/formats_run.hpp"
#include "units/suggest.hpp"

namespace infracalc::formats {

namespace {

Bytes bits(double b) { return from_base<Bytes>(b / 8.0); }

}  // namespace

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

void run_error(Context& ctx) {
  TensorRecipe r;
  r.count = static_cast<std::size_t>(ctx.integer("size"));
  r.outlier_sigmas = ctx.number("outlier_sigmas");
  r.seed = static_cast<std::uint64_t>(ctx.integer("seed"));
  if (ctx.has("outliers")) {
    r.outliers = static_cast<std::size_t>(ctx.integer("outliers"));
    if (r.outliers > r.count) throw UserError{{"--outliers: more outliers than values", "lower --outliers or raise --size"}};
  } else {
    r.outliers = static_cast<std::size_t>(std::llround(ctx.number("outlier_share") * static_cast<double>(r.count)));
  }
  const auto names = split_list(ctx.text("dtypes"), ", ");
  if (names.empty()) throw UserError{{"--dtypes: no format given", "e.g. --dtypes int4,fp4-e2m1,mxfp4,nvfp4"}};
  const SyntheticTensor t = make_tensor(r);
  double sig = 0;
  for (float x : t.values) sig += static_cast<double>(x) * x;
  ctx.set_number("signal_rms", std::sqrt(sig / static_cast<double>(r.count)));
  ctx.set_number("outliers", static_cast<double>(r.outliers));
  Table tab{"error",
            "quantization error",
            {{"format", {}, {}},
             {"bits_per_value", dims::information, "bit"},
             {"bytes", dims::information, {}},
             {"rms_error", dims::none, {}},
             {"max_error", dims::none, {}},
             {"snr_db", dims::none, {}},
             {"rms_error_bulk", dims::none, {}},
             {"rms_error_outliers", dims::none, {}},
             {"zeroed_share", dims::none, {}}},
            {}};
  double best = -1e300;
  std::string best_name;
  for (const auto& n : names) {
    const StorageFormat* sf = find_storage_format(n);
    if (sf == nullptr) {
      const auto all = storage_format_names();
      throw UserError{{"--dtypes: unknown format \"" + n + "\"", did_you_mean(n, all)}};
    }
    if (sf->name == "fp32") throw UserError{{"--dtypes: fp32 reproduces an FP32 tensor exactly; there is no error to measure", "drop fp32"}};
    const ErrorStats e = measure_error(t, layout_of(*sf));
    if (!std::isfinite(e.snr_db)) throw UserError{{"--dtypes: " + n + " reproduces this tensor exactly", "drop it from the list"}};
    tab.rows.push_back({std::string(sf->name), Quantity{8.0 * static_cast<double>(e.bytes) / static_cast<double>(r.count) / 8.0, dims::information},
                        Quantity{static_cast<double>(e.bytes), dims::information}, Quantity::number(e.rms), Quantity::number(e.max_abs),
                        Quantity::number(e.snr_db), Quantity::number(e.rms_bulk), Quantity::number(e.rms_outliers),
                        Quantity::number(e.zeroed_share)});
    if (e.snr_db > best) {
      best = e.snr_db;
      best_name = std::string(sf->name);
    }
  }
  ctx.add_table(std::move(tab));
  ctx.set_number("best_snr_db", best);
  ctx.note(fmt::format("tensor: {} values N(0, 1) from seed {}, with {} outliers of magnitude {} sigma at random positions and signs",
                       r.count, r.seed, r.outliers, r.outlier_sigmas));
  ctx.note("best signal-to-noise ratio: " + best_name);
  ctx.note("bits_per_value and bytes count what is stored: elements, block scales and the FP32 tensor scale");
  ctx.note("per-tensor formats (int4, fp4-e2m1, fp8) scale by the tensor's largest magnitude, so one outlier coarsens every value; "
           "block formats confine it to its block of 32 (MX) or 16 (NVFP4)");
}

}  // namespace infracalc::formats
