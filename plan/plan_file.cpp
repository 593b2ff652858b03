#include "plan/plan_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "catalog/catalog.hpp"
#include "documents/input_file.hpp"
#include "documents/toml_reader.hpp"
#include "units/format.hpp"
#include "units/parse.hpp"
#include "units/suggest.hpp"

namespace infracalc::plan {

namespace {

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

const char* bound_words(Bound b) {
  switch (b) {
    case Bound::any: return "a finite value";
    case Bound::positive: return "a value greater than zero";
    case Bound::non_negative: return "a value of zero or more";
    case Bound::fraction: return "a fraction above 0 and at most 1 (e.g. 0.4 or 40%)";
    case Bound::fraction0: return "a fraction from 0 to 1 (e.g. 0.4 or 40%)";
    case Bound::open_fraction: return "a fraction strictly between 0 and 1";
  }
  return "a valid value";
}

// Request rates read as "50/s", "50 req/s" or "3000/min" as well as "50 Hz" or "50 1/s".
std::string rate_text(const std::string& text) {
  std::string t = text;
  if (const auto pos = t.find("req/"); pos != std::string::npos) t.replace(pos, 3, "");
  std::size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) != 0 || t[i] == '.' || t[i] == '_' || t[i] == 'e' || t[i] == 'E' ||
                          ((t[i] == '-' || t[i] == '+') && i > 0 && (t[i - 1] == 'e' || t[i - 1] == 'E'))))
    ++i;
  while (i < t.size() && t[i] == ' ') ++i;
  if (i > 0 && i < t.size() && t[i] == '/') t = t.substr(0, i) + " 1" + t.substr(i);
  return t;
}

// A scalar TOML value as text; tables and arrays are not plan values.
bool scalar_text(const Node& n, std::string& out) {
  switch (n.kind) {
    case Node::Kind::string: out = n.str; return true;
    case Node::Kind::integer: out = std::to_string(n.integer); return true;
    case Node::Kind::floating: out = format_machine(n.number); return true;
    case Node::Kind::boolean: out = n.boolean ? "true" : "false"; return true;
    case Node::Kind::date: out = n.date.str(); return true;
    default: return false;
  }
}

std::vector<std::string_view> section_keys(std::string_view section) {
  std::vector<std::string_view> out;
  for (const auto& k : plan_keys())
    if (k.section == section) out.push_back(k.name);
  return out;
}

// "did you mean 'x'?", or a key of the same name in another section, or the section's keys.
std::string key_hint(std::string_view section, std::string_view key) {
  for (const auto& k : plan_keys())
    if (k.name == key) return "'" + std::string(key) + "' belongs in [" + std::string(k.section) + "]";
  std::string hint = did_you_mean(key, section_keys(section));
  if (!hint.empty()) return hint;
  std::string list;
  for (auto n : section_keys(section)) list += (list.empty() ? "" : ", ") + std::string(n);
  return "[" + std::string(section) + "] takes " + list;
}

// Dotted paths of every scalar or array under a [sweep] table ("site.grid" = [...] or [sweep.site] grid = [...]).
void flatten(const Node& table, const std::string& prefix, std::vector<std::pair<std::string, const Node*>>& out) {
  for (const auto& [k, v] : table.members) {
    const std::string path = prefix.empty() ? k : prefix + "." + k;
    if (v.is_table()) flatten(v, path, out);
    else out.emplace_back(path, &v);
  }
}

void read_section(const std::string& section, const Node& table, const std::string& source, PlanSpec& spec, Problems& problems) {
  for (const auto& [key, v] : table.members) {
    const std::string where = position(source, v);
    const KeyDef* def = find_key(section + "." + key);
    if (def == nullptr) {
      problems.add(where, "unknown key '" + key + "' in [" + section + "]", key_hint(section, key));
      continue;
    }
    std::string text;
    if (!scalar_text(v, text)) {
      problems.add(where, section + "." + key + ": expected a single value, got " + std::string(v.kind_name()),
                   def->example.empty() ? "" : "e.g. " + std::string(key) + " = \"" + std::string(def->example) + "\"");
      continue;
    }
    spec.set(section + "." + key, {text, where});
  }
}

void read_lines(const Node& arr, const std::string& source, PlanSpec& spec, Problems& problems) {
  if (arr.kind != Node::Kind::array) {
    problems.add(position(source, arr), "'line' must be an array of tables", "write [[line]] name = \"x\" expr = \"@a * 2\"");
    return;
  }
  for (const auto& t : arr.items) {
    const std::string where = position(source, t);
    if (!t.is_table()) {
      problems.add(where, "each [[line]] must be a table", "write [[line]] name = \"x\" expr = \"@a * 2\"");
      continue;
    }
    UserLine line;
    line.where = where;
    for (const auto& [k, v] : t.members) {
      std::string text;
      if (v.kind != Node::Kind::string) {
        problems.add(position(source, v), "line." + k + ": expected a string, got " + std::string(v.kind_name()), "");
        continue;
      }
      text = v.str;
      if (k == "name") line.name = text;
      else if (k == "expr") line.expr = text;
      else if (k == "label") line.label = text;
      else if (k == "unit") line.unit = text;
      else problems.add(position(source, v), "unknown key '" + k + "' in [[line]]", did_you_mean(k, {"name", "expr", "label", "unit"}));
    }
    if (line.name.empty()) problems.add(where, "[[line]] without a name", "give name = \"my_line\"");
    if (line.expr.empty()) problems.add(where, "[[line]] '" + line.name + "' without an expr", "give expr = \"@gpus * $2/h\"");
    spec.lines.push_back(std::move(line));
  }
}

void read_sweep(const Node& table, const std::string& source, PlanSpec& spec, Problems& problems) {
  if (!table.is_table()) {
    problems.add(position(source, table), "[sweep] must be a table", "write [sweep] \"workload.rate\" = [\"10/s\", \"50/s\"]");
    return;
  }
  std::vector<std::pair<std::string, const Node*>> axes;
  flatten(table, "", axes);
  for (const auto& [path, node] : axes) {
    SweepAxis axis;
    axis.key = path;
    axis.where = position(source, *node);
    if (node->kind != Node::Kind::array || node->items.empty()) {
      problems.add(axis.where, "sweep." + path + ": expected a non-empty array of values", "e.g. \"" + path + "\" = [\"a\", \"b\"]");
      continue;
    }
    for (const auto& item : node->items) {
      std::string text;
      if (!scalar_text(item, text)) {
        problems.add(position(source, item), "sweep." + path + ": values must be single values, got " + std::string(item.kind_name()), "");
        continue;
      }
      axis.values.push_back({text, position(source, item)});
    }
    spec.sweeps.push_back(std::move(axis));
  }
}

void read_variants(const Node& arr, const std::string& source, PlanSpec& spec, Problems& problems) {
  if (arr.kind != Node::Kind::array) {
    problems.add(position(source, arr), "'variant' must be an array of tables", "write [[variant]] name = \"liquid\" \"site.pue\" = 1.15");
    return;
  }
  for (const auto& t : arr.items) {
    Variant var;
    var.where = position(source, t);
    if (!t.is_table()) {
      problems.add(var.where, "each [[variant]] must be a table", "");
      continue;
    }
    std::vector<std::pair<std::string, const Node*>> sets;
    flatten(t, "", sets);
    for (const auto& [path, node] : sets) {
      std::string text;
      if (!scalar_text(*node, text)) {
        problems.add(position(source, *node), "variant." + path + ": expected a single value, got " + std::string(node->kind_name()), "");
        continue;
      }
      if (path == "name") var.name = text;
      else var.sets.emplace_back(path, SpecValue{text, position(source, *node)});
    }
    if (var.name.empty()) problems.add(var.where, "[[variant]] without a name", "give name = \"liquid-cooled\"");
    spec.variants.push_back(std::move(var));
  }
}

void read_report(const Node& table, const std::string& source, PlanSpec& spec, Problems& problems) {
  if (!table.is_table()) {
    problems.add(position(source, table), "[report] must be a table", "");
    return;
  }
  for (const auto& [k, v] : table.members) {
    std::vector<std::string>* target = k == "columns" ? &spec.columns : k == "pareto" ? &spec.pareto : nullptr;
    if (target == nullptr) {
      problems.add(position(source, v), "unknown key '" + k + "' in [report]", did_you_mean(k, {"columns", "pareto"}));
      continue;
    }
    if (v.kind != Node::Kind::array) {
      problems.add(position(source, v), "report." + k + ": expected an array of line keys", "e.g. " + k + " = [\"cost_per_mtok\", \"ttft\"]");
      continue;
    }
    for (const auto& item : v.items) {
      if (item.kind != Node::Kind::string) problems.add(position(source, item), "report." + k + ": expected strings", "");
      else target->push_back(item.str);
    }
  }
}

}  // namespace

std::vector<std::string> catalog_ids(const KeyDef& key) {
  std::vector<std::string> out;
  if (key.auto_ok) out.emplace_back("auto");
  for (const auto kind : key.kinds)
    for (const Entry* e : Catalog::instance().all(kind))
      if ((key.facility_type.empty() || e->text("type").value_or("") == key.facility_type) &&
          std::find(out.begin(), out.end(), e->id()) == out.end())
        out.push_back(e->id());
  return out;
}

void check_catalog_id(const KeyDef& key, const std::string& id, const std::string& where, Problems& problems) {
  if (key.auto_ok && id == "auto") return;
  try {
    const Entry& e = Catalog::instance().get(id, key.kinds, key.path());
    if (!key.facility_type.empty() && e.text("type").value_or("") != key.facility_type) {
      std::string list;
      for (const auto& x : catalog_ids(key))
        if (x != "auto") list += (list.empty() ? "" : ", ") + x;
      problems.add(where, key.path() + ": '" + id + "' is not a " + std::string(key.facility_type) + " entry",
                   list.empty() ? "" : "choose one of " + list);
    }
  } catch (const UserError& err) {
    problems.add(where, err.error.message, err.error.hint);
  }
}

const SpecValue* PlanSpec::get(std::string_view path) const {
  for (const auto& [k, v] : values)
    if (k == path) return &v;
  return nullptr;
}

void PlanSpec::set(const std::string& path, SpecValue v) {
  for (auto& [k, old] : values)
    if (k == path) {
      old = std::move(v);
      return;
    }
  values.emplace_back(path, std::move(v));
}

void PlanSpec::erase(std::string_view path) {
  values.erase(std::remove_if(values.begin(), values.end(), [&](const auto& kv) { return kv.first == path; }), values.end());
}

std::string PlanSpec::mode() const {
  const SpecValue* t = get("workload.type");
  if (t == nullptr || (t->text != "serve" && t->text != "train" && t->text != "finetune")) return {};
  return t->text;
}

void Problems::add(std::string where, std::string message, std::string hint) {
  for (const auto& p : list_)
    if (p.where == where && p.error.message == message) return;  // the same problem found twice
  list_.push_back({std::move(where), Error{std::move(message), std::move(hint)}});
}

std::string Problems::text() const {
  std::string out;
  for (const auto& p : list_) out += (out.empty() ? "" : "\n") + (p.where.empty() ? "" : p.where + ": ") + p.error.text();
  return out;
}

void Problems::throw_if_any() const {
  if (list_.empty()) return;
  // One problem is a plain UserError; several go out one per "error: " line (main), each escaped on its own.
  std::vector<std::string> lines;
  for (const auto& p : list_) lines.push_back((p.where.empty() ? "" : p.where + ": ") + p.error.text());
  if (lines.size() == 1) throw UserError{{lines.front(), ""}};
  lines.push_back(std::to_string(list_.size()) + " problems in the plan");
  std::string msg;
  for (const auto& l : lines) msg += (msg.empty() ? "" : "\nerror: ") + l;
  throw PlanProblems{{{msg, ""}}, std::move(lines)};
}

PlanSpec parse_plan_text(std::string_view text, const std::string& source, Problems& problems) {
  PlanSpec spec;
  spec.file = source;
  auto doc = read_toml(text, source);
  if (!doc) {
    problems.add("", doc.error().message, doc.error().hint);
    spec.syntax_error = true;
    return spec;
  }
  std::vector<std::string_view> sections;
  for (const auto& s : plan_sections()) sections.push_back(s.name);
  for (const auto& [name, node] : doc->members) {
    const std::string where = position(source, node);
    if (name == "line") read_lines(node, source, spec, problems);
    else if (name == "sweep") read_sweep(node, source, spec, problems);
    else if (name == "variant") read_variants(node, source, spec, problems);
    else if (name == "report") read_report(node, source, spec, problems);
    else if (std::find(sections.begin(), sections.end(), name) == sections.end()) {
      std::string hint = did_you_mean(name, sections);
      if (hint.empty()) {
        for (const auto& k : plan_keys())
          if (k.name == name) hint = "'" + name + "' belongs in [" + std::string(k.section) + "]";
      }
      problems.add(where, "unknown section or key '" + name + "'",
                   hint.empty() ? "sections: plan, model, hardware, workload, finetune, site, money, [[line]], [sweep], [[variant]], [report]" : hint);
    } else if (!node.is_table()) {
      problems.add(where, "'" + name + "' must be a table", "write [" + name + "] on its own line and keys below it");
    } else {
      read_section(name, node, source, spec, problems);
    }
  }
  return spec;
}

PlanText read_plan_text(const std::string& path) {
  // "-" is the scenario on standard input (plan init serve | infracalc plan -), read like any pipe.
  if (path == "-") return {read_input_file("/dev/stdin", "plan -", input_limits::document).value_or_throw(), "(stdin)"};
  return {read_input_file(path, "plan", input_limits::document).value_or_throw(), path};
}

PlanSpec load_plan_file(const std::string& path, Problems& problems) {
  const PlanText plan = read_plan_text(path);
  return parse_plan_text(plan.text, plan.source, problems);
}

void apply_sets(PlanSpec& spec, const std::vector<std::string>& sets, Problems& problems) {
  const std::string mode = spec.mode();
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      problems.add("--set " + s, "expected section.key=value", "e.g. --set workload.rate=50/s");
      continue;
    }
    const std::string path = s.substr(0, eq);
    const KeyDef* def = find_key(path, mode);
    if (def == nullptr) {
      const std::string hint = did_you_mean(path, key_paths());
      problems.add("--set " + path, "unknown plan key '" + path + "'", hint.empty() ? "keys are section.key, e.g. workload.rate" : hint);
      continue;
    }
    if (eq + 1 == s.size()) spec.erase(def->path());  // "--set key=" removes the value: the default applies
    else spec.set(def->path(), {s.substr(eq + 1), "--set " + def->path()});
  }
}

Expected<Cell> parse_value(const KeyDef& key, const std::string& text, const std::string& label) {
  if (key.auto_ok && text == "auto") return Cell{std::string("auto")};
  switch (key.kind) {
    case KeyKind::text:
    case KeyKind::id:
      if (text.empty()) return Error{label + ": expected a value, got an empty string", "e.g. " + std::string(key.example)};
      return Cell{text};
    case KeyKind::choice: {
      for (auto c : key.choices)
        if (c == text) return Cell{text};
      std::string list;
      for (auto c : key.choices) list += (list.empty() ? "" : ", ") + std::string(c);
      const std::string hint = did_you_mean(text, key.choices);
      return Error{label + ": expected one of " + list + ", got \"" + text + "\"", hint.empty() ? "choose one of the listed values" : hint};
    }
    case KeyKind::quantity:
    case KeyKind::integer: {
      auto q = parse_input(key.dim == dims::frequency ? rate_text(text) : text, Expectation{key.dim, key.point}, label);
      if (!q) {
        Error e = q.error();
        if (key.dim == dims::frequency) e.hint = "write requests per second, e.g. 50/s or \"3000/min\"";
        if (key.auto_ok) e.hint += std::string(e.hint.empty() ? "" : "; ") + "or write \"auto\"";
        return e;
      }
      if (key.kind == KeyKind::integer && q->value != std::floor(q->value))
        return Error{label + ": expected a whole number, got \"" + text + "\"", "counts are whole numbers"};
      if (key.kind == KeyKind::integer && std::fabs(q->value) > 9.0e15)
        return Error{label + ": \"" + text + "\" is too large for a count", ""};
      if (!key.point && !within(key.bound, q->value))
        return Error{label + ": expected " + std::string(bound_words(key.bound)) + ", got \"" + text + "\"",
                     key.example.empty() ? std::string() : "e.g. " + std::string(key.example)};
      if (key.section == "site" && key.name == "pue" && q->value < 1.0)
        return Error{label + ": a PUE is at least 1 (facility energy includes the IT energy), got \"" + text + "\"", "e.g. 1.2"};
      if (key.section == "workload" && key.name == "zero" && q->value > 3)
        return Error{label + ": ZeRO stages are 0 to 3, got \"" + text + "\"", ""};
      return Cell{q.value()};
    }
  }
  return Cell{text};
}

void validate(const PlanSpec& spec, Problems& problems, const std::vector<std::string>& swept) {
  const std::string mode = spec.mode();
  const SpecValue* type = spec.get("workload.type");
  if (type == nullptr) problems.add(spec.file, "missing workload.type", "add [workload] type = \"serve\" (or \"train\", \"finetune\")");
  for (const auto& [path, v] : spec.values) {
    const KeyDef* key = find_key(path);
    if (key == nullptr) continue;  // reported while reading
    auto cell = parse_value(*key, v.text, path);
    if (!cell) {
      problems.add(v.where, cell.error().message, cell.error().hint);
      continue;
    }
    if (!mode.empty() && !key->mode.empty() && key->mode != mode) {
      // workload.seq in a fine-tuning plan: the same name in this mode's section is what was meant.
      const KeyDef* same = find_key(key->name, mode);
      problems.add(v.where, path + " applies to " + std::string(key->mode) + " plans; this plan is workload.type = \"" + mode + "\"",
                   same != nullptr && same != key && same->mode == mode ? "use " + same->path()
                                                                         : std::string("remove it, or change workload.type"));
    }
    if (key->kind == KeyKind::id) check_catalog_id(*key, v.text, v.where, problems);
  }
  // Given in the file or on the command line, or swept; `all_variants` also accepts a key every [[variant]] sets.
  auto given = [&](std::string_view p) {
    if (spec.get(p) != nullptr) return true;
    if (std::find(swept.begin(), swept.end(), p) != swept.end()) return true;
    for (const auto& ax : spec.sweeps) {
      const KeyDef* k = find_key(ax.key, mode);
      if (k != nullptr && k->path() == p) return true;
    }
    return false;
  };
  auto variant_sets = [&](const Variant& v, std::string_view p) {
    return std::any_of(v.sets.begin(), v.sets.end(), [&](const auto& kv) {
      const KeyDef* k = find_key(kv.first, mode);
      return k != nullptr && k->path() == p;
    });
  };
  auto has = [&](std::string_view p) {
    if (given(p)) return true;
    return !spec.variants.empty() &&
           std::all_of(spec.variants.begin(), spec.variants.end(), [&](const Variant& v) { return variant_sets(v, p); });
  };
  auto need = [&](std::string_view what, std::string hint, std::initializer_list<std::string_view> any) {
    for (auto p : any)
      if (given(p)) return;
    if (!spec.variants.empty() && std::all_of(spec.variants.begin(), spec.variants.end(), [&](const Variant& v) {
          return std::any_of(any.begin(), any.end(), [&](std::string_view p) { return variant_sets(v, p); });
        }))
      return;
    problems.add(spec.file, "missing " + std::string(what), std::move(hint));
  };
  need("model.id", "add [model] id = \"llama-3-70b\" (see `infracalc model list`)", {"model.id"});
  need("the hardware", "add [hardware] gpu = \"h100-sxm\" or system = \"dgx-h100\" (see `infracalc hw list`)", {"hardware.gpu", "hardware.system"});
  if (spec.get("hardware.gpu") != nullptr && !has("hardware.system"))
    need("hardware.host_power (a bare GPU is named, so the node around it is not known)",
         "add host_power = \"2.5 kW\" (CPUs, memory, NICs and fans of one node), or name a system instead", {"hardware.host_power"});
  need("the electricity price", "add [site] grid = \"us-virginia\" (its dated tariff) or tariff = \"$0.08/kWh\"",
       {"site.tariff", "site.grid"});
  need("the PUE", "add [site] pue = 1.2, climate = \"ashburn-va\" (see `infracalc data list --kind climate`), or efficiency = "
       "\"efficiency-google-fleet\"",
       {"site.pue", "site.climate", "site.efficiency"});
  need("the equipment price", "add [money] capex_per_gpu = \"$40000\" or purchase = \"h100-sxm-purchase\"", {"money.capex_per_gpu", "money.purchase"});
  need("money.life", "add [money] life = \"4 yr\"", {"money.life"});
  if (mode == "serve") {
    need("workload.prompt", "add prompt = 2000 (tokens per request)", {"workload.prompt"});
    need("workload.output", "add output = 500 (tokens per request)", {"workload.output"});
    need("what to size for", "add workload.rate = \"50/s\", hardware.gpus = 64 or site.it_power = \"10 MW\"",
         {"workload.rate", "hardware.gpus", "site.it_power"});
    if (spec.get("hardware.gpus") != nullptr && spec.get("site.it_power") != nullptr)
      problems.add(spec.get("site.it_power")->where, "hardware.gpus and site.it_power both fix the fleet size", "give one of them");
  } else if (mode == "train") {
    need("workload.tokens", "add tokens = \"15e12\" (training tokens)", {"workload.tokens"});
    need("the fleet size or the deadline", "add hardware.gpus = 16384 or workload.deadline = \"90 d\"", {"hardware.gpus", "workload.deadline"});
    if (spec.get("site.it_power") != nullptr)
      problems.add(spec.get("site.it_power")->where, "site.it_power sizes serving fleets; a training run is sized by gpus or deadline",
                   "remove it, or give hardware.gpus");
  } else if (mode == "finetune") {
    need("finetune.method", "add [finetune] method = \"lora\" (or \"full\", \"qlora\")", {"finetune.method"});
    need("finetune.dataset_tokens", "add [finetune] dataset_tokens = \"100M\" (tokens in the dataset)", {"finetune.dataset_tokens"});
    need("hardware.gpus (the data-parallel devices of the job)", "add [hardware] gpus = 8", {"hardware.gpus"});
    if (spec.get("site.it_power") != nullptr)
      problems.add(spec.get("site.it_power")->where, "site.it_power sizes serving fleets; a fine-tuning job is sized by hardware.gpus",
                   "remove it, or give hardware.gpus");
    if (spec.get("model.dtype") != nullptr)
      problems.add(spec.get("model.dtype")->where, "model.dtype: a fine-tuning job's frozen base format is finetune.dtype",
                   "move it to [finetune] dtype (qlora defaults to NF4, lora to bf16)");
    if (spec.get("hardware.tp") != nullptr)
      problems.add(spec.get("hardware.tp")->where, "fit finetune models data-parallel devices only (ZeRO shards the state over them)",
                   "remove hardware.tp; shard with finetune.zero instead");
  }
  if (spec.get("money.financing") != nullptr && spec.get("money.cost_of_capital") != nullptr)
    problems.add(spec.get("money.financing")->where, "money.financing and money.cost_of_capital both set the financing", "give one of them");
  // Extra lines: names must be new and well formed; their expressions are checked when the worksheet is built.
  for (const auto& line : spec.lines) {
    if (line.name.empty()) continue;
    const bool ok = std::all_of(line.name.begin(), line.name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (!ok || !(line.name[0] >= 'a' && line.name[0] <= 'z'))
      problems.add(line.where, "line name '" + line.name + "': use lower-case letters, digits and _", "e.g. cost_per_rack");
  }
  for (const auto& var : spec.variants) {
    for (const auto& [path, v] : var.sets) {
      const KeyDef* key = find_key(path, mode);
      if (key == nullptr) {
        const std::string hint = did_you_mean(path, key_paths());
        problems.add(v.where, "variant '" + var.name + "': unknown plan key '" + path + "'", hint.empty() ? "keys are section.key" : hint);
        continue;
      }
      auto cell = parse_value(*key, v.text, "variant " + var.name + ": " + key->path());
      if (!cell) problems.add(v.where, cell.error().message, cell.error().hint);
      else if (key->kind == KeyKind::id) check_catalog_id(*key, v.text, v.where, problems);
    }
  }
}

}  // namespace infracalc::plan
