// Reference kernels for the fit plugin: the real weight tensors of scaled-down models quantized into byte
// buffers (whole and per tensor-parallel rank), real KV buffers, a device arena filled sequence by
// sequence, ZeRO shards allocated rank by rank, and the tensors one transformer layer saves for backward.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "plugins/fit/fit_lora.hpp"
#include "plugins/fit/fit_math.hpp"
#include "plugins/fit/fit_plugin.hpp"
#include "plugins/fit/fit_serving.hpp"
#include "plugins/formats/block.hpp"
#include "plugins/formats/codec.hpp"
#include "plugins/formats/error_study.hpp"
#include "plugins/kv/kv_layout.hpp"
#include "units/bridge.hpp"

namespace infracalc {

namespace {

using namespace fit;

Quantity info(double b) { return Quantity{b, dims::information}; }
Quantity num(double n) { return Quantity::number(n); }

ModelArch small_dense() {
  ModelArch m;
  m.id = "small-dense";
  m.layers = 4;
  m.hidden_size = 128;
  m.attention_heads = 4;
  m.kv_heads = 2;
  m.head_dim = 32;
  m.ffn_size = 384;
  m.vocab_size = 512;
  m.tied_embeddings = false;
  m.layer_types.assign(4, LayerAttention::full);
  return m;
}

ModelArch small_moe() {
  ModelArch m = small_dense();
  m.id = "small-moe";
  m.layers = 3;
  m.layer_types.assign(3, LayerAttention::full);
  MoeDims d;
  d.experts = 4;
  d.experts_per_token = 2;
  d.expert_ffn_size = 192;
  m.moe = d;
  return m;
}

// One weight tensor: a name, its element count, and whether it is a routed expert.
struct Tensor {
  std::string name;
  std::size_t rows, cols;
  bool expert;
};

// The weight tensors of one tensor-parallel rank on one pipeline stage, enumerated matrix by matrix
// (Megatron-LM: q/k/v and gate/up split by columns, o and down by rows, embeddings by vocabulary rows;
// norms replicated). KV heads are replicated when there are fewer than tp.
std::vector<Tensor> rank_tensors(const ModelArch& m, int tp, int pp, int stage) {
  std::vector<Tensor> t;
  const std::size_t h = static_cast<std::size_t>(m.hidden_size), hd = static_cast<std::size_t>(m.head_dim);
  const std::size_t q = static_cast<std::size_t>(m.attention_heads / tp) * hd;
  const std::size_t kv = static_cast<std::size_t>(std::max(1, m.kv_heads / tp)) * hd;
  const int per_stage = (m.layers + pp - 1) / pp;
  const int first = stage * per_stage, last = std::min(m.layers, first + per_stage);
  const auto v = static_cast<std::size_t>(m.vocab_size / tp);
  if (stage == 0) t.push_back({"embed", v, h, false});
  for (int l = first; l < last; ++l) {
    t.push_back({"norm1", 1, h, false});
    t.push_back({"q", h, q, false});
    t.push_back({"k", h, kv, false});
    t.push_back({"v", h, kv, false});
    t.push_back({"o", q, h, false});
    t.push_back({"norm2", 1, h, false});
    if (m.moe) {
      t.push_back({"router", h, static_cast<std::size_t>(m.moe->experts), false});
      const std::size_t f = static_cast<std::size_t>(m.moe->expert_ffn_size / tp);
      for (int e = 0; e < m.moe->experts; ++e) {
        t.push_back({"gate", h, f, true});
        t.push_back({"up", h, f, true});
        t.push_back({"down", f, h, true});
      }
    } else {
      const std::size_t f = static_cast<std::size_t>(m.ffn_size / tp);
      t.push_back({"gate", h, f, false});
      t.push_back({"up", h, f, false});
      t.push_back({"down", f, h, false});
    }
  }
  if (stage == pp - 1) {
    t.push_back({"final_norm", 1, h, false});
    t.push_back({"lm_head", v, h, false});
  }
  return t;
}

struct Built {
  double bytes = 0;      // bytes of every quantized buffer
  double params = 0;     // elements
  double tensors_scaled = 0;  // tensors that carry an FP32 tensor scale
};

// Quantizes every tensor of a rank into real buffers and counts the bytes they occupy.
Built build_rank(const ModelArch& m, int tp, int pp, int stage, const StorageFormat& dense, const StorageFormat& expert,
                 std::uint64_t seed) {
  Built b;
  for (const auto& t : rank_tensors(m, tp, pp, stage)) {
    formats::TensorRecipe r;
    r.count = t.rows * t.cols;
    r.outliers = r.count / 1000;
    r.seed = seed++;
    const auto values = formats::make_tensor(r).values;
    const StorageFormat& f = t.expert ? expert : dense;
    const auto layout = formats::layout_of(f);
    const auto q = formats::quantize(values, layout);
    b.bytes += static_cast<double>(q.bytes());
    b.params += static_cast<double>(r.count);
    b.tensors_scaled += layout.tensor_scale ? 1 : 0;
  }
  return b;
}

std::vector<KernelCheck> kernel_weights(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  struct Case {
    ModelArch m;
    const char* dense;
    const char* expert;
  };
  std::vector<Case> cases = {{small_dense(), "bf16", "bf16"}, {small_dense(), "fp8", "fp8"}, {small_dense(), "nvfp4", "nvfp4"},
                             {small_dense(), "int4-g128", "int4-g128"}, {small_moe(), "bf16", "mxfp4"}};
  if (!opt.quick) cases.push_back({small_moe(), "mxfp8", "nvfp4"});
  for (const auto& c : cases) {
    const StorageFormat& d = *find_storage_format(c.dense);
    const StorageFormat& e = *find_storage_format(c.expert);
    const Built b = build_rank(c.m, 1, 1, 0, d, e, 1);
    const ParamCount pc = count_params(c.m);
    out.push_back({fmt::format("{}: parameters in the real tensors vs count_params", c.m.id), num(pc.total), num(b.params), 0.0});
    // The formula leaves out one 4-byte FP32 scale per tensor; the tolerance is exactly that share.
    const Bytes formula = weight_bytes(pc.total, routed_expert_params(c.m), d, e);
    const double tol = (b.tensors_scaled * 4.0 + 1e-9) / formula.value();
    out.push_back({fmt::format("{}: weight bytes in {}{} (tensor scales within tolerance)", c.m.id, c.dense,
                               std::string(c.dense) != c.expert ? fmt::format(", experts in {}", c.expert) : ""),
                   to_quantity(formula), info(b.bytes), tol});
  }
  // Per device under tensor and pipeline parallelism: the busiest rank's own tensors.
  for (const auto& [tp, pp] : std::vector<std::pair<int, int>>{{2, 1}, {4, 1}, {2, 2}, {1, 3}}) {
    const ModelArch m = small_dense();
    double busiest = 0;
    for (int stage = 0; stage < pp; ++stage)
      busiest = std::max(busiest, build_rank(m, tp, pp, stage, *find_storage_format("bf16"), *find_storage_format("bf16"), 7).params);
    const ParamSplit sp = split_params(m, tp, pp);
    // split_params spreads the norms over stages by layer share, the tensors keep them whole: a few h-vectors.
    const double tol = (2.0 * m.layers + 1.0) * m.hidden_size / sp.per_device;
    out.push_back({fmt::format("small-dense: parameters on the busiest device at tp {} x pp {}", tp, pp), num(sp.per_device),
                   num(busiest), tol});
  }
  return out;
}

// Real K and V buffers per layer and rank, filled token by token.
std::vector<KernelCheck> kernel_kv(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const ModelArch m = small_dense();
  const int tokens = opt.quick ? 64 : 1024, batch = 3;
  for (const char* name : {"bf16", "fp8", "int4"}) {
    for (int tp : {1, 2, 4}) {
      const StorageFormat& f = *find_storage_format(name);
      const int heads = std::max(1, m.kv_heads / tp);
      const std::size_t per_token = formats::packed_size(static_cast<std::size_t>(heads * m.head_dim), static_cast<int>(f.element_bits));
      std::size_t allocated = 0;
      for (int s = 0; s < batch; ++s)
        for (int l = 0; l < m.layers; ++l) {
          std::vector<std::uint8_t> k, v;
          for (int t = 0; t < tokens; ++t) {
            k.insert(k.end(), per_token, static_cast<std::uint8_t>(t));
            v.insert(v.end(), per_token, static_cast<std::uint8_t>(l));
          }
          allocated += k.size() + v.size();
        }
      const auto c = kv::cache_size(m, f, from_base<Tokens>(tokens), Number::from_value(batch), {tp, 1});
      out.push_back({fmt::format("KV buffers on one of {} ranks: {} x {} tokens, {}", tp, batch, tokens, name), to_quantity(c.per_device),
                     info(static_cast<double>(allocated)), 0.0});
    }
  }
  return out;
}

// A device arena: weights, reserve and fixed activations are placed first, then sequences are admitted
// one at a time, each with the real KV buffers of its context, until the next one no longer fits.
std::vector<KernelCheck> kernel_arena(const KernelOptions&) {
  std::vector<KernelCheck> out;
  const ModelArch m = small_dense();
  InferenceSetup s;
  s.arch = m;
  s.params = count_params(m).total;
  s.dtype = s.expert_dtype = find_storage_format("bf16");
  s.kv_dtype = find_storage_format("bf16");
  s.framework = from_base<Bytes>(200'000);
  s.comm = from_base<Bytes>(50'000);
  s.activations = from_base<Bytes>(300'000);
  for (const auto& [tp, tokens, capacity] : std::vector<std::tuple<int, int, double>>{{1, 512, 12e6}, {2, 256, 6e6}, {1, 2048, 20e6}}) {
    const Built w = build_rank(m, tp, 1, 0, *s.dtype, *s.dtype, 3);
    double used = w.bytes + s.framework.value() + s.activations->value() + (tp > 1 ? s.comm.value() : 0.0);
    std::int64_t admitted = 0;
    std::vector<std::vector<std::uint8_t>> held;
    for (;;) {
      const std::size_t seq_bytes = static_cast<std::size_t>(
          2.0 * m.layers * std::max(1, m.kv_heads / tp) * m.head_dim * 2.0 * tokens);
      if (used + static_cast<double>(seq_bytes) > capacity) break;
      held.emplace_back(seq_bytes, 0);  // the sequence's K and V for every layer
      used += static_cast<double>(held.back().size());
      ++admitted;
    }
    const auto formula = max_batch(s, from_base<Tokens>(tokens), tp, 1, from_base<Bytes>(capacity));
    out.push_back({fmt::format("sequences of {} tokens admitted to a {:g} MB device at tp {}", tokens, capacity / 1e6, tp),
                   num(static_cast<double>(formula)), num(static_cast<double>(admitted)), 0.0});
  }
  return out;
}

// ZeRO: each data-parallel rank allocates its own shard of a flat parameter buffer's weights, gradients,
// FP32 master copy and Adam moments; rank 0's bytes against zero_shard.
std::vector<KernelCheck> kernel_zero(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const std::size_t params = opt.quick ? 96'000 : 960'000;
  const StatePerParam per = state_per_param(Optimizer::adamw, from_base<Bytes>(2), from_base<Bytes>(2), true, 0);
  for (int stage = 0; stage <= 3; ++stage) {
    for (int dp : {1, 4, 8}) {
      const std::size_t shard = params / static_cast<std::size_t>(dp);
      std::vector<std::uint16_t> weights(stage >= 3 ? shard : params), grads(stage >= 2 ? shard : params);
      std::vector<float> master(stage >= 1 ? shard : params), m1(master.size()), m2(master.size());
      const double bytes = static_cast<double>(weights.size() * 2 + grads.size() * 2 + master.size() * 4 + m1.size() * 4 + m2.size() * 4);
      out.push_back({fmt::format("ZeRO-{} state on one of {} ranks, mixed-precision AdamW", stage, dp),
                     to_quantity(zero_shard(per, static_cast<double>(params), stage, dp).total), info(bytes), 0.0});
    }
  }
  return out;
}

// The tensors one GPT layer's forward keeps for backward, op by op (Korthikanti et al. 2022, section 4.1),
// each allocated as a buffer of its real size, for TP with and without sequence parallelism.
std::vector<KernelCheck> kernel_activations(const KernelOptions&) {
  std::vector<KernelCheck> out;
  const double s = 128, b = 2, h = 256, a = 8;
  for (int t : {1, 2, 4}) {
    for (bool sp : {false, true}) {
      if (t == 1 && sp) continue;
      for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full}) {
        const double rep = sp ? t : 1;  // parts outside the tensor-parallel region: replicated, or split by sequence parallelism
        struct Saved {
          const char* what;
          double bytes;
        };
        std::vector<Saved> saved;
        if (r == Recompute::full) {
          saved.push_back({"layer input", 2 * s * b * h / rep});
        } else {
          saved.push_back({"layernorm 1 input", 2 * s * b * h / rep});
          saved.push_back({"qkv matmul input", 2 * s * b * h / rep});
          saved.push_back({"Q and K", 4 * s * b * h / t});
          if (r == Recompute::none) {
            saved.push_back({"softmax output", 2 * a * s * s * b / t});
            saved.push_back({"softmax dropout mask", a * s * s * b / t});
            saved.push_back({"attention dropout output", 2 * a * s * s * b / t});
          }
          saved.push_back({"V", 2 * s * b * h / t});
          saved.push_back({"output projection input", 2 * s * b * h / t});
          saved.push_back({"attention dropout mask", s * b * h / rep});
          saved.push_back({"layernorm 2 input", 2 * s * b * h / rep});
          saved.push_back({"mlp input", 2 * s * b * h / rep});
          saved.push_back({"first linear output (4h)", 8 * s * b * h / t});
          saved.push_back({"GeLU output (4h)", 8 * s * b * h / t});
          saved.push_back({"mlp dropout mask", s * b * h / rep});
        }
        double total = 0;
        for (const auto& x : saved) {
          const std::vector<std::uint8_t> buf(static_cast<std::size_t>(x.bytes));
          total += static_cast<double>(buf.size());
        }
        ActivationShape shape{from_base<Tokens>(s), b, h, a, 1, 0, t, 1, sp};
        const char* rn = r == Recompute::none ? "none" : (r == Recompute::selective ? "selective" : "full");
        out.push_back({fmt::format("layer activations, tp {}{}, recompute {}", t, sp ? " + sequence parallel" : "", rn),
                       to_quantity(activation_per_layer(shape, r)), info(total), 0.0});
      }
    }
  }
  return out;
}


// LoRA adapters built on the real weight tensors of scaled-down models: for every adapted matrix W an A
// (r x d_in) and a B (d_out x r) buffer, a forward pass through the unmerged layer W x + B(A x) compared with
// the merged W + BA (which only works when the shapes line up), and the trainable elements counted.
std::vector<KernelCheck> kernel_lora(const KernelOptions&) {
  std::vector<KernelCheck> out;
  const auto adapted = [](const std::string& name, LoraTargets t) {
    const bool attn = name == "q" || name == "k" || name == "v" || name == "o";
    const bool mlp = name == "gate" || name == "up" || name == "down";
    if (t == LoraTargets::qv) return name == "q" || name == "v";
    return t == LoraTargets::all ? attn || mlp : (t == LoraTargets::attn ? attn : mlp);
  };
  for (const ModelArch& m : {small_dense(), small_moe()}) {
    for (LoraTargets t : {LoraTargets::qv, LoraTargets::attn, LoraTargets::mlp, LoraTargets::all}) {
      for (int r : {4, 16}) {
        double elements = 0, worst = 0;
        std::uint64_t seed = 7;
        for (const auto& w : rank_tensors(m, 1, 1, 0)) {
          if (!adapted(w.name, t)) continue;
          const std::size_t din = w.rows, dout = w.cols, rr = static_cast<std::size_t>(r);
          formats::TensorRecipe rw;
          rw.outliers = 0;
          rw.count = din * dout;
          rw.seed = seed++;
          const auto W = formats::make_tensor(rw).values;
          rw.count = rr * din;
          rw.seed = seed++;
          const auto A = formats::make_tensor(rw).values;
          rw.count = dout * rr;
          rw.seed = seed++;
          const auto B = formats::make_tensor(rw).values;
          rw.count = din;
          rw.seed = seed++;
          const auto x = formats::make_tensor(rw).values;
          std::vector<double> ax(rr, 0.0), y(dout, 0.0), merged(dout, 0.0);
          for (std::size_t k = 0; k < rr; ++k)
            for (std::size_t i = 0; i < din; ++i) ax[k] += static_cast<double>(A[k * din + i]) * x[i];
          for (std::size_t o = 0; o < dout; ++o) {
            for (std::size_t i = 0; i < din; ++i) {
              double ba = 0;
              for (std::size_t k = 0; k < rr; ++k) ba += static_cast<double>(B[o * rr + k]) * A[k * din + i];
              y[o] += static_cast<double>(W[i * dout + o]) * x[i];
              merged[o] += (static_cast<double>(W[i * dout + o]) + ba) * x[i];
            }
            for (std::size_t k = 0; k < rr; ++k) y[o] += static_cast<double>(B[o * rr + k]) * ax[k];
            worst = std::max(worst, std::fabs(y[o] - merged[o]) / std::max(1.0, std::fabs(merged[o])));
          }
          elements += static_cast<double>(A.size() + B.size());
        }
        const char* tn = t == LoraTargets::qv ? "qv" : t == LoraTargets::attn ? "attn" : (t == LoraTargets::mlp ? "mlp" : "all");
        out.push_back({fmt::format("LoRA adapter parameters, {}, targets {}, rank {}", m.id, tn, r),
                       num(lora_params(lora_matrices(m, t), r)), num(elements), 0.0});
        out.push_back({fmt::format("LoRA unmerged vs merged forward, {}, targets {}, rank {}: largest relative difference", m.id, tn, r),
                       num(0.0), num(worst), 0.0, 1e-9});
      }
    }
  }
  return out;
}

}  // namespace

std::vector<Kernel> fit_kernels() {
  return {
      {"weight-buffers", "quantizes every weight tensor of scaled-down models (whole and per tp/pp rank) and counts bytes", kernel_weights},
      {"kv-buffers", "allocates K and V per layer and rank token by token and counts bytes", kernel_kv},
      {"device-arena", "fills a device arena with weights, reserve and sequences' KV until it is full", kernel_arena},
      {"zero-shards", "allocates each rank's ZeRO shard of weights, gradients, master and moments", kernel_zero},
      {"layer-activations", "allocates the tensors a transformer layer saves for backward, op by op", kernel_activations},
      {"lora-adapters", "builds LoRA A and B beside every adapted weight of scaled-down models, runs merged and unmerged forwards",
       kernel_lora},
  };
}

}  // namespace infracalc
