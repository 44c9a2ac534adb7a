#include "serve/api_errors.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>

#include "core/redact.h"
#include "core/strings.h"
#include "ledger/ledger_types.h"
#include "report/report_query.h"

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

namespace {

// The token of an "Authorization: Bearer TOKEN" header; empty for another scheme or none.
std::string_view BearerToken(std::string_view header) {
  header = Trim(header);
  constexpr std::string_view kScheme = "bearer";
  if (header.size() <= kScheme.size() ||
      (header[kScheme.size()] != ' ' && header[kScheme.size()] != '\t'))
    return {};
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(header[i])) != kScheme[i]) return {};
  }
  return Trim(header.substr(kScheme.size() + 1));
}

}  // namespace

std::string ParamProblem(const httplib::Request& req, std::span<const std::string_view> known) {
  for (auto it = req.params.begin(); it != req.params.end();
       it = req.params.upper_bound(it->first)) {
    if (req.params.count(it->first) > 1) return StrCat(it->first, " is given more than once");
  }
  for (const auto& [name, value] : req.params) {
    if (known.empty() || std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string names;
    for (std::string_view n : known) names += StrCat(names.empty() ? "" : ", ", n);
    return StrCat("unknown parameter ", name, ": this path takes ", names);
  }
  return "";
}

bool TokenIs(std::string_view authorization, std::string_view token) {
  const std::string_view given = BearerToken(authorization);
  if (token.empty()) return false;
  unsigned char differ = given.size() == token.size() ? 0 : 1;
  for (size_t i = 0; i < given.size(); ++i) {
    differ |= static_cast<unsigned char>(given[i] ^ token[i % token.size()]);
  }
  return differ == 0;
}

void AnswerServerErrors(httplib::Server& server) {
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    // Every endpoint is GET (and HEAD): another method is 405 wherever it is sent.
    if (res.status == 404 && req.method != "GET" && req.method != "HEAD") {
      res.status = 405;
      res.set_header("Allow", "GET, HEAD");
    }
    const std::string why =
        res.status == 405   ? StrCat(req.method, " is not answered here: every endpoint is GET")
        : res.status == 404 ? StrCat("no ", req.method, " ", req.path,
                                     " here: the API is GET /api/v1/report, /api/v1/ledger, "
                                     "/api/v1/fleet, /api/v1/alerts, /api/v1/recommendations, "
                                     "OpenCost's /allocation, /allocation/compute and "
                                     "/allocation/autocomplete (also under /model/), /metrics, "
                                     "/healthz and /readyz, and the web UI at / (docs/serve.md)")
        : res.status == 414 ? std::string("the request's URI is too long")
                            : StrCat("HTTP ", res.status);
    res.set_content(JsonErrorBody(why), "application/json");
  });
}

}  // namespace gpucost::serve
