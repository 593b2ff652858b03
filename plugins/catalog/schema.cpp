#include "plugins/catalog/schema.hpp"

#include <array>

namespace infracalc {

namespace {


// Plausible ranges are wide on purpose: they catch unit slips (GB typed for TB, W for kW), not outliers.
constexpr std::array kSpecs = {
    // accelerators
    FieldSpec{"accelerator", "vendor", dims::none, 0, 0, true, true},
    FieldSpec{"accelerator", "memory_capacity", dims::information, 1e6, 1e14, true},
    FieldSpec{"accelerator", "memory_type", dims::none, 0, 0, false, true},
    FieldSpec{"accelerator", "memory_bandwidth", dims::data_rate, 1e9, 1e16, true},
    FieldSpec{"accelerator", "peak.*", dims::flop_rate, 1e9, 1e18},
    FieldSpec{"accelerator", "tdp", dims::power, 1, 5e4},
    FieldSpec{"accelerator", "scaleup_bandwidth", dims::data_rate, 1e8, 1e16},
    FieldSpec{"accelerator", "die_area", dims::area, 1e-6, 0.1},
    FieldSpec{"accelerator", "process", dims::none, 0, 0, false, true},
    FieldSpec{"accelerator", "launch", dims::none, 0, 0, false, true},
    // models
    FieldSpec{"model", "family", dims::none, 0, 0, false, true},
    FieldSpec{"model", "layers", dims::none, 1, 1000, true},
    FieldSpec{"model", "hidden_size", dims::none, 16, 1e6, true},
    FieldSpec{"model", "attention_heads", dims::none, 1, 1024, true},
    FieldSpec{"model", "kv_heads", dims::none, 1, 1024, true},
    FieldSpec{"model", "head_dim", dims::none, 1, 4096, true},
    FieldSpec{"model", "ffn_size", dims::none, 1, 1e7},
    FieldSpec{"model", "vocab_size", dims::none, 1, 1e7},
    FieldSpec{"model", "max_context", dims::token, 1, 1e9},
    FieldSpec{"model", "params_total", dims::none, 1e6, 1e14, true},
    FieldSpec{"model", "params_active", dims::none, 1e6, 1e14},
};

bool matches(std::string_view pattern, std::string_view path) {
  while (!pattern.empty()) {
    const auto pd = pattern.find('.');
    const auto qd = path.find('.');
    const std::string_view ps = pattern.substr(0, pd);
    const std::string_view qs = path.substr(0, qd);
    if (ps != "*" && ps != qs) return false;
    if (pd == std::string_view::npos) return qd == std::string_view::npos;
    if (qd == std::string_view::npos) return false;
    pattern.remove_prefix(pd + 1);
    path.remove_prefix(qd + 1);
  }
  return path.empty();
}

}  // namespace

std::span<const FieldSpec> field_specs() { return kSpecs; }

const FieldSpec* find_field_spec(std::string_view kind, std::string_view path) {
  for (const auto& s : kSpecs)
    if (s.kind == kind && matches(s.path, path)) return &s;
  return nullptr;
}

}  // namespace infracalc
