#include "plugins/catalog/model_arch.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "plugins/core/counts.hpp"
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
      else return Error{e.where(item) + ": layer_pattern items are \"full\" or \"sliding\"", ""};
    }
    if (cited != nullptr) cited->push_back(ref->provenance);
    for (std::size_t i = 0; i < m.layer_types.size(); ++i) m.layer_types[i] = pattern[i % pattern.size()];
    const bool any_sliding = std::find(pattern.begin(), pattern.end(), LayerAttention::sliding) != pattern.end();
    if (any_sliding && m.sliding_window <= 0)
      return Error{ref->location + ": layer_pattern has sliding layers but attention.sliding_window is missing", ""};
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
ParamCount count_params(const ModelArch& m) {
  ParamCount c;
  const double h = m.hidden_size;
  const double v = m.vocab_size;
  c.embeddings = v * h * (m.tied_embeddings ? 1.0 : 2.0);
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
    const double bias = m.attention_bias ? (static_cast<double>(m.attention_heads) + 2.0 * m.kv_heads) * m.head_dim : 0.0;
    attn = q + kv + o + bias;
  }
  c.attention = attn * m.layers;
  const double mats = m.gated_mlp ? 3.0 : 2.0;
  const double dense_mlp = mats * h * m.ffn_size;
  double active_mlp = 0;
  if (m.moe) {
    const MoeDims& d = *m.moe;
    // Every product in double: counts within the model limits multiply past 2^31.
    const double expert = mats * h * d.expert_ffn_size;
    const double dense_layers = d.dense_layers;
    const double moe_layers = static_cast<double>(m.layers) - dense_layers;
    c.mlp = dense_layers * dense_mlp + moe_layers * (static_cast<double>(d.experts) + d.shared_experts) * expert;
    c.router = moe_layers * h * d.experts;
    active_mlp = dense_layers * dense_mlp + moe_layers * (static_cast<double>(d.experts_per_token) + d.shared_experts) * expert;
  } else {
    c.mlp = static_cast<double>(m.layers) * dense_mlp;
    active_mlp = c.mlp;
  }
  c.norms = (2.0 * m.layers + 1.0) * h;
  c.total = c.embeddings + c.attention + c.mlp + c.router + c.norms;
  c.active = c.embeddings + c.attention + active_mlp + c.router + c.norms;
  return c;
}

double active_as_published(const ModelArch& m, const ParamCount& c) {
  // The input embedding is a row lookup, so some publishers leave it out of "active" (gpt-oss).
  return m.active_excludes_embedding ? c.active - static_cast<double>(m.vocab_size) * m.hidden_size : c.active;
}

}  // namespace infracalc
