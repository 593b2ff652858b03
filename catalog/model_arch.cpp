#include "catalog/model_arch.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "units/counts.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

// A value as a file gave it, for an error: whole numbers with separators (2,000,000,000), others as written.
std::string shown_count(double v) {
  return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15 ? format_count(v, 15) : format_machine(v);
}

// Reads optional integer-like fields, recording provenance.
class Reader {
 public:
  Reader(const Entry& e, std::vector<Provenance>* cited) : e_(e), cited_(cited) {}

  std::optional<double> number(std::string_view path, std::optional<Error>& err) {
    const FieldRef* ref = e_.field_ref(path);
    if (!ref) return std::nullopt;
    auto q = node_quantity(*ref->value, Expectation{dims::none, false}, ref->location + ": " + std::string(path));
    if (!q) {
      if (!err) err = q.error();
      return std::nullopt;
    }
    if (cited_ != nullptr) cited_->push_back(ref->provenance);
    return q->value;
  }
  std::optional<double> tokens(std::string_view path, std::optional<Error>& err) {
    const FieldRef* ref = e_.field_ref(path);
    if (!ref) return std::nullopt;
    auto q = node_quantity(*ref->value, Expectation{dims::token, false}, ref->location + ": " + std::string(path));
    if (!q) {
      if (!err) err = q.error();
      return std::nullopt;
    }
    if (cited_ != nullptr) cited_->push_back(ref->provenance);
    return q->value;
  }
  // A whole number from `least` to `most`; 0 when absent (an error when required). Errors name file:line:col
  // and the field, so a data file gets the same checks as a flag before any arithmetic uses it.
  int count(std::string_view path, std::optional<Error>& err, bool required, std::int64_t least, std::int64_t most) {
    const FieldRef* ref = e_.field_ref(path);
    auto v = number(path, err);
    if (!v) {
      if (required && !err) err = Error{e_.file() + ": model " + e_.id() + " has no '" + std::string(path) + "'", "add it to the model file"};
      return 0;
    }
    if (!std::isfinite(*v) || *v != std::floor(*v) || *v < static_cast<double>(least) || *v > static_cast<double>(most)) {
      if (!err)
        err = Error{fmt::format("{}: {}: expected a whole number from {} to {}, got {}", ref->location, path, format_count(static_cast<double>(least), 15),
                                format_count(static_cast<double>(most), 15), shown_count(*v)),
                    *v > static_cast<double>(most) ? std::string(kModelLimitWhy) : "fix the model file"};
      return 0;
    }
    return static_cast<int>(*v);
  }
  // A token count from 1 to kMaxTokens; nullopt when absent.
  std::optional<std::int64_t> token_count(std::string_view path, std::optional<Error>& err) {
    const FieldRef* ref = e_.field_ref(path);
    auto v = tokens(path, err);
    if (!v) return std::nullopt;
    if (!std::isfinite(*v) || *v != std::floor(*v) || *v < 1 || *v > static_cast<double>(kMaxTokens)) {
      if (!err)
        err = Error{fmt::format("{}: {}: expected a whole number of tokens from 1 to {}, got {}", ref->location, path,
                                format_count(static_cast<double>(kMaxTokens), 15), shown_count(*v)),
                    "fix the model file"};
      return std::nullopt;
    }
    return static_cast<std::int64_t>(*v);
  }
  std::optional<std::string> text(std::string_view path) {
    const FieldRef* ref = e_.field_ref(path);
    if (!ref || ref->value->kind != Node::Kind::string) return std::nullopt;
    if (cited_ != nullptr) cited_->push_back(ref->provenance);
    return ref->value->str;
  }
  std::optional<bool> boolean(std::string_view path) {
    const FieldRef* ref = e_.field_ref(path);
    if (!ref || ref->value->kind != Node::Kind::boolean) return std::nullopt;
    return ref->value->boolean;
  }

 private:
  const Entry& e_;
  std::vector<Provenance>* cited_;
};

}  // namespace

const char* layout_name(AttentionLayout l) {
  switch (l) {
    case AttentionLayout::mha: return "mha";
    case AttentionLayout::gqa: return "gqa";
    case AttentionLayout::mqa: return "mqa";
    case AttentionLayout::mla: return "mla";
  }
  return "gqa";
}

Expected<ModelArch> read_model_arch(const Entry& e, std::vector<Provenance>* cited) {
  if (e.kind() != "model") return Error{e.file() + ": " + e.id() + " is a " + e.kind() + ", not a model", ""};
  Reader r(e, cited);
  std::optional<Error> err;
  ModelArch m;
  m.id = e.id();
  m.layers = r.count("layers", err, true, 1, kMaxLayers);
  m.hidden_size = r.count("hidden_size", err, true, 1, kMaxWidth);
  m.attention_heads = r.count("attention_heads", err, true, 1, kMaxHeads);
  m.kv_heads = r.count("kv_heads", err, true, 1, kMaxHeads);
  m.head_dim = r.count("head_dim", err, true, 1, kMaxHeadDim);
  m.ffn_size = r.count("ffn_size", err, false, 1, kMaxWidth);
  m.vocab_size = r.count("vocab_size", err, false, 1, kMaxVocab);
  if (auto t = r.boolean("tied_embeddings")) m.tied_embeddings = *t;
  if (auto b = r.boolean("attention_bias")) m.attention_bias = *b;
  if (auto b = r.boolean("active_excludes_embedding")) m.active_excludes_embedding = *b;
  if (auto b = r.boolean("linear_bias")) m.linear_bias = *b;
  if (auto n = r.text("norm")) {
    if (*n != "layernorm" && *n != "rmsnorm")
      return Error{e.file() + ": norm must be layernorm or rmsnorm, got \"" + *n + "\"", "layernorm has a weight and a bias, rmsnorm a weight"};
    m.norm_bias = *n == "layernorm";
  }
  m.learned_positions = r.count("position_embeddings", err, false, 1, kMaxWidth);
  if (auto a = r.text("activation")) m.gated_mlp = *a == "swiglu" || *a == "geglu" || *a == "gated-gelu" || *a == "gated-silu";
  if (auto c = r.token_count("max_context", err)) m.max_context = *c;
  if (auto p = r.number("params_total", err)) m.params_total_published = *p;
  if (auto p = r.number("params_active", err)) m.params_active_published = *p;
  if (!err)
    for (const char* key : {"params_total", "params_active"})
      if (const FieldRef* ref = e.field_ref(key)) {
        const double p = std::string_view(key) == "params_total" ? m.params_total_published : m.params_active_published;
        if (!std::isfinite(p) || p <= 0 || p > kMaxParams)
          err = Error{fmt::format("{}: {}: expected a count above 0 and at most {}, got {}", ref->location, key, format_machine(kMaxParams),
                                  shown_count(p)),
                      "fix the model file"};
      }
  if (err) return *err;

  // Layout: explicit [attention] layout, else from the head counts.
  if (auto l = r.text("attention.layout")) {
    if (*l == "mha") m.layout = AttentionLayout::mha;
    else if (*l == "gqa") m.layout = AttentionLayout::gqa;
    else if (*l == "mqa") m.layout = AttentionLayout::mqa;
    else if (*l == "mla") m.layout = AttentionLayout::mla;
    else return Error{e.file() + ": attention.layout must be mha, gqa, mqa or mla, got \"" + *l + "\"", ""};
  } else {
    m.layout = m.kv_heads == m.attention_heads ? AttentionLayout::mha
               : m.kv_heads == 1              ? AttentionLayout::mqa
                                              : AttentionLayout::gqa;
  }
  if (m.kv_heads > m.attention_heads || (m.kv_heads > 0 && m.attention_heads % m.kv_heads != 0))
    return Error{e.file() + ": kv_heads (" + std::to_string(m.kv_heads) + ") must divide attention_heads (" +
                     std::to_string(m.attention_heads) + ")",
                 ""};
  if (m.layout == AttentionLayout::mla) {
    MlaDims d;
    d.kv_lora_rank = r.count("attention.kv_lora_rank", err, true, 1, kMaxWidth);
    d.qk_rope_head_dim = r.count("attention.qk_rope_head_dim", err, true, 1, kMaxHeadDim);
    d.qk_nope_head_dim = r.count("attention.qk_nope_head_dim", err, true, 1, kMaxHeadDim);
    d.v_head_dim = r.count("attention.v_head_dim", err, true, 1, kMaxHeadDim);
    d.q_lora_rank = r.count("attention.q_lora_rank", err, false, 0, kMaxWidth);
    m.mla = d;
  }
  if (auto w = r.token_count("attention.sliding_window", err)) m.sliding_window = *w;
  m.kv_shared_layers = r.count("attention.kv_shared_layers", err, false, 0, kMaxLayers);
  if (err) return *err;
  if (m.kv_shared_layers >= m.layers)
    return Error{fmt::format("{}: attention.kv_shared_layers ({}) must be fewer than layers ({})", e.file(), m.kv_shared_layers, m.layers),
                 "at least the first layer stores its own KV cache"};

  // Layer pattern: a list repeated cyclically over the layers; without one, every layer is full
  // attention, or sliding when a window is given.
  m.layer_types.assign(static_cast<std::size_t>(m.layers), m.sliding_window > 0 ? LayerAttention::sliding : LayerAttention::full);
  if (const FieldRef* ref = e.field_ref("attention.layer_pattern")) {
    const Node& p = *ref->value;
    if (p.kind != Node::Kind::array || p.items.empty())
      return Error{ref->location + ": attention.layer_pattern must be a non-empty array of \"full\"/\"sliding\"", ""};
    std::vector<LayerAttention> pattern;
    for (const auto& item : p.items) {
      if (item.kind == Node::Kind::string && item.str == "full") pattern.push_back(LayerAttention::full);
      else if (item.kind == Node::Kind::string && item.str == "sliding") pattern.push_back(LayerAttention::sliding);
      else if (item.kind == Node::Kind::string && item.str == "ssm") pattern.push_back(LayerAttention::state_space);
      else return Error{e.where(item) + ": layer_pattern items are \"full\", \"sliding\" or \"ssm\"", ""};
    }
    if (cited != nullptr) cited->push_back(ref->provenance);
    for (std::size_t i = 0; i < m.layer_types.size(); ++i) m.layer_types[i] = pattern[i % pattern.size()];
    const bool any_sliding = std::find(pattern.begin(), pattern.end(), LayerAttention::sliding) != pattern.end();
    if (any_sliding && m.sliding_window <= 0)
      return Error{ref->location + ": layer_pattern has sliding layers but attention.sliding_window is missing", ""};
  }

  if (e.field_ref("ssm") != nullptr) {
    SsmDims d;
    if (auto k = r.text("ssm.kind")) {
      if (*k == "mamba") d.kind = SsmKind::mamba;
      else if (*k == "mamba2") d.kind = SsmKind::mamba2;
      else return Error{e.file() + ": ssm.kind must be mamba or mamba2, got \"" + *k + "\"", ""};
    }
    d.d_state = r.count("ssm.d_state", err, true, 1, kMaxWidth);
    d.d_conv = r.count("ssm.d_conv", err, true, 1, kMaxWidth);
    d.d_inner = r.count("ssm.d_inner", err, true, 1, kMaxWidth);
    d.dt_rank = r.count("ssm.dt_rank", err, false, 1, kMaxWidth);
    d.heads = r.count("ssm.heads", err, d.kind == SsmKind::mamba2, 1, kMaxHeads);
    d.groups = r.count("ssm.groups", err, false, 1, kMaxHeads);
    if (auto b = r.boolean("ssm.conv_bias")) d.conv_bias = *b;
    if (auto b = r.boolean("ssm.proj_bias")) d.proj_bias = *b;
    if (auto b = r.boolean("ssm.inner_norms")) d.inner_norms = *b;
    if (auto t = r.text("ssm.state_dtype")) d.state_dtype = *t;
    if (err) return *err;
    // mamba_ssm's Mamba defaults dt_rank to ceil(d_model / 16) and Mamba-2 to one group.
    if (d.kind == SsmKind::mamba && d.dt_rank == 0) d.dt_rank = (m.hidden_size + 15) / 16;
    if (d.kind == SsmKind::mamba2 && d.groups == 0) d.groups = 1;
    if (d.kind == SsmKind::mamba2 && (d.d_inner % d.heads != 0 || d.heads % d.groups != 0))
      return Error{fmt::format("{}: ssm.heads ({}) must divide ssm.d_inner ({}) and be a multiple of ssm.groups ({})", e.file(), d.heads,
                               d.d_inner, d.groups),
                   "Mamba-2 splits d_inner into heads of equal width and heads into B/C groups"};
    m.ssm = d;
    // Without a pattern naming "ssm" layers every layer is a state-space layer (a pure Mamba model).
    if (std::none_of(m.layer_types.begin(), m.layer_types.end(), [](LayerAttention t) { return t == LayerAttention::state_space; }))
      m.layer_types.assign(m.layer_types.size(), LayerAttention::state_space);
  } else if (std::any_of(m.layer_types.begin(), m.layer_types.end(), [](LayerAttention t) { return t == LayerAttention::state_space; })) {
    return Error{e.file() + ": attention.layer_pattern has \"ssm\" layers but the file has no [ssm] table",
                 "add [ssm] with d_state, d_conv and d_inner (docs/data.md)"};
  }

  if (e.field_ref("moe") != nullptr) {
    MoeDims d;
    d.experts = r.count("moe.experts", err, true, 1, kMaxExperts);
    d.experts_per_token = r.count("moe.experts_per_token", err, true, 1, kMaxExperts);
    d.shared_experts = r.count("moe.shared_experts", err, false, 0, kMaxExperts);
    d.expert_ffn_size = r.count("moe.expert_ffn_size", err, true, 1, kMaxWidth);
    d.dense_layers = r.count("moe.dense_layers", err, false, 0, kMaxLayers);
    if (err) return *err;
    if (d.experts_per_token > d.experts)
      return Error{e.file() + ": moe.experts_per_token exceeds moe.experts", ""};
    if (d.dense_layers >= m.layers)
      return Error{fmt::format("{}: moe.dense_layers ({}) must be fewer than layers ({})", e.file(), d.dense_layers, m.layers),
                   "a mixture-of-experts model has at least one MoE layer"};
    m.moe = d;
  }
  if (err) return *err;
  return m;
}

const ModelArchRead& Entry::model_arch() const {
  if (!model_arch_) {
    std::vector<Provenance> cited;
    auto arch = read_model_arch(*this, &cited);
    model_arch_ = std::make_unique<const ModelArchRead>(ModelArchRead{std::move(arch), std::move(cited)});
  }
  return *model_arch_;
}

// Counts follow the standard decoder layout (Llama/Mistral/Qwen/DeepSeek Hugging Face implementations):
// q/k/v/o projections, a gated or plain MLP, RMSNorm weights before attention and MLP plus a final norm.
int count_layers(const ModelArch& m, LayerAttention kind) {
  return static_cast<int>(std::count(m.layer_types.begin(), m.layer_types.end(), kind));
}

// Mamba-1 follows mamba_ssm's Mamba (mamba_simple.py) and Hugging Face's MambaMixer/JambaMambaMixer: in_proj to
// 2 d_inner (x and the gate z), a depthwise conv1d, x_proj to dt_rank + 2 d_state (dt, B, C), dt_proj back to
// d_inner with a bias, A_log (d_inner x d_state), D (d_inner), out_proj. Mamba-2 follows mamba_ssm's Mamba2
// (mamba2.py) and Hugging Face's Mamba2Mixer/NemotronHMamba2Mixer: one in_proj to z, x, B, C (n_groups each) and
// dt (one per head), a conv1d over x, B and C, per-head dt_bias, A_log and D, a gated RMSNorm of d_inner, out_proj.
double ssm_mixer_params(const SsmDims& d, int hidden) {
  const double h = hidden, di = d.d_inner, ds = d.d_state, dc = d.d_conv;
  const double out = di * h + (d.proj_bias ? h : 0.0);
  if (d.kind == SsmKind::mamba2) {
    const double heads = d.heads, conv_dim = di + 2.0 * d.groups * ds;
    const double in = h * (2.0 * di + 2.0 * d.groups * ds + heads) + (d.proj_bias ? 2.0 * di + 2.0 * d.groups * ds + heads : 0.0);
    return in + conv_dim * dc + (d.conv_bias ? conv_dim : 0.0) + 3.0 * heads + di + out;
  }
  const double r = d.dt_rank;
  const double in = h * 2.0 * di + (d.proj_bias ? 2.0 * di : 0.0);
  const double conv = di * dc + (d.conv_bias ? di : 0.0);
  const double x_dt = di * (r + 2.0 * ds) + r * di + di;
  return in + conv + x_dt + di * ds + di + out + (d.inner_norms ? r + 2.0 * ds : 0.0);
}

// vLLM's MambaStateShapeCalculator (vllm/model_executor/layers/mamba/mamba_utils.py): Mamba-1 keeps a conv state of
// (d_conv - 1) x d_inner/tp and a temporal state of d_inner/tp x d_state; Mamba-2 a conv state of (d_conv - 1) x
// (d_inner + 2 n_groups d_state)/tp and a temporal state of heads/tp x head_dim x d_state. The conv state is one
// column shorter than the kernel: the newest input completes the window.
std::pair<double, double> ssm_state_elements(const SsmDims& d, int tp) {
  const double ranks = std::max(1, tp);
  const double taps = std::max(0, d.d_conv - 1);
  if (d.kind == SsmKind::mamba2) {
    const double conv_dim = d.d_inner + 2.0 * d.groups * d.d_state;
    const double head_dim = d.heads > 0 ? static_cast<double>(d.d_inner) / d.heads : 0.0;
    return {taps * std::ceil(conv_dim / ranks), std::ceil(d.heads / ranks) * head_dim * d.d_state};
  }
  const double channels = std::ceil(d.d_inner / ranks);
  return {taps * channels, channels * d.d_state};
}

ParamCount count_params(const ModelArch& m) {
  ParamCount c;
  const double h = m.hidden_size;
  const double v = m.vocab_size;
  c.embeddings = v * h * (m.tied_embeddings ? 1.0 : 2.0) + static_cast<double>(m.learned_positions) * h;
  double attn = 0;
  if (m.mla) {
    const MlaDims& d = *m.mla;
    const double heads = m.attention_heads;
    const double qk = d.qk_nope_head_dim + d.qk_rope_head_dim;
    const double q = d.q_lora_rank > 0 ? h * d.q_lora_rank + d.q_lora_rank + d.q_lora_rank * heads * qk : h * heads * qk;
    const double kv = h * (d.kv_lora_rank + d.qk_rope_head_dim) + d.kv_lora_rank +
                      d.kv_lora_rank * heads * (d.qk_nope_head_dim + d.v_head_dim);
    const double o = heads * d.v_head_dim * h;
    attn = q + kv + o;
  } else {
    const double q = h * m.attention_heads * m.head_dim;
    const double kv = 2.0 * h * m.kv_heads * m.head_dim;
    const double o = static_cast<double>(m.attention_heads) * m.head_dim * h;
    const double qkv_bias = (static_cast<double>(m.attention_heads) + 2.0 * m.kv_heads) * m.head_dim;
    const double bias = m.linear_bias ? qkv_bias + h : m.attention_bias ? qkv_bias : 0.0;
    attn = q + kv + o + bias;
  }
  // A hybrid's state-space layers have a Mamba mixer instead of attention; every layer keeps its MLP (Jamba).
  const int ssm_layers = m.ssm ? count_layers(m, LayerAttention::state_space) : 0;
  c.attention = attn * (m.layers - ssm_layers);
  if (m.ssm) c.ssm = ssm_layers * ssm_mixer_params(*m.ssm, m.hidden_size);
  const double mats = m.gated_mlp ? 3.0 : 2.0;
  // GPT-2 and GPT-NeoX MLPs carry biases on the up (c_fc, dense_h_to_4h) and down projections.
  const auto mlp_bias = [&](double ffn) { return m.linear_bias ? (m.gated_mlp ? 2.0 : 1.0) * ffn + h : 0.0; };
  const double dense_mlp = mats * h * m.ffn_size + mlp_bias(m.ffn_size);
  double active_mlp = 0;
  if (m.moe) {
    const MoeDims& d = *m.moe;
    // Every product in double: counts within the model limits multiply past 2^31.
    const double expert = mats * h * d.expert_ffn_size + mlp_bias(d.expert_ffn_size);
    const double dense_layers = d.dense_layers;
    const double moe_layers = static_cast<double>(m.layers) - dense_layers;
    c.mlp = dense_layers * dense_mlp + moe_layers * (static_cast<double>(d.experts) + d.shared_experts) * expert;
    c.router = moe_layers * h * d.experts;
    active_mlp = dense_layers * dense_mlp + moe_layers * (static_cast<double>(d.experts_per_token) + d.shared_experts) * expert;
  } else {
    c.mlp = static_cast<double>(m.layers) * dense_mlp;
    active_mlp = c.mlp;
  }
  // Two norms per layer and a final one; a LayerNorm has a weight and a bias.
  c.norms = (2.0 * m.layers + 1.0) * h * (m.norm_bias ? 2.0 : 1.0);
  c.total = c.embeddings + c.attention + c.ssm + c.mlp + c.router + c.norms;
  c.active = c.embeddings + c.attention + c.ssm + active_mlp + c.router + c.norms;
  return c;
}

double active_as_published(const ModelArch& m, const ParamCount& c) {
  // The input embedding is a row lookup, so some publishers leave it out of "active" (gpt-oss).
  return m.active_excludes_embedding ? c.active - static_cast<double>(m.vocab_size) * m.hidden_size : c.active;
}

}  // namespace infracalc
