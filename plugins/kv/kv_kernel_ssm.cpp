// Reference kernel kv-ssm-state: a scaled-down hybrid (two Mamba layers and one attention layer) decodes a few
// sequences token by token. Each Mamba layer keeps real per-sequence buffers, the conv state (the last d_conv - 1
// inputs of every channel) and the SSM state (d_inner x d_state), and runs the selective-scan recurrence of
// Gu and Dao 2023 ("Mamba", algorithm 2, with the zero-order-hold A_bar = exp(dt A) and the simplified
// B_bar = dt B of mamba_ssm's selective_state_update): h = A_bar h + B_bar x, y = C h + D x. The attention layer
// appends K and V per token. The kernel counts the bytes held after 1 and after N tokens (the state must not
// grow) against cache_size, and checks that the recurrent outputs equal the same outputs computed from the
// whole input history (the state summarises the history, it does not drop it).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <vector>

#include "plugins/kernels/rng.hpp"
#include "plugins/kv/kv_kernels.hpp"
#include "plugins/kv/kv_layout.hpp"
#include "units/bridge.hpp"

namespace infracalc::kv {

namespace {

constexpr int kInner = 12;
constexpr int kState = 4;
constexpr int kConv = 4;
constexpr int kKvHeads = 2;
constexpr int kHeadDim = 8;

// Per-channel parameters of one scaled-down Mamba layer (fixed weights; dt, B and C depend on the input, which
// is what makes the scan selective).
struct Mixer {
  std::vector<double> conv_w;  // kInner x kConv
  std::vector<double> a;       // kInner x kState, negative (A = -exp(A_log))
  std::vector<double> d;       // kInner
  std::vector<double> wdt, wb, wc;
};

Mixer mixer(kernels::Rng& r) {
  Mixer m;
  auto fill = [&](std::vector<double>& v, std::size_t n, double lo, double hi) {
    v.resize(n);
    for (auto& x : v) x = lo + (hi - lo) * r.uniform();
  };
  fill(m.conv_w, kInner * kConv, -0.5, 0.5);
  fill(m.a, kInner * kState, -1.5, -0.1);
  fill(m.d, kInner, 0.5, 1.0);
  fill(m.wdt, kInner, 0.1, 0.6);
  fill(m.wb, kState, -1.0, 1.0);
  fill(m.wc, kState, -1.0, 1.0);
  return m;
}

double softplus(double x) { return std::log1p(std::exp(x)); }

// dt, B and C of step t for channel i, from the conv output u (a stand-in for x_proj and dt_proj).
struct Step {
  double dt;
  double b[kState];
  double c[kState];
};
Step step_params(const Mixer& m, int i, double u, double mean_u) {
  Step s{};
  s.dt = softplus(m.wdt[static_cast<std::size_t>(i)] * u);
  for (int n = 0; n < kState; ++n) {
    s.b[n] = m.wb[static_cast<std::size_t>(n)] * mean_u;
    s.c[n] = m.wc[static_cast<std::size_t>(n)] * std::tanh(mean_u);
  }
  return s;
}

// The state of one sequence in one Mamba layer, stored as fp32 like a cache allocated in that format.
struct State {
  std::vector<float> conv = std::vector<float>(static_cast<std::size_t>((kConv - 1) * kInner), 0.0F);
  std::vector<float> ssm = std::vector<float>(static_cast<std::size_t>(kInner * kState), 0.0F);
  [[nodiscard]] double bytes() const { return static_cast<double>((conv.size() + ssm.size()) * sizeof(float)); }
};

// One recurrent step: the conv window is the stored d_conv - 1 inputs plus x; the oldest input leaves the state.
std::vector<double> recurrent_step(const Mixer& m, State& st, const std::vector<double>& x) {
  std::vector<double> u(kInner);
  for (int i = 0; i < kInner; ++i) {
    double acc = m.conv_w[static_cast<std::size_t>(i * kConv + kConv - 1)] * x[static_cast<std::size_t>(i)];
    for (int k = 0; k < kConv - 1; ++k)
      acc += m.conv_w[static_cast<std::size_t>(i * kConv + k)] * st.conv[static_cast<std::size_t>(k * kInner + i)];
    u[static_cast<std::size_t>(i)] = acc;
  }
  for (int k = 0; k + 1 < kConv - 1; ++k)
    for (int i = 0; i < kInner; ++i)
      st.conv[static_cast<std::size_t>(k * kInner + i)] = st.conv[static_cast<std::size_t>((k + 1) * kInner + i)];
  for (int i = 0; i < kInner; ++i) st.conv[static_cast<std::size_t>((kConv - 2) * kInner + i)] = static_cast<float>(x[static_cast<std::size_t>(i)]);
  double mean_u = 0;
  for (double v : u) mean_u += v / kInner;
  std::vector<double> y(kInner);
  for (int i = 0; i < kInner; ++i) {
    const Step s = step_params(m, i, u[static_cast<std::size_t>(i)], mean_u);
    double out = m.d[static_cast<std::size_t>(i)] * u[static_cast<std::size_t>(i)];
    for (int n = 0; n < kState; ++n) {
      float& h = st.ssm[static_cast<std::size_t>(i * kState + n)];
      const double a_bar = std::exp(s.dt * m.a[static_cast<std::size_t>(i * kState + n)]);
      h = static_cast<float>(a_bar * h + s.dt * s.b[n] * u[static_cast<std::size_t>(i)]);
      out += s.c[n] * h;
    }
    y[static_cast<std::size_t>(i)] = out;
  }
  return y;
}

// The output of the last step from the whole history, without any state: the conv over the last d_conv inputs
// and the unrolled scan h_T = sum_s (prod_{r > s} A_bar_r) B_bar_s u_s.
std::vector<double> from_history(const Mixer& m, const std::vector<std::vector<double>>& xs) {
  const auto t_len = static_cast<int>(xs.size());
  std::vector<std::vector<double>> us(xs.size(), std::vector<double>(kInner));
  for (int t = 0; t < t_len; ++t)
    for (int i = 0; i < kInner; ++i) {
      double acc = 0;
      for (int k = 0; k < kConv; ++k) {
        const int src = t - (kConv - 1) + k;
        if (src >= 0) acc += m.conv_w[static_cast<std::size_t>(i * kConv + k)] * xs[static_cast<std::size_t>(src)][static_cast<std::size_t>(i)];
      }
      us[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)] = acc;
    }
  std::vector<Step> steps;
  std::vector<double> y(kInner);
  for (int i = 0; i < kInner; ++i) {
    steps.clear();
    for (int t = 0; t < t_len; ++t) {
      double mean_u = 0;
      for (double v : us[static_cast<std::size_t>(t)]) mean_u += v / kInner;
      steps.push_back(step_params(m, i, us[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)], mean_u));
    }
    const double u_last = us.back()[static_cast<std::size_t>(i)];
    double out = m.d[static_cast<std::size_t>(i)] * u_last;
    for (int n = 0; n < kState; ++n) {
      double h = 0;
      for (int s = 0; s < t_len; ++s) {
        double decay = 1;
        for (int r = s + 1; r < t_len; ++r) decay *= std::exp(steps[static_cast<std::size_t>(r)].dt * m.a[static_cast<std::size_t>(i * kState + n)]);
        h += decay * steps[static_cast<std::size_t>(s)].dt * steps[static_cast<std::size_t>(s)].b[n] * us[static_cast<std::size_t>(s)][static_cast<std::size_t>(i)];
      }
      out += steps.back().c[n] * h;
    }
    y[static_cast<std::size_t>(i)] = out;
  }
  return y;
}

ModelArch hybrid() {
  ModelArch m;
  m.layers = 3;
  m.hidden_size = kInner / 2;
  m.attention_heads = kKvHeads;
  m.kv_heads = kKvHeads;
  m.head_dim = kHeadDim;
  m.layer_types = {LayerAttention::state_space, LayerAttention::full, LayerAttention::state_space};
  SsmDims d;
  d.d_state = kState;
  d.d_conv = kConv;
  d.d_inner = kInner;
  d.dt_rank = 1;
  d.state_dtype = "fp32";
  m.ssm = d;
  return m;
}

}  // namespace

std::vector<KernelCheck> run_ssm_kernel(const KernelOptions& opt) {
  const ModelArch arch = hybrid();
  const int batch = 3;
  const int tokens = opt.quick ? 40 : 200;
  kernels::Rng rng(20240328);
  std::vector<Mixer> mixers;
  for (int l = 0; l < arch.layers; ++l) mixers.push_back(mixer(rng));
  // Per sequence: a State per Mamba layer, a growing K/V store per attention layer, the inputs seen so far.
  struct Sequence {
    std::vector<State> states;
    std::vector<std::vector<float>> kv;
    std::vector<std::vector<std::vector<double>>> inputs;
  };
  std::vector<Sequence> seqs(static_cast<std::size_t>(batch));
  for (auto& s : seqs) {
    s.states.resize(static_cast<std::size_t>(arch.layers));
    s.kv.resize(static_cast<std::size_t>(arch.layers));
    s.inputs.resize(static_cast<std::size_t>(arch.layers));
  }
  auto held = [&](bool state_only) {
    double b = 0;
    for (const auto& s : seqs)
      for (int l = 0; l < arch.layers; ++l) {
        if (layer_state_space(arch, l)) b += s.states[static_cast<std::size_t>(l)].bytes();
        else if (!state_only) b += static_cast<double>(s.kv[static_cast<std::size_t>(l)].size() * sizeof(float));
      }
    return b;
  };
  double state_after_one = 0, worst = 0;
  std::vector<double> last_y;
  for (int t = 0; t < tokens; ++t) {
    for (auto& s : seqs)
      for (int l = 0; l < arch.layers; ++l) {
        std::vector<double> x(kInner);
        for (auto& v : x) v = rng.uniform() - 0.5;
        if (!layer_state_space(arch, l)) {
          for (int e = 0; e < 2 * kKvHeads * kHeadDim; ++e) s.kv[static_cast<std::size_t>(l)].push_back(static_cast<float>(x[static_cast<std::size_t>(e % kInner)]));
          continue;
        }
        s.inputs[static_cast<std::size_t>(l)].push_back(x);
        last_y = recurrent_step(mixers[static_cast<std::size_t>(l)], s.states[static_cast<std::size_t>(l)], x);
        // The unrolled scan is quadratic in the tokens: compare it on the first sequence only, every tenth step.
        if (&s == &seqs.front() && (t % 10 == 0 || t == tokens - 1)) {
          const auto ref = from_history(mixers[static_cast<std::size_t>(l)], s.inputs[static_cast<std::size_t>(l)]);
          for (int i = 0; i < kInner; ++i) worst = std::max(worst, std::fabs(ref[static_cast<std::size_t>(i)] - last_y[static_cast<std::size_t>(i)]));
        }
      }
    if (t == 0) state_after_one = held(true);
  }
  const auto fp32 = *find_storage_format("fp32");
  const CacheSize c = cache_size(arch, fp32, from_base<Tokens>(tokens), Number::from_value(batch));
  if (opt.trace)
    fmt::print(stderr, "kv-ssm-state: {} sequences, {} tokens: state {} B after 1 token, {} B after {}; KV + state {} B\n", batch, tokens,
               state_after_one, held(true), tokens, held(false));
  const std::string what = fmt::format("{} sequences, 2 Mamba layers (d_inner {}, d_state {}, d_conv {}) + 1 attention layer, fp32", batch,
                                       kInner, kState, kConv);
  return {
      {"recurrent state bytes after 1 token, " + what, to_quantity(c.ssm_state_per_sequence * Number::from_value(batch)),
       Quantity{state_after_one, dims::information}, 0.0},
      {fmt::format("recurrent state bytes after {} tokens (unchanged), {}", tokens, what),
       to_quantity(c.ssm_state_per_sequence * Number::from_value(batch)), Quantity{held(true), dims::information}, 0.0},
      {fmt::format("KV + state bytes after {} tokens, {}", tokens, what), to_quantity(c.total), Quantity{held(false), dims::information}, 0.0},
      {"largest difference, recurrent output vs the same output from the whole input history", Quantity::number(0), Quantity::number(worst),
       0.0, 1e-4},
  };
}

}  // namespace infracalc::kv
