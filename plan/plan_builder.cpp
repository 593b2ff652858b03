#include "plan/plan_builder.hpp"

#include <algorithm>
#include <queue>
#include <stdexcept>

#include "plugins/registry.hpp"
#include "units/format.hpp"
#include "units/suggest.hpp"

namespace infracalc::plan {

std::string machine_text(const Quantity& q) {
  if (q.point) return format_machine(q.value - 273.15) + " degC";
  if (q.dim.dimensionless()) return format_machine(q.value);
  return format_machine(q.value) + " " + base_unit_string(q.dim);
}

std::string cell_text(const Cell& c) {
  if (const auto* q = std::get_if<Quantity>(&c)) return machine_text(*q);
  return std::get<std::string>(c);
}

std::vector<std::string_view> Program::keys() const {
  std::vector<std::string_view> out;
  out.reserve(index.size());
  for (const auto& [k, v] : index) out.push_back(k);
  std::sort(out.begin(), out.end());
  return out;
}

bool ChainBuilder::available(std::string_view plugin, std::string_view calculator) {
  const Plugin* p = find_plugin(plugin);
  return p != nullptr && p->find(calculator) != nullptr;
}

void ChainBuilder::sheet(const std::string& name) {
  sheet_ = name;
  if (std::find(p_.sheets.begin(), p_.sheets.end(), name) == p_.sheets.end()) p_.sheets.push_back(name);
}

int ChainBuilder::line(const std::string& key) const {
  const int i = p_.find(key);
  if (i < 0) throw std::logic_error("plan chain: no line '" + key + "'");
  return i;
}

int ChainBuilder::add_node_seq() { return seq_++; }

int ChainBuilder::add_line(Line l) {
  if (p_.index.count(l.key) != 0) throw std::logic_error("plan chain: duplicate line '" + l.key + "'");
  if (l.sheet.empty()) l.sheet = sheet_;
  if (std::find(p_.sheets.begin(), p_.sheets.end(), l.sheet) == p_.sheets.end()) p_.sheets.push_back(l.sheet);
  const int i = static_cast<int>(p_.lines.size());
  p_.index[l.key] = i;
  p_.lines.push_back(std::move(l));
  line_seq_.push_back(add_node_seq());
  return i;
}

int ChainBuilder::input(std::string_view path, std::string key, bool headline) {
  const KeyDef* def = find_key(path);
  if (def == nullptr) throw std::logic_error("plan chain: no plan key '" + std::string(path) + "'");
  Line l;
  l.key = key.empty() ? std::string(def->name) : std::move(key);
  l.sheet = "inputs";
  l.label = std::string(def->help);
  l.kind = LineKind::input;
  l.unit = std::string(def->unit);
  l.def = def;
  l.headline = headline;
  const int i = add_line(std::move(l));
  p_.index.emplace(def->path(), i);
  return i;
}

int ChainBuilder::catalog(std::string key, const std::string& id_key, std::string field, Dim dim, std::string label, std::string unit,
                          bool dated, bool point) {
  Line l;
  l.key = std::move(key);
  l.label = std::move(label);
  l.kind = LineKind::catalog;
  l.unit = std::move(unit);
  l.id_line = line(id_key);
  l.field = std::move(field);
  l.want = Expectation{dim, point};
  l.dated = dated;
  return add_line(std::move(l));
}

int ChainBuilder::catalog_text(std::string key, const std::string& id_key, std::string field, std::string label) {
  Line l;
  l.key = std::move(key);
  l.label = std::move(label);
  l.kind = LineKind::catalog;
  l.id_line = line(id_key);
  l.field = std::move(field);
  l.text = true;
  return add_line(std::move(l));
}

int ChainBuilder::expr(std::string key, std::string formula, std::string label, std::string unit, bool headline) {
  Line l;
  l.key = std::move(key);
  l.label = std::move(label);
  l.kind = LineKind::expression;
  l.unit = std::move(unit);
  l.headline = headline;
  auto e = parse_expression(formula);
  if (!e) throw std::logic_error("plan chain: expression of '" + l.key + "': " + e.error().message);
  l.expr = std::move(e).value();
  l.formula = std::move(formula);
  return add_line(std::move(l));
}

int ChainBuilder::choice(std::string key, const std::vector<std::string>& options, std::string fallback, std::string label,
                         std::string unit, bool headline) {
  Line l;
  l.key = std::move(key);
  l.label = std::move(label);
  l.kind = LineKind::choice;
  l.unit = std::move(unit);
  l.headline = headline;
  for (const auto& o : options) l.deps.push_back(line(o));
  l.fallback = std::move(fallback);
  if (!l.fallback.empty()) {
    // The default reads like the first candidate: a quantity of its dimension, or text.
    const Line& first = p_.lines[static_cast<std::size_t>(l.deps.front())];
    if (first.text || (first.def != nullptr && (first.def->kind == KeyKind::id || first.def->kind == KeyKind::choice ||
                                                first.def->kind == KeyKind::text))) {
      l.fallback_value = Cell{l.fallback};
    } else {
      auto q = parse_quantity(l.fallback);
      if (!q) throw std::logic_error("plan chain: default of '" + l.key + "': " + q.error().message);
      l.fallback_value = Cell{q.value()};
    }
  }
  return add_line(std::move(l));
}

int ChainBuilder::rule(std::string key, std::string description, const std::vector<std::string>& deps,
                       std::function<std::optional<Cell>(RuleContext&)> fn, std::string label, std::string unit, bool headline) {
  Line l;
  l.key = std::move(key);
  l.label = std::move(label);
  l.kind = LineKind::rule;
  l.unit = std::move(unit);
  l.headline = headline;
  l.formula = std::move(description);
  for (const auto& d : deps) l.deps.push_back(line(d));
  l.rule = std::move(fn);
  return add_line(std::move(l));
}

int ChainBuilder::step(std::string key, std::string plugin, std::string calculator, std::string purpose,
                       const std::vector<std::pair<std::string, std::string>>& inputs, const std::vector<OutputSpec>& outputs,
                       const std::string& enable) {
  Step s;
  s.key = std::move(key);
  s.sheet = sheet_;
  s.purpose = std::move(purpose);
  s.plugin = std::move(plugin);
  s.calculator = std::move(calculator);
  s.p = find_plugin(s.plugin);
  s.c = s.p != nullptr ? s.p->find(s.calculator) : nullptr;
  if (s.p == nullptr) s.unavailable = "the " + s.plugin + " plugin is not built into this infracalc yet";
  else if (s.c == nullptr) s.unavailable = "the " + s.plugin + " plugin has no calculator '" + s.calculator + "' yet";
  auto declared_input = [&](std::string_view name) {
    for (const auto& in : s.c->inputs)
      if (in.name == name) return true;
    for (const auto& r : s.c->refs)
      if (r.name == name) return true;
    return false;
  };
  auto declared_output = [&](std::string_view name) -> const Output* {
    for (const auto& o : s.c->outputs)
      if (o.name == name) return &o;
    return nullptr;
  };
  for (const auto& [name, source] : inputs) {
    Binding b;
    b.input = name;
    if (!source.empty() && source[0] == '@') b.line = line(source.substr(1));
    else b.literal = source;
    if (s.c != nullptr && s.unavailable.empty() && !declared_input(name))
      s.unavailable = s.plugin + " " + s.calculator + " has no input '" + name + "': the planner's binding is out of date";
    if (b.line >= 0 && s.unavailable.empty()) {
      const Line& fed = p_.lines[static_cast<std::size_t>(b.line)];
      const Input* own = fed.def != nullptr ? key_input(*fed.def) : nullptr;
      if (own != nullptr && !fed.def->default_value.empty())
        for (const auto& in : s.c->inputs)
          if (in.name == name) b.calculator_default = in.default_value == fed.def->default_value;
    }
    s.inputs.push_back(std::move(b));
  }
  if (!enable.empty()) s.enable_line = line(enable);
  const int index = static_cast<int>(p_.steps.size());
  for (const auto& o : outputs) {
    const Output* decl = s.c != nullptr ? declared_output(o.output) : nullptr;
    if (s.c != nullptr && s.unavailable.empty() && decl == nullptr)
      s.unavailable = s.plugin + " " + s.calculator + " has no output '" + o.output + "': the planner's binding is out of date";
    Line l;
    l.key = o.key.empty() ? o.output : o.key;
    // The output's own help and display unit, unless the plan words it for its worksheet.
    l.label = !o.label.empty() || decl == nullptr ? o.label : std::string(decl->help);
    l.kind = LineKind::step;
    l.unit = !o.unit.empty() || decl == nullptr ? o.unit : std::string(decl->unit_hint);
    l.headline = o.headline;
    l.step = index;
    l.output = o.output;
    l.formula = s.plugin + " " + s.calculator;
    s.outputs.push_back(static_cast<int>(p_.lines.size()));
    // A step runs before its outputs: its sequence number is taken before theirs.
    if (s.outputs.size() == 1) step_seq_.push_back(add_node_seq());
    add_line(std::move(l));
  }
  if (outputs.empty()) step_seq_.push_back(add_node_seq());
  p_.steps.push_back(std::move(s));
  return index;
}

void ChainBuilder::cross_check(std::string key, std::string plugin, std::string calculator, std::string purpose,
                               const std::vector<std::pair<std::string, std::string>>& inputs,
                               const std::vector<std::pair<std::string, std::string>>& compare, const std::string& enable) {
  const int s = step(std::move(key), std::move(plugin), std::move(calculator), std::move(purpose), inputs, {}, enable);
  Step& st = p_.steps[static_cast<std::size_t>(s)];
  st.cross_check = true;
  for (const auto& pair : compare) {
    const std::string& output = pair.first;  // a plain reference: clang 14 cannot capture structured bindings
    const std::string& line_key = pair.second;
    if (st.c != nullptr && st.unavailable.empty() &&
        std::none_of(st.c->outputs.begin(), st.c->outputs.end(), [&](const Output& o) { return o.name == output; }))
      st.unavailable = st.plugin + " " + st.calculator + " has no output '" + output + "': the planner's binding is out of date";
    st.compare.emplace_back(output, line(line_key));
  }
}

void ChainBuilder::quiet(const std::string& step_key) {
  for (auto& s : p_.steps)
    if (s.key == step_key) s.quiet = true;
}

void ChainBuilder::nominal_notes(const std::string& step_key, std::vector<std::string> prefixes) {
  for (auto& s : p_.steps)
    if (s.key == step_key) s.nominal_notes = prefixes;
}

void ChainBuilder::check(std::string key, std::string label, const std::vector<std::string>& deps,
                         std::function<std::optional<std::pair<bool, std::string>>(RuleContext&)> fn) {
  CheckDef c;
  c.key = std::move(key);
  c.label = std::move(label);
  for (const auto& d : deps) c.deps.push_back(line(d));
  c.eval = std::move(fn);
  p_.checks.push_back(std::move(c));
}

void ChainBuilder::uses_step(const std::string& rule_key, const std::string& step_key, const std::string& except) {
  Line& l = p_.lines[static_cast<std::size_t>(line(rule_key))];
  const int skip = except.empty() ? -1 : line(except);
  for (const auto& s : p_.steps) {
    if (s.key != step_key) continue;
    for (const auto& b : s.inputs)
      if (b.line >= 0 && b.line != skip && std::find(l.deps.begin(), l.deps.end(), b.line) == l.deps.end()) l.deps.push_back(b.line);
    return;
  }
  throw std::logic_error("plan chain: no step '" + step_key + "'");
}

void ChainBuilder::finish(const std::vector<UserLine>& user_lines) {
  if (!user_lines.empty()) sheet("lines");
  for (const auto& u : user_lines) {
    if (u.name.empty() || u.expr.empty()) continue;  // reported by validate()
    if (p_.index.count(u.name) != 0) {
      problems_.add(u.where, "line '" + u.name + "' has the name of a worksheet line", "choose another name");
      continue;
    }
    auto e = parse_expression(u.expr);
    if (!e) {
      problems_.add(u.where, "line '" + u.name + "': " + e.error().message, e.error().hint);
      continue;
    }
    if (!u.unit.empty()) {
      auto unit = parse_unit(u.unit);
      if (!unit) problems_.add(u.where, "line '" + u.name + "': unit: " + unit.error().message, unit.error().hint);
    }
    Line l;
    l.key = u.name;
    l.label = u.label.empty() ? u.expr : u.label;
    l.kind = LineKind::expression;
    l.unit = u.unit;
    l.expr = std::move(e).value();
    l.formula = u.expr;
    l.where = u.where;
    add_line(std::move(l));
  }
  // Expression references become line indices.
  const auto names = p_.keys();
  for (auto& l : p_.lines) {
    if (l.kind != LineKind::expression) continue;
    for (const auto& r : l.expr->refs) {
      const int i = p_.find(r);
      if (i < 0) {
        if (l.where.empty()) throw std::logic_error("plan chain: '" + l.key + "' refers to unknown line @" + r);
        const std::string hint = did_you_mean(r, names);
        problems_.add(l.where, "line '" + l.key + "' refers to @" + r + ", which is not a worksheet line",
                      hint.empty() ? "`infracalc plan FILE --format md` lists every line key" : hint);
        continue;
      }
      l.deps.push_back(i);
    }
  }
  // Dependency order: Kahn's algorithm, taking the earliest-declared ready node first so the order reads
  // like the chain.
  const std::size_t nl = p_.lines.size();
  const std::size_t ns = p_.steps.size();
  const std::size_t n = nl + ns;
  std::vector<std::vector<std::size_t>> users(n);
  std::vector<int> pending(n, 0);
  auto edge = [&](std::size_t from, std::size_t to) {
    users[from].push_back(to);
    ++pending[to];
  };
  for (std::size_t i = 0; i < nl; ++i) {
    const Line& l = p_.lines[i];
    if (l.kind == LineKind::catalog) edge(static_cast<std::size_t>(l.id_line), i);
    if (l.kind == LineKind::step) edge(nl + static_cast<std::size_t>(l.step), i);
    for (int d : l.deps) edge(static_cast<std::size_t>(d), i);
  }
  for (std::size_t s = 0; s < ns; ++s) {
    for (const auto& b : p_.steps[s].inputs)
      if (b.line >= 0) edge(static_cast<std::size_t>(b.line), nl + s);
    if (p_.steps[s].enable_line >= 0) edge(static_cast<std::size_t>(p_.steps[s].enable_line), nl + s);
    for (const auto& [output, l] : p_.steps[s].compare) edge(static_cast<std::size_t>(l), nl + s);
  }
  auto seq = [&](std::size_t node) { return node < nl ? line_seq_[node] : step_seq_[node - nl]; };
  auto later = [&](std::size_t a, std::size_t b) { return seq(a) > seq(b); };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> ready(later);
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(i);
  p_.order.clear();
  while (!ready.empty()) {
    const std::size_t node = ready.top();
    ready.pop();
    p_.order.push_back(node < nl ? Op{false, static_cast<int>(node)} : Op{true, static_cast<int>(node - nl)});
    for (std::size_t u : users[node])
      if (--pending[u] == 0) ready.push(u);
  }
  if (p_.order.size() != n) {
    std::string cycle;
    for (std::size_t i = 0; i < nl; ++i)
      if (pending[i] > 0) cycle += (cycle.empty() ? "" : ", ") + p_.lines[i].key;
    std::string where;
    for (std::size_t i = 0; i < nl; ++i)
      if (pending[i] > 0 && !p_.lines[i].where.empty()) where = p_.lines[i].where;
    if (where.empty()) throw std::logic_error("plan chain: cycle among " + cycle);
    problems_.add(where, "lines refer to each other in a cycle: " + cycle, "a line can only use lines that do not use it");
  }
}

}  // namespace infracalc::plan
