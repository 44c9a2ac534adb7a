// The Kubernetes API's objects read from kubectl's JSON (k8s/kube_object_files.h) give the same
// KubeState as the live API source gives for the same objects: the fixture cluster of
// tests/k8s/data/cluster.json plus NVIDIA DRA slices, claims and the pods using them, served by
// the fake API server and written as `kubectl get ... -A -o json` would write them. A bad item is
// a warning naming the file, its index, kind and name, and loses nothing else.
#include "k8s/kube_object_files.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"
#include "k8s/fake_apiserver.h"
#include "k8s/k8s_fixtures.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kube_source.h"

namespace gpucost::k8s {
namespace {

using json = nlohmann::json;
using testing::FakeApiServer;
using testing_util::TempDir;
namespace fx = testing;

constexpr const char* kOfNow = "2026-10-01T02:00:00Z";

json OfSlice(const std::string& name, int generation, const std::vector<std::string>& gpus) {
  json devices = json::array();
  for (const std::string& g : gpus) {
    devices.push_back({{"name", g},
                       {"attributes",
                        {{"type", {{"string", "gpu"}}},
                         {"uuid", {{"string", "GPU-" + g}}},
                         {"productName", {{"string", "NVIDIA H100 80GB HBM3"}}}}},
                       {"capacity", {{"memory", {{"value", "80Gi"}}}}},
                       {"allowMultipleAllocations", g == "gpu-2"}});
  }
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"driver", "gpu.nvidia.com"},
            {"nodeName", "of-dra-1"},
            {"pool", {{"name", "of-dra-1"}, {"generation", generation}, {"resourceSliceCount", 1}}},
            {"devices", std::move(devices)}}}};
}

json OfClaim(const std::string& name, const std::string& device,
             const std::vector<std::string>& pods, const std::string& share = "") {
  json c = {{"apiVersion", "resource.k8s.io/v1"}, {"kind", "ResourceClaim"}};
  c["metadata"] = {{"namespace", "ml"}, {"name", name}};
  json result = {
      {"request", "gpu"}, {"driver", "gpu.nvidia.com"}, {"pool", "of-dra-1"}, {"device", device}};
  if (!share.empty()) {
    result["shareID"] = share;
    result["consumedCapacity"] = {{"memory", "20Gi"}};
  }
  c["status"]["allocation"]["devices"]["results"] = json::array({result});
  json reserved = json::array();
  for (const std::string& p : pods) {
    reserved.push_back({{"resource", "pods"}, {"name", p}, {"uid", fx::UidFor("Pod", "ml", p)}});
  }
  c["status"]["reservedFor"] = reserved;
  return c;
}

json OfDraPod(const std::string& name, const std::string& claim) {
  json p = fx::Pod({.ns = "ml",
                    .name = name,
                    .node = "of-dra-1",
                    .containers = {fx::Container{.name = "main"}},
                    .created = "2026-10-01T00:00:00Z"});
  json ref = {{"name", "gpu"}, {"resourceClaimName", claim}};
  p["spec"]["resourceClaims"] = json::array({ref});
  json use = {{"name", "gpu"}};
  p["spec"]["containers"][0]["resources"]["claims"] = json::array({use});
  return p;
}

// The fixture cluster and a DRA node, by resource name, each object with its kind.
json OfCluster() {
  json c = fx::ClusterFixture();
  c["nodes"].push_back(fx::Node({.name = "of-dra-1", .created = "2026-09-01T00:00:00Z"}));
  c["resourceslices"] = json::array({OfSlice("of-dra-1-old", 1, {"gpu-9"}),
                                     OfSlice("of-dra-1-new", 2, {"gpu-0", "gpu-1", "gpu-2"})});
  c["resourceclaims"] = json::array({OfClaim("of-solo", "gpu-0", {"of-solo"}),
                                     OfClaim("of-pair", "gpu-1", {"of-pair-a", "of-pair-b"}),
                                     OfClaim("of-slice", "gpu-2", {"of-slice"}, "share-1"),
                                     OfClaim("of-pending", "gpu-0", {})});
  c["resourceclaims"].back()["status"] = json::object();
  for (const char* p : {"of-solo", "of-pair-a", "of-pair-b"}) {
    c["pods"].push_back(OfDraPod(p, p == std::string("of-solo") ? "of-solo" : "of-pair"));
  }
  c["pods"].push_back(OfDraPod("of-slice", "of-slice"));
  return c;
}

// Everything a KubeState holds, as JSON, for comparison.
json OfStateJson(const KubeState& s) {
  auto owners = [](const std::vector<OwnerRef>& os) {
    json out = json::array();
    for (const OwnerRef& o : os) out.push_back({o.kind, o.name, o.controller});
    return out;
  };
  auto intervals = [](const std::vector<Interval>& is) {
    json out = json::array();
    for (const Interval& i : is) out.push_back({UnixMs(i.start), UnixMs(i.end)});
    return out;
  };
  json j;
  j["cluster"] = s.cluster;
  j["observed_at"] = UnixMs(s.observed_at);
  for (const KubePod& p : s.pods) {
    json resources = json::array();
    for (const KubeContainerResource& r : p.resources) {
      resources.push_back({r.container, r.resource, r.quantity, r.from_limits, r.replaces});
    }
    j["pods"].push_back({p.namespace_name, p.name, p.uid, p.node, p.phase, p.labels,
                         owners(p.owners), resources, p.container_ids, p.container_names,
                         intervals(p.active)});
  }
  for (const KubeNode& n : s.nodes) {
    j["nodes"].push_back({n.name, n.labels, n.capacity, n.provider_id, intervals(n.present)});
  }
  j["namespace_labels"] = s.namespace_labels;
  for (const auto* m : {&s.replicaset_owners, &s.job_owners}) {
    json o = json::object();
    for (const auto& [ns, by_name] : *m) {
      for (const auto& [name, ref] : by_name) o[ns][name] = {ref.kind, ref.name, ref.controller};
    }
    j[m == &s.replicaset_owners ? "replicasets" : "jobs"] = o;
  }
  for (const KubeDraDevice& d : s.dra_devices) {
    j["devices"].push_back({d.node, d.driver, d.pool, d.name, d.type, d.uuid, d.parent_uuid,
                            d.product, d.profile, d.capacity, d.multiple_allocations});
  }
  for (const KubeDraAllocation& a : s.dra_allocations) {
    j["allocations"].push_back({a.namespace_name, a.claim, a.driver, a.pool, a.device, a.share_id,
                                a.consumed, a.reserved_for});
  }
  return j;
}

KubeSourceOptions OfOptions() {
  KubeSourceOptions o;
  o.cluster = "prod";
  o.label_allowlist = {"app"};
  o.team_label_keys = {"team"};
  o.annotation_allowlist = {"owner"};
  return o;
}

TEST(KubeObjectFilesTest, KubectlListGivesTheLiveSourcesStateAndSkipsABadItem) {
  const json cluster = OfCluster();
  FakeApiServer server;
  for (const char* r : {"namespaces", "nodes", "cronjobs", "jobs", "statefulsets", "daemonsets",
                        "replicasets", "resourceslices", "resourceclaims", "pods"}) {
    for (const json& o : cluster[r]) server.Upsert(r, o);
  }
  FakeClock clock(At(kOfNow));
  KubeConnection c;
  c.server = server.url();
  KubeSource source(c, OfOptions(), clock);
  ASSERT_TRUE(source.List().ok());
  const KubeState live = source.Snapshot();
  ASSERT_EQ(live.dra_devices.size(), 3u);
  ASSERT_EQ(live.dra_allocations.size(), 3u);

  // kubectl's List, in its own order (pods first), with one malformed pod in the middle.
  json list = {{"apiVersion", "v1"},
               {"kind", "List"},
               {"items", json::array()},
               {"metadata", {{"resourceVersion", ""}}}};
  size_t bad_index = 0;
  for (const char* r : {"pods", "nodes", "namespaces", "replicasets", "jobs", "cronjobs",
                        "resourceslices", "resourceclaims"}) {
    for (const json& o : cluster[r]) {
      list["items"].push_back(o);
      if (std::string(r) == "pods" && list["items"].size() == 3) {
        json bad = cluster["pods"][0];
        bad["metadata"]["name"] = "broken-0";
        bad["metadata"]["creationTimestamp"] = "yesterday";
        bad_index = list["items"].size();
        list["items"].push_back(bad);
      }
    }
  }
  TempDir dir;
  const std::string path = (dir.path() / "cluster.json").string();
  std::ofstream(path) << list.dump(2);

  auto read = ReadKubeObjectFiles({path}, OfOptions(), At(kOfNow));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->warnings.size(), 1u);
  const std::string& w = read->warnings[0];
  EXPECT_NE(w.find(path), std::string::npos) << w;
  EXPECT_NE(w.find("item " + std::to_string(bad_index)), std::string::npos) << w;
  EXPECT_NE(
      w.find("Pod " + cluster["pods"][0]["metadata"]["namespace"].get<std::string>() + "/broken-0"),
      std::string::npos)
      << w;
  EXPECT_NE(w.find("creationTimestamp"), std::string::npos) << w;
  EXPECT_EQ(OfStateJson(read->state), OfStateJson(live));
  EXPECT_EQ(read->items, list["items"].size());
  EXPECT_GT(read->state.pods.size(), 4u);

  // The same objects split over files, one of them a single object, read the same.
  json rest = list;
  rest["items"].erase(rest["items"].begin());
  const std::string one = (dir.path() / "one.json").string();
  const std::string two = (dir.path() / "rest.json").string();
  std::ofstream(one) << list["items"][0].dump();
  std::ofstream(two) << rest.dump();
  auto split = ReadKubeObjectFiles({one, two}, OfOptions(), At(kOfNow));
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_EQ(OfStateJson(split->state), OfStateJson(live));
}

// The real binary with the objects alone: each DRA claim's share of an hour at $12 per GPU-hour,
// and the bad claim told on stderr with its file, index, kind and name.
TEST(KubeObjectFilesTest, ReportPricesClaimsFromAnObjectsFile) {
  const json cluster = OfCluster();
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  list["items"].push_back(cluster["nodes"].back());
  for (const char* r : {"resourceslices", "resourceclaims"}) {
    for (const json& o : cluster[r]) list["items"].push_back(o);
  }
  json broken = OfClaim("of-broken", "gpu-2", {"of-slice"}, "share-2");
  broken["status"]["allocation"]["devices"]["results"][0]["consumedCapacity"]["memory"] = "lots";
  list["items"].push_back(broken);
  for (const json& p : cluster["pods"]) {
    if (p["spec"].value("nodeName", "") == "of-dra-1") list["items"].push_back(p);
  }
  TempDir dir;
  const std::string path = (dir.path() / "objects.json").string();
  std::ofstream(path) << list.dump();
  const std::string err = (dir.path() / "err.txt").string();
  const auto r = testing_util::RunShell(
      std::string(GPUCOST_BINARY) + " report --kube-objects " + path +
      " --kube-objects-at 2026-10-01T02:00:00Z --by pod --accumulate --format json "
      "--price-per-gpu-hour 12 --window 2026-10-01T00:00:00Z,2026-10-01T01:00:00Z 2>" +
      err);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream e(err);
  const std::string stderr_text((std::istreambuf_iterator<char>(e)), {});
  EXPECT_NE(stderr_text.find(path + ": item 7 (ResourceClaim ml/of-broken)"), std::string::npos)
      << stderr_text;
  const json doc = json::parse(r.output);
  std::map<std::string, double> allocated;
  for (const json& row : doc["rows"]) {
    allocated[row["pod"].get<std::string>()] = row["allocated_usd"].get<double>();
  }
  EXPECT_NEAR(allocated["of-solo"], 12.0, 1e-9);
  EXPECT_NEAR(allocated["of-pair-a"], 6.0, 1e-9);
  EXPECT_NEAR(allocated["of-pair-b"], 6.0, 1e-9);
  EXPECT_NEAR(allocated["of-slice"], 3.0, 1e-9);
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 36.0, 1e-9);

  // A claim that consumes more than its device has (the scheduler never allocates it) is said,
  // and held to the whole device.
  for (json& item : list["items"]) {
    if (item["kind"] == "ResourceClaim" && item["metadata"]["name"] == "of-slice") {
      item["status"]["allocation"]["devices"]["results"][0]["consumedCapacity"]["memory"] =
          "1000Gi";
    }
  }
  std::ofstream(path, std::ios::trunc) << list.dump();
  const auto over = testing_util::RunShell(
      std::string(GPUCOST_BINARY) + " report --kube-objects " + path +
      " --kube-objects-at 2026-10-01T02:00:00Z --by pod --accumulate --format json "
      "--price-per-gpu-hour 12 --window 2026-10-01T00:00:00Z,2026-10-01T01:00:00Z 2>&1 >/dev/null");
  EXPECT_NE(over.output.find("DRA claim ml/of-slice: device gpu-2 of driver gpu.nvidia.com pool "
                             "of-dra-1 consumes 1073741824000 of its memory capacity"),
            std::string::npos)
      << over.output;
  EXPECT_NE(over.output.find("; taken as all of it"), std::string::npos) << over.output;
}

// A node's GPU capacity that is no device count (100,000,000 GPUs took all memory; 65,537 cost
// $786k an hour; 0.5 added a GPU) is said and left out; the node's other figures stand.
TEST(KubeObjectFilesTest, ANodeCapacityThatIsNoDeviceCountIsSaid) {
  const auto node = [](const std::string& name, const std::string& gpus) {
    return json{{"apiVersion", "v1"},
                {"kind", "Node"},
                {"metadata",
                 {{"name", name},
                  {"uid", "uid-" + name},
                  {"creationTimestamp", "2026-09-01T00:00:00Z"},
                  {"labels", {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}}}}},
                {"status", {{"capacity", {{"nvidia.com/gpu", gpus}, {"cpu", "64"}}}}}};
  };
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
  for (const auto& [name, gpus] : std::vector<std::pair<std::string, std::string>>{
           {"huge", "100000000"}, {"over", "65537"}, {"half", "500m"}, {"ok", "2"}}) {
    list["items"].push_back(node(name, gpus));
  }
  TempDir dir;
  const std::string path = (dir.path() / "nodes.json").string();
  std::ofstream(path) << list.dump();
  const auto r = testing_util::RunShell(
      std::string(GPUCOST_BINARY) + " report --kube-objects " + path +
      " --kube-objects-at 2026-10-01T02:00:00Z --accumulate --format json --price-per-gpu-hour 12"
      " --window 2026-10-01T00:00:00Z,2026-10-01T01:00:00Z 2>&1 >/dev/null; echo rc=$?");
  for (const char* said :
       {"node huge: status.capacity[nvidia.com/gpu] = 1e+08 is not a device count",
        "node over: status.capacity[nvidia.com/gpu] = 65537",
        "node half: status.capacity[nvidia.com/gpu] = 0.5", "rc=0"}) {
    EXPECT_NE(r.output.find(said), std::string::npos) << said << "\n" << r.output;
  }
  const auto report = testing_util::RunShell(
      std::string(GPUCOST_BINARY) + " report --kube-objects " + path +
      " --kube-objects-at 2026-10-01T02:00:00Z --accumulate --format json --price-per-gpu-hour 12"
      " --window 2026-10-01T00:00:00Z,2026-10-01T01:00:00Z 2>/dev/null");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  EXPECT_NEAR(json::parse(report.output)["totals"]["cost_usd"].get<double>(), 24, 1e-9);  // ok's 2
}

TEST(KubeObjectFilesTest, FileErrorsNameTheFileAndTheTimeDefaultsToItsModification) {
  TempDir dir;
  const std::string bad = (dir.path() / "bad.json").string();
  std::ofstream(bad) << "{ not json";
  auto r = ReadKubeObjectFiles({bad}, {}, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(Message(r.status()).find(bad + ":1:4: not JSON"), std::string::npos)
      << r.status().ToString();
  // A file cut short: where it stops, and that it ends early.
  const std::string cut = (dir.path() / "cut.json").string();
  std::ofstream(cut) << "{\n  \"items\": [\n    {\"kind\": \"Pod\"";
  r = ReadKubeObjectFiles({cut}, {}, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(Message(r.status()).find(cut + ":3:"), std::string::npos) << r.status().ToString();
  EXPECT_NE(Message(r.status()).find("it ends early"), std::string::npos) << r.status().ToString();

  // A Pod without its spec, and a kind in the wrong case, are warned items, not silent ones.
  const std::string odd = (dir.path() / "odd.json").string();
  std::ofstream(odd) << R"({"kind": "List", "items": [
      {"kind": "Pod", "metadata": {"name": "p", "namespace": "ml", "uid": "u"}},
      {"kind": "pod", "metadata": {"name": "q", "namespace": "ml", "uid": "v"}, "spec": {}}]})";
  auto warned = ReadKubeObjectFiles({odd}, {}, std::nullopt);
  ASSERT_TRUE(warned.ok()) << warned.status().ToString();
  ASSERT_EQ(warned->warnings.size(), 2u);
  EXPECT_NE(warned->warnings[0].find("item 0 (Pod ml/p): a Pod without its spec; skipped"),
            std::string::npos)
      << warned->warnings[0];
  EXPECT_NE(warned->warnings[1].find("kind \"pod\" is not \"Pod\""), std::string::npos)
      << warned->warnings[1];
  // A List without items is said (its claims and pods would be idle capacity without a word);
  // a file that is no object is refused.
  const std::string empty = (dir.path() / "empty.json").string();
  std::ofstream(empty) << R"({"apiVersion": "v1", "kind": "List", "items": null})";
  auto nothing = ReadKubeObjectFiles({empty}, {}, std::nullopt);
  ASSERT_TRUE(nothing.ok()) << nothing.status().ToString();
  ASSERT_EQ(nothing->warnings.size(), 1u);
  EXPECT_NE(nothing->warnings[0].find(empty + ": holds no objects"), std::string::npos);
  const std::string array = (dir.path() / "array.json").string();
  std::ofstream(array) << "[]";
  auto refused = ReadKubeObjectFiles({array}, {}, std::nullopt);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(Message(refused.status()).find(array + ": not an object or a List"), std::string::npos);
  auto missing = ReadKubeObjectFiles({(dir.path() / "none.json").string()}, {}, std::nullopt);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().ToString().find("none.json"), std::string::npos);

  const std::string node = (dir.path() / "node.json").string();
  std::ofstream(node) << fx::Node({.name = "n1", .created = "2026-09-01T00:00:00Z"}).dump();
  std::filesystem::last_write_time(
      node, std::filesystem::file_time_type::clock::from_sys(
                std::chrono::sys_seconds(std::chrono::seconds(1'790'000'000))));
  auto ok = ReadKubeObjectFiles({node}, {}, std::nullopt);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(UnixMs(ok->state.observed_at), 1'790'000'000'000);
  ASSERT_EQ(ok->state.nodes.size(), 1u);
  EXPECT_EQ(ok->state.nodes[0].present.back().end, ok->state.observed_at);
}

}  // namespace
}  // namespace gpucost::k8s
