// Quantization error on a synthetic tensor: seeded Gaussian values with injected outliers, quantized in
// a format and decoded again, with the error statistics that compare formats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "plugins/formats/block.hpp"

namespace infracalc::formats {

/// A synthetic tensor and which of its values are outliers.
struct SyntheticTensor {
  /// The values.
  std::vector<float> values;
  /// 1 where the value is an injected outlier.
  std::vector<std::uint8_t> outlier;
};

/// What the synthetic tensor looks like.
struct TensorRecipe {
  /// Number of values.
  std::size_t count = 4096;
  /// Standard deviation of the Gaussian bulk.
  double sigma = 1.0;
  /// Number of outliers (placed at distinct random positions, random sign).
  std::size_t outliers = 4;
  /// Outlier magnitude in multiples of sigma.
  double outlier_sigmas = 50.0;
  /// Seed of the generator (splitmix64 and Box–Muller, so the tensor is the same on every platform).
  std::uint64_t seed = 1;
};

/// Builds the tensor a recipe describes.
[[nodiscard]] SyntheticTensor make_tensor(const TensorRecipe& r);

/// Error statistics of one quantization.
struct ErrorStats {
  /// Root-mean-square error over every value.
  double rms = 0;
  /// Largest absolute error.
  double max_abs = 0;
  /// Signal-to-quantization-noise ratio in dB: 10 log10(sum x² / sum (x − q)²); +inf for an exact copy.
  double snr_db = 0;
  /// RMS error over the Gaussian bulk only (outliers excluded).
  double rms_bulk = 0;
  /// RMS error over the outliers only (0 when there are none).
  double rms_outliers = 0;
  /// Share of non-zero bulk values that decoded to exactly zero.
  double zeroed_share = 0;
  /// Bytes the quantized tensor occupies (payload, block scales, tensor scale).
  std::size_t bytes = 0;
};

/// Quantizes the tensor in `layout`, decodes it and measures the error.
[[nodiscard]] ErrorStats measure_error(const SyntheticTensor& t, const TensorLayout& layout);

}  // namespace infracalc::formats
