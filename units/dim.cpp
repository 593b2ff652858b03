#include "units/dim.hpp"

#include <cstring>

#include <array>
#include <string_view>

#include "units/dim_check.hpp"

namespace infracalc {

namespace {

struct NamedDim {
  Dim dim;
  std::string_view words;
  std::string_view example;
};

constexpr std::array kNamed = {
    NamedDim{dims::none, "a plain number", "0.5"},
    NamedDim{dims::length, "a length", "2 m"},
    NamedDim{dims::area, "an area", "814 mm2"},
    NamedDim{dims::volume, "a volume", "20 L"},
    NamedDim{dims::mass, "a mass", "12 kg"},
    NamedDim{dims::time, "a time", "10 ms"},
    NamedDim{dims::temperature, "a temperature difference", "10 K"},
    NamedDim{dims::current, "a current", "100 A"},
    NamedDim{dims::information, "an amount of data", "80 GB"},
    NamedDim{dims::currency, "an amount of money", "$40000"},
    NamedDim{dims::token, "a token count", "8000 tok"},
    NamedDim{dims::flop, "an amount of computation", "6e24 FLOP"},
    NamedDim{dims::frequency, "a frequency or rate per time", "2 GHz"},
    NamedDim{dims::energy, "an energy", "10 kWh"},
    NamedDim{dims::power, "a power", "700 W"},
    NamedDim{dims::voltage, "a voltage", "48 V"},
    NamedDim{dims::resistance, "a resistance", "1 mohm"},
    NamedDim{dims::pressure, "a pressure", "100 kPa"},
    NamedDim{dims::data_rate, "a data rate", "3.35 TB/s"},
    NamedDim{dims::flop_rate, "a compute rate", "989 TFLOP/s"},
    NamedDim{dims::token_rate, "a token rate", "2500 tok/s"},
    NamedDim{dims::money_rate, "a price per time", "$2.50/h"},
    NamedDim{dims::money_per_token, "a price per token", "$0.50/Mtok"},
    NamedDim{dims::money_per_energy, "an energy tariff", "$0.08/kWh"},
    NamedDim{dims::volume_flow, "a volume flow", "60 L/min"},
    NamedDim{dims::mass_flow, "a mass flow", "1 kg/s"},
    NamedDim{dims::density, "a density", "997 kg/m3"},
    NamedDim{dims::specific_heat, "a specific heat", "4186 J/kg/K"},
    NamedDim{dims::heat_flux, "a heat flux", "86 W/cm2"},
    NamedDim{dims::intensity, "an arithmetic intensity", "295 FLOP/B"},
    NamedDim{dims::bytes_per_token, "data per token", "320 KiB/tok"},
    NamedDim{dims::energy_per_token, "energy per token", "0.3 J/tok"},
    NamedDim{dims::energy_per_bit, "energy per bit", "5 pJ/bit"},
    NamedDim{dims::carbon_intensity, "a carbon intensity", "400 g/kWh"},
    NamedDim{dims::water_intensity, "a water-use intensity", "1.8 L/kWh"},
    NamedDim{dims::currency / dims::flop, "a price per computation", "$1/PFLOP"},
    NamedDim{dims::power / dims::temperature, "a thermal conductance", "100 W/K"},
    NamedDim{dims::temperature / dims::power, "a thermal resistance", "0.1 K/W"},
    NamedDim{dims::money_per_power, "a price per power (build cost per MW)", "$10M/MW"},
    NamedDim{dims::money_per_token_time, "a storage price per token and time", "$4.50/(Mtok*h)"},
    NamedDim{dims::energy_per_bit_length, "wire energy per bit and distance", "1 pJ/bit/mm"},
    NamedDim{dims::length_per_temperature, "a length change per kelvin", "0.1 nm/K"},
    NamedDim{dims::velocity, "a speed", "2 m/s"},
    NamedDim{dims::dynamic_viscosity, "a dynamic viscosity", "1 mPa*s"},
    NamedDim{dims::resistivity, "a resistivity", "17.24 nohm*m"},
    NamedDim{dims::per_temperature, "a temperature coefficient", "0.00393 1/K"},
    NamedDim{dims::power_ramp, "a power ramp rate", "10 MW/s"},
    NamedDim{dims::thermal_conductivity, "a thermal conductivity", "0.6 W/(m*K)"},
    NamedDim{dims::specific_energy, "a specific energy (e.g. a latent heat)", "170 kJ/kg"},
    NamedDim{dims::flop_per_token, "computation per token", "420 GFLOP/tok"},
};

constexpr std::array<std::string_view, kBaseCount> kBaseWords = {"length", "mass", "time", "temperature", "current",
                                                                 "information", "money", "tokens", "computation"};
constexpr std::array<std::string_view, kBaseCount> kBaseSymbols = {"m", "kg", "s", "K", "A", "B", "USD", "tok", "FLOP"};

// Renders exponents as "a*b^2/c" using the given per-base names.
std::string render(const Dim& d, const std::array<std::string_view, kBaseCount>& names, std::string_view times) {
  std::string num, den;
  for (std::size_t i = 0; i < kBaseCount; ++i) {
    const int x = d.e[i];
    if (x == 0) continue;
    std::string& target = x > 0 ? num : den;
    if (!target.empty()) target += times;
    target += names[i];
    const int ax = x < 0 ? -x : x;
    if (ax != 1) target += "^" + std::to_string(ax);
  }
  if (num.empty() && den.empty()) return "1";
  if (num.empty()) num = "1";
  if (den.empty()) return num;
  // "W/(m*K)", not "W/m*K", which would read as (W/m)*K.
  return den.find(times) == std::string::npos ? num + "/" + den : num + "/(" + den + ")";
}

struct Derived {
  std::string_view symbol;
  Dim dim;
};
constexpr std::array kDerived = {Derived{"W", dims::power}, Derived{"J", dims::energy}, Derived{"Pa", dims::pressure},
                                 Derived{"V", dims::voltage}, Derived{"ohm", dims::resistance}};

}  // namespace

std::string dim_words(const Dim& d) {
  for (const auto& n : kNamed)
    if (n.dim == d) return std::string(n.words);
  return "a quantity of " + dim_formula(d);
}

std::string dim_formula(const Dim& d) {
  if (d.dimensionless()) return "no dimension";
  return render(d, kBaseWords, "*");
}

Error dim_range_error(const Dim& a, int na, const Dim& b, int nb, std::string_view what) {
  std::string exps;
  for (std::size_t i = 0; i < kBaseCount; ++i) {
    const int x = a.e[i] * na + b.e[i] * nb;
    if (x >= -kMaxExponent && x <= kMaxExponent) continue;
    exps += (exps.empty() ? "" : ", ") + std::string(kBaseWords[i]) + "^" + std::to_string(x);
  }
  const std::string range = std::to_string(kMaxExponent);
  return {"dimension exponent out of range in " + std::string(what) + ": " + exps,
          "the exponents of a unit must lie within -" + range + " to " + range +
              "; no real unit comes close, so check the expression"};
}

std::string dim_example(const Dim& d) {
  for (const auto& n : kNamed)
    if (n.dim == d) return std::string(n.example);
  return {};
}

namespace {
std::string compute_base_unit_string(const Dim& d);
}  // namespace

std::string base_unit_string(const Dim& d) {
  // A handful of dimensions recur in every result; remember their strings (machine output is a hot path). The
  // nine exponents are compared as two integers: the defaulted == of the array is a call to memcmp per entry.
  static_assert(kBaseCount == 9);
  auto key = [](const Dim& x) {
    std::uint64_t lo = 0;
    std::memcpy(&lo, x.e.data(), 8);
    return std::pair<std::uint64_t, std::int8_t>{lo, x.e[8]};
  };
  thread_local std::array<std::pair<std::uint64_t, std::int8_t>, 32> keys{};
  thread_local std::array<std::string, 32> strings{};
  thread_local std::size_t used = 0;
  const auto k = key(d);
  for (std::size_t i = 0; i < used; ++i)
    if (keys[i] == k) return strings[i];
  std::string s = compute_base_unit_string(d);
  if (used < keys.size()) {
    keys[used] = k;
    strings[used++] = s;
  }
  return s;
}

namespace {
std::string compute_base_unit_string(const Dim& d) {
  if (d.dimensionless()) return "1";
  // Prefer one named SI derived unit times a simple residual (J/tok, W/m^2) over raw base units.
  std::string best = render(d, kBaseSymbols, "*");
  int best_cost = d.complexity();
  for (const auto& der : kDerived) {
    for (int sign : {1, -1}) {
      const Dim residual = sign > 0 ? d / der.dim : d * der.dim;
      const int cost = residual.complexity() + 1;
      if (cost >= best_cost) continue;
      best_cost = cost;
      if (residual.dimensionless()) {
        best = sign > 0 ? std::string(der.symbol) : "1/" + std::string(der.symbol);
      } else {
        const std::string r = render(residual, kBaseSymbols, "*");
        if (sign > 0) {
          // residual may be "x/y" or "1/y".
          best = r.rfind("1/", 0) == 0 ? std::string(der.symbol) + r.substr(1) : std::string(der.symbol) + "*" + r;
        } else {
          best = r.find('/') == std::string::npos ? r + "/" + std::string(der.symbol) : r + "/" + std::string(der.symbol);
        }
      }
    }
  }
  return best;
}
}  // namespace

}  // namespace infracalc
