// HTTP for the Prometheus source: a request/response pair and a transport seam. The libcurl
// transport is the real one; tests substitute their own. Authentication (bearer tokens, basic
// auth, AWS SigV4) is added by decorating HttpRequest before it is sent (auth.h), which is why
// the request carries its method, headers and body explicitly. A request that names its own
// Accept-Encoding (remote read asks for snappy) gets its body as sent; otherwise gzip/deflate are
// accepted and decoded. Not thread-safe (one transport per thread).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "core/time.h"

namespace gpucost::promsource {

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Bytes the response body is expected to hold (a scrape's last size), reserved up front so
  // that a body of megabytes is not copied again and again as it grows. 0: no guess.
  size_t response_bytes_hint = 0;
};

struct HttpResponse {
  long status = 0;  // HTTP status code
  std::string body;
  std::string content_type;      // as sent, e.g. "application/x-protobuf"
  std::string content_encoding;  // left undecoded when the request named its Accept-Encoding
};

// The value of header `name` (case-insensitive) in `request`, or nullptr.
const std::string* FindHeader(const HttpRequest& request, std::string_view name);

struct HttpOptions {
  Duration connect_timeout = std::chrono::seconds(10);
  Duration request_timeout = std::chrono::minutes(2);  // the whole request, body included
  bool verify_tls = true;                              // peer certificate and host name
  std::string ca_file;                                 // PEM bundle; empty: the system's
  std::string cert_file;                               // PEM client certificate (mutual TLS)
  std::string key_file;                                // its PEM private key
  size_t max_response_bytes = size_t{1} << 30;         // a larger body fails (lower the chunk)
  std::string user_agent = "gpucost";
};

// Why a request got no HTTP response.
enum class TransportFailure { kNone, kTimeout, kConnect, kOther };

struct TransportResult {
  std::optional<HttpResponse> response;  // set when the server answered (any status)
  TransportFailure failure = TransportFailure::kNone;
  std::string error;  // when there is no response
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual TransportResult Send(const HttpRequest& request) = 0;
};

std::unique_ptr<HttpTransport> MakeCurlTransport(HttpOptions options = {});

}  // namespace gpucost::promsource
