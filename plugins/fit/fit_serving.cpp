#include "plugins/fit/fit_serving.hpp"

#include <algorithm>
#include <cmath>

#include "plugins/kv/kv_layout.hpp"

namespace infracalc::fit {

namespace {

bool fits(const InferenceSetup& s, Tokens context, double batch, int tp, int pp, Bytes usable) {
  return waterfall_total(inference_waterfall(s, context, batch, tp, pp)) <= usable;
}

}  // namespace

Waterfall inference_waterfall(const InferenceSetup& s, Tokens context, double batch, int tp, int pp) {
  Waterfall w;
  const ModelArch& m = s.arch;
  const bool countable = m.vocab_size > 0 && (m.ffn_size > 0 || m.moe);
  if (countable) {
    const ParamSplit sp = split_params(m, tp, pp);
    const double scale = s.params / sp.total;  // --params overrides the architecture's own count
    const double experts_dev = s.experts > 0 ? sp.experts_per_device * scale : 0.0;
    w.weights = weight_bytes(sp.per_device * scale, experts_dev, *s.dtype, *s.expert_dtype);
  } else {
    const double share = 1.0 / (static_cast<double>(tp) * pp);
    w.weights = weight_bytes(s.params * share, s.experts * share, *s.dtype, *s.expert_dtype);
  }
  w.kv = kv::cache_size(m, *s.kv_dtype, context, Number::from_value(batch), {tp, pp}).per_device;
  if (s.activations) {
    w.activations = *s.activations;
  } else {
    // One step processes the decode tokens of every sequence, or a prefill chunk of at most step_tokens.
    const Tokens step = from_base<Tokens>(std::max(batch, std::min(s.step_tokens.value(), batch * context.value())));
    w.activations = step * activation_bytes_per_token(m, tp, s.act_bytes);
    // Logits of the last position of each sequence, in FP32, split over tp (vocabulary-parallel head).
    w.activations += batch * static_cast<double>(m.vocab_size) / tp * from_base<Bytes>(4.0);
  }
  w.framework = s.framework;
  w.comm = tp * pp > 1 ? s.comm : from_base<Bytes>(0.0);
  w.total = waterfall_total(w);
  return w;
}

std::int64_t max_batch(const InferenceSetup& s, Tokens context, int tp, int pp, Bytes usable) {
  if (!fits(s, context, 1, tp, pp, usable)) return 0;
  std::int64_t lo = 1, hi = 2;
  while (hi < (std::int64_t{1} << 40) && fits(s, context, static_cast<double>(hi), tp, pp, usable)) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(s, context, static_cast<double>(mid), tp, pp, usable) ? lo : hi) = mid;
  }
  return lo;
}

Tokens max_context(const InferenceSetup& s, double batch, int tp, int pp, Bytes usable) {
  auto ok = [&](double t) { return fits(s, from_base<Tokens>(t), batch, tp, pp, usable); };
  if (!ok(1)) return from_base<Tokens>(0);
  double lo = 1, hi = 2;
  const double cap = std::ldexp(1.0, 40);
  while (hi < cap && ok(hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi >= cap && ok(hi)) return from_base<Tokens>(hi);  // sliding-window models can stop growing: report the cap
  while (hi - lo > 1) {
    const double mid = std::floor(lo + (hi - lo) / 2);
    (ok(mid) ? lo : hi) = mid;
  }
  return from_base<Tokens>(lo);
}

std::optional<Layout> min_layout(const InferenceSetup& s, Tokens context, double batch, Bytes usable) {
  const int heads = std::max(1, s.arch.attention_heads);
  for (int n = 1; n <= 4096; ++n) {
    // Tensor parallelism within an 8-device node first (the widest that divides n and the heads), then stages.
    for (int tp = 8; tp >= 1; tp /= 2) {
      if (n % tp != 0 || heads % tp != 0) continue;
      const int pp = n / tp;
      if (pp > std::max(1, s.arch.layers)) continue;
      if (fits(s, context, batch, tp, pp, usable)) return Layout{tp, pp};
    }
  }
  return std::nullopt;
}

}  // namespace infracalc::fit
