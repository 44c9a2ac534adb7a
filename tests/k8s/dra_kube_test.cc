// Dynamic Resource Allocation through the fake API server (resource.k8s.io/v1 as the Kubernetes
// API writes it; field paths in docs/k8s.md "Dynamic Resource Allocation"): ResourceSlices from
// NVIDIA's DRA driver, a claim made from a template for one pod and a claim two pods share, read
// by KubeSource, turned into units and holdings by the inventory builder, and priced by the real
// `gpucost report --kubeconfig`. A cluster that does not serve resource.k8s.io/v1 still reads.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"
#include "inventory/inventory_builder.h"
#include "k8s/fake_apiserver.h"
#include "k8s/k8s_fixtures.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kube_source.h"

namespace gpucost::k8s {
namespace {

using json = nlohmann::json;
using testing::FakeApiServer;
using testing_util::RunShell;
using testing_util::TempDir;
namespace fx = testing;

constexpr const char* kStart = "2026-10-01T00:00:00Z";

json GpuDevice(const std::string& name, const std::string& uuid) {
  return {{"name", name},
          {"attributes",
           {{"type", {{"string", "gpu"}}},
            {"uuid", {{"string", uuid}}},
            {"productName", {{"string", "NVIDIA H100 80GB HBM3"}}},
            {"driverVersion", {{"version", "570.124.6"}}},
            {"resource.kubernetes.io/pciBusID", {{"string", "0000:18:00.0"}}}}},
          {"capacity", {{"memory", {{"value", "81559Mi"}}}}}};
}

json Slice(const std::string& name, int generation, json devices) {
  return {{"metadata", {{"name", name}}},
          {"spec",
           {{"driver", "gpu.nvidia.com"},
            {"nodeName", "dra-1"},
            {"pool", {{"name", "dra-1"}, {"generation", generation}, {"resourceSliceCount", 1}}},
            {"devices", std::move(devices)}}}};
}

json Claim(const std::string& name, const std::string& device, json reserved_for,
           json owners = json::array()) {
  json c = json::object();
  c["metadata"] = {{"namespace", "ml"}, {"name", name}, {"ownerReferences", std::move(owners)}};
  json request = json::object();
  request["name"] = "gpu";
  request["exactly"] = {{"deviceClassName", "gpu.nvidia.com"}, {"count", 1}};
  c["spec"]["devices"]["requests"] = json::array({request});
  json result = json::object();
  result["request"] = "gpu";
  result["driver"] = "gpu.nvidia.com";
  result["pool"] = "dra-1";
  result["device"] = device;
  c["status"]["allocation"]["devices"]["results"] = json::array({result});
  c["status"]["reservedFor"] = std::move(reserved_for);
  return c;
}

json Reserved(const std::string& pod) {
  return {{"resource", "pods"}, {"name", pod}, {"uid", fx::UidFor("Pod", "ml", pod)}};
}

// A pod whose one container uses pod claim "gpu": a claim by name, or one made from a template
// whose generated name the pod's status gives.
json DraPod(const std::string& name, const std::string& claim, bool from_template) {
  json p = fx::Pod({.ns = "ml",
                    .name = name,
                    .node = "dra-1",
                    .containers = {fx::Container{.name = "main"}},
                    .created = kStart,
                    .started = kStart});
  json ref = {{"name", "gpu"}};
  if (from_template) {
    ref["resourceClaimTemplateName"] = "one-gpu";
    json status = json::object();
    status["name"] = "gpu";
    status["resourceClaimName"] = claim;
    p["status"]["resourceClaimStatuses"] = json::array({status});
  } else {
    ref["resourceClaimName"] = claim;
  }
  p["spec"]["resourceClaims"] = json::array({ref});
  json use = json::object();
  use["name"] = "gpu";
  p["spec"]["containers"][0]["resources"]["claims"] = json::array({use});
  return p;
}

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
  std::map<std::string, std::pair<std::string, double>> held;  // pod -> (GPU, share)
  for (const Holding& h : inv.holdings) {
    ASSERT_EQ(h.units.size(), 1u);
    held[inv.holders[h.holder].pod] = {inv.units[h.units[0]].gpu_uuid, h.unit_share};
  }
  EXPECT_EQ(held["train-0"], (std::pair<std::string, double>{"GPU-aaaa", 1.0}));
  EXPECT_EQ(held["infer-a"], (std::pair<std::string, double>{"GPU-bbbb", 0.5}));
  EXPECT_EQ(held["infer-b"], (std::pair<std::string, double>{"GPU-bbbb", 0.5}));
}

// The real binary against the same API: the money per pod, and none idle.
TEST(DraKubeTest, ReportPricesEachClaimsShare) {
  FakeApiServer server;
  LoadDraCluster(server);
  TempDir dir;
  const std::string kc = (dir.path() / "kc.yaml").string();
  std::ofstream(kc) << "apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: f\n"
                    << "  cluster:\n    server: " << server.url() << "\ncontexts:\n- name: t\n"
                    << "  context:\n    cluster: f\n    user: u\nusers:\n- name: u\n  user: {}\n";
  const auto r = RunShell(std::string(GPUCOST_BINARY) + " report --kubeconfig " + kc +
                          " --by pod --accumulate --format json --price-per-gpu-hour 12 --window "
                          "2026-10-01T00:00:00Z,2026-10-01T01:00:00Z 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  std::map<std::string, double> allocated;
  double idle = 0;
  for (const json& row : doc["rows"]) {
    if (row["pod"] == "__idle__") {
      idle += row["idle_usd"].get<double>();
    } else {
      allocated[row["pod"].get<std::string>()] = row["allocated_usd"].get<double>();
    }
  }
  EXPECT_NEAR(allocated["train-0"], 12.0, 1e-9);
  EXPECT_NEAR(allocated["infer-a"], 6.0, 1e-9);
  EXPECT_NEAR(allocated["infer-b"], 6.0, 1e-9);
  EXPECT_NEAR(idle, 0.0, 1e-9);
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 24.0, 1e-9);
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
