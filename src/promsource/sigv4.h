// AWS Signature Version 4 for HTTP requests (Amazon Managed Service for Prometheus signs with
// service "aps"): the canonical request, the string to sign, the signing key derived from the
// secret, and the Authorization header, computed with OpenSSL's SHA-256 and HMAC. Signing adds
// X-Amz-Date (and X-Amz-Security-Token for temporary credentials) and signs the Host (from the
// URL) plus every header the request carries except Authorization and User-Agent. Pure
// functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "core/time.h"
#include "promsource/http_transport.h"

namespace gpucost::promsource {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // temporary credentials only
};

struct SigV4Params {
  std::string region;           // e.g. "us-east-1"
  std::string service = "aps";  // Amazon Managed Service for Prometheus
  // Also sign an X-Amz-Content-Sha256 header holding the payload hash (S3 requires it; aps
  // does not, and Prometheus' own SigV4 client does not send it).
  bool content_sha256_header = false;
};

// The intermediate values, for tests and for error messages.
struct SigV4Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;      // lowercase hex
  std::string authorization;  // the Authorization header's value
};

// Adds the signing headers and the Authorization header to `request`, signed at `now`.
Result<SigV4Signature> SignSigV4(HttpRequest& request, const AwsCredentials& credentials,
                                 const SigV4Params& params, Instant now);

// Lowercase hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

}  // namespace gpucost::promsource
