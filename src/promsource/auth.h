// Authentication for Prometheus-compatible stores, as a request decorator for
// PrometheusClientOptions::prepare_request: a bearer token (from a file re-read on every request,
// so rotated tokens are picked up, or from an environment variable), basic auth (user plus a
// password file, also re-read), or AWS SigV4 (Amazon Managed Service for Prometheus; credentials
// re-resolved and the request re-signed on every attempt). At most one scheme. TLS client
// certificates are transport options (HttpOptions), not a decorator. Thread-compatible.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/result.h"
#include "core/time.h"
#include "promsource/aws_credentials.h"
#include "promsource/http_transport.h"

namespace gpucost::promsource {

struct AuthOptions {
  std::string bearer_token_file;
  std::string bearer_token_env;  // the variable's name
  std::string basic_user;
  std::string basic_password_file;
  bool sigv4 = false;
  std::string sigv4_region;  // empty: AWS_REGION, AWS_DEFAULT_REGION or the profile's region
  std::string sigv4_service = "aps";
  std::string aws_profile;  // empty: AWS_PROFILE or "default" (after the environment's keys)
};

using RequestDecorator = std::function<Status(HttpRequest&)>;

// The decorator for `options`; an empty function when no scheme is configured. Fails at once on
// contradictory or incomplete settings (two schemes, a user without a password file, a missing
// environment variable, no region).
Result<RequestDecorator> MakeAuthDecorator(const AuthOptions& options,
                                           std::shared_ptr<const Clock> clock, EnvLookup env);

// "Basic <base64(user:password)>".
std::string BasicAuthorization(std::string_view user, std::string_view password);

}  // namespace gpucost::promsource
