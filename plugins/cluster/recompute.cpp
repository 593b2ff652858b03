#include "plugins/cluster/recompute.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace infracalc::cluster {

int sqrt_interval(int layers) { return std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(layers)) - 1e-12))); }

int checkpoints_kept(int layers, int interval) { return (layers + interval - 1) / interval; }

int peak_activations(int layers, int interval) {
  if (interval <= 1) return layers;
  const int c = checkpoints_kept(layers, interval);
  const int last = layers - (c - 1) * interval;  // length of the last segment, the first one recomputed
  // Recomputing the last segment holds every checkpoint plus its other inputs; each earlier segment holds one
  // checkpoint fewer (the later ones are freed) plus k - 1 recomputed inputs.
  return std::max(c + last - 1, c >= 2 ? c + interval - 2 : 0);
}

int recomputed_layers(int layers, int interval) { return interval <= 1 ? 0 : layers - checkpoints_kept(layers, interval); }

namespace {

// Layer i: y = tanh(a_i x + b_i) elementwise, with per-element offsets so the values differ across the width.
struct Chain {
  int layers, width;
  std::vector<double> a, b;
  Chain(int n, int w) : layers(n), width(w), a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n) * static_cast<std::size_t>(w)) {
    for (int i = 0; i < n; ++i) {
      a[static_cast<std::size_t>(i)] = 0.9 + 0.2 * std::sin(1.7 * i);
      for (int j = 0; j < w; ++j) b[static_cast<std::size_t>(i * w + j)] = 0.1 * std::cos(0.3 * i + 0.7 * j);
    }
  }
  std::vector<double> forward(int i, const std::vector<double>& x) const {
    std::vector<double> y(x.size());
    for (int j = 0; j < width; ++j)
      y[static_cast<std::size_t>(j)] = std::tanh(a[static_cast<std::size_t>(i)] * x[static_cast<std::size_t>(j)] + b[static_cast<std::size_t>(i * width + j)]);
    return y;
  }
  // Given the layer's input and dL/dy, returns dL/dx and accumulates dL/da_i.
  std::vector<double> backward(int i, const std::vector<double>& x, const std::vector<double>& gy, double& ga) const {
    std::vector<double> gx(x.size());
    const double ai = a[static_cast<std::size_t>(i)];
    for (int j = 0; j < width; ++j) {
      const auto k = static_cast<std::size_t>(j);
      const double y = std::tanh(ai * x[k] + b[static_cast<std::size_t>(i * width + j)]);
      const double dz = gy[k] * (1.0 - y * y);
      ga += dz * x[k];
      gx[k] = dz * ai;
    }
    return gx;
  }
};

}  // namespace

ChainRun run_chain(int layers, int width, int interval, bool record) {
  const Chain c(layers, width);
  ChainRun r;
  r.param_grad.assign(static_cast<std::size_t>(layers), 0.0);
  const int k = std::max(1, interval);
  // held[i] = input of layer i (0-based) when held.
  std::vector<std::optional<std::vector<double>>> held(static_cast<std::size_t>(layers));
  int count = 0;
  auto note = [&](const char* what, int layer) {
    r.peak_held = std::max(r.peak_held, count);
    if (record) r.events.push_back({what, layer + 1, count});
  };
  auto hold = [&](int i, std::vector<double> x) {
    if (!held[static_cast<std::size_t>(i)]) ++count;
    held[static_cast<std::size_t>(i)] = std::move(x);
  };
  auto drop = [&](int i) {
    if (held[static_cast<std::size_t>(i)]) --count;
    held[static_cast<std::size_t>(i)].reset();
  };

  std::vector<double> x(static_cast<std::size_t>(width));
  for (int j = 0; j < width; ++j) x[static_cast<std::size_t>(j)] = 0.5 + 0.01 * j;
  // Forward: keep the input of every k-th layer (layers 1, 1 + k, ... in 1-based numbering).
  for (int i = 0; i < layers; ++i) {
    if (i % k == 0) {
      hold(i, x);
      ++r.kept;
      note("keep", i);
    }
    x = c.forward(i, x);
    ++r.forwards;
    if (record) r.events.push_back({"forward", i + 1, count});
  }
  // Loss = sum of the outputs: dL/dy = 1.
  std::vector<double> g(static_cast<std::size_t>(width), 1.0);
  // Backward, segment by segment from the last: recompute the segment's inputs from its checkpoint.
  for (int start = ((layers - 1) / k) * k; start >= 0; start -= k) {
    const int end = std::min(start + k, layers);  // layers [start, end)
    std::vector<double> y = *held[static_cast<std::size_t>(start)];
    for (int i = start + 1; i < end; ++i) {
      y = c.forward(i - 1, y);
      ++r.forwards;
      ++r.recomputed;
      hold(i, y);
      note("recompute", i - 1);
    }
    for (int i = end - 1; i >= start; --i) {
      g = c.backward(i, *held[static_cast<std::size_t>(i)], g, r.param_grad[static_cast<std::size_t>(i)]);
      drop(i);
      if (record) r.events.push_back({"backward", i + 1, count});
    }
  }
  r.input_grad = g;
  return r;
}

}  // namespace infracalc::cluster
