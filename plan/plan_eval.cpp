#include "plan/plan_eval.hpp"

#include <algorithm>
#include <cmath>

#include "catalog/catalog.hpp"

namespace infracalc::plan {

namespace {

bool is_placeholder(const Cell& c) {
  const auto* s = std::get_if<std::string>(&c);
  return s != nullptr && (*s == "auto" || *s == "none");
}

std::string memo_key(const RawInputs& raw) {
  std::string k;
  std::size_t n = 0;
  for (const auto& [a, b] : raw) n += a.size() + b.size() + 2;
  k.reserve(n);
  for (const auto& [a, b] : raw) {
    k += a;
    k += '\x1f';
    k += b;
    k += '\x1e';
  }
  return k;
}

// A step's run: the calculator's result, or the error that refused it (a plan reports both on its sheet).
std::shared_ptr<StepRun> fresh_run(const Plugin& plugin, const Calculator& calculator, RawInputs raw, const RunOptions& options) {
  auto run = std::make_shared<StepRun>();
  try {
    run->result = run_calculator(plugin, calculator, raw, options);
  } catch (const UserError& e) {
    run->error = e.error;
  }
  run->raw = std::move(raw);
  return run;
}

bool same(const std::optional<Cell>& a, const std::optional<Cell>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  const auto* qa = std::get_if<Quantity>(&*a);
  const auto* qb = std::get_if<Quantity>(&*b);
  if ((qa == nullptr) != (qb == nullptr)) return false;
  if (qa != nullptr) return qa->value == qb->value && qa->dim == qb->dim && qa->point == qb->point;
  return std::get<std::string>(*a) == std::get<std::string>(*b);
}

}  // namespace

Evaluator::Evaluator(const Program& program, RunOptions options)
    : program_(program), options_(options), memo_(program.steps.size()) {
  line_deps_.resize(program.lines.size());
  for (std::size_t i = 0; i < program.lines.size(); ++i) {
    const Line& l = program.lines[i];
    line_deps_[i] = l.deps;
    if (l.kind == LineKind::catalog) line_deps_[i].push_back(l.id_line);
  }
  step_deps_.resize(program.steps.size());
  for (std::size_t s = 0; s < program.steps.size(); ++s) {
    for (const auto& b : program.steps[s].inputs)
      if (b.line >= 0) step_deps_[s].push_back(b.line);
    if (program.steps[s].enable_line >= 0) step_deps_[s].push_back(program.steps[s].enable_line);
    for (const auto& [o, l] : program.steps[s].compare) step_deps_[s].push_back(l);
  }
}

std::optional<Error> Evaluator::set_input(InputSet& in, const KeyDef& key, const std::string& text, const std::string& where) const {
  const int i = program_.find(key.path());
  if (i < 0) return Error{key.path() + " is not used by " + program_.mode + " plans", "remove it, or change workload.type"};
  auto cell = parse_value(key, text, key.path());
  if (!cell) return cell.error();
  in.values[static_cast<std::size_t>(i)] = std::move(cell).value();
  in.where[static_cast<std::size_t>(i)] = where;
  return std::nullopt;
}

InputSet Evaluator::inputs(const PlanSpec& spec, Problems& problems) const {
  InputSet in;
  in.values.resize(program_.lines.size());
  in.where.resize(program_.lines.size());
  for (std::size_t i = 0; i < program_.lines.size(); ++i) {
    const Line& l = program_.lines[i];
    if (l.kind != LineKind::input) continue;
    const std::string path = l.def->path();
    if (const SpecValue* v = spec.get(path)) {
      auto cell = parse_value(*l.def, v->text, path);
      if (!cell) {
        problems.add(v->where, cell.error().message, cell.error().hint);
        continue;
      }
      in.values[i] = std::move(cell).value();
      in.where[i] = v->where;
    } else if (!l.def->default_value.empty()) {
      auto cell = parse_value(*l.def, std::string(l.def->default_value), path + " (default)");
      if (!cell) throw std::logic_error("plan key " + path + ": bad default: " + cell.error().message);
      in.values[i] = std::move(cell).value();
      in.where[i] = "default";
    }
  }
  refuse_choices_a_step_refuses(in, problems);
  return in;
}

// A choice the key accepts may be one a calculator it feeds in this workload does not (model.dtype = "fp8" feeds
// fit train's working format, which is bf16, fp16 or fp32): refused now, naming the key, not later as a step's
// error naming the calculator's flag. The choices come from the descriptor of every input the key feeds.
void Evaluator::refuse_choices_a_step_refuses(const InputSet& in, Problems& problems) const {
  for (const Step& step : program_.steps) {
    if (step.c == nullptr || !step.unavailable.empty()) continue;
    for (const Binding& b : step.inputs) {
      if (b.line < 0) continue;
      const auto ub = static_cast<std::size_t>(b.line);
      const Line& l = program_.lines[ub];
      if (l.kind != LineKind::input || l.def == nullptr || l.def->kind != KeyKind::choice || in.where[ub] == "default") continue;
      const auto* text = in.values[ub] ? std::get_if<std::string>(&*in.values[ub]) : nullptr;
      if (text == nullptr || std::find(l.def->more_choices.begin(), l.def->more_choices.end(), *text) != l.def->more_choices.end()) continue;
      for (const Input& input : step.c->inputs) {
        if (input.name != b.input || input.kind != InputKind::choice) continue;
        if (std::find(input.choices.begin(), input.choices.end(), *text) != input.choices.end()) continue;
        std::string list;
        for (std::size_t k = 0; k < input.choices.size(); ++k)
          list += (k == 0 ? "" : k + 1 == input.choices.size() ? " or " : ", ") + std::string(input.choices[k]);
        problems.add(in.where[ub], l.def->path() + " = \"" + *text + "\": " + step.plugin + " " + step.calculator + " takes " + list,
                     "in a " + program_.mode + " plan this key is " + step.plugin + " " + step.calculator + "'s " + std::string(input.name));
      }
    }
  }
}

std::shared_ptr<const StepRun> Evaluator::run_raw(int s, RawInputs raw) {
  auto& memo = memo_[static_cast<std::size_t>(s)];
  std::string key = memo_key(raw);
  if (auto it = memo.find(key); it != memo.end()) {
    ++hits_;
    return it->second;
  }
  const Step& step = program_.steps[static_cast<std::size_t>(s)];
  std::shared_ptr<const StepRun> run;
  if (shared_) {
    bool ran = false;
    run = shared_->run(*step.p, *step.c, std::move(raw), options_, &ran);
    ++(ran ? runs_ : hits_);
  } else {
    ++runs_;
    run = fresh_run(*step.p, *step.c, std::move(raw), options_);
  }
  // Bounded, so a sweep's memory stays flat in its number of points: a grid repeats a step's inputs at most
  // once per value of the axes it reads, and 20,000 distinct runs of one step cover any grid a person reads.
  if (memo.size() >= 20000) memo.clear();
  memo.emplace(std::move(key), run);
  return run;
}

std::shared_ptr<const StepRun> RunCache::find(const std::string& key) const {
  const auto it = runs_.find(key);
  return it == runs_.end() ? nullptr : it->second;
}

void RunCache::add(std::string key, std::shared_ptr<const StepRun> run) {
  // A plan has a few dozen steps; a few thousand runs are many what-if moves of one page.
  if (runs_.size() >= 4096) runs_.clear();
  runs_.emplace(std::move(key), std::move(run));
}

std::string RunCache::key(std::string_view plugin, std::string_view calculator, const RawInputs& raw, const RunOptions& options) {
  std::string k(plugin);
  k += '\x1d';
  k += calculator;
  k += '\x1d';
  k += memo_key(raw);
  // The options a run depends on (the dated entries it reads, how its notes quote numbers): requests that share a
  // cache with other options never answer from each other's runs.
  k += '\x1d';
  k += options.as_of.valid() ? options.as_of.str() : std::string("newest");
  k += '\x1d';
  k += std::to_string(options.number.digits);
  k += options.number.binary ? "i" : "";
  return k;
}

std::shared_ptr<const StepRun> RunCache::run(const Plugin& plugin, const Calculator& calculator, RawInputs raw, const RunOptions& options,
                                             bool* ran) {
  std::string k = key(plugin.name, calculator.name, raw, options);
  if (ran != nullptr) *ran = false;
  if (auto hit = find(k)) return hit;
  if (ran != nullptr) *ran = true;
  auto fresh = fresh_run(plugin, calculator, std::move(raw), options);
  add(std::move(k), fresh);
  return fresh;
}

std::shared_ptr<const StepRun> Evaluator::run_step(int s, const Sheet& sheet, const std::vector<std::pair<std::string, std::string>>& overrides) {
  const Step& step = program_.steps[static_cast<std::size_t>(s)];
  RawInputs raw;
  raw.reserve(step.inputs.size());
  for (const auto& b : step.inputs) {
    bool replaced = false;
    for (const auto& [name, text] : overrides)
      if (name == b.input) {
        raw.emplace_back(b.input, text);
        replaced = true;
      }
    if (replaced) continue;
    if (b.line < 0) {
      raw.emplace_back(b.input, b.literal);
      continue;
    }
    const auto& v = sheet.values[static_cast<std::size_t>(b.line)];
    if (!v || is_placeholder(*v)) continue;
    if (b.calculator_default && sheet.chosen[static_cast<std::size_t>(b.line)] == 0) continue;
    raw.emplace_back(b.input, cell_text(*v));
  }
  return run_raw(s, std::move(raw));
}

void Evaluator::eval_step(int s, Sheet& sheet) {
  const Step& step = program_.steps[static_cast<std::size_t>(s)];
  const auto us = static_cast<std::size_t>(s);
  auto& skipped = sheet.skipped[us];
  sheet.step_failed[us] = 0;
  if (!step.unavailable.empty()) {
    skipped = step.unavailable;
    sheet.step_failed[us] = 1;
    return;
  }
  if (step.cross_check && !cross_checks_) {
    skipped = "cross-check: not run in sweeps";
    return;
  }
  if (step.enable_line >= 0) {
    const auto& v = sheet.values[static_cast<std::size_t>(step.enable_line)];
    if (!v || is_placeholder(*v)) {
      skipped = "not used: " + program_.lines[static_cast<std::size_t>(step.enable_line)].key + " is not set";
      sheet.step_failed[us] = sheet.failed[static_cast<std::size_t>(step.enable_line)];
      return;
    }
  }
  // A line the step reads failed (or waits for a plugin): the step waits too. A computed line that has no
  // value for another reason also holds it back; optional inputs without a value are simply not passed.
  for (const auto& b : step.inputs) {
    if (b.line < 0) continue;
    const auto ub = static_cast<std::size_t>(b.line);
    if (sheet.values[ub]) continue;
    const Line& l = program_.lines[ub];
    const bool computed = l.kind == LineKind::expression || l.kind == LineKind::step || l.kind == LineKind::rule;
    if (sheet.failed[ub] != 0 || computed) {
      skipped = "needs @" + l.key;
      sheet.step_failed[us] = sheet.failed[ub] != 0 ? 1 : 0;
      return;
    }
  }
  auto run = run_step(s, sheet, {});
  if (run->error && step.cross_check) {
    skipped = "not checked: " + run->error->text();
    return;
  }
  if (run->error) {
    sheet.step_errors[us].push_back("step " + step.key + " (" + step.plugin + " " + step.calculator + "): " + run->error->text());
    sheet.step_failed[us] = 1;
  }
  if (step.cross_check && run->result) {
    for (const auto& [output, l] : step.compare) {
      const Value* v = run->result->find(output);
      const auto& c = sheet.values[static_cast<std::size_t>(l)];
      const auto* q = c ? std::get_if<Quantity>(&*c) : nullptr;
      if (v == nullptr || q == nullptr) continue;
      CrossCheck x{s, output, l, v->q, *q, false};
      x.ok = v->q.dim == q->dim && std::fabs(v->q.value - q->value) <= 1e-9 * std::max(std::fabs(v->q.value), std::fabs(q->value));
      if (!x.ok)
        sheet.step_errors[us].push_back("cross-check " + step.key + ": " + step.plugin + " " + step.calculator + " gives " + output + " = " +
                               machine_text(v->q) + ", the worksheet's " + program_.lines[static_cast<std::size_t>(l)].key + " is " +
                               machine_text(*q));
      sheet.crosses.push_back(std::move(x));
    }
  }
  sheet.runs[us] = std::move(run);
}

// For a formula that failed (a division by zero the user never wrote): the zero it read, followed back through
// the lines that are zero too to where the zero starts, with the values that line read, so the message points
// at what the user set (a 1 W site budget makes floor(@it_power / @rack_power) zero racks).
std::string Evaluator::zero_trace(const Line& l, const Sheet& sheet) const {
  auto is_zero = [&](int k) {
    const auto& c = sheet.values[static_cast<std::size_t>(k)];
    const auto* q = c ? std::get_if<Quantity>(&*c) : nullptr;
    return q != nullptr && q->value == 0.0;
  };
  auto reads = [&](const Line& x) {
    std::vector<int> up = x.deps;
    if (x.kind == LineKind::step && x.step >= 0)
      for (const Binding& b : program_.steps[static_cast<std::size_t>(x.step)].inputs)
        if (b.line >= 0) up.push_back(b.line);
    return up;
  };
  int zero = -1;
  for (int d : l.deps)
    if (is_zero(d)) zero = d;
  if (zero < 0) return {};
  std::string out = "; @" + program_.lines[static_cast<std::size_t>(zero)].key + " is 0";
  // Walk back while a line read is zero too (at most the number of lines: the program is acyclic).
  for (std::size_t hops = 0; hops < program_.lines.size(); ++hops) {
    int next = -1;
    for (int u : reads(program_.lines[static_cast<std::size_t>(zero)]))
      if (u >= 0 && is_zero(u)) next = u;
    if (next < 0) break;
    zero = next;
  }
  const Line& origin = program_.lines[static_cast<std::size_t>(zero)];
  if (origin.kind == LineKind::input && origin.def != nullptr)
    return out + ", because " + std::string(origin.def->section) + "." + std::string(origin.def->name) + " is 0";
  out += ", because @" + origin.key + " (" + origin.label + ") is 0";
  if (!origin.formula.empty()) out += ": " + origin.formula;
  std::string with;
  int shown = 0;
  for (int u : reads(origin)) {
    if (u < 0 || !sheet.values[static_cast<std::size_t>(u)]) continue;
    if (++shown > 4) {
      with += ", ...";
      break;
    }
    const auto& c = sheet.values[static_cast<std::size_t>(u)];
    const Line& x = program_.lines[static_cast<std::size_t>(u)];
    const std::string name = x.kind == LineKind::input && x.def != nullptr ? std::string(x.def->section) + "." + std::string(x.def->name)
                                                                           : "@" + x.key;
    with += (with.empty() ? "" : ", ") + name + " = " + cell_text(*c);
  }
  return with.empty() ? out : out + " with " + with;
}

void Evaluator::eval_line(int i, const InputSet& in, Sheet& sheet) {
  const auto ui = static_cast<std::size_t>(i);
  const Line& l = program_.lines[ui];
  auto& value = sheet.values[ui];
  auto& why = sheet.why[ui];
  auto absent_dep = [&](const std::vector<int>& deps) -> int {
    for (int d : deps)
      if (!sheet.values[static_cast<std::size_t>(d)] || is_placeholder(*sheet.values[static_cast<std::size_t>(d)])) return d;
    return -1;
  };
  switch (l.kind) {
    case LineKind::input:
      value = in.values[ui];
      why = in.where[ui];
      sheet.chosen[ui] = why == "default" ? 0 : 1;
      if (!value) why = "not given";
      return;
    case LineKind::catalog: {
      const auto& id = sheet.values[static_cast<std::size_t>(l.id_line)];
      if (!id || is_placeholder(*id) || !std::holds_alternative<std::string>(*id)) {
        why = "no " + program_.lines[static_cast<std::size_t>(l.id_line)].key;
        return;
      }
      const std::string& entry_id = std::get<std::string>(*id);
      std::string key = entry_id + '\x1f' + l.field + (l.text ? "\x1ft" : "");
      if (auto it = catalog_memo_.find(key); it != catalog_memo_.end()) {
        value = it->second.first;
        sheet.cites[ui] = it->second.second;
        if (!value) why = entry_id + " has no " + l.field;
        return;
      }
      std::optional<Cell> got;
      std::vector<Provenance> cites;
      if (const Entry* e = Catalog::instance().find(entry_id)) {
        std::optional<FieldRef> ref = l.dated ? e->dated(l.field, options_.as_of) : std::nullopt;
        if (!ref) ref = e->field(l.field);
        if (l.dated && ref && ref->value != nullptr && ref->value->kind == Node::Kind::array) {
          // A dated series with no entry on or before --as-of: an error, not a silently missing price.
          sheet.line_errors[ui] = entry_id + "." + l.field + ": no entry on or before --as-of " + options_.as_of.str() +
                                  "; hint: give a later --as-of, or the value itself";
          sheet.failed[ui] = 1;
          why = "no entry on or before --as-of";
          return;
        }
        if (ref && ref->value != nullptr && ref->value->kind != Node::Kind::array && ref->value->kind != Node::Kind::table) {
          if (l.text) {
            if (ref->value->kind == Node::Kind::string) got = Cell{ref->value->str};
          } else {
            auto q = node_quantity(*ref->value, l.want, ref->location + ": " + l.field);
            if (!q) {
              sheet.line_errors[ui] = q.error().text();
              sheet.failed[ui] = 1;
              why = "error";
              return;
            }
            got = Cell{q.value()};
          }
          if (got) cites.push_back(ref->provenance);
        }
      }
      catalog_memo_[key] = {got, cites};
      value = got;
      sheet.cites[ui] = std::move(cites);
      if (!value) why = entry_id + " has no " + l.field;
      return;
    }
    case LineKind::step: {
      const auto& run = sheet.runs[static_cast<std::size_t>(l.step)];
      const Step& step = program_.steps[static_cast<std::size_t>(l.step)];
      if (!run) {
        why = sheet.skipped[static_cast<std::size_t>(l.step)];
        sheet.failed[ui] = sheet.step_failed[static_cast<std::size_t>(l.step)];
        return;
      }
      if (!run->result) {
        why = step.key + " failed";
        sheet.failed[ui] = 1;
        return;
      }
      if (const Value* v = run->result->find(l.output)) value = Cell{v->q};
      else why = step.plugin + " " + step.calculator + " did not report " + l.output;
      return;
    }
    case LineKind::expression: {
      if (const int d = absent_dep(l.deps); d >= 0) {
        why = "needs @" + program_.lines[static_cast<std::size_t>(d)].key;
        for (int x : l.deps)
          if (!sheet.values[static_cast<std::size_t>(x)] && sheet.failed[static_cast<std::size_t>(x)] != 0) sheet.failed[ui] = 1;
        return;
      }
      auto v = infracalc::evaluate(*l.expr, [&](std::string_view name) -> std::optional<Quantity> {
        const int k = program_.find(name);
        if (k < 0) return std::nullopt;
        const auto& c = sheet.values[static_cast<std::size_t>(k)];
        if (!c) return std::nullopt;
        if (const auto* q = std::get_if<Quantity>(&*c)) return *q;
        return std::nullopt;
      });
      if (!v) {
        sheet.line_errors[ui] = "line " + l.key + " = " + l.formula + ": " + v.error().text() + zero_trace(l, sheet);
        why = "error";
        sheet.failed[ui] = 1;
        return;
      }
      value = Cell{v.value()};
      return;
    }
    case LineKind::choice:
      for (int d : l.deps) {
        const auto& c = sheet.values[static_cast<std::size_t>(d)];
        if (c && !(std::holds_alternative<std::string>(*c) && std::get<std::string>(*c) == "auto")) {
          value = c;
          sheet.chosen[ui] = d;
          return;
        }
        // A candidate that failed upstream leaves the choice empty: a default would hide the failure.
        if (sheet.failed[static_cast<std::size_t>(d)] != 0) {
          why = "needs @" + program_.lines[static_cast<std::size_t>(d)].key;
          sheet.failed[ui] = 1;
          return;
        }
      }
      sheet.chosen[ui] = -1;
      if (l.fallback_value) {
        value = l.fallback_value;
        why = "default";
      } else {
        why = "none given";
      }
      return;
    case LineKind::rule: {
      RuleContext ctx(*this, sheet);
      value = l.rule(ctx);
      if (!value) {
        for (int x : l.deps)
          if (!sheet.values[static_cast<std::size_t>(x)] && sheet.failed[static_cast<std::size_t>(x)] != 0) {
            sheet.failed[ui] = 1;
            why = "needs @" + program_.lines[static_cast<std::size_t>(x)].key;
          }
        if (why.empty()) why = "not applicable";
      }
      return;
    }
  }
}

Sheet Evaluator::evaluate(const InputSet& in) {
  Sheet sheet;
  const std::size_t n = program_.lines.size();
  sheet.values.resize(n);
  sheet.why.resize(n);
  sheet.chosen.assign(n, -1);
  sheet.cites.resize(n);
  sheet.failed.assign(n, 0);
  sheet.runs.resize(program_.steps.size());
  sheet.skipped.resize(program_.steps.size());
  sheet.step_failed.assign(program_.steps.size(), 0);
  sheet.step_errors.resize(program_.steps.size());
  sheet.line_errors.resize(n);
  for (const auto& op : program_.order) {
    if (op.is_step) eval_step(op.index, sheet);
    else eval_line(op.index, in, sheet);
  }
  gather_errors(sheet);
  sheet.checks.resize(program_.checks.size());
  for (std::size_t c = 0; c < program_.checks.size(); ++c) eval_check(c, sheet);
  return sheet;
}

void Evaluator::eval_check(std::size_t c, Sheet& sheet) {
  RuleContext ctx(*this, sheet);
  sheet.checks[c] = program_.checks[c].eval(ctx);
}

void Evaluator::update(const InputSet& in, const std::vector<int>& changed, Sheet& sheet) {
  if (sheet.values.size() != program_.lines.size()) {
    sheet = evaluate(in);
    return;
  }
  std::vector<char> dirty(program_.lines.size(), 0);
  for (int i : changed) dirty[static_cast<std::size_t>(i)] = 1;
  std::vector<char> step_dirty(program_.steps.size(), 0);
  sheet.crosses.clear();
  // The errors are gathered again only when a step or line that had one, or has one now, was evaluated again: the
  // walk over the program would otherwise cost every sweep point.
  bool errors_moved = false;
  auto any = [&](const std::vector<int>& deps) {
    for (int d : deps)
      if (dirty[static_cast<std::size_t>(d)] != 0) return true;
    return false;
  };
  for (const auto& op : program_.order) {
    const auto k = static_cast<std::size_t>(op.index);
    if (op.is_step) {
      if (!any(step_deps_[k])) continue;
      auto before = sheet.runs[k];
      const char failed_before = sheet.step_failed[k];
      sheet.runs[k] = nullptr;
      sheet.skipped[k].clear();
      errors_moved = errors_moved || !sheet.step_errors[k].empty();
      sheet.step_errors[k].clear();
      eval_step(op.index, sheet);
      errors_moved = errors_moved || !sheet.step_errors[k].empty();
      step_dirty[k] = before != sheet.runs[k] || failed_before != sheet.step_failed[k] ? 1 : 0;
      continue;
    }
    const Line& l = program_.lines[k];
    bool need = dirty[k] != 0;
    if (!need) need = l.kind == LineKind::step ? step_dirty[static_cast<std::size_t>(l.step)] != 0 : any(line_deps_[k]);
    if (!need) continue;
    std::optional<Cell> before = std::move(sheet.values[k]);
    const char failed_before = sheet.failed[k];
    sheet.values[k].reset();
    sheet.why[k].clear();
    sheet.cites[k].clear();
    sheet.chosen[k] = -1;
    sheet.failed[k] = 0;
    errors_moved = errors_moved || !sheet.line_errors[k].empty();
    sheet.line_errors[k].clear();
    eval_line(op.index, in, sheet);
    errors_moved = errors_moved || !sheet.line_errors[k].empty();
    dirty[k] = (dirty[k] != 0 && l.kind == LineKind::input) || !same(before, sheet.values[k]) || failed_before != sheet.failed[k] ? 1 : 0;
  }
  for (std::size_t c = 0; c < program_.checks.size(); ++c)
    if (any(program_.checks[c].deps)) eval_check(c, sheet);
  if (errors_moved) gather_errors(sheet);
}

void Evaluator::gather_errors(Sheet& sheet) const {
  sheet.errors.clear();
  for (const auto& op : program_.order) {
    const auto k = static_cast<std::size_t>(op.index);
    if (op.is_step) sheet.errors.insert(sheet.errors.end(), sheet.step_errors[k].begin(), sheet.step_errors[k].end());
    else if (!sheet.line_errors[k].empty()) sheet.errors.push_back(sheet.line_errors[k]);
  }
}

std::optional<Quantity> RuleContext::q(std::string_view key) const {
  const int i = ev_.program().find(key);
  if (i < 0) return std::nullopt;
  const auto& c = sheet_.values[static_cast<std::size_t>(i)];
  if (!c) return std::nullopt;
  if (const auto* v = std::get_if<Quantity>(&*c)) return *v;
  return std::nullopt;
}

std::optional<std::string> RuleContext::text(std::string_view key) const {
  const int i = ev_.program().find(key);
  if (i < 0) return std::nullopt;
  const auto& c = sheet_.values[static_cast<std::size_t>(i)];
  if (!c) return std::nullopt;
  if (const auto* v = std::get_if<std::string>(&*c)) return *v;
  return std::nullopt;
}

std::shared_ptr<const StepRun> RuleContext::run(std::string_view step) const {
  const auto& steps = ev_.program().steps;
  for (std::size_t s = 0; s < steps.size(); ++s)
    if (steps[s].key == step) return sheet_.runs[s];
  return nullptr;
}

std::shared_ptr<const StepRun> RuleContext::run_with(std::string_view step, const std::vector<std::pair<std::string, std::string>>& overrides) {
  const auto& steps = ev_.program().steps;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    if (steps[s].key != step) continue;
    if (!steps[s].unavailable.empty()) return nullptr;
    return ev_.run_step(static_cast<int>(s), sheet_, overrides);
  }
  return nullptr;
}

}  // namespace infracalc::plan
