// Status: the outcome of a fallible operation, as a value. OK carries nothing; an error carries a
// code and a message that names where the problem is (file, line, series, field). Cheap to move,
// thread-compatible (no shared state).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace gpucost {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad flag, setting or API parameter
  kParseError,       // malformed input data
  kNotFound,
  kIoError,
  kUnavailable,  // a peer that may come back (retryable)
  kFailedPrecondition,
  kUnimplemented,
  kInternal,
  kDataLoss,  // stored data found damaged (a ledger that fails its checks)
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status ParseError(std::string m) { return {StatusCode::kParseError, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
  static Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  std::string_view message() const { return rep_ ? std::string_view(rep_->message) : ""; }
  // "parse error: metrics.txt:12: ..." ; "ok" when ok.
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(std::string_view context) const;

  Status(const Status& other) : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  std::unique_ptr<Rep> rep_;  // null means OK, so success costs one pointer
};

}  // namespace gpucost

#define GPUCOST_CONCAT_INNER(a, b) a##b
#define GPUCOST_CONCAT(a, b) GPUCOST_CONCAT_INNER(a, b)

// Returns the Status of `expr` from the enclosing function if it is an error.
#define GPUCOST_RETURN_IF_ERROR(expr)            \
  do {                                           \
    ::gpucost::Status gpucost_status_ = (expr);  \
    if (!gpucost_status_.ok()) return gpucost_status_; \
  } while (false)
