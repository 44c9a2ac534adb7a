// RedactUri: each form a secret takes in a URI or connection string is shown as ***, and what
// says where (scheme, user, host, port, path, other parameters) stays.
#include "core/redact.h"

#include <gtest/gtest.h>

#include <string>

namespace gpucost {
namespace {

TEST(RedactUri, HidesTheUserInformationsPassword) {
  EXPECT_EQ(RedactUri("postgresql://u:pw@db:5432/costs"), "postgresql://u:***@db:5432/costs");
  EXPECT_EQ(RedactUri("postgresql://gpucost:S3cret%21@127.0.0.1:54329/costs"),
            "postgresql://gpucost:***@127.0.0.1:54329/costs");
  EXPECT_EQ(RedactUri("https://u:secret@host:9090/p?q=1"), "https://u:***@host:9090/p?q=1");
  EXPECT_EQ(RedactUri("http://u:p@[::1]:9090/metrics"), "http://u:***@[::1]:9090/metrics");
  // A user alone, or an empty password, has nothing to hide.
  EXPECT_EQ(RedactUri("postgresql://gpucost@db/costs"), "postgresql://gpucost@db/costs");
  EXPECT_EQ(RedactUri("postgresql://gpucost:@db/costs"), "postgresql://gpucost:@db/costs");
}

TEST(RedactUri, APasswordWithAnUnescapedAtEndsAtTheLastAt) {
  EXPECT_EQ(RedactUri("postgresql://gpucost:S3cr@t@127.0.0.1/costs"),
            "postgresql://gpucost:***@127.0.0.1/costs");
  EXPECT_EQ(RedactUri("http://u:a@b@c@host:9090"), "http://u:***@host:9090");
  // An '@' in the path is not user information.
  EXPECT_EQ(RedactUri("http://host/a@b"), "http://host/a@b");
  EXPECT_EQ(RedactUri("http://host:9090/a:b@c"), "http://host:9090/a:b@c");
}

TEST(RedactUri, APasswordWithAnUnescapedSlashOrQuestionMarkIsHiddenWhole) {
  // What comes before the '/' cannot be host:port, so the user information runs to the '@'.
  EXPECT_EQ(RedactUri("postgresql://gpucost:S3cr/tPlant@db/costs"),
            "postgresql://gpucost:***@db/costs");
  EXPECT_EQ(RedactUri("http://u:pa?ss@host/metrics"), "http://u:***@host/metrics");
  EXPECT_EQ(RedactUri("http://u:pa#ss@host/metrics"), "http://u:***@host/metrics");
}

TEST(RedactUri, HidesTheValuesOfSecretQueryParameters) {
  EXPECT_EQ(RedactUri("http://exporter:9400/metrics?token=abc&format=text"),
            "http://exporter:9400/metrics?token=***&format=text");
  EXPECT_EQ(RedactUri("postgres://u@db/costs?sslmode=require&password=pw"),
            "postgres://u@db/costs?sslmode=require&password=***");
  EXPECT_EQ(RedactUri("https://h/w?Access_Token=a&API_KEY=b&apikey=c&key=d&auth=e&sig=f"),
            "https://h/w?Access_Token=***&API_KEY=***&apikey=***&key=***&auth=***&sig=***");
  EXPECT_EQ(RedactUri("https://b.s3.amazonaws.com/o?X-Amz-Credential=AKIA%2F&X-Amz-Signature=ab"
                      "&X-Amz-Security-Token=tok&X-Amz-Expires=60"),
            "https://b.s3.amazonaws.com/o?X-Amz-Credential=***&X-Amz-Signature=***"
            "&X-Amz-Security-Token=***&X-Amz-Expires=60");
  EXPECT_EQ(RedactUri("https://h/p?passwd=a&pass=b&pwd=c&client_secret=d&subscription-key=e"),
            "https://h/p?passwd=***&pass=***&pwd=***&client_secret=***&subscription-key=***");
  // A percent-encoded name, a fragment after the query, an empty value, other parameters.
  EXPECT_EQ(RedactUri("https://h/p?%74oken=a#top"), "https://h/p?%74oken=***#top");
  EXPECT_EQ(RedactUri("https://h/p?token=&user=a@b&query=up"),
            "https://h/p?token=&user=a@b&query=up");
  EXPECT_EQ(RedactUri("postgresql://db:5432/costs?user=a@b"),
            "postgresql://db:5432/costs?user=a@b");
  EXPECT_EQ(RedactUri("http://h/p#token=a"), "http://h/p#token=a");
  // Both at once.
  EXPECT_EQ(RedactUri("http://u:S3cr@t@h:1/?token=S3cret/api/v1/query?query=up&time=1"),
            "http://u:***@h:1/?token=***&time=1");
}

TEST(RedactUri, HidesPathSegmentsThatAreCredentials) {
  // Webhook tokens: opaque, mixed case and digits.
  EXPECT_EQ(RedactUri("https://hooks.slack.com/services/T0001/B0001/aB3dE5fG7hI9jK1lM3nO5pQ7"),
            "https://hooks.slack.com/services/T0001/B0001/***");
  EXPECT_EQ(RedactUri("https://discord.com/api/webhooks/1234567890/Zx9_Yw8-Vu7tS6rQ5pO4nM3lK2j"
                      "?wait=true"),
            "https://discord.com/api/webhooks/1234567890/***?wait=true");
  // A segment after one named like a secret, whatever it looks like; with a password too.
  EXPECT_EQ(RedactUri("http://u:pw@alerts.example:8080/hook/token/abc123/send"),
            "http://u:***@alerts.example:8080/hook/token/***/send");
  // Names and identifiers say where: kept.
  for (const std::string plain :
       {"https://aps-workspaces.us-east-1.amazonaws.com/workspaces/"
        "ws-0a1b2c3d-4e5f-6789-abcd-ef0123456789/api/v1/remote_write",
        "http://mimir:9009/api/v1/push", "https://host/prometheus/api/v1/query_range"}) {
    EXPECT_EQ(RedactUri(plain), plain);
  }
}

TEST(RedactUri, HidesPasswordsOfALibpqConnectionString) {
  EXPECT_EQ(RedactUri("host=db user=gpucost password=S3cret dbname=costs"),
            "host=db user=gpucost password=*** dbname=costs");
  EXPECT_EQ(RedactUri("host=db password = 'a \\' b' sslpassword=k sslkey=/etc/k.pem"),
            "host=db password = *** sslpassword=*** sslkey=/etc/k.pem");
}

TEST(RedactUri, LeavesWhatHasNoSecretAsItIs) {
  for (const std::string plain :
       {"", "costs.db", "/var/lib/gpucost/u:pw@x.db", "http://prometheus:9090",
        "https://host/prometheus/api/v1/query?query=up&time=1", "postgresql://db/costs",
        "not a uri: a=b c"}) {
    EXPECT_EQ(RedactUri(plain), plain);
  }
}

TEST(RedactUris, HidesEveryUriInAMessage) {
  EXPECT_EQ(RedactUris("GET http://u:pw@h:1/x?token=t failed: connection refused; "
                       "ledger \"postgresql://u:pw@db/c\" (sslmode=require)"),
            "GET http://u:***@h:1/x?token=*** failed: connection refused; "
            "ledger \"postgresql://u:***@db/c\" (sslmode=require)");
  EXPECT_EQ(RedactUris("no URI here: token=x ://"), "no URI here: token=x ://");
  EXPECT_EQ(RedactUris("at the end http://u:pw@h"), "at the end http://u:***@h");
  // Punctuation after a URI is the message's.
  EXPECT_EQ(RedactUris("postgresql://u@db/c?password=pw: cannot connect (http://h/?key=k)."),
            "postgresql://u@db/c?password=***: cannot connect (http://h/?key=***).");
}

TEST(RedactSecretsOf, HidesWhatALibraryQuotesOfThePassword) {
  // libpq stops the user information at the first '@' and calls the rest the host.
  EXPECT_EQ(RedactSecretsOf("postgresql://u:S3cr@tPlant@127.0.0.1:5432/x",
                            "could not translate host name \"tPlant@127.0.0.1\" to address"),
            "could not translate host name \"***@127.0.0.1\" to address");
  EXPECT_EQ(RedactSecretsOf("postgresql://u:S3cret%21@db/x?password=Other",
                            "bad password S3cret! or S3cret%21; Other"),
            "bad password *** or ***; ***");
  // Pieces too short to be told from ordinary text stay.
  EXPECT_EQ(RedactSecretsOf("postgresql://u:a@bc@db/x", "host \"bc@db\" a"), "host \"bc@db\" a");
  EXPECT_EQ(RedactSecretsOf("costs.db", "costs.db: locked"), "costs.db: locked");
}

TEST(IsSecretParameter, NamesThatHoldSecrets) {
  for (const char* name : {"token", "access_token", "password", "passwd", "pass", "secret", "key",
                           "apikey", "api_key", "Api-Key", "auth", "signature", "sig",
                           "x-amz-signature", "X-Amz-Credential", "credential", "sslpassword"}) {
    EXPECT_TRUE(IsSecretParameter(name)) << name;
  }
  for (const char* name :
       {"query", "time", "user", "sslmode", "sslkey", "format", "monkey", "match[]", "author"}) {
    EXPECT_FALSE(IsSecretParameter(name)) << name;
  }
}

}  // namespace
}  // namespace gpucost
