// Dynamic Resource Allocation through the fake API server (resource.k8s.io/v1 as the Kubernetes
// API writes it; field paths in docs/k8s.md "Dynamic Resource Allocation"): ResourceSlices from
// NVIDIA's DRA driver, a claim made from a template for one pod and a claim two pods share, read
// by KubeSource, turned into units and holdings by the inventory builder, and priced by the real
// `gpucost report --kubeconfig`. A cluster that does not serve resource.k8s.io/v1 still reads;
// an account that may not read it is told, by `gpucost report` and on `gpucost serve`'s /metrics.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "inventory/inventory_builder.h"
#include "k8s/dra_api_objects.h"
#include "k8s/fake_apiserver.h"
#include "k8s/k8s_fixtures.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kube_source.h"
#include "ledger/serve_test_util.h"

namespace gpucost::k8s {
namespace {

using json = nlohmann::json;
using testing::FakeApiServer;
using testing_util::ChildProcess;
using testing_util::FreePort;
using testing_util::RunShell;
using testing_util::TempDir;
namespace fx = testing;
using namespace dra_api;  // NOLINT(google-build-using-namespace)

// Node dra-1 has two H100s that only DRA describes (no nvidia.com/gpu capacity). train-0 holds
// gpu-0 through a claim made from a template; infer-a and infer-b share gpu-1 through one claim.
// An older generation of the pool listed a third GPU, which the driver has since withdrawn.
void LoadDraCluster(FakeApiServer& server) {
  server.Upsert("nodes", fx::Node({.name = "dra-1", .created = "2026-09-01T00:00:00Z"}));
  server.Upsert("namespaces", fx::Namespace({.name = "ml"}));
  server.Upsert("resourceslices", Slice("dra-1-gpu.nvidia.com-old", 1,
                                        json::array({GpuDevice("gpu-9", "GPU-9999")})));
  server.Upsert(
      "resourceslices",
      Slice("dra-1-gpu.nvidia.com-x7k2p", 2,
            json::array({GpuDevice("gpu-0", "GPU-aaaa"), GpuDevice("gpu-1", "GPU-bbbb")})));
  json owner = json::object();
  owner["apiVersion"] = "v1";
  owner["kind"] = "Pod";
  owner["name"] = "train-0";
  owner["uid"] = fx::UidFor("Pod", "ml", "train-0");
  owner["controller"] = true;
  server.Upsert("resourceclaims", Claim("train-0-gpu-x7k2p", "gpu-0",
                                        json::array({Reserved("train-0")}), json::array({owner})));
  server.Upsert("resourceclaims", Claim("shared-gpu", "gpu-1",
                                        json::array({Reserved("infer-a"), Reserved("infer-b")})));
  // A claim not yet allocated: the store keeps only allocated claims.
  json pending = Claim("pending", "gpu-0", json::array());
  pending["status"] = json::object();
  server.Upsert("resourceclaims", pending);
  server.Upsert("pods", DraPod("train-0", "train-0-gpu-x7k2p", true));
  server.Upsert("pods", DraPod("infer-a", "shared-gpu", false));
  server.Upsert("pods", DraPod("infer-b", "shared-gpu", false));
  // A pod with no GPU of any kind is not kept.
  server.Upsert("pods", fx::Pod({.ns = "ml", .name = "web", .node = "dra-1", .created = kStart}));
}

TEST(DraKubeTest, KubeSourceReadsSlicesClaimsAndThePodsThatUseThem) {
  FakeApiServer server;
  LoadDraCluster(server);
  FakeClock clock(At("2026-10-01T01:00:00Z"));
  KubeConnection c;
  c.server = server.url();
  KubeSource source(c, {}, clock);
  ASSERT_TRUE(source.List().ok());
  const KubeSourceStats st = source.stats();
  EXPECT_EQ(st.gpu_pods, 3u);
  EXPECT_EQ(st.decode_errors, 0u) << st.last_decode_error;
  const KubeState k = source.Snapshot();
  ASSERT_EQ(k.dra_devices.size(), 2u) << "the pool's older generation is left out";
  EXPECT_EQ(k.dra_devices[0].uuid, "GPU-aaaa");
  EXPECT_EQ(k.dra_devices[0].type, "gpu");
  EXPECT_EQ(k.dra_devices[0].node, "dra-1");
  EXPECT_DOUBLE_EQ(k.dra_devices[0].capacity.at("memory"), 81559.0 * 1024 * 1024);
  ASSERT_EQ(k.dra_allocations.size(), 2u);

  TimelineOptions t;
  t.window = Window{At(kStart), At("2026-10-01T01:00:00Z")};
  t.kube_states.push_back(k);
  InventoryBuilder b(t);
  auto built = b.Build();
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const Inventory& inv = built->inventory;
  ASSERT_EQ(inv.nodes.size(), 1u);
  EXPECT_EQ(inv.nodes[0].physical_gpus, 2);
  EXPECT_EQ(inv.nodes[0].gpu_model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(inv.nodes[0].sharing, SharingMode::kDra);
  std::map<std::string, std::pair<std::string, double>> held;  // pod -> (GPU, share)
  for (const Holding& h : inv.holdings) {
    ASSERT_EQ(h.units.size(), 1u);
    held[inv.holders[h.holder].pod] = {inv.units[h.units[0]].gpu_uuid, h.unit_share};
  }
  EXPECT_EQ(held["train-0"], (std::pair<std::string, double>{"GPU-aaaa", 1.0}));
  EXPECT_EQ(held["infer-a"], (std::pair<std::string, double>{"GPU-bbbb", 0.5}));
  EXPECT_EQ(held["infer-b"], (std::pair<std::string, double>{"GPU-bbbb", 0.5}));
}

// `gpucost kube` names the node's sharing as DRA's: its claims hand its GPUs out.
TEST(DraKubeTest, KubeCommandSaysTheClaimsHandTheGpusOut) {
  FakeApiServer server;
  LoadDraCluster(server);
  TempDir dir;
  const auto r = RunShell(std::string(GPUCOST_BINARY) + " kube --kubeconfig " +
                          WriteKubeconfig(dir, server) + " --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  ASSERT_EQ(doc["gpu_nodes"].size(), 1u) << doc;
  EXPECT_EQ(doc["gpu_nodes"][0]["sharing"], "dra");
  EXPECT_EQ(doc["gpu_nodes"][0]["gpus"], 2);
}

// The real binary against the same API: the money per pod, and none idle.
TEST(DraKubeTest, ReportPricesEachClaimsShare) {
  FakeApiServer server;
  LoadDraCluster(server);
  TempDir dir;
  const std::string kc = WriteKubeconfig(dir, server);
  const auto r = RunShell(ReportCommand(kc, "2>/dev/null"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  double idle = 0;
  std::map<std::string, double> allocated = AllocatedByPod(doc, idle);
  EXPECT_NEAR(allocated["train-0"], 12.0, 1e-9);
  EXPECT_NEAR(allocated["infer-a"], 6.0, 1e-9);
  EXPECT_NEAR(allocated["infer-b"], 6.0, 1e-9);
  EXPECT_NEAR(idle, 0.0, 1e-9);
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 24.0, 1e-9);
}

// Node mix-1 runs NVIDIA's device plugin (one GPU, nvidia.com/gpu capacity 1) beside the DRA
// driver, whose slice lists three more GPUs: gpu-0 shared by consumable capacity (80 GiB), a
// 1g.10gb MIG device of gpu-1, and gpu-3, which serves a pod's nvidia.com/gpu through a DRA-backed
// extended resource (status.extendedResourceClaimStatus).
void LoadMixedNode(FakeApiServer& server) {
  server.Upsert("nodes", fx::Node({.name = "mix-1",
                                   .capacity = {{"nvidia.com/gpu", "1"}},
                                   .created = "2026-09-01T00:00:00Z"}));
  server.Upsert("namespaces", fx::Namespace({.name = "ml"}));
  json shared = GpuDevice("gpu-0", "GPU-eeee");
  shared["allowMultipleAllocations"] = true;
  shared["capacity"] = {{"memory", {{"value", "80Gi"}}}};
  json mig = GpuDevice("gpu-1-mig-19-0-1", "MIG-1111");
  mig["attributes"]["type"] = {{"string", "mig"}};
  mig["attributes"]["parentUUID"] = {{"string", "GPU-ffff"}};
  mig["attributes"]["profile"] = {{"string", "1g.10gb"}};
  json slice = Slice("mix-1-gpu.nvidia.com-a1", 1,
                     json::array({shared, mig, GpuDevice("gpu-3", "GPU-gggg")}));
  slice["spec"]["nodeName"] = "mix-1";
  slice["spec"]["pool"]["name"] = "mix-1";
  server.Upsert("resourceslices", slice);
  const auto claim = [&](const std::string& name, const std::string& device,
                         const std::string& pod) {
    json c = Claim(name, device, json::array({Reserved(pod)}));
    c["status"]["allocation"]["devices"]["results"][0]["pool"] = "mix-1";
    return c;
  };
  for (const auto& [pod, gib] : {std::pair{"llm-a", 20}, std::pair{"llm-b", 40}}) {
    json c = claim(std::string(pod) + "-slice", "gpu-0", pod);
    json& result = c["status"]["allocation"]["devices"]["results"][0];
    result["shareID"] = std::string("share-") + pod;
    result["consumedCapacity"] = {{"memory", std::to_string(gib) + "Gi"}};
    server.Upsert("resourceclaims", c);
  }
  server.Upsert("resourceclaims", claim("nb-mig", "gpu-1-mig-19-0-1", "nb-0"));
  server.Upsert("resourceclaims", claim("ext-0-extended-resources-q8x", "gpu-3", "ext-0"));
  const auto on_mix = [](json pod) {
    pod["spec"]["nodeName"] = "mix-1";
    return pod;
  };
  server.Upsert("pods", on_mix(DraPod("llm-a", "llm-a-slice", false)));
  server.Upsert("pods", on_mix(DraPod("llm-b", "llm-b-slice", false)));
  server.Upsert("pods", on_mix(DraPod("nb-0", "nb-mig", false)));
  server.Upsert("pods", fx::Pod({.ns = "ml",
                                 .name = "dp-0",
                                 .node = "mix-1",
                                 .containers = {fx::Container{.limits = {{"nvidia.com/gpu", "1"}}}},
                                 .created = kStart,
                                 .started = kStart}));
  json ext = fx::Pod({.ns = "ml",
                      .name = "ext-0",
                      .node = "mix-1",
                      .containers = {fx::Container{.limits = {{"nvidia.com/gpu", "1"}}}},
                      .created = kStart,
                      .started = kStart});
  json mapping = json::object();
  mapping["containerName"] = "main";
  mapping["requestName"] = "container-0-request-0";
  mapping["resourceName"] = "nvidia.com/gpu";
  ext["status"]["extendedResourceClaimStatus"] = {
      {"resourceClaimName", "ext-0-extended-resources-q8x"},
      {"requestMappings", json::array({mapping})}};
  server.Upsert("pods", ext);
}

// kube-state-metrics' series of ext-0 for the hour: KSM shows its DRA-backed nvidia.com/gpu as a
// plain extended resource request.
std::string ExtPodSeries() {
  return PodRequestSeries("ext-0", fx::UidFor("Pod", "ml", "ext-0"), "mix-1", "nvidia_com_gpu", 1);
}

// Every DRA case on one node beside the device plugin, priced by the real binary, from the API
// alone and with kube-state-metrics series read beside it: the same money either way, each GPU
// counted once, and cost conserved.
TEST(DraKubeTest, DevicePluginAndEveryKindOfClaimOnOneNode) {
  FakeApiServer server;
  LoadMixedNode(server);
  TempDir dir;
  const std::string kc = WriteKubeconfig(dir, server);
  const std::string ksm = (dir.path() / "ksm.prom").string();
  std::ofstream(ksm) << ExtPodSeries();
  for (const std::string& input : {std::string(), " --input " + ksm}) {
    SCOPED_TRACE(input.empty() ? "API alone" : "API and kube-state-metrics");
    const auto r = RunShell(ReportCommand(kc, input + " 2>" + (dir.path() / "err.txt").string()));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const json doc = json::parse(r.output);
    double idle = 0;
    std::map<std::string, double> allocated = AllocatedByPod(doc, idle);
    EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 48.0, 1e-9) << "four GPUs";
    EXPECT_NEAR(allocated["dp-0"], 12.0, 1e-9);
    EXPECT_NEAR(allocated["ext-0"], 12.0, 1e-9);
    EXPECT_NEAR(allocated["llm-a"], 3.0, 1e-9);  // 20 of 80 GiB
    EXPECT_NEAR(allocated["llm-b"], 6.0, 1e-9);  // 40 of 80 GiB
    EXPECT_NEAR(allocated["nb-0"], 12.0 / 7, 1e-9);
    EXPECT_NEAR(idle, 3.0 + 12.0 * 6 / 7, 1e-9);
    std::ifstream err(dir.path() / "err.txt");
    const std::string warnings((std::istreambuf_iterator<char>(err)), {});
    EXPECT_EQ(warnings.find("oversubscribed"), std::string::npos) << warnings;
  }

  // The series' nvidia.com/gpu of ext-0 stands for its claim: it holds the claim's GPU exactly,
  // not one drawn from the node's pool.
  FakeClock clock(At("2026-10-01T01:00:00Z"));
  KubeConnection c;
  c.server = server.url();
  KubeSource source(c, {}, clock);
  ASSERT_TRUE(source.List().ok());
  TimelineOptions t;
  t.window = Window{At(kStart), At("2026-10-01T01:00:00Z")};
  t.kube_states.push_back(source.Snapshot());
  InventoryBuilder b(t);
  ASSERT_TRUE(b.AddText(ExtPodSeries(), "ksm.prom").ok());
  auto built = b.Build();
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const Inventory& inv = built->inventory;
  // Its MIG device's layout says what the node's units are: the node keeps "mig" (docs/k8s.md,
  // "Sharing mode dra").
  ASSERT_EQ(inv.nodes.size(), 1u);
  EXPECT_EQ(inv.nodes[0].sharing, SharingMode::kMig);
  int ext_holdings = 0;
  for (const Holding& h : inv.holdings) {
    if (inv.holders[h.holder].pod != "ext-0") continue;
    ++ext_holdings;
    ASSERT_EQ(h.units.size(), 1u);
    EXPECT_EQ(inv.units[h.units[0]].gpu_uuid, "GPU-gggg");
    EXPECT_EQ(h.request.resource, "resource.k8s.io/claim/ext-0-extended-resources-q8x");
    EXPECT_EQ(h.interval, (Interval{At(kStart), At("2026-10-01T01:00:00Z")}));
  }
  EXPECT_EQ(ext_holdings, 1);
}

// Through the real binary: an account that may not read ResourceClaims (403) is told, since the
// GPUs its claims hold would count as idle; a cluster without DRA (404) is not.
TEST(DraKubeTest, AReportSaysWhenClaimsMayNotBeRead) {
  FakeApiServer server;
  LoadDraCluster(server);
  TempDir dir;
  const std::string kc = WriteKubeconfig(dir, server);
  const std::string report = std::string(GPUCOST_BINARY) + " report --kubeconfig " + kc +
                             " --by pod --accumulate --price-per-gpu-hour 12 --window "
                             "2026-10-01T00:00:00Z,2026-10-01T01:00:00Z 2>&1 >/dev/null";
  server.FailNext("/apis/resource.k8s.io/v1/resourceclaims", 403, 1);
  const auto forbidden = RunShell(report);
  ASSERT_EQ(forbidden.exit_code, 0) << forbidden.output;
  EXPECT_NE(forbidden.output.find("Kubernetes API: resourceclaims may not be read (HTTP 403"),
            std::string::npos)
      << forbidden.output;
  server.FailNext("/apis/resource.k8s.io/v1/resourceslices", 404, 1);
  server.FailNext("/apis/resource.k8s.io/v1/resourceclaims", 404, 1);
  const auto absent = RunShell(report);
  ASSERT_EQ(absent.exit_code, 0) << absent.output;
  EXPECT_EQ(absent.output.find("may not be read"), std::string::npos) << absent.output;
}

// Whether serve's /metrics at `base` comes to hold `line` within a minute (it attributes every
// second).
bool MetricsComeToHold(const std::string& base, const std::string& line) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (std::chrono::steady_clock::now() < deadline) {
    if (serve_test::Get(base + "/metrics").body.find(line) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// Through the real `gpucost serve`: what the account may not read is on /metrics for as long as
// it lasts, where a platform team's alerts see it (the warning is logged once a process), and
// neither /healthz nor /readyz fails for it.
TEST(DraKubeTest, ServeExportsTheKindsItMayNotRead) {
  FakeApiServer server;
  LoadDraCluster(server);
  server.FailNext("/apis/resource.k8s.io/v1/resourceclaims", 403, 1 << 30);
  TempDir dir;
  const std::string kc = WriteKubeconfig(dir, server);
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  ChildProcess serve({GPUCOST_BINARY, "serve", "--ledger", (dir.path() / "costs.db").string(),
                      "--kubeconfig", kc, "--price-per-gpu-hour", "12", "--interval", "1s",
                      "--listen", "127.0.0.1:" + std::to_string(port)},
                     (dir.path() / "serve.log").string());
  ASSERT_TRUE(serve_test::WaitFor(base + "/readyz", 200, std::chrono::seconds(60))) << serve.Log();
  ASSERT_TRUE(
      MetricsComeToHold(base, "\ngpucost_kube_api_forbidden{resource=\"resourceclaims\"} 1\n"))
      << serve.Log();
  const std::string metrics = serve_test::Get(base + "/metrics").body;
  EXPECT_NE(metrics.find("\n# TYPE gpucost_kube_api_forbidden gauge\n"), std::string::npos);
  // The kinds it reads (or that the cluster does not serve) are 0, not absent.
  EXPECT_NE(metrics.find("\ngpucost_kube_api_forbidden{resource=\"resourceslices\"} 0\n"),
            std::string::npos)
      << metrics;
  EXPECT_EQ(serve_test::Get(base + "/healthz").status, 200);
  // The rule `gpucost rules` writes over it fires on what serve exports.
  const auto rule =
      RunShell(std::string(GPUCOST_BINARY) + " rules --format rules --groups gpucost-serve 2>&1");
  ASSERT_EQ(rule.exit_code, 0) << rule.output;
  EXPECT_NE(rule.output.find("expr: gpucost_kube_api_forbidden == 1"), std::string::npos)
      << rule.output;
  // The ClusterRole is fixed: the next cycle reads the claims.
  server.ClearFailures();
  EXPECT_TRUE(
      MetricsComeToHold(base, "\ngpucost_kube_api_forbidden{resource=\"resourceclaims\"} 0\n"))
      << serve.Log();
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
}

// A cluster that does not serve resource.k8s.io/v1 (before Kubernetes 1.34), or an account that
// may not read it: empty lists, said in the informer's stats, and everything else still read.
TEST(DraKubeTest, AClusterWithoutDraStillReads) {
  FakeApiServer server;
  LoadDraCluster(server);
  server.FailNext("/apis/resource.k8s.io/v1/resourceslices", 404, 1);
  server.FailNext("/apis/resource.k8s.io/v1/resourceclaims", 403, 1);
  FakeClock clock(At("2026-10-01T01:00:00Z"));
  KubeConnection c;
  c.server = server.url();
  KubeSource source(c, {}, clock);
  const Status listed = source.List();
  ASSERT_TRUE(listed.ok()) << listed.ToString();
  std::map<std::string, InformerStats> by_name;
  for (const auto& [name, s] : source.stats().informers) by_name[name] = s;
  EXPECT_NE(by_name["resourceslices"].unserved.find("HTTP 404"), std::string::npos);
  EXPECT_NE(by_name["resourceclaims"].unserved.find("HTTP 403"), std::string::npos);
  EXPECT_TRUE(by_name["pods"].unserved.empty());
  const KubeState k = source.Snapshot();
  EXPECT_TRUE(k.dra_devices.empty());
  EXPECT_EQ(k.pods.size(), 3u);
}

}  // namespace
}  // namespace gpucost::k8s
