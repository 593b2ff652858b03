#include "plugins/formats/storage.hpp"

#include <array>

namespace infracalc {

namespace {
constexpr std::array kFormats = {
    StorageFormat{"fp32", 32, 32, ""},
    StorageFormat{"bf16", 16, 16, ""},
    StorageFormat{"fp16", 16, 16, ""},
    StorageFormat{"fp8", 8, 8, "scale per tensor, negligible"},
    StorageFormat{"int8", 8, 8, "scale per tensor, negligible"},
    StorageFormat{"int4", 4, 4, "packed two per byte; scale per tensor, negligible"},
};
}  // namespace

std::span<const StorageFormat> storage_formats() { return kFormats; }

const StorageFormat* find_storage_format(std::string_view name) {
  for (const auto& f : kFormats)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string_view> storage_format_names() {
  std::vector<std::string_view> v;
  for (const auto& f : kFormats) v.push_back(f.name);
  return v;
}

Bytes bytes_per_value(const StorageFormat& f) { return from_base<Bytes>(f.bits_per_value / 8.0); }

Bytes storage_bytes(double count, const StorageFormat& f) { return count * bytes_per_value(f); }

}  // namespace infracalc
