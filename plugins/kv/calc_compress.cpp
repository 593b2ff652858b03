// `kv compress`: INT8/INT4, H2O, SnapKV, StreamingLLM and CacheGen against the full cache, and how each
// grows over a long generation.
#include <cmath>
#include <fmt/format.h>

#include "host/token_inputs.hpp"
#include "units/counts.hpp"
#include "plugins/kv/kv_arch.hpp"
#include "plugins/kv/kv_calculators.hpp"
#include "plugins/kv/kv_compress.hpp"

namespace infracalc::kv {

namespace {

constexpr Method kMethods[] = {Method::full, Method::int8, Method::int4, Method::h2o, Method::snapkv, Method::streaming, Method::cachegen};

void run_compress(Context& ctx) {
  const ModelArch m = *resolve_arch(ctx, true);
  CompressSettings s;
  const KvPrecision given = resolve_precision(ctx, false);
  s.base = given;
  if (!quantized(*given.format)) s.base = plain_precision(*given.format);
  s.int8 = given;
  s.int8.format = find_storage_format("int8");
  s.int4 = given;
  s.int4.format = find_storage_format("int4");
  s.h2o_ratio = ctx.number("h2o_ratio");
  s.snapkv_budget = whole_tokens(ctx, "snapkv_budget", 0, kMaxTokens);
  s.sinks = whole_tokens(ctx, "sinks", 0, kMaxTokens);
  s.window = whole_tokens(ctx, "window", 0, kMaxTokens);
  s.cachegen_ratio = ctx.number("cachegen_ratio");
  if (s.cachegen_ratio < 1.0) throw UserError{{"--cachegen-ratio must be at least 1 (it divides the cache)", "e.g. --cachegen-ratio 4"}};
  const std::int64_t prompt = whole_tokens(ctx, "prompt", 0, kMaxTokens);
  const std::int64_t generate = whole_tokens(ctx, "generate", 0, kMaxTokens);
  if (ctx.has("snapkv_ratio"))
    s.snapkv_budget = whole_count(ctx.number("snapkv_ratio") * static_cast<double>(prompt), Rounding::up,
                                  {"--snapkv-ratio", "tokens kept", "a ratio of at most 1"});
  const auto batch = Number::from_value(static_cast<double>(ctx.integer("batch")));

  const Bytes full = compressed_bytes(m, Method::full, s, prompt, generate, batch);
  Table t{"methods", fmt::format("cache after {} prompt + {} generated tokens", prompt, generate),
          {{"method"}, {"positions_kept", dims::token}, {"bytes", dims::information}, {"factor", dims::none}, {"grows"}, {"leaves_out"}},
          {}};
  for (const Method method : kMethods) {
    const Bytes b = compressed_bytes(m, method, s, prompt, generate, batch);
    const auto kept = retained_positions(method, s, prompt, generate);
    const std::string grows = method == Method::streaming ? "constant once full" : method == Method::h2o ? "linearly, at the ratio" : "linearly";
    t.rows.push_back({std::string(method_name(method)), Quantity{static_cast<double>(kept), dims::token}, to_quantity(b),
                      Quantity::number(full / b), grows, std::string(method_caveat(method))});
    ctx.set(std::string(method_name(method)) + "_bytes", b);
    if (method != Method::full) ctx.set_number(std::string(method_name(method)) + "_factor", full / b);
  }
  ctx.add_table(std::move(t));

  // Growth over the generation.
  const auto points = std::max<std::int64_t>(2, ctx.integer("points"));
  Table g{"growth", "cache growth over the generation",
          {{"generated", dims::token}, {"length", dims::token}}, {}};
  for (const Method method : kMethods) g.columns.push_back({std::string(method_name(method)), dims::information, ""});
  std::int64_t previous = -1;
  for (std::int64_t k = 0; k < points; ++k) {
    const std::int64_t gen = generate * k / (points - 1);
    if (gen == previous) continue;
    previous = gen;
    std::vector<Cell> row = {Quantity{static_cast<double>(gen), dims::token}, Quantity{static_cast<double>(prompt + gen), dims::token}};
    for (const Method method : kMethods) row.push_back(to_quantity(compressed_bytes(m, method, s, prompt, gen, batch)));
    g.rows.push_back(std::move(row));
  }
  ctx.add_table(std::move(g));

  ctx.note("layout: " + describe(m));
  ctx.note(fmt::format("settings: base {} ; H2O keeps {} of the sequence; SnapKV keeps {} prompt positions; StreamingLLM keeps {} "
                       "sinks + {} recent; CacheGen encodes {}x smaller than the base cache",
                       s.base.format->name, ctx.quote_percent(s.h2o_ratio), s.snapkv_budget, s.sinks, s.window,
                       ctx.quote_number(s.cachegen_ratio)));
  ctx.note("INT8/INT4 rows store the scales chosen with --kv-scales (default per tensor: none per token); eviction rows keep the base "
           "dtype; methods compose multiplicatively (e.g. H2O at 20% on an INT4 cache), not shown");
  ctx.note("sliding-window layers still cap at their window under every method");
}

}  // namespace

Calculator compress_calculator() {
  Calculator c;
  c.name = "compress";
  c.summary = "INT8/INT4, H2O, SnapKV, StreamingLLM and CacheGen caches: size, what they leave out, growth over a generation";
  c.description =
      "Positions kept per layer after P prompt and G generated tokens: full, INT8, INT4 and CacheGen keep P + G (INT8/INT4 at "
      "1 and 0.5 B per element plus scales; CacheGen divides the stored bytes by --cachegen-ratio); H2O keeps ceil(ratio x "
      "(P + G)); SnapKV keeps min(P, budget) + G (only the prompt is compressed); StreamingLLM keeps min(P + G, sinks + "
      "window), a constant. Bytes follow kv size at the kept positions; the growth table samples G from 0 to --generate.";
  c.refs = {model_ref()};
  c.inputs = arch_inputs();
  for (auto& in : precision_inputs()) c.inputs.push_back(in);
  c.inputs.push_back({.name = "prompt", .kind = InputKind::quantity, .dim = dims::token, .help = "prompt tokens", .example = "8000"});
  c.inputs.push_back({.name = "generate", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "tokens generated after the prompt", .default_value = "0", .example = "30000", .bound = Bound::non_negative});
  c.inputs.push_back({.name = "batch", .kind = InputKind::integer, .help = "sequences", .default_value = "1", .example = "8", .most = kMaxBatch, .most_why = kBatchWhy});
  c.inputs.push_back({.name = "h2o_ratio", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "H2O: share of the sequence kept (heavy hitters + recent); the paper's main setting is 20%",
                      .default_value = "20%", .example = "10%", .bound = Bound::fraction});
  c.inputs.push_back({.name = "snapkv_budget", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "SnapKV: prompt positions kept per layer (the paper tests 1024 to 4096)", .default_value = "1024",
                      .example = "2048"});
  c.inputs.push_back({.name = "snapkv_ratio", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "SnapKV: keep this share of the prompt instead of a fixed budget", .example = "50%",
                      .bound = Bound::fraction, .optional = true});
  c.inputs.push_back({.name = "sinks", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "StreamingLLM: attention-sink tokens kept at the start (the paper uses 4)", .default_value = "4",
                      .example = "4", .bound = Bound::non_negative});
  c.inputs.push_back({.name = "window", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "StreamingLLM: recent tokens kept (4 sinks + 1020 = the paper's 1024-token cache)",
                      .default_value = "1020", .example = "2044"});
  c.inputs.push_back({.name = "cachegen_ratio", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "CacheGen: stored size of the --dtype cache / encoded size", .default_value = "4", .example = "3.5"});
  c.inputs.push_back({.name = "points", .kind = InputKind::integer, .help = "rows of the growth table", .default_value = "9", .example = "20", .most = 1'000'000});
  c.outputs = {
      {"full_bytes", dims::information, "uncompressed cache at --dtype"},
      {"int8_bytes", dims::information, "INT8 cache (scales per --kv-scales)"},
      {"int8_factor", dims::none, "full / INT8"},
      {"int4_bytes", dims::information, "INT4 cache (scales per --kv-scales)"},
      {"int4_factor", dims::none, "full / INT4"},
      {"h2o_bytes", dims::information, "H2O cache"},
      {"h2o_factor", dims::none, "full / H2O"},
      {"snapkv_bytes", dims::information, "SnapKV cache"},
      {"snapkv_factor", dims::none, "full / SnapKV"},
      {"streamingllm_bytes", dims::information, "StreamingLLM cache (constant once sinks + window are full)"},
      {"streamingllm_factor", dims::none, "full / StreamingLLM"},
      {"cachegen_bytes", dims::information, "CacheGen-encoded cache"},
      {"cachegen_factor", dims::none, "full / CacheGen"},
  };
  c.run = run_compress;
  c.source = __FILE__;
  c.tables = {
      {"growth", "cache growth over the generation"},
      {"methods", "the cache under each compression method"},
  };
  return c;
}

}  // namespace infracalc::kv
