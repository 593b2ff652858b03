#include "plugins/serve/serve_step.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "plugins/kv/kv_layout.hpp"

namespace infracalc::serve {

namespace {

// Σ_{j=1..t} min(c + j, W): the positions a sliding layer attends to for t new tokens after c cached ones.
double sliding_pairs(double c, double t, double window) {
  const double a = c + 1, b = c + t;
  if (b <= window) return (a + b) * t / 2;
  if (a >= window) return t * window;
  return (a + window) * (window - a + 1) / 2 + (b - window) * window;
}

}  // namespace

RooflineStepModel::RooflineStepModel(decode::Workload workload, decode::Roof roof, int tp, std::optional<decode::Link> link,
                                     Bytes activation_bytes, Seconds overhead)
    : w_(std::move(workload)), roof_(roof), tp_(std::max(1, tp)), link_(link), act_bytes_(activation_bytes), overhead_(overhead) {
  if (!w_.arch) return;
  const ModelArch& m = *w_.arch;
  const Bytes pos = kv::bytes_per_position(m, w_.kv_format, tp_);
  double cached_full = 0, cached_sliding = 0;
  for (int l = 0; l < m.layers; ++l) {
    const bool sliding = kv::layer_sliding(m, l);
    (sliding ? attn_sliding_layers_ : attn_full_layers_) += 1;
    if (kv::layer_cached(m, l)) (sliding ? cached_sliding : cached_full) += 1;
  }
  kv_full_ = cached_full * pos;
  kv_sliding_ = cached_sliding * pos;
  window_ = static_cast<double>(m.sliding_window);
  // One attended position per layer at context 0 (decode) or a one-token prompt (prefill): the per-pair
  // constants decode's own attention formulas use.
  const double layers = std::max(1, m.layers);
  pair_decode_ = decode::attention_flops_per_token(w_, from_base<Tokens>(0)).value() / layers;
  pair_prefill_ = decode::attention_flops_prefill(w_, from_base<Tokens>(1), true).value() / layers;
  // A double holds every whole number below 2^53 exactly, so sums of such numbers are the same in any order.
  group_exact_ = std::trunc(pair_decode_) == pair_decode_ && pair_decode_ >= 0;
  group_pairs_cap_ = std::ldexp(1.0, 53) / (std::max(1.0, pair_decode_) * std::max(1.0, attn_full_layers_ + attn_sliding_layers_));
}

decode::StepDetail RooflineStepModel::from_sums(const Sums& s) const {
  decode::StepDetail d;
  if (s.tokens == 0) return d;
  const double ranks = tp_;
  d.weights = decode::weights_read(w_, s.tokens) / ranks;
  d.matmul_flops = s.tokens * w_.matmul_flops_per_token / ranks;
  if (!w_.arch) return d;
  d.kv_read = s.read_full * kv_full_ + s.read_sliding * kv_sliding_;
  d.kv_write = s.write_full * kv_full_ + s.write_sliding * kv_sliding_;
  d.attention_flops = from_base<Flops>(s.attention / ranks);
  return d;
}

void RooflineStepModel::add(Sums& sums, std::span<const SeqWork> work) const {
  for (const auto& s : work) {
    const auto c = static_cast<double>(s.context);
    const auto t = static_cast<double>(s.tokens);
    sums.tokens += t;
    sums.read_full += c;
    sums.write_full += t;
    double pairs = attn_full_layers_ * (t * c + t * (t + 1) / 2);
    if (window_ > 0) {
      sums.read_sliding += std::min(c, window_);
      sums.write_sliding += std::min(t, window_);
      pairs += attn_sliding_layers_ * sliding_pairs(c, t, window_);
    }
    sums.attention += (s.prefill ? pair_prefill_ : pair_decode_) * pairs;
  }
}

decode::StepDetail RooflineStepModel::detail(std::span<const SeqWork> work) const {
  Sums sums;
  add(sums, work);
  return from_sums(sums);
}

decode::StepDetail RooflineStepModel::uniform_detail(std::int64_t batch, const SeqWork& work) const {
  const decode::StepDetail one = detail(std::span<const SeqWork>(&work, 1));
  const auto b = static_cast<double>(batch);
  const double tokens = b * static_cast<double>(work.tokens);
  decode::StepDetail d;
  if (tokens == 0) return d;
  d.weights = decode::weights_read(w_, tokens) / static_cast<double>(tp_);
  d.matmul_flops = b * one.matmul_flops;
  d.kv_read = b * one.kv_read;
  d.kv_write = b * one.kv_write;
  d.attention_flops = b * one.attention_flops;
  return d;
}

decode::StepTime RooflineStepModel::priced(const decode::StepDetail& d, double tokens, double sequences) const {
  if (eff_ != nullptr) {
    Seconds comm{};
    if (link_ && tp_ > 1 && w_.arch)
      comm = decode::tp_communication_expected(*eff_, w_.arch->layers, w_.arch->hidden_size, tokens, act_bytes_, tp_, link_->bandwidth);
    return decode::calibrated_step_time(*eff_, engine_, d.cost(), {tokens, sequences, bits_, d.attention_flops}, roof_, comm);
  }
  Seconds comm{};
  if (link_ && tp_ > 1 && w_.arch)
    comm = decode::tp_communication(w_.arch->layers, w_.arch->hidden_size, tokens, act_bytes_, tp_, *link_).total;
  return decode::step_time(d.cost(), roof_, comm, overhead_);
}

RooflineStepModel RooflineStepModel::calibrated(const decode::Efficiency& e, decode::Engine engine, int bits) const {
  RooflineStepModel m = *this;
  m.eff_ = &e;
  m.engine_ = engine;
  m.bits_ = bits;
  return m;
}

decode::StepTime RooflineStepModel::step(std::span<const SeqWork> work) const {
  if (work.empty()) return {};
  Sums sums;
  add(sums, work);
  return priced(from_sums(sums), sums.tokens, static_cast<double>(work.size()));
}

bool RooflineStepModel::prices_group(const DecodeGroup& group) const {
  return group_exact_ && static_cast<double>(group.context_sum + group.sequences) <= group_pairs_cap_;
}

Seconds RooflineStepModel::group_time(const DecodeGroup& group, std::span<const SeqWork> rest) const {
  const auto n = static_cast<double>(group.sequences);
  const auto pairs = static_cast<double>(group.context_sum + group.sequences);
  // What add() gives for the group one by one: each decode reads its context, writes one position and attends to
  // context + 1 positions on every full-attention layer; on a sliding one it reads and attends to at most the window,
  // min(context, W) and min(context + 1, W), which is the context (+ 1) below the window and W from there on.
  Sums sums{.tokens = n,
            .read_full = static_cast<double>(group.context_sum),
            .read_sliding = 0,
            .write_full = n,
            .write_sliding = 0,
            .attention = 0};
  double sliding_pairs = 0;
  if (window_ > 0) {
    const auto at_window = static_cast<double>(group.sequences - group.below_window);
    sums.read_sliding = static_cast<double>(group.below_window_context) + window_ * at_window;
    sums.write_sliding = n;
    sliding_pairs = static_cast<double>(group.below_window_context + group.below_window) + window_ * at_window;
  }
  sums.attention = pair_decode_ * (attn_full_layers_ * pairs + attn_sliding_layers_ * sliding_pairs);
  add(sums, rest);
  if (sums.tokens == 0) return Seconds{};
  return priced(from_sums(sums), sums.tokens, n + static_cast<double>(rest.size())).total;
}

decode::StepTime RooflineStepModel::uniform_step(std::int64_t batch, const SeqWork& work) const {
  if (batch <= 0) return {};
  return priced(uniform_detail(batch, work), static_cast<double>(batch) * static_cast<double>(work.tokens), static_cast<double>(batch));
}

Seconds RooflineStepModel::time(std::span<const SeqWork> work) const { return step(work).total; }

Seconds RooflineStepModel::uniform_time(std::int64_t batch, const SeqWork& work) const { return uniform_step(batch, work).total; }

Seconds StepModel::uniform_time(std::int64_t batch, const SeqWork& work) const {
  const std::vector<SeqWork> all(static_cast<std::size_t>(std::max<std::int64_t>(0, batch)), work);
  return time(all);
}

bool StepModel::prices_group(const DecodeGroup& /*group*/) const { return false; }

Seconds StepModel::group_time(const DecodeGroup& /*group*/, std::span<const SeqWork> /*rest*/) const {
  throw std::logic_error("StepModel::group_time: this model prices sequences one by one");
}

LinearStepModel::LinearStepModel(Seconds base, Seconds per_sequence, Seconds per_prompt_token)
    : base_(base), per_sequence_(per_sequence), per_prompt_token_(per_prompt_token) {}

Seconds LinearStepModel::uniform_time(std::int64_t batch, const SeqWork& work) const {
  if (batch <= 0) return Seconds{};
  const auto b = static_cast<double>(batch);
  if (work.prefill) return b * static_cast<double>(work.tokens) * per_prompt_token_;
  return base_ + b * per_sequence_;
}

Seconds LinearStepModel::time(std::span<const SeqWork> work) const { return with_decodes(0, work); }

bool LinearStepModel::prices_group(const DecodeGroup& /*group*/) const { return true; }

Seconds LinearStepModel::group_time(const DecodeGroup& group, std::span<const SeqWork> rest) const {
  return with_decodes(static_cast<double>(group.sequences), rest);
}

Seconds LinearStepModel::with_decodes(double decoding, std::span<const SeqWork> rest) const {
  double prompt = 0;
  for (const auto& s : rest) {
    if (s.prefill) prompt += static_cast<double>(s.tokens);
    else decoding += 1;
  }
  Seconds t = decoding * per_sequence_ + prompt * per_prompt_token_;
  if (decoding > 0) t += base_;
  return t;
}

}  // namespace infracalc::serve
