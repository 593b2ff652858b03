// What the fields of each kind of data file mean: their dimension and a plausible range.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "units/dim.hpp"

namespace infracalc {

/// One known field of a kind of data file.
struct FieldSpec {
  /// The kind it belongs to ("accelerator", "model", ...).
  std::string_view kind;
  /// Dotted path; "*" matches one path segment ("peak.*"). Array items are addressed without their
  /// index: the value of `on_demand[3]` is described by "on_demand", `properties[0].density` by
  /// "properties.density".
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
  /// True when a temperature point ("30 degC") is expected rather than a difference.
  bool point = false;
  /// True for booleans (true/false).
  bool boolean = false;
  /// True for arrays of strings.
  bool list = false;
  /// True for arrays of plain numbers (counts such as hours per bin), each within [min, max].
  bool numbers = false;
  /// For text fields naming another catalog entry: the kind that entry must have ("" for none).
  std::string_view ref_kind = {};
  /// What the field means and its unit, for docs and `--help` (one short phrase).
  std::string_view meaning = {};
};

/// Every field spec.
[[nodiscard]] std::span<const FieldSpec> field_specs();
/// The spec for a field of a kind, or nullptr when the field is not described. Array indices in
/// `path` ("on_demand[2]", "properties[0].density") are ignored.
[[nodiscard]] const FieldSpec* find_field_spec(std::string_view kind, std::string_view path);
/// `path` without array indices: "properties[0].density" → "properties.density".
[[nodiscard]] std::string schema_path(std::string_view path);

}  // namespace infracalc
