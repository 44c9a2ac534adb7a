// Result<T>: a T or the Status explaining why there is none. Value semantics, thread-compatible.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

#include "core/status.h"

namespace gpucost {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : data_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(data_).ok() && "Result built from an OK status");
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  const Status& status() const& {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(data_);
  }
  Status status() && { return ok() ? Status() : std::move(std::get<Status>(data_)); }

  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace gpucost

// Evaluates `rexpr` (a Result); on error returns its Status, else moves the value into `lhs`.
#define GPUCOST_ASSIGN_OR_RETURN(lhs, rexpr) \
  GPUCOST_ASSIGN_OR_RETURN_IMPL(GPUCOST_CONCAT(gpucost_result_, __LINE__), lhs, rexpr)
#define GPUCOST_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                  \
  if (!tmp.ok()) return std::move(tmp).status();       \
  lhs = std::move(tmp).value()
