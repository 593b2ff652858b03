#include "host/context.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

#include "host/input_aliases.hpp"
#include "units/format.hpp"
#include "units/suggest.hpp"

namespace infracalc {

namespace {

std::string kebab(std::string_view key) {
  std::string s(key);
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

const char* bound_words(Bound b) {
  switch (b) {
    case Bound::any: return "a finite value";
    case Bound::positive: return "a value greater than zero";
    case Bound::non_negative: return "a value of zero or more";
    case Bound::fraction: return "a fraction above 0 and at most 1 (e.g. 0.4 or 40%)";
    case Bound::fraction0: return "a fraction from 0 to 1 (e.g. 0.4 or 40%)";
    case Bound::open_fraction: return "a fraction strictly between 0 and 1 (e.g. 0.8)";
  }
  return "a valid value";
}

bool within(Bound b, double v) {
  if (!std::isfinite(v)) return false;
  switch (b) {
    case Bound::any: return true;
    case Bound::positive: return v > 0;
    case Bound::non_negative: return v >= 0;
    case Bound::fraction: return v > 0 && v <= 1;
    case Bound::fraction0: return v >= 0 && v <= 1;
    case Bound::open_fraction: return v > 0 && v < 1;
  }
  return false;
}

// The one check of an integer input, wherever its value comes from: a whole number, at most the `most` its
// descriptor declares (the least is its Bound, checked with every other input's). Past these checks
// Context::integer and Context::count are exact.
template <class Label>
void check_integer(const Input& in, double v, const std::string& text, const Label& label) {
  if (!std::isfinite(v) || v != std::floor(v))
    throw UserError{{label() + ": expected a whole number, got \"" + text + "\"", "counts are whole numbers"}};
  const bool signed_ok = in.bound == Bound::any;
  if (v > static_cast<double>(in.most) || (signed_ok && v < -static_cast<double>(in.most))) {
    std::string hint = in.most_why.empty() ? fmt::format("{} takes at most {}", label(), format_count(static_cast<double>(in.most), 15))
                                           : std::string(in.most_why);
    if (!in.example.empty()) hint += ", e.g. " + std::string(in.example);
    const double least = signed_ok ? -static_cast<double>(in.most) : in.bound == Bound::positive ? 1.0 : 0.0;
    throw UserError{{fmt::format("{}: expected a whole number from {} to {}, got \"{}\"", label(), format_count(least, 15),
                                 format_count(static_cast<double>(in.most), 15), text),
                     hint}};
  }
}

// Parses one input's text; `label()` names it in errors ("--layers" or "llama-3-70b.layers"). A callable,
// so the name is only built when there is an error to report (batch mode parses millions of inputs).
template <class Label>
Cell parse_value(const Input& in, const std::string& text, const Label& label) {
  switch (in.kind) {
    case InputKind::choice: {
      for (auto c : in.choices)
        if (c == text || c == choice_alias(text)) return std::string(c);
      std::string list;
      for (auto c : in.choices) list += (list.empty() ? "" : ", ") + std::string(c);
      std::string hint = did_you_mean(text, in.choices);
      throw UserError{{label() + ": expected one of " + list + ", got \"" + text + "\"",
                       hint.empty() ? "choose one of the listed values" : hint}};
    }
    case InputKind::text:
      if (text.empty()) throw UserError{{label() + ": expected a value, got an empty string", "e.g. " + std::string(in.example)}};
      return text;
    case InputKind::flag:
      if (text.empty() || text == "true" || text == "1") return std::string("true");
      if (text == "false" || text == "0") return std::string("false");
      throw UserError{{label() + ": a switch takes no value (or true/false), got \"" + text + "\"", ""}};
    case InputKind::quantity:
    case InputKind::integer: {
      auto q = parse_input(text, Expectation{in.dim, in.point}, "");
      if (!q) {
        Error e = parse_input(text, Expectation{in.dim, in.point}, label()).error();
        // Text with no digit at all ("abc", "") is best answered with this input's own example.
        if (!in.example.empty() && std::none_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
          e.hint = "e.g. " + std::string(in.example);
        throw UserError{std::move(e)};
      }
      const Quantity v = q.value();
      if (in.kind == InputKind::integer) check_integer(in, v.value, text, label);
      if (!in.point && !within(in.bound, v.value)) {
        std::string hint = in.example.empty() ? std::string() : "e.g. " + std::string(in.example);
        if (v.value < 0 && in.dim[Base::currency] > 0 && (in.bound == Bound::positive || in.bound == Bound::non_negative))
          hint = (in.bound == Bound::positive ? "a price must be positive" : "a price cannot be negative") +
                 (hint.empty() ? "" : ", " + hint);
        throw UserError{{label() + ": expected " + std::string(bound_words(in.bound)) + ", got \"" + text + "\"", hint}};
      }
      return v;
    }
  }
  return text;
}

// Catalog fields and defaults repeat in every batch record naming the same model: the parsed value of an
// (input, text) pair is remembered. The key is everything parse_value reads on success, compared by value, so a
// later descriptor at a reused address, or one changed in place, never sees another's value; errors are not kept.
struct ParsedMemo {
  InputKind kind{};
  Dim dim{};
  bool point = false;
  Bound bound{};
  std::int64_t most = 0;
  std::vector<std::string> choices;  // owned: the descriptor's views may not outlive it
  std::string text;
  Cell value;
  bool used = false;
};

template <class Label>
Cell parse_remembered(const Input& in, const std::string& text, const Label& label) {
  thread_local std::array<ParsedMemo, 64> memo;
  const std::size_t h = (std::hash<std::string_view>{}(text) ^ (in.name.size() * 0x9E3779B97F4A7C15ull)) % memo.size();
  ParsedMemo& m = memo[h];
  if (m.used && m.text == text && m.kind == in.kind && m.dim == in.dim && m.point == in.point && m.bound == in.bound &&
      m.most == in.most && std::equal(m.choices.begin(), m.choices.end(), in.choices.begin(), in.choices.end()))
    return m.value;
  Cell v = parse_value(in, text, label);
  m = ParsedMemo{in.kind, in.dim, in.point, in.bound, in.most, {in.choices.begin(), in.choices.end()}, text, v, true};
  return v;
}

}  // namespace

namespace {
std::size_t name_hash(std::string_view name) {
  return name.empty() ? 0 : name.size() * 131 + static_cast<unsigned char>(name.front()) * 31 + static_cast<unsigned char>(name.back());
}
}  // namespace

void NameIndex::reset(std::size_t names, const void* first, std::size_t first_count, const void* second, std::size_t second_count) const {
  std::size_t size = 8;
  while (size < 2 * names) size *= 2;
  table_.assign(size, {std::string_view{}, -1});
  first_ = first;
  first_count_ = first_count;
  second_ = second;
  second_count_ = second_count;
}

bool NameIndex::add(std::string_view name, int position) const {
  const std::size_t mask = table_.size() - 1;
  for (std::size_t h = name_hash(name);; ++h) {
    auto& cell = table_[h & mask];
    if (cell.second < 0) {
      cell = {name, position};
      return true;
    }
    if (cell.first == name) return false;
  }
}

int NameIndex::lookup(std::string_view name) const {
  const std::size_t mask = table_.size() - 1;
  for (std::size_t h = name_hash(name);; ++h) {
    const auto& cell = table_[h & mask];
    if (cell.second < 0) return -1;
    // Calculators name inputs and outputs with the same literals their descriptors declare, which the linker
    // merges: the same address is the same name without comparing the bytes.
    if (cell.first.size() == name.size() && (cell.first.data() == name.data() || cell.first == name)) return cell.second;
  }
}

int NameIndex::find(std::string_view name, const std::vector<Input>& inputs, const std::vector<CatalogRef>& refs) const {
  if (!built_from(inputs.data(), inputs.size(), refs.data(), refs.size())) {
    reset(inputs.size() + refs.size(), inputs.data(), inputs.size(), refs.data(), refs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (!add(inputs[i].name, static_cast<int>(i))) throw std::logic_error("input '" + std::string(inputs[i].name) + "' is declared twice");
    // A reference named like an input shares the input's slot.
    for (std::size_t j = 0; j < refs.size(); ++j) add(refs[j].name, static_cast<int>(inputs.size() + j));
  }
  return lookup(name);
}

int NameIndex::find(std::string_view name, const std::vector<Output>& outputs) const {
  if (!built_from(outputs.data(), outputs.size(), nullptr, 0)) {
    reset(outputs.size(), outputs.data(), outputs.size(), nullptr, 0);
    for (std::size_t i = 0; i < outputs.size(); ++i)
      if (!add(outputs[i].name, static_cast<int>(i))) throw std::logic_error("output '" + std::string(outputs[i].name) + "' is declared twice");
  }
  return lookup(name);
}

bool KernelCheck::pass() const {
  if (formula.dim != kernel.dim || !std::isfinite(formula.value) || !std::isfinite(kernel.value)) return false;
  const double diff = std::fabs(kernel.value - formula.value);
  return diff <= std::max(abs_tol, rel_tol * std::fabs(formula.value));
}

std::string snake_key(std::string_view key) {
  std::string s(key);
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

std::string Context::flag_name(std::string_view key) { return "--" + kebab(key); }

namespace {

// One group of interchangeable input names; `dims` lists the dimensions an input must have for the group to apply
// (empty: any). --rate is a data rate in `network energy`, never an arrival rate; formats' --size counts values.
struct AliasGroup {
  std::vector<std::string_view> names;
  std::vector<Dim> dims;
};

const std::vector<AliasGroup>& alias_groups() {
  static const std::vector<AliasGroup> groups = {
      {{"utilisation", "utilization"}, {}},
      {{"prompt", "prompt_tokens"}, {}},
      {{"rate", "arrival_rate"}, {dims::frequency, dims::none}},
      {{"size", "bytes"}, {dims::information}},
      {{"flow_per_heat", "flow_per_kw"}, {dims::flow_per_power}},
  };
  return groups;
}

constexpr std::pair<std::string_view, std::string_view> kChoiceAliases[] = {
    {"all-reduce", "allreduce"}, {"all-gather", "allgather"}, {"reduce-scatter", "reducescatter"}, {"all-to-all", "alltoall"},
};

}  // namespace

std::vector<std::string_view> input_aliases(const Calculator& calc, const Input& in) {
  std::vector<std::string_view> out;
  if (in.kind != InputKind::quantity && in.kind != InputKind::integer) return out;
  for (const auto& g : alias_groups()) {
    if (std::find(g.names.begin(), g.names.end(), in.name) == g.names.end()) continue;
    if (!g.dims.empty() && (in.kind != InputKind::quantity || std::find(g.dims.begin(), g.dims.end(), in.dim) == g.dims.end())) continue;
    for (auto n : g.names)
      if (n != in.name && calc.slot(n) < 0) out.push_back(n);
  }
  return out;
}

std::string_view choice_alias(std::string_view text) {
  for (const auto& [alias, choice] : kChoiceAliases)
    if (text == alias) return choice;
  return text;
}

Context::Context(const Plugin& plugin, const Calculator& calc, const RawInputs& raw, const RunOptions& options)
    : calc_(calc), options_(options) {
  result_.plugin = std::string(plugin.name);
  result_.calculator = std::string(calc.name);
  // Every raw key must be a declared input or reference. Keys are normalised once (kebab → snake) and
  // resolved to their declared slot; the last value given for a slot wins.
  std::vector<int> given(calc.inputs.size() + calc.refs.size(), -1);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const std::string& given_key = raw[i].first;
    const int slot = given_key.find('-') == std::string::npos ? calc.slot(given_key) : calc.slot(snake_key(given_key));
    if (slot >= 0) {
      given[static_cast<std::size_t>(slot)] = static_cast<int>(i);
      continue;
    }
    const std::string key = snake_key(given_key);
    // A shared alias (--utilization for --utilisation): the input it names.
    int aliased = -1;
    for (std::size_t k = 0; k < calc.inputs.size() && aliased < 0; ++k)
      for (auto a : input_aliases(calc, calc.inputs[k]))
        if (a == key) aliased = static_cast<int>(k);
    if (aliased >= 0) {
      given[static_cast<std::size_t>(aliased)] = static_cast<int>(i);
      continue;
    }
    // Suggestions read as flags, like every other input error: did you mean '--tokens'?
    std::vector<std::string> known;
    for (const auto& in : calc.inputs) {
      known.push_back(kebab(in.name));
      for (auto a : input_aliases(calc, in)) known.push_back(kebab(a));
    }
    for (const auto& r : calc.refs) known.push_back(kebab(r.name));
    std::string hint = did_you_mean(kebab(key), std::vector<std::string_view>(known.begin(), known.end()), "--");
    if (hint.empty()) hint = "see `infracalc " + std::string(plugin.name) + " " + std::string(calc.name) + " --help`";
    throw UserError{{std::string(plugin.name) + " " + std::string(calc.name) + ": unknown input '" + flag_name(key) + "'",
                     hint}};
  }
  auto raw_value = [&](std::size_t slot) -> const std::string* {
    return given[slot] < 0 ? nullptr : &raw[static_cast<std::size_t>(given[slot])].second;
  };
  for (const auto& r : calc.refs) {
    // The reference's own slot, or the input's when an input has the same name (both take the value).
    if (const std::string* id = raw_value(static_cast<std::size_t>(calc.slot(r.name))))
      refs_.emplace_back(std::string(r.name), &Catalog::instance().get(*id, r.kinds, flag_name(r.name)));
  }
  // Values the user typed are checked first, so a bad value is reported before a missing one.
  std::vector<std::optional<Cell>> typed(calc.inputs.size());
  std::vector<bool> typed_mask(calc.inputs.size());
  for (std::size_t i = 0; i < calc.inputs.size(); ++i)
    if (const std::string* text = raw_value(i)) {
      typed[i] = parse_value(calc.inputs[i], *text, [&] { return flag_name(calc.inputs[i].name); });
      typed_mask[i] = true;
    }
  // Result values are set one by one while the calculator runs; growing the vector moved every value there.
  result_.values.reserve(calc.outputs.size());
  resolve_untyped(typed_mask);
  for (std::size_t i = 0; i < calc.inputs.size(); ++i)
    if (typed[i]) {
      ResolvedInput& ri = result_.inputs[static_cast<std::size_t>(at_[i])];
      ri.raw = *raw_value(i);
      ri.value = std::move(*typed[i]);
    }
  inputs_placed_ = result_.inputs.size();
}

namespace {

// What the host fills in beside the typed values (implied references, catalog fields, defaults, their citations and
// notes) depends only on the descriptor, the entries the record named and which inputs it typed: a batch of records
// naming the same model resolves it once. Entries are compared by address within one catalog generation; the
// descriptor by address and by its inputs' storage, as NameIndex does.
struct Resolution {
  const Calculator* calc = nullptr;
  const Input* inputs = nullptr;
  std::size_t input_count = 0;
  std::uint64_t generation = 0;
  std::vector<std::pair<std::string, const Entry*>> given_refs;
  std::vector<bool> typed;
  std::vector<std::pair<std::string, const Entry*>> refs;
  std::vector<std::string> notes;
  Citations provenance;
  std::vector<ResolvedInput> resolved;  // typed inputs hold their key and origin only
  std::vector<int> at;
};

}  // namespace

void Context::resolve_untyped(const std::vector<bool>& typed) {
  const Calculator& calc = calc_;
  const std::uint64_t generation = Catalog::instance().generation();
  thread_local std::array<Resolution, 16> memo;
  std::size_t h = std::hash<const void*>{}(&calc) ^ (std::hash<std::vector<bool>>{}(typed) * 31);
  for (const auto& [n, e] : refs_) h = h * 1099511628211ull ^ std::hash<const void*>{}(e);
  Resolution& m = memo[h % memo.size()];
  if (m.calc == &calc && m.inputs == calc.inputs.data() && m.input_count == calc.inputs.size() && m.generation == generation &&
      m.typed == typed && m.given_refs == refs_) {
    refs_ = m.refs;
    result_.notes = m.notes;
    // Shared: a calculator that cites more as it runs copies the list first.
    result_.provenance = m.provenance;
    result_.inputs = m.resolved;
    at_ = m.at;
    return;
  }
  const std::vector<std::pair<std::string, const Entry*>> given_refs = refs_;
  result_.inputs.reserve(calc.inputs.size());
  for (const auto& [n, e] : refs_)
    if (e->overlay()) result_.notes.push_back("overlay in effect: " + e->id() + " comes from " + e->file() + ", not the built-in data");
  // A reference given stands for the references it implies that were not given (a system for its accelerator).
  for (const auto& r : calc.refs) {
    const Entry* e = ref(r.name);
    if (e == nullptr) continue;
    for (const auto& [target, field] : r.implies) {
      const auto spec = std::find_if(calc.refs.begin(), calc.refs.end(), [&name = target](const CatalogRef& t) { return t.name == name; });
      const FieldRef* id = e->field_ref(field);
      if (spec == calc.refs.end() || ref(target) != nullptr || id == nullptr || id->value->kind != Node::Kind::string) continue;
      const Entry& implied = Catalog::instance().get(id->value->str, spec->kinds, flag_name(r.name) + " " + e->id() + ": " + std::string(field));
      refs_.emplace_back(std::string(target), &implied);
      cite(id->provenance);
      result_.notes.push_back(flag_name(target) + " " + implied.id() + " comes from " + flag_name(r.name) + " " + e->id() + " (its " +
                              std::string(field) + "); give " + flag_name(target) + " to choose another");
    }
  }
  at_.assign(calc.inputs.size(), -1);
  for (std::size_t i = 0; i < calc.inputs.size(); ++i) {
    const Input& in = calc.inputs[i];
    ResolvedInput ri;
    ri.key = std::string(in.name);
    auto label = [&] { return flag_name(in.name); };
    if (typed[i]) {
      ri.origin = Origin::flag;
      at_[i] = static_cast<int>(result_.inputs.size());
      result_.inputs.push_back(std::move(ri));
      continue;
    }
    // `ref.path`, or alternatives `ref.path|ref.path` tried in order (the first the entry has wins).
    bool from_catalog = false;
    for (std::string_view rest = in.catalog; !from_catalog && !rest.empty();) {
      const auto bar = rest.find('|');
      const std::string_view spec = rest.substr(0, bar);
      rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
      const auto dot = spec.find('.');
      const std::string_view ref_name = spec.substr(0, dot);
      const std::string_view path = spec.substr(dot + 1);
      if (const Entry* e = ref(ref_name)) {
        if (const FieldRef* field = e->field_ref(path)) {
          ri.origin = Origin::catalog;
          ri.from = e->id();
          const Node& node = *field->value;
          // Built only for an error: batch mode fills these for every record.
          auto where = [&] { return field->location + ": " + std::string(path); };
          if (in.kind == InputKind::quantity || in.kind == InputKind::integer) {
            if (node.kind != Node::Kind::string && !node.is_number())
              throw UserError{{where() + ": expected a quantity, got " + std::string(node.kind_name()), ""}};
            ri.raw = node.kind == Node::Kind::string    ? node.str
                     : node.kind == Node::Kind::integer ? std::to_string(node.integer)
                                                        : format_machine(node.number);
            ri.value = parse_remembered(in, ri.raw, where);
          } else if (node.kind == Node::Kind::string) {
            ri.raw = node.str;
            ri.value = parse_remembered(in, node.str, where);
          } else if (node.kind == Node::Kind::boolean && in.kind == InputKind::flag) {
            ri.raw = node.boolean ? "true" : "false";
            ri.value = ri.raw;
          } else {
            throw UserError{{where() + ": expected " + std::string(in.kind == InputKind::flag ? "true or false" : "a string") +
                                 ", got " + std::string(node.kind_name()),
                             ""}};
          }
          ri.field = std::string(path);
          cite(field->provenance);
          at_[i] = static_cast<int>(result_.inputs.size());
          result_.inputs.push_back(std::move(ri));
          from_catalog = true;
        }
      }
    }
    if (from_catalog) continue;
    if (!in.default_value.empty()) {
      ri.origin = Origin::default_value;
      ri.raw = std::string(in.default_value);
      ri.value = parse_remembered(in, ri.raw, [&] { return label() + " (default)"; });
      at_[i] = static_cast<int>(result_.inputs.size());
      result_.inputs.push_back(std::move(ri));
      continue;
    }
    if (in.optional || in.kind == InputKind::flag) continue;
    std::string hint = "give " + label() + " " + std::string(in.example.empty() ? "VALUE" : in.example);
    if (!in.catalog.empty()) {
      const std::string_view first = in.catalog.substr(0, in.catalog.find('|'));
      const std::string_view ref_name = first.substr(0, first.find('.'));
      if (const Entry* e = ref(ref_name))
        throw UserError{{"missing " + label() + " (" + std::string(in.help) + "): " + e->id() + " has no '" +
                             std::string(first.substr(first.find('.') + 1)) + "'",
                         hint}};
      hint += " or --" + std::string(ref_name) + " ID";
    }
    throw UserError{{"missing " + label() + " (" + std::string(in.help) + ")", hint}};
  }
  m = Resolution{&calc, calc.inputs.data(), calc.inputs.size(), generation, given_refs, typed, refs_, result_.notes,
                 result_.provenance, result_.inputs, at_};
}

const ResolvedInput* Context::find(std::string_view key) const {
  // Where the host put the input; a calculator may since have moved or added inputs in result().inputs, so
  // the place is checked and the inputs are searched when it is stale or the input was not resolved.
  if (const int slot = calc_.slot(key); slot >= 0 && static_cast<std::size_t>(slot) < at_.size()) {
    const int at = at_[static_cast<std::size_t>(slot)];
    if (at >= 0 && static_cast<std::size_t>(at) < result_.inputs.size() && result_.inputs[static_cast<std::size_t>(at)].key == key)
      return &result_.inputs[static_cast<std::size_t>(at)];
    // Declared, not resolved, and nothing added since: absent, without comparing every key (calculators ask has()
    // of their optional inputs on every run).
    if (at < 0 && result_.inputs.size() == inputs_placed_) return nullptr;
  }
  for (const auto& ri : result_.inputs)
    if (ri.key == key) return &ri;
  return nullptr;
}

const ResolvedInput& Context::need(std::string_view key) const {
  const ResolvedInput* ri = find(key);
  if (ri == nullptr) {
    const bool declared = std::any_of(calc_.inputs.begin(), calc_.inputs.end(), [&](const Input& i) { return i.name == key; });
    if (!declared) throw std::logic_error("calculator read undeclared input '" + std::string(key) + "'");
    throw UserError{{"missing " + flag_name(key), "give " + flag_name(key) + " VALUE"}};
  }
  return *ri;
}

bool Context::has(std::string_view key) const { return find(key) != nullptr; }

Quantity Context::quantity(std::string_view key) const {
  const auto& ri = need(key);
  if (const auto* q = std::get_if<Quantity>(&ri.value)) return *q;
  throw std::logic_error("input '" + std::string(key) + "' is text, not a quantity");
}

double Context::number(std::string_view key) const {
  const Quantity q = quantity(key);
  if (!q.dim.dimensionless()) throw std::logic_error("input '" + std::string(key) + "' has a dimension");
  return q.value;
}

std::int64_t Context::integer(std::string_view key) const {
  // The host checked the value against the input's bound, so the conversion is exact.
  return static_cast<std::int64_t>(std::llround(quantity(key).value));
}

int Context::count(std::string_view key) const {
  const int slot = calc_.slot(key);
  const auto at = static_cast<std::size_t>(slot);
  const Input* decl = slot >= 0 && at < calc_.inputs.size() ? &calc_.inputs[at] : nullptr;
  if (decl == nullptr || decl->kind != InputKind::integer || decl->most > std::numeric_limits<int>::max())
    throw std::logic_error("input '" + std::string(key) + "' is not an integer input whose bound fits an int");
  return static_cast<int>(integer(key));
}

const std::string& Context::text(std::string_view key) const {
  const auto& ri = need(key);
  if (const auto* s = std::get_if<std::string>(&ri.value)) return *s;
  throw std::logic_error("input '" + std::string(key) + "' is a quantity, not text");
}

bool Context::flag(std::string_view key) const {
  const ResolvedInput* ri = find(key);
  if (ri == nullptr) return false;
  const auto* s = std::get_if<std::string>(&ri->value);
  return s != nullptr && *s == "true";
}

Origin Context::origin(std::string_view key) const { return need(key).origin; }

const Entry* Context::ref(std::string_view name) const {
  for (const auto& [n, e] : refs_)
    if (n == name) return e;
  return nullptr;
}

std::optional<Quantity> Context::catalog_quantity(const Entry& e, std::string_view path, const Expectation& want) {
  const FieldRef* field = e.field_ref(path);
  if (field == nullptr) return std::nullopt;
  auto q = e.quantity(path, want);
  if (!q) throw UserError{q.error()};
  cite(field->provenance);
  return q.value();
}

std::optional<std::string> Context::catalog_text(const Entry& e, std::string_view path) {
  const FieldRef* field = e.field_ref(path);
  if (field == nullptr || field->value->kind != Node::Kind::string) return std::nullopt;
  cite(field->provenance);
  return field->value->str;
}

void Context::cite(const Provenance& p) {
  // Fields first: one entry's citations share their id, so comparing ids first compares every byte each time.
  for (const auto& x : result_.provenance)
    if (x.field == p.field && x.id == p.id) return;
  result_.provenance.push_back(p);
}

void Context::set_quantity(std::string_view key, const Quantity& q) {
  const int slot = calc_.output_slot(key);
  if (slot < 0) throw std::logic_error("calculator set undeclared output '" + std::string(key) + "'");
  const Output& decl = calc_.outputs[static_cast<std::size_t>(slot)];
  if (decl.dim != q.dim || decl.point != q.point)
    throw std::logic_error("output '" + std::string(key) + "' declared as " + dim_formula(decl.dim) + ", set as " + dim_formula(q.dim));
  if (!std::isfinite(q.value))
    throw UserError{{std::string(key) + ": the result is not a finite number (overflow or division by zero)",
                     "check the inputs for zeros and extreme magnitudes"}};
  // Where this output was stored when first set; checked, since a calculator may have rearranged result().values.
  if (out_at_.empty()) out_at_.assign(calc_.outputs.size(), -1);
  int& at = out_at_[static_cast<std::size_t>(slot)];
  if (at >= 0 && static_cast<std::size_t>(at) < result_.values.size() && result_.values[static_cast<std::size_t>(at)].key == key) {
    result_.values[static_cast<std::size_t>(at)].q = q;
    return;
  }
  // Moved since (the calculator rearranged result().values), or not set through this context (it pushed the value
  // itself): found by key and replaced, not repeated.
  if (at >= 0 || result_.values.size() != outputs_set_)
    for (auto& v : result_.values)
      if (v.key == key) {
        v.q = q;
        return;
      }
  at = static_cast<int>(result_.values.size());
  ++outputs_set_;
  result_.values.push_back({std::string(key), q, std::string(decl.unit_hint)});
}

bool key_matches(std::string_view pattern, std::string_view key) {
  const auto star = pattern.find('*');
  if (star == std::string_view::npos) return pattern == key;
  const std::string_view head = pattern.substr(0, star), tail = pattern.substr(star + 1);
  return key.size() > head.size() + tail.size() && key.starts_with(head) && key.ends_with(tail);
}

void Context::verdict(std::string_view key, bool ok, std::string text) {
  if (std::none_of(calc_.verdicts.begin(), calc_.verdicts.end(), [&](const VerdictDecl& d) { return key_matches(d.key, key); }))
    throw std::logic_error("calculator " + result_.plugin + " " + result_.calculator + " gave the undeclared verdict '" + std::string(key) + "'");
  result_.verdicts.push_back({std::string(key), ok, std::move(text)});
}

void Context::note(std::string text) { result_.notes.push_back(std::move(text)); }

std::string Context::quote(const Quantity& q, std::string_view unit_hint) const {
  return format_human(q, options_.number, unit_hint);
}

std::string Context::quote_count(double v) const { return format_count(v, options_.number.digits); }

std::string Context::quote_number(double v) const { return format_number(v, options_.number.digits); }

std::string Context::quote_percent(double share) const { return format_number(100 * share, options_.number.digits) + "%"; }

void Context::add_table(Table table) {
  if (std::none_of(calc_.tables.begin(), calc_.tables.end(), [&](const TableDecl& d) { return d.name == table.name; }))
    throw std::logic_error("calculator " + result_.plugin + " " + result_.calculator + " added the undeclared table '" + table.name + "'");
  for (const auto& row : table.rows) {
    if (row.size() != table.columns.size()) throw std::logic_error("table '" + table.name + "' row width mismatch");
    for (const auto& cell : row)
      if (const auto* q = std::get_if<Quantity>(&cell); q != nullptr && !std::isfinite(q->value))
        throw UserError{{table.name + ": a value is not a finite number", "check the inputs for zeros and extreme magnitudes"}};
  }
  result_.tables.push_back(std::move(table));
}

Result run_calculator(const Plugin& plugin, const Calculator& calc, const RawInputs& raw, const RunOptions& options) {
  Context ctx(plugin, calc, raw, options);
  calc.run(ctx);
  return std::move(ctx.result());
}

}  // namespace infracalc
