// What the fields of each kind of data file mean: their dimension and a plausible range.
#pragma once

#include <span>
#include <string_view>

#include "units/dim.hpp"

namespace infracalc {

/// One known field of a kind of data file.
struct FieldSpec {
  /// The kind it belongs to ("accelerator", "model", ...).
  std::string_view kind;
  /// Dotted path; "*" matches one path segment ("peak.*").
  std::string_view path;
  /// Expected dimension for quantity fields.
  Dim dim;
  /// Smallest plausible value in base units.
  double min;
  /// Largest plausible value in base units.
  double max;
  /// True when every file of the kind must have it.
  bool required = false;
  /// True for text fields (no dimension check).
  bool text = false;
};

/// Every field spec.
[[nodiscard]] std::span<const FieldSpec> field_specs();
/// The spec for a field of a kind, or nullptr when the field is not described.
[[nodiscard]] const FieldSpec* find_field_spec(std::string_view kind, std::string_view path);

}  // namespace infracalc
