// `cooling fleet`: the PUE of several sites weighted by their energy, against the plain mean.
#include <fmt/format.h>

#include "plugins/cooling/cooling_calculators.hpp"
#include "host/context.hpp"
#include "plugins/power/power_math.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

struct Site {
  std::string name;
  Joules it;
  Number pue;
};

// "name=ENERGY@PUE,..." or "ENERGY@PUE,...".
std::vector<Site> parse_sites(const std::string& text) {
  std::vector<Site> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item.empty()) continue;
    Site s;
    s.name = "site " + std::to_string(out.size() + 1);
    if (const auto eq = item.find('='); eq != std::string::npos) {
      s.name = item.substr(0, eq);
      item = item.substr(eq + 1);
    }
    const auto at = item.find('@');
    if (at == std::string::npos)
      throw UserError{{"--sites: expected ENERGY@PUE for each site, got \"" + item + "\"", "e.g. --sites \"a=120GWh@1.1,b=40GWh@1.6\""}};
    auto e = parse_input(item.substr(0, at), {dims::energy, false}, "--sites (" + s.name + " energy)");
    if (!e) throw UserError{e.error()};
    auto p = parse_input(item.substr(at + 1), {dims::none, false}, "--sites (" + s.name + " PUE)");
    if (!p) throw UserError{p.error()};
    if (e->value <= 0) throw UserError{{"--sites: " + s.name + " has no IT energy", "each site's IT energy must be above zero"}};
    if (p->value < 1.0) throw UserError{{fmt::format("--sites: {} has a PUE of {}, below 1", s.name, p->value), "PUE is at least 1"}};
    s.it = from_base<Joules>(e->value);
    s.pue = Number::from_value(p->value);
    out.push_back(s);
  }
  if (out.empty()) throw UserError{{"--sites is empty", "e.g. --sites \"a=120GWh@1.1,b=40GWh@1.6\""}};
  return out;
}

void run_fleet(Context& ctx) {
  const auto sites = parse_sites(ctx.text("sites"));
  std::vector<Joules> it;
  std::vector<Number> pue;
  double mean = 0.0;
  Joules total_it = from_base<Joules>(0.0), total = from_base<Joules>(0.0);
  Table t{"sites", "Sites", {{"site"}, {"it_energy", dims::energy}, {"pue", dims::none}, {"facility_energy", dims::energy}, {"energy_share", dims::none, "%"}}, {}};
  for (const auto& s : sites) {
    it.push_back(s.it);
    pue.push_back(s.pue);
    mean += s.pue.value() / static_cast<double>(sites.size());
    total_it += s.it;
    total += s.it * s.pue;
  }
  for (const auto& s : sites)
    t.rows.push_back({s.name, to_quantity(s.it), Quantity::number(s.pue.value()), to_quantity(s.it * s.pue), Quantity::number((s.it / total_it).value())});
  ctx.add_table(std::move(t));
  const Number fleet = pwr::weighted_pue(it, pue);
  ctx.set_number("fleet_pue", fleet.value());
  ctx.set_number("mean_pue", mean);
  ctx.set("it_energy", total_it);
  ctx.set("facility_energy", total);
  ctx.set("overhead_energy", total - total_it);
  ctx.note("fleet PUE = sum of facility energy / sum of IT energy: sites count by their energy, not once each");
}

}  // namespace

Calculator cooling_fleet_calculator() {
  Calculator c;
  c.name = "fleet";
  c.summary = "PUE of several sites weighted by their IT energy";
  c.description =
      "fleet PUE = sum(E_IT,i x PUE_i) / sum(E_IT,i): PUE is a ratio of energies, so sites (or months) combine by "
      "energy. The plain mean of the PUEs is shown for contrast; it overstates a fleet whose big sites are efficient.";
  c.inputs = {
      {.name = "sites", .kind = InputKind::text, .help = "sites as NAME=IT_ENERGY@PUE, comma-separated (NAME= optional)",
       .example = "a=120GWh@1.1,b=40GWh@1.6"},
  };
  c.outputs = {
      {"fleet_pue", dims::none, "energy-weighted PUE of the fleet"},
      {"mean_pue", dims::none, "plain mean of the site PUEs (for contrast)"},
      {"it_energy", dims::energy, "IT energy of the fleet"},
      {"facility_energy", dims::energy, "facility energy of the fleet"},
      {"overhead_energy", dims::energy, "facility minus IT energy"},
  };
  c.run = run_fleet;
  c.source = __FILE__;
  c.tables = {
      {"sites", "each site's load, PUE and water"},
  };
  return c;
}

}  // namespace infracalc
