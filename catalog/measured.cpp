#include "catalog/measured.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "catalog/embedded.hpp"
#include "documents/input_file.hpp"
#include "documents/toml_reader.hpp"
#include "units/suggest.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kMeasurementKinds[] = {"inference-throughput", "inference-latency", "training-step",
                                                  "training-mfu",         "training-duration", "power"};

constexpr std::string_view kEngines[] = {"trtllm", "vllm", "sglang", "llamacpp", "megatron", "other"};

// Every key a [[measurement]] table may hold.
constexpr std::string_view kEntryKeys[] = {"id",      "kind",     "source",   "locator",   "date",    "hardware",
                                           "accelerator", "count", "model",   "model_id",  "precision", "weights",
                                           "kv",      "engine",   "software", "quote",     "notes",   "config",
                                           "result"};

template <std::size_t N>
bool one_of(std::string_view v, const std::string_view (&list)[N]) {
  return std::find(std::begin(list), std::end(list), v) != std::end(list);
}

template <std::size_t N>
std::string listed(const std::string_view (&list)[N]) {
  std::string out;
  for (auto s : list) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

Error located(const std::string& file, const Node& n, const std::string& what, std::string hint = {}) {
  return Error{position(file, n) + ": " + what, std::move(hint)};
}

// Reads one [[measurement]] table into `m`, appending every problem to `errors`.
void read_entry(const Node& t, const std::string& file, Measurement& m, std::vector<Error>& errors) {
  m.file = file;
  m.location = position(file, t);
  for (const auto& [key, value] : t.members) {
    if (one_of(key, kEntryKeys)) continue;
    std::vector<std::string_view> keys(std::begin(kEntryKeys), std::end(kEntryKeys));
    std::string hint = did_you_mean(key, keys);
    if (hint.empty()) hint = "a measurement has the keys " + listed(kEntryKeys);
    errors.push_back(located(file, value, "unknown key '" + key + "' in a measurement", hint));
  }
  const std::string label = m.location;
  auto text = [&](std::string_view key, std::string& out, bool required) {
    const Node* n = t.find(key);
    if (n == nullptr) {
      if (required) errors.push_back({label + ": measurement without '" + std::string(key) + "'", "every measurement needs id, kind, source, locator, date, quote and [measurement.result]"});
      return;
    }
    if (n->kind != Node::Kind::string) {
      errors.push_back(located(file, *n, "'" + std::string(key) + "' must be a string, got " + std::string(n->kind_name())));
      return;
    }
    if (required && n->str.empty()) errors.push_back(located(file, *n, "'" + std::string(key) + "' must not be empty"));
    out = n->str;
  };
  text("id", m.id, true);
  text("kind", m.kind, true);
  text("source", m.source, true);
  text("locator", m.locator, true);
  text("quote", m.quote, true);
  for (auto [key, out] : {std::pair{"hardware", &m.hardware}, std::pair{"accelerator", &m.accelerator}, std::pair{"model", &m.model},
                          std::pair{"model_id", &m.model_id}, std::pair{"precision", &m.precision},
                          std::pair{"weights", &m.weights}, std::pair{"kv", &m.kv}, std::pair{"engine", &m.engine},
                          std::pair{"software", &m.software}, std::pair{"notes", &m.notes}})
    text(key, *out, false);
  if (const Node* k = t.find("kind"); k != nullptr && !m.kind.empty() && !one_of(m.kind, kMeasurementKinds))
    errors.push_back(located(file, *k, "unknown measurement kind \"" + m.kind + "\"", "use one of " + listed(kMeasurementKinds)));
  if (const Node* e = t.find("engine"); e != nullptr && !m.engine.empty() && !one_of(m.engine, kEngines))
    errors.push_back(located(file, *e, "unknown engine \"" + m.engine + "\"", "use one of " + listed(kEngines)));
  if (const Node* d = t.find("date"); d == nullptr)
    errors.push_back({label + ": measurement without 'date'", "write the publication date as a TOML date: date = 2024-08-28"});
  else if (d->kind != Node::Kind::date)
    errors.push_back(located(file, *d, "'date' must be a TOML date, got " + std::string(d->kind_name()), "write date = 2024-08-28, without quotes"));
  else
    m.date = d->date.str();
  if (const Node* c = t.find("count"); c != nullptr) {
    if (c->kind != Node::Kind::integer || c->integer < 0)
      errors.push_back(located(file, *c, "'count' must be a whole number of accelerators, 0 or more", "0 means the source does not say"));
    else
      m.count = c->integer;
  }
  if (const Node* c = t.find("config"); c != nullptr) {
    if (!c->is_table()) errors.push_back(located(file, *c, "'config' must be a table", "write [measurement.config]"));
    else m.config = *c;
  } else {
    m.config.kind = Node::Kind::table;
  }
  const Node* r = t.find("result");
  if (r == nullptr)
    errors.push_back({label + ": measurement without [measurement.result]", "give the measured values, e.g. tokens_per_second = \"762 tok/s\""});
  else if (!r->is_table() || r->members.empty())
    errors.push_back(located(file, *r, "'result' must be a non-empty table", "write [measurement.result] with at least one value"));
  else
    m.result = *r;
}

Expected<std::string> read_measured_text(const std::string& path) { return read_input_file(path, "", input_limits::document); }

}  // namespace

std::span<const std::string_view> measurement_kinds() { return kMeasurementKinds; }

std::span<const std::string_view> measurement_engines() { return kEngines; }

std::optional<std::int64_t> Measurement::config_int(std::string_view key) const {
  const Node* n = config.find(key);
  if (n == nullptr) return std::nullopt;
  if (n->kind == Node::Kind::integer) return n->integer;
  if (n->kind == Node::Kind::floating && std::isfinite(n->number) && n->number == std::floor(n->number) && std::abs(n->number) < 9e15)
    return static_cast<std::int64_t>(n->number);
  return std::nullopt;
}

std::optional<std::string> Measurement::config_string(std::string_view key) const {
  const Node* n = config.find(key);
  if (n == nullptr || n->kind != Node::Kind::string) return std::nullopt;
  return n->str;
}

const Node* Measurement::result_value(std::string_view key) const { return result.find(key); }

std::vector<Error> lint_measurements(const Node& root, const std::string& file, std::vector<Measurement>& out) {
  std::vector<Error> errors;
  const Node* list = root.find("measurement");
  if (list == nullptr) {
    errors.push_back({file + ": no [[measurement]] tables", "each measurement is a [[measurement]] table with id, kind, source, locator, date, quote and [measurement.result]"});
    return errors;
  }
  if (list->kind != Node::Kind::array) {
    errors.push_back(located(file, *list, "'measurement' must be an array of tables", "write each entry as [[measurement]]"));
    return errors;
  }
  std::map<std::string, std::string> seen;
  for (const auto& item : list->items) {
    if (!item.is_table()) {
      errors.push_back(located(file, item, "each measurement must be a table", "write each entry as [[measurement]]"));
      continue;
    }
    Measurement m;
    read_entry(item, file, m, errors);
    if (!m.id.empty()) {
      if (auto [it, fresh] = seen.emplace(m.id, position(file, item)); !fresh)
        errors.push_back(located(file, *item.find("id"), "duplicate measurement id \"" + m.id + "\" (also " + it->second + ")",
                                 "give every measurement its own id"));
    }
    out.push_back(std::move(m));
  }
  return errors;
}

Expected<std::vector<Measurement>> read_measurements(const Node& root, const std::string& file) {
  std::vector<Measurement> out;
  auto errors = lint_measurements(root, file, out);
  if (!errors.empty()) return errors.front();
  return out;
}

Expected<std::vector<Measurement>> read_measurement_file(const std::string& path) {
  auto text = read_measured_text(path);
  if (!text) return text.error();
  auto root = read_toml(text.value(), path);
  if (!root) return root.error();
  return read_measurements(root.value(), path);
}

const std::vector<Measurement>& embedded_measurements() {
  static const std::vector<Measurement> all = [] {
    std::vector<Measurement> out;
    std::map<std::string, std::string> seen;
    for (const auto& f : embedded_files()) {
      if (f.kind != "measured") continue;
      const std::string name = "data/" + std::string(f.path);
      auto root = embedded_tree(f);
      if (!root) throw UserError{root.error()};
      auto entries = read_measurements(root.value(), name);
      if (!entries) throw UserError{entries.error()};
      for (const auto& m : entries.value()) {
        if (auto [it, fresh] = seen.emplace(m.id, m.location); !fresh)
          throw UserError{{m.location + ": duplicate measurement id \"" + m.id + "\" (also " + it->second + ")", "give every measurement its own id"}};
        out.push_back(m);
      }
    }
    return out;
  }();
  return all;
}

}  // namespace infracalc
