// Error values for user and data errors (bad parameters, bad files). Programmer mistakes are
// asserts instead. Nothing in core throws across its API.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace pe {

// What went wrong, in words a person can act on. `kind` tells the CLI which exit code to use;
// kCancelled is work its owner stopped (base/progress.h), not a failure to show.
struct Error {
  enum class Kind { kInvalidArgument, kRuntime, kCancelled };
  Kind kind = Kind::kInvalidArgument;
  std::string message;
};

inline Error InvalidArgument(std::string message) {
  return {Error::Kind::kInvalidArgument, std::move(message)};
}
inline Error RuntimeError(std::string message) {
  return {Error::Kind::kRuntime, std::move(message)};
}

// Either nothing (ok) or an Error.
class Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit on purpose
  bool ok() const { return ok_; }
  const Error& error() const {
    assert(!ok_ && "error() called on an ok Status");
    return error_;
  }
  const std::string& message() const { return error().message; }

 private:
  Error error_;
  bool ok_ = true;
};

// Either a value or an Error.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}             // NOLINT: implicit on purpose
  Result(Error error) : v_(std::move(error)) {}         // NOLINT: implicit on purpose
  Result(const Status& status) : v_(status.error()) {}  // NOLINT: only for a failed Status
  bool ok() const { return v_.index() == 0; }
  T& value() & {
    assert(ok() && "value() called on a failed Result; check ok() first");
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok() && "value() called on a failed Result; check ok() first");
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok() && "value() called on a failed Result; check ok() first");
    return std::get<0>(std::move(v_));
  }
  const Error& error() const {
    assert(!ok() && "error() called on an ok Result");
    return std::get<1>(v_);
  }
  const std::string& message() const { return error().message; }
  Status status() const { return ok() ? Status() : Status(error()); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace pe
