// `gpucost report --kubeconfig ...` end to end: the real binary reads the fake API server over
// TLS (cluster CA, bearer token or client certificate, from a kubeconfig file) and dcgm-exporter
// series from a file. The demo cluster described by the API alone attributes exactly as its
// kube-state-metrics series do; where both are given, the API's identity wins.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "k8s/fake_apiserver.h"
#include "k8s/k8s_fixtures.h"

namespace gpucost::k8s {
namespace {

using testing::FakeApiServer;
using testing_util::RunShell;
using testing_util::TempDir;
namespace fx = testing;

constexpr const char* kStart = "2026-10-01T00:00:00Z";
constexpr const char* kWindow = "2026-10-01T00:00:00Z,2026-10-01T01:00:00Z";

// The demo cluster (`gpucost demo`): one A100-40GB in MIG single strategy, seven 1g.5gb slices
// held 3/2/2 by three teams, as the Kubernetes API shows it.
void LoadDemoCluster(FakeApiServer& server, const std::string& ranker_team = "") {
  server.Upsert("nodes", fx::Node({.name = "gpu-a100-1",
                                   .labels = {{"nvidia.com/gpu.product", "A100-SXM4-40GB-MIG-1g.5gb"},
                                              {"nvidia.com/gpu.count", "7"},
                                              {"nvidia.com/mig.strategy", "single"},
                                              {"nvidia.com/mig.config", "all-1g.5gb"},
                                              {"node.kubernetes.io/instance-type", "a2-highgpu-1g"}},
                                   .capacity = {{"nvidia.com/gpu", "7"}},
                                   .created = "2026-09-01T00:00:00Z"}));
  for (const char* ns : {"bu-a", "bu-b", "bu-c"}) {
    server.Upsert("namespaces", fx::Namespace({.name = ns, .labels = {{"team", ns}}}));
  }
  auto pod = [&](const std::string& ns, const std::string& name, const std::string& uid,
                 const std::string& container, std::vector<fx::OwnerRef> owners,
                 fx::StringMap labels = {}) {
    server.Upsert("pods", fx::Pod({.ns = ns, .name = name, .uid = uid, .node = "gpu-a100-1",
                                   .owners = std::move(owners),
                                   .containers = {fx::Container{.name = container,
                                                                .requests = {{"nvidia.com/gpu", "1"}},
                                                                .limits = {{"nvidia.com/gpu", "1"}}}},
                                   .labels = std::move(labels),
                                   .created = kStart, .started = kStart}));
  };
  for (int i = 0; i < 3; ++i) {
    pod("bu-a", "llm-finetune-" + std::to_string(i), "a1f0c3d2-0000-4000-8000-00000000000" + std::to_string(i + 1),
        "trainer", {fx::Owner("Job", "llm-finetune")});
  }
  server.Upsert("jobs", fx::Job({.ns = "bu-a", .name = "llm-finetune"}));
  fx::StringMap ranker_labels;
  if (!ranker_team.empty()) ranker_labels["team"] = ranker_team;
  pod("bu-b", "ranker-7c9d8f6b5-k2x9p", "b2e1d4c3-0000-4000-8000-000000000004", "server",
      {fx::Owner("ReplicaSet", "ranker-7c9d8f6b5")}, ranker_labels);
  pod("bu-b", "ranker-7c9d8f6b5-q8w4z", "b2e1d4c3-0000-4000-8000-000000000005", "server",
      {fx::Owner("ReplicaSet", "ranker-7c9d8f6b5")}, ranker_labels);
  server.Upsert("replicasets", fx::ReplicaSet({.ns = "bu-b", .name = "ranker-7c9d8f6b5",
                                               .owners = {fx::Owner("Deployment", "ranker")}}));
  pod("bu-c", "notebook-ana-0", "c3d2e5f4-0000-4000-8000-000000000006", "notebook",
      {fx::Owner("StatefulSet", "notebook-ana")});
  pod("bu-c", "notebook-raj-0", "c3d2e5f4-0000-4000-8000-000000000007", "notebook",
      {fx::Owner("StatefulSet", "notebook-raj")});
}

class ReportKubeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto pki = fx::MakeTestPki(dir_.path());
    ASSERT_TRUE(pki.ok()) << pki.status().ToString();
    pki_ = *pki;
    server_ = std::make_unique<FakeApiServer>(fx::ApiServerTls{
        .cert_file = pki_.server_cert.string(), .key_file = pki_.server_key.string(),
        .client_ca_file = pki_.ca_cert.string()});
    server_->SetTokens({"s3cret-token"});
    // The demo's own exposition: kube-state-metrics and dcgm-exporter, and dcgm-exporter alone.
    demo_ = (dir_.path() / "demo.om").string();
    ASSERT_EQ(RunShell(std::string(GPUCOST_BINARY) + " demo --write-openmetrics " + demo_ + " >/dev/null").exit_code, 0);
    std::ifstream in(demo_);
    std::ofstream out(dcgm_ = (dir_.path() / "dcgm.om").string());
    std::string line;
    bool dcgm = false;
    while (std::getline(in, line)) {
      if (line.starts_with("# TYPE ")) dcgm = line.starts_with("# TYPE DCGM_");
      if (dcgm || line == "# EOF") out << line << "\n";
    }
  }

  // A kubeconfig for the fake server: its CA, and a token or the client certificate.
  std::string Kubeconfig(bool client_cert) {
    const std::string path = (dir_.path() / (client_cert ? "kc-cert.yaml" : "kc-token.yaml")).string();
    std::ofstream f(path);
    f << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
      << "clusters:\n- name: fake\n  cluster:\n    server: " << server_->url()
      << "\n    certificate-authority: " << pki_.ca_cert.string() << "\n"
      << "contexts:\n- name: test\n  context:\n    cluster: fake\n    user: u\n"
      << "users:\n- name: u\n  user:\n";
    if (client_cert) {
      f << "    client-certificate: " << pki_.client_cert.string() << "\n"
        << "    client-key: " << pki_.client_key.string() << "\n";
    } else {
      f << "    token: s3cret-token\n";
    }
    return path;
  }

  // team -> row of `gpucost report ... --by team --accumulate --format json`.
  std::map<std::string, nlohmann::json> Teams(const std::string& args, std::string* output = nullptr) {
    const auto r = RunShell(std::string(GPUCOST_BINARY) + " report " + args +
                            " --by team --accumulate --format json --price-per-gpu-hour 12 --window " +
                            kWindow + " 2>&1");
    if (output != nullptr) *output = r.output;
    std::map<std::string, nlohmann::json> rows;
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (r.exit_code != 0) return rows;
    const auto doc = nlohmann::json::parse(r.output.substr(r.output.find('{')), nullptr, false);
    for (const auto& row : doc["rows"]) rows[row["team"].get<std::string>()] = row;
    return rows;
  }

  TempDir dir_;
  fx::TestPki pki_;
  std::unique_ptr<FakeApiServer> server_;
  std::string demo_, dcgm_;
};

TEST_F(ReportKubeTest, ApiAloneAttributesAsKubeStateMetricsDo) {
  LoadDemoCluster(*server_);
  const auto from_ksm = Teams("--input " + demo_);
  std::string output;
  const auto from_api = Teams("--input " + dcgm_ + " --kubeconfig " + Kubeconfig(false), &output);
  ASSERT_EQ(from_ksm.size(), 3u);
  ASSERT_EQ(from_api.size(), 3u) << output;
  for (const char* team : {"bu-a", "bu-b", "bu-c"}) {
    EXPECT_NEAR(from_api.at(team)["allocated_usd"].get<double>(),
                from_ksm.at(team)["allocated_usd"].get<double>(), 1e-9) << team;
    EXPECT_NEAR(from_api.at(team)["effective_usd"].get<double>(),
                from_ksm.at(team)["effective_usd"].get<double>(), 1e-9) << team;
  }
  // The AWS recipe's numbers: 3, 2 and 2 slices of seven at $12/GPU-hour.
  EXPECT_NEAR(from_api.at("bu-a")["allocated_usd"].get<double>(), 12.0 * 3 / 7, 1e-9);
  EXPECT_NEAR(from_api.at("bu-b")["allocated_usd"].get<double>(), 12.0 * 2 / 7, 1e-9);
  EXPECT_EQ(server_->LastAuthorization(), "Bearer s3cret-token");
  EXPECT_GE(server_->ListCount("pods"), 1);
  EXPECT_EQ(output.find("s3cret-token"), std::string::npos);  // never logged
}

TEST_F(ReportKubeTest, ApiIdentityWinsOverKubeStateMetricsWithClientCertificate) {
  LoadDemoCluster(*server_, "search-relevance");
  std::string output;
  const auto rows = Teams("--input " + demo_ + " --kubeconfig " + Kubeconfig(true), &output);
  ASSERT_TRUE(rows.contains("search-relevance")) << output;
  EXPECT_FALSE(rows.contains("bu-b"));
  EXPECT_NEAR(rows.at("search-relevance")["allocated_usd"].get<double>(), 12.0 * 2 / 7, 1e-9);
  EXPECT_EQ(server_->LastClientSubject().find("gpucost-client") != std::string::npos, true)
      << server_->LastClientSubject();
  // The Deployment comes from the API's ReplicaSet.
  const auto r = RunShell(std::string(GPUCOST_BINARY) + " report --input " + demo_ +
                          " --kubeconfig " + Kubeconfig(true) +
                          " --by workload_kind,workload --accumulate --format csv --window " + kWindow);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Deployment,ranker,"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Job,llm-finetune,"), std::string::npos) << r.output;
}

TEST_F(ReportKubeTest, KubeCommandShowsWhatGpucostMakesOfTheCluster) {
  LoadDemoCluster(*server_);
  const auto r = RunShell(std::string(GPUCOST_BINARY) + " kube --kubeconfig " + Kubeconfig(false) +
                          " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  EXPECT_EQ(doc["gpu_pods"], 7);
  EXPECT_EQ(doc["holders"], 7);
  EXPECT_EQ(doc["gpu_pods_by_phase"]["Running"], 7);
  ASSERT_EQ(doc["gpu_nodes"].size(), 1u);
  EXPECT_EQ(doc["gpu_nodes"][0]["sharing"], "mig");
  EXPECT_EQ(doc["gpu_nodes"][0]["gpus"], 1);  // seven 1g.5gb slices of one A100
  EXPECT_EQ(doc["resources"]["pods"]["lists"], 1);
  EXPECT_EQ(doc["decode_errors"], 0);
  const auto table = RunShell(std::string(GPUCOST_BINARY) + " kube --kubeconfig " + Kubeconfig(false));
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("GPU pods: 7 (Running 7)"), std::string::npos) << table.output;
}

TEST_F(ReportKubeTest, UnreachableOrForbiddenApiFailsTheReportClearly) {
  LoadDemoCluster(*server_);
  server_->FailNext("/api/v1/nodes", 403, 100);
  const auto r = RunShell(std::string(GPUCOST_BINARY) + " report --input " + dcgm_ + " --kubeconfig " +
                          Kubeconfig(false) + " --window " + kWindow + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("list nodes: HTTP 403"), std::string::npos) << r.output;
  // A CA that did not sign the server's certificate: TLS verification fails, by name.
  const std::string kc = Kubeconfig(false);
  std::stringstream text;
  text << std::ifstream(kc).rdbuf();
  std::string yaml = text.str();
  yaml.replace(yaml.find(pki_.ca_cert.string()), pki_.ca_cert.string().size(), pki_.other_ca_cert.string());
  std::ofstream(kc) << yaml;
  const auto t = RunShell(std::string(GPUCOST_BINARY) + " report --input " + dcgm_ +
                          " --kubeconfig " + kc + " --window " + kWindow + " 2>&1");
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_NE(t.output.find(server_->url()), std::string::npos) << t.output;
}

}  // namespace
}  // namespace gpucost::k8s
