#include "plugins/power/conductor.hpp"

#include <array>
#include <cmath>
#include <string>
#include <utility>

namespace infracalc::pwr {

namespace {

// Annealed copper: the International Annealed Copper Standard, 1/58 Ω·mm²/m at 20 °C, α = 0.00393/K,
// 8.89 g/cm³ (IEC 60028). Aluminium: hard-drawn electrical-conductor grade, 61 % IACS = 0.028264
// Ω·mm²/m, α = 0.00403/K, 2.703 g/cm³ (IEC 60889).
const std::array kMaterials = {
    ConductorMaterial{"copper", from_base<OhmMeters>(1.0 / 58.0 * 1e-6), from_base<PerKelvin>(0.00393),
                      from_base<KilogramsPerCubicMeter>(8890.0), "IEC 60028 (International Annealed Copper Standard)"},
    ConductorMaterial{"aluminium", from_base<OhmMeters>(0.028264e-6), from_base<PerKelvin>(0.00403),
                      from_base<KilogramsPerCubicMeter>(2703.0), "IEC 60889 (hard-drawn aluminium for conductors, 61 % IACS)"},
};

}  // namespace

std::span<const ConductorMaterial> conductor_materials() { return kMaterials; }

const ConductorMaterial* find_conductor_material(std::string_view name) {
  if (name == "aluminum") name = "aluminium";
  for (const auto& m : kMaterials)
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string_view> conductor_material_names() { return {"copper", "aluminium", "aluminum"}; }

OhmMeters resistivity_at(const ConductorMaterial& m, TemperaturePoint t) {
  const Kelvin above_20c = from_base<Kelvin>(t.value() - 293.15);
  return m.resistivity_20c * (1.0 + m.alpha_20c * above_20c);
}

Expected<SquareMeters> awg_area(std::string_view gauge) {
  std::string g(gauge);
  if (g.rfind("AWG", 0) == 0) g = g.substr(3);
  while (!g.empty() && g.front() == ' ') g.erase(g.begin());
  int n = 0;
  if (g == "0" || g == "1/0") n = 0;
  else if (g == "00" || g == "2/0") n = -1;
  else if (g == "000" || g == "3/0") n = -2;
  else if (g == "0000" || g == "4/0") n = -3;
  else {
    if (g.empty() || g.find_first_not_of("0123456789") != std::string::npos)
      return Error{"--gauge: expected an AWG size such as 12, 2, 1/0 or 4/0, got \"" + std::string(gauge) + "\"",
                   "for metric cable give --cross-section, e.g. 95mm2"};
    n = std::stoi(g);
    if (n > 40) return Error{"--gauge: AWG " + g + " is thinner than the table (40 is the thinnest)", "give --cross-section"};
  }
  const double d = 0.127e-3 * std::pow(92.0, (36.0 - n) / 39.0);
  return from_base<SquareMeters>(M_PI / 4.0 * d * d);
}

Ohms conductor_resistance(OhmMeters resistivity, Meters length, SquareMeters area) { return resistivity * length / area; }

SquareMeters area_for_loss(Amperes current, OhmMeters resistivity, Meters length, Number conductors_loaded,
                           Number distribution_factor, Watts max_loss) {
  return conductors_loaded * distribution_factor * current * current * resistivity * length / max_loss;
}

Number distributed_loss_factor(int taps) {
  const double n = taps;
  return Number::from_value((n + 1.0) * (2.0 * n + 1.0) / (6.0 * n * n));
}

Number distributed_drop_factor(int taps) {
  const double n = taps;
  return Number::from_value((n + 1.0) / (2.0 * n));
}

Amperes building_wire_ampacity(const ConductorMaterial& m, SquareMeters area) {
  // NEC 2020 Table 310.16, copper, 90 °C: (area in mm², amperes) for 14, 12, 10, 8, 6, 4, 2 AWG, 1/0, 2/0, 3/0,
  // 4/0, 250, 350, 500, 750 and 1000 kcmil.
  static constexpr std::array<std::pair<double, double>, 16> kTable{{{2.08, 25},
                                                                     {3.31, 30},
                                                                     {5.26, 40},
                                                                     {8.37, 55},
                                                                     {13.3, 75},
                                                                     {21.2, 95},
                                                                     {33.6, 130},
                                                                     {53.5, 170},
                                                                     {67.4, 195},
                                                                     {85.0, 225},
                                                                     {107.2, 260},
                                                                     {126.7, 290},
                                                                     {177.3, 350},
                                                                     {253.4, 430},
                                                                     {380.0, 535},
                                                                     {506.7, 615}}};
  const double mm2 = area.value() * 1e6;
  double amps = 0;
  if (mm2 <= kTable.front().first) {
    amps = kTable.front().second / kTable.front().first * mm2;
  } else if (mm2 >= kTable.back().first) {
    amps = kTable.back().second / kTable.back().first * mm2;
  } else {
    for (std::size_t i = 1; i < kTable.size(); ++i) {
      if (mm2 > kTable[i].first) continue;
      const auto [a0, i0] = kTable[i - 1];
      const auto [a1, i1] = kTable[i];
      amps = i0 * std::pow(i1 / i0, std::log(mm2 / a0) / std::log(a1 / a0));
      break;
    }
  }
  if (m.name != "copper") amps *= 0.78;
  return from_base<Amperes>(amps);
}

}  // namespace infracalc::pwr
