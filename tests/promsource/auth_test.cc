// Authentication through our real libcurl client against a fake server on 127.0.0.1: bearer
// tokens (file re-read per request, environment), basic auth, SigV4 (the server re-derives the
// signature from what arrived), TLS with a CA file, client certificates and skipping
// verification (certificates made at test time), AWS credential and region lookup from the
// environment and profile files, and the CLI flags wired to all of it.
#include "promsource/auth.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "cli/cli_test_util.h"
#include "promsource/fake_http_server.h"
#include "promsource/prometheus_client.h"
#include "promsource/sigv4.h"

namespace gpucost::promsource {
namespace {

namespace fs = std::filesystem;
using testing::FakeAnswer;
using testing::FakeHttpServer;
using testing::ReceivedRequest;
using testing_util::TempDir;

const char kOk[] = R"({"status":"success","data":{"resultType":"matrix","result":[]}})";

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

void WriteFile(const fs::path& p, const std::string& content) { std::ofstream(p) << content; }

PrometheusClientOptions WithAuth(const AuthOptions& auth, EnvLookup env,
                                 std::shared_ptr<const Clock> clock = nullptr) {
  PrometheusClientOptions o;
  o.retry.max_attempts = 1;
  if (!clock) clock = std::make_shared<SystemClock>();
  auto d = MakeAuthDecorator(auth, std::move(clock), std::move(env));
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  if (d.ok()) o.prepare_request = *d;
  return o;
}

// Answers 401 unless the Authorization header is `want`.
FakeHttpServer::Handler RequireAuthorization(std::string want) {
  return [want](const ReceivedRequest& r) {
    const std::string* a = r.Header("Authorization");
    if (a == nullptr || *a != want) return FakeAnswer{401, "Unauthorized", "text/plain"};
    return FakeAnswer{200, kOk};
  };
}

TEST(Auth, BearerTokenFileIsReadAgainForEveryRequest) {
  TempDir tmp;
  const fs::path token = tmp.path() / "token";
  WriteFile(token, "first-token\n");
  FakeHttpServer server([](const ReceivedRequest&) { return FakeAnswer{200, kOk}; });
  AuthOptions a;
  a.bearer_token_file = token.string();
  PrometheusClient c(server.url(), WithAuth(a, FakeEnv({})));
  ASSERT_TRUE(c.Query("up", InstantFromUnixMs(0)).ok());
  WriteFile(token, "rotated-token");
  ASSERT_TRUE(c.Query("up", InstantFromUnixMs(0)).ok());
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(*reqs[0].Header("Authorization"), "Bearer first-token");
  EXPECT_EQ(*reqs[1].Header("Authorization"), "Bearer rotated-token");

  fs::remove(token);  // a token that disappears stops the request, naming the file
  auto r = c.Query("up", InstantFromUnixMs(0));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find(token.string()), std::string::npos);
}

TEST(Auth, BearerTokenFromTheEnvironment) {
  FakeHttpServer server(RequireAuthorization("Bearer env-token"));
  AuthOptions a;
  a.bearer_token_env = "PROM_TOKEN";
  PrometheusClient c(server.url(), WithAuth(a, FakeEnv({{"PROM_TOKEN", "env-token\n"}})));
  auto r = c.Query("up", InstantFromUnixMs(0));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
}

TEST(Auth, BasicAuth) {
  TempDir tmp;
  WriteFile(tmp.path() / "pw", "pass\n");
  EXPECT_EQ(BasicAuthorization("user", "pass"), "Basic dXNlcjpwYXNz");
  FakeHttpServer server(RequireAuthorization("Basic dXNlcjpwYXNz"));
  AuthOptions a;
  a.basic_user = "user";
  a.basic_password_file = (tmp.path() / "pw").string();
  PrometheusClient c(server.url(), WithAuth(a, FakeEnv({})));
  auto r = c.Query("up", InstantFromUnixMs(0));
  EXPECT_TRUE(r.ok()) << r.status().ToString();

  // The wrong password gets the server's 401, named.
  WriteFile(tmp.path() / "pw", "wrong");
  r = c.Query("up", InstantFromUnixMs(0));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("HTTP 401 (Unauthorized)"), std::string::npos)
      << r.status().ToString();
}

TEST(Auth, BadSettingsFailBeforeAnyRequest) {
  TempDir tmp;
  WriteFile(tmp.path() / "t", "x");
  auto clock = std::make_shared<SystemClock>();
  auto check = [&](AuthOptions a, EnvLookup env, const std::string& want) {
    auto d = MakeAuthDecorator(a, clock, std::move(env));
    ASSERT_FALSE(d.ok()) << want;
    EXPECT_NE(d.status().ToString().find(want), std::string::npos) << d.status().ToString();
  };
  AuthOptions two;
  two.bearer_token_file = (tmp.path() / "t").string();
  two.basic_user = "u";
  check(two, FakeEnv({}), "choose one authentication");
  AuthOptions user_only;
  user_only.basic_user = "u";
  check(user_only, FakeEnv({}), "both a user and a password file");
  AuthOptions missing_env;
  missing_env.bearer_token_env = "NOPE";
  check(missing_env, FakeEnv({}), "NOPE is not set");
  AuthOptions missing_file;
  missing_file.bearer_token_file = (tmp.path() / "absent").string();
  check(missing_file, FakeEnv({}), "absent");
  AuthOptions sigv4;
  sigv4.sigv4 = true;
  check(sigv4, FakeEnv({{"AWS_ACCESS_KEY_ID", "a"}, {"AWS_SECRET_ACCESS_KEY", "b"},
                        {"HOME", tmp.path().string()}}),
        "SigV4 needs a region");
  EXPECT_TRUE(MakeAuthDecorator({}, clock, FakeEnv({})).ok());  // none is fine
}

TEST(Auth, SigV4SignatureMatchesWhatTheServerReceived) {
  FakeHttpServer server([](const ReceivedRequest&) { return FakeAnswer{200, kOk}; });
  AuthOptions a;
  a.sigv4 = true;
  a.sigv4_region = "eu-west-1";
  const auto clock = std::make_shared<FakeClock>(InstantFromUnixMs(1790812800000));
  PrometheusClient c(server.url(),
                     WithAuth(a,
                              FakeEnv({{"AWS_ACCESS_KEY_ID", "AKIDTEST"},
                                       {"AWS_SECRET_ACCESS_KEY", "secret"},
                                       {"AWS_SESSION_TOKEN", "session"}}),
                              clock));
  ASSERT_TRUE(c.Query("up[5m]", InstantFromUnixMs(1000)).ok());
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  const ReceivedRequest& got = reqs[0];
  const std::string* auth = got.Header("Authorization");
  ASSERT_NE(auth, nullptr);
  EXPECT_TRUE(auth->starts_with(
      "AWS4-HMAC-SHA256 Credential=AKIDTEST/20261001/eu-west-1/aps/aws4_request, "
      "SignedHeaders=accept;host;x-amz-date;x-amz-security-token, Signature="))
      << *auth;
  EXPECT_EQ(*got.Header("X-Amz-Date"), "20261001T000000Z");
  EXPECT_EQ(*got.Header("X-Amz-Security-Token"), "session");
  // Re-sign what arrived (its Host, target and signed headers): the same signature, so what we
  // signed is what curl sent.
  HttpRequest again;
  again.method = got.method;
  again.url = "http://" + *got.Header("Host") + got.target;
  again.headers = {{"Accept", *got.Header("Accept")}};
  auto sig = SignSigV4(again, {"AKIDTEST", "secret", "session"}, {"eu-west-1", "aps", false},
                       clock->Now());
  ASSERT_TRUE(sig.ok());
  EXPECT_EQ(sig->authorization, *auth);
}

TEST(Auth, SigV4SignsRemoteReadPostsWithTheirBody) {
  FakeHttpServer server([](const ReceivedRequest&) { return FakeAnswer{404, "nope", "text/plain"}; });
  AuthOptions a;
  a.sigv4 = true;
  const auto clock = std::make_shared<FakeClock>(InstantFromUnixMs(1790812800000));
  PrometheusClient c(server.url(), WithAuth(a,
                                            FakeEnv({{"AWS_ACCESS_KEY_ID", "AKIDTEST"},
                                                     {"AWS_SECRET_ACCESS_KEY", "secret"},
                                                     {"AWS_REGION", "us-east-2"}}),
                                            clock));
  EXPECT_FALSE(c.RemoteRead("snappy bytes").ok());
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].body, "snappy bytes");
  HttpRequest again;
  again.method = "POST";
  again.url = "http://" + *reqs[0].Header("Host") + reqs[0].target;
  for (const char* h : {"Content-Type", "Content-Encoding", "Accept-Encoding",
                        "X-Prometheus-Remote-Read-Version"}) {
    again.headers.emplace_back(h, *reqs[0].Header(h));
  }
  again.body = reqs[0].body;
  auto sig = SignSigV4(again, {"AKIDTEST", "secret", ""}, {"us-east-2", "aps", false}, clock->Now());
  ASSERT_TRUE(sig.ok());
  EXPECT_EQ(sig->authorization, *reqs[0].Header("Authorization"));
}

TEST(AwsCredentials, EnvironmentThenProfiles) {
  TempDir tmp;
  const fs::path creds = tmp.path() / "credentials", config = tmp.path() / "config";
  WriteFile(creds,
            "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = s-default\n"
            "# a comment\n[team]\naws_access_key_id=AKIDTEAM\naws_secret_access_key=s-team\n"
            "aws_session_token = tok-team\n");
  WriteFile(config,
            "[default]\nregion = us-east-1\n[profile team]\nregion = eu-central-1\n"
            "[profile assumed]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = team\n"
            "[profile cfgkeys]\naws_access_key_id = AKIDCFG\naws_secret_access_key = s-cfg\n");
  std::map<std::string, std::string> vars = {{"AWS_SHARED_CREDENTIALS_FILE", creds.string()},
                                             {"AWS_CONFIG_FILE", config.string()},
                                             {"AWS_ACCESS_KEY_ID", "AKIDENV"},
                                             {"AWS_SECRET_ACCESS_KEY", "s-env"}};
  auto c = LoadAwsCredentials("", FakeEnv(vars));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->access_key_id, "AKIDENV");
  // An explicit profile wins over the environment's keys.
  c = LoadAwsCredentials("team", FakeEnv(vars));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "AKIDTEAM");
  EXPECT_EQ(c->session_token, "tok-team");
  EXPECT_EQ(FindAwsRegion("team", FakeEnv(vars)), "eu-central-1");
  vars.erase("AWS_ACCESS_KEY_ID");
  vars.erase("AWS_SECRET_ACCESS_KEY");
  c = LoadAwsCredentials("", FakeEnv(vars));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->access_key_id, "AKIDDEFAULT");
  EXPECT_EQ(FindAwsRegion("", FakeEnv(vars)), "us-east-1");
  vars["AWS_PROFILE"] = "cfgkeys";  // keys may also sit in the config file
  c = LoadAwsCredentials("", FakeEnv(vars));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "AKIDCFG");
  vars["AWS_REGION"] = "ap-south-1";
  EXPECT_EQ(FindAwsRegion("", FakeEnv(vars)), "ap-south-1");

  c = LoadAwsCredentials("assumed", FakeEnv(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().ToString().find("uses role_arn"), std::string::npos);
  c = LoadAwsCredentials("absent", FakeEnv(vars));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().ToString().find("no profile \"absent\""), std::string::npos)
      << c.status().ToString();
  // ~/.aws is the default place.
  fs::create_directories(tmp.path() / "home" / ".aws");
  WriteFile(tmp.path() / "home" / ".aws" / "credentials",
            "[default]\naws_access_key_id = AKIDHOME\naws_secret_access_key = s\n");
  c = LoadAwsCredentials("", FakeEnv({{"HOME", (tmp.path() / "home").string()}}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->access_key_id, "AKIDHOME");
  c = LoadAwsCredentials("", FakeEnv({{"AWS_ACCESS_KEY_ID", "only-id"}}));
  ASSERT_FALSE(c.ok());
}

class Tls : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string err = testing::MakeTestPki(tmp_.path());
    if (!err.empty()) GTEST_SKIP() << "cannot make test certificates: " << err;
    files_ = {(tmp_.path() / "server.crt").string(), (tmp_.path() / "server.key").string(),
              (tmp_.path() / "ca.crt").string()};
  }
  std::string Path(const char* leaf) const { return (tmp_.path() / leaf).string(); }
  TempDir tmp_;
  testing::TlsFiles files_;
};

TEST_F(Tls, CaFileAndClientCertificate) {
  FakeHttpServer server([](const ReceivedRequest&) { return FakeAnswer{200, kOk}; }, files_);
  PrometheusClientOptions o;
  o.retry.max_attempts = 1;
  o.http.ca_file = Path("ca.crt");
  o.http.cert_file = Path("client.crt");
  o.http.key_file = Path("client.key");
  PrometheusClient c(server.url(), o);
  auto r = c.Query("up", InstantFromUnixMs(0));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_NE(server.requests()[0].client_subject.find("CN=gpucost-client"), std::string::npos)
      << server.requests()[0].client_subject;

  // Without the client certificate the server refuses the handshake.
  o.http.cert_file.clear();
  o.http.key_file.clear();
  PrometheusClient no_cert(server.url(), o);
  EXPECT_FALSE(no_cert.Query("up", InstantFromUnixMs(0)).ok());
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(Tls, UnknownCaFailsUnlessVerificationIsSkipped) {
  FakeHttpServer server([](const ReceivedRequest&) { return FakeAnswer{200, kOk}; }, files_);
  PrometheusClientOptions o;
  o.retry.max_attempts = 1;
  o.http.cert_file = Path("client.crt");
  o.http.key_file = Path("client.key");
  PrometheusClient system_cas(server.url(), o);  // our test CA is not a system CA
  auto r = system_cas.Query("up", InstantFromUnixMs(0));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find(server.url()), std::string::npos) << r.status().ToString();
  o.http.verify_tls = false;
  PrometheusClient insecure(server.url(), o);
  r = insecure.Query("up", InstantFromUnixMs(0));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(Tls, CliFlagsReachTheServer) {
  // A store without remote read (404) that serves empty query results: the report finds no
  // samples (exit 2), but every request carried the client certificate and the bearer token.
  FakeHttpServer server(
      [](const ReceivedRequest& r) {
        if (r.target == "/api/v1/read") return FakeAnswer{404, "not found", "text/plain"};
        return FakeAnswer{200, kOk};
      },
      files_);
  WriteFile(tmp_.path() / "token", "cli-token\n");
  const testing_util::RunResult run = testing_util::RunShell(StrCat(
      GPUCOST_BINARY, " report --prometheus ", server.url(),
      " --window 1790812800,1790813400 --prometheus-chunk 1h --ca-file ", Path("ca.crt"),
      " --cert-file ", Path("client.crt"), " --key-file ", Path("client.key"),
      " --bearer-token-file ", Path("token"),
      " --prometheus-header X-Scope-OrgID=team-a --prometheus-header X-Extra=a=b 2>&1"));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("Prometheus returned no samples"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("remote read not available"), std::string::npos) << run.output;
  const auto reqs = server.requests();
  ASSERT_GT(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].target, "/api/v1/read");
  for (const ReceivedRequest& r : reqs) {
    EXPECT_EQ(*r.Header("Authorization"), "Bearer cli-token") << r.target;
    ASSERT_TRUE(r.Header("X-Scope-OrgID")) << r.target;
    EXPECT_EQ(*r.Header("X-Scope-OrgID"), "team-a") << r.target;
    EXPECT_EQ(*r.Header("X-Extra"), "a=b") << r.target;
    EXPECT_NE(r.client_subject.find("CN=gpucost-client"), std::string::npos) << r.target;
  }
  const testing_util::RunResult bad = testing_util::RunShell(StrCat(
      GPUCOST_BINARY, " report --prometheus ", server.url(),
      " --window 1790812800,1790813400 --prometheus-api grpc 2>&1"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("--prometheus-api: grpc not in {auto,remote-read,query}"),
            std::string::npos)
      << bad.output;
  const testing_util::RunResult header = testing_util::RunShell(StrCat(
      GPUCOST_BINARY, " report --prometheus ", server.url(),
      " --window 1790812800,1790813400 --prometheus-header X-Scope-OrgID 2>&1"));
  EXPECT_EQ(header.exit_code, 2);
  EXPECT_NE(header.output.find("--prometheus-header \"X-Scope-OrgID\": NAME=VALUE is expected"),
            std::string::npos)
      << header.output;
}

}  // namespace
}  // namespace gpucost::promsource
