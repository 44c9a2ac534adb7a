// InventoryBuilder over the node agent's series (docs/agent.md), with kube-state-metrics and,
// where a case needs it, dcgm-exporter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "inventory/input_metrics.h"
#include "inventory/inventory_builder.h"
#include "inventory/inventory_test_util.h"

namespace gpucost {
namespace {

using namespace inventory_test;  // NOLINT(google-build-using-namespace): test helpers

// One T4 with 4 time-slicing replicas on node "ts".
const std::string kTsNode =
    "kube_node_labels{node=\"ts\",label_nvidia_com_gpu_count=\"1\",label_nvidia_com_gpu_replicas=\"4\","
    "label_nvidia_com_gpu_sharing_strategy=\"time-slicing\"} 1 %T\n"
    "kube_node_status_capacity{node=\"ts\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 4 %T\n";

// A running pod ns/<name> (uid "uid-<name>") on `node` whose containers request `resource`.
std::string Pod(const std::string& name, const std::string& node,
                const std::vector<std::string>& containers = {"main"},
                const std::string& resource = "nvidia_com_gpu", int count = 1) {
  const std::string id = "namespace=\"ns\",pod=\"" + name + "\",uid=\"uid-" + name + "\"";
  std::string out = "kube_pod_info{" + id + ",node=\"" + node + "\"} 1 %T\n"
                    "kube_pod_status_phase{" + id + ",phase=\"Running\"} 1 %T\n";
  for (const std::string& c : containers) {
    out += "kube_pod_container_resource_requests{" + id + ",container=\"" + c + "\",node=\"" +
           node + "\",resource=\"" + resource + "\",unit=\"integer\"} " + std::to_string(count) +
           " %T\n";
  }
  return out;
}

std::string GpuInfo(const std::string& node, const std::string& uuid, int index,
                    const std::string& model = "Tesla T4") {
  return "gpucost_agent_gpu_info{node=\"" + node + "\",gpu_uuid=\"" + uuid + "\",gpu_index=\"" +
         std::to_string(index) + "\",model=\"" + model + "\",mig_mode=\"disabled\"} 1 %T\n";
}

// A unit's activity, and (unless `processes_measured` is false) the agent's word that it
// measured every process of the GPU at that instant.
std::string UnitActivity(const std::string& node, const std::string& uuid, double v,
                         const std::string& extra = "", bool processes_measured = true) {
  std::string out = "gpucost_agent_unit_activity_ratio{node=\"" + node + "\",gpu_uuid=\"" + uuid +
                    "\"" + extra + ",source=\"utilization\"} " + std::to_string(v) + " %T\n";
  if (processes_measured && extra.empty()) {
    out += "gpucost_agent_nvml_supported{node=\"" + node + "\",gpu_uuid=\"" + uuid +
           "\",call=\"nvmlDeviceGetProcessUtilization\"} 1 %T\n";
  }
  return out;
}

std::string HolderActivity(const std::string& node, const std::string& uuid,
                           const std::string& labels, double v) {
  return "gpucost_agent_holder_activity_ratio{node=\"" + node + "\",gpu_uuid=\"" + uuid + "\"," +
         labels + "} " + std::to_string(v) + " %T\n";
}

std::string Assignment(const std::string& node, const std::string& pod, const std::string& labels,
                       const std::string& container = "main") {
  return "gpucost_agent_device_assignment{node=\"" + node + "\",namespace=\"ns\",pod=\"" + pod +
         "\",container=\"" + container + "\",resource=\"nvidia.com/gpu\"," + labels + "} 1 %T\n";
}

HolderIndex HolderOf(const LoadedTimeline& t, const std::string& pod,
                     const std::string& container = "main") {
  for (HolderIndex h = 0; h < t.inventory.holders.size(); ++h) {
    if (t.inventory.holders[h].pod == pod && t.inventory.holders[h].container == container) return h;
  }
  return kNoIndex;
}

// The holder's per-holder activity samples on GPU `uuid`; empty when it has none.
std::vector<double> HolderValues(const LoadedTimeline& t, const std::string& pod,
                                 const std::string& uuid, const std::string& container = "main") {
  const HolderIndex h = HolderOf(t, pod, container);
  std::vector<double> out;
  for (const HolderDeviceSeries& s : t.usage.holders) {
    if (s.holder != h || s.gpu_uuid != uuid || s.gpu_instance_id != -1) continue;
    for (const UsageSample& x : s.samples) out.push_back(x.value);
  }
  return out;
}

std::vector<double> DeviceValues(const LoadedTimeline& t, const std::string& uuid, int gi = -1) {
  std::vector<double> out;
  for (const DeviceSeries& d : t.usage.devices) {
    if (d.gpu_uuid != uuid || d.gpu_instance_id != gi) continue;
    for (const UsageSample& s : d.samples) out.push_back(s.value);
  }
  return out;
}

// The units of every holding of the pod's container (empty: drawn from the pool).
std::vector<const GpuUnit*> PinnedUnits(const LoadedTimeline& t, const std::string& pod,
                                        const std::string& container = "main") {
  const HolderIndex h = HolderOf(t, pod, container);
  std::vector<const GpuUnit*> out;
  for (const Holding& holding : t.inventory.holdings) {
    if (holding.holder != h) continue;
    for (UnitIndex u : holding.units) out.push_back(&t.inventory.units[u]);
  }
  return out;
}

size_t WarningsWith(const LoadedTimeline& t, const std::string& needle) {
  return static_cast<size_t>(std::count_if(t.warnings.begin(), t.warnings.end(),
                                           [&](const InputWarning& w) {
                                             return w.ToString().find(needle) != std::string::npos;
                                           }));
}

TEST(AgentInventory, PrometheusSourcesAskForTheAgentSeries) {
  for (const char* name : {"gpucost_agent_unit_activity_ratio", "gpucost_agent_holder_activity_ratio",
                           "gpucost_agent_device_assignment", "gpucost_agent_gpu_info",
                           "gpucost_agent_mig_instance_info", "kube_pod_container_info"}) {
    EXPECT_NE(std::find(kInventoryMetricNames.begin(), kInventoryMetricNames.end(), name),
              kInventoryMetricNames.end())
        << name;
  }
}

TEST(AgentInventory, GpuInfoGivesTheNodesGpusWithoutDcgm) {
  const std::string text = kTsNode + GpuInfo("ts", "GPU-t", 0) +
                           // A node only the agent reports, with two GPUs listed out of order.
                           GpuInfo("solo", "GPU-s1", 1, "NVIDIA L4") +
                           GpuInfo("solo", "GPU-s0", 0, "NVIDIA L4");
  auto t = Load(Every30s(text, 2));
  const Node* ts = FindNode(t, "ts");
  ASSERT_NE(ts, nullptr);
  EXPECT_EQ(ts->physical_gpus, 1);
  EXPECT_EQ(ts->gpu_model, "Tesla T4");
  auto units = UnitsOf(t, "ts");
  ASSERT_EQ(units.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(units[r]->gpu_uuid, "GPU-t");  // not the placeholder "ts-gpu0"
    EXPECT_EQ(units[r]->partition, (Partition{PartitionKind::kReplica, r}));
  }
  const Node* solo = FindNode(t, "solo");
  ASSERT_NE(solo, nullptr);
  EXPECT_EQ(solo->physical_gpus, 2);
  EXPECT_FALSE(solo->present.empty());
  auto solo_units = UnitsOf(t, "solo");
  ASSERT_EQ(solo_units.size(), 2u);
  EXPECT_EQ(solo_units[0]->gpu_uuid, "GPU-s0");  // ordered by gpu_index
  EXPECT_EQ(solo_units[1]->gpu_uuid, "GPU-s1");
}

TEST(AgentInventory, HoldersJoinByNamesByUidAndByContainerId) {
  const std::string cid_y(64, 'e');
  const std::string text =
      kTsNode + GpuInfo("ts", "GPU-t", 0) + Pod("a", "ts") + Pod("b", "ts") +
      Pod("d", "ts", {"x", "y"}) +
      "kube_pod_container_info{namespace=\"ns\",pod=\"d\",uid=\"uid-d\",container=\"y\","
      "container_id=\"containerd://" + cid_y + "\"} 1 %T\n" +
      UnitActivity("ts", "GPU-t", 0.9) +
      // Names (and a matching uid).
      HolderActivity("ts", "GPU-t", "pod_uid=\"uid-a\",container_id=\"aaaa\",namespace=\"ns\","
                     "pod=\"a\",container=\"main\"", 0.4) +
      // Only the pod uid: the pod's only GPU container.
      HolderActivity("ts", "GPU-t", "pod_uid=\"uid-b\",container_id=\"bbbb\"", 0.3) +
      // Pod d has two GPU containers: the container id says which.
      HolderActivity("ts", "GPU-t", "pod_uid=\"uid-d\",container_id=\"" + cid_y + "\"", 0.15);
  auto t = Load(Every30s(text, 2));
  EXPECT_EQ(HolderValues(t, "a", "GPU-t"), (std::vector<double>{0.4, 0.4}));
  EXPECT_EQ(HolderValues(t, "b", "GPU-t"), (std::vector<double>{0.3, 0.3}));
  EXPECT_EQ(HolderValues(t, "d", "GPU-t", "y"), (std::vector<double>{0.15, 0.15}));
  // Container x ran nothing and the agent does not place it on the GPU: no series, so the
  // engine splits the GPU's activity for it.
  EXPECT_TRUE(HolderValues(t, "d", "GPU-t", "x").empty());
  EXPECT_EQ(DeviceValues(t, "GPU-t"), (std::vector<double>{0.9, 0.9}));
  EXPECT_EQ(WarningsWith(t, "node agent: GPU activity"), 0u);
}

TEST(AgentInventory, PrometheusRenamedLabelsAndANameUidMismatch) {
  const std::string text =
      kTsNode + GpuInfo("ts", "GPU-t", 0) + Pod("a", "ts") + Pod("b", "ts") +
      UnitActivity("ts", "GPU-t", 0.5) +
      // A pod scrape adds the agent pod's own namespace/pod/container; the agent's are exported_*.
      HolderActivity("ts", "GPU-t", "pod_uid=\"uid-a\",container_id=\"aaaa\",namespace=\"gpucost\","
                     "pod=\"gpucost-agent-7\",container=\"agent\",exported_namespace=\"ns\","
                     "exported_pod=\"a\",exported_container=\"main\"", 0.25) +
      // Names that disagree with the uid: the uid wins.
      HolderActivity("ts", "GPU-t", "pod_uid=\"uid-b\",container_id=\"bbbb\",namespace=\"ns\","
                     "pod=\"a\",container=\"main\"", 0.125);
  auto t = Load(Every30s(text, 1));
  EXPECT_EQ(HolderValues(t, "a", "GPU-t"), (std::vector<double>{0.25}));
  EXPECT_EQ(HolderValues(t, "b", "GPU-t"), (std::vector<double>{0.125}));
}

TEST(AgentInventory, UnjoinableSeriesWarnOncePerPodUidAndLoseNothingElse) {
  const std::string text =
      kTsNode + GpuInfo("ts", "GPU-t", 0) + Pod("a", "ts") + UnitActivity("ts", "GPU-t", 0.7) +
      HolderActivity("ts", "GPU-t", "pod_uid=\"uid-a\",container_id=\"aaaa\"", 0.2) +
      // A pod that holds no GPU (two of its containers run on the GPU), and another one.
      HolderActivity("ts", "GPU-t", "pod_uid=\"uid-ghost\",container_id=\"c1\"", 0.1) +
      HolderActivity("ts", "GPU-t", "pod_uid=\"uid-ghost\",container_id=\"c2\"", 0.1) +
      HolderActivity("ts", "GPU-t", "pod_uid=\"uid-other\",container_id=\"c3\"", 0.1);
  auto t = Load(Every30s(text, 3));
  EXPECT_EQ(WarningsWith(t, "uid-ghost"), 1u);
  EXPECT_EQ(WarningsWith(t, "uid-other"), 1u);
  EXPECT_TRUE(HasWarning(t, "matches no container holding a GPU")) << t.warnings.size();
  EXPECT_EQ(HolderValues(t, "a", "GPU-t"), (std::vector<double>{0.2, 0.2, 0.2}));
  EXPECT_EQ(DeviceValues(t, "GPU-t"), (std::vector<double>{0.7, 0.7, 0.7}));
  EXPECT_EQ(t.usage.holders.size(), 1u);
}

TEST(AgentInventory, HoldersPlacedOnAGpuWithoutAProcessAreMeasuredIdle) {
  std::string text = kTsNode + GpuInfo("ts", "GPU-t", 0) + Pod("a", "ts") + Pod("b", "ts") +
                     Pod("c", "ts") + Pod("free", "ts") + UnitActivity("ts", "GPU-t", 0.5) +
                     Assignment("ts", "c", "device_id=\"GPU-t::3\",gpu_uuid=\"GPU-t\",replica=\"3\"");
  text = Every30s(text, 4) +
         // b's process runs for the first two scrapes only; a's for all four.
         Every30s(HolderActivity("ts", "GPU-t", "pod_uid=\"uid-a\",container_id=\"aa\"", 0.3), 4) +
         Every30s(HolderActivity("ts", "GPU-t", "pod_uid=\"uid-b\",container_id=\"bb\"", 0.2), 2);
  auto t = Load(text);
  EXPECT_EQ(HolderValues(t, "a", "GPU-t"), (std::vector<double>{0.3, 0.3, 0.3, 0.3}));
  EXPECT_EQ(HolderValues(t, "b", "GPU-t"), (std::vector<double>{0.2, 0.2, 0, 0}));
  // c is assigned a replica of the GPU but ran nothing on it: measured zero, not unmeasured.
  EXPECT_EQ(HolderValues(t, "c", "GPU-t"), (std::vector<double>{0, 0, 0, 0}));
  // The agent places "free" nowhere: no series (the engine splits the GPU's activity).
  EXPECT_TRUE(HolderValues(t, "free", "GPU-t").empty());
}

// An input cut short (its last line has no line feed and does not parse) may have lost the lines
// of the processes the agent listed: its word that it measured every process stands for nothing
// there, so a holder without a sample is not measured idle. A malformed line that is whole is
// only that line's loss.
TEST(AgentInventory, NoZeroFillFromAnInputCutShort) {
  const std::string text =
      Every30s(kTsNode + GpuInfo("ts", "GPU-t", 0) + Pod("a", "ts") + Pod("b", "ts") +
                   UnitActivity("ts", "GPU-t", 0.5),
               4) +
      Every30s(HolderActivity("ts", "GPU-t", "pod_uid=\"uid-a\",container_id=\"aa\"", 0.3), 4) +
      Every30s(HolderActivity("ts", "GPU-t", "pod_uid=\"uid-b\",container_id=\"bb\"", 0.2), 2);
  const std::string cut_line = "gpucost_agent_holder_activity_ratio{node=\"ts\",gpu_uuid=\"GP";
  // Read by the real parser (the tests' Feed reads only well-formed lines).
  const auto parsed = [](const std::string& input) {
    InventoryBuilder b(TimelineOptions{});
    EXPECT_TRUE(b.AddText(input, "agent.prom").ok());
    Result<LoadedTimeline> t = b.Build();
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? std::move(*t) : LoadedTimeline{};
  };
  auto cut = parsed(text + cut_line);
  EXPECT_EQ(HolderValues(cut, "a", "GPU-t"), (std::vector<double>{0.3, 0.3, 0.3, 0.3}));
  EXPECT_EQ(HolderValues(cut, "b", "GPU-t"), (std::vector<double>{0.2, 0.2}));
  EXPECT_EQ(WarningsWith(cut,
                         "looks cut short, so the node agent's word that it measured every "
                         "process of 1 GPU in it does not stand"),
            1u);

  auto whole = parsed(text + cut_line + "\n");
  EXPECT_EQ(HolderValues(whole, "b", "GPU-t"), (std::vector<double>{0.2, 0.2, 0, 0}));
  EXPECT_EQ(WarningsWith(whole, "cut short"), 0u);
}

TEST(AgentInventory, NoZeroFillWhereTheUnitIsNotReported) {
  // The unit series stops after two scrapes: later instants are unmeasured, not idle.
  std::string text = Every30s(kTsNode + GpuInfo("ts", "GPU-t", 0) + Pod("b", "ts"), 4) +
                     Every30s(UnitActivity("ts", "GPU-t", 0.5), 2) +
                     Every30s(HolderActivity("ts", "GPU-t", "pod_uid=\"uid-b\"", 0.2), 1);
  auto t = Load(text);
  EXPECT_EQ(HolderValues(t, "b", "GPU-t"), (std::vector<double>{0.2, 0}));
}

TEST(AgentInventory, NoZeroFillWhereTheAgentDidNotMeasureProcesses) {
  // Per-process utilization unsupported (or not reported): a holder without a series is not
  // known to be idle, so it gets no series and the engine splits the GPU's activity.
  std::string text = kTsNode + GpuInfo("ts", "GPU-t", 0) + Pod("a", "ts") + Pod("c", "ts") +
                     UnitActivity("ts", "GPU-t", 0.5, "", /*processes_measured=*/false) +
                     "gpucost_agent_nvml_supported{node=\"ts\",gpu_uuid=\"GPU-t\",call=\""
                     "nvmlDeviceGetProcessUtilization\"} 0 %T\n" +
                     Assignment("ts", "c", "device_id=\"GPU-t::3\",gpu_uuid=\"GPU-t\",replica=\"3\"");
  auto t = Load(Every30s(text, 3));
  EXPECT_TRUE(HolderValues(t, "c", "GPU-t").empty());
  EXPECT_EQ(DeviceValues(t, "GPU-t"), (std::vector<double>{0.5, 0.5, 0.5}));
}

TEST(AgentInventory, AssignmentsPinReplicasWholeGpusAndMigInstances) {
  const std::string text =
      kTsNode + GpuInfo("ts", "GPU-t", 0) + Pod("a", "ts") +
      Assignment("ts", "a", "device_id=\"GPU-t::2\",gpu_uuid=\"GPU-t\",replica=\"2\"") +
      // The replica read from the device id when the label is missing.
      Pod("b", "ts") + Assignment("ts", "b", "device_id=\"GPU-t::1\",gpu_uuid=\"GPU-t\"") +
      // Whole GPUs: the pool would give GPU-w0 first.
      "kube_node_labels{node=\"w\",label_nvidia_com_gpu_count=\"2\"} 1 %T\n" +
      GpuInfo("w", "GPU-w0", 0, "NVIDIA L4") + GpuInfo("w", "GPU-w1", 1, "NVIDIA L4") +
      Pod("p", "w") + Assignment("w", "p", "device_id=\"GPU-w1\",gpu_uuid=\"GPU-w1\"") +
      // MIG instances only the agent reports, mixed strategy.
      "kube_node_labels{node=\"m\",label_nvidia_com_mig_strategy=\"mixed\"} 1 %T\n"
      "kube_node_status_capacity{node=\"m\",resource=\"nvidia_com_mig_1g_10gb\",unit=\"integer\"} 2 %T\n" +
      GpuInfo("m", "GPU-h", 0, "NVIDIA H100 80GB HBM3") +
      "gpucost_agent_mig_instance_info{node=\"m\",gpu_uuid=\"GPU-h\",gpu_instance_id=\"9\","
      "compute_instance_id=\"0\",mig_uuid=\"MIG-9\",profile=\"1g.10gb\"} 1 %T\n"
      "gpucost_agent_mig_instance_info{node=\"m\",gpu_uuid=\"GPU-h\",gpu_instance_id=\"13\","
      "compute_instance_id=\"0\",mig_uuid=\"MIG-13\",profile=\"MIG 1g.10gb\"} 1 %T\n" +
      Pod("mig", "m", {"main"}, "nvidia_com_mig_1g_10gb") +
      Assignment("m", "mig", "device_id=\"MIG-13\",gpu_uuid=\"GPU-h\",gpu_instance_id=\"13\"");
  auto t = Load(Every30s(text, 2));
  auto a = PinnedUnits(t, "a");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0]->partition, (Partition{PartitionKind::kReplica, 2}));
  EXPECT_EQ(a[0]->gpu_uuid, "GPU-t");
  auto b = PinnedUnits(t, "b");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0]->partition, (Partition{PartitionKind::kReplica, 1}));
  auto p = PinnedUnits(t, "p");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0]->gpu_uuid, "GPU-w1");
  EXPECT_EQ(p[0]->partition.kind, PartitionKind::kWhole);
  // The MIG layout comes from the agent: instances 9 and 13 (1/7 each) and the 5/7 rest.
  const Node* m = FindNode(t, "m");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->sharing, SharingMode::kMig);
  double holdable = 0, rest = 0;
  for (const GpuUnit* u : UnitsOf(t, "m")) (u->holdable ? holdable : rest) += u->fraction;
  EXPECT_NEAR(holdable, 2.0 / 7, 1e-12);
  EXPECT_NEAR(rest, 5.0 / 7, 1e-12);
  auto mig = PinnedUnits(t, "mig");
  ASSERT_EQ(mig.size(), 1u);
  EXPECT_EQ(mig[0]->gpu_instance_id, 13);
  EXPECT_EQ(mig[0]->mig_profile, "1g.10gb");
  EXPECT_EQ(mig[0]->resource, "nvidia.com/mig-1g.10gb");
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front().ToString();
}

TEST(AgentInventory, AnUnsharedGpusOwnActivityStandsForItsHolder) {
  const std::string text =
      "kube_node_labels{node=\"w\",label_nvidia_com_gpu_count=\"1\"} 1 %T\n" +
      GpuInfo("w", "GPU-w0", 0, "NVIDIA L4") + Pod("p", "w") +
      Assignment("w", "p", "device_id=\"GPU-w0\",gpu_uuid=\"GPU-w0\"") +
      "gpucost_agent_unit_activity_ratio{node=\"w\",gpu_uuid=\"GPU-w0\",source=\"gpm\"} 0.7 %T\n" +
      HolderActivity("w", "GPU-w0", "pod_uid=\"uid-p\",container_id=\"pp\"", 0.5);
  auto t = Load(Every30s(text, 2));
  EXPECT_EQ(PinnedUnits(t, "p").size(), 1u);
  EXPECT_EQ(DeviceValues(t, "GPU-w0"), (std::vector<double>{0.7, 0.7}));
  EXPECT_TRUE(t.usage.holders.empty());
}

TEST(AgentInventory, AssignmentsThatDoNotFitAreWarnedAndTheRequestIsUsed) {
  const std::string text =
      kTsNode + GpuInfo("ts", "GPU-t", 0) +
      // A replica the node does not have.
      Pod("a", "ts") + Assignment("ts", "a", "device_id=\"GPU-t::9\",gpu_uuid=\"GPU-t\",replica=\"9\"") +
      // Two replicas for a request of one.
      Pod("b", "ts") + Assignment("ts", "b", "device_id=\"GPU-t::0\",gpu_uuid=\"GPU-t\",replica=\"0\"") +
      Assignment("ts", "b", "device_id=\"GPU-t::1\",gpu_uuid=\"GPU-t\",replica=\"1\"");
  auto t = Load(Every30s(text, 2));
  EXPECT_TRUE(PinnedUnits(t, "a").empty());
  EXPECT_TRUE(HasWarning(t, "holds device GPU-t::9 on node ts, which matches no replica unit"));
  EXPECT_TRUE(PinnedUnits(t, "b").empty());
  EXPECT_TRUE(HasWarning(t, "requests 1 nvidia.com/gpu but the node agent assigns it 2 devices"));
}

TEST(AgentInventory, AgentAssignmentsReplaceDcgmPins) {
  // dcgm-exporter labels GPU-w0 with the pod (stale); the kubelet, through the agent, says GPU-w1.
  const std::string text =
      "kube_node_labels{node=\"w\",label_nvidia_com_gpu_count=\"2\"} 1 %T\n" + Pod("p", "w") +
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-w0\",Hostname=\"w\",namespace=\"ns\","
      "pod=\"p\",container=\"main\"} 0.1 %T\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"1\",UUID=\"GPU-w1\",Hostname=\"w\"} 0.8 %T\n" +
      Assignment("w", "p", "device_id=\"GPU-w1\",gpu_uuid=\"GPU-w1\"");
  auto t = Load(Every30s(text, 2));
  auto p = PinnedUnits(t, "p");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0]->gpu_uuid, "GPU-w1");
}

TEST(AgentInventory, AgentActivityPreferredOverDcgmWhereItReports) {
  // GPU-t: dcgm-exporter (under a hostname that is not the node name, with per-process values)
  // and the agent, which starts at the third scrape; GPU-u: dcgm-exporter only.
  std::string text =
      Every30s(kTsNode + Pod("a", "ts") +
                   "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-t\",Hostname=\"ts.internal\"} 90 %T\n"
                   "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-t\",Hostname=\"ts.internal\",vgpu=\"1\","
                   "namespace=\"ns\",pod=\"a\",container=\"main\",pod_uid=\"uid-a\"} 70 %T\n"
                   "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"1\",UUID=\"GPU-u\",Hostname=\"ts.internal\"} 0.3 %T\n",
               5) +
      Every30s(GpuInfo("ts", "GPU-t", 0) + UnitActivity("ts", "GPU-t", 0.6) +
                   HolderActivity("ts", "GPU-t", "pod_uid=\"uid-a\"", 0.25),
               3, 2);
  auto t = Load(text);
  // One node: the dcgm host is the agent's node of the same GPU.
  ASSERT_EQ(t.inventory.nodes.size(), 1u);
  EXPECT_EQ(t.inventory.nodes[0].physical_gpus, 2);
  EXPECT_EQ(DeviceValues(t, "GPU-t"), (std::vector<double>{0.9, 0.9, 0.6, 0.6, 0.6}));
  EXPECT_EQ(DeviceValues(t, "GPU-u"), (std::vector<double>{0.3, 0.3, 0.3, 0.3, 0.3}));
  // dcgm-exporter's per-process values stand for the time before the agent.
  EXPECT_EQ(HolderValues(t, "a", "GPU-t"), (std::vector<double>{0.7, 0.7, 0.25, 0.25, 0.25}));
}

TEST(AgentInventory, MalformedAgentSeriesAreWarnedWithTheirLine) {
  const std::string text =
      "gpucost_agent_unit_activity_ratio{gpu_uuid=\"GPU-t\",source=\"gpm\"} 0.5 0\n"
      "gpucost_agent_unit_activity_ratio{node=\"ts\",gpu_uuid=\"GPU-t\",gpu_instance_id=\"x\"} 0.5 "
      "0\n"
      "gpucost_agent_unit_activity_ratio{node=\"ts\",gpu_uuid=\"GPU-t\",source=\"gpm\"} 1.5 0\n"
      "gpucost_agent_unit_activity_ratio{node=\"ts\",gpu_uuid=\"GPU-t\",source=\"utilization\"} "
      "0.2 0\n"
      "gpucost_agent_collections_total{node=\"ts\"} 7 0\n"
      "gpucost_agent_holder_activity_ratio{node=\"ts\",gpu_uuid=\"GPU-t\",namespace=\"ns\","
      "pod=\"a\",container=\"main\"} 5 0\n"
      "gpucost_agent_holder_activity_ratio{node=\"ts\",gpu_uuid=\"GPU-t\",namespace=\"ns\","
      "pod=\"b\",container=\"main\"} -1 0\n";
  auto t = Load(text);
  EXPECT_TRUE(HasWarning(t, "t.prom:1: gpucost_agent_unit_activity_ratio without a node"));
  EXPECT_TRUE(HasWarning(t,
                         "t.prom:6: gpucost_agent_holder_activity_ratio 5 is outside 0 to 1; "
                         "taken as 1"));
  EXPECT_TRUE(HasWarning(t, "t.prom:2: gpucost_agent_unit_activity_ratio: gpu_instance_id \"x\""));
  EXPECT_TRUE(HasWarning(t, "t.prom:3: gpucost_agent_unit_activity_ratio above 1 (1.5)"));
  // GPM wins over the utilization rate, clamped to 1.
  EXPECT_EQ(DeviceValues(t, "GPU-t"), (std::vector<double>{1.0}));
  EXPECT_EQ(t.samples, 7u);
}

TEST(AgentInventory, SlurmJobSeriesAreKeptForTheSlurmSource) {
  // A Slurm node: no kube-state-metrics, two GPUs, every process measured. Job 4001's processes
  // run on GPU-b for the first half; a series on a GPU the node does not show names no unit.
  const std::string text =
      Every30s(GpuInfo("gpu01", "GPU-a", 0, "NVIDIA A100-SXM4-80GB") +
                   GpuInfo("gpu01", "GPU-b", 1, "NVIDIA A100-SXM4-80GB") +
                   UnitActivity("gpu01", "GPU-a", 0.1) + UnitActivity("gpu01", "GPU-b", 0.5),
               6) +
      Every30s(HolderActivity("gpu01", "GPU-b", "slurm_job=\"4001\"", 0.25) +
                   HolderActivity("gpu01", "GPU-z", "slurm_job=\"4001\"", 0.25),
               3);
  auto t = Load(text);
  ASSERT_EQ(t.agent_jobs.size(), 1u);
  const AgentJobActivity& j = t.agent_jobs[0];
  EXPECT_EQ(j.job, "4001");
  EXPECT_EQ(t.inventory.nodes[j.node].name, "gpu01");
  EXPECT_EQ(t.inventory.units[j.unit].gpu_uuid, "GPU-b");
  EXPECT_EQ(j.gpu_instance_id, -1);
  ASSERT_EQ(j.samples.size(), 3u);
  for (const UsageSample& x : j.samples) EXPECT_EQ(x.value, 0.25);
  // Every instant the agent measured the GPU's processes, for measured idle.
  ASSERT_NE(j.measured, nullptr);
  EXPECT_EQ(j.measured->size(), 6u);
  // Not a pod's: no per-holder series, no warning that it is dropped.
  EXPECT_TRUE(t.usage.holders.empty());
  EXPECT_EQ(WarningsWith(t, "not joined"), 0u);
  EXPECT_EQ(WarningsWith(t, "Slurm job 4001 on node gpu01 GPU GPU-z names no GPU unit"), 1u);
}

}  // namespace
}  // namespace gpucost
