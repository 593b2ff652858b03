#pragma once
// The sources a result cites, shared between results until one of them changes its list.

#include <cstddef>
#include <memory>
#include <vector>

#include "catalog/catalog.hpp"

namespace infracalc {

/// The catalog values a result used, with dates and sources, in the order first cited. Results that resolved the
/// same catalog entries (the records of a batch naming one model) share one list, so a result costs no copy of its
/// citations; citing more copies a shared list first (copy on write), so a list another result or a writer holds
/// never changes.
class Citations {
 public:
  /// Iterates the citations in order.
  using const_iterator = std::vector<Provenance>::const_iterator;

  /// The first citation.
  [[nodiscard]] const_iterator begin() const { return items_ ? items_->cbegin() : const_iterator{}; }
  /// Past the last citation.
  [[nodiscard]] const_iterator end() const { return items_ ? items_->cend() : const_iterator{}; }
  /// How many citations there are.
  [[nodiscard]] std::size_t size() const { return items_ ? items_->size() : 0; }
  /// Whether there are none.
  [[nodiscard]] bool empty() const { return size() == 0; }
  /// The citation at `i` (i < size()).
  [[nodiscard]] const Provenance& operator[](std::size_t i) const { return (*items_)[i]; }

  /// Adds a citation at the end, copying the list first when another holder shares it.
  void push_back(const Provenance& p) {
    if (!items_) {
      items_ = std::make_shared<std::vector<Provenance>>();
      // Most results cite a few catalog fields: room for them in one allocation.
      items_->reserve(8);
    } else if (items_.use_count() > 1) {
      auto copy = std::make_shared<std::vector<Provenance>>();
      copy->reserve(items_->size() + 8);
      copy->assign(items_->begin(), items_->end());
      items_ = std::move(copy);
    }
    items_->push_back(p);
  }

  /// Whether this and `other` hold the very same list (not merely equal ones): a writer that keeps what it wrote
  /// from a list it holds may reuse it, since a held list never changes.
  [[nodiscard]] bool same_list(const Citations& other) const { return items_ == other.items_; }

 private:
  std::shared_ptr<std::vector<Provenance>> items_;
};

}  // namespace infracalc
