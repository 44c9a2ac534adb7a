// InventoryBuilder with the Kubernetes API's view of a cluster (KubeState), alone and merged with
// kube-state-metrics series (docs/k8s.md "Merging with kube-state-metrics").
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "inventory/inventory_builder.h"
#include "inventory/inventory_test_util.h"

namespace gpucost {
namespace {

using namespace inventory_test;  // NOLINT(google-build-using-namespace): test helpers

Instant T(int64_t s) { return InstantFromUnixMs(s * 1000); }

KubeNode ApiNode(const std::string& name, std::map<std::string, std::string> labels,
                 std::map<std::string, double> capacity) {
  KubeNode n;
  n.name = name;
  n.labels = std::move(labels);
  n.capacity = std::move(capacity);
  n.present = {Interval{T(0), T(3600)}};
  return n;
}

KubePod ApiPod(const std::string& ns, const std::string& name, const std::string& node,
               const std::string& resource, double quantity, Interval active) {
  KubePod p;
  p.namespace_name = ns;
  p.name = name;
  p.uid = "uid-" + name;
  p.node = node;
  p.phase = "Running";
  p.resources.push_back({"main", resource, quantity, false, {}});
  p.active = {active};
  return p;
}

const Holder* FindHolder(const LoadedTimeline& t, const std::string& pod) {
  for (const Holder& h : t.inventory.holders) {
    if (h.pod == pod) return &h;
  }
  return nullptr;
}

// The inventory of the API's view alone, over the first hour.
Result<LoadedTimeline> BuildFirstHour(const KubeState& k) {
  TimelineOptions o;
  o.window = Window{T(0), T(3600)};
  o.kube_states.push_back(k);
  InventoryBuilder b(o);
  return b.Build();
}

bool Warned(const LoadedTimeline& t, const std::string& text) {
  for (const InputWarning& w : t.warnings) {
    if (w.ToString().find(text) != std::string::npos) return true;
  }
  return false;
}

double HeldHours(const LoadedTimeline& t, const std::string& pod) {
  double hours = 0;
  for (const Holding& h : t.inventory.holdings) {
    if (t.inventory.holders[h.holder].pod == pod) hours += Hours(h.interval.end - h.interval.start);
  }
  return hours;
}

TEST(KubeMergeTest, ApiAloneGivesNodesHoldersAndSchedules) {
  KubeState k;
  k.observed_at = T(3600);
  k.nodes.push_back(ApiNode("mig", {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb"},
                                    {"nvidia.com/gpu.count", "1"},
                                    {"nvidia.com/mig.strategy", "single"},
                                    {"karpenter.sh/capacity-type", "spot"},
                                    {"node.kubernetes.io/instance-type", "p4d.24xlarge"}},
                            {{"nvidia.com/gpu", 7}}));
  KubePod train = ApiPod("ml", "train-0", "mig", "nvidia.com/gpu", 2, Interval{T(600), T(1800)});
  train.owners = {OwnerRef{"Job", "train-28999", true}};
  train.labels = {{"team", "vision"}, {"app.kubernetes.io/name", "trainer"}};
  k.pods.push_back(train);
  k.job_owners["ml"]["train-28999"] = OwnerRef{"CronJob", "train", true};
  k.namespace_labels["ml"] = {{"team", "research"}};
  TimelineOptions o;
  o.window = Window{T(0), T(3600)};
  o.kube_states.push_back(k);
  InventoryBuilder b(o);
  auto r = b.Build();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->inventory.nodes.size(), 1u);
  const Node& n = r->inventory.nodes[0];
  EXPECT_EQ(n.sharing, SharingMode::kMig);
  EXPECT_TRUE(n.mig_single);
  EXPECT_EQ(n.capacity_type, "spot");
  EXPECT_EQ(n.instance_type, "p4d.24xlarge");
  EXPECT_EQ(n.labels.Get("nvidia.com/mig.strategy"), "single");
  const Holder* h = FindHolder(*r, "train-0");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->workload, "train");
  EXPECT_EQ(h->workload_kind, "CronJob");
  EXPECT_EQ(h->team, "vision");  // the pod's label wins over its namespace's
  EXPECT_EQ(h->labels.Get("app.kubernetes.io/name"), "trainer");
  EXPECT_EQ(h->pod_uid, "uid-train-0");
  EXPECT_DOUBLE_EQ(HeldHours(*r, "train-0"), 20.0 / 60.0);
}

TEST(KubeMergeTest, ApiIdentityWinsOverKsmButKsmScheduleStays) {
  // KSM saw the pod for 10 minutes with no labels (no allow-list) and no owner; the API knows its
  // Deployment and labels, and thinks it has run for an hour (it cannot know better).
  const std::string ksm = Every30s(
      "kube_node_labels{node=\"n1\",label_nvidia_com_gpu_count=\"1\"} 1 %T\n"
      "kube_node_status_capacity{node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1 %T\n"
      "kube_pod_info{namespace=\"web\",pod=\"api-7d4b9c8f6d-x\",uid=\"u1\",node=\"n1\"} 1 %T\n"
      "kube_pod_status_phase{namespace=\"web\",pod=\"api-7d4b9c8f6d-x\",uid=\"u1\",phase=\"Running\"} 1 %T\n"
      "kube_pod_container_resource_requests{namespace=\"web\",pod=\"api-7d4b9c8f6d-x\",uid=\"u1\","
      "container=\"main\",node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1 %T\n",
      20);
  KubeState k;
  k.observed_at = T(3600);
  KubePod p = ApiPod("web", "api-7d4b9c8f6d-x", "n1", "nvidia.com/gpu", 1, Interval{T(0), T(3600)});
  p.uid = "u1";
  p.owners = {OwnerRef{"ReplicaSet", "api-7d4b9c8f6d", true}};
  p.labels = {{"cost-center", "cc-42"}};
  k.pods.push_back(p);
  k.replicaset_owners["web"]["api-7d4b9c8f6d"] = OwnerRef{"Deployment", "api-server", true};
  TimelineOptions o;
  o.window = Window{T(0), T(3600)};
  o.kube_states.push_back(k);
  o.team_labels = {"pod:cost-center"};
  const LoadedTimeline t = Load(ksm, o);
  const Holder* h = FindHolder(t, "api-7d4b9c8f6d-x");
  ASSERT_NE(h, nullptr);
  // The Deployment named by the API's ReplicaSet, not the name inferred from the hash.
  EXPECT_EQ(h->workload, "api-server");
  EXPECT_EQ(h->workload_kind, "Deployment");
  EXPECT_EQ(h->team, "cc-42");
  EXPECT_EQ(h->labels.Get("cost-center"), "cc-42");
  EXPECT_DOUBLE_EQ(HeldHours(t, "api-7d4b9c8f6d-x"), 600.0 / 3600.0);  // KSM's 10 minutes
}

TEST(KubeMergeTest, KsmPodsTheApiForgotKeepKsmIdentityAndApiOwnerTables) {
  // A Job pod deleted since: only KSM shows it; the API still has its Job (owned by a CronJob).
  const std::string ksm = Every30s(
      "kube_node_labels{node=\"n1\",label_nvidia_com_gpu_count=\"1\"} 1 %T\n"
      "kube_pod_info{namespace=\"b\",pod=\"nightly-1-abc\",uid=\"u9\",node=\"n1\"} 1 %T\n"
      "kube_pod_owner{namespace=\"b\",pod=\"nightly-1-abc\",uid=\"u9\",owner_kind=\"Job\","
      "owner_name=\"nightly-1\",owner_is_controller=\"true\"} 1 %T\n"
      "kube_pod_status_phase{namespace=\"b\",pod=\"nightly-1-abc\",uid=\"u9\",phase=\"Running\"} 1 %T\n"
      "kube_pod_container_resource_requests{namespace=\"b\",pod=\"nightly-1-abc\",uid=\"u9\","
      "container=\"main\",node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1 %T\n",
      10);
  KubeState k;
  k.observed_at = T(3600);
  k.job_owners["b"]["nightly-1"] = OwnerRef{"CronJob", "nightly", true};
  TimelineOptions o;
  o.kube_states.push_back(k);
  const LoadedTimeline t = Load(ksm, o);
  const Holder* h = FindHolder(t, "nightly-1-abc");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->workload, "nightly");
  EXPECT_EQ(h->workload_kind, "CronJob");
}

TEST(KubeMergeTest, LabelKeysThatSanitizeAlikeKeepTheFirstWithAWarning) {
  KubeState k;
  k.observed_at = T(3600);
  k.nodes.push_back(ApiNode("n1", {{"nvidia.com/gpu.count", "1"}}, {{"nvidia.com/gpu", 1}}));
  KubePod p = ApiPod("a", "p", "n1", "nvidia.com/gpu", 1, Interval{T(0), T(60)});
  p.labels = {{"team.name", "x"}, {"team_name", "y"}};
  k.pods.push_back(p);
  auto r = BuildFirstHour(k);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Holder* h = FindHolder(*r, "p");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->labels.Get("team.name"), "x");
  EXPECT_EQ(h->labels.size(), 1u);
  EXPECT_TRUE(Warned(*r, "read alike"));
}

TEST(KubeMergeTest, SamplesDecideTheSpanAndTheApiOnlyWithoutThem) {
  KubeState k;
  k.observed_at = T(600);
  k.nodes.push_back(ApiNode("n1", {{"nvidia.com/gpu.count", "1"}}, {{"nvidia.com/gpu", 1}}));
  k.pods.push_back(ApiPod("a", "old", "n1", "nvidia.com/gpu", 1, Interval{T(-86400), T(600)}));
  TimelineOptions o;
  o.kube_states.push_back(k);
  // A pod running for a day does not stretch a report of five minutes of samples.
  const LoadedTimeline with_samples = Load(
      Every30s("kube_node_labels{node=\"n1\",label_nvidia_com_gpu_count=\"1\"} 1 %T\n", 10), o);
  EXPECT_EQ(with_samples.span.start, T(0));
  // With the API alone, the span is its pods' lifetimes.
  InventoryBuilder b(o);
  auto alone = b.Build();
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->span.start, T(-86400));
  EXPECT_EQ(alone->span.end, T(600));
}

TEST(KubeMergeTest, UnscheduledApiPodHoldsNothingAndIsReported) {
  KubeState k;
  k.observed_at = T(3600);
  k.nodes.push_back(ApiNode("n1", {{"nvidia.com/gpu.count", "1"}}, {{"nvidia.com/gpu", 1}}));
  KubePod p = ApiPod("a", "waiting", "", "nvidia.com/gpu", 1, Interval{T(0), T(60)});
  p.phase = "Pending";
  p.active.clear();
  k.pods.push_back(p);
  auto r = BuildFirstHour(k);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(FindHolder(*r, "waiting"), nullptr);
  EXPECT_DOUBLE_EQ(HeldHours(*r, "waiting"), 0);
  EXPECT_TRUE(Warned(*r, "never scheduled"));
}

}  // namespace
}  // namespace gpucost

namespace gpucost {
namespace {

// The API's raw resource names and dotted label keys for AWS Neuron and partitioned AMD nodes.
TEST(KubeMergeTest, ApiNeuronAndAmdPartitionNodes) {
  KubeState k;
  k.observed_at = T(3600);
  k.nodes.push_back(
      ApiNode("trn", {{"node.kubernetes.io/instance-type", "trn1.32xlarge"}},
              {{"aws.amazon.com/neuroncore", 32}, {"aws.amazon.com/neurondevice", 16}}));
  k.nodes.push_back(ApiNode("mi",
                            {{"amd.com/gpu.product-name", "AMD_Instinct_MI300X_OAM"},
                             {"amd.com/compute-memory-partition", "dpx_nps1"}},
                            {{"amd.com/gpu", 16}}));
  k.pods.push_back(
      ApiPod("ml", "dev", "trn", "aws.amazon.com/neurondevice", 2, Interval{T(0), T(3600)}));
  k.pods.push_back(ApiPod("ml", "part", "mi", "amd.com/gpu", 3, Interval{T(0), T(3600)}));
  auto t = BuildFirstHour(k);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(FindNode(*t, "trn")->physical_gpus, 16);
  EXPECT_EQ(UnitsOf(*t, "trn").size(), 32u);
  EXPECT_EQ(FindNode(*t, "mi")->physical_gpus, 8);  // 16 DPX partitions are 8 GPUs
  EXPECT_DOUBLE_EQ(UnitsOf(*t, "mi")[0]->fraction, 0.5);
  std::map<std::string, Request> by_pod;
  for (const Holding& h : t->inventory.holdings)
    by_pod[t->inventory.holders[h.holder].pod] = h.request;
  EXPECT_EQ(by_pod["dev"].resource, "aws.amazon.com/neuroncore");
  EXPECT_EQ(by_pod["dev"].count, 4);
  EXPECT_EQ(by_pod["part"].resource, "amd.com/gpu");
  EXPECT_EQ(by_pod["part"].count, 3);
}

}  // namespace
}  // namespace gpucost
