#include "plan/plan_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <fmt/format.h>

#include "plan/machine_units.hpp"
#include "plan/document.hpp"
#include "plan/plan_output.hpp"
#include "host/words.hpp"
#include "catalog/catalog.hpp"
#include "documents/json.hpp"
#include "units/format.hpp"
#include "units/suggest.hpp"

namespace infracalc::plan {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto at = s.find(sep, start);
    std::string part = s.substr(start, at == std::string::npos ? std::string::npos : at - start);
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    if (!part.empty()) out.push_back(part);
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return out;
}

// Sets (or, with an empty text, removes) the prices that follow a sweep point's hardware.
void set_prices(const Evaluator& ev, InputSet& in, const std::vector<std::pair<std::string, std::string>>& prices, const std::string& where) {
  const Program& program = ev.program();
  for (const auto& [path, text] : prices) {
    const int i = program.find(path);
    const KeyDef* def = find_key(path, program.mode);
    if (i < 0 || def == nullptr) continue;
    if (text.empty()) {
      in.values[static_cast<std::size_t>(i)].reset();
      in.where[static_cast<std::size_t>(i)] = where;
    } else if (auto err = ev.set_input(in, *def, text, where)) {
      throw UserError{{where + ": " + err->message, err->hint}};
    }
  }
}

std::string range_label(const KeyDef& def, const Quantity& q) {
  if (def.dim == dims::frequency) return format_machine(q.value) + "/s";
  return machine_text(q);
}

}  // namespace

std::size_t Axis::size() const { return range ? range->points : labels.size(); }

namespace {

// Point i of n from lo to hi. Linear points are lo + (hi - lo) * i / (n - 1), multiplied before dividing: a point that
// is a whole number (500..5200:48 steps by 100) comes out exactly whole, where lo + (hi - lo) * (i / (n - 1)) gave
// 3200.0000000000005, which a token count refuses. The last point is hi itself.
double range_point(double lo, double hi, std::size_t i, std::size_t n, bool log) {
  if (i + 1 == n) return hi;
  if (log) return lo * std::pow(hi / lo, static_cast<double>(i) / static_cast<double>(n - 1));
  return lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(n - 1);
}

}  // namespace

Cell Axis::cell(std::size_t i) const {
  if (!range) return cells[i];
  return Quantity{range_point(range->low.value, range->high.value, i, range->points, range->log), range->low.dim, range->low.point};
}

std::string Axis::label(std::size_t i) const {
  if (!range) return labels[i];
  return range_label(*def, std::get<Quantity>(cell(i)));
}

namespace {

// LOW..HIGH:N[:log] for quantity and integer keys.
bool parse_range(const KeyDef& def, const std::string& text, const std::string& where, Axis& axis, Problems& problems) {
  const auto dots = text.find("..");
  if (dots == std::string::npos) return false;
  auto parts = split(text.substr(dots + 2), ':');
  const std::string low_text = text.substr(0, dots);
  if (parts.empty()) {
    problems.add(where, "a range needs its end: LOW..HIGH:N", "e.g. " + std::string(def.name) + "=10/s..100/s:10");
    return true;
  }
  const std::string high_text = parts[0];
  std::size_t n = 10;
  bool log = false;
  if (parts.size() >= 2) {
    char* end = nullptr;
    const long v = std::strtol(parts[1].c_str(), &end, 10);
    if (end == nullptr || *end != '\0' || v < 2 || v > 10000000) {
      problems.add(where, "range points: expected a whole number from 2 to 10,000,000, got \"" + parts[1] + "\"", "e.g. LOW..HIGH:10");
      return true;
    }
    n = static_cast<std::size_t>(v);
  }
  if (parts.size() >= 3) {
    if (parts[2] != "log" && parts[2] != "lin") {
      problems.add(where, "range spacing: expected lin or log, got \"" + parts[2] + "\"", "");
      return true;
    }
    log = parts[2] == "log";
  }
  auto lo = parse_value(def, low_text, "--sweep " + def.path());
  auto hi = parse_value(def, high_text, "--sweep " + def.path());
  if (!lo || !hi) {
    const Error& e = !lo ? lo.error() : hi.error();
    problems.add(where, e.message, e.hint);
    return true;
  }
  const auto* a = std::get_if<Quantity>(&*lo);
  const auto* b = std::get_if<Quantity>(&*hi);
  if (a == nullptr || b == nullptr) {
    problems.add(where, "a range needs two numbers", "");
    return true;
  }
  if (log && (a->value <= 0 || b->value <= 0)) {
    problems.add(where, "a log range needs positive ends", "");
    return true;
  }
  if (def.kind != KeyKind::integer) {
    axis.range = Axis::Range{*a, *b, n, log};
    return true;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double v = std::round(range_point(a->value, b->value, i, n, log));
    Quantity q{v, a->dim, a->point};
    if (!axis.cells.empty() && std::get<Quantity>(axis.cells.back()).value == v) continue;  // rounding repeats a count
    axis.cells.emplace_back(q);
    axis.labels.push_back(format_machine(v));
  }
  return true;
}

// The hardware a sweep point runs on.
struct SweptHardware {
  std::string system;       // the system id ("" with a bare accelerator)
  std::string accelerator;  // the accelerator id ("" when the ids are unknown: reported elsewhere)
};

std::string spec_text(const PlanSpec& spec, std::string_view path) {
  const SpecValue* v = spec.get(path);
  return v == nullptr ? std::string() : v->text;
}

// A given accelerator wins over the system's (the chain's `gpu` choice).
SweptHardware swept_hardware(const std::string& system, const std::string& gpu) {
  SweptHardware h{system, gpu};
  if (h.accelerator.empty() && !system.empty())
    if (const Entry* e = Catalog::instance().find(system); e != nullptr && e->kind() == "system") h.accelerator = e->text("accelerator").value_or("");
  return h;
}

// The catalog's price entry with a `series` for the first of `items` that has one; entries of `provider` first.
const Entry* catalog_price(const std::vector<std::string>& items, std::string_view series, const std::string& provider) {
  const auto prices = Catalog::instance().all("price");
  for (const auto& item : items) {
    if (item.empty()) continue;
    const Entry* best = nullptr;
    for (const Entry* e : prices) {
      if (e->text("item").value_or("") != item || e->root().find(series) == nullptr) continue;
      const bool same_provider = !provider.empty() && e->text("provider").value_or("") == provider;
      if (best == nullptr || (same_provider && best->text("provider").value_or("") != provider)) best = e;
    }
    if (best != nullptr) return best;
  }
  return nullptr;
}

std::string entry_unit_of_sale(const std::string& id) {
  const Entry* e = id.empty() ? nullptr : Catalog::instance().find(id);
  return e == nullptr ? std::string() : e->text("unit_of_sale").value_or("");
}

}  // namespace

void follow_prices(const PlanSpec& spec, SweepPlan& sweep, Problems& problems) {
  const std::string mode = spec.mode();
  const std::string capex = spec_text(spec, "money.capex_per_gpu"), purchase = spec_text(spec, "money.purchase");
  const std::string rental = spec_text(spec, "money.rental");
  if (capex.empty() && purchase.empty() && rental.empty()) return;
  auto path_of = [&](const std::string& k) {
    const KeyDef* d = find_key(k, mode);
    return d != nullptr ? d->path() : k;
  };
  auto variant_sets = [&](std::size_t v, std::initializer_list<std::string_view> paths) {
    for (const auto& [k, value] : spec.variants[v].sets)
      if (std::find(paths.begin(), paths.end(), path_of(k)) != paths.end()) return true;
    return false;
  };
  auto axis_sets = [&](const Axis& a, std::initializer_list<std::string_view> paths) {
    if (a.def != nullptr) return std::find(paths.begin(), paths.end(), a.def->path()) != paths.end();
    return std::any_of(a.variants.begin(), a.variants.end(), [&](std::size_t v) { return variant_sets(v, paths); });
  };
  const std::string base_system = spec_text(spec, "hardware.system"), base_gpu = spec_text(spec, "hardware.gpu");
  const SweptHardware base = swept_hardware(base_system, base_gpu);
  const std::string tier = spec_text(spec, "money.rental_tier").empty() ? "on-demand" : spec_text(spec, "money.rental_tier");
  std::string series = tier;
  std::replace(series.begin(), series.end(), '-', '_');
  const Entry* base_rental = rental.empty() ? nullptr : Catalog::instance().find(rental);
  const std::string provider = base_rental == nullptr ? "" : base_rental->text("provider").value_or("");
  const std::string base_price = !capex.empty() ? "money.capex_per_gpu = " + capex : "money.purchase = " + purchase;
  const bool system_priced = capex.empty() && !entry_unit_of_sale(purchase).empty() && entry_unit_of_sale(purchase) != "accelerator";

  for (std::size_t ai = 0; ai < sweep.axes.size(); ++ai) {
    Axis& a = sweep.axes[ai];
    const bool hardware_axis = a.def != nullptr && (a.def->path() == "hardware.system" || a.def->path() == "hardware.gpu");
    if (!hardware_axis && a.variants.empty()) continue;
    // Prices another axis sweeps stay the user's.
    bool other_purchase = false, other_rental = false;
    for (std::size_t bi = 0; bi < sweep.axes.size(); ++bi) {
      if (bi == ai) continue;
      other_purchase = other_purchase || axis_sets(sweep.axes[bi], {"money.capex_per_gpu", "money.purchase"});
      other_rental = other_rental || axis_sets(sweep.axes[bi], {"money.rental"});
    }
    a.prices.assign(a.labels.size(), {});
    for (std::size_t v = 0; v < a.labels.size(); ++v) {
      std::string system = base_system, gpu = base_gpu, where = "--sweep " + a.key + "=" + a.labels[v];
      bool own_purchase = other_purchase, own_rental = other_rental;
      if (hardware_axis) {
        if (v >= a.cells.size() || !std::holds_alternative<std::string>(a.cells[v])) continue;
        (a.def->path() == "hardware.system" ? system : gpu) = std::get<std::string>(a.cells[v]);
      } else {
        const std::size_t var = a.variants[v];
        if (!variant_sets(var, {"hardware.system", "hardware.gpu"})) continue;
        for (const auto& [k, value] : spec.variants[var].sets) {
          if (path_of(k) == "hardware.system") system = value.text;
          if (path_of(k) == "hardware.gpu") gpu = value.text;
        }
        where = spec.variants[var].where + ": variant " + spec.variants[var].name;
        own_purchase = own_purchase || variant_sets(var, {"money.capex_per_gpu", "money.purchase"});
        own_rental = own_rental || variant_sets(var, {"money.rental"});
      }
      const SweptHardware row = swept_hardware(system, gpu);
      if (row.accelerator.empty() || base.accelerator.empty()) continue;
      const std::string what = row.system.empty() ? row.accelerator : row.system + " (" + row.accelerator + ")";
      const bool new_accelerator = row.accelerator != base.accelerator;
      if ((!capex.empty() || !purchase.empty()) && !own_purchase && (new_accelerator || (system_priced && row.system != base.system))) {
        if (const Entry* e = catalog_price({row.system, row.accelerator}, "purchase", "")) {
          a.prices[v].emplace_back("money.capex_per_gpu", "");
          a.prices[v].emplace_back("money.purchase", e->id());
          sweep.notes.push_back(where + ": priced at the catalog's " + e->id() + " (" + e->name() + "), not " + base_price + ", the price of " +
                                base.accelerator);
        } else {
          problems.add(where,
                       "no purchase price for " + what + ": the catalog prices neither " +
                           (row.system.empty() ? "the accelerator" : "the system nor its accelerator") + ", and " + base_price +
                           " is the price of the plan's " + base.accelerator,
                       "price it: a [[variant]] per system that sets " + a.key + " and money.capex_per_gpu together (--sweep variant=...), "
                       "or a catalog entry in a --data-dir overlay (prices/*.toml: kind = \"price\", item = \"" + row.accelerator +
                           "\", unit_of_sale = \"accelerator\", a dated [[purchase]] series); `infracalc data list --kind price` lists the prices");
        }
      }
      if (!rental.empty() && !own_rental && new_accelerator) {
        if (const Entry* e = catalog_price({row.accelerator, row.system}, series, provider)) {
          a.prices[v].emplace_back("money.rental", e->id());
          sweep.notes.push_back(where + ": rented at the catalog's " + e->id() + " (" + e->name() + "), not money.rental = " + rental +
                                ", which rents " + base.accelerator);
        } else {
          problems.add(where,
                       "no " + tier + " rental price for " + what + ": the catalog has no rental entry for " + row.accelerator + " with [[" +
                           series + "]] prices, and money.rental = " + rental + " rents the plan's " + base.accelerator,
                       "leave the rental comparison out (--set money.rental=), set money.rental in a [[variant]] per system, or add a "
                       "catalog entry in a --data-dir overlay (prices/*.toml: kind = \"price\", item = \"" + row.accelerator +
                           "\", unit_of_sale = \"accelerator-hour\", a dated [[" + series + "]] series)");
        }
      }
    }
  }
}

Axis parse_axis(const std::string& text, const std::string& mode, const PlanSpec& spec, Problems& problems) {
  Axis axis;
  const std::string where = "--sweep " + text;
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    problems.add(where, "expected key=v1,v2,... or key=LOW..HIGH:N", "e.g. --sweep gpu=h100-sxm,h200-sxm --sweep batch=1,8,64");
    return axis;
  }
  const std::string key = text.substr(0, eq);
  const std::string values = text.substr(eq + 1);
  if (key == "variant") {
    axis.key = "variant";
    for (const auto& name : split(values, ',')) {
      const auto it = std::find_if(spec.variants.begin(), spec.variants.end(), [&](const Variant& v) { return v.name == name; });
      if (it == spec.variants.end()) {
        std::vector<std::string_view> names;
        for (const auto& v : spec.variants) names.push_back(v.name);
        problems.add(where, "no [[variant]] named '" + name + "'", names.empty() ? "the plan has no [[variant]] tables" : did_you_mean(name, names));
        continue;
      }
      axis.variants.push_back(static_cast<std::size_t>(it - spec.variants.begin()));
      axis.labels.push_back(name);
    }
    return axis;
  }
  const KeyDef* def = find_key(key, mode);
  if (def == nullptr) {
    std::vector<std::string_view> names = key_paths();
    for (const auto& k : plan_keys()) names.push_back(k.name);
    const std::string hint = did_you_mean(key, names);
    problems.add(where, "unknown plan key '" + key + "'", hint.empty() ? "sweep keys are section.key (workload.rate) or a unique key name (rate)" : hint);
    return axis;
  }
  if (!def->mode.empty() && !mode.empty() && def->mode != mode)
    problems.add(where, def->path() + " applies to " + std::string(def->mode) + " plans; this is a " + mode + " plan", "");
  axis.key = def->path();
  axis.def = def;
  if ((def->kind == KeyKind::quantity || def->kind == KeyKind::integer) && parse_range(*def, values, where, axis, problems)) return axis;
  for (const auto& v : split(values, ',')) {
    auto cell = parse_value(*def, v, "--sweep " + def->path());
    if (!cell) {
      problems.add(where, cell.error().message, cell.error().hint);
      continue;
    }
    if (def->kind == KeyKind::id) check_catalog_id(*def, v, where, problems);
    axis.cells.push_back(std::move(cell).value());
    axis.labels.push_back(v);
  }
  if (axis.size() == 0) problems.add(where, "the sweep of " + def->path() + " has no values", "e.g. " + key + "=a,b,c");
  return axis;
}

std::vector<std::string> default_columns(const Program& program) {
  std::vector<std::string> out;
  for (const auto& l : program.lines)
    if (l.headline) out.push_back(l.key);
  return out;
}

SweepPlan make_sweep(const PlanSpec& spec, const Program& program, const std::vector<std::string>& cli_axes, const std::string& columns,
                     const std::string& pareto, Problems& problems) {
  SweepPlan sw;
  const std::string mode = program.mode;
  auto add = [&](Axis a) {
    if (a.key.empty()) return;
    for (auto& x : sw.axes)
      if (x.key == a.key) {
        x = std::move(a);
        return;
      }
    sw.axes.push_back(std::move(a));
  };
  bool variant_axis = false;
  for (const auto& ax : spec.sweeps) {
    std::string text = ax.key + "=";
    for (std::size_t i = 0; i < ax.values.size(); ++i) text += (i ? "," : "") + ax.values[i].text;
    Problems local;
    Axis a = parse_axis(text, mode, spec, local);
    for (const auto& p : local.list()) problems.add(ax.where, p.error.message, p.error.hint);
    variant_axis = variant_axis || a.key == "variant";
    add(std::move(a));
  }
  for (const auto& t : cli_axes) {
    Axis a = parse_axis(t, mode, spec, problems);
    variant_axis = variant_axis || a.key == "variant";
    add(std::move(a));
  }
  if (!spec.variants.empty() && !variant_axis) {
    Axis a;
    a.key = "variant";
    for (std::size_t i = 0; i < spec.variants.size(); ++i) {
      a.variants.push_back(i);
      a.labels.push_back(spec.variants[i].name);
    }
    sw.axes.insert(sw.axes.begin(), std::move(a));
  }
  follow_prices(spec, sw, problems);
  const auto names = program.keys();
  auto check_line = [&](const std::string& key, const std::string& what) {
    if (program.find(key) >= 0) return true;
    const std::string hint = did_you_mean(key, names);
    problems.add(what, "no worksheet line '" + key + "'", hint.empty() ? "`infracalc plan FILE --csv` lists every line key" : hint);
    return false;
  };
  std::vector<std::string> cols = !columns.empty() ? split(columns, ',') : spec.columns;
  if (cols.empty()) cols = default_columns(program);
  for (const auto& c : cols)
    if (check_line(c, "--columns")) sw.columns.push_back(c);
  const std::vector<std::string> objectives = !pareto.empty() ? split(pareto, ',') : spec.pareto;
  for (const auto& o : objectives) {
    std::string key = o;
    if (key.size() > 4 && (key.substr(key.size() - 4) == ":max" || key.substr(key.size() - 4) == ":min")) key = key.substr(0, key.size() - 4);
    if (!check_line(key, "--pareto")) continue;
    sw.pareto.push_back(o);
    if (std::find(sw.columns.begin(), sw.columns.end(), key) == sw.columns.end()) sw.columns.push_back(key);
  }
  return sw;
}

std::size_t sweep_points(const SweepPlan& sweep) {
  double total = 1;
  for (const auto& a : sweep.axes) total *= static_cast<double>(a.size());
  if (total > 2e7)
    throw UserError{{fmt::format("the sweep has {:.4g} points; the limit is 20 million", total), "sweep fewer values, or split the grid"}};
  return static_cast<std::size_t>(total);
}

void run_sweep(Evaluator& ev, const PlanSpec& spec, const InputSet& base, const SweepPlan& sweep, SweepStats& stats,
               const std::function<void(SweepRow&&)>& sink) {
  run_sweep_range(ev, spec, base, sweep, 0, sweep_points(sweep), stats, sink);
}

void run_sweep_range(Evaluator& ev, const PlanSpec& spec, const InputSet& base, const SweepPlan& sweep, std::size_t first, std::size_t end,
                     SweepStats& stats, const std::function<void(SweepRow&&)>& sink) {
  const Program& program = ev.program();
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t runs0 = ev.runs();
  const std::size_t hits0 = ev.hits();
  const std::size_t n = sweep_points(sweep);
  if (first > end || end > n) throw std::logic_error(fmt::format("sweep range [{}, {}) outside the grid of {} points", first, end, n));
  stats = SweepStats{};
  if (first == end) return;
  std::vector<int> columns;
  for (const auto& c : sweep.columns) columns.push_back(program.find(c));
  // Which input lines each axis sets (a variant axis: every key of every variant on it).
  std::vector<std::vector<int>> touched(sweep.axes.size());
  for (std::size_t a = 0; a < sweep.axes.size(); ++a) {
    const Axis& ax = sweep.axes[a];
    if (ax.def != nullptr) {
      const int i = program.find(ax.def->path());
      if (i < 0) throw UserError{{"--sweep " + ax.key + ": not used by " + program.mode + " plans", "remove it, or change workload.type"}};
      touched[a].push_back(i);
    }
    for (std::size_t v : ax.variants)
      for (const auto& [path, value] : spec.variants[v].sets) {
        const int i = program.find(find_key(path, program.mode) ? find_key(path, program.mode)->path() : path);
        if (i < 0) throw UserError{{"variant " + spec.variants[v].name + ": " + path + " is not used by " + program.mode + " plans", ""}};
        if (std::find(touched[a].begin(), touched[a].end(), i) == touched[a].end()) touched[a].push_back(i);
      }
    for (const auto& prices : ax.prices)
      for (const auto& [path, text] : prices)
        if (const int i = program.find(path); i >= 0 && std::find(touched[a].begin(), touched[a].end(), i) == touched[a].end())
          touched[a].push_back(i);
  }
  InputSet cur = base;
  // The first point's position on each axis (mixed radix, the last axis fastest).
  std::vector<std::size_t> idx(sweep.axes.size(), 0);
  for (std::size_t a = sweep.axes.size(), rest = first; a-- > 0;) {
    idx[a] = rest % sweep.axes[a].size();
    rest /= sweep.axes[a].size();
  }
  auto apply = [&](std::size_t a) {
    const Axis& ax = sweep.axes[a];
    for (int i : touched[a]) {
      cur.values[static_cast<std::size_t>(i)] = base.values[static_cast<std::size_t>(i)];
      cur.where[static_cast<std::size_t>(i)] = base.where[static_cast<std::size_t>(i)];
    }
    if (ax.def != nullptr) {
      const auto i = static_cast<std::size_t>(touched[a].front());
      cur.values[i] = ax.cell(idx[a]);
      cur.where[i] = "sweep";
    } else {
      for (const auto& [path, value] : spec.variants[ax.variants[idx[a]]].sets) {
        const KeyDef* def = find_key(path, program.mode);
        if (def == nullptr) continue;
        if (auto err = ev.set_input(cur, *def, value.text, "variant " + spec.variants[ax.variants[idx[a]]].name))
          throw UserError{{value.where + ": " + err->message, err->hint}};
      }
    }
    if (!ax.prices.empty()) set_prices(ev, cur, ax.prices[idx[a]], "sweep: the price of " + ax.label(idx[a]));
  };
  std::vector<int> changed;
  for (std::size_t a = 0; a < sweep.axes.size(); ++a) {
    apply(a);
    changed.insert(changed.end(), touched[a].begin(), touched[a].end());
  }
  Sheet sheet;
  for (std::size_t p = first; p < end; ++p) {
    ev.update(cur, changed, sheet);
    SweepRow row;
    row.point = p;
    row.labels.reserve(sweep.axes.size());
    for (std::size_t a = 0; a < sweep.axes.size(); ++a) row.labels.push_back(sweep.axes[a].label(idx[a]));
    row.values.reserve(columns.size());
    for (int c : columns) row.values.push_back(sheet.values[static_cast<std::size_t>(c)]);
    for (std::size_t c = 0; c < program.checks.size(); ++c)
      if (sheet.checks[c] && !sheet.checks[c]->first) row.failed += (row.failed.empty() ? "" : ";") + program.checks[c].key;
    if (!sheet.errors.empty()) row.error = sheet.errors.front();
    else
      for (const auto& run : sheet.runs)
        if (run && run->error) {
          row.error = run->error->message;
          break;
        }
    sink(std::move(row));  // rows are not kept here: memory stays flat in the number of points
    // Next point: the last axis moves fastest.
    changed.clear();
    for (std::size_t a = sweep.axes.size(); a-- > 0;) {
      idx[a] = (idx[a] + 1) % sweep.axes[a].size();
      apply(a);
      changed.insert(changed.end(), touched[a].begin(), touched[a].end());
      if (idx[a] != 0) break;
    }
  }
  stats.points = end - first;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stats.runs = ev.runs() - runs0;
  stats.hits = ev.hits() - hits0;
}

InputSet first_point(const Evaluator& ev, const PlanSpec& spec, const InputSet& base, const SweepPlan& sweep) {
  InputSet in = base;
  const Program& program = ev.program();
  for (const auto& ax : sweep.axes) {
    if (ax.def != nullptr && ax.size() > 0) {
      const int i = program.find(ax.def->path());
      if (i < 0) continue;
      in.values[static_cast<std::size_t>(i)] = ax.cell(0);
      in.where[static_cast<std::size_t>(i)] = "sweep (first point)";
    } else if (!ax.variants.empty()) {
      const Variant& v = spec.variants[ax.variants.front()];
      for (const auto& [path, value] : v.sets)
        if (const KeyDef* def = find_key(path, program.mode)) (void)ev.set_input(in, *def, value.text, "variant " + v.name);
    }
    if (!ax.prices.empty()) set_prices(ev, in, ax.prices.front(), "sweep (first point): the price of " + ax.label(0));
  }
  return in;
}

SweepTally::SweepTally(const Program& program) {
  for (const auto& c : program.checks) c_.by_check.emplace_back(c.key, 0);
}

void SweepTally::add(const SweepRow& r) {
  ++c_.points;
  if (!r.error.empty() && c_.errored++ == 0) c_.first_error = r.error;
  if (r.failed.empty()) return;
  ++c_.checked;
  for (auto& [key, n] : c_.by_check)
    for (const auto& f : split(r.failed, ';'))
      if (f == key) ++n;
}

void SweepTally::add(const SweepCounts& later) {
  c_.points += later.points;
  c_.checked += later.checked;
  if (c_.errored == 0 && later.errored > 0) c_.first_error = later.first_error;
  c_.errored += later.errored;
  for (const auto& [key, n] : later.by_check)
    for (auto& [mine, m] : c_.by_check)
      if (mine == key) m += n;
}

std::string SweepTally::text() const {
  if (c_.checked == 0 && c_.errored == 0) return {};
  const std::string of = fmt::format(" of {} sweep point{}", c_.points, c_.points == 1 ? "" : "s");
  std::string out;
  if (c_.checked > 0) {
    std::string which;
    for (const auto& [key, n] : c_.by_check)
      if (n > 0) which += (which.empty() ? "" : ", ") + fmt::format("{} in {}", key, n);
    out = fmt::format("{}{} failed checks ({})", c_.checked, of, which);
  }
  if (c_.errored > 0)
    out += (out.empty() ? fmt::format("{}{}", c_.errored, of) : fmt::format("; {}", c_.errored)) + " failed a step (first: " + c_.first_error + ")";
  return out + "; exit status 1";
}

ParetoFront::ParetoFront(const SweepPlan& sweep) {
  for (const auto& o : sweep.pareto) {
    const bool max = o.size() > 4 && o.substr(o.size() - 4) == ":max";
    const std::string key = o.size() > 4 && (max || o.substr(o.size() - 4) == ":min") ? o.substr(0, o.size() - 4) : o;
    const auto it = std::find(sweep.columns.begin(), sweep.columns.end(), key);
    objectives_.push_back({static_cast<std::size_t>(it - sweep.columns.begin()), max ? -1.0 : 1.0});
  }
}

// Points with the same scores share one group, so ties (a swept key that moves no objective) cost one
// comparison, not one per point: a front of 100,000 tied points took 17 s when every pair was compared.
void ParetoFront::add(SweepRow&& row) {
  if (!row.error.empty()) return;
  std::vector<double> score;
  score.reserve(objectives_.size());
  for (const auto& o : objectives_) {
    const auto& v = row.values[o.column];
    const auto* q = v ? std::get_if<Quantity>(&*v) : nullptr;
    if (q == nullptr) return;
    score.push_back(o.sign * q->value);
  }
  auto dominates = [](const std::vector<double>& a, const std::vector<double>& b) {
    bool better = false;
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (a[k] > b[k]) return false;
      if (a[k] < b[k]) better = true;
    }
    return better;
  };
  for (auto& g : groups_) {
    if (g.score == score) {
      g.rows.push_back(std::move(row));
      return;
    }
    if (dominates(g.score, score)) return;
  }
  groups_.erase(std::remove_if(groups_.begin(), groups_.end(), [&](const Group& g) { return dominates(score, g.score); }), groups_.end());
  groups_.push_back({std::move(score), {}});
  groups_.back().rows.push_back(std::move(row));
}

std::vector<SweepRow> ParetoFront::take_rows() {
  std::vector<SweepRow> out;
  for (auto& g : groups_)
    for (auto& r : g.rows) out.push_back(std::move(r));
  groups_.clear();
  std::sort(out.begin(), out.end(), [](const SweepRow& a, const SweepRow& b) { return a.point < b.point; });
  return out;
}

namespace {

std::vector<const Line*> column_lines(const Program& program, const SweepPlan& sweep) {
  std::vector<const Line*> lines;
  for (const auto& c : sweep.columns) lines.push_back(&program.lines[static_cast<std::size_t>(program.find(c))]);
  return lines;
}

void append_csv_header(std::string& out, const SweepPlan& sweep, const std::vector<const Line*>& lines, const std::vector<std::string>& units) {
  for (const auto& a : sweep.axes) out += a.key + ",";
  for (std::size_t c = 0; c < lines.size(); ++c) out += lines[c]->key + (units[c].empty() || units[c] == "1" ? "" : " (" + units[c] + ")") + ",";
  out += "checks_failed,error\n";
}

void append_csv_row(std::string& out, const std::vector<const Line*>& lines, const SweepRow& r) {
  for (const auto& l : r.labels) out += writers::csv_cell(l) + ",";
  for (std::size_t c = 0; c < r.values.size(); ++c) {
    if (const auto& v = r.values[c]) {
      if (const auto* q = std::get_if<Quantity>(&*v)) out += format_machine(writers::machine_quantity(lines[c]->key, *q).value);
      else out += writers::csv_cell(std::get<std::string>(*v));
    }
    out += ',';
  }
  out += r.failed + ",";
  if (!r.error.empty()) out += writers::csv_cell(r.error);
  out += '\n';
}

// A point as a document of one object, written by the JSON writer: its axes, its columns (a quantity as value and
// unit), the checks it failed and its error. One document is refilled for every point of a sweep: its keys, and
// their JSON, are laid out once.
void append_json_row(std::string& out, const SweepPlan& sweep, const std::vector<const Line*>& lines, const SweepRow& r) {
  using writers::Member;
  thread_local writers::Document doc;
  auto& head = doc.head;
  const std::size_t fixed = sweep.axes.size() + lines.size() + 1;
  bool fresh = head.size() < fixed;
  for (std::size_t a = 0; !fresh && a < sweep.axes.size(); ++a) fresh = head[a].key != sweep.axes[a].key;
  for (std::size_t c = 0; !fresh && c < lines.size(); ++c) fresh = head[sweep.axes.size() + c].key != lines[c]->key;
  if (fresh) {
    head.assign(fixed, Member{});
    for (std::size_t a = 0; a < sweep.axes.size(); ++a) head[a].key = sweep.axes[a].key;
    for (std::size_t c = 0; c < lines.size(); ++c) head[sweep.axes.size() + c].key = lines[c]->key;
    head.back().key = "checks_failed";
    writers::prepare_json(doc);
  }
  auto text = [](Member& m, const std::string& t) {
    if (auto* s = std::get_if<std::string>(&m.value)) s->assign(t);
    else m.value = t;
  };
  for (std::size_t a = 0; a < sweep.axes.size(); ++a) text(head[a], r.labels[a]);
  for (std::size_t c = 0; c < lines.size(); ++c) {
    Member& m = head[sweep.axes.size() + c];
    const auto& v = r.values[c];
    if (!v) {
      m.value = nullptr;
    } else if (const auto* q = std::get_if<Quantity>(&*v)) {
      const writers::MachineQuantity mq = writers::machine_quantity(lines[c]->key, *q);
      auto* pair = std::get_if<std::vector<Member>>(&m.value);
      if (pair == nullptr || pair->size() != 2) m.value = std::vector<Member>{{"value", mq.value}, {"unit", mq.unit}};
      else {
        (*pair)[0].value = mq.value;
        text((*pair)[1], mq.unit);
      }
    } else {
      text(m, std::get<std::string>(*v));
    }
  }
  auto* failed = std::get_if<std::vector<std::string>>(&head[fixed - 1].value);
  if (failed == nullptr) failed = &head[fixed - 1].value.emplace<std::vector<std::string>>();
  failed->clear();
  for (std::size_t start = 0; start < r.failed.size();) {
    const std::size_t end = std::min(r.failed.find(';', start), r.failed.size());
    failed->push_back(r.failed.substr(start, end - start));
    start = end + 1;
  }
  head.resize(r.error.empty() ? fixed : fixed + 1);
  if (!r.error.empty()) {
    head.back().key = "error";
    text(head.back(), r.error);
  }
  writers::write_json(out, doc);
  out += '\n';
}

}  // namespace

bool streams(const writers::OutputOptions& opt) { return opt.format == writers::OutputFormat::csv || opt.format == writers::OutputFormat::json; }

SweepStreamer::SweepStreamer(const Program& program, const SweepPlan& sweep, const writers::OutputOptions& opt,
                             std::function<void(std::string_view)> write)
    : sweep_(sweep), opt_(opt), write_(std::move(write)), lines_(column_lines(program, sweep)), units_(lines_.size()),
      known_(lines_.size(), 0) {}

// CSV names each column's unit in its header, from the first value in that column: the first rows wait (at
// most kHeld of them) until every column has shown one, then everything streams in 64 kB pieces.
void SweepStreamer::add(const SweepRow& r) {
  if (!started_) {
    for (std::size_t c = 0; c < lines_.size(); ++c)
      if (known_[c] == 0 && r.values[c])
        if (const auto* q = std::get_if<Quantity>(&*r.values[c])) {
          units_[c] = writers::machine_quantity(lines_[c]->key, *q).unit;
          known_[c] = 1;
        }
    held_.push_back(r);
    if (held_.size() >= kHeld || std::all_of(known_.begin(), known_.end(), [](char k) { return k != 0; })) start();
    return;
  }
  append(r);
}

void SweepStreamer::start() {
  started_ = true;
  if (opt_.format == writers::OutputFormat::csv) append_csv_header(buf_, sweep_, lines_, units_);
  for (const auto& h : held_) append(h);
  held_.clear();
  held_.shrink_to_fit();
}

void SweepStreamer::append(const SweepRow& r) {
  if (opt_.format == writers::OutputFormat::csv) append_csv_row(buf_, lines_, r);
  else append_json_row(buf_, sweep_, lines_, r);
  if (buf_.size() >= (1 << 16)) {
    write_(buf_);
    buf_.clear();
  }
}

void SweepStreamer::finish() {
  if (!started_) start();
  if (!buf_.empty()) write_(buf_);
  buf_.clear();
}

std::string render_sweep(const Program& program, const SweepPlan& sweep, const std::vector<SweepRow>& rows, const writers::OutputOptions& opt) {
  if (streams(opt)) {
    std::string out;
    SweepStreamer s(program, sweep, opt, [&](std::string_view piece) { out += piece; });
    for (const auto& r : rows) s.add(r);
    s.finish();
    return out;
  }
  // For people: a row per point, its values as the worksheet shows them, and what failed.
  const std::vector<const Line*> lines = column_lines(program, sweep);
  std::vector<std::string> head;
  for (const auto& a : sweep.axes) head.push_back(a.key);
  for (const auto* l : lines) head.push_back(l->key);
  head.emplace_back("checks failed");
  std::vector<std::vector<std::string>> cells;
  for (const auto& r : rows) {
    std::vector<std::string> row = r.labels;
    for (std::size_t c = 0; c < lines.size(); ++c) row.push_back(show_value(*lines[c], r.values[c], opt.number));
    row.push_back(!r.error.empty() ? "error: " + r.error : r.failed);
    cells.push_back(std::move(row));
  }
  const std::vector<Table> table = {writers::text_table("sweep", plural(static_cast<std::int64_t>(rows.size()), "point"), head, std::move(cells))};
  writers::Document doc{.title = "sweep"};
  writers::Section points{.kind = writers::SectionKind::tables, .key = "sweep"};
  points.tables = table;
  doc.sections = {points};
  return writers::render(doc, opt);
}

}  // namespace infracalc::plan
