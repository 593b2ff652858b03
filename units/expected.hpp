// Expected<T>: a value or a user-facing error, in the style of ccache's util functions.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace infracalc {

/// A user-facing problem: what went wrong, and a hint that says how to fix it.
struct Error {
  /// The message, naming the input and what was wrong with it.
  std::string message;
  /// A suggestion for the user; empty when there is nothing useful to add.
  std::string hint;

  /// Message and hint as one line, the form printed after "error: ".
  [[nodiscard]] std::string text() const {
    return hint.empty() ? message : message + "; hint: " + hint;
  }
};

/// Thrown for bad input anywhere below the command line; the CLI maps it to exit code 2.
struct UserError {
  /// The problem.
  Error error;
};

/// Either a T or an Error, returned by every parse function.
template <class T>
class Expected {
 public:
  /// Wraps a value.
  Expected(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  /// Wraps an error.
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  /// True when a value is held.
  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  /// True when a value is held.
  explicit operator bool() const { return ok(); }
  /// The value; only valid when ok().
  [[nodiscard]] const T& value() const& { return std::get<0>(v_); }
  /// The value, moved out; only valid when ok().
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(v_)); }
  /// The error; only valid when !ok().
  [[nodiscard]] const Error& error() const { return std::get<1>(v_); }
  /// Dereferences to the value.
  const T& operator*() const& { return value(); }
  /// Member access on the value.
  const T* operator->() const { return &std::get<0>(v_); }
  /// The value, or throws UserError with the held error.
  [[nodiscard]] const T& value_or_throw() const& {
    if (!ok()) throw UserError{error()};
    return value();
  }
  /// The value moved out, or throws UserError with the held error.
  [[nodiscard]] T value_or_throw() && {
    if (!ok()) throw UserError{error()};
    return std::get<0>(std::move(v_));
  }

 private:
  std::variant<T, Error> v_;
};

}  // namespace infracalc
