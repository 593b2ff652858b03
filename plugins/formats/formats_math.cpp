#include "plugins/formats/formats_math.hpp"

namespace infracalc::formats {

BitsCost bits_cost(const BitsLayout& l) {
  BitsCost c;
  Bytes scale_share = from_base<Bytes>(0.0);
  if (l.block > 0) scale_share = l.scale / static_cast<double>(l.block);
  if (l.tensor_values > 0) scale_share += l.tensor_scale / l.tensor_values;
  c.scale_per_value = scale_share;
  // Sparse tensor cores keep the non-zero values and a position index per kept value; scales cover the
  // kept values (Mishra et al. 2021, "Accelerating Sparse Deep Neural Networks", section 3).
  c.per_value = l.kept * (l.element + scale_share + l.metadata);
  c.block = l.block > 0 ? static_cast<double>(l.block) * l.element + l.scale : l.element;
  return c;
}

double sparse_speedup(double kept) { return 1.0 / kept; }

}  // namespace infracalc::formats
