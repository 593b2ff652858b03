// The two meeting points of the compile-time and run-time layers: as<Q>() and to_quantity().
#pragma once

#include <string_view>

#include "units/dim.hpp"
#include "units/parse.hpp"
#include "units/quantity.hpp"
#include "units/system.hpp"

namespace infracalc {

namespace detail {

template <class Tag>
constexpr int base_index() {
  namespace bu = boost::units;
  if constexpr (std::is_same_v<Tag, bu::length_base_dimension>) return 0;
  else if constexpr (std::is_same_v<Tag, bu::mass_base_dimension>) return 1;
  else if constexpr (std::is_same_v<Tag, bu::time_base_dimension>) return 2;
  else if constexpr (std::is_same_v<Tag, bu::temperature_base_dimension>) return 3;
  else if constexpr (std::is_same_v<Tag, bu::current_base_dimension>) return 4;
  else if constexpr (std::is_same_v<Tag, bu::information_base_dimension>) return 5;
  else if constexpr (std::is_same_v<Tag, u::currency_base_dimension>) return 6;
  else if constexpr (std::is_same_v<Tag, u::token_base_dimension>) return 7;
  else if constexpr (std::is_same_v<Tag, u::flop_base_dimension>) return 8;
  else static_assert(sizeof(Tag) == 0, "base dimension outside the infracalc system");
}

template <class List>
struct DimOf;
template <>
struct DimOf<boost::units::dimensionless_type> {
  static constexpr Dim get() { return {}; }
};
template <class Item, class Next>
struct DimOf<boost::units::list<Item, Next>> {
  static constexpr Dim get() {
    Dim d = DimOf<Next>::get();
    static_assert(Item::value_type::Denominator == 1, "fractional exponents are not used");
    d.e[base_index<typename Item::tag_type>()] = static_cast<std::int8_t>(Item::value_type::Numerator);
    return d;
  }
};

template <class Q>
struct QuantityTraits;
template <class D, class Y>
struct QuantityTraits<boost::units::quantity<boost::units::unit<D, u::System>, Y>> {
  static constexpr Dim dim = DimOf<D>::get();
  static constexpr bool point = false;
};
template <>
struct QuantityTraits<TemperaturePoint> {
  static constexpr Dim dim = dims::temperature;
  static constexpr bool point = true;
};

}  // namespace detail

/// The run-time dimension of a named quantity type, e.g. dim_of<BytesPerSecond>() == dims::data_rate.
template <class Q>
constexpr Dim dim_of() {
  return detail::QuantityTraits<Q>::dim;
}

/// The run-time expectation for a named quantity type (dimension, and whether it is a temperature point).
template <class Q>
constexpr Expectation expectation_of() {
  return {detail::QuantityTraits<Q>::dim, detail::QuantityTraits<Q>::point};
}

/// Converts a run-time Quantity to the named type Q; throws UserError naming `input_name` when the
/// dimension differs.
template <class Q>
Q as(const Quantity& q, std::string_view input_name) {
  constexpr Expectation want = expectation_of<Q>();
  if (q.dim != want.dim || q.point != want.point) throw UserError{dimension_error(input_name, want, "", q)};
  if constexpr (std::is_same_v<Q, TemperaturePoint>) {
    return TemperaturePoint::from_value(q.value);
  } else {
    return Q::from_value(q.value);
  }
}

/// Converts a named quantity back to a run-time Quantity for output.
template <class Q>
Quantity to_quantity(const Q& q) {
  constexpr Expectation e = expectation_of<Q>();
  return Quantity{q.value(), e.dim, e.point};
}

}  // namespace infracalc
