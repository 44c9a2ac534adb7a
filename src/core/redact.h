// Secrets out of what gpucost shows. RedactUri keeps a URI's scheme, user, host, port, path and
// ordinary parameters, so that a message still says where, and puts *** for the password of its
// user information, the values of parameters named like secrets (token, password, key,
// signature, ...), path segments that are credentials (a webhook's token: 20 or more characters
// mixing upper case, lower case and digits, or the segment after one named like a secret) and,
// in a libpq "key=value ..." connection string, the values of such keys.
// Every URI a user gives is shown through it (errors, log lines, metric labels, API bodies); the
// raw URI is kept only to connect. Stateless and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace gpucost {

// What a secret is shown as.
inline constexpr std::string_view kRedacted = "***";

// "postgresql://u:S3cr@t@db:5432/costs?sslmode=require&password=x" ->
// "postgresql://u:***@db:5432/costs?sslmode=require&password=***";
// "https://hooks.slack.com/services/T0001/B0001/aB3dE5fG7hI9jK1lM3nO5pQ7" ->
// "https://hooks.slack.com/services/T0001/B0001/***";
// "host=db password='a b' dbname=costs" -> "host=db password=*** dbname=costs". The user
// information ends at the last '@' before the path (a password may hold an unescaped '@'), or
// at the last '@' of all when what comes before the path cannot be a host[:port] (an unescaped
// '/', '?' or '#' in the password). A file path comes back as it is.
std::string RedactUri(std::string_view uri);

// `text` with every scheme://... in it shown as RedactUri shows it: for messages that quote URIs
// they did not get from a display string (a library's, a log line's last line of defence).
std::string RedactUris(std::string_view text);

// `text` with each secret of `uri` (RedactUri's) and each '@'-separated piece of its password
// replaced by ***: for a library's message about `uri`, which may quote what it parsed out of
// it (libpq names the host it cannot resolve; with an unescaped '@' in the password, that
// "host" is the rest of the password). Pieces shorter than 3 characters are left.
std::string RedactSecretsOf(std::string_view uri, std::string_view text);

// Whether a query parameter or libpq keyword names a secret (case-insensitive): token,
// access_token, password, passwd, pass, pwd, secret, key, apikey, api_key, auth, signature, sig,
// x-amz-signature, x-amz-credential, x-amz-security-token, credential, ...
bool IsSecretParameter(std::string_view name);

}  // namespace gpucost
