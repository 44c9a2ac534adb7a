#include "serve/api_errors.h"

#include "core/redact.h"
#include "ledger/ledger_types.h"

namespace gpucost::serve {

ApiError ApiErrorOf(const Status& s, std::string_view ledger) {
  if (ledger::IsEmptyLedger(s)) {
    // Not a failure: a new ledger before serve's first cycle has written anything.
    return {503,
            "the ledger holds no cost records yet: nothing has been attributed so far "
            "(/readyz says how far serve is)"};
  }
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kParseError: {
      std::string message(s.message());
      const std::string shown = RedactUri(ledger);
      for (std::string_view name : {ledger, std::string_view(shown)}) {
        if (name.empty()) continue;
        for (size_t at = message.find(name); at != std::string::npos; at = message.find(name, at)) {
          message.replace(at, name.size(), "the ledger");
        }
      }
      return {400, RedactUris(message)};
    }
    case StatusCode::kNotFound:
    case StatusCode::kIoError:
    case StatusCode::kUnavailable:
    case StatusCode::kFailedPrecondition:
      return {503, "the ledger is unavailable or damaged: see the server's log"};
    case StatusCode::kDataLoss:
      return {503, "the ledger is damaged: see the server's log"};
    default:
      return {500, "internal error: see the server's log"};
  }
}

}  // namespace gpucost::serve
