// The error model of the pure layers (core, and the parsers of index and catalogue):
// functions that can fail return Expected<T>, a value or an Error that says what went wrong
// and where. Nothing in core throws; only main() turns errors into exit codes.
#ifndef TORCHDEX_CORE_EXPECTED_H_
#define TORCHDEX_CORE_EXPECTED_H_

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace torchdex::core {

struct Error {
  std::string message;
};

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}     // NOLINT: implicit on purpose
  Expected(Error error) : state_(std::move(error)) {}  // NOLINT: implicit on purpose

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

/// The result of an operation that returns nothing but can fail.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit on purpose
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

inline Error MakeError(std::string message) { return Error{std::move(message)}; }

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_EXPECTED_H_
