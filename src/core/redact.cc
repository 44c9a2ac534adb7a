#include "core/redact.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "core/strings.h"

namespace gpucost {
namespace {

constexpr size_t kNone = std::string_view::npos;

// [begin, end) of one secret in a URI or connection string.
struct SecretSpan {
  size_t begin = 0;
  size_t end = 0;
};

bool IsSchemeChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
}

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Where the "://" after `uri`'s scheme is; kNone when `uri` does not start with one.
size_t SchemeSeparator(std::string_view uri) {
  const size_t sep = uri.find("://");
  if (sep == kNone || sep == 0 || std::isalpha(static_cast<unsigned char>(uri[0])) == 0) {
    return kNone;
  }
  for (size_t i = 0; i < sep; ++i) {
    if (!IsSchemeChar(uri[i])) return kNone;
  }
  return sep;
}

// Whether `authority` cannot be host[:port] or [v6][:port]: a ':' followed by what is not a
// port number, as when an unescaped '/', '?' or '#' in a password cut the authority short.
bool NotHostAndPort(std::string_view authority) {
  std::string_view port;
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == kNone) return true;
    const std::string_view after = authority.substr(close + 1);
    if (after.empty()) return false;
    if (after[0] != ':') return true;
    port = after.substr(1);
  } else {
    const size_t colon = authority.find(':');
    if (colon == kNone) return false;
    port = authority.substr(colon + 1);
  }
  return port.empty() || !std::all_of(port.begin(), port.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) != 0;
         });
}

// "%41b" -> "Ab"; a '%' without two hex digits after it stays.
std::string PercentDecoded(std::string_view s) {
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// A path segment that is an opaque credential rather than a name: 20 characters or more of
// [A-Za-z0-9_-] with upper case, lower case and digits all in it (a Slack or Discord webhook's
// token). Lower-case identifiers (UUIDs, workspace ids, hostnames) are left: they say where.
bool LooksLikeToken(std::string_view s) {
  if (s.size() < 20) return false;
  bool upper = false, lower = false, digit = false;
  for (const char c : s) {
    if (c >= 'A' && c <= 'Z') {
      upper = true;
    } else if (c >= 'a' && c <= 'z') {
      lower = true;
    } else if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c != '_' && c != '-') {
      return false;
    }
  }
  return upper && lower && digit;
}

// The secrets of a scheme://... URI whose "://" is at `sep`: the password of its user
// information, the path segments that are credentials (LooksLikeToken, or one after a segment
// named like a secret: ".../token/abc"), then the values of its secret query parameters.
std::vector<SecretSpan> UriSecrets(std::string_view uri, size_t sep) {
  std::vector<SecretSpan> out;
  const size_t start = sep + 3;
  const size_t stop = uri.find_first_of("/?#", start);
  const std::string_view authority = uri.substr(start, stop == kNone ? kNone : stop - start);
  // The user information ends at the last '@' before the path: a password may hold an
  // unescaped '@' (libpq and curl stop at the first one, and would show the rest as the host).
  size_t at = authority.rfind('@');
  if (at != kNone) {
    at += start;
  } else if (stop != kNone && NotHostAndPort(authority)) {
    at = uri.rfind('@');
  }
  size_t host = start;
  if (at != kNone) {
    host = at + 1;
    const size_t colon = uri.find(':', start);
    if (colon < at && colon + 1 < at) out.push_back({colon + 1, at});
  }
  // The path: segments that are secrets (a webhook's token).
  if (const size_t path = uri.find_first_of("/?#", host); path != kNone && uri[path] == '/') {
    const size_t path_end = std::min(uri.find_first_of("?#", path), uri.size());
    std::string_view previous;
    for (size_t pos = path + 1; pos <= path_end;) {
      size_t slash = uri.find('/', pos);
      if (slash == kNone || slash > path_end) slash = path_end;
      const std::string_view segment = uri.substr(pos, slash - pos);
      if (!segment.empty() &&
          (LooksLikeToken(segment) ||
           (!previous.empty() && IsSecretParameter(PercentDecoded(previous))))) {
        out.push_back({pos, slash});
      }
      previous = segment;
      pos = slash + 1;
    }
  }
  // The query: from the first '?' after the host to the fragment.
  const size_t query = uri.find('?', host);
  if (query == kNone) return out;
  const size_t fragment = uri.find('#', host);
  if (fragment < query) return out;
  const size_t query_end = fragment == kNone ? uri.size() : fragment;
  for (size_t pos = query + 1; pos <= query_end;) {
    size_t amp = uri.find('&', pos);
    if (amp == kNone || amp > query_end) amp = query_end;
    const std::string_view param = uri.substr(pos, amp - pos);
    const size_t eq = param.find('=');
    if (eq != kNone && eq + 1 < param.size() &&
        IsSecretParameter(PercentDecoded(param.substr(0, eq)))) {
      out.push_back({pos + eq + 1, amp});
    }
    pos = amp + 1;
  }
  return out;
}

// The secrets of a libpq "key=value key='quoted value' ..." connection string; none when `s` is
// not one (a file path).
std::vector<SecretSpan> ConninfoSecrets(std::string_view s) {
  std::vector<SecretSpan> out;
  size_t i = 0;
  while (i < s.size()) {
    if (IsSpace(s[i])) {
      ++i;
      continue;
    }
    const size_t key_start = i;
    while (i < s.size() && s[i] != '=' && !IsSpace(s[i])) ++i;
    const std::string_view key = s.substr(key_start, i - key_start);
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i >= s.size() || s[i] != '=') return {};  // not key=value
    ++i;
    while (i < s.size() && IsSpace(s[i])) ++i;
    const size_t value = i;
    const bool quoted = i < s.size() && s[i] == '\'';
    if (quoted) ++i;
    while (i < s.size() && (quoted ? s[i] != '\'' : !IsSpace(s[i]))) {
      i += s[i] == '\\' && i + 1 < s.size() ? 2 : 1;  // \' and \\ escapes
    }
    if (quoted && i < s.size()) ++i;  // the closing quote
    if (i > value && IsSecretParameter(key)) out.push_back({value, i});
  }
  return out;
}

std::vector<SecretSpan> SecretsIn(std::string_view uri) {
  const size_t sep = SchemeSeparator(uri);
  return sep == kNone ? ConninfoSecrets(uri) : UriSecrets(uri, sep);
}

void ReplaceAll(std::string& text, std::string_view what) {
  for (size_t pos = text.find(what); pos != std::string::npos;
       pos = text.find(what, pos + kRedacted.size())) {
    text.replace(pos, what.size(), kRedacted);
  }
}

}  // namespace

bool IsSecretParameter(std::string_view name) {
  const std::string n = ToLower(name);
  for (const std::string_view exact : {"key", "pass", "pwd", "auth", "authorization", "sig",
                                       "accesskey", "privatekey", "sessionkey"}) {
    if (n == exact) return true;
  }
  // password, passwd, sslpassword; client_secret; access_token, x-amz-security-token;
  // x-amz-signature; x-amz-credential; apikey, api_key, api-key.
  for (const std::string_view part :
       {"passw", "secret", "token", "signature", "credential", "apikey", "api_key", "api-key"}) {
    if (n.find(part) != std::string::npos) return true;
  }
  // access_key, subscription-key; not libpq's sslkey, a file name.
  return n.ends_with("_key") || n.ends_with("-key");
}

std::string RedactUri(std::string_view uri) {
  std::string out;
  out.reserve(uri.size());
  size_t copied = 0;
  for (const SecretSpan& s : SecretsIn(uri)) {
    out.append(uri.substr(copied, s.begin - copied));
    out.append(kRedacted);
    copied = s.end;
  }
  out.append(uri.substr(copied));
  return out;
}

std::string RedactUris(std::string_view text) {
  std::string out;
  size_t copied = 0;
  for (size_t sep = text.find("://"); sep != kNone; sep = text.find("://", sep + 3)) {
    if (sep < copied) continue;
    size_t begin = sep;
    while (begin > copied && IsSchemeChar(text[begin - 1])) --begin;
    while (begin < sep && std::isalpha(static_cast<unsigned char>(text[begin])) == 0) ++begin;
    if (begin == sep) continue;
    size_t end = text.find_first_of(" \t\r\n\"'<>`", sep + 3);
    if (end == kNone) end = text.size();
    // "URI: what went wrong": punctuation that ends the sentence is not part of the URI.
    while (end > sep + 3 && std::string_view(":,;.)").find(text[end - 1]) != kNone) --end;
    out.append(text.substr(copied, begin - copied));
    out.append(RedactUri(text.substr(begin, end - begin)));
    copied = end;
  }
  out.append(text.substr(copied));
  return out;
}

std::string RedactSecretsOf(std::string_view uri, std::string_view text) {
  std::vector<std::string> secrets;
  for (const SecretSpan& s : SecretsIn(uri)) {
    std::string_view value = uri.substr(s.begin, s.end - s.begin);
    if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
      value = value.substr(1, value.size() - 2);
    }
    secrets.emplace_back(value);
    secrets.push_back(PercentDecoded(value));
    const std::vector<std::string_view> pieces = Split(value, '@');
    for (const std::string_view piece : pieces) secrets.emplace_back(piece);
  }
  // Longest first, so that a piece does not cut a whole secret into parts.
  std::sort(secrets.begin(), secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::string out(text);
  for (const std::string& secret : secrets) {
    if (secret.size() >= 3) ReplaceAll(out, secret);
  }
  return out;
}

}  // namespace gpucost
