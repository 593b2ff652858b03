#include "plugins/fit/fit_model.hpp"

#include <cmath>
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "units/counts.hpp"
#include "plugins/fit/fit_math.hpp"

namespace infracalc::fit {

std::vector<Input> model_inputs() {
  return {
      {.name = "params", .kind = InputKind::integer,
       .help = "total parameters (overrides the count computed from the architecture)", .example = "70e9", .optional = true,
       .most = static_cast<std::int64_t>(kMaxParams), .most_why = kModelLimitWhy},
      {.name = "layers", .kind = InputKind::integer, .help = "transformer layers", .example = "80", .optional = true,
       .most = kMaxLayers, .most_why = kModelLimitWhy},
      {.name = "hidden_size", .kind = InputKind::integer, .help = "model (residual) width", .example = "8192", .optional = true,
       .most = kMaxWidth, .most_why = kModelLimitWhy},
      {.name = "heads", .kind = InputKind::integer, .help = "query heads per layer", .example = "64", .optional = true,
       .most = kMaxHeads, .most_why = kModelLimitWhy},
      {.name = "kv_heads", .kind = InputKind::integer, .help = "key/value heads per layer (default: heads)", .example = "8",
       .optional = true, .most = kMaxHeads, .most_why = kModelLimitWhy},
      {.name = "head_dim", .kind = InputKind::integer, .help = "width of one head (default: hidden_size / heads)",
       .example = "128", .optional = true, .most = kMaxHeadDim, .most_why = kModelLimitWhy},
      {.name = "ffn_size", .kind = InputKind::integer, .help = "MLP intermediate width (per expert for MoE)", .example = "28672",
       .optional = true, .most = kMaxWidth, .most_why = kModelLimitWhy},
      {.name = "vocab_size", .kind = InputKind::integer, .help = "vocabulary size", .example = "128256", .optional = true,
       .most = kMaxVocab, .most_why = kModelLimitWhy},
      {.name = "experts", .kind = InputKind::integer, .help = "routed experts per MoE layer", .example = "8", .optional = true,
       .most = kMaxExperts, .most_why = kModelLimitWhy},
      {.name = "experts_per_token", .kind = InputKind::integer, .help = "experts each token activates (top-k)", .example = "2",
       .optional = true, .most = kMaxExperts, .most_why = kModelLimitWhy},
      {.name = "mlp", .kind = InputKind::choice,
       .help = "MLP form: gated (SwiGLU, GeGLU: gate, up and down matrices) or plain (GELU, ReLU: up and down; GPT-2, GPT-3, OPT) "
               "(default: the model's activation, else gated)",
       .example = "plain", .choices = {"gated", "plain"}, .optional = true},
      {.name = "tied_embeddings", .kind = InputKind::flag, .help = "input embedding and output head share one matrix"},
  };
}

std::vector<Input> optimizer_inputs() {
  return {
      {.name = "optimizer", .kind = InputKind::choice,
       .help = "optimizer: adam, adamw (m and v in FP32), sgd (momentum), adafactor (factored), adam8bit (8-bit moments)",
       .default_value = "adamw", .choices = {"adam", "adamw", "sgd", "adafactor", "adam8bit"}},
      {.name = "weights_dtype", .kind = InputKind::choice, .help = "working format of the trained weights", .default_value = "bf16",
       .choices = {"bf16", "fp16", "fp32"}},
      {.name = "master", .kind = InputKind::choice, .help = "keep an FP32 master copy of the trained weights",
       .default_value = "yes", .choices = {"yes", "no"}},
  };
}

std::vector<Input> training_device_inputs() {
  return {
      {.name = "memory", .kind = InputKind::quantity, .dim = dims::information, .help = "memory per device", .example = "80GB",
       .catalog = kGpuMemoryCatalog, .optional = true},
      {.name = "framework_reserve", .kind = InputKind::quantity, .dim = dims::information,
       .help = "CUDA context, communication buffers and allocator slack per device", .default_value = "2GB", .example = "4GB",
       .bound = Bound::non_negative},
      {.name = "require_fit", .kind = InputKind::flag, .help = "exit 1 when it does not fit"},
  };
}

ActivationShape training_activation_shape(Context& ctx, const ModelArch& m, int tp, int pp) {
  return activation_shape(m, ctx.get<Tokens>("seq"), static_cast<double>(ctx.integer("micro_batch")), tp, pp, false);
}

namespace {

// Architecture from flags alone: enough to count parameters and size KV and activations.
std::optional<ModelArch> arch_from_flags(Context& ctx) {
  if (!ctx.has("layers") || !ctx.has("hidden_size")) return std::nullopt;
  ModelArch m;
  m.id = "flags";
  m.layers = ctx.count("layers");
  m.hidden_size = ctx.count("hidden_size");
  if (!ctx.has("heads")) throw UserError{{"missing --heads (query heads per layer)", "give --heads N with --layers and --hidden-size"}};
  m.attention_heads = ctx.count("heads");
  m.kv_heads = ctx.has("kv_heads") ? ctx.count("kv_heads") : m.attention_heads;
  m.head_dim = ctx.has("head_dim") ? ctx.count("head_dim") : m.hidden_size / m.attention_heads;
  if (m.head_dim < 1)
    throw UserError{{fmt::format("--hidden-size ({}) is smaller than --heads ({}): no head width", m.hidden_size, m.attention_heads),
                     "give --head-dim, or check --hidden-size and --heads"}};
  m.ffn_size = ctx.has("ffn_size") ? ctx.count("ffn_size") : 0;
  m.vocab_size = ctx.has("vocab_size") ? ctx.count("vocab_size") : 0;
  m.tied_embeddings = ctx.flag("tied_embeddings");
  m.gated_mlp = !ctx.has("mlp") || ctx.text("mlp") == "gated";
  if (!ctx.has("mlp") && m.ffn_size > 0)
    ctx.note("MLP taken as gated (three matrices, as SwiGLU models have); give --mlp plain for a GELU MLP of two (GPT-3, OPT)");
  m.layout = m.kv_heads == m.attention_heads ? AttentionLayout::mha : (m.kv_heads == 1 ? AttentionLayout::mqa : AttentionLayout::gqa);
  m.layer_types.assign(static_cast<std::size_t>(m.layers), LayerAttention::full);
  if (ctx.has("experts")) {
    MoeDims d;
    d.experts = ctx.count("experts");
    d.experts_per_token = ctx.has("experts_per_token") ? ctx.count("experts_per_token") : 1;
    d.expert_ffn_size = m.ffn_size;
    if (d.experts_per_token > d.experts) throw UserError{{"--experts-per-token exceeds --experts", ""}};
    m.moe = d;
  }
  return m;
}

void apply_overrides(Context& ctx, ModelArch& m) {
  auto over = [&](std::string_view key, int& field) {
    if (ctx.has(key)) field = ctx.count(key);
  };
  over("layers", m.layers);
  over("hidden_size", m.hidden_size);
  over("heads", m.attention_heads);
  over("kv_heads", m.kv_heads);
  over("head_dim", m.head_dim);
  over("ffn_size", m.ffn_size);
  over("vocab_size", m.vocab_size);
  if (ctx.flag("tied_embeddings")) m.tied_embeddings = true;
  if (ctx.has("mlp")) m.gated_mlp = ctx.text("mlp") == "gated";
  if (m.moe) {
    over("experts", m.moe->experts);
    over("experts_per_token", m.moe->experts_per_token);
    if (ctx.has("ffn_size")) m.moe->expert_ffn_size = m.ffn_size;
  }
  if (static_cast<int>(m.layer_types.size()) != m.layers) m.layer_types.resize(static_cast<std::size_t>(m.layers), LayerAttention::full);
}

void check_arch(const ModelArch& m) {
  if (m.kv_heads > m.attention_heads)
    throw UserError{{fmt::format("--kv-heads ({}) is larger than --heads ({})", m.kv_heads, m.attention_heads), "KV heads are at most the query heads"}};
  if (!m.mla && m.attention_heads % m.kv_heads != 0)
    throw UserError{{fmt::format("--kv-heads ({}) does not divide --heads ({})", m.kv_heads, m.attention_heads),
                     "in GQA each KV head serves the same number of query heads"}};
}

}  // namespace

ResolvedModel resolve_model(Context& ctx, bool need_arch) {
  ResolvedModel r;
  if (const Entry* e = ctx.ref("model")) {
    const ModelArchRead& read = e->model_arch();
    if (!read.arch) throw UserError{read.arch.error()};
    for (const auto& p : read.cited) ctx.cite(p);
    r.arch = read.arch.value();
    apply_overrides(ctx, *r.arch);
  } else {
    r.arch = arch_from_flags(ctx);
  }
  if (r.arch) check_arch(*r.arch);
  const bool countable = r.arch && r.arch->vocab_size > 0 && (r.arch->ffn_size > 0 || r.arch->moe);
  if (countable && count_params(*r.arch).total > kMaxParams)
    throw UserError{{fmt::format("the architecture gives {:.4g} parameters, more than the {:.0e} infracalc accepts", count_params(*r.arch).total,
                                 kMaxParams),
                     "check --layers, --hidden-size, --ffn-size, --vocab-size and --experts: " + std::string(kModelLimitWhy)}};
  if (ctx.has("params")) {
    r.params = ctx.number("params");
    if (countable) {
      const double counted = count_params(*r.arch).total;
      if (std::fabs(counted - r.params) > 0.02 * r.params)
        ctx.note(fmt::format("--params {} differs from the {} the architecture gives; weights use --params", ctx.quote_count(r.params),
                             ctx.quote_count(counted)));
    }
  } else if (countable) {
    const ParamCount c = count_params(*r.arch);
    r.params = c.total;
    ctx.note(fmt::format("parameters counted from the architecture: {} (embeddings {}{}, attention {}{}, MLP/experts {})",
                         ctx.quote_count(c.total), ctx.quote_count(c.embeddings),
                         r.arch->tied_embeddings ? ", tied" : ", input and output matrices counted separately", ctx.quote_count(c.attention),
                         c.ssm > 0 ? fmt::format(", Mamba mixers {}", ctx.quote_count(c.ssm)) : std::string(), ctx.quote_count(c.mlp)));
    if (r.arch->params_total_published > 0 && std::fabs(c.total - r.arch->params_total_published) > 0.01 * c.total)
      ctx.note(fmt::format("the published count is {}; the difference is terms the count leaves out or the publisher rounds",
                           ctx.quote_count(r.arch->params_total_published)));
  } else {
    throw UserError{{"missing the model size", "give --params N (e.g. 70e9), --model ID, or --layers, --hidden-size, --heads, "
                                               "--ffn-size and --vocab-size"}};
  }
  r.active = r.params;
  if (countable && r.arch->moe) {
    const ParamCount c = count_params(*r.arch);
    r.active = c.active * r.params / c.total;
    r.experts = routed_expert_params(*r.arch) * r.params / c.total;
  }
  if (need_arch && !r.arch)
    throw UserError{{"this calculation needs the model's architecture (KV cache and activations)",
                     "give --model ID, or --layers, --hidden-size, --heads, --kv-heads (and --ffn-size, --vocab-size)"}};
  return r;
}

std::optional<Bytes> device_memory(Context& ctx) {
  if (!ctx.has("memory")) return std::nullopt;
  note_device_memory(ctx, "memory");
  return ctx.get<Bytes>("memory");
}

}  // namespace infracalc::fit
