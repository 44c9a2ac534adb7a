// InventoryBuilder over kube-state-metrics series, fed sample by sample (no parser involved).
#include <gtest/gtest.h>

#include <sstream>

#include "inventory/inventory_builder.h"
#include "inventory/inventory_test_util.h"

namespace gpucost {
namespace {

using namespace inventory_test;  // NOLINT(google-build-using-namespace): test helpers


const std::string kPod =
    "kube_pod_info{namespace=\"ml\",pod=\"train-0\",uid=\"u1\",node=\"n1\"} 1 %T\n"
    "kube_pod_status_phase{namespace=\"ml\",pod=\"train-0\",uid=\"u1\",phase=\"Running\"} 1 %T\n"
    "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"train-0\",uid=\"u1\",container=\"main\",node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 2 %T\n"
    "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"train-0\",uid=\"u1\",container=\"main\",node=\"n1\",resource=\"cpu\",unit=\"core\"} 4 %T\n";
const std::string kNode =
    "kube_node_labels{node=\"n1\",label_nvidia_com_gpu_product=\"NVIDIA-A100-SXM4-40GB\",label_nvidia_com_gpu_count=\"8\",label_karpenter_sh_capacity_type=\"spot\",label_node_kubernetes_io_instance_type=\"p4d.24xlarge\",label_topology_kubernetes_io_zone=\"us-east-1a\"} 1 %T\n"
    "kube_node_status_capacity{node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 8 %T\n";

TEST(KsmInventory, PlainNodeAndRequest) {
  auto t = Load(Every30s(kNode + kPod, 10));
  const Node* n = FindNode(t, "n1");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->physical_gpus, 8);
  EXPECT_EQ(n->cluster, "default");
  EXPECT_EQ(n->capacity_type, "spot");
  EXPECT_EQ(n->instance_type, "p4d.24xlarge");
  EXPECT_EQ(n->zone, "us-east-1a");
  EXPECT_EQ(n->labels.Get("nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-40GB");
  EXPECT_EQ(n->sharing, SharingMode::kNone);
  auto units = UnitsOf(t, "n1");
  ASSERT_EQ(units.size(), 8u);
  EXPECT_EQ(units[3]->gpu_uuid, "n1-gpu3");
  EXPECT_EQ(units[3]->resource, "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(units[3]->fraction, 1.0);
  ASSERT_EQ(t.inventory.holders.size(), 1u);
  const Holder& h = t.inventory.holders[0];
  EXPECT_EQ(h.pod, "train-0");
  EXPECT_EQ(h.container, "main");
  EXPECT_EQ(h.pod_uid, "u1");
  EXPECT_EQ(h.workload_kind, "Pod");
  EXPECT_EQ(h.team, "ml");
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  const Holding& hd = t.inventory.holdings[0];
  EXPECT_EQ(hd.request.resource, "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(hd.request.count, 2);
  EXPECT_TRUE(hd.units.empty());
  EXPECT_EQ(UnixMs(hd.interval.start), 0);
  EXPECT_EQ(UnixMs(hd.interval.end), 300000);
  EXPECT_EQ(UnixMs(t.span.start), 0);
  EXPECT_EQ(UnixMs(t.span.end), 300000);
}

// kube-state-metrics scraped through its pod without honor_labels: Prometheus renames each
// series' namespace, pod, container and node to exported_* and adds its own (the exporter pod's).
// The exported_* ones are the objects' (before, kube-state-metrics' pod held the GPUs), and a
// warning says how to scrape it.
TEST(KsmInventory, ExportedLabelsOfAScrapeWithoutHonorLabelsAreTheObjects) {
  std::string renamed;
  std::istringstream lines(kNode + kPod);
  for (std::string line; std::getline(lines, line);) {
    for (const char* name : {"namespace", "pod", "container", "node"}) {
      for (const std::string sep : {"{", ","}) {
        const std::string from = sep + name + "=\"";
        if (const size_t at = line.find(from); at != std::string::npos) {
          line.replace(at, from.size(), sep + "exported_" + name + "=\"");
        }
      }
    }
    line.replace(line.find('{'), 1,
                 "{namespace=\"monitoring\",pod=\"kube-state-metrics-0\",node=\"infra-1\",");
    renamed += line + "\n";
  }
  ASSERT_NE(renamed.find("exported_pod=\"train-0\""), std::string::npos) << renamed;
  auto t = Load(Every30s(renamed, 10));
  ASSERT_NE(FindNode(t, "n1"), nullptr);
  EXPECT_EQ(FindNode(t, "infra-1"), nullptr);
  EXPECT_EQ(UnitsOf(t, "n1").size(), 8u);
  ASSERT_EQ(t.inventory.holders.size(), 1u);
  EXPECT_EQ(t.inventory.holders[0].pod, "train-0");
  EXPECT_EQ(t.inventory.holders[0].namespace_name, "ml");
  EXPECT_EQ(t.inventory.holders[0].container, "main");
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  EXPECT_DOUBLE_EQ(t.inventory.holdings[0].request.count, 2);
  bool said = false;
  for (const InputWarning& w : t.warnings)
    said |= w.message.find("honor_labels") != std::string::npos;
  EXPECT_TRUE(said);
}

// A pod's series without its pod or resource label holds nothing and says so (its GPUs were
// idle with no word); one without a namespace holds under none, and says so.
TEST(KsmInventory, SeriesWithoutTheirIdentityAreSaid) {
  const auto drop = [](std::string text, const std::string& label) {
    for (size_t at = text.find(label + "=\""); at != std::string::npos;
         at = text.find(label + "=\"")) {
      const size_t end = text.find('"', at + label.size() + 2);
      const size_t cut = text[end + 1] == ',' ? end + 2 : end + 1;
      text.erase(at, cut - at);
    }
    return text;
  };
  auto no_pod = Load(Every30s(kNode + drop(kPod, "pod"), 2));
  EXPECT_TRUE(no_pod.inventory.holdings.empty());
  EXPECT_TRUE(
      HasWarning(no_pod, "kube_pod_container_resource_requests has no pod label: not read"));
  EXPECT_TRUE(HasWarning(no_pod, "kube_pod_info has no pod label: not read"));
  auto no_resource = Load(Every30s(kNode + drop(kPod, "resource"), 2));
  EXPECT_TRUE(no_resource.inventory.holdings.empty());
  EXPECT_TRUE(
      HasWarning(no_resource, "kube_pod_container_resource_requests has no resource label"));
  auto no_ns = Load(Every30s(kNode + drop(kPod, "namespace"), 2));
  EXPECT_EQ(no_ns.inventory.holdings.size(), 1u);
  EXPECT_TRUE(
      HasWarning(no_ns, "has no namespace label: its pod train-0 holds under no namespace"));
  EXPECT_TRUE(Load(Every30s(kNode + kPod, 2)).warnings.empty());
}

// A pod seen in one scrape, beside nodes scraped every 5 minutes, is held for the nodes' interval
// (the input's own), not a default of 30 s: a fetch that ends just after the pod's first scrape
// must give what the files holding its next scrapes give.
TEST(KsmInventory, ASeriesSeenOnceHoldsForTheInputsOwnInterval) {
  std::string text;
  for (int i = 0; i < 4; ++i) {
    std::string chunk = kNode;
    const std::string t = std::to_string(i * 300000);
    for (size_t p = chunk.find("%T"); p != std::string::npos; p = chunk.find("%T")) {
      chunk.replace(p, 2, t);
    }
    text += chunk;
  }
  std::string pod = kPod;
  for (size_t p = pod.find("%T"); p != std::string::npos; p = pod.find("%T")) {
    pod.replace(p, 2, "900000");
  }
  auto t = Load(text + pod);
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  EXPECT_EQ(UnixMs(t.inventory.holdings[0].interval.start), 900000);
  EXPECT_EQ(UnixMs(t.inventory.holdings[0].interval.end), 1200000);
  // With nothing to learn from (every series seen once), the setting.
  auto alone = Load(pod);
  ASSERT_EQ(alone.inventory.holdings.size(), 1u);
  EXPECT_EQ(UnixMs(alone.inventory.holdings[0].interval.end), 930000);
}

TEST(KsmInventory, SucceededEndsTheHoldingAndPendingWithoutNodeHoldsNothing) {
  std::string text;
  // Pending unscheduled for 2 scrapes, Running for 4, Succeeded for 4.
  for (int i = 0; i < 10; ++i) {
    const std::string ts = std::to_string(i * 30000);
    const std::string phase = i < 2 ? "Pending" : i < 6 ? "Running" : "Succeeded";
    const std::string node = i < 2 ? "" : "n1";
    text += "kube_pod_info{namespace=\"ml\",pod=\"p\",uid=\"u\",node=\"" + node + "\"} 1 " + ts + "\n";
    for (const char* ph : {"Pending", "Running", "Succeeded"}) {
      text += std::string("kube_pod_status_phase{namespace=\"ml\",pod=\"p\",uid=\"u\",phase=\"") + ph +
              "\"} " + (phase == ph ? "1 " : "0 ") + ts + "\n";
    }
    text += "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"p\",uid=\"u\",container=\"c\",node=\"" +
            node + "\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1 " + ts + "\n";
  }
  auto t = Load(Every30s(kNode, 10) + text);
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  EXPECT_EQ(UnixMs(t.inventory.holdings[0].interval.start), 60000);
  EXPECT_EQ(UnixMs(t.inventory.holdings[0].interval.end), 180000);
}

TEST(KsmInventory, OwnerChainsTeamAndLabels) {
  const std::string text =
      "kube_pod_owner{namespace=\"ml\",pod=\"train-0\",uid=\"u1\",owner_kind=\"Job\",owner_name=\"nightly-28\",owner_is_controller=\"true\"} 1 %T\n"
      "kube_job_owner{namespace=\"ml\",job_name=\"nightly-28\",owner_kind=\"CronJob\",owner_name=\"nightly\",owner_is_controller=\"true\"} 1 %T\n"
      "kube_pod_labels{namespace=\"ml\",pod=\"train-0\",uid=\"u1\",label_app_kubernetes_io_name=\"trainer\",label_cost_center=\"42\"} 1 %T\n"
      "kube_namespace_labels{namespace=\"ml\",label_team=\"research\"} 1 %T\n";
  TimelineOptions o;
  o.known_label_keys = {"cost-center"};
  auto t = Load(Every30s(kNode + kPod + text, 4), o);
  ASSERT_EQ(t.inventory.holders.size(), 1u);
  const Holder& h = t.inventory.holders[0];
  EXPECT_EQ(h.workload, "nightly");
  EXPECT_EQ(h.workload_kind, "CronJob");
  EXPECT_EQ(h.team, "research");  // no pod label `team`: the namespace's
  EXPECT_EQ(h.labels.Get("app.kubernetes.io/name"), "trainer");
  EXPECT_EQ(h.labels.Get("cost-center"), "42");
  EXPECT_EQ(h.labels.Get("team"), "research");
}

TEST(KsmInventory, DeploymentViaReplicaSetAndPodTeamLabel) {
  const std::string text =
      "kube_pod_owner{namespace=\"ml\",pod=\"train-0\",uid=\"u1\",owner_kind=\"ReplicaSet\",owner_name=\"web-abc\",owner_is_controller=\"true\"} 1 %T\n"
      "kube_replicaset_owner{namespace=\"ml\",replicaset=\"web-abc\",owner_kind=\"Deployment\",owner_name=\"web\",owner_is_controller=\"true\"} 1 %T\n"
      "kube_pod_labels{namespace=\"ml\",pod=\"train-0\",uid=\"u1\",label_team=\"vision\"} 1 %T\n"
      "kube_namespace_labels{namespace=\"ml\",label_team=\"research\"} 1 %T\n";
  auto t = Load(Every30s(kNode + kPod + text, 4));
  ASSERT_EQ(t.inventory.holders.size(), 1u);
  EXPECT_EQ(t.inventory.holders[0].workload, "web");
  EXPECT_EQ(t.inventory.holders[0].workload_kind, "Deployment");
  EXPECT_EQ(t.inventory.holders[0].team, "vision");
}

TEST(KsmInventory, LimitsAreTheFallbackAndUnknownGpuResourcesWarn) {
  const std::string text =
      "kube_pod_info{namespace=\"ml\",pod=\"q\",uid=\"u2\",node=\"n1\"} 1 %T\n"
      "kube_pod_status_phase{namespace=\"ml\",pod=\"q\",uid=\"u2\",phase=\"Running\"} 1 %T\n"
      "kube_pod_container_resource_limits{namespace=\"ml\",pod=\"q\",uid=\"u2\",container=\"c\",node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1 %T\n"
      "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"q\",uid=\"u2\",container=\"c\",node=\"n1\",resource=\"gpu_intel_com_i915\",unit=\"integer\"} 1 %T\n";
  auto t = Load(Every30s(kNode + text, 3));
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  EXPECT_EQ(t.inventory.holdings[0].request.resource, "nvidia.com/gpu");
  EXPECT_TRUE(HasWarning(t, "t.prom:6: unknown GPU-like resource \"gpu_intel_com_i915\""));
}

// A node capacity or pod phase sample that is no count (NaN, negative, infinite, or more
// devices than any node has) is skipped with a warning naming file, line and node or pod; the
// series' other samples stand. A capacity that changes is said; the latest stands.
TEST(KsmInventory, CapacityAndPhaseSamplesThatAreNoCountAreSkippedAndSaid) {
  for (const std::string bad : {"NaN", "-1", "+Inf", "1e20"}) {
    std::string text = Every30s(kNode + kPod, 9);
    std::string last = Every30s(kNode + kPod, 1, 9);
    last.replace(last.find("nvidia_com_gpu\",unit=\"integer\"} 8"), 38,
                 "nvidia_com_gpu\",unit=\"integer\"} " + bad);
    last.replace(last.find("phase=\"Running\"} 1"), 18, "phase=\"Running\"} " + bad);
    auto t = Load(text + last);
    const Node* n = FindNode(t, "n1");
    ASSERT_NE(n, nullptr) << bad;
    EXPECT_EQ(n->physical_gpus, 8) << bad;
    EXPECT_EQ(UnitsOf(t, "n1").size(), 8u) << bad;
    ASSERT_EQ(t.inventory.holdings.size(), 1u) << bad;
    // The skipped last phase sample is a missed scrape: Running holds to the one before's end.
    EXPECT_EQ(UnixMs(t.inventory.holdings[0].interval.end), 270000) << bad;
    EXPECT_TRUE(HasWarning(t, "kube_node_status_capacity of node n1 (nvidia_com_gpu) is")) << bad;
    EXPECT_TRUE(HasWarning(t, "kube_pod_status_phase of pod ml/train-0 is")) << bad;
    EXPECT_TRUE(HasWarning(t, "; sample skipped")) << bad;
  }
  std::string shrunk = Every30s(kNode + kPod, 1, 9);
  shrunk.replace(shrunk.find("unit=\"integer\"} 8"), 17, "unit=\"integer\"} 4");
  auto t = Load(Every30s(kNode + kPod, 9) + shrunk);
  EXPECT_TRUE(HasWarning(t, "node n1: nvidia_com_gpu capacity changed from 8 to 4"))
      << t.warnings.size();
}

// Without dcgm data, GFD's gpu.count short of the device plugin's capacity is stale: the larger
// count is the node's, and the difference is said; a label that is not all digits is no count.
TEST(KsmInventory, AGfdCountShortOfCapacityIsSaidAndTheLargerTaken) {
  std::string node = kNode;
  node.replace(node.find("gpu_count=\"8\""), 13, "gpu_count=\"1\"");
  auto t = Load(Every30s(node, 3));
  EXPECT_EQ(FindNode(t, "n1")->physical_gpus, 8);
  EXPECT_TRUE(HasWarning(t, "node n1: GFD gpu.count says 1 GPUs but the node's capacity is 8"));
  node = kNode;
  node.replace(node.find("gpu_count=\"8\""), 13, "gpu_count=\"1e1\"");
  t = Load(Every30s(node, 3));
  EXPECT_EQ(FindNode(t, "n1")->physical_gpus, 8);  // from capacity; "1e1" is not 1
  EXPECT_FALSE(HasWarning(t, "gpu.count says"));
}

TEST(KsmInventory, TimeSlicingUsesGfdCountNotInflatedCapacity) {
  const std::string node =
      "kube_node_labels{node=\"ts\",label_nvidia_com_gpu_product=\"Tesla-T4-SHARED\",label_nvidia_com_gpu_count=\"2\",label_nvidia_com_gpu_replicas=\"4\",label_nvidia_com_gpu_sharing_strategy=\"time-slicing\"} 1 %T\n"
      "kube_node_status_capacity{node=\"ts\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 8 %T\n";
  auto t = Load(Every30s(node, 3));
  const Node* n = FindNode(t, "ts");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->physical_gpus, 2);
  EXPECT_EQ(n->sharing, SharingMode::kTimeSlicing);
  EXPECT_EQ(n->replicas, 4);
  auto units = UnitsOf(t, "ts");
  ASSERT_EQ(units.size(), 8u);
  EXPECT_DOUBLE_EQ(units[0]->fraction, 0.25);
  EXPECT_EQ(units[0]->resource, "nvidia.com/gpu");
  EXPECT_EQ(units[5]->partition.ToString(), "replica:1");
}

TEST(KsmInventory, TimeSlicingRenamedByDefault) {
  const std::string node =
      "kube_node_labels{node=\"ts\",label_nvidia_com_gpu_count=\"1\",label_nvidia_com_gpu_replicas=\"10\",label_nvidia_com_gpu_sharing_strategy=\"mps\"} 1 %T\n"
      "kube_node_status_capacity{node=\"ts\",resource=\"nvidia_com_gpu_shared\",unit=\"integer\"} 10 %T\n"
      "kube_node_status_capacity{node=\"ts\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 0 %T\n";
  auto t = Load(Every30s(node, 3));
  const Node* n = FindNode(t, "ts");
  EXPECT_EQ(n->physical_gpus, 1);
  EXPECT_EQ(n->sharing, SharingMode::kMps);
  auto units = UnitsOf(t, "ts");
  ASSERT_EQ(units.size(), 10u);
  EXPECT_EQ(units[9]->resource, "nvidia.com/gpu.shared");
  EXPECT_DOUBLE_EQ(units[9]->fraction, 0.1);
}

TEST(KsmInventory, ReplicasInferredFromCapacityWhenLabelMissing) {
  const std::string node =
      "kube_node_labels{node=\"ts\",label_nvidia_com_gpu_count=\"8\",label_nvidia_com_gpu_sharing_strategy=\"time-slicing\"} 1 %T\n"
      "kube_node_status_capacity{node=\"ts\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 80 %T\n";
  auto t = Load(Every30s(node, 2));
  EXPECT_EQ(FindNode(t, "ts")->physical_gpus, 8);
  EXPECT_EQ(FindNode(t, "ts")->replicas, 10);
}

TEST(KsmInventory, HamiRequests) {
  const std::string text =
      "kube_node_labels{node=\"h\",label_nvidia_com_gpu_count=\"2\"} 1 %T\n"
      "kube_node_status_capacity{node=\"h\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 20 %T\n"
      "kube_pod_info{namespace=\"a\",pod=\"v\",uid=\"u\",node=\"h\"} 1 %T\n"
      "kube_pod_status_phase{namespace=\"a\",pod=\"v\",uid=\"u\",phase=\"Running\"} 1 %T\n"
      "kube_pod_container_resource_limits{namespace=\"a\",pod=\"v\",uid=\"u\",container=\"c\",node=\"h\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1 %T\n"
      "kube_pod_container_resource_limits{namespace=\"a\",pod=\"v\",uid=\"u\",container=\"c\",node=\"h\",resource=\"nvidia_com_gpucores\",unit=\"integer\"} 30 %T\n"
      "kube_pod_container_resource_limits{namespace=\"a\",pod=\"v\",uid=\"u\",container=\"c\",node=\"h\",resource=\"nvidia_com_gpumem\",unit=\"integer\"} 3000 %T\n";
  auto t = Load(Every30s(text, 3));
  const Node* n = FindNode(t, "h");
  EXPECT_EQ(n->sharing, SharingMode::kHami);
  EXPECT_EQ(n->physical_gpus, 2);
  auto units = UnitsOf(t, "h");
  ASSERT_EQ(units.size(), 2u);
  EXPECT_DOUBLE_EQ(units[0]->fraction, 1.0);
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  const Request& r = t.inventory.holdings[0].request;
  EXPECT_EQ(r.resource, "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(r.count, 1);
  EXPECT_DOUBLE_EQ(r.hami_cores_percent, 30);
  EXPECT_DOUBLE_EQ(r.hami_mem_mib, 3000);
  EXPECT_LT(r.hami_mem_percent, 0);
}

TEST(KsmInventory, MigSingleStrategyFromLabels) {
  const std::string node =
      "kube_node_labels{node=\"m\",label_nvidia_com_gpu_product=\"NVIDIA-H100-NVL-MIG-1g.12gb\",label_nvidia_com_gpu_count=\"14\",label_nvidia_com_mig_strategy=\"single\"} 1 %T\n"
      "kube_node_status_capacity{node=\"m\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 14 %T\n";
  auto t = Load(Every30s(node, 2));
  const Node* n = FindNode(t, "m");
  EXPECT_EQ(n->sharing, SharingMode::kMig);
  EXPECT_TRUE(n->mig_single);
  EXPECT_EQ(n->physical_gpus, 2);  // 14 MIG devices / 7 per GPU
  int slices = 0;
  for (const GpuUnit* u : UnitsOf(t, "m")) {
    if (!u->holdable) continue;
    ++slices;
    EXPECT_EQ(u->resource, "nvidia.com/gpu");
    EXPECT_EQ(u->mig_profile, "1g.12gb");
    EXPECT_DOUBLE_EQ(u->fraction, 1.0 / 7);
  }
  EXPECT_EQ(slices, 14);
}

TEST(KsmInventory, MigMixedStrategyFromCapacity) {
  const std::string node =
      "kube_node_labels{node=\"m\",label_nvidia_com_gpu_product=\"NVIDIA-A100-SXM4-40GB\",label_nvidia_com_gpu_count=\"1\",label_nvidia_com_mig_strategy=\"mixed\"} 1 %T\n"
      "kube_node_status_capacity{node=\"m\",resource=\"nvidia_com_mig_1g_5gb\",unit=\"integer\"} 2 %T\n"
      "kube_node_status_capacity{node=\"m\",resource=\"nvidia_com_mig_3g_20gb\",unit=\"integer\"} 1 %T\n";
  auto t = Load(Every30s(node, 2));
  const Node* n = FindNode(t, "m");
  EXPECT_FALSE(n->mig_single);
  EXPECT_EQ(n->physical_gpus, 1);
  double holdable = 0, rest = 0;
  int small = 0;
  for (const GpuUnit* u : UnitsOf(t, "m")) {
    (u->holdable ? holdable : rest) += u->fraction;
    if (u->resource == "nvidia.com/mig-1g.5gb") ++small;
  }
  EXPECT_EQ(small, 2);
  EXPECT_NEAR(holdable, 5.0 / 7, 1e-12);
  EXPECT_NEAR(rest, 2.0 / 7, 1e-12);  // unpartitioned slices are capacity too
}

TEST(KsmInventory, NodeJoinAndLeave) {
  const std::string early = "kube_node_labels{node=\"a\",label_nvidia_com_gpu_count=\"1\"} 1 %T\n";
  const std::string late = "kube_node_labels{node=\"b\",label_nvidia_com_gpu_count=\"1\"} 1 %T\n";
  auto t = Load(Every30s(early, 4, 0) + Every30s(late, 4, 10));
  const Node* a = FindNode(t, "a");
  const Node* b = FindNode(t, "b");
  ASSERT_EQ(a->present.size(), 1u);
  EXPECT_EQ(UnixMs(a->present[0].start), 0);
  EXPECT_EQ(UnixMs(a->present[0].end), 120000);
  ASSERT_EQ(b->present.size(), 1u);
  EXPECT_EQ(UnixMs(b->present[0].start), 300000);
  EXPECT_EQ(UnixMs(b->present[0].end), 420000);
  EXPECT_EQ(UnixMs(t.span.end), 420000);
}

TEST(KsmInventory, WindowClipsAndClusterLabelWins) {
  TimelineOptions o;
  o.window = Window{InstantFromUnixMs(60000), InstantFromUnixMs(120000)};
  std::string text = kNode + kPod;
  for (size_t p = text.find("{"); p != std::string::npos; p = text.find("{", p + 1)) {
    text.insert(p + 1, "cluster=\"prod\",");
  }
  auto t = Load(Every30s(text, 10), o);
  EXPECT_EQ(FindNode(t, "n1")->cluster, "prod");
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  EXPECT_EQ(UnixMs(t.inventory.holdings[0].interval.start), 60000);
  EXPECT_EQ(UnixMs(t.inventory.holdings[0].interval.end), 120000);
  EXPECT_EQ(t.inventory.holders[0].cluster, "prod");
}

}  // namespace
}  // namespace gpucost
