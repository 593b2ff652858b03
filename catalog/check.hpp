// `data check`: lints every data file (required fields, units, dates, sources, ranges, unique ids).
#pragma once

#include <functional>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"

namespace infracalc {

/// One problem found in a data file.
struct Finding {
  /// "file:line:col" or "file".
  std::string where;
  /// What is wrong.
  std::string message;
  /// True for errors (exit 2), false for warnings.
  bool error = true;
};

/// True for the one warning the built-in data may carry: a published measurement (data/measured/) on an
/// accelerator the catalog has no file for, which is kept but cannot be predicted.
[[nodiscard]] bool is_unpredictable_measurement(const Finding& f);

/// Calls `fn(path, ref)` for every leaf value of an entry (inline-table overrides are leaves; the
/// items of a dated series are visited as "path[i]", rows of other arrays of tables as
/// "path[i].key"), skipping id, name, kind and [meta].
void for_each_field(const Entry& e, const std::function<void(const std::string&, const FieldRef&)>& fn);

/// Relative tolerance between a model's computed and published parameter counts: 1% dense, 2% MoE.
[[nodiscard]] double param_tolerance(bool moe);

/// Checks every file in the catalog (built-in and overlays), the published measurements of data/measured/
/// and of overlay `measured` folders included; `today` bounds as-of and measurement dates. `format_ids` are
/// the storage-format ids a measurement's `weights` and `kv` may name (the formats plugin's table, passed in
/// by the caller because the catalog layer cannot see it); empty skips that check.
[[nodiscard]] std::vector<Finding> check_catalog(Catalog& catalog, const Date& today,
                                                 std::span<const std::string_view> format_ids = {});

}  // namespace infracalc
