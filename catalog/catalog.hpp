// The data catalog: hardware, models, prices and facility facts, each value dated and sourced.
// Files are parsed lazily, one at a time, the first time an id is needed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "documents/node.hpp"
#include "units/expected.hpp"
#include "units/parse.hpp"

namespace infracalc {

/// The earliest year a source date (`[meta] as_of`, a value's `as_of`) may name: older dates are typos.
inline constexpr int kEarliestSourceYear = 1900;

/// The one grammar of catalog ids (data files, overlays, `model import --id`, ids derived from config names),
/// for hints: an id names a file, so it never holds '/', "..", upper case or a control character.
inline constexpr std::string_view kIdGrammar =
    "an id is 1 to 100 lower-case letters, digits, '-', '_' and '.', starts and ends with a letter or digit, and "
    "has a '.' only between two letters or digits (llama-3.1-8b)";

/// True when `id` follows kIdGrammar.
[[nodiscard]] bool valid_id(std::string_view id);

/// Where one catalog value came from.
struct Provenance {
  /// The entry id, e.g. "h100-sxm".
  std::string id;
  /// The field path, e.g. "memory_bandwidth".
  std::string field;
  /// As-of date of the value, "YYYY-MM-DD".
  std::string as_of;
  /// The source (URL or document title).
  std::string source;
  /// A note on the value (e.g. "dense", "vendor claim").
  std::string note;
  /// How the value is known: datasheet, vendor-claim, estimate, measured, derived, published.
  std::string basis;
  /// True when the entry came from a user overlay directory rather than the built-in data.
  bool overlay = false;
};

/// One value looked up in an entry: the node holding it and where it came from.
struct FieldRef {
  /// The value node (the `value` member when the field is an inline table with overrides).
  const Node* value = nullptr;
  /// Provenance of this value.
  Provenance provenance;
  /// "file:line:col" of the value, for error messages.
  std::string location;
};

struct ModelArchRead;

/// One parsed data file.
class Entry {
 public:
  ~Entry();

  /// Builds an entry from a parsed file; errors name file:line:col.
  static Expected<std::unique_ptr<Entry>> from_node(Node root, std::string file, bool overlay);

  /// The id, e.g. "llama-3-70b".
  [[nodiscard]] const std::string& id() const { return id_; }
  /// Human name, e.g. "Meta Llama 3 70B".
  [[nodiscard]] const std::string& name() const { return name_; }
  /// Kind: accelerator, model, system, interconnect, ...
  [[nodiscard]] const std::string& kind() const { return kind_; }
  /// The file it came from ("data/models/llama-3-70b.toml" or the overlay path).
  [[nodiscard]] const std::string& file() const { return file_; }
  /// The [meta] as_of date.
  [[nodiscard]] const Date& as_of() const { return as_of_; }
  /// The [meta] sources.
  [[nodiscard]] const std::vector<std::string>& sources() const { return sources_; }
  /// True when loaded from an overlay directory.
  [[nodiscard]] bool overlay() const { return overlay_; }
  /// The whole document.
  [[nodiscard]] const Node& root() const { return root_; }

  /// A field by dotted path with its provenance (inline-table overrides resolved), or nullopt.
  [[nodiscard]] std::optional<FieldRef> field(std::string_view path) const;
  /// The same field, or nullptr; resolved on the first call for a path and kept with the entry.
  [[nodiscard]] const FieldRef* field_ref(std::string_view path) const;
  /// The entry read as a model architecture, with the provenance it cites (see read_model_arch in
  /// model_arch.hpp); read on the first call and kept with the entry.
  [[nodiscard]] const ModelArchRead& model_arch() const;
  /// A field read as a quantity of the expected dimension; errors name file:line:col and the field.
  [[nodiscard]] Expected<Quantity> quantity(std::string_view path, const Expectation& want) const;
  /// A field read as text (strings only); nullopt when absent.
  [[nodiscard]] std::optional<std::string> text(std::string_view path) const;
  /// From a dated series (an array of tables with as_of and value), the newest entry not after `as_of`.
  [[nodiscard]] std::optional<FieldRef> dated(std::string_view path, const Date& as_of) const;
  /// "file:line:col" of a node in this entry's file.
  [[nodiscard]] std::string where(const Node& n) const;

 private:
  FieldRef make_ref(const Node& node, std::string_view path) const;

  Node root_;
  std::string id_, name_, kind_, file_;
  Date as_of_;
  std::vector<std::string> sources_;
  std::string default_basis_;
  bool overlay_ = false;
  // Entries are immutable once parsed, so what is derived from them is kept: a batch of records naming one
  // model would otherwise format the same provenance (dates, file positions) for every record. Like the rest
  // of the catalog's lazy loading, this is for one thread.
  struct PathHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  mutable std::unordered_map<std::string, std::optional<FieldRef>, PathHash, std::equal_to<>> fields_;
  mutable std::unique_ptr<const ModelArchRead> model_arch_;
};

/// Reads a value node as a quantity: a string with a unit, or a bare number for count-like dimensions.
[[nodiscard]] Expected<Quantity> node_quantity(const Node& v, const Expectation& want, const std::string& label);

/// A row of the catalog index: known without parsing the file.
struct IndexItem {
  /// Entry id.
  std::string id;
  /// Kind from the folder (empty for overlay files until parsed).
  std::string kind;
  /// Display path of the file.
  std::string path;
  /// True for overlay files.
  bool overlay = false;
};

/// The catalog: the embedded data plus user overlay directories, parsed lazily.
class Catalog {
 public:
  /// The process-wide catalog.
  static Catalog& instance();

  /// Adds an overlay directory (from --data-dir, INFRACALC_DATA or the user data dir); later calls win
  /// over earlier ones. Must be called before the first lookup. A directory that holds no data file is an
  /// error at the first lookup unless `may_be_empty` (the user data directory).
  void add_overlay_dir(const std::string& dir, bool may_be_empty = false);
  /// The data files (`*.toml`) under an overlay directory, sorted. Folders whose name begins with '.' are skipped
  /// (.git); an unreadable folder or file, a directory tree of more than 100,000 entries or 16 levels, and (unless
  /// `may_be_empty`) a directory with no data file throw UserError naming the directory.
  [[nodiscard]] static std::vector<std::string> overlay_files(const std::string& dir, bool may_be_empty = false);
  /// The overlay directories in effect.
  [[nodiscard]] const std::vector<std::string>& overlay_dirs() const { return overlay_dirs_; }
  /// Files of published measurements (a `measured` folder) in the overlay directories, in directory order
  /// and then path order; the index leaves them out (catalog/measured.hpp reads them).
  [[nodiscard]] std::vector<std::string> overlay_measured_files() const;

  /// The entry with this id, or nullptr when there is none; a file that fails to parse throws UserError.
  [[nodiscard]] const Entry* find(std::string_view id);
  /// The entry with this id and one of `kinds`; throws UserError naming `input` with a did-you-mean.
  [[nodiscard]] const Entry& get(std::string_view id, const std::vector<std::string_view>& kinds, std::string_view input);
  /// Every index row (embedded and overlay), overlays replacing embedded rows with the same id.
  [[nodiscard]] std::vector<IndexItem> index();
  /// Every entry of a kind (parses them all); empty kind means every entry.
  [[nodiscard]] std::vector<const Entry*> all(std::string_view kind);
  /// Loads and parses every file without caching failures: the errors, for `data check`.
  [[nodiscard]] std::vector<Error> load_errors();
  /// Drops every cached entry and overlay (tests).
  void reset();
  /// How many files have been parsed so far (lazy loading is observable in tests).
  [[nodiscard]] std::size_t parsed_count() const { return cache_.size(); }
  /// Changes whenever entries may have been dropped or replaced (reset, a new overlay): what is remembered about
  /// an entry by its address is valid only within one generation.
  [[nodiscard]] std::uint64_t generation() const { return generation_; }

 private:
  Catalog() = default;
  const Entry* load(const IndexItem& item);
  std::vector<IndexItem> overlay_index();

  std::vector<std::string> overlay_dirs_;
  std::vector<std::string> may_be_empty_;
  std::vector<std::pair<std::string, std::unique_ptr<Entry>>> cache_;
  std::optional<std::vector<IndexItem>> overlay_index_;
  std::uint64_t generation_ = 0;
};

/// The kind a data folder holds: "accelerators" → "accelerator".
[[nodiscard]] std::string kind_of_folder(std::string_view folder);

}  // namespace infracalc
