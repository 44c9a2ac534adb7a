// A client for the Prometheus HTTP API (Prometheus, Thanos, Mimir, VictoriaMetrics and other
// stores that speak it): instant queries and remote-read POSTs with retries. 5xx, 429, timeouts
// and refused connections are retried with exponential backoff; 4xx and `"status":"error"` bodies
// fail at once with the URL, the HTTP status and the body's errorType/error. Not thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "promsource/http_transport.h"

namespace gpucost::promsource {

struct RetryOptions {
  int max_attempts = 4;  // first try included
  Duration initial_backoff = std::chrono::milliseconds(500);
  Duration max_backoff = std::chrono::seconds(10);
};

struct PrometheusClientOptions {
  HttpOptions http;
  RetryOptions retry;
  // Extra request headers (e.g. X-Scope-OrgID for multi-tenant stores).
  std::vector<std::pair<std::string, std::string>> headers;
  // Called on every request just before it is sent (and again on each retry): the seam for
  // authentication and request signing. An error stops the request.
  std::function<Status(HttpRequest&)> prepare_request;
  // How backoff waits; tests replace it.
  std::function<void(Duration)> sleep;
};

class PrometheusClient {
 public:
  // `base_url` is the server root, e.g. "http://prometheus:9090" or "https://host/prometheus".
  // Without `transport`, libcurl is used with options.http.
  PrometheusClient(std::string base_url, PrometheusClientOptions options,
                   std::unique_ptr<HttpTransport> transport = nullptr);
  ~PrometheusClient();

  // GET /api/v1/query?query=<promql>&time=<time>; the body of a successful response.
  Result<std::string> Query(std::string_view promql, Instant time);

  // POST /api/v1/read with `compressed_request` (a snappy-compressed ReadRequest); the response
  // of a 2xx answer, whatever its content type. Fails with kUnimplemented when the server does
  // not offer remote read (HTTP 404, 405, 406, 415, 501), so callers can fall back to Query.
  Result<HttpResponse> RemoteRead(std::string_view compressed_request);

  // The server root as RedactUri shows it: what messages name (the raw URL only connects).
  const std::string& display_url() const { return display_url_; }
  uint64_t requests() const { return requests_; }

 private:
  // Sends `request` with retries; the first 2xx or non-retryable response. Fails when no
  // response came or the retries ran out.
  Result<HttpResponse> Execute(const HttpRequest& request);

  std::string base_url_;
  std::string display_url_;
  PrometheusClientOptions options_;
  std::unique_ptr<HttpTransport> transport_;
  uint64_t requests_ = 0;
};

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string UrlEncode(std::string_view s);

// Unix seconds with millisecond precision, as the API's `time` parameter: "1790812800.5".
std::string FormatApiTime(Instant t);

// "errorType: error" from a Prometheus error body, or "" when the body is not one.
std::string ApiErrorOf(std::string_view body);

}  // namespace gpucost::promsource
