#include "plugins/kv/kv_precision.hpp"

#include <cmath>

namespace infracalc::kv {

KvPrecision plain_precision(const StorageFormat& f) {
  KvPrecision p;
  p.format = &f;
  return p;
}

std::int64_t scale_groups(const KvPrecision& p, std::int64_t elements) {
  switch (p.scales) {
    case ScaleGranularity::tensor: return 0;
    case ScaleGranularity::vector: return 1;
    case ScaleGranularity::group: return (elements + p.group_size - 1) / p.group_size;
  }
  return 0;
}

// Element bits use the storage table's bits_per_value (which already averages any scales that format
// itself defines); the KV-specific scales are added per vector. Sub-byte elements are packed, so a
// vector's elements are counted in bits and the total is not rounded per element.
Bytes vectors_bytes(const KvPrecision& p, const VectorRuns& runs) {
  double bytes = 0;
  const double per_scale = p.scale_bytes.value() * (p.zero_point ? 2.0 : 1.0);
  for (const auto& run : runs) {
    if (run.count == 0) continue;
    double one = static_cast<double>(run.length) * p.format->bits_per_value / 8.0;
    // Per-tensor scales add nothing per vector (scale_groups is 0): skipped, as this runs for every batch record.
    if (p.scales != ScaleGranularity::tensor || !std::isfinite(per_scale)) one += static_cast<double>(scale_groups(p, run.length)) * per_scale;
    bytes += static_cast<double>(run.count) * one;
  }
  return from_base<Bytes>(bytes);
}

Bytes bytes_per_element(const KvPrecision& p, std::int64_t elements) {
  return vectors_bytes(p, {VectorRun{1, elements}}) / static_cast<double>(elements);
}

std::string_view granularity_name(ScaleGranularity g) {
  switch (g) {
    case ScaleGranularity::tensor: return "tensor";
    case ScaleGranularity::vector: return "head";
    case ScaleGranularity::group: return "group";
  }
  return "tensor";
}

}  // namespace infracalc::kv
