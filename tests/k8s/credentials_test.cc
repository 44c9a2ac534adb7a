// Credentials: static ones passed through, a token file re-read on the FakeClock's schedule and
// after Invalidate, and exec plugins: a real /bin/sh plugin run through core's RunCommand
// (KUBERNETES_EXEC_INFO, args and env reach it; expiry and Invalidate run it again; a failing
// exit carries its stderr), and ExecCredential parsing errors through an injected runner.
#include "k8s/credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/cli_test_util.h"
#include "core/strings.h"
#include "k8s/k8s_test_util.h"

namespace gpucost::k8s {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

namespace fs = std::filesystem;

using testing_util::TempDir;

Instant T0() { return ParseInstant("2030-01-01T00:00:00Z").value(); }

TEST(CredentialSourceTest, PassesStaticCredentialsThrough) {
  FakeClock clock(T0());
  KubeConnection c;
  c.token = "static-token";
  c.token_file = "/nonexistent/token";  // a static token wins; the file is never read
  c.client_cert_pem = "CERT";
  c.client_key_pem = "KEY";
  c.username = "alice";
  c.password = "pw";
  CredentialSource source(c, clock);
  auto creds = source.Get();
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(creds->bearer_token, "static-token");
  EXPECT_EQ(creds->client_cert_pem, "CERT");
  EXPECT_EQ(creds->client_key_pem, "KEY");
  EXPECT_EQ(creds->username, "alice");
  EXPECT_EQ(creds->password, "pw");
}

TEST(CredentialSourceTest, TokenFileIsReReadAfterTheRefreshIntervalOrInvalidate) {
  TempDir dir;
  FakeClock clock(T0());
  KubeConnection c;
  c.token_file = dir.Write("token", "token-1\n");
  CredentialSource source(c, clock, nullptr, std::chrono::seconds(60));
  auto get = [&] {
    auto creds = source.Get();
    EXPECT_TRUE(creds.ok()) << creds.status().ToString();
    return creds.ok() ? creds->bearer_token : std::string("<error>");
  };
  EXPECT_EQ(get(), "token-1");  // trailing newline trimmed

  dir.Write("token", "token-2");  // the kubelet rotates it
  EXPECT_EQ(get(), "token-1");    // cached
  clock.Advance(std::chrono::seconds(59));
  EXPECT_EQ(get(), "token-1");
  clock.Advance(std::chrono::seconds(2));
  EXPECT_EQ(get(), "token-2");  // older than 60 s: re-read

  dir.Write("token", "token-3");
  EXPECT_EQ(get(), "token-2");
  source.Invalidate();  // after a 401
  EXPECT_EQ(get(), "token-3");
}

TEST(CredentialSourceTest, EmptyOrMissingTokenFileIsAnErrorWithoutTheToken) {
  TempDir dir;
  FakeClock clock(T0());
  KubeConnection c;
  c.user = "sa";
  c.token_file = dir.Write("token", " \n");
  CredentialSource empty(c, clock);
  auto e = empty.Get();
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(Message(e.status()), HasSubstr(c.token_file + " is empty"));

  c.token_file = (dir.path() / "absent").string();
  CredentialSource missing(c, clock);
  auto m = missing.Get();
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(Message(m.status()), HasSubstr("cannot read " + c.token_file));
}

// A credential plugin as kubectl would run it: counts its runs, records what it was given, and
// prints an ExecCredential whose expiry the test controls (or fails when told to).
constexpr char kPluginScript[] = R"sh(#!/bin/sh
count=$(cat "$STATE/count" 2>/dev/null || echo 0)
count=$((count + 1))
echo "$count" > "$STATE/count"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$STATE/info"
printf '%s\n' "$@" > "$STATE/args"
if [ -f "$STATE/fail" ]; then
  echo "error: the SSO session has expired; run aws sso login" >&2
  exit 3
fi
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",'
printf '"status":{"token":"plugin-token-%s","expirationTimestamp":"%s"}}\n' "$count" "$(cat "$STATE/expiry")"
)sh";

class CredentialExecPluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string script = dir_.Write("plugin.sh", kPluginScript);
    ::chmod(script.c_str(), 0755);
    dir_.Write("expiry", "2030-01-01T01:00:00Z");
    connection_.server = "https://10.0.0.1:6443";
    connection_.ca_pem = kCaPem;
    connection_.tls_server_name = "kubernetes.default";
    connection_.user = "eks";
    connection_.token = "static-token";  // the plugin's token wins over it
    ExecPlugin plugin;
    plugin.api_version = "client.authentication.k8s.io/v1";
    plugin.command = script;
    plugin.args = {"eks", "get-token", "--cluster-name", "gpu cluster"};
    plugin.env = {{"STATE", dir_.path().string()}};
    plugin.provide_cluster_info = true;
    connection_.exec = plugin;
  }

  int Runs() const {
    const std::string n = dir_.Read("count");
    return n.empty() ? 0 : std::stoi(n);
  }

  std::string Token(CredentialSource& source) {
    auto creds = source.Get();
    EXPECT_TRUE(creds.ok()) << creds.status().ToString();
    return creds.ok() ? creds->bearer_token : std::string("<error>");
  }

  TempDir dir_;
  KubeConnection connection_;
  FakeClock clock_{T0()};
};

TEST_F(CredentialExecPluginTest, RunsTheRealPluginWithExecInfoAndReRunsOnExpiryAndInvalidate) {
  CredentialSource source(connection_, clock_);  // core RunCommand
  EXPECT_EQ(Token(source), "plugin-token-1");
  EXPECT_EQ(Runs(), 1);
  EXPECT_EQ(dir_.Read("args"), "eks\nget-token\n--cluster-name\ngpu cluster\n");

  const nlohmann::json info = nlohmann::json::parse(dir_.Read("info"));
  EXPECT_EQ(info["apiVersion"], "client.authentication.k8s.io/v1");
  EXPECT_EQ(info["kind"], "ExecCredential");
  EXPECT_EQ(info["spec"]["interactive"], false);
  EXPECT_EQ(info["spec"]["cluster"]["server"], "https://10.0.0.1:6443");
  EXPECT_EQ(info["spec"]["cluster"]["tls-server-name"], "kubernetes.default");
  EXPECT_EQ(info["spec"]["cluster"]["certificate-authority-data"], kCaB64);

  // Cached until shortly before expiry (01:00:00, renewed 10 s early).
  clock_.Advance(std::chrono::minutes(59) + std::chrono::seconds(49));
  EXPECT_EQ(Token(source), "plugin-token-1");
  EXPECT_EQ(Runs(), 1);
  dir_.Write("expiry", "2030-01-01T02:00:00Z");
  clock_.Advance(std::chrono::seconds(2));  // 00:59:51
  EXPECT_EQ(Token(source), "plugin-token-2");
  EXPECT_EQ(Runs(), 2);
  EXPECT_EQ(Token(source), "plugin-token-2");
  EXPECT_EQ(Runs(), 2);

  source.Invalidate();  // a 401
  EXPECT_EQ(Token(source), "plugin-token-3");
  EXPECT_EQ(Runs(), 3);
}

TEST_F(CredentialExecPluginTest, ExecInfoOmitsTheClusterUnlessAsked) {
  connection_.exec->provide_cluster_info = false;
  CredentialSource source(connection_, clock_);
  EXPECT_EQ(Token(source), "plugin-token-1");
  const nlohmann::json info = nlohmann::json::parse(dir_.Read("info"));
  EXPECT_EQ(info["spec"]["interactive"], false);
  EXPECT_FALSE(info["spec"].contains("cluster"));
}

TEST_F(CredentialExecPluginTest, AFailingPluginIsAnErrorCarryingItsStderr) {
  dir_.Write("fail", "");
  CredentialSource source(connection_, clock_);
  auto creds = source.Get();
  ASSERT_FALSE(creds.ok());
  const std::string m = Message(creds.status());
  EXPECT_THAT(m, HasSubstr("user \"eks\": exec plugin"));
  EXPECT_THAT(m, HasSubstr("exited with status 3"));
  EXPECT_THAT(m, HasSubstr("the SSO session has expired; run aws sso login"));
  EXPECT_THAT(m, Not(HasSubstr("sso login\n")));  // trimmed

  // Failure is not cached: once the plugin works again, the next Get succeeds.
  fs::remove(dir_.path() / "fail");
  EXPECT_EQ(Token(source), "plugin-token-2");
}

TEST_F(CredentialExecPluginTest, AMissingPluginMentionsItsInstallHint) {
  connection_.exec->command = (dir_.path() / "no-such-plugin").string();
  connection_.exec->install_hint = "Install kubelogin: https://azure.github.io/kubelogin/";
  CredentialSource source(connection_, clock_);
  auto creds = source.Get();
  ASSERT_FALSE(creds.ok());
  EXPECT_EQ(creds.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(Message(creds.status()), HasSubstr("no-such-plugin was not found"));
  EXPECT_THAT(Message(creds.status()),
              HasSubstr("Install kubelogin: https://azure.github.io/kubelogin/"));
}

// The injected runner returns `output` and records what it was asked to run.
struct FakeRunner {
  std::string output;
  std::atomic<int> runs{0};
  std::vector<std::string> last_env;

  CommandRunner Runner() {
    return [this](const std::vector<std::string>&,
                  const std::vector<std::string>& env) -> Result<CommandOutput> {
      ++runs;
      last_env = env;
      return CommandOutput{output, ""};
    };
  }
};

KubeConnection PluginConnection() {
  KubeConnection c;
  c.server = "https://k";
  c.user = "u";
  c.exec.emplace();
  c.exec->api_version = "client.authentication.k8s.io/v1beta1";
  c.exec->command = "get-token";
  return c;
}

TEST(CredentialSourceTest, MalformedExecCredentialsNameTheFieldButNeverTheToken) {
  FakeClock clock(T0());
  const std::string v1beta1 = R"("apiVersion":"client.authentication.k8s.io/v1beta1")";
  const struct {
    std::string output;
    std::string expected;
  } cases[] = {
      {R"({"apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"secret-abc)",
       "output is not JSON"},
      {R"(["secret-abc"])", "not a JSON object"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"secret-abc"}})",
       "apiVersion \"client.authentication.k8s.io/v1\" is not the configured"},
      {StrCat("{", v1beta1, R"(,"kind":"Credential","status":{"token":"secret-abc"}})"),
       "kind \"Credential\""},
      {StrCat("{", v1beta1, R"(,"kind":"ExecCredential"})"), "status: missing"},
      {StrCat("{", v1beta1, R"(,"kind":"ExecCredential","status":{"token":42}})"),
       "status.token: expected a string"},
      {StrCat("{", v1beta1, R"(,"kind":"ExecCredential","status":{}})"), "status.token: missing"},
      {StrCat("{", v1beta1, R"(,"kind":"ExecCredential","status":{"clientCertificateData":"C"}})"),
       "clientCertificateData and clientKeyData"},
      {StrCat(
           "{", v1beta1,
           R"(,"kind":"ExecCredential","status":{"token":"secret-abc","expirationTimestamp":"tomorrow"}})"),
       "status.expirationTimestamp"},
  };
  for (const auto& tc : cases) {
    FakeRunner runner;
    runner.output = tc.output;
    CredentialSource source(PluginConnection(), clock, runner.Runner());
    auto creds = source.Get();
    ASSERT_FALSE(creds.ok()) << tc.output;
    const std::string m = Message(creds.status());
    EXPECT_THAT(m, HasSubstr(tc.expected)) << tc.output;
    EXPECT_THAT(m, HasSubstr("exec plugin get-token")) << tc.output;
    EXPECT_THAT(m, Not(HasSubstr("secret-abc"))) << tc.output;
  }
}

TEST(CredentialSourceTest, PluginClientCertificateAndNoExpiryIsCachedUntilInvalidate) {
  FakeClock clock(T0());
  FakeRunner runner;
  runner.output = R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",
                      "status":{"clientCertificateData":"PLUGIN-CERT","clientKeyData":"PLUGIN-KEY"}})";
  KubeConnection c = PluginConnection();
  c.client_cert_pem = "STATIC-CERT";
  c.client_key_pem = "STATIC-KEY";
  c.exec->env = {{"A", "1"}};
  CredentialSource source(c, clock, runner.Runner());
  auto creds = source.Get();
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(creds->client_cert_pem, "PLUGIN-CERT");
  EXPECT_EQ(creds->client_key_pem, "PLUGIN-KEY");
  EXPECT_EQ(creds->bearer_token, "");
  ASSERT_EQ(runner.last_env.size(), 2u);
  EXPECT_EQ(runner.last_env[0], "A=1");
  EXPECT_THAT(runner.last_env[1], HasSubstr("KUBERNETES_EXEC_INFO={"));

  clock.Advance(std::chrono::hours(24 * 365));
  ASSERT_TRUE(source.Get().ok());
  EXPECT_EQ(runner.runs, 1);
  source.Invalidate();
  ASSERT_TRUE(source.Get().ok());
  EXPECT_EQ(runner.runs, 2);
}

TEST(CredentialSourceTest, ConcurrentGetsRunThePluginOnce) {
  FakeClock clock(T0());
  FakeRunner runner;
  runner.output = R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",
                      "status":{"token":"t","expirationTimestamp":"2030-01-01T01:00:00Z"}})";
  CredentialSource source(PluginConnection(), clock, runner.Runner());
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      auto creds = source.Get();
      if (creds.ok() && creds->bearer_token == "t") ++ok;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok, 8);
  EXPECT_EQ(runner.runs, 1);
}

}  // namespace
}  // namespace gpucost::k8s
