#include "plugins/tco/tco_inputs.hpp"

#include <cmath>
#include <fmt/format.h>

#include "catalog/catalog.hpp"
#include "plugins/tco/tco_math.hpp"
#include "units/format.hpp"

namespace infracalc::tco {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

Quantity parse_one(std::string_view text, const Expectation& want, std::string_view label) {
  auto q = parse_input(trim(text), want, label);
  if (!q) throw UserError{q.error()};
  return q.value();
}

}  // namespace

PurchaseBasis fill_purchase(Context& ctx, std::string_view key) {
  if (ctx.has(key)) return PurchaseBasis::none;
  const Entry* e = ctx.ref("purchase");
  if (e == nullptr) return PurchaseBasis::none;
  if (!e->field("purchase"))
    throw UserError{{e->id() + " has no 'purchase' price series", "pick a purchase entry (an id ending in -purchase), or give " +
                                                                     Context::flag_name(key) + " directly"}};
  const std::string unit = e->text("unit_of_sale").value_or("accelerator");
  if (unit == "accelerator") {
    fill_from_ref(ctx, key, "purchase", "purchase", expectation_of<Usd>());
    return PurchaseBasis::accelerator;
  }
  // A rack or system price becomes a price per accelerator only through the system's accelerator count.
  const auto item = e->text("item");
  const Entry* sys = item ? Catalog::instance().find(*item) : nullptr;
  std::optional<Quantity> n;
  if (sys != nullptr && sys->kind() == "system") n = ctx.catalog_quantity(*sys, "accelerators", Expectation{dims::none, false});
  if (!n || !(n->value >= 1))
    throw UserError{{fmt::format("{} prices one {}{}, not one accelerator", e->id(), unit, item ? " (" + *item + ")" : ""),
                     "give " + Context::flag_name(key) + " per accelerator, or use an entry whose item is a system id"}};
  fill_from_ref(ctx, key, "purchase", "purchase", expectation_of<Usd>());
  for (auto& in : ctx.result().inputs)
    if (in.key == key)
      if (auto* q = std::get_if<Quantity>(&in.value)) {
        ctx.note(fmt::format("{} prices one {} ({}): {} / {} accelerators = {} per accelerator, with its share of "
                             "everything else the {} price covers",
                             e->id(), unit, sys->id(), ctx.quote(*q), ctx.quote_count(n->value),
                             ctx.quote(Quantity{q->value / n->value, q->dim}), unit));
        q->value /= n->value;
        in.raw += fmt::format(" / {:g}", n->value);
      }
  return PurchaseBasis::system_share;
}

CatalogRef grid_ref() {
  return {"grid", {"grid"},
          "grid entry (kind grid; its dated series 'tariff', the newest entry not after --as-of): sets --tariff"};
}

CatalogRef purchase_ref(std::string_view flag) {
  // The help must outlive the descriptor, so each flag's text is built once.
  static const std::string per_gpu = "purchase-price entry (dated series 'purchase'; a rack or system price is divided by "
                                     "its accelerators): sets --capex-per-gpu";
  static const std::string per_accelerator = "purchase-price entry (dated series 'purchase'; a rack or system price is "
                                             "divided by its accelerators): sets --capex-per-accelerator";
  return {"purchase", {"price"}, flag == "--capex-per-gpu" ? per_gpu : per_accelerator};
}

bool fill_tariff(Context& ctx, std::string_view key) {
  return fill_from_ref(ctx, key, "grid", "tariff", expectation_of<UsdPerJoule>());
}

double annual_rate(const Context& ctx, std::string_view key) {
  const double r = ctx.number(key);
  if (r > 1.0)
    throw UserError{{fmt::format("{} {}% a year is above the 100% this calculator accepts", Context::flag_name(key), format_number(r * 100, 6)),
                     "give the annual rate as a percentage or a share, e.g. 8% or 0.08"}};
  return r;
}

void missing(const Context& ctx, std::string_view key, std::string_view what, std::string_view example, std::string_view ref) {
  std::string hint = "give " + Context::flag_name(key) + " " + std::string(example);
  const Entry* given = ref.empty() ? nullptr : ctx.ref(ref);
  if (given != nullptr)
    throw UserError{{"missing " + Context::flag_name(key) + " (" + std::string(what) + "): --" + std::string(ref) + " " +
                         given->id() + " does not give it",
                     hint}};
  if (!ref.empty()) hint += " or --" + std::string(ref) + " ID";
  throw UserError{{"missing " + Context::flag_name(key) + " (" + std::string(what) + ")", hint}};
}

std::pair<Quantity, Quantity> parse_range(std::string_view text, const Expectation& want, std::string_view label) {
  const auto dots = text.find("..");
  if (dots == std::string_view::npos)
    throw UserError{{std::string(label) + ": expected a range LOW..HIGH, got \"" + std::string(text) + "\"",
                     "e.g. $30/MWh..$120/MWh"}};
  const Quantity lo = parse_one(text.substr(0, dots), want, label);
  const Quantity hi = parse_one(text.substr(dots + 2), want, label);
  if (hi.value < lo.value)
    throw UserError{{std::string(label) + ": the range \"" + std::string(text) + "\" runs backwards",
                     "write the low end first"}};
  return {lo, hi};
}

std::vector<Quantity> parse_series(std::string_view text, const Expectation& want, std::string_view label, int steps) {
  std::vector<Quantity> out;
  if (text.find("..") != std::string_view::npos) {
    auto [lo, hi] = parse_range(text, want, label);
    if (steps < 2 || lo.value == hi.value) return lo.value == hi.value ? std::vector<Quantity>{lo} : std::vector<Quantity>{lo, hi};
    for (int i = 0; i < steps; ++i) {
      Quantity q = lo;
      q.value = lo.value + (hi.value - lo.value) * i / (steps - 1);
      out.push_back(q);
    }
    return out;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string_view part = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (trim(part).empty())
      throw UserError{{std::string(label) + ": empty item in the list \"" + std::string(text) + "\"",
                       "separate values with commas, e.g. 3yr,5yr,7yr"}};
    out.push_back(parse_one(part, want, label));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

int whole_years(Seconds t, std::string_view label) {
  const double y = t / year();
  const double r = std::round(y);
  if (r < 1 || std::fabs(y - r) > 1e-9 * std::max(1.0, y))
    throw UserError{{fmt::format("{}: the ledger runs in whole years, got {:.6g} yr", label, y),
                     "give a whole number of years, e.g. 4yr (1 yr = 365.25 d)"}};
  return static_cast<int>(r);
}

// The energy of the period: --energy, or --power x PUE x load factor x --period. nullopt when neither is given.
std::optional<Joules> period_energy(Context& ctx, Seconds period) {
  const double pue = ctx.number("pue");
  if (pue < 1.0) throw UserError{{fmt::format("--pue must be at least 1, got {}", pue), "PUE = facility energy / IT energy"}};
  if (ctx.has("energy")) {
    const Joules e = ctx.get<Joules>("energy");
    if (ctx.has("power")) {
      const double lf = e / (ctx.get<Watts>("power") * pue * period);
      ctx.set_number("load_factor_implied", lf);
      if (lf > 1.0 + 1e-12)
        ctx.note(fmt::format("--energy is more than --power x PUE can draw in the period (load factor {})", ctx.quote_number(lf)));
    }
    return e;
  }
  if (ctx.has("power")) return energy_over(ctx.get<Watts>("power"), pue, ctx.number("load_factor"), period);
  return std::nullopt;
}

std::vector<Input> energy_inputs(std::string_view energy_help) {
  return {
      {.name = "energy", .kind = InputKind::quantity, .dim = dims::energy, .help = energy_help, .example = "8TWh",
       .optional = true},
      {.name = "power", .kind = InputKind::quantity, .dim = dims::power,
       .help = "IT power (energy = power x PUE x load factor x period when --energy is absent)", .example = "1GW",
       .optional = true},
      {.name = "pue", .kind = InputKind::quantity, .dim = dims::none, .help = "facility energy / IT energy", .default_value = "1",
       .example = "1.2"},
      {.name = "load_factor", .kind = InputKind::quantity, .dim = dims::none, .help = "average load / --power",
       .default_value = "100%", .example = "91%", .bound = Bound::fraction},
  };
}

}  // namespace infracalc::tco
