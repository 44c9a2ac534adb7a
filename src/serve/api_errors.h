// What serve's HTTP APIs answer for a failed request (docs/serve.md, "Operating"): always a
// JSON body (JsonErrorBody, report/report_query.h), the status saying whose fault it is, and
// nothing of where the ledger lives.
//
//   400  a bad parameter, or a window the ledger cannot answer as asked (the message says why)
//   401  no token, or not serve's (--token-file)
//   404  no such path; 405 a method other than GET or HEAD; 413 a request with a body
//   503  the ledger (or the source behind it) is unavailable or damaged, or the server is busy
//        with as many API answers as it computes at once: try again, read the log
//   500  a bug
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/status.h"

namespace httplib {
class Server;
struct Request;
}

namespace gpucost::serve {

struct ApiError {
  int status = 500;
  std::string message;  // for the client: no file path, host or password
};

// `ledger` is the ledger's target as given (a URI with its password, perhaps): where a message
// names it, as given or masked, the client reads "the ledger".
ApiError ApiErrorOf(const Status& s, std::string_view ledger);

// Makes an answer the HTTP server gives on its own (no such path or method, a URI too long) a
// JSON error that says why, as every other error is: never an empty body.
void AnswerServerErrors(httplib::Server& server);

// What is wrong with the query's parameters, for a 400; "" when nothing is: one given more than
// once ("by=namespace&by=pod": which did the client mean?), or, where `known` is not empty, one
// not in it (a misspelt "clusters=east" would answer for the whole fleet).
std::string ParamProblem(const httplib::Request& req, std::span<const std::string_view> known);

// Whether an Authorization header is "Bearer TOKEN" (the scheme in any case, RFC 7235) with
// `token` serve's, compared in a time that does not depend on where they differ.
bool TokenIs(std::string_view authorization, std::string_view token);

}  // namespace gpucost::serve
