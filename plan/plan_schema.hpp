// The plan file's vocabulary: every section and key a scenario may set, with its kind, dimension,
// default and help. The loader validates against it and `infracalc plan --help` prints it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "host/plugin.hpp"
#include "units/dim.hpp"

namespace infracalc::plan {

/// What a plan key holds.
enum class KeyKind : unsigned char {
  quantity,  ///< a number with a unit of the key's dimension
  integer,   ///< a whole count (may also be "auto" where allowed)
  choice,    ///< one of a fixed list
  id,        ///< a catalog id of one of the listed kinds
  text,      ///< free text (names, descriptions)
};

/// One key of a plan section. A key that is a calculator input names it in `input` and takes from that input's
/// descriptor its kind, dimension, choices, bound and example, and its help and default unless it words its own.
struct KeyDef {
  /// Section: plan, model, hardware, workload, finetune, site, money.
  std::string_view section;
  /// Key in snake_case.
  std::string_view name;
  /// Kind of value.
  KeyKind kind = KeyKind::quantity;
  /// Dimension of quantity and integer keys.
  Dim dim{};
  /// What it means.
  std::string_view help{};
  /// Default as text; empty when none.
  std::string_view default_value{};
  /// An example value.
  std::string_view example{};
  /// Catalog kinds an id accepts ("model"; "accelerator"), and for facility ids the `type` wanted.
  std::vector<std::string_view> kinds{};
  /// Allowed values of a choice.
  std::vector<std::string_view> choices{};
  /// Accepted range of quantities and integers.
  Bound bound = Bound::positive;
  /// True when a temperature point (degC) is expected.
  bool point = false;
  /// True when "auto" is accepted (the planner chooses).
  bool auto_ok = false;
  /// Display unit for worksheet lines ("kW", "L/min"); empty for the dimension's default.
  std::string_view unit{};
  /// Which workloads use it: "" any, "serve", "train" or "finetune".
  std::string_view mode{};
  /// For id keys of kind facility: the `type` the entry must have ("cooling", "efficiency", "cdu").
  std::string_view facility_type{};
  /// The calculator input this key is, "plugin calculator input" ("fit finetune rank"); empty for the planner's own keys.
  std::string_view input{};
  /// Values the planner accepts beyond the input's choices, with a meaning of its own ("none": no fabric).
  std::vector<std::string_view> more_choices{};
  /// Why the key's default is not its input's, or, with no default, why the plan has none (it must be given).
  std::string_view default_why{};

  /// "section.name".
  [[nodiscard]] std::string path() const { return std::string(section) + "." + std::string(name); }
};

/// The sections in file order, each with a one-line description.
struct SectionDef {
  /// Section name.
  std::string_view name;
  /// What it holds.
  std::string_view help{};
};

/// Every section of a plan file.
[[nodiscard]] const std::vector<SectionDef>& plan_sections();
/// Every key of every section.
[[nodiscard]] const std::vector<KeyDef>& plan_keys();
/// The key at "section.name", or the key whose name alone is `path` when that name is unique among the keys
/// of `mode` ("serve", "train", "finetune" or "" for any); nullptr otherwise.
[[nodiscard]] const KeyDef* find_key(std::string_view path, std::string_view mode = {});
/// The calculator input a key names in `input`; nullptr for the planner's own keys.
[[nodiscard]] const Input* key_input(const KeyDef& key);
/// Every "section.name", for did-you-mean.
[[nodiscard]] std::vector<std::string_view> key_paths();

}  // namespace infracalc::plan
