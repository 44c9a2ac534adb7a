#include "agent/snapshot_builder.h"

#include <gtest/gtest.h>

#include <map>

#include "agent/agent_exposition.h"

namespace gpucost::agent {
namespace {

NvmlProcess Proc(uint32_t pid, double sm_sum, int samples, uint64_t memory) {
  NvmlProcess p;
  p.pid = pid;
  p.sm_util_sum = sm_sum;
  p.samples = samples;
  p.memory_bytes = memory;
  return p;
}

NvmlGpu SharedGpu() {
  NvmlGpu g;
  g.uuid = "GPU-a";
  g.name = "NVIDIA T4";
  g.mig_enabled = false;
  g.process_utilization = true;
  g.whole.uuid = "GPU-a";
  g.whole.activity = 0.9;
  g.whole.activity_source = "gpm";
  g.whole.processes = {Proc(1, 60, 1, 100), Proc(2, 40, 2, 200), Proc(3, 5, 1, 300),
                       Proc(4, 8, 1, 400), Proc(5, 0, 0, 500)};
  return g;
}

OwnerLookup Owners(std::map<uint32_t, ProcessOwner> owners) {
  return [owners = std::move(owners)](uint32_t pid) {
    auto it = owners.find(pid);
    return it == owners.end() ? ProcessOwner{} : it->second;
  };
}

const HolderActivity* Find(const AgentSnapshot& s, const std::string& uid) {
  for (const HolderActivity& h : s.holders) {
    if (h.holder.pod_uid == uid) return &h;
  }
  return nullptr;
}

TEST(SnapshotBuilderTest, HolderActivityIsTheSumOfItsProcessesMeanSmUtil) {
  NvmlReading r;
  r.gpus.push_back(SharedGpu());
  const AgentSnapshot s = BuildSnapshot(
      r,
      Owners({{1, {"uid-a", "c1", ""}}, {3, {"uid-a", "c1", ""}}, {2, {"uid-b", "c2", ""}},
              {5, {"uid-c", "c3", ""}}}),
      {});
  ASSERT_EQ(s.units.size(), 1u);
  EXPECT_DOUBLE_EQ(s.units[0].activity, 0.9);
  const HolderActivity* a = Find(s, "uid-a");
  const HolderActivity* b = Find(s, "uid-b");
  const HolderActivity* c = Find(s, "uid-c");
  ASSERT_TRUE(a && b && c);
  EXPECT_DOUBLE_EQ(*a->activity, 0.65);  // 60 + 5
  EXPECT_EQ(a->processes, 2);
  EXPECT_EQ(a->memory_bytes, std::optional<uint64_t>(400));
  EXPECT_DOUBLE_EQ(*b->activity, 0.2);  // mean of two samples summing to 40
  EXPECT_DOUBLE_EQ(*c->activity, 0.0) << "a process with no sample used nothing: measured 0";
  ASSERT_EQ(s.unowned.size(), 1u);
  EXPECT_DOUBLE_EQ(s.unowned[0].activity, 0.08);
}

TEST(SnapshotBuilderTest, WithoutProcessUtilizationHolderActivityIsNotMeasured) {
  NvmlReading r;
  r.gpus.push_back(SharedGpu());
  r.gpus[0].process_utilization = false;
  const AgentSnapshot s = BuildSnapshot(r, Owners({{1, {"uid-a", "c1", ""}}}), {});
  const HolderActivity* a = Find(s, "uid-a");
  ASSERT_NE(a, nullptr);
  EXPECT_FALSE(a->activity.has_value());
  EXPECT_EQ(a->memory_bytes, std::optional<uint64_t>(100));
  EXPECT_TRUE(s.unowned.empty());
}

TEST(SnapshotBuilderTest, MigInstanceActivityGoesToItsOnlyHolder) {
  NvmlGpu g;
  g.uuid = "GPU-m";
  g.mig_enabled = true;
  NvmlUnit solo;
  solo.gpu_instance_id = 1;
  solo.uuid = "MIG-1";
  solo.profile = "3g.20gb";
  solo.activity = 0.4;
  solo.activity_source = "gpm";
  solo.processes = {Proc(10, 0, 0, 1)};
  NvmlUnit shared = solo;
  shared.gpu_instance_id = 2;
  shared.uuid = "MIG-2";
  shared.processes = {Proc(11, 0, 0, 1), Proc(12, 0, 0, 1)};
  g.mig = {solo, shared};
  NvmlReading r;
  r.gpus.push_back(g);
  const AgentSnapshot s = BuildSnapshot(
      r, Owners({{10, {"uid-1", "x", ""}}, {11, {"uid-2", "y", ""}}, {12, {"uid-3", "z", ""}}}),
      {});
  EXPECT_EQ(s.units.size(), 2u);
  EXPECT_EQ(s.migs.size(), 2u);
  EXPECT_DOUBLE_EQ(*Find(s, "uid-1")->activity, 0.4);
  EXPECT_FALSE(Find(s, "uid-2")->activity.has_value()) << "two holders share one instance";
}

TEST(SnapshotBuilderTest, HoldersAreNamedByEliminationOverAssignedUnits) {
  NvmlGpu a = SharedGpu();
  NvmlGpu b = SharedGpu();
  b.uuid = b.whole.uuid = "GPU-b";
  a.whole.processes = {Proc(1, 10, 1, 1), Proc(2, 10, 1, 1), Proc(3, 10, 1, 1)};
  b.whole.processes = {Proc(4, 10, 1, 1)};
  NvmlReading r;
  r.gpus = {a, b};
  std::vector<DeviceAssignment> assigned = {
      {"team", "one", "main", "nvidia.com/gpu", "GPU-a::0", "GPU-a", -1, 0},
      {"team", "two", "main", "nvidia.com/gpu", "GPU-a::1", "GPU-a", -1, 1},
      {"team", "two", "main", "nvidia.com/gpu", "GPU-b::0", "GPU-b", -1, 0},
      {"team", "three", "left", "nvidia.com/gpu", "GPU-a::2", "GPU-a", -1, 2},
      {"team", "three", "right", "nvidia.com/gpu", "GPU-a::3", "GPU-a", -1, 3},
  };
  // uid-two runs on both GPUs: only pod "two" is assigned both. uid-one then has "one" or
  // "three" left, so it stays unnamed; uid-three likewise.
  const AgentSnapshot s = BuildSnapshot(r,
                                        Owners({{1, {"uid-one", "c1", ""}},
                                                {2, {"uid-two", "c2", ""}},
                                                {4, {"uid-two", "c2", ""}},
                                                {3, {"uid-three", "c3", ""}}}),
                                        assigned);
  std::map<std::string, HolderId> by;  // "uid@gpu"
  for (const HolderActivity& h : s.holders) by[h.holder.pod_uid + "@" + h.gpu_uuid] = h.holder;
  EXPECT_EQ(by["uid-two@GPU-a"].pod, "two");
  EXPECT_EQ(by["uid-two@GPU-b"].namespace_name, "team");
  EXPECT_EQ(by["uid-two@GPU-b"].container, "main");
  EXPECT_EQ(by["uid-one@GPU-a"].pod, "") << "two pods remain possible";
  EXPECT_EQ(s.assignments.size(), 5u);

  // With pod three gone from the node, uid-one is the only one left for pod one.
  assigned.pop_back();
  assigned.pop_back();
  r.gpus[0].whole.processes = {Proc(1, 10, 1, 1), Proc(2, 10, 1, 1)};
  const AgentSnapshot s2 = BuildSnapshot(
      r, Owners({{1, {"uid-one", "c1", ""}}, {2, {"uid-two", "c2", ""}}, {4, {"uid-two", "c2", ""}}}),
      assigned);
  for (const HolderActivity& h : s2.holders) {
    if (h.holder.pod_uid == "uid-one") {
      EXPECT_EQ(h.holder.pod, "one");
      EXPECT_EQ(h.holder.container, "main");
    }
  }
}

TEST(AgentExpositionTest, RendersSeriesWithEscapedLabelsAndNoEmptyOnes) {
  NvmlReading r;
  r.gpus.push_back(SharedGpu());
  AgentSnapshot s = BuildSnapshot(r, Owners({{1, {"uid-a", "c1", ""}}}), {});
  s.assignments.push_back({"ns", "p\"q", "c", "nvidia.com/gpu", "GPU-a::1", "GPU-a", -1, 1});
  AgentHealth h;
  h.collections = 3;
  h.nvml_up = true;
  h.nvml_errors[{"nvmlDeviceGetMemoryInfo", "GPU is lost"}] = 2;
  const std::string text = RenderMetrics("node-1", s, h);
  EXPECT_NE(text.find("gpucost_agent_unit_activity_ratio{node=\"node-1\",gpu_uuid=\"GPU-a\","
                      "source=\"gpm\"} 0.90000000000000002\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gpucost_agent_holder_activity_ratio{node=\"node-1\",gpu_uuid=\"GPU-a\","
                      "pod_uid=\"uid-a\",container_id=\"c1\"} 0.59999999999999998\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pod=\"p\\\"q\""), std::string::npos);
  EXPECT_NE(text.find("replica=\"1\""), std::string::npos);
  EXPECT_NE(text.find("gpucost_agent_nvml_errors_total{node=\"node-1\",call=\"nvmlDeviceGetMemoryInfo\","
                      "error=\"GPU is lost\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("gpucost_agent_up{node=\"node-1\",component=\"kubelet\"} 0\n"),
            std::string::npos);
  EXPECT_EQ(text.find("=\"\""), std::string::npos) << "empty label values are left out";
}

}  // namespace
}  // namespace gpucost::agent
