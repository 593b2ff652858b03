#include "plugins/formats/storage.hpp"

#include <array>
#include <string>

#include "units/expected.hpp"

namespace infracalc {

namespace {

// Block layouts: OCP Microscaling Formats (MX) v1.0 (2023), section 5: k = 32 elements share one E8M0
// scale. NVFP4: NVIDIA, "Introducing NVFP4 for efficient and accurate low-precision inference" (2025):
// 16 E2M1 elements share one E4M3 scale, and a tensor carries one FP32 scale. Group-scaled integers:
// GPTQ (Frantar et al. 2022) and AWQ (Lin et al. 2023) store one FP16 scale per group of 128 by default
// (AWQ also keeps an integer zero point per group; formats here are symmetric and keep none).
constexpr double mx(double element_bits) { return block_bits_per_value(element_bits, 8, 32); }
constexpr double group16(double element_bits, int g) { return block_bits_per_value(element_bits, 16, g); }

constexpr std::array kFormats = {
    StorageFormat{"fp32", 32, 32, "", "fp32"},
    StorageFormat{"tf32", 32, 32, "TF32 is a Tensor Core input precision; in memory each value is a 32-bit FP32 word", "tf32"},
    StorageFormat{"bf16", 16, 16, "", "bf16"},
    StorageFormat{"fp16", 16, 16, "", "fp16"},
    StorageFormat{"fp8", 8, 8, "FP8 E4M3 with one FP32 scale per tensor, negligible", "fp8-e4m3", 0, "", 0, 32},
    StorageFormat{"fp8-e4m3", 8, 8, "one FP32 scale per tensor, negligible", "fp8-e4m3", 0, "", 0, 32},
    StorageFormat{"fp8-e5m2", 8, 8, "one FP32 scale per tensor, negligible", "fp8-e5m2", 0, "", 0, 32},
    StorageFormat{"fp6-e3m2", 6, 6, "packed four values in three bytes; one FP32 scale per tensor", "fp6-e3m2", 0, "", 0, 32},
    StorageFormat{"fp6-e2m3", 6, 6, "packed four values in three bytes; one FP32 scale per tensor", "fp6-e2m3", 0, "", 0, 32},
    StorageFormat{"fp4-e2m1", 4, 4, "packed two per byte; one FP32 scale per tensor", "fp4-e2m1", 0, "", 0, 32},
    StorageFormat{"int8", 8, 8, "scale per tensor, negligible", "int8", 0, "", 0, 32},
    StorageFormat{"int4", 4, 4, "packed two per byte; scale per tensor, negligible", "int4", 0, "", 0, 32},
    StorageFormat{"int8-g128", 8, group16(8, 128), "one FP16 scale per group of 128 values", "int8", 128, "fp16", 16},
    StorageFormat{"int4-g128", 4, group16(4, 128), "packed two per byte; one FP16 scale per group of 128 (GPTQ/AWQ default)", "int4", 128, "fp16", 16},
    StorageFormat{"int4-g64", 4, group16(4, 64), "packed two per byte; one FP16 scale per group of 64", "int4", 64, "fp16", 16},
    StorageFormat{"int4-g32", 4, group16(4, 32), "packed two per byte; one FP16 scale per group of 32", "int4", 32, "fp16", 16},
    StorageFormat{"mxfp8", 8, mx(8), "OCP MX: 32 FP8 E4M3 elements share one E8M0 scale", "fp8-e4m3", 32, "e8m0", 8},
    StorageFormat{"mxfp8-e5m2", 8, mx(8), "OCP MX: 32 FP8 E5M2 elements share one E8M0 scale", "fp8-e5m2", 32, "e8m0", 8},
    StorageFormat{"mxfp6", 6, mx(6), "OCP MX: 32 FP6 E2M3 elements share one E8M0 scale", "fp6-e2m3", 32, "e8m0", 8},
    StorageFormat{"mxfp6-e3m2", 6, mx(6), "OCP MX: 32 FP6 E3M2 elements share one E8M0 scale", "fp6-e3m2", 32, "e8m0", 8},
    StorageFormat{"mxfp4", 4, mx(4), "OCP MX: 32 FP4 E2M1 elements share one E8M0 scale (a 136-bit block)", "fp4-e2m1", 32, "e8m0", 8},
    StorageFormat{"mxint8", 8, mx(8), "OCP MX: 32 INT8 elements (implicit 2^-6) share one E8M0 scale", "int8", 32, "e8m0", 8},
    StorageFormat{"nvfp4", 4, block_bits_per_value(4, 8, 16),
                  "NVFP4: 16 FP4 E2M1 elements share one FP8 E4M3 scale, plus one FP32 scale per tensor (negligible)",
                  "fp4-e2m1", 16, "fp8-e4m3", 8, 32},
};
}  // namespace

std::span<const StorageFormat> storage_formats() { return kFormats; }

const StorageFormat* find_storage_format(std::string_view name) {
  for (const auto& f : kFormats)
    if (f.name == name) return &f;
  return nullptr;
}

const StorageFormat& storage_format_of(std::string_view name, std::string_view key) {
  if (const StorageFormat* f = find_storage_format(name)) return *f;
  throw UserError{{std::string(key) + ": unknown storage format '" + std::string(name) + "'",
                   "use a format of the storage-format table (docs/formats.md), e.g. bf16, fp8, mxfp4"}};
}

std::vector<std::string_view> storage_format_names() {
  std::vector<std::string_view> v;
  for (const auto& f : kFormats) v.push_back(f.name);
  return v;
}

Bytes bytes_per_value(const StorageFormat& f) { return from_base<Bytes>(f.bits_per_value / 8.0); }

Bytes storage_bytes(double count, const StorageFormat& f) { return count * bytes_per_value(f); }

Bytes element_bytes(double count, const StorageFormat& f) { return from_base<Bytes>(count * f.element_bits / 8.0); }

}  // namespace infracalc
