#include "promsource/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <map>
#include <vector>

#include "core/redact.h"
#include "core/strings.h"

namespace gpucost::promsource {
namespace {

std::string Hex(const unsigned char* data, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kHex[data[i] >> 4]);
    out.push_back(kHex[data[i] & 15]);
  }
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = HexValue(s[i + 1]), lo = HexValue(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// RFC 3986 unreserved characters stay; every other byte becomes %XX (uppercase), '/' too unless
// `keep_slash`.
std::string AwsUriEncode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~';
    if (unreserved || (keep_slash && c == '/')) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

// The path with "." and ".." segments resolved, each segment encoded once.
std::string CanonicalPath(std::string_view raw_path) {
  const std::string path = PercentDecode(raw_path);
  std::vector<std::string_view> segments;
  for (const std::string_view seg : Split(path, '/')) {
    if (seg == "." || seg.empty()) continue;
    if (seg == "..") {
      if (!segments.empty()) segments.pop_back();
      continue;
    }
    segments.push_back(seg);
  }
  std::string out = "/";
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) out.push_back('/');
    out += AwsUriEncode(segments[i], false);
  }
  if (segments.size() > 0 && path.size() > 1 && path.back() == '/') out.push_back('/');
  return out;
}

// name=value pairs, decoded then encoded the AWS way, sorted by name then value.
std::string CanonicalQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> params;
  for (const std::string_view part : Split(query, '&')) {
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    const std::string_view k = part.substr(0, eq);
    const std::string_view v = eq == std::string_view::npos ? "" : part.substr(eq + 1);
    params.emplace_back(AwsUriEncode(PercentDecode(k), false), AwsUriEncode(PercentDecode(v), false));
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [k, v] : params) {
    if (!out.empty()) out.push_back('&');
    out += StrCat(k, "=", v);
  }
  return out;
}

// Trimmed, with runs of spaces collapsed to one.
std::string CanonicalHeaderValue(std::string_view v) {
  std::string out;
  bool space = false;
  for (const char c : Trim(v)) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

struct UrlParts {
  std::string scheme, host, path, query;
};

Result<UrlParts> SplitUrl(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return Status::InvalidArgument(StrCat("cannot sign \"", RedactUri(url), "\": not a URL"));
  }
  UrlParts p;
  p.scheme = ToLower(url.substr(0, scheme_end));
  std::string_view rest = url.substr(scheme_end + 3);
  if (const size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  const size_t path_start = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, path_start);
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority = authority.substr(at + 1);
  }
  // curl leaves the port out of Host when it is the scheme's default.
  std::string host = ToLower(authority);
  if ((p.scheme == "https" && host.ends_with(":443")) ||
      (p.scheme == "http" && host.ends_with(":80"))) {
    host.resize(host.rfind(':'));
  }
  p.host = host;
  const std::string_view target =
      path_start == std::string_view::npos ? std::string_view() : rest.substr(path_start);
  const size_t q = target.find('?');
  p.path = std::string(target.substr(0, q));
  if (p.path.empty()) p.path.push_back('/');  // (assigning "/" trips GCC 12 -Wrestrict)
  if (q != std::string_view::npos) p.query = std::string(target.substr(q + 1));
  return p;
}

std::string AmzDate(Instant now) {
  // FormatRfc3339 gives "2015-08-30T12:36:00Z" (or with milliseconds); keep the digits.
  const std::string rfc = FormatRfc3339(std::chrono::floor<std::chrono::seconds>(now));
  std::string out;
  for (const char c : rfc.substr(0, 19)) {
    if (c != '-' && c != ':') out.push_back(c);
  }
  return out + "Z";
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out);
  return Hex(out, sizeof out);
}

Result<SigV4Signature> SignSigV4(HttpRequest& request, const AwsCredentials& credentials,
                                 const SigV4Params& params, Instant now) {
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    return Status::InvalidArgument("SigV4: no AWS access key id and secret access key");
  }
  if (params.region.empty()) return Status::InvalidArgument("SigV4: no AWS region");
  if (params.service.empty()) return Status::InvalidArgument("SigV4: no AWS service name");
  GPUCOST_ASSIGN_OR_RETURN(UrlParts url, SplitUrl(request.url));
  const std::string amz_date = AmzDate(now);
  const std::string date = amz_date.substr(0, 8);
  const std::string payload_hash = Sha256Hex(request.body);

  // Replace earlier signing headers (a retried request is signed again).
  std::erase_if(request.headers, [](const auto& h) {
    const std::string k = ToLower(h.first);
    return k == "authorization" || k == "x-amz-date" || k == "x-amz-security-token" ||
           k == "x-amz-content-sha256";
  });
  request.headers.emplace_back("X-Amz-Date", amz_date);
  if (!credentials.session_token.empty()) {
    request.headers.emplace_back("X-Amz-Security-Token", credentials.session_token);
  }
  if (params.content_sha256_header) {
    request.headers.emplace_back("X-Amz-Content-Sha256", payload_hash);
  }

  std::map<std::string, std::string> headers;  // sorted by lowercase name
  headers["host"] = url.host;
  for (const auto& [k, v] : request.headers) {
    const std::string name = ToLower(Trim(k));
    if (name == "user-agent" || name == "authorization") continue;
    std::string value = CanonicalHeaderValue(v);
    auto [it, inserted] = headers.try_emplace(name, value);
    if (!inserted) {
      if (name == "host") {
        it->second = value;
      } else {
        it->second += "," + value;
      }
    }
  }
  std::string canonical_headers, signed_headers;
  for (const auto& [k, v] : headers) {
    canonical_headers += StrCat(k, ":", v, "\n");
    if (!signed_headers.empty()) signed_headers.push_back(';');
    signed_headers += k;
  }

  SigV4Signature sig;
  sig.canonical_request =
      StrCat(request.method, "\n", CanonicalPath(url.path), "\n", CanonicalQuery(url.query), "\n",
             canonical_headers, "\n", signed_headers, "\n", payload_hash);
  const std::string scope = StrCat(date, "/", params.region, "/", params.service, "/aws4_request");
  sig.string_to_sign = StrCat("AWS4-HMAC-SHA256\n", amz_date, "\n", scope, "\n",
                              Sha256Hex(sig.canonical_request));
  std::string key = HmacSha256(StrCat("AWS4", credentials.secret_access_key), date);
  key = HmacSha256(key, params.region);
  key = HmacSha256(key, params.service);
  key = HmacSha256(key, "aws4_request");
  const std::string mac = HmacSha256(key, sig.string_to_sign);
  sig.signature = Hex(reinterpret_cast<const unsigned char*>(mac.data()), mac.size());
  sig.authorization = StrCat("AWS4-HMAC-SHA256 Credential=", credentials.access_key_id, "/", scope,
                             ", SignedHeaders=", signed_headers, ", Signature=", sig.signature);
  request.headers.emplace_back("Authorization", sig.authorization);
  return sig;
}

}  // namespace gpucost::promsource
