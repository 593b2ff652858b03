#include "plugins/decode/decode_attention.hpp"

#include <algorithm>
#include <cmath>

namespace infracalc::decode {

Flops attention_flops(const AttentionShape& s) {
  const double n = s.tokens;
  const double pairs = s.causal ? n * (n + 1) / 2 : n * n;
  return from_base<Flops>(4.0 * s.head_dim * pairs);
}

Flops windowed_attention_flops(const AttentionShape& s, double window) {
  const double n = s.tokens;
  const double w = std::min(window, n);
  // Causal: query i sees min(i, w) keys; non-causal: up to w keys around it (clipped at the ends ignored).
  const double pairs = s.causal ? (n <= w ? n * (n + 1) / 2 : w * (w + 1) / 2 + (n - w) * w) : n * w;
  return from_base<Flops>(4.0 * s.head_dim * pairs);
}

Bytes naive_attention_traffic(const AttentionShape& s) {
  const double n = s.tokens;
  return (4.0 * n * s.head_dim + 4.0 * n * n) * s.element;
}

int flash_block_rows(const AttentionShape& s, Bytes on_chip) {
  const double m = on_chip / s.element;  // elements that fit
  const double d = s.head_dim;
  // b² + (4d + 2)·b − m ≤ 0
  const double p = 4.0 * d + 2.0;
  double b = std::floor((-p + std::sqrt(p * p + 4.0 * m)) / 2.0);
  b = std::min(b, std::max(1.0, s.tokens));
  while (b > 0 && (b * b + p * b) > m) b -= 1;
  return b > 0 ? static_cast<int>(b) : 0;
}

Bytes flash_attention_traffic(const AttentionShape& s, int block) {
  const double n = s.tokens;
  const double d = s.head_dim;
  const double b = std::max(1, block);
  const double blocks = std::ceil(n / b);
  double keys_visited = 0;
  if (s.causal) {
    for (double i = 0; i < blocks; ++i) keys_visited += std::min(n, (i + 1) * b);
  } else {
    keys_visited = blocks * n;
  }
  return (2.0 * n * d + 2.0 * d * keys_visited) * s.element;
}

}  // namespace infracalc::decode
