// Decoding Kubernetes API objects into gpucost's compact values, and pods' active intervals.
#include "k8s/objects.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "k8s/k8s_test_util.h"

namespace gpucost::k8s {
namespace {

using nlohmann::json;

json TrainingPod() {
  return json::parse(R"({
    "metadata": {"name": "train-0", "namespace": "ml", "uid": "7f0c", "resourceVersion": "812",
      "creationTimestamp": "2026-10-01T00:00:00Z",
      "labels": {"team": "vision", "app.kubernetes.io/name": "trainer", "noise": "x"},
      "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "train-28999",
                           "uid": "aa", "controller": true, "blockOwnerDeletion": true}]},
    "spec": {"nodeName": "gpu-1",
      "initContainers": [{"name": "fetch", "resources": {"limits": {"nvidia.com/gpu": "8"}}}],
      "containers": [
        {"name": "main", "resources": {"requests": {"cpu": "500m", "nvidia.com/gpu": "2"},
                                       "limits": {"nvidia.com/gpu": "2", "memory": "8Gi"}}},
        {"name": "sidecar", "resources": {"limits": {"nvidia.com/mig-1g.5gb": "1"}}}]},
    "status": {"phase": "Succeeded", "startTime": "2026-10-01T00:01:00Z",
      "conditions": [{"type": "PodScheduled", "status": "True",
                      "lastTransitionTime": "2026-10-01T00:00:30Z"}],
      "containerStatuses": [
        {"name": "main", "containerID": "containerd://abc",
         "state": {"terminated": {"exitCode": 0, "finishedAt": "2026-10-01T02:00:00Z"}}},
        {"name": "sidecar", "containerID": "containerd://def",
         "state": {"terminated": {"exitCode": 0, "finishedAt": "2026-10-01T02:00:05Z"}}}]}
  })");
}

TEST(ObjectsTest, QuantitiesInEverySpelling) {
  EXPECT_DOUBLE_EQ(*ParseQuantity("2"), 2);
  EXPECT_DOUBLE_EQ(*ParseQuantity("500m"), 0.5);
  EXPECT_DOUBLE_EQ(*ParseQuantity("8Gi"), 8.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*ParseQuantity("1k"), 1000);
  EXPECT_DOUBLE_EQ(*ParseQuantity("1e3"), 1000);
  EXPECT_DOUBLE_EQ(*ParseQuantity("3000"), 3000);
  EXPECT_FALSE(ParseQuantity("").ok());
  EXPECT_FALSE(ParseQuantity("two").ok());
  EXPECT_FALSE(ParseQuantity("2x").ok());
  EXPECT_NE(ParseQuantity("Gi").status().message().find("Gi"), std::string::npos);
}

TEST(ObjectsTest, PodKeepsGpuRequestsOwnersAndAllowedLabels) {
  auto p = DecodePod(TrainingPod(), LabelFilter{{"team", "app.kubernetes.io/name"}});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->meta.namespace_name, "ml");
  EXPECT_EQ(p->meta.uid, "7f0c");
  EXPECT_EQ(p->node, "gpu-1");
  EXPECT_EQ(p->meta.labels.size(), 2u);
  EXPECT_FALSE(p->meta.labels.contains("noise"));
  ASSERT_EQ(p->meta.owners.size(), 1u);
  EXPECT_EQ(p->meta.owners[0].kind, "Job");
  EXPECT_TRUE(p->meta.owners[0].controller);
  // cpu and memory dropped; the init container's GPUs are not the pod's.
  ASSERT_EQ(p->resources.size(), 2u);
  EXPECT_EQ(p->resources[0].container, "main");
  EXPECT_EQ(p->resources[0].resource, "nvidia.com/gpu");
  EXPECT_DOUBLE_EQ(p->resources[0].quantity, 2);
  EXPECT_FALSE(p->resources[0].from_limits);  // the request, not the limit
  EXPECT_EQ(p->resources[1].container, "sidecar");
  EXPECT_TRUE(p->resources[1].from_limits);
  EXPECT_EQ(p->scheduled, At("2026-10-01T00:00:30Z"));
  EXPECT_EQ(p->finished, At("2026-10-01T02:00:05Z"));
  EXPECT_EQ(p->container_ids, (std::vector<std::string>{"containerd://abc", "containerd://def"}));
}

TEST(ObjectsTest, AllowListedAnnotationsJoinTheLabelsWhereNoLabelHasTheKey) {
  json j = TrainingPod();
  j["metadata"]["annotations"] = {{"cost-center", "cc-7"}, {"team", "from-annotation"},
                                  {"kubectl.kubernetes.io/last-applied-configuration", "{...}"}};
  LabelFilter f;
  f.annotation_keys = {"cost-center", "team"};
  auto p = DecodePod(j, f);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->meta.annotations.size(), 2u);
  const KubePod k = ToKubePod(*p, At("2026-10-02T00:00:00Z"));
  EXPECT_EQ(k.labels.at("cost-center"), "cc-7");
  EXPECT_EQ(k.labels.at("team"), "vision");  // the label wins
  EXPECT_FALSE(k.labels.contains("kubectl.kubernetes.io/last-applied-configuration"));
  // Without an annotation allow-list none is kept.
  EXPECT_TRUE(DecodePod(j, LabelFilter{})->meta.annotations.empty());
}

TEST(ObjectsTest, FinishedPodIsActiveFromSchedulingToLastFinish) {
  auto p = DecodePod(TrainingPod(), LabelFilter{});
  ASSERT_TRUE(p.ok());
  const KubePod k = ToKubePod(*p, At("2026-10-02T00:00:00Z"));
  ASSERT_EQ(k.active.size(), 1u);
  EXPECT_EQ(k.active[0].start, At("2026-10-01T00:00:30Z"));
  EXPECT_EQ(k.active[0].end, At("2026-10-01T02:00:05Z"));
}

TEST(ObjectsTest, RunningPodIsActiveUntilObserved) {
  json j = TrainingPod();
  j["status"]["phase"] = "Running";
  j["status"]["containerStatuses"][0]["state"] = {{"running", {{"startedAt", "2026-10-01T00:01:00Z"}}}};
  auto p = DecodePod(j, LabelFilter{});
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->finished.has_value());
  const KubePod k = ToKubePod(*p, At("2026-10-01T05:00:00Z"));
  ASSERT_EQ(k.active.size(), 1u);
  EXPECT_EQ(k.active[0].end, At("2026-10-01T05:00:00Z"));
}

TEST(ObjectsTest, UnscheduledPodIsNeverActive) {
  json j = TrainingPod();
  j["spec"].erase("nodeName");
  j["status"] = {{"phase", "Pending"}};
  auto p = DecodePod(j, LabelFilter{});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(ToKubePod(*p, At("2026-10-01T05:00:00Z")).active.empty());
}

TEST(ObjectsTest, BadFieldsAreErrorsNamingTheObjectAndField) {
  json j = TrainingPod();
  j["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "two";
  auto p = DecodePod(j, LabelFilter{});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("pod ml/train-0"), std::string::npos) << p.status().message();
  EXPECT_NE(p.status().message().find("spec.containers[0].resources.requests[nvidia.com/gpu]"),
            std::string::npos)
      << p.status().message();
  json t = TrainingPod();
  t["status"]["startTime"] = "yesterday";
  auto q = DecodePod(t, LabelFilter{});
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("status.startTime"), std::string::npos);
  EXPECT_FALSE(DecodePod(json::parse(R"({"spec":{}})"), LabelFilter{}).ok());
}

TEST(ObjectsTest, NodeKeepsGpuCapacityProviderAndLabels) {
  const json j = json::parse(R"({
    "metadata": {"name": "gpu-1", "uid": "n1", "creationTimestamp": "2026-09-01T00:00:00Z",
      "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "karpenter.sh/capacity-type": "spot"}},
    "spec": {"providerID": "aws:///us-east-1a/i-0abc"},
    "status": {"capacity": {"cpu": "192", "memory": "2Ti", "nvidia.com/gpu": "8",
                            "nvidia.com/mig-1g.10gb": "0"}}
  })");
  auto n = DecodeNode(j, LabelFilter{});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->provider_id, "aws:///us-east-1a/i-0abc");
  EXPECT_EQ(n->capacity.size(), 2u);
  EXPECT_DOUBLE_EQ(n->capacity.at("nvidia.com/gpu"), 8);
  const KubeNode k = ToKubeNode(*n, At("2026-10-01T00:00:00Z"));
  ASSERT_EQ(k.present.size(), 1u);
  EXPECT_EQ(k.present[0].start, At("2026-09-01T00:00:00Z"));
  EXPECT_EQ(k.labels.at("karpenter.sh/capacity-type"), "spot");
}

}  // namespace
}  // namespace gpucost::k8s
