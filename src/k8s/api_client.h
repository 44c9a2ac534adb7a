// ApiClient: HTTP GETs against the Kubernetes API server over libcurl, with the connection's TLS
// settings (cluster CA, client certificates from the connection or an exec plugin, server name)
// and credentials (bearer token, basic auth). A 401 invalidates the credentials (a rotated token
// file is re-read, an exec plugin re-run) and the request is tried once more. Get() buffers a
// response (lists, paged); Stream() hands a watch's lines to a callback as they arrive and can be
// stopped from another thread. Thread-safe: each call uses its own curl handle.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/time.h"
#include "k8s/credentials.h"
#include "k8s/kube_config.h"

namespace gpucost::k8s {

struct ClientOptions {
  Duration connect_timeout = std::chrono::seconds(10);
  Duration request_timeout = std::chrono::seconds(60);  // Get(): the whole response
  size_t max_response_bytes = size_t{256} << 20;        // a larger list page fails
  std::string user_agent = "gpucost";
};

struct ApiResponse {
  long status = 0;   // HTTP status; 0 when no response came (see `error`)
  std::string body;  // Get(): the body; Stream(): the body of a non-200 answer
  std::string retry_after;  // the Retry-After header, when sent
  std::string error;        // transport failure (connect, TLS, timeout), without secrets
  bool timed_out = false;
  // A transport failure worth trying again (refused, reset, timed out); false for TLS
  // verification and certificate failures, which another try cannot mend.
  bool retryable = true;
};

class ApiClient {
 public:
  ApiClient(KubeConnection connection, CredentialSource& credentials, ClientOptions options = {});

  // GET server + `path_and_query`. A transport failure is a response with status 0; a failure to
  // get credentials is an error Status.
  Result<ApiResponse> Get(std::string_view path_and_query) const;

  // GET, calling `on_line` for each complete line of a 200 response as it arrives, until the
  // server ends the response, `timeout` passes, `on_line` returns false or `*stop` turns true.
  using LineHandler = std::function<bool(std::string_view line)>;
  Result<ApiResponse> Stream(std::string_view path_and_query, Duration timeout,
                             const LineHandler& on_line, const std::atomic<bool>* stop) const;

  const KubeConnection& connection() const { return connection_; }

 private:
  Result<ApiResponse> Perform(std::string_view path_and_query, Duration timeout,
                              const LineHandler* on_line, const std::atomic<bool>* stop) const;
  Result<ApiResponse> PerformOnce(std::string_view path_and_query, Duration timeout,
                                  const LineHandler* on_line, const std::atomic<bool>* stop,
                                  const Credentials& creds) const;

  KubeConnection connection_;
  CredentialSource& credentials_;
  ClientOptions options_;
};

// The message of a Kubernetes Status body ({"kind":"Status","message":...,"reason":...}), or the
// body's start when it is not one.
std::string StatusMessage(std::string_view body);

}  // namespace gpucost::k8s
