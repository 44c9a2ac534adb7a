#include "scrape/target.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <set>

#include "core/redact.h"
#include "core/strings.h"

namespace gpucost::scrape {
namespace {

struct UrlParts {
  std::string scheme;     // "http" or "https"
  std::string authority;  // host[:port], without credentials
  std::string path;       // "/..." (query included), "" when absent
};

bool IsJobChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.' || c == ':';
}

// Splits and checks an http(s) URL; the error says what is wrong without echoing credentials.
Result<UrlParts> SplitUrl(std::string_view url) {
  UrlParts parts;
  const size_t sep = url.find("://");
  if (sep == std::string_view::npos) return Status::InvalidArgument("not a URL (no scheme://)");
  parts.scheme = ToLower(url.substr(0, sep));
  if (parts.scheme != "http" && parts.scheme != "https") {
    return Status::InvalidArgument(StrCat("scheme \"", parts.scheme, "\" is not http or https"));
  }
  for (const char c : url) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      return Status::InvalidArgument("URL contains white space");
    }
  }
  std::string_view rest = url.substr(sep + 3);
  const size_t path_at = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, path_at);
  if (path_at != std::string_view::npos) parts.path = std::string(rest.substr(path_at));
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority = authority.substr(at + 1);
  }
  std::string_view host = authority;
  std::string_view port;
  if (authority.starts_with('[')) {  // [IPv6]:port
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return Status::InvalidArgument("unclosed '[' in host");
    host = authority.substr(0, close + 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return Status::InvalidArgument("unexpected text after ']'");
      port = after.substr(1);
      if (port.empty()) return Status::InvalidArgument("empty port");
    }
  } else if (const size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (port.empty()) return Status::InvalidArgument("empty port");
  }
  if (host.empty() || host == "[]") return Status::InvalidArgument("no host");
  if (!port.empty()) {
    int n = 0;
    const auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
    if (ec != std::errc() || p != port.data() + port.size() || n < 1 || n > 65535) {
      // Other than digits is not echoed: it may be a password cut short by an unescaped '/'.
      if (std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return Status::InvalidArgument(StrCat("port \"", port, "\" is not a number in 1..65535"));
      }
      return Status::InvalidArgument("the port is not a number in 1..65535");
    }
  }
  parts.authority = std::string(authority);
  return parts;
}

}  // namespace

Result<ScrapeTarget> ParseStaticTarget(std::string_view spec, std::string_view default_job) {
  const std::string_view trimmed = Trim(spec);
  ScrapeTarget t;
  std::string_view url = trimmed;
  t.job = std::string(default_job);
  // "JOB=" only when an '=' comes before any "://" (a URL's query may hold '=' too).
  const size_t scheme_sep = trimmed.find("://");
  const size_t eq = trimmed.find('=');
  if (eq != std::string_view::npos && eq < scheme_sep) {
    t.job = std::string(Trim(trimmed.substr(0, eq)));
    url = Trim(trimmed.substr(eq + 1));
  } else if (scheme_sep == std::string_view::npos) {
    return Status::InvalidArgument(StrCat("scrape target \"", RedactUris(trimmed),
                                          "\": expected URL or JOB=URL with an http(s) URL"));
  }
  if (t.job.empty()) {
    return Status::InvalidArgument(
        StrCat("scrape target \"", RedactUris(trimmed), "\": empty job name"));
  }
  for (const char c : t.job) {
    if (!IsJobChar(c)) {
      return Status::InvalidArgument(StrCat("scrape target \"", RedactUris(trimmed),
                                            "\": job name \"", t.job,
                                            "\" may only hold letters, digits and _ - . :"));
    }
  }
  Result<UrlParts> parts = SplitUrl(url);
  if (!parts.ok()) {
    return Status::InvalidArgument(
        StrCat("scrape target \"", RedactUris(trimmed), "\": ", parts.status().message()));
  }
  t.url = std::string(url);
  if (parts->path.empty() || parts->path.starts_with('?')) {
    // Prometheus's metrics_path default; a query alone keeps it.
    const size_t q = t.url.find('?', t.url.find("://") + 3);
    t.url.insert(q == std::string::npos ? t.url.size() : q, "/metrics");
  }
  return t;
}

Result<std::vector<ScrapeTarget>> ParseStaticTargets(const std::vector<std::string>& specs) {
  std::vector<ScrapeTarget> out;
  std::set<std::string> seen;
  for (const std::string& spec : specs) {
    GPUCOST_ASSIGN_OR_RETURN(ScrapeTarget t, ParseStaticTarget(spec));
    if (!seen.insert(t.url).second) {
      return Status::InvalidArgument(StrCat("scrape target ", RedactUri(t.url), " is given twice"));
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::string InstanceOf(std::string_view url) {
  Result<UrlParts> parts = SplitUrl(url);
  return parts.ok() ? parts->authority : std::string(url);
}

std::string TargetFileKey(const ScrapeTarget& target) {
  std::string key = StrCat(target.job, "_", InstanceOf(target.url));
  for (char& c : key) {
    if (!IsJobChar(c) || c == ':') c = '-';
  }
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(Hash64(StrCat(target.job, "\n", target.url))));
  return StrCat(key, "_", std::string_view(hash, 8));
}

}  // namespace gpucost::scrape
