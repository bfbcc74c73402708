// The error model of the pure layers (core, and the parsers of index and catalogue):
// functions that can fail return Expected<T>, a value or an Error that says what went wrong,
// where, and what kind of failure it is (its code). Nothing in core throws; only the command
// lines turn codes into exit statuses, through one table each (installer/cli/exit_codes.h).
#ifndef TORCHDEX_CORE_EXPECTED_H_
#define TORCHDEX_CORE_EXPECTED_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace torchdex::core {

/// What kind of failure an error is: the commands map each to a documented exit status.
enum class ErrorCode : std::uint8_t {
  kFailure,           // unexpected: the message says what
  kUsage,             // a bad command line: unknown option or backend, bad value or requirement
  kBadEnvironment,    // a malformed environment variable (TORCHDEX_CUDA_ARCH=...)
  kNotOffered,        // nothing offers what was asked (no backend, a named one lacks the version)
  kBadInputFile,      // a file given or found (override, config, requirements, catalogue) is bad
  kNetwork,           // an index could not be reached, or answered with an error or garbage
  kInstallerFailed,   // pip or uv could not be started or refused the environment
};

struct Error {
  std::string message;
  ErrorCode code = ErrorCode::kFailure;
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

inline Error MakeError(std::string message, ErrorCode code = ErrorCode::kFailure) {
  return Error{std::move(message), code};
}

}  // namespace torchdex::core

#endif  // TORCHDEX_CORE_EXPECTED_H_
