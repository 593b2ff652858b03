#include "plugins/kv/kv_plugin.hpp"

#include <fmt/format.h>

#include "plugins/core/context.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/kv/kv_math.hpp"

namespace infracalc {

namespace {

// Resolves the attention layout: explicit --attention wins, otherwise the head counts decide.
Number resolve_kv_heads(Context& ctx) {
  const bool has_heads = ctx.has("heads");
  const bool has_kv = ctx.has("kv_heads");
  const std::string kind = ctx.has("attention") ? ctx.text("attention") : std::string();
  if (has_heads && has_kv && ctx.integer("kv_heads") > ctx.integer("heads"))
    throw UserError{{fmt::format("--kv-heads ({}) is larger than --heads ({})", ctx.integer("kv_heads"), ctx.integer("heads")),
                     "KV heads are at most the query heads"}};
  if (kind == "mha") {
    if (!has_heads) throw UserError{{"--attention mha needs --heads (every query head has its own KV head)", "give --heads N"}};
    if (has_kv && ctx.origin("kv_heads") == Origin::flag && ctx.integer("kv_heads") != ctx.integer("heads"))
      throw UserError{{"--attention mha contradicts --kv-heads: MHA has as many KV heads as query heads",
                       "drop --kv-heads or use --attention gqa"}};
    return Number::from_value(static_cast<double>(ctx.integer("heads")));
  }
  if (kind == "mqa") {
    if (has_kv && ctx.origin("kv_heads") == Origin::flag && ctx.integer("kv_heads") != 1)
      throw UserError{{"--attention mqa contradicts --kv-heads: MQA has one KV head", "drop --kv-heads"}};
    return Number::from_value(1.0);
  }
  if (!has_kv) throw UserError{{"missing --kv-heads (key/value heads per layer)", "give --kv-heads N, --attention mha|mqa, or --model ID"}};
  const auto kv = ctx.integer("kv_heads");
  if (has_heads && ctx.integer("heads") % kv != 0)
    throw UserError{{fmt::format("--kv-heads ({}) does not divide --heads ({})", kv, ctx.integer("heads")),
                     "in GQA each KV head serves the same number of query heads"}};
  return Number::from_value(static_cast<double>(kv));
}

void run_size(Context& ctx) {
  const StorageFormat* fmt = find_storage_format(ctx.text("dtype"));
  kv::KvShape shape{Number::from_value(static_cast<double>(ctx.integer("layers"))), resolve_kv_heads(ctx),
                    Number::from_value(static_cast<double>(ctx.integer("head_dim"))), bytes_per_value(*fmt)};
  const Bytes per_token = kv::bytes_per_token(shape);
  const Tokens tokens = ctx.get<Tokens>("tokens");
  const Number batch = Number::from_value(static_cast<double>(ctx.integer("batch")));
  ctx.set("kv_bytes_per_token", per_token);
  ctx.set("kv_per_sequence", kv::total(per_token, tokens, Number::from_value(1.0)));
  ctx.set("kv_total", kv::total(per_token, tokens, batch));
  ctx.set_number("kv_heads_used", shape.kv_heads.value());
  if (ctx.has("heads")) {
    const double heads = static_cast<double>(ctx.integer("heads"));
    ctx.set_number("factor_vs_mha", heads / shape.kv_heads.value());
  }
  if (ctx.has("budget")) {
    const Bytes budget = ctx.get<Bytes>("budget");
    const Bytes total = kv::total(per_token, tokens, batch);
    const bool fits = total <= budget;
    ctx.set("budget_headroom", budget - total);
    ctx.verdict("fits", fits,
                fits ? "the cache fits in --budget" : "the cache exceeds --budget; shorten the context, shrink the batch or use a smaller dtype");
    if (!fits && ctx.flag("require_fit")) ctx.fail_check();
  } else if (ctx.flag("require_fit")) {
    throw UserError{{"--require-fit needs --budget (the memory the cache may use)", "e.g. --budget 40GB"}};
  }
  ctx.note(fmt::format("bytes per token = 2 (K and V) x {} layers x {} KV heads x {} head dim x {} B ({})",
                       ctx.integer("layers"), shape.kv_heads.value(), ctx.integer("head_dim"),
                       shape.bytes_per_element.value(), fmt->name));
  ctx.note("every layer is counted with full attention over all tokens; sliding windows, MLA, paging waste and tensor-parallel splits are not applied here");
}

Plugin make_kv_plugin() {
  Plugin p;
  p.name = "kv";
  p.summary = "KV cache: bytes per token and totals for MHA, GQA and MQA";
  p.doc = "docs/kv.md";
  Calculator size;
  size.name = "size";
  size.summary = "KV-cache bytes per token and for tokens x batch";
  size.description =
      "kv_bytes_per_token = 2 x layers x kv_heads x head_dim x bytes_per_element; kv_total = kv_bytes_per_token x tokens "
      "x batch. MHA uses as many KV heads as query heads, MQA one, GQA a divisor of the query heads.";
  size.refs = {{"model", {"model"}, "model id from the catalog: sets layers, heads, KV heads and head dim"}};
  size.inputs = {
      {.name = "layers", .kind = InputKind::integer, .help = "transformer layers", .example = "80", .catalog = "model.layers"},
      {.name = "heads", .kind = InputKind::integer, .help = "query (attention) heads per layer", .example = "64",
       .catalog = "model.attention_heads", .optional = true},
      {.name = "kv_heads", .kind = InputKind::integer, .help = "key/value heads per layer", .example = "8",
       .catalog = "model.kv_heads", .optional = true},
      {.name = "head_dim", .kind = InputKind::integer, .help = "width of one attention head", .example = "128",
       .catalog = "model.head_dim"},
      {.name = "dtype", .kind = InputKind::choice, .help = "storage format of cached K and V", .default_value = "fp16",
       .example = "fp8", .choices = storage_format_names()},
      {.name = "tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "tokens held per sequence (context length)",
       .example = "128k"},
      {.name = "batch", .kind = InputKind::integer, .help = "sequences held at once", .default_value = "1", .example = "32"},
      {.name = "attention", .kind = InputKind::choice, .help = "attention layout (derived from head counts when omitted)",
       .example = "gqa", .choices = {"mha", "gqa", "mqa"}, .optional = true},
      {.name = "budget", .kind = InputKind::quantity, .dim = dims::information,
       .help = "memory the cache may use; adds a fits verdict", .example = "40GB", .optional = true},
      {.name = "require_fit", .kind = InputKind::flag, .help = "exit 1 when the cache does not fit in --budget"},
  };
  size.outputs = {
      {"kv_bytes_per_token", dims::information, "KV-cache bytes one token occupies (all layers, K and V)"},
      {"kv_per_sequence", dims::information, "KV-cache bytes of one sequence of --tokens tokens"},
      {"kv_total", dims::information, "KV-cache bytes for tokens x batch"},
      {"kv_heads_used", dims::none, "KV heads per layer after applying the attention layout"},
      {"factor_vs_mha", dims::none, "how many times smaller than full MHA (query heads / KV heads)"},
      {"budget_headroom", dims::information, "--budget minus kv_total (negative when it does not fit)"},
  };
  size.run = run_size;
  p.calculators.push_back(std::move(size));
  p.kernels = kv_kernels();
  return p;
}

}  // namespace

const Plugin& kv_plugin() {
  static const Plugin p = make_kv_plugin();
  return p;
}

}  // namespace infracalc
