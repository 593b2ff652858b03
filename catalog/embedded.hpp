// The data files compiled into the binary (generated at build time from data/).
#pragma once

#include <span>
#include <string_view>

#include "documents/node.hpp"
#include "units/expected.hpp"

namespace infracalc {

/// One data file embedded at build time.
struct EmbeddedFile {
  /// Path below data/, e.g. "accelerators/h100-sxm.toml".
  std::string_view path;
  /// The id (the file name without .toml).
  std::string_view id;
  /// The kind implied by the folder, e.g. "accelerator".
  std::string_view kind;
  /// The TOML text.
  std::string_view text;
  /// The text parsed at build time (documents/node_bytes); empty when it did not parse.
  std::string_view tree;
};

/// A file's document tree: the one the build parsed, or, when it stored none, the text parsed now (and its error).
[[nodiscard]] Expected<Node> embedded_tree(const EmbeddedFile& file);

/// Every embedded data file, sorted by path.
[[nodiscard]] std::span<const EmbeddedFile> embedded_files();

/// The newest `as_of` date found in the embedded files, "YYYY-MM-DD".
[[nodiscard]] std::string_view embedded_newest_date();

}  // namespace infracalc
