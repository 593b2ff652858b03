#include "catalog/hf_import.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "catalog/catalog.hpp"
#include "units/counts.hpp"
#include "documents/toml_reader.hpp"
#include "units/format.hpp"
#include "units/printable.hpp"

namespace infracalc {

namespace {

// Field names follow the transformers configuration classes (LlamaConfig, MistralConfig, MixtralConfig,
// Qwen2Config, Qwen3MoeConfig, DeepseekV3Config, Gemma/Gemma2/Gemma3TextConfig, GptOssConfig, GPT2Config,
// GPTNeoXConfig, FalconConfig, Phi3Config, Llama4TextConfig, JambaConfig). Built on first use, not at start-up:
// every command would otherwise pay for it.
const std::vector<std::string>& model_types() {
  static const std::vector<std::string> types = {"llama",     "mistral",     "mixtral",     "qwen2",    "qwen3",       "qwen3_moe",
                                                 "deepseek_v2", "deepseek_v3", "gemma",     "gemma2",   "gemma3",      "gemma3_text",
                                                 "gpt_oss",   "gpt2",        "gpt_neox",    "falcon",   "phi3",        "llama4",
                                                 "llama4_text", "jamba"};
  return types;
}

// Older configs name the same counts differently: GPT-2's n_layer/n_embd/n_head/n_inner/n_positions, Falcon's
// RefinedWeb n_layer/n_head and ffn_hidden_size. The first name is the canonical one the importer asks for.
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"num_hidden_layers", "n_layer"},       {"hidden_size", "n_embd"},         {"num_attention_heads", "n_head"},
    {"intermediate_size", "n_inner"},       {"intermediate_size", "ffn_hidden_size"}, {"max_position_embeddings", "n_positions"},
};

// GPT-2, GPT-NeoX and Falcon have a plain two-matrix MLP (GELU); the others gate it.
bool plain_mlp(const std::string& t) { return t == "gpt2" || t == "gpt_neox" || t == "falcon"; }
bool is_llama4(const std::string& t) { return t == "llama4" || t == "llama4_text"; }

// The most each config field may hold: the catalog's model limits (model_arch.hpp), so an imported file always
// reads back and its parameter count stays finite.
std::int64_t most_of(std::string_view key) {
  static constexpr std::pair<std::string_view, std::int64_t> kLimits[] = {
      {"num_hidden_layers", kMaxLayers},      {"first_k_dense_replace", kMaxLayers}, {"decoder_sparse_step", kMaxLayers},
      {"moe_layer_freq", kMaxLayers},         {"sliding_window_pattern", kMaxLayers}, {"num_attention_heads", kMaxHeads},
      {"num_key_value_heads", kMaxHeads},     {"head_dim", kMaxHeadDim},             {"qk_rope_head_dim", kMaxHeadDim},
      {"qk_nope_head_dim", kMaxHeadDim},      {"v_head_dim", kMaxHeadDim},           {"vocab_size", kMaxVocab},
      {"num_local_experts", kMaxExperts},     {"num_experts", kMaxExperts},          {"n_routed_experts", kMaxExperts},
      {"n_shared_experts", kMaxExperts},      {"num_experts_per_tok", kMaxExperts},  {"experts_per_token", kMaxExperts},
      {"max_position_embeddings", kMaxTokens}, {"sliding_window", kMaxTokens}, {"attention_chunk_size", kMaxTokens},
      {"interleave_moe_layer_step", kMaxLayers}, {"attn_layer_period", kMaxLayers}, {"attn_layer_offset", kMaxLayers},
      {"expert_layer_period", kMaxLayers},    {"expert_layer_offset", kMaxLayers},   {"no_rope_layer_interval", kMaxLayers},
      {"num_kv_heads", kMaxHeads},
  };
  for (const auto& [k, most] : kLimits)
    if (k == key) return most;
  return kMaxWidth;  // hidden_size, intermediate sizes, LoRA ranks
}

bool is_gemma(const std::string& t) { return t.rfind("gemma", 0) == 0; }
bool is_deepseek(const std::string& t) { return t == "deepseek_v2" || t == "deepseek_v3"; }

// Looks fields up in text_config first (multimodal wrappers such as Gemma 3), then at the top level.
class Config {
 public:
  Config(const Node& root, std::string source) : root_(root), source_(std::move(source)) {
    if (const Node* t = root.find("text_config"); t != nullptr && t->is_table()) text_ = t;
  }

  [[nodiscard]] const Node* find(std::string_view key) const { return resolve(key).second; }
  // The field and the name the config gives it (an alias such as GPT-2's n_layer for num_hidden_layers).
  [[nodiscard]] std::pair<std::string_view, const Node*> resolve(std::string_view key) const {
    if (const Node* n = find_exact(key)) return {key, n};
    for (const auto& [canonical, alias] : kAliases)
      if (canonical == key)
        if (const Node* n = find_exact(alias)) return {alias, n};
    return {key, nullptr};
  }
  [[nodiscard]] Error error(std::string_view key, const std::string& what, std::string hint = {}) const {
    const char* sep = !what.empty() && what.front() == '(' ? " " : ": ";  // "num_key_value_heads (6) must ..."
    return Error{source_ + ": " + std::string(key) + sep + what, std::move(hint)};
  }
  // A positive whole number up to the model reader's limit; nullopt when absent. Errors (not a whole number, < 1,
  // too large) go to `err`.
  std::optional<long long> count(std::string_view canonical, std::optional<Error>& err, bool allow_zero = false) const {
    const auto [key, n] = resolve(canonical);
    if (n == nullptr) return std::nullopt;
    if (!n->is_number() || n->number != std::floor(n->number) || n->number < (allow_zero ? 0 : 1)) {
      if (!err)
        err = error(key,
                    fmt::format("expected a {} whole number, got {}", allow_zero ? "non-negative" : "positive",
                                n->is_number() ? format_machine(n->number) : n->kind == Node::Kind::string ? "the text \"" + printable(n->str) + "\"" : std::string(n->kind_name())),
                    "check the config: a Hugging Face config.json writes counts as plain integers");
      return std::nullopt;
    }
    const auto most = static_cast<double>(most_of(canonical));
    if (n->number > most) {
      if (!err)
        err = error(key, fmt::format("({}) is above {}, the most infracalc accepts for it",
                                     n->number < 1e15 ? fmt::format("{:.0f}", n->number) : format_machine(n->number), format_count(most, 15)),
                    "check the config: " + std::string(kModelLimitWhy));
      return std::nullopt;
    }
    return static_cast<long long>(n->number);
  }
  long long required(std::string_view key, std::optional<Error>& err) const {
    auto v = count(key, err);
    if (!v && !err) err = error(key, "missing", "every " + type() + " config.json has it; is this the model's config.json?");
    return v.value_or(0);
  }
  std::optional<bool> flag(std::string_view key, std::optional<Error>& err) const {
    const Node* n = find(key);
    if (n == nullptr) return std::nullopt;
    if (n->kind != Node::Kind::boolean) {
      if (!err) err = error(key, "expected true or false");
      return std::nullopt;
    }
    return n->boolean;
  }
  [[nodiscard]] std::string text(std::string_view key) const {
    const Node* n = find(key);
    return n != nullptr && n->kind == Node::Kind::string ? n->str : std::string();
  }
  [[nodiscard]] std::string type() const {
    std::string t = text_ != nullptr && text_->find("model_type") != nullptr ? text_->find("model_type")->str : "";
    if (t.empty() && root_.find("model_type") != nullptr) t = root_.find("model_type")->str;
    return t;
  }
  [[nodiscard]] const std::string& source() const { return source_; }

 private:
  [[nodiscard]] const Node* find_exact(std::string_view key) const {
    if (text_ != nullptr)
      if (const Node* n = text_->find(key); n != nullptr && n->kind != Node::Kind::null) return n;
    const Node* n = root_.find(key);
    return n != nullptr && n->kind != Node::Kind::null ? n : nullptr;
  }
  const Node& root_;
  const Node* text_ = nullptr;
  std::string source_;
};

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string whole(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

// A name made into an id of the catalog's grammar (valid_id): lower case; letters and digits kept, a '.' only
// between letters or digits; every other run ('_' and spaces included) becomes one '-'; at most 100 characters.
std::string sanitize_id(std::string_view s) {
  const auto alnum = [](unsigned char u) { return std::isalnum(u) != 0 && u < 0x80; };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (alnum(u)) out += static_cast<char>(std::tolower(u));
    else if (u == '.' && !out.empty() && alnum(static_cast<unsigned char>(out.back())) && i + 1 < s.size() &&
             alnum(static_cast<unsigned char>(s[i + 1])))
      out += '.';
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  if (out.size() > 100) out.resize(100);
  while (!out.empty() && !alnum(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

// The shortest cycle that reproduces the per-layer list when repeated (ModelArch repeats the pattern).
std::vector<std::string> shortest_cycle(const std::vector<std::string>& v) {
  for (std::size_t p = 1; p <= v.size(); ++p) {
    bool ok = true;
    for (std::size_t i = 0; i < v.size() && ok; ++i) ok = v[i] == v[i % p];
    if (ok) return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(p)};
  }
  return v;
}

struct Attention {
  std::vector<std::string> pattern;  // empty: uniform
  long long window = 0;
};

// Llama 4 (Llama4TextAttention): layers that use RoPE attend within chunks of attention_chunk_size tokens; every
// no_rope_layer_interval-th layer (no_rope_layers[i] == 0) is a global NoPE layer. A chunked layer holds at most
// one chunk of keys and values, so for sizing it is a window of attention_chunk_size (an upper bound: a chunk
// holds from 1 to attention_chunk_size tokens, a window always the last attention_chunk_size).
std::optional<Error> llama4_layers(const Config& c, long long layers, Attention& a, std::vector<std::string>& per_layer,
                                   std::vector<std::string>& notes) {
  std::optional<Error> err;
  auto chunk = c.count("attention_chunk_size", err);
  if (err) return err;
  if (!chunk) {
    notes.push_back("no attention_chunk_size: every layer attends globally");
    return std::nullopt;
  }
  a.window = *chunk;
  if (const Node* nr = c.find("no_rope_layers"); nr != nullptr && nr->kind == Node::Kind::array && !nr->items.empty()) {
    if (static_cast<long long>(nr->items.size()) != layers)
      return c.error("no_rope_layers", "has " + std::to_string(nr->items.size()) + " entries but num_hidden_layers is " + std::to_string(layers));
    for (const auto& item : nr->items) {
      if (!item.is_number() || (item.number != 0 && item.number != 1)) return c.error("no_rope_layers", "items must be 0 (NoPE, global) or 1 (RoPE, chunked)");
      per_layer.push_back(item.number == 1 ? "sliding" : "full");
    }
  } else {
    const long long interval = c.count("no_rope_layer_interval", err).value_or(4);
    if (err) return err;
    for (long long i = 0; i < layers; ++i) per_layer.push_back((i + 1) % interval == 0 ? "full" : "sliding");
  }
  notes.push_back("chunked attention (attention_chunk_size " + std::to_string(*chunk) +
                  ") is written as a sliding window of that size: a chunked layer holds at most one chunk of KV; the global NoPE layers "
                  "are full attention");
  return std::nullopt;
}

std::optional<Error> read_attention(const Config& c, const std::string& type, long long layers, Attention& a,
                                    std::vector<std::string>& notes) {
  std::optional<Error> err;
  if (type.rfind("qwen", 0) == 0) {
    // Qwen configs carry a sliding_window that is off unless use_sliding_window is true.
    if (auto use = c.flag("use_sliding_window", err); use && *use)
      return c.error("use_sliding_window", "true is not supported (Qwen's max_window_layers scheme)",
                     "write the model file by hand; see docs/data.md");
    return err;
  }
  if (auto w = c.count("sliding_window", err)) a.window = *w;
  if (err) return err;
  std::vector<std::string> per_layer;
  if (const Node* lt = c.find("layer_types")) {
    if (lt->kind != Node::Kind::array) return c.error("layer_types", "expected an array of strings");
    for (const auto& item : lt->items) {
      if (item.kind == Node::Kind::string && item.str == "sliding_attention") per_layer.push_back("sliding");
      else if (item.kind == Node::Kind::string && item.str == "full_attention") per_layer.push_back("full");
      else return c.error("layer_types", "items must be \"sliding_attention\" or \"full_attention\"");
    }
    if (static_cast<long long>(per_layer.size()) != layers)
      return c.error("layer_types", "has " + std::to_string(per_layer.size()) + " entries but num_hidden_layers is " +
                                        std::to_string(layers));
  } else if (type == "gemma2") {
    per_layer.clear();
    for (long long i = 0; i < layers; ++i) per_layer.push_back(i % 2 == 0 ? "sliding" : "full");
    notes.push_back("no layer_types: Gemma 2 alternates sliding and full attention, starting with sliding");
  } else if (type == "gemma3" || type == "gemma3_text") {
    auto p = c.count("sliding_window_pattern", err);
    if (err) return err;
    const long long period = p.value_or(6);
    if (!p) notes.push_back("no layer_types or sliding_window_pattern: Gemma 3 uses 5 sliding layers then 1 full");
    for (long long i = 0; i < layers; ++i) per_layer.push_back((i + 1) % period == 0 ? "full" : "sliding");
  } else if (is_llama4(type)) {
    if (auto e = llama4_layers(c, layers, a, per_layer, notes)) return e;
  } else if (type == "jamba") {
    // JambaConfig.layers_block_type: layer i is attention when i % attn_layer_period == attn_layer_offset, else Mamba.
    const long long period = c.count("attn_layer_period", err).value_or(8);
    const long long offset = c.count("attn_layer_offset", err, true).value_or(4);
    if (err) return err;
    if (offset >= period) return c.error("attn_layer_offset", "(" + std::to_string(offset) + ") must be below attn_layer_period (" + std::to_string(period) + ")");
    for (long long i = 0; i < layers; ++i) per_layer.push_back(i % period == offset ? "full" : "ssm");
  }
  const auto has = [&](const char* kind) { return std::find(per_layer.begin(), per_layer.end(), kind) != per_layer.end(); };
  const bool any_sliding = has("sliding");
  if (any_sliding && a.window <= 0)
    return c.error("sliding_window", "missing, but layer_types has sliding_attention layers");
  if (!per_layer.empty() && !any_sliding) a.window = 0;  // no layer slides
  if (!per_layer.empty() && (has("ssm") || (any_sliding && has("full")))) a.pattern = shortest_cycle(per_layer);
  if (!per_layer.empty()) return std::nullopt;
  if (a.window > 0 && per_layer.empty()) notes.push_back("sliding_window without layer_types: every layer slides");
  return std::nullopt;
}

struct Moe {
  long long experts = 0, per_token = 0, shared = 0, ffn = 0, dense_layers = 0;
};

// Counts the layers `is_moe` marks; the rest get the dense MLP. ModelArch places dense layers first, which keeps
// the parameter count but not the order, so interleaved placements are said in a note.
void interleaved(long long layers, Moe& m, std::vector<std::string>& notes, const std::string& rule, const auto& is_moe) {
  long long moe_layers = 0;
  for (long long i = 0; i < layers; ++i) moe_layers += is_moe(i) ? 1 : 0;
  m.dense_layers = layers - moe_layers;
  if (m.dense_layers > 0)
    notes.push_back(std::to_string(moe_layers) + " of " + std::to_string(layers) + " layers are MoE (" + rule +
                    "); the model file lists the other " + std::to_string(m.dense_layers) +
                    " as leading dense layers, which keeps the parameter count but not the order");
}

std::optional<Error> read_moe(const Config& c, const std::string& type, long long layers, Moe& m, std::vector<std::string>& notes) {
  std::optional<Error> err;
  if (is_llama4(type)) {
    // Llama4TextMoe: routed experts of intermediate_size plus one shared expert of the same width; the layers
    // between MoE layers have a dense MLP of intermediate_size_mlp.
    m.experts = c.required("num_local_experts", err);
    m.ffn = c.required("intermediate_size", err);
    m.shared = 1;
    const long long step = c.count("interleave_moe_layer_step", err).value_or(1);
    if (err) return err;
    interleaved(layers, m, notes, "interleave_moe_layer_step " + std::to_string(step), [&](long long i) { return (i + 1) % step == 0; });
  } else if (type == "jamba") {
    // JambaConfig.layers_num_experts: layer i has experts when i % expert_layer_period == expert_layer_offset.
    const long long experts = c.count("num_experts", err).value_or(16);
    const long long period = c.count("expert_layer_period", err).value_or(2);
    const long long offset = c.count("expert_layer_offset", err, true).value_or(1);
    if (err) return err;
    if (experts <= 1) return std::nullopt;
    m.experts = experts;
    m.ffn = c.required("intermediate_size", err);
    interleaved(layers, m, notes, "expert_layer_period " + std::to_string(period) + ", offset " + std::to_string(offset),
                [&](long long i) { return i % period == offset; });
  } else if (type == "mixtral" || type == "gpt_oss") {
    m.experts = c.required("num_local_experts", err);
    m.ffn = c.required("intermediate_size", err);
  } else if (type == "qwen3_moe") {
    m.experts = c.required("num_experts", err);
    m.ffn = c.required("moe_intermediate_size", err);
    if (auto step = c.count("decoder_sparse_step", err); step && *step != 1)
      return c.error("decoder_sparse_step", "only 1 (every layer MoE) is supported");
    if (const Node* only = c.find("mlp_only_layers"); only != nullptr && !only->items.empty())
      return c.error("mlp_only_layers", "dense layers between MoE layers are not supported");
  } else if (is_deepseek(type)) {
    m.experts = c.required("n_routed_experts", err);
    m.ffn = c.required("moe_intermediate_size", err);
    m.shared = c.count("n_shared_experts", err, true).value_or(0);
    m.dense_layers = c.count("first_k_dense_replace", err, true).value_or(0);
    if (auto f = c.count("moe_layer_freq", err); f && *f != 1)
      return c.error("moe_layer_freq", "only 1 (every layer after the dense ones is MoE) is supported");
  } else {
    return std::nullopt;
  }
  if (err) return err;
  auto k = c.count("num_experts_per_tok", err);
  if (auto k2 = c.count("experts_per_token", err); k2) {
    if (k && *k != *k2)
      return c.error("num_experts_per_tok", "(" + std::to_string(*k) + ") contradicts experts_per_token (" + std::to_string(*k2) + ")");
    k = k2;
  }
  if (err) return err;
  if (!k) return c.error("num_experts_per_tok", "missing for a mixture-of-experts model");
  m.per_token = *k;
  if (m.per_token > m.experts)
    return c.error("num_experts_per_tok", "(" + std::to_string(m.per_token) + ") exceeds the number of experts (" +
                                              std::to_string(m.experts) + ")");
  if (m.dense_layers >= layers)
    return c.error(is_deepseek(type) ? "first_k_dense_replace" : is_llama4(type) ? "interleave_moe_layer_step" : "expert_layer_period",
                   "(" + std::to_string(m.dense_layers) + " dense layers) leaves no MoE layer");
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& hf_supported_model_types() { return model_types(); }

std::string hf_name_of(const Node& config) {
  // transformers writes _name_or_path when it saves a config; some hand-written configs use name_or_path.
  for (const char* key : {"_name_or_path", "name_or_path"}) {
    const Node* n = config.find(key);
    if (n == nullptr || n->kind != Node::Kind::string) continue;
    std::string name = n->str;
    while (!name.empty() && name.back() == '/') name.pop_back();
    if (const auto slash = name.find_last_of('/'); slash != std::string::npos) name = name.substr(slash + 1);
    if (!sanitize_id(name).empty()) return name;
  }
  return {};
}

std::string hf_suggest_id(const Node& config, std::string_view fallback) {
  std::string id = sanitize_id(hf_name_of(config));
  if (id.empty()) id = sanitize_id(fallback);
  return id.empty() ? "imported-model" : id;
}

Expected<HfImport> import_hf_config(const Node& root, const HfImportOptions& opt) {
  const std::string src = opt.source.empty() ? "config.json" : opt.source;
  if (!root.is_table()) return Error{src + ": expected a JSON object", "pass the model's config.json"};
  const Config c(root, src);
  const std::string type = c.type();
  if (type.empty()) return c.error("model_type", "missing", "pass a Hugging Face transformers config.json");
  const auto& types = model_types();
  if (std::find(types.begin(), types.end(), type) == types.end()) {
    std::string list;
    for (const auto& t : types) list += (list.empty() ? "" : ", ") + t;
    return c.error("model_type", "\"" + type + "\" is not supported (supported: " + list + ")",
                   "write the model file by hand; see docs/data.md");
  }
  HfImport out;
  std::optional<Error> err;
  const long long layers = c.required("num_hidden_layers", err);
  const long long hidden = c.required("hidden_size", err);
  const long long heads = c.required("num_attention_heads", err);
  const long long vocab = c.required("vocab_size", err);
  if (err) return *err;
  auto kv = c.count("num_key_value_heads", err);
  if (err) return *err;
  if (type == "falcon" && !kv) {
    // FalconAttention: new_decoder_architecture groups queries over num_kv_heads; otherwise multi_query keeps one
    // K/V head (Falcon-7B) and its absence one per query head.
    auto new_arch = c.flag("new_decoder_architecture", err);
    auto multi_query = c.flag("multi_query", err);
    if (err) return *err;
    if (new_arch.value_or(false)) kv = c.required("num_kv_heads", err);
    else kv = multi_query.value_or(true) ? 1 : heads;
    if (err) return *err;
  }
  if (!kv) out.notes.push_back("no num_key_value_heads: one KV head per query head (multi-head attention)");
  const long long kv_heads = kv.value_or(heads);
  if (kv_heads > heads || heads % kv_heads != 0)
    return c.error("num_key_value_heads", "(" + std::to_string(kv_heads) + ") must divide num_attention_heads (" +
                                              std::to_string(heads) + ")");

  // MLA (DeepSeek): the latent and RoPE widths replace per-head K/V.
  const bool mla = is_deepseek(type) && c.find("kv_lora_rank") != nullptr;
  long long kv_lora = 0, q_lora = 0, rope = 0, nope = 0, vdim = 0;
  if (mla) {
    kv_lora = c.required("kv_lora_rank", err);
    rope = c.required("qk_rope_head_dim", err);
    nope = c.required("qk_nope_head_dim", err);
    vdim = c.required("v_head_dim", err);
    q_lora = c.count("q_lora_rank", err).value_or(0);
    if (err) return *err;
  }
  long long head_dim = 0;
  if (auto hd = c.count("head_dim", err); hd && !mla) {
    head_dim = *hd;
  } else if (mla) {
    head_dim = nope + rope;
  } else if (!err) {
    if (hidden % heads != 0)
      return c.error("head_dim", "missing, and hidden_size (" + std::to_string(hidden) + ") is not a multiple of num_attention_heads (" +
                                     std::to_string(heads) + ")");
    head_dim = hidden / heads;
  }
  if (err) return *err;

  // GPT-2, GPT-NeoX and Falcon have a plain MLP (activation "gelu"); every other family gates it and the
  // activation names the gate.
  std::string act = c.text("hidden_act");
  if (act.empty()) act = c.text("hidden_activation");
  if (act.empty()) act = c.text("activation_function");  // GPT2Config
  if (act.empty()) act = c.text("activation");           // FalconConfig
  std::string activation;
  if (plain_mlp(type)) {
    if (act.empty() || act.rfind("gelu", 0) == 0) activation = "gelu";
    else if (act == "relu") activation = "relu";
    else return c.error("hidden_act", "\"" + act + "\" is not an activation the importer knows for " + type + " (gelu, gelu_new, relu)");
    if (act.empty()) out.notes.push_back("no activation: assumed gelu, the " + type + " default");
  } else if (act == "silu" || act == "swish") activation = "swiglu";
  else if (act.rfind("gelu", 0) == 0) activation = "geglu";
  else if (act.empty()) {
    activation = is_gemma(type) ? "geglu" : "swiglu";
    out.notes.push_back("no hidden_act: assumed " + activation);
  } else {
    return c.error("hidden_act", "\"" + act + "\" is not a gated activation the importer knows (silu, gelu_pytorch_tanh)");
  }

  Moe moe;
  if (auto e = read_moe(c, type, layers, moe, out.notes)) return *e;
  const bool is_moe = moe.experts > 0;
  // Llama 4's dense layers use intermediate_size_mlp; its intermediate_size is the expert width.
  auto ffn = c.count(is_llama4(type) ? "intermediate_size_mlp" : "intermediate_size", err);
  if (err) return *err;
  if (!ffn && (type == "gpt2" || type == "falcon")) {
    ffn = 4 * hidden;  // GPT2MLP and FalconMLP default to 4 x hidden
    out.notes.push_back("no " + std::string(type == "gpt2" ? "n_inner" : "ffn_hidden_size") + ": the MLP is 4 x hidden_size = " +
                        std::to_string(*ffn) + " wide");
  }
  if (!ffn && (!is_moe || moe.dense_layers > 0)) return c.error(is_llama4(type) ? "intermediate_size_mlp" : "intermediate_size", "missing");

  auto tied = c.flag("tie_word_embeddings", err);
  if (err) return *err;
  const bool tied_default = is_gemma(type) || type == "gpt2" || type == "falcon";  // the config classes' defaults
  if (!tied) out.notes.push_back(std::string("no tie_word_embeddings: ") + (tied_default ? "tied" : "untied") + " as the " + type + " default");
  const bool tie = tied.value_or(tied_default);
  bool bias = type == "qwen2";  // Qwen2 always has q/k/v biases and no attention_bias key
  if (auto b = c.flag("attention_bias", err); b && type != "gpt_neox") bias = *b;
  if (err) return *err;
  // GPT-2 (Conv1D) and GPT-NeoX put a bias on every linear layer, Falcon on all or none ("bias"); all three
  // normalise with LayerNorm, which has a bias.
  bool linear_bias = type == "gpt2" || type == "gpt_neox";
  if (type == "falcon") linear_bias = c.flag("bias", err).value_or(false);
  if (err) return *err;
  const bool layer_norm = plain_mlp(type);
  auto ctx = c.count("max_position_embeddings", err);
  if (err) return *err;
  if (!ctx && type == "falcon") out.notes.push_back("no max_position_embeddings: the context limit is left out (Falcon-7B was trained on 2,048)");
  // GPT-2's wpe: one learned vector per position.
  const long long positions = type == "gpt2" ? ctx.value_or(1024) : 0;

  // Jamba's Mamba layers (JambaMambaMixer): d_inner = mamba_expand x hidden_size, dt_rank ceil(hidden / 16) unless given.
  std::optional<SsmDims> ssm;
  if (type == "jamba") {
    SsmDims d;
    d.d_state = static_cast<int>(c.count("mamba_d_state", err).value_or(16));
    d.d_conv = static_cast<int>(c.count("mamba_d_conv", err).value_or(4));
    const long long expand = c.count("mamba_expand", err).value_or(2);
    d.dt_rank = static_cast<int>(c.count("mamba_dt_rank", err).value_or((hidden + 15) / 16));
    d.conv_bias = c.flag("mamba_conv_bias", err).value_or(true);
    d.proj_bias = c.flag("mamba_proj_bias", err).value_or(false);
    if (err) return *err;
    if (expand * hidden > kMaxWidth) return c.error("mamba_expand", "(" + std::to_string(expand) + ") x hidden_size is past the width limit", std::string(kModelLimitWhy));
    d.d_inner = static_cast<int>(expand * hidden);
    d.inner_norms = true;
    // The state is kept in the model dtype: vLLM's mamba_ssm_cache_dtype "auto" and Hugging Face's
    // HybridMambaAttentionDynamicCache both allocate it in torch_dtype.
    const std::string dtype = c.text("torch_dtype");
    d.state_dtype = dtype == "float32" ? "fp32" : dtype == "float16" ? "fp16" : "bf16";
    out.notes.push_back("the Mamba state is stored in " + d.state_dtype + " (torch_dtype" + (dtype.empty() ? " absent" : " " + dtype) +
                        "), as vLLM and transformers allocate it by default; set [ssm] state_dtype = \"fp32\" for an FP32 SSM state");
    ssm = d;
  }

  Attention att;
  if (auto e = read_attention(c, type, layers, att, out.notes)) return *e;

  // The file.
  std::string id = opt.id.empty() ? hf_suggest_id(root, "imported-model") : opt.id;
  if (!valid_id(id)) return Error{"model import: \"" + id + "\" is not a valid id", std::string(kIdGrammar)};
  out.id = id;
  const std::string name = opt.name.empty() ? id : opt.name;
  std::string t;
  t += "id = " + toml_string(id) + "\n";
  t += "name = " + toml_string(name) + "\n";
  t += "kind = \"model\"\n";
  t += "family = " + toml_string(type) + "\n";
  if (const Node* a = root.find("architectures"); a != nullptr && !a->items.empty() && a->items[0].kind == Node::Kind::string)
    t += "architecture = " + toml_string(a->items[0].str) + "\n";
  t += "layers = " + std::to_string(layers) + "\n";
  t += "hidden_size = " + std::to_string(hidden) + "\n";
  t += "attention_heads = " + std::to_string(heads) + "\n";
  t += "kv_heads = " + std::to_string(kv_heads) + "\n";
  t += "head_dim = " + std::to_string(head_dim) + "\n";
  if (ffn) t += "ffn_size = " + std::to_string(*ffn) + "\n";
  t += "activation = \"" + activation + "\"\n";
  t += "vocab_size = " + std::to_string(vocab) + "\n";
  t += std::string("tied_embeddings = ") + (tie ? "true" : "false") + "\n";
  if (bias) t += "attention_bias = true\n";
  if (linear_bias) t += "linear_bias = true\n";
  if (layer_norm) t += "norm = \"layernorm\"\n";
  if (positions > 0) t += "position_embeddings = " + std::to_string(positions) + "\n";
  if (ctx) t += "max_context = " + std::to_string(*ctx) + "\n";
  const std::size_t params_at = t.size();  // params go here once the architecture is known
  std::string tables;
  if (mla || att.window > 0 || !att.pattern.empty()) {
    tables += "\n[attention]\n";
    if (mla) {
      tables += "layout = \"mla\"\nkv_lora_rank = " + std::to_string(kv_lora) + "\n";
      if (q_lora > 0) tables += "q_lora_rank = " + std::to_string(q_lora) + "\n";
      tables += "qk_rope_head_dim = " + std::to_string(rope) + "\nqk_nope_head_dim = " + std::to_string(nope) +
                "\nv_head_dim = " + std::to_string(vdim) + "\n";
    }
    if (att.window > 0) tables += "sliding_window = " + std::to_string(att.window) + "\n";
    if (!att.pattern.empty()) {
      tables += "layer_pattern = [";
      for (std::size_t i = 0; i < att.pattern.size(); ++i) tables += (i ? ", \"" : "\"") + att.pattern[i] + "\"";
      tables += "]\n";
    }
  }
  if (ssm) {
    tables += "\n[ssm]\nkind = \"mamba\"\nd_state = " + std::to_string(ssm->d_state) + "\nd_conv = " + std::to_string(ssm->d_conv) +
              "\nd_inner = " + std::to_string(ssm->d_inner) + "\ndt_rank = " + std::to_string(ssm->dt_rank) +
              "\nconv_bias = " + (ssm->conv_bias ? "true" : "false") + "\nproj_bias = " + (ssm->proj_bias ? "true" : "false") +
              "\ninner_norms = true\nstate_dtype = " + toml_string(ssm->state_dtype) + "\n";
  }
  if (is_moe) {
    tables += "\n[moe]\nexperts = " + std::to_string(moe.experts) + "\nexperts_per_token = " + std::to_string(moe.per_token) +
              "\nshared_experts = " + std::to_string(moe.shared) + "\nexpert_ffn_size = " + std::to_string(moe.ffn) +
              "\ndense_layers = " + std::to_string(moe.dense_layers) + "\n";
  }
  const std::string date = opt.as_of.valid() ? opt.as_of.str() : Date::today().str();
  tables += "\n[meta]\nas_of = " + date + "\nsources = [" + toml_string(src + " (Hugging Face config.json, imported " + date + ")") +
            "]\nbasis = \"published\"\n";

  // Read the architecture back through the catalog's own reader, then add the derived counts.
  auto read_back = [&](const std::string& text) -> Expected<ModelArch> {
    auto node = read_toml(text, id + ".toml");
    if (!node) return node.error();
    auto entry = Entry::from_node(std::move(node).value(), id + ".toml", true);
    if (!entry) return entry.error();
    return read_model_arch(*entry.value());
  };
  auto provisional = read_back(t + "params_total = 1e9\n" + tables);
  if (!provisional) return Error{src + ": the converted file does not read back: " + provisional.error().text(), "please report this"};
  out.arch = provisional.value();
  out.params = count_params(out.arch);
  if (!std::isfinite(out.params.total) || out.params.total > kMaxParams)
    return Error{fmt::format("{}: the architecture gives {} parameters, more than the {} infracalc accepts", src,
                             format_machine(out.params.total), format_machine(kMaxParams)),
                 "check the config's counts (layers, widths, experts): " + std::string(kModelLimitWhy)};
  std::string params = "params_total = { value = " + whole(out.params.total) +
                       ", basis = \"derived\", note = \"computed from the architecture by model import; config.json has no parameter count\" }\n";
  if (is_moe)
    params += "params_active = { value = " + whole(out.params.active) +
              ", basis = \"derived\", note = \"computed from the architecture by model import (shared weights plus the routed experts one token uses)\" }\n";
  t.insert(params_at, params);
  out.toml = t + tables;
  auto final_arch = read_back(out.toml);
  if (!final_arch) return Error{src + ": the converted file does not read back: " + final_arch.error().text(), "please report this"};
  out.arch = final_arch.value();
  return out;
}

}  // namespace infracalc
