// Connection settings: kubeconfig files (several entries, kubectl's merge rules, relative paths,
// base64 data, errors that name the file and field), the in-cluster service account and the
// order ResolveConnection tries them in. Files are written to a temporary directory.
#include "k8s/kube_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "cli/cli_test_util.h"
#include "core/strings.h"
#include "k8s/k8s_test_util.h"

namespace gpucost::k8s {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

namespace fs = std::filesystem;

constexpr char kClientPem[] =
    "-----BEGIN CERTIFICATE-----\nCLIENT-DATA\n-----END CERTIFICATE-----\n";
constexpr char kClientB64[] =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNMSUVOVC1EQVRBCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";
constexpr char kKeyPem[] = "-----BEGIN PRIVATE KEY-----\nKEY-DATA\n-----END PRIVATE KEY-----\n";

using testing_util::TempDir;

// A getenv backed by a map, so tests never touch the real environment.
std::function<std::optional<std::string>(std::string_view)> EnvOf(
    std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

const char kSeveral[] =
    R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://dev.example:6443/
    certificate-authority: ca.pem
- name: prod-cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: )"
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBLURBVEEKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="
    R"(
    tls-server-name: kubernetes.default
    proxy-url: http://proxy.example:3128
- name: lab-cluster
  cluster:
    server: lab.example:6443
    insecure-skip-tls-verify: true
users:
- name: dev-user
  user:
    token: dev-token
- name: prod-admin
  user:
    client-certificate-data: )"
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNMSUVOVC1EQVRBCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K"
    R"(
    client-key-data: )"
    "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCktFWS1EQVRBCi0tLS0tRU5EIFBSSVZBVEUgS0VZLS0tLS0K"
    R"(
- name: lab-basic
  user:
    username: alice
    password: "s3cret"
- name: eks
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: ["eks", "get-token", "--cluster-name", "gpu"]
      env:
      - name: AWS_PROFILE
        value: ml
      - name: EMPTY
      provideClusterInfo: true
      installHint: "Install the AWS CLI"
      interactiveMode: Never
contexts:
- name: dev
  context: {cluster: dev-cluster, user: dev-user}
- name: prod
  context: {cluster: prod-cluster, user: prod-admin, namespace: ml-prod}
- name: lab
  context: {cluster: lab-cluster, user: lab-basic}
- name: eks
  context: {cluster: prod-cluster, user: eks}
- name: anonymous
  context: {cluster: lab-cluster}
)";

TEST(KubeConfigTest, SelectsEachContextOfAFileWithSeveral) {
  TempDir dir;
  dir.Write("ca.pem", kCaPem);
  const std::string file = dir.Write("config", kSeveral);

  auto dev = LoadKubeconfig({file}, "");  // current-context
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  EXPECT_EQ(dev->context, "dev");
  EXPECT_EQ(dev->cluster, "dev-cluster");
  EXPECT_EQ(dev->user, "dev-user");
  EXPECT_EQ(dev->server, "https://dev.example:6443");  // trailing slash dropped
  EXPECT_EQ(dev->ca_pem, kCaPem);                      // read from the file beside the config
  EXPECT_EQ(dev->token, "dev-token");
  EXPECT_EQ(dev->namespace_name, "");
  EXPECT_FALSE(dev->exec.has_value());

  auto prod = LoadKubeconfig({file}, "prod");
  ASSERT_TRUE(prod.ok()) << prod.status().ToString();
  EXPECT_EQ(prod->server, "https://10.0.0.1:6443");
  EXPECT_EQ(prod->ca_pem, kCaPem);  // decoded from certificate-authority-data
  EXPECT_EQ(prod->client_cert_pem, kClientPem);
  EXPECT_EQ(prod->client_key_pem, kKeyPem);
  EXPECT_EQ(prod->tls_server_name, "kubernetes.default");
  EXPECT_EQ(prod->proxy_url, "http://proxy.example:3128");
  EXPECT_EQ(prod->namespace_name, "ml-prod");
  EXPECT_EQ(prod->token, "");

  auto lab = LoadKubeconfig({file}, "lab");
  ASSERT_TRUE(lab.ok()) << lab.status().ToString();
  EXPECT_EQ(lab->server, "https://lab.example:6443");  // no scheme: https, as kubectl
  EXPECT_TRUE(lab->insecure_skip_tls_verify);
  EXPECT_EQ(lab->ca_pem, "");
  EXPECT_EQ(lab->username, "alice");
  EXPECT_EQ(lab->password, "s3cret");

  auto eks = LoadKubeconfig({file}, "eks");
  ASSERT_TRUE(eks.ok()) << eks.status().ToString();
  ASSERT_TRUE(eks->exec.has_value());
  EXPECT_EQ(eks->exec->api_version, "client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(eks->exec->command, "aws");  // no slash: looked up in PATH, not resolved
  EXPECT_THAT(eks->exec->args, ElementsAre("eks", "get-token", "--cluster-name", "gpu"));
  EXPECT_THAT(eks->exec->env, ElementsAre(Pair("AWS_PROFILE", "ml"), Pair("EMPTY", "")));
  EXPECT_TRUE(eks->exec->provide_cluster_info);
  EXPECT_EQ(eks->exec->install_hint, "Install the AWS CLI");

  auto anonymous = LoadKubeconfig({file}, "anonymous");
  ASSERT_TRUE(anonymous.ok()) << anonymous.status().ToString();
  EXPECT_EQ(anonymous->user, "");
  EXPECT_EQ(anonymous->token, "");
}

TEST(KubeConfigTest, MergesFilesTheWayKubectlDoes) {
  TempDir dir;
  dir.Write("b/ca-b.pem", kCaPem);
  const std::string a = dir.Write("a/config", R"(
current-context: a-ctx
clusters:
- name: shared
  cluster: {server: "https://a.example"}
users:
- name: u
  user: {token: from-a}
contexts:
- name: a-ctx
  context: {cluster: shared, user: u}
- name: both
  context: {cluster: shared, user: u, namespace: from-a}
)");
  const std::string b = dir.Write("b/config", R"(
current-context: b-ctx
clusters:
- name: shared
  cluster: {server: "https://b.example"}
- name: only-b
  cluster: {server: "https://only-b.example", certificate-authority: ca-b.pem}
users:
- name: u
  user: {token: from-b}
contexts:
- name: b-ctx
  context: {cluster: only-b, user: u}
- name: both
  context: {cluster: only-b, user: u, namespace: from-b}
)");

  auto first = LoadKubeconfig({a, b}, "");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->context, "a-ctx");  // current-context of the first file that sets it
  EXPECT_EQ(first->server, "https://a.example");

  auto both = LoadKubeconfig({a, b}, "both");
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_EQ(both->namespace_name, "from-a");  // first file's entry wins
  EXPECT_EQ(both->server, "https://a.example");

  // A context from the second file uses the merged maps: its cluster exists only in b (with a
  // CA path relative to b's folder), its user name is taken from a.
  auto b_ctx = LoadKubeconfig({a, b}, "b-ctx");
  ASSERT_TRUE(b_ctx.ok()) << b_ctx.status().ToString();
  EXPECT_EQ(b_ctx->server, "https://only-b.example");
  EXPECT_EQ(b_ctx->ca_pem, kCaPem);
  EXPECT_EQ(b_ctx->token, "from-a");

  auto reversed = LoadKubeconfig({b, a}, "");
  ASSERT_TRUE(reversed.ok()) << reversed.status().ToString();
  EXPECT_EQ(reversed->context, "b-ctx");
  EXPECT_EQ(reversed->token, "from-b");
}

TEST(KubeConfigTest, RelativePathsResolveAgainstTheFilesFolder) {
  TempDir dir;
  dir.Write("kube/pki/ca.crt", kCaPem);
  dir.Write("kube/pki/client.crt", kClientPem);
  dir.Write("kube/pki/client.key", kKeyPem);
  const std::string file = dir.Write("kube/config", R"(
current-context: c
clusters:
- name: c
  cluster: {server: "https://k:6443", certificate-authority: pki/ca.crt}
users:
- name: file-user
  user:
    client-certificate: pki/client.crt
    client-key: ./pki/client.key
    tokenFile: secrets/token
- name: plugin-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/get-token
contexts:
- name: c
  context: {cluster: c, user: file-user}
- name: p
  context: {cluster: c, user: plugin-user}
)");
  auto c = LoadKubeconfig({file}, "");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->ca_pem, kCaPem);
  EXPECT_EQ(c->client_cert_pem, kClientPem);
  EXPECT_EQ(c->client_key_pem, kKeyPem);
  EXPECT_EQ(fs::path(c->token_file), dir.path() / "kube/secrets/token");  // named, not read

  auto p = LoadKubeconfig({file}, "p");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(fs::path(p->exec->command).lexically_normal(), dir.path() / "kube/bin/get-token");
}

TEST(KubeConfigTest, DataFieldsWinOverFilesAndMustBeBase64Pem) {
  TempDir dir;
  const std::string file = dir.Write("config", StrCat(R"(
current-context: c
clusters:
- name: c
  cluster:
    server: https://k
    certificate-authority: /nonexistent/ca.pem
    certificate-authority-data: )",
                                                      kCaB64, R"(
- name: bad-base64
  cluster: {server: https://k, certificate-authority-data: "not*base64"}
- name: not-pem
  cluster: {server: https://k, certificate-authority-data: aGVsbG8=}
users:
- name: half
  user: {client-certificate-data: )",
                                                      kClientB64, R"(}
contexts:
- name: c
  context: {cluster: c}
- name: bad
  context: {cluster: bad-base64}
- name: not-pem
  context: {cluster: not-pem}
- name: half
  context: {cluster: c, user: half}
)"));
  auto c = LoadKubeconfig({file}, "");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->ca_pem, kCaPem);

  auto bad = LoadKubeconfig({file}, "bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(
      Message(bad.status()),
      HasSubstr(file +
                ": clusters[bad-base64].cluster.certificate-authority-data: not valid base64"));

  auto not_pem = LoadKubeconfig({file}, "not-pem");
  ASSERT_FALSE(not_pem.ok());
  EXPECT_THAT(Message(not_pem.status()),
              HasSubstr("clusters[not-pem].cluster.certificate-authority-data"));
  EXPECT_THAT(Message(not_pem.status()), HasSubstr("not PEM"));

  auto half = LoadKubeconfig({file}, "half");
  ASSERT_FALSE(half.ok());
  EXPECT_THAT(Message(half.status()), HasSubstr("users[half].user.client-key"));
}

TEST(KubeConfigTest, AnUnreadableFileNamesTheKubeconfigAndTheField) {
  TempDir dir;
  const std::string file = dir.Write("config", R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://k"}}]
users: [{name: aws, user: {client-certificate: /x/y.crt, client-key: /x/y}}]
contexts: [{name: c, context: {cluster: c, user: aws}}]
)");
  auto c = LoadKubeconfig({file}, "");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(
      Message(c.status()),
      HasSubstr(file + ": users[aws].user.client-certificate: cannot read /x/y.crt: No such file"));
}

// yaml-cpp keeps both entries of a repeated key, and `root["users"]` answered the first.
TEST(KubeConfigTest, AKeyGivenTwiceIsAnErrorNamingTheLine) {
  TempDir dir;
  const std::string file = dir.Write("config", R"(current-context: c
clusters: [{name: c, cluster: {server: "https://k", server: "https://other"}}]
contexts: [{name: c, context: {cluster: c}}]
)");
  auto c = LoadKubeconfig({file}, "");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(Message(c.status()),
            file + ":2: clusters[0].cluster.server: duplicate key, first given on line 2");
}

TEST(KubeConfigTest, AMissingContextNamesTheContextsAvailable) {
  TempDir dir;
  const std::string file = dir.Write("config", kSeveral);
  auto c = LoadKubeconfig({file}, "staging");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(Message(c.status()), HasSubstr("context \"staging\" not found"));
  EXPECT_THAT(Message(c.status()), HasSubstr("anonymous, dev, eks, lab, prod"));
  EXPECT_THAT(Message(c.status()), HasSubstr(file));

  const std::string no_current = dir.Write("no-current", R"(
contexts: [{name: x, context: {cluster: missing}}]
)");
  auto none = LoadKubeconfig({no_current}, "");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(Message(none.status()), HasSubstr("no current-context"));
  EXPECT_THAT(Message(none.status()), HasSubstr("available: x"));
  auto missing_cluster = LoadKubeconfig({no_current}, "x");
  ASSERT_FALSE(missing_cluster.ok());
  EXPECT_THAT(Message(missing_cluster.status()),
              HasSubstr("contexts[x].context.cluster: cluster \"missing\" not found"));
}

TEST(KubeConfigTest, MalformedYamlNamesTheFileAndLine) {
  TempDir dir;
  const std::string good = dir.Write("good", kSeveral);
  const std::string bad = dir.Write("bad", "clusters:\n- name: c\n  cluster: {server: [unclosed\n");
  auto c = LoadKubeconfig({good, bad}, "dev");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kParseError);
  EXPECT_THAT(Message(c.status()), HasSubstr(bad + ":"));
  EXPECT_THAT(Message(c.status()), HasSubstr("malformed YAML"));

  const std::string wrong_shape = dir.Write("shape", "clusters: {name: c}\n");
  auto s = LoadKubeconfig({wrong_shape}, "");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(Message(s.status()), HasSubstr(wrong_shape + ": clusters: expected a list"));

  auto missing = LoadKubeconfig({(dir.path() / "absent").string()}, "");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(Message(missing.status()), HasSubstr("absent: No such file"));
}

TEST(KubeConfigTest, LegacyAuthProviderAndBadExecAreClearErrors) {
  TempDir dir;
  const std::string file = dir.Write("config", R"(
clusters: [{name: c, cluster: {server: "https://k"}}]
users:
- name: gke
  user:
    auth-provider:
      name: gcp
      config: {access-token: ya29.secret}
- name: old-exec
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: x}
- name: no-command
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1}
- name: both
  user: {token: t, username: u, password: p}
contexts:
- {name: gke, context: {cluster: c, user: gke}}
- {name: old-exec, context: {cluster: c, user: old-exec}}
- {name: no-command, context: {cluster: c, user: no-command}}
- {name: both, context: {cluster: c, user: both}}
)");
  auto gke = LoadKubeconfig({file}, "gke");
  ASSERT_FALSE(gke.ok());
  EXPECT_THAT(Message(gke.status()), HasSubstr("users[gke].user.auth-provider"));
  EXPECT_THAT(Message(gke.status()), HasSubstr("exec credential plugin"));
  EXPECT_THAT(Message(gke.status()), HasSubstr("gke-gcloud-auth-plugin"));
  EXPECT_THAT(Message(gke.status()), ::testing::Not(HasSubstr("ya29")));

  auto old_exec = LoadKubeconfig({file}, "old-exec");
  ASSERT_FALSE(old_exec.ok());
  EXPECT_THAT(Message(old_exec.status()), HasSubstr("users[old-exec].user.exec.apiVersion"));

  auto no_command = LoadKubeconfig({file}, "no-command");
  ASSERT_FALSE(no_command.ok());
  EXPECT_THAT(Message(no_command.status()),
              HasSubstr("users[no-command].user.exec.command: not set"));

  auto both = LoadKubeconfig({file}, "both");
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(Message(both.status()), HasSubstr("more than one authentication method"));
}

TEST(KubeConfigTest, InClusterUsesTheServiceAccountAndBracketsIpv6) {
  TempDir dir;
  dir.Write("sa/token", "sa-token\n");
  dir.Write("sa/ca.crt", kCaPem);
  dir.Write("sa/namespace", "gpucost\n");
  ConnectionOptions o;
  o.service_account_dir = (dir.path() / "sa").string();
  o.getenv =
      EnvOf({{"KUBERNETES_SERVICE_HOST", "fd00:10:96::1"}, {"KUBERNETES_SERVICE_PORT", "443"}});
  auto c = InClusterConnection(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://[fd00:10:96::1]:443");
  EXPECT_EQ(c->token_file, (dir.path() / "sa/token").string());
  EXPECT_EQ(c->token, "");  // re-read by CredentialSource, not copied here
  EXPECT_EQ(c->ca_pem, kCaPem);
  EXPECT_EQ(c->namespace_name, "gpucost");
  EXPECT_EQ(c->context, "in-cluster");
  EXPECT_EQ(c->user, "in-cluster");

  o.getenv = EnvOf({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                    {"KUBERNETES_SERVICE_PORT", "6443"},
                    {"POD_NAMESPACE", "from-env"}});
  auto v4 = InClusterConnection(o);
  ASSERT_TRUE(v4.ok()) << v4.status().ToString();
  EXPECT_EQ(v4->server, "https://10.96.0.1:6443");
  EXPECT_EQ(v4->namespace_name, "from-env");

  o.getenv = EnvOf({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}});
  auto no_port = InClusterConnection(o);
  ASSERT_FALSE(no_port.ok());
  EXPECT_THAT(Message(no_port.status()), HasSubstr("KUBERNETES_SERVICE_PORT"));

  o.getenv = EnvOf({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}});
  o.service_account_dir = (dir.path() / "no-sa").string();
  auto no_token = InClusterConnection(o);
  ASSERT_FALSE(no_token.ok());
  EXPECT_THAT(Message(no_token.status()), HasSubstr("no-sa/token"));
}

TEST(KubeConfigTest, ResolveTriesExplicitThenEnvThenInClusterThenHome) {
  TempDir dir;
  const auto config = [](const std::string& server) {
    return StrCat("current-context: c\nclusters: [{name: c, cluster: {server: \"", server,
                  "\"}}]\ncontexts: [{name: c, context: {cluster: c}}]\n");
  };
  const std::string explicit_file = dir.Write("explicit", config("https://explicit"));
  const std::string env_file = dir.Write("env", config("https://env"));
  dir.Write("home/.kube/config", config("https://home"));
  dir.Write("sa/token", "t");
  const std::string absent = (dir.path() / "absent").string();
  std::map<std::string, std::string> env = {{"KUBECONFIG", StrCat(absent, ":", env_file)},
                                            {"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                            {"KUBERNETES_SERVICE_PORT", "443"},
                                            {"HOME", (dir.path() / "home").string()}};
  ConnectionOptions o;
  o.service_account_dir = (dir.path() / "sa").string();

  o.getenv = EnvOf(env);
  o.kubeconfig = explicit_file;
  auto r = ResolveConnection(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->server, "https://explicit");

  o.kubeconfig = absent;  // an explicit file must exist
  EXPECT_FALSE(ResolveConnection(o).ok());

  o.kubeconfig = "";  // $KUBECONFIG, skipping its missing file
  r = ResolveConnection(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->server, "https://env");

  o.in_cluster = true;  // forced
  r = ResolveConnection(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->context, "in-cluster");
  o.in_cluster = false;

  env["KUBECONFIG"] = absent;  // nothing there: in-cluster next
  o.getenv = EnvOf(env);
  r = ResolveConnection(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->server, "https://10.96.0.1:443");

  env.erase("KUBERNETES_SERVICE_HOST");  // not in a pod: ~/.kube/config
  o.getenv = EnvOf(env);
  r = ResolveConnection(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->server, "https://home");

  o.home = (dir.path() / "elsewhere").string();  // nothing anywhere
  r = ResolveConnection(o);
  ASSERT_FALSE(r.ok());
  const std::string m = Message(r.status());
  EXPECT_THAT(m, HasSubstr("$KUBECONFIG (none of its files exist"));
  EXPECT_THAT(m, HasSubstr("in-cluster (not running in a pod"));
  EXPECT_THAT(m, HasSubstr("elsewhere/.kube/config (not found)"));
}

}  // namespace
}  // namespace gpucost::k8s
