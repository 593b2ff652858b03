// `kv compare`: the same model's cache under MHA, GQA, MQA and MLA, side by side.
#include <fmt/format.h>

#include "plugins/kv/kv_arch.hpp"
#include "plugins/kv/kv_calculators.hpp"

namespace infracalc::kv {

namespace {

// A GQA group count for a model that is not GQA itself: 8 KV heads (the Llama 2 70B / Llama 3 choice) when
// that divides the query heads, else the largest divisor up to half the heads.
int default_gqa_heads(int heads) {
  if (heads > 8 && heads % 8 == 0) return 8;
  for (int g = heads / 2; g > 1; --g)
    if (heads % g == 0) return g;
  return 1;
}

void run_compare(Context& ctx) {
  const ModelArch m = *resolve_arch(ctx, true);
  if (m.attention_heads <= 0) throw UserError{{"kv compare needs --heads (query heads per layer)", "give --heads 64 or --model ID"}};
  const KvPrecision prec = resolve_precision(ctx);
  const Parallelism par = resolve_parallel(ctx, m);
  const Tokens tokens = ctx.get<Tokens>("tokens");
  note_context_limit(ctx, m, tokens);
  const Number batch = Number::from_value(static_cast<double>(ctx.integer("batch")));

  int gqa = m.layout == AttentionLayout::gqa && !m.mla ? m.kv_heads : default_gqa_heads(m.attention_heads);
  if (ctx.has("gqa_kv_heads")) gqa = ctx.count("gqa_kv_heads");
  if (gqa > m.attention_heads || m.attention_heads % gqa != 0)
    throw UserError{{fmt::format("--gqa-kv-heads ({}) must divide the query heads ({})", gqa, m.attention_heads), "e.g. --gqa-kv-heads 8"}};
  const int width = m.head_dim > 0 ? m.head_dim : (m.mla && m.mla->v_head_dim > 0 ? m.mla->v_head_dim : 0);
  int rank = m.mla ? m.mla->kv_lora_rank : 4 * width;
  int rope = m.mla ? m.mla->qk_rope_head_dim : width / 2;
  if (rank <= 0 || rope <= 0) throw UserError{{"kv compare needs --head-dim (or --kv-lora-rank and --rope-dim) to size the MLA row", "give --head-dim 128"}};

  struct Row {
    const char* name;
    ModelArch arch;
    std::string heads;
  };
  std::vector<Row> rows = {
      {"mha", with_layout(m, AttentionLayout::mha, m.attention_heads, 0, 0), fmt::format("{} KV heads", m.attention_heads)},
      {"gqa", with_layout(m, AttentionLayout::gqa, gqa, 0, 0), fmt::format("{} KV heads", gqa)},
      {"mqa", with_layout(m, AttentionLayout::mqa, 1, 0, 0), "1 KV head"},
      {"mla", with_layout(m, AttentionLayout::mla, m.kv_heads, rank, rope), fmt::format("latent {} + RoPE {}", rank, rope)},
  };
  const std::string own = m.mla ? "mla" : m.kv_heads == m.attention_heads ? "mha" : m.kv_heads == 1 ? "mqa" : "gqa";
  const Bytes mha_pos = bytes_per_position(rows[0].arch, prec, 1);
  Table t{"layouts", fmt::format("one model, four KV layouts ({} tok x {} sequences)", tokens.value(), batch.value()),
          {{"layout"},
           {"cached"},
           {"elements_per_layer", dims::none},
           {"bytes_per_token", dims::information},
           {"total", dims::information},
           {"per_device", dims::information},
           {"factor_vs_mha", dims::none},
           {"model_layout"}},
          {}};
  for (const auto& r : rows) {
    const CacheSize c = cache_size(r.arch, prec, tokens, batch, par);
    const Bytes pos = bytes_per_position(r.arch, prec, 1);
    const auto elements = static_cast<double>(vector_elements(position_vectors(r.arch, 1)));
    const double factor = mha_pos / pos;
    t.rows.push_back({std::string(r.name), r.heads, Quantity::number(elements), to_quantity(c.per_token), to_quantity(c.total),
                      to_quantity(c.per_device), Quantity::number(factor), std::string(own == r.name ? "yes" : "")});
    const std::string n = r.name;
    ctx.set(n + "_bytes_per_token", c.per_token);
    ctx.set(n + "_total", c.total);
    if (n != "mha") ctx.set_number(n + "_factor", factor);
  }
  ctx.add_table(std::move(t));
  ctx.note("model: " + describe(m));
  ctx.note("only the head layout changes between rows; layer count, sliding windows, shared layers, dtype and the tp/pp split stay the model's");
  if (!(m.layout == AttentionLayout::gqa && !m.mla) && !ctx.has("gqa_kv_heads"))
    ctx.note(fmt::format("GQA row: {} KV heads (give --gqa-kv-heads to choose another group count)", gqa));
  if (!m.mla)
    ctx.note(fmt::format("MLA row: latent {} = 4 x head dim and RoPE key {} = head dim / 2, the DeepSeek-V2 proportions "
                         "(give --kv-lora-rank and --rope-dim to choose others)",
                         rank, rope));
  else
    ctx.note("MHA/GQA/MQA rows of an MLA model cache its decompressed keys (qk_nope + qk_rope wide) and values (v_head_dim wide)");
}

}  // namespace

Calculator compare_calculator() {
  Calculator c;
  c.name = "compare";
  c.summary = "one model's KV cache under MHA, GQA, MQA and MLA side by side, and the factor against MHA";
  c.description =
      "Rebuilds the model with each KV layout and sizes it like kv size: MHA caches K and V for every query head, GQA for "
      "--gqa-kv-heads groups, MQA for one head, MLA a latent plus a decoupled RoPE key per layer (the model's own dims, or "
      "4 x and 1/2 x head dim as in DeepSeek-V2). factor_vs_mha = MHA bytes per position / the layout's. Layers, windows, "
      "sharing, dtype and parallel split are the same in every row.";
  c.refs = {model_ref()};
  c.inputs = arch_inputs();
  c.inputs.push_back({.name = "gqa_kv_heads", .kind = InputKind::integer,
                      .help = "KV heads of the GQA row (default: the model's own for a GQA model, else 8 when it divides the heads)",
                      .example = "8", .optional = true, .most = kMaxHeads, .most_why = kModelLimitWhy});
  for (auto& in : precision_inputs()) c.inputs.push_back(in);
  c.inputs.push_back({.name = "tokens", .kind = InputKind::quantity, .dim = dims::token,
                      .help = "tokens per sequence for the totals (default: the model's maximum context, else 8192)",
                      .default_value = "8192", .example = "128k", .catalog = "model.max_context"});
  c.inputs.push_back({.name = "batch", .kind = InputKind::integer, .help = "sequences", .default_value = "1", .example = "32", .most = kMaxBatch, .most_why = kBatchWhy});
  for (auto& in : parallel_inputs()) c.inputs.push_back(in);
  c.outputs = {
      {"mha_bytes_per_token", dims::information, "bytes per token under MHA"},
      {"mha_total", dims::information, "cache of --batch sequences of --tokens under MHA"},
      {"gqa_bytes_per_token", dims::information, "bytes per token under GQA"},
      {"gqa_total", dims::information, "cache under GQA"},
      {"gqa_factor", dims::none, "MHA bytes / GQA bytes (query heads / KV heads)"},
      {"mqa_bytes_per_token", dims::information, "bytes per token under MQA"},
      {"mqa_total", dims::information, "cache under MQA"},
      {"mqa_factor", dims::none, "MHA bytes / MQA bytes"},
      {"mla_bytes_per_token", dims::information, "bytes per token under MLA"},
      {"mla_total", dims::information, "cache under MLA"},
      {"mla_factor", dims::none, "MHA bytes / MLA bytes"},
  };
  c.run = run_compare;
  c.source = __FILE__;
  c.tables = {
      {"layouts", "one model's cache under each KV layout"},
  };
  return c;
}

}  // namespace infracalc::kv
