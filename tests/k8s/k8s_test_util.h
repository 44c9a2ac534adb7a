// Small things the Kubernetes tests share: an instant from RFC 3339, a status' message, and a CA
// certificate in PEM and base64 (as kubeconfig's certificate-authority-data holds it).
#pragma once

#include <string>

#include "core/status.h"
#include "core/time.h"

namespace gpucost::k8s {

inline Instant At(const char* rfc3339) { return *ParseInstant(rfc3339); }

inline std::string Message(const Status& s) { return std::string(s.message()); }

inline constexpr char kCaPem[] =
    "-----BEGIN CERTIFICATE-----\nCA-DATA\n-----END CERTIFICATE-----\n";
inline constexpr char kCaB64[] =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBLURBVEEKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=";

}  // namespace gpucost::k8s
