#include "plugins/decode/decode_sampling.hpp"

#include <algorithm>
#include <cmath>

namespace infracalc::decode {

Sampling sample_distribution(const std::vector<double>& logits, double temperature) {
  Sampling s;
  const double top = *std::max_element(logits.begin(), logits.end());
  s.top = static_cast<std::size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
  s.probabilities.assign(logits.size(), 0.0);
  if (temperature == 0.0) {
    const auto ties = static_cast<double>(std::count(logits.begin(), logits.end(), top));
    for (std::size_t i = 0; i < logits.size(); ++i) s.probabilities[i] = logits[i] == top ? 1.0 / ties : 0.0;
  } else {
    double sum = 0;
    for (std::size_t i = 0; i < logits.size(); ++i) sum += s.probabilities[i] = std::exp((logits[i] - top) / temperature);
    for (double& p : s.probabilities) p /= sum;
  }
  for (double p : s.probabilities)
    if (p > 0) s.entropy_bits -= p * std::log2(p);
  s.effective_choices = std::exp2(s.entropy_bits);
  return s;
}

}  // namespace infracalc::decode
