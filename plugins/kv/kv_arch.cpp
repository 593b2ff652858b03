#include "plugins/kv/kv_arch.hpp"

#include <algorithm>
#include <optional>
#include <tuple>
#include <fmt/format.h>

#include "units/counts.hpp"
#include "units/format.hpp"

namespace infracalc::kv {

namespace {

bool from_flag(const Context& ctx, std::string_view key) { return ctx.has(key) && ctx.origin(key) == Origin::flag; }

// "5:1" is five sliding layers then one full layer, repeated; a comma list spells the cycle out
// ("sliding,full" or "s,f"); "full" makes every layer full attention.
std::vector<LayerAttention> parse_layer_pattern(const std::string& text) {
  const std::string hint = "e.g. --layer-pattern 5:1 (five sliding layers, then one full), or sliding,full";
  std::vector<LayerAttention> out;
  if (const auto colon = text.find(':'); colon != std::string::npos) {
    int local = -1, global = -1;
    try {
      std::size_t a = 0, b = 0;
      local = std::stoi(text.substr(0, colon), &a);
      global = std::stoi(text.substr(colon + 1), &b);
      if (a != colon || b != text.size() - colon - 1) local = -1;
    } catch (const std::exception&) {
      local = -1;
    }
    if (local < 0 || global < 0 || local + global == 0 || local + global > 1000)
      throw UserError{{"--layer-pattern: expected LOCAL:GLOBAL layer counts, got \"" + text + "\"", hint}};
    out.assign(static_cast<std::size_t>(local), LayerAttention::sliding);
    out.insert(out.end(), static_cast<std::size_t>(global), LayerAttention::full);
    return out;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item == "sliding" || item == "s" || item == "local") out.push_back(LayerAttention::sliding);
    else if (item == "full" || item == "f" || item == "global") out.push_back(LayerAttention::full);
    else throw UserError{{"--layer-pattern: \"" + item + "\" is not a layer kind (sliding or full)", hint}};
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Applies --attention to an architecture whose head counts are already resolved.
void apply_attention(Context& ctx, ModelArch& m) {
  const std::string kind = ctx.has("attention") ? ctx.text("attention") : std::string();
  const bool kv_flag = from_flag(ctx, "kv_heads");
  if (kind == "mha") {
    if (m.attention_heads <= 0) throw UserError{{"--attention mha needs --heads (every query head has its own KV head)", "give --heads N"}};
    if (kv_flag && m.kv_heads != m.attention_heads)
      throw UserError{{"--attention mha contradicts --kv-heads: MHA has as many KV heads as query heads",
                       "drop --kv-heads or use --attention gqa"}};
    m = with_layout(m, AttentionLayout::mha, m.attention_heads, 0, 0);
  } else if (kind == "mqa") {
    if (kv_flag && m.kv_heads != 1)
      throw UserError{{"--attention mqa contradicts --kv-heads: MQA has one KV head", "drop --kv-heads"}};
    m = with_layout(m, AttentionLayout::mqa, 1, 0, 0);
  } else if (kind == "gqa") {
    if (m.kv_heads <= 0) throw UserError{{"--attention gqa needs --kv-heads (key/value heads per layer)", "give --kv-heads N"}};
    m = with_layout(m, AttentionLayout::gqa, m.kv_heads, 0, 0);
  } else if (kind == "mla" || (kind.empty() && !m.mla && (from_flag(ctx, "kv_lora_rank") || from_flag(ctx, "rope_dim")))) {
    const int rank = ctx.has("kv_lora_rank") ? ctx.count("kv_lora_rank") : (m.mla ? m.mla->kv_lora_rank : 0);
    const int rope = ctx.has("rope_dim") ? ctx.count("rope_dim") : (m.mla ? m.mla->qk_rope_head_dim : 0);
    if (rank <= 0) throw UserError{{"--attention mla needs --kv-lora-rank (width of the cached latent)", "e.g. --kv-lora-rank 512 (DeepSeek-V2/V3)"}};
    if (rope <= 0) throw UserError{{"--attention mla needs --rope-dim (width of the decoupled RoPE key)", "e.g. --rope-dim 64 (DeepSeek-V2/V3)"}};
    m = with_layout(m, AttentionLayout::mla, m.kv_heads, rank, rope);
  } else if (m.mla && (from_flag(ctx, "kv_lora_rank") || from_flag(ctx, "rope_dim"))) {
    if (ctx.has("kv_lora_rank")) m.mla->kv_lora_rank = ctx.count("kv_lora_rank");
    if (ctx.has("rope_dim")) m.mla->qk_rope_head_dim = ctx.count("rope_dim");
  }
}

void check_heads(const ModelArch& m) {
  if (m.mla) return;
  if (m.kv_heads <= 0)
    throw UserError{{"missing --kv-heads (key/value heads per layer)", "give --kv-heads N, --attention mha|mqa, or --model ID"}};
  if (m.head_dim <= 0) throw UserError{{"missing --head-dim (width of one attention head)", "give --head-dim N or --model ID"}};
  if (m.attention_heads > 0 && m.kv_heads > m.attention_heads)
    throw UserError{{fmt::format("--kv-heads ({}) is larger than --heads ({})", m.kv_heads, m.attention_heads),
                     "KV heads are at most the query heads"}};
  if (m.attention_heads > 0 && m.attention_heads % m.kv_heads != 0)
    throw UserError{{fmt::format("--kv-heads ({}) does not divide --heads ({})", m.kv_heads, m.attention_heads),
                     "in GQA each KV head serves the same number of query heads"}};
}

}  // namespace

std::vector<Input> arch_inputs() {
  return {
      {.name = "layers", .kind = InputKind::integer, .help = "transformer layers", .example = "80", .catalog = "model.layers",
       .optional = true, .most = kMaxLayers, .most_why = kModelLimitWhy},
      {.name = "heads", .kind = InputKind::integer, .help = "query (attention) heads per layer", .example = "64",
       .catalog = "model.attention_heads", .optional = true, .most = kMaxHeads, .most_why = kModelLimitWhy},
      {.name = "kv_heads", .kind = InputKind::integer, .help = "key/value heads per layer (GQA; = heads for MHA, 1 for MQA)",
       .example = "8", .catalog = "model.kv_heads", .optional = true, .most = kMaxHeads, .most_why = kModelLimitWhy},
      {.name = "head_dim", .kind = InputKind::integer, .help = "width of one attention head", .example = "128",
       .catalog = "model.head_dim", .optional = true, .most = kMaxHeadDim, .most_why = kModelLimitWhy},
      {.name = "attention", .kind = InputKind::choice,
       .help = "attention layout; overrides the model file's (default: the model's, or derived from the head counts)",
       .example = "gqa", .choices = {"mha", "gqa", "mqa", "mla"}, .optional = true},
      {.name = "kv_lora_rank", .kind = InputKind::integer,
       .help = "MLA: width of the cached compressed KV latent (default: the model file's)", .example = "512", .optional = true, .most = kMaxWidth, .most_why = kModelLimitWhy},
      {.name = "rope_dim", .kind = InputKind::integer,
       .help = "MLA: width of the decoupled RoPE key cached beside the latent (default: the model file's)", .example = "64",
       .optional = true, .most = kMaxHeadDim, .most_why = kModelLimitWhy},
      {.name = "sliding_window", .kind = InputKind::integer, .dim = dims::token,
       .help = "window of sliding-window layers in tokens (default: the model file's); every layer slides unless "
               "--layer-pattern says otherwise",
       .example = "1024", .optional = true},
      {.name = "layer_pattern", .kind = InputKind::text,
       .help = "sliding/full layer cycle from the first layer: LOCAL:GLOBAL counts (5:1 = five sliding then one full) "
               "or a list (sliding,full); 'full' turns windows off (default: the model file's)",
       .example = "5:1", .optional = true},
      {.name = "shared_layers", .kind = InputKind::integer,
       .help = "layers at the top of the stack that reuse an earlier layer's cache and store none (default: the model file's)",
       .example = "0", .bound = Bound::non_negative, .optional = true, .most = kMaxLayers, .most_why = kModelLimitWhy},
  };
}

std::vector<Input> precision_inputs() {
  return {
      {.name = "dtype", .kind = InputKind::choice, .help = "storage format of cached K and V elements", .default_value = "fp16",
       .example = "fp8", .choices = storage_format_names()},
      {.name = "kv_scales", .kind = InputKind::choice,
       .help = "quantization scales stored with a fp8/int8/int4 cache: tensor (one per tensor, nothing per token), head "
               "(one per token per KV head or MLA vector), group (one per --kv-group-size elements)",
       .default_value = "tensor", .example = "group", .choices = {"tensor", "head", "group"}},
      {.name = "kv_group_size", .kind = InputKind::integer, .help = "elements that share one scale with --kv-scales group",
       .default_value = "32", .example = "64", .most = 1'048'576},
      {.name = "scale_dtype", .kind = InputKind::choice, .help = "storage format of each scale (and zero point)",
       .default_value = "fp16", .example = "fp32", .choices = {"fp16", "bf16", "fp32"}},
      {.name = "zero_point", .kind = InputKind::flag,
       .help = "asymmetric quantization: a zero point of --scale-dtype width is stored with every scale"},
  };
}

std::vector<Input> parallel_inputs() {
  return {
      {.name = "tp", .kind = InputKind::integer,
       .help = "tensor-parallel ranks: KV heads are split across them (replicated past the KV head count; an MLA latent "
               "is replicated on every rank)",
       .default_value = "1", .example = "8", .most = kMaxParallel, .most_why = kParallelWhy},
      {.name = "pp", .kind = InputKind::integer,
       .help = "pipeline stages: layers are split into consecutive blocks of ceil(layers / pp)", .default_value = "1",
       .example = "2", .most = kMaxParallel, .most_why = kParallelWhy},
  };
}

CatalogRef model_ref() {
  return {"model", {"model"},
          "model id from the catalog: sets layers, heads, KV heads, head dim, the attention layout (MLA dims, sliding "
          "windows, layer pattern, shared layers) and the parameter count"};
}

namespace {

// Which of a model's cited fields describe its cache. Found once per model and catalog generation rather than in
// every batch record naming it.
const std::vector<char>& cache_fields(const ModelArchRead& read) {
  struct Known {
    const ModelArchRead* read;
    std::uint64_t generation;
    std::vector<char> cache;
  };
  thread_local std::vector<Known> known;
  const std::uint64_t generation = Catalog::instance().generation();
  for (const auto& k : known)
    if (k.read == &read && k.generation == generation && k.cache.size() == read.cited.size()) return k.cache;
  std::vector<char> cache;
  cache.reserve(read.cited.size());
  for (const auto& p : read.cited)
    cache.push_back(static_cast<char>(p.field == "layers" || p.field == "attention_heads" || p.field == "kv_heads" || p.field == "head_dim" ||
                                      p.field.rfind("attention.", 0) == 0 || p.field.rfind("ssm.", 0) == 0));
  if (known.size() >= 16) known.erase(known.begin());
  known.push_back({&read, generation, std::move(cache)});
  return known.back().cache;
}

}  // namespace

std::optional<ModelArch> resolve_arch(Context& ctx, bool required, bool cite_all) {
  ModelArch m;
  const Entry* model = ctx.ref("model");
  if (model != nullptr) {
    const ModelArchRead& read = model->model_arch();
    const auto& arch = read.arch;
    if (!arch) throw UserError{arch.error()};
    const std::vector<char>& cache_field = cache_fields(read);
    for (std::size_t i = 0; i < read.cited.size(); ++i)
      if (cite_all || cache_field[i]) ctx.cite(read.cited[i]);
    m = *arch;
  } else {
    const bool any = ctx.has("layers") || ctx.has("kv_heads") || ctx.has("head_dim") || ctx.has("heads") ||
                     ctx.has("attention") || ctx.has("kv_lora_rank");
    if (!any && !required) return std::nullopt;
    if (!ctx.has("layers")) throw UserError{{"missing --layers (transformer layers)", "give --layers 80 or --model ID"}};
    m.id = "flags";
    m.layers = ctx.count("layers");
    m.layer_types.assign(static_cast<std::size_t>(m.layers), LayerAttention::full);
    m.layout = AttentionLayout::gqa;
  }
  if (from_flag(ctx, "layers")) {
    m.layers = ctx.count("layers");
    const auto pattern = m.layer_types;
    m.layer_types.resize(static_cast<std::size_t>(m.layers));
    for (std::size_t i = pattern.size(); i < m.layer_types.size(); ++i)
      m.layer_types[i] = pattern.empty() ? LayerAttention::full : pattern[i % pattern.size()];
  }
  if (ctx.has("heads")) m.attention_heads = ctx.count("heads");
  if (ctx.has("kv_heads")) m.kv_heads = ctx.count("kv_heads");
  if (ctx.has("head_dim")) m.head_dim = ctx.count("head_dim");
  if (model == nullptr) {
    if (m.kv_heads > 0 && m.attention_heads > 0)
      m.layout = m.kv_heads == m.attention_heads ? AttentionLayout::mha : m.kv_heads == 1 ? AttentionLayout::mqa : AttentionLayout::gqa;
  }
  apply_attention(ctx, m);
  check_heads(m);

  // Windows and layer pattern.
  if (ctx.has("sliding_window")) {
    const auto w = ctx.get<Tokens>("sliding_window").value();
    m.sliding_window = static_cast<std::int64_t>(w);
    if (!ctx.has("layer_pattern") && (model == nullptr || std::none_of(m.layer_types.begin(), m.layer_types.end(), [](auto t) {
                                         return t == LayerAttention::sliding;
                                       })))
      m.layer_types.assign(static_cast<std::size_t>(m.layers), LayerAttention::sliding);
  }
  if (ctx.has("layer_pattern")) {
    const auto pattern = parse_layer_pattern(ctx.text("layer_pattern"));
    const bool any_sliding = std::find(pattern.begin(), pattern.end(), LayerAttention::sliding) != pattern.end();
    if (any_sliding && m.sliding_window <= 0)
      throw UserError{{"--layer-pattern has sliding layers but no window is known", "give --sliding-window 1024"}};
    m.layer_types.resize(static_cast<std::size_t>(m.layers));
    for (std::size_t i = 0; i < m.layer_types.size(); ++i) m.layer_types[i] = pattern[i % pattern.size()];
  }
  if (ctx.has("shared_layers")) {
    m.kv_shared_layers = ctx.count("shared_layers");
    if (m.kv_shared_layers >= m.layers)
      throw UserError{{fmt::format("--shared-layers ({}) must be fewer than the layers ({})", m.kv_shared_layers, m.layers),
                       "at least one layer stores its own cache"}};
  }
  if (m.layers <= 0) throw UserError{{"--layers must be at least 1", "give --layers 80"}};
  return m;
}

bool quantized(const StorageFormat& f) { return f.name == "fp8" || f.name == "int8" || f.name == "int4"; }

KvPrecision resolve_precision(Context& ctx, bool scales_need_quantized) {
  KvPrecision p;
  p.format = find_storage_format(ctx.text("dtype"));
  const std::string scales = ctx.text("kv_scales");
  p.scales = scales == "head" ? ScaleGranularity::vector : scales == "group" ? ScaleGranularity::group : ScaleGranularity::tensor;
  p.group_size = ctx.count("kv_group_size");
  p.scale_bytes = bytes_per_value(*find_storage_format(ctx.text("scale_dtype")));
  p.zero_point = ctx.flag("zero_point");
  const std::string_view dt = p.format->name;
  if (scales_need_quantized && p.scales != ScaleGranularity::tensor && !quantized(*p.format))
    throw UserError{{fmt::format("--kv-scales {} applies to quantized caches (fp8, int8, int4), not {}", scales, dt),
                     "drop --kv-scales or use --dtype int8"}};
  if (from_flag(ctx, "kv_group_size") && p.scales != ScaleGranularity::group)
    throw UserError{{"--kv-group-size applies with --kv-scales group", "add --kv-scales group"}};
  if (p.zero_point && p.scales == ScaleGranularity::tensor)
    throw UserError{{"--zero-point needs per-head or per-group scales", "add --kv-scales head or --kv-scales group"}};
  return p;
}

Parallelism resolve_parallel(Context& ctx, const ModelArch& m) {
  Parallelism par;
  par.tp = ctx.count("tp");
  par.pp = ctx.count("pp");
  if (m.attention_heads > 0 && m.attention_heads % par.tp != 0)
    throw UserError{{fmt::format("--tp ({}) does not divide the query heads ({})", par.tp, m.attention_heads),
                     "tensor parallelism gives every rank the same number of query heads"}};
  if (!m.mla && m.kv_heads % par.tp != 0 && par.tp % m.kv_heads != 0)
    throw UserError{{fmt::format("--tp ({}) and the KV heads ({}) must divide one another", par.tp, m.kv_heads),
                     "each rank holds kv_heads / tp heads, or one head replicated tp / kv_heads times"}};
  if (par.pp > m.layers)
    throw UserError{{fmt::format("--pp ({}) exceeds the layers ({})", par.pp, m.layers), "every stage holds at least one layer"}};
  return par;
}

ModelArch with_layout(const ModelArch& m, AttentionLayout layout, int kv_heads, int kv_lora_rank, int rope_dim) {
  ModelArch out = m;
  out.layout = layout;
  if (layout == AttentionLayout::mla) {
    MlaDims d = m.mla.value_or(MlaDims{});
    d.kv_lora_rank = kv_lora_rank;
    d.qk_rope_head_dim = rope_dim;
    out.mla = d;
    return out;
  }
  if (m.mla && m.mla->qk_nope_head_dim > 0 && m.mla->v_head_dim > 0) {
    // Decompressed MLA: keys are qk_nope + qk_rope wide, values v_head_dim wide; the mean keeps the bytes exact.
    out.head_dim = (m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim + m.mla->v_head_dim) / 2;
  }
  out.mla.reset();
  out.kv_heads = layout == AttentionLayout::mha ? m.attention_heads : layout == AttentionLayout::mqa ? 1 : kv_heads;
  return out;
}

Bytes mha_position_bytes(const ModelArch& m, const KvPrecision& precision) {
  const std::int64_t heads = std::max(0, m.attention_heads);
  VectorRuns vectors{};
  if (m.mla && m.mla->qk_nope_head_dim > 0 && m.mla->v_head_dim > 0)
    vectors = {VectorRun{heads, m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim}, VectorRun{heads, m.mla->v_head_dim}};
  else if (m.head_dim > 0)
    vectors = {VectorRun{2 * heads, m.head_dim}, VectorRun{}};
  return vectors_bytes(precision, vectors);
}

namespace {

// What describe() reads of an architecture.
auto described_fields(const ModelArch& m) {
  return std::tuple{m.layers, m.mla ? m.mla->kv_lora_rank : -1, m.mla ? m.mla->qk_rope_head_dim : -1, m.attention_heads, m.kv_heads,
                    m.head_dim, m.sliding_window, m.kv_shared_layers, m.ssm.has_value()};
}

std::string describe_now(const ModelArch& m);

}  // namespace

std::string describe(const ModelArch& m) {
  // Batch records naming one model describe the same architecture: the last description is kept.
  thread_local std::optional<std::tuple<decltype(described_fields(m)), std::vector<LayerAttention>, std::string>> last;
  if (last && std::get<0>(*last) == described_fields(m) && std::get<1>(*last) == m.layer_types) return std::get<2>(*last);
  last.emplace(described_fields(m), m.layer_types, describe_now(m));
  return std::get<2>(*last);
}

namespace {

std::string describe_now(const ModelArch& m) {
  std::string s = fmt::format("{} layers, ", m.layers);
  if (m.mla) {
    s += fmt::format("MLA: latent {} + RoPE key {} per layer", m.mla->kv_lora_rank, m.mla->qk_rope_head_dim);
  } else {
    const char* name = m.attention_heads > 0 && m.kv_heads == m.attention_heads ? "MHA" : m.kv_heads == 1 ? "MQA" : "GQA";
    s += m.attention_heads > 0 ? fmt::format("{}: {} KV heads of {} query heads, head dim {}", name, m.kv_heads, m.attention_heads, m.head_dim)
                               : fmt::format("{} KV heads, head dim {}", m.kv_heads, m.head_dim);
  }
  int sliding = 0;
  // Without a window no layer slides (layer_sliding); the scan is skipped for most models, in every batch record.
  for (int l = 0; m.sliding_window > 0 && l < m.layers; ++l)
    if (layer_cached(m, l) && layer_sliding(m, l)) ++sliding;
  if (sliding > 0) s += fmt::format("; {} sliding-window layers (window {} tok)", sliding, m.sliding_window);
  if (m.kv_shared_layers > 0) s += fmt::format("; {} layers share an earlier layer's cache", m.kv_shared_layers);
  if (const int ssm = m.ssm ? count_layers(m, LayerAttention::state_space) : 0; ssm > 0)
    s += fmt::format("; {} state-space (Mamba) layers without a KV cache", ssm);
  return s;
}

}  // namespace

void note_context_limit(Context& ctx, const ModelArch& m, Tokens tokens, std::string_view flag) {
  if (m.max_context <= 0 || tokens.value() <= static_cast<double>(m.max_context)) return;
  ctx.note(fmt::format("{} {} exceeds the {}-token context {} was trained for (max_context in its catalog file): the figures "
                       "extrapolate past what the model serves",
                       flag, format_count(tokens.value(), 6), format_count(static_cast<double>(m.max_context), 6),
                       m.id.empty() || m.id == "flags" ? std::string("the model") : m.id));
}

}  // namespace infracalc::kv
