// Sampling the next token: probabilities from logits at a temperature (softmax of logit / T; greedy as T
// goes to 0), and what the temperature does to the distribution (entropy, the top token's share).
#pragma once

#include <vector>

namespace infracalc::decode {

/// The distribution a sampler draws from.
struct Sampling {
  /// Probability of each logit's token, in the order given; they sum to 1.
  std::vector<double> probabilities;
  /// Index of the most likely token.
  std::size_t top = 0;
  /// Shannon entropy of the distribution, in bits.
  double entropy_bits = 0;
  /// exp(entropy): the number of equally likely tokens with the same entropy (perplexity of one step).
  double effective_choices = 1;
};

/// softmax(logit / T), computed with the largest logit subtracted so that no exponential overflows; T = 0
/// is greedy decoding (all the probability on the largest logit, ties shared equally). T must be >= 0.
[[nodiscard]] Sampling sample_distribution(const std::vector<double>& logits, double temperature);

}  // namespace infracalc::decode
