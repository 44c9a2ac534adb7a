// InventoryBuilder over dcgm-exporter series (with kube-state-metrics where a trap needs it).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "core/strings.h"
#include "inventory/inventory_builder.h"
#include "inventory/inventory_test_util.h"

namespace gpucost {
namespace {

using namespace inventory_test;  // NOLINT(google-build-using-namespace): test helpers



const std::string kA100 = "modelName=\"NVIDIA A100-SXM4-40GB\"";

// Usage samples of one device series, as ratios.
std::vector<double> Values(const LoadedTimeline& t, const std::string& uuid, int gi = -1) {
  std::vector<double> out;
  for (const DeviceSeries& d : t.usage.devices) {
    if (d.gpu_uuid != uuid || d.gpu_instance_id != gi) continue;
    for (const UsageSample& s : d.samples) out.push_back(s.value);
  }
  return out;
}

TEST(DcgmInventory, RatioPreferredAndPercentDivided) {
  const std::string text =
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\"," + kA100 + ",Hostname=\"n1\"} 0.5 %T\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\"," + kA100 + ",Hostname=\"n1\"} 90 %T\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-b\"," + kA100 + ",Hostname=\"n1\"} 40 %T\n";
  auto t = Load(Every30s(text, 2));
  EXPECT_EQ(Values(t, "GPU-a"), (std::vector<double>{0.5, 0.5}));  // PROF wins, never /100
  EXPECT_EQ(Values(t, "GPU-b"), (std::vector<double>{0.4, 0.4}));  // percent fallback
  const Node* n = FindNode(t, "n1");
  ASSERT_NE(n, nullptr);  // a node seen only in dcgm data still counts
  EXPECT_EQ(n->physical_gpus, 2);
  EXPECT_EQ(n->gpu_model, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(UnitsOf(t, "n1")[1]->gpu_uuid, "GPU-b");
}

TEST(DcgmInventory, RenamedUtilReadsUnitFromHelpOrValues) {
  const std::string ratio_help =
      "# HELP DCGM_FI_DEV_GPU_UTIL_RATIO GPU utilization ratio (0.0-1.0).\n"
      "DCGM_FI_DEV_GPU_UTIL_RATIO{gpu=\"0\",uuid=\"GPU-a\",hostname=\"n1\"} 0.7 0\n";
  EXPECT_EQ(Values(Load(ratio_help), "GPU-a"), (std::vector<double>{0.7}));
  const std::string pct_help =
      "# HELP DCGM_FI_DEV_GPU_UTIL_RATIO GPU utilization (in %).\n"
      "DCGM_FI_DEV_GPU_UTIL_RATIO{gpu=\"0\",uuid=\"GPU-a\",hostname=\"n1\"} 1 0\n";
  EXPECT_EQ(Values(Load(pct_help), "GPU-a"), (std::vector<double>{0.01}));
  // No HELP: a ratio by name, unless a value is above 1.
  EXPECT_EQ(Values(Load("DCGM_FI_DEV_GPU_UTIL_RATIO{uuid=\"GPU-a\",hostname=\"n1\"} 0.25 0\n"), "GPU-a"),
            (std::vector<double>{0.25}));
  EXPECT_EQ(Values(Load("DCGM_FI_DEV_GPU_UTIL_RATIO{uuid=\"GPU-a\",hostname=\"n1\"} 1 0\n"
                        "DCGM_FI_DEV_GPU_UTIL_RATIO{uuid=\"GPU-a\",hostname=\"n1\"} 55 30000\n"),
                   "GPU-a"),
            (std::vector<double>{0.01, 0.55}));
  // HELP says ratio but values are percent: sanity check reads them as percent, with a warning.
  auto odd = Load("# HELP DCGM_FI_DEV_GPU_UTIL_RATIO GPU utilization ratio.\n"
                  "DCGM_FI_DEV_GPU_UTIL_RATIO{uuid=\"GPU-a\",hostname=\"n1\"} 80 0\n");
  EXPECT_EQ(Values(odd, "GPU-a"), (std::vector<double>{0.8}));
  EXPECT_TRUE(HasWarning(odd, "t.prom:2: GPU_UTIL series labelled a ratio"));
  // The 4.9 PROF name is a ratio.
  EXPECT_EQ(Values(Load("DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO{uuid=\"GPU-a\",hostname=\"n1\"} 0.3 0\n"), "GPU-a"),
            (std::vector<double>{0.3}));
  // dcgm-exporter's own HELP of the PROF ratios says "(in %)" over values of 0 to 1: a name of a
  // fixed unit keeps it whatever the HELP (or UNIT) says; read as percent it was 100 times less.
  for (const char* name : {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO"}) {
    const std::string help =
        StrCat("# HELP ", name, " Ratio of time the graphics engine is active (in %).\n", name,
               "{uuid=\"GPU-a\",hostname=\"n1\"} 0.389 0\n");
    EXPECT_EQ(Values(Load(help), "GPU-a"), (std::vector<double>{0.389})) << name;
  }
  EXPECT_EQ(Values(Load("# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization ratio (0.0-1.0).\n"
                        "DCGM_FI_DEV_GPU_UTIL{uuid=\"GPU-a\",hostname=\"n1\"} 40 0\n"),
                   "GPU-a"),
            (std::vector<double>{0.4}));
}

TEST(DcgmInventory, HostnameSpellingsAndKsmNodeJoin) {
  const std::string text =
      "kube_node_labels{node=\"n1\",label_nvidia_com_gpu_count=\"2\"} 1 %T\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"n1\"} 0.1 %T\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"1\",uuid=\"GPU-b\",hostname=\"n1\"} 0.2 %T\n";
  auto t = Load(Every30s(text, 2));
  ASSERT_EQ(t.inventory.nodes.size(), 1u);
  EXPECT_EQ(t.inventory.nodes[0].physical_gpus, 2);
  auto units = UnitsOf(t, "n1");
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0]->gpu_uuid, "GPU-a");
  EXPECT_EQ(units[1]->gpu_uuid, "GPU-b");
  EXPECT_EQ(t.usage.devices.size(), 2u);
}

// GFD's counts are held to what a node may have (65,536 devices): gpu.count=100000000 took all
// memory and 70000 billed $840,000 in four hours; replicas past it likewise.
TEST(DcgmInventory, GfdCountsPastANodesDevicesAreSaidAndLeftOut) {
  const auto load = [](const std::string& labels) {
    return Load(
        Every30s("kube_node_labels{node=\"n1\"," + labels +
                     "} 1 %T\n"
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"n1\"} "
                     "0.1 %T\n",
                 2));
  };
  const auto said = [](const auto& t, const std::string& what) {
    for (const InputWarning& w : t.warnings) {
      if (w.message.find(what) != std::string::npos) return true;
    }
    return false;
  };
  const auto count = load("label_nvidia_com_gpu_count=\"100000000\"");
  ASSERT_EQ(count.inventory.nodes.size(), 1u);
  EXPECT_EQ(count.inventory.nodes[0].physical_gpus, 1);  // dcgm's one GPU
  EXPECT_TRUE(said(count, "label nvidia.com/gpu.count=100000000 is more than a node has"));
  const auto replicas = load(
      "label_nvidia_com_gpu_count=\"8\",label_nvidia_com_gpu_sharing_strategy=\"time-slicing\","
      "label_nvidia_com_gpu_replicas=\"60000\"");
  ASSERT_EQ(replicas.inventory.nodes.size(), 1u);
  EXPECT_EQ(replicas.inventory.nodes[0].replicas, 8192);  // 65,536 units over 8 GPUs
  EXPECT_TRUE(said(replicas, "8 GPUs x 60000 replicas is more than a node has"));
}

// A device request that is not a whole number (the API server refuses "500m" of an extended
// resource, kube-state-metrics writes 0.5) or past a node's devices is said with what is taken.
TEST(DcgmInventory, DeviceRequestsThatAreNoWholeCountAreSaid) {
  const auto load = [](const std::string& count) {
    return Load(Every30s(
        "kube_node_labels{node=\"n1\",label_nvidia_com_gpu_count=\"2\"} 1 %T\n"
        "kube_pod_info{namespace=\"ml\",pod=\"p\",uid=\"u-p\",node=\"n1\"} 1 %T\n"
        "kube_pod_status_phase{namespace=\"ml\",pod=\"p\",uid=\"u-p\",phase=\"Running\"} 1 %T\n"
        "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"p\",uid=\"u-p\","
        "container=\"main\",node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} " +
            count + " %T\n",
        2));
  };
  const auto half = load("0.5");
  ASSERT_EQ(half.inventory.holdings.size(), 1u);
  EXPECT_EQ(half.inventory.holdings[0].request.count, 1);
  EXPECT_TRUE(HasWarning(half,
                         "pod ml/p container main asks for 0.5 of nvidia.com/gpu: not whole "
                         "devices, at most 65536; 1 taken"));
  const auto huge = load("1e30");
  ASSERT_EQ(huge.inventory.holdings.size(), 1u);
  EXPECT_EQ(huge.inventory.holdings[0].request.count, 65536);
  const auto two = load("2");
  ASSERT_EQ(two.inventory.holdings.size(), 1u);
  EXPECT_FALSE(HasWarning(two, "asks for"));
}

TEST(DcgmInventory, BlankSentinelsAreNoData) {
  const std::string text =
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-a\",Hostname=\"n1\"} 0.4 0\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-a\",Hostname=\"n1\"} 9223372036854775794 30000\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-a\",Hostname=\"n1\"} 140737488355328.0 60000\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-a\",Hostname=\"n1\"} 0.6 90000\n";
  auto t = Load(text);
  // Blanks stay as NaN "no data" markers: they end the previous sample's validity and are
  // counted as unmeasured time by the engine, never as zero.
  const std::vector<double> v = Values(t, "GPU-a");
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], 0.4);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_EQ(v[3], 0.6);
  EXPECT_TRUE(IsDcgmBlank(9.2233720368547e18));
  EXPECT_FALSE(IsDcgmBlank(100.0));
}

TEST(DcgmInventory, MigInstancesWithOddProfileNames) {
  const std::string text =
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-m\",modelName=\"NVIDIA A100 80GB PCIe\",GPU_I_PROFILE=\"7g.79gb\",GPU_I_ID=\"0\",Hostname=\"m1\",container=\"\",namespace=\"\",pod=\"\"} 0.8 %T\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-h\",modelName=\"NVIDIA H100 80GB HBM3\",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"7\",Hostname=\"m1\"} 0.2 %T\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-h\",modelName=\"NVIDIA H100 80GB HBM3\",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\",Hostname=\"m1\"} 0.3 %T\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-h\",modelName=\"NVIDIA H100 80GB HBM3\",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\",Hostname=\"m1\"} 0 %T\n";
  auto t = Load(Every30s(text, 2));
  const Node* n = FindNode(t, "m1");
  EXPECT_EQ(n->sharing, SharingMode::kMig);
  std::map<std::string, double> f;
  double rest = 0;
  for (const GpuUnit* u : UnitsOf(t, "m1")) {
    if (u->holdable) f[u->gpu_uuid + "/" + u->mig_profile] = u->fraction;
    else rest += u->fraction;
  }
  EXPECT_DOUBLE_EQ(f["GPU-m/7g.80gb"], 1.0);
  EXPECT_DOUBLE_EQ(f["GPU-h/1g.10gb"], 1.0 / 7);
  EXPECT_DOUBLE_EQ(f["GPU-h/3g.40gb"], 3.0 / 7);
  EXPECT_NEAR(rest, 3.0 / 7, 1e-12);  // GPU-h: 3 free slices
  EXPECT_EQ(Values(t, "GPU-h", 2), (std::vector<double>{0.3, 0.3}));  // GPU_UTIL on MIG ignored
  EXPECT_EQ(Values(t, "GPU-m", 0), (std::vector<double>{0.8, 0.8}));
  // Empty pod labels are absent: no holder was made from them.
  EXPECT_TRUE(t.inventory.holders.empty());
}

// DCGM's blank profile beside GPU_I_ID "0", as dcgm-exporter writes a non-MIG A100: the series
// is of the whole GPU. A profile that names no share of a GPU leaves its instance out, with a
// warning naming node, GPU and profile; the GPU's cost stays whole as the rest of the GPU (idle).
TEST(DcgmInventory, BlankAndUnreadableMigProfilesNeverStopTheReport) {
  const std::string blank =
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\"," + kA100 +
      ",GPU_I_PROFILE=\"<<<NULL>>>\",GPU_I_ID=\"0\",Hostname=\"n1\"} 0.5 %T\n";
  auto t = Load(Every30s(blank, 2));
  const std::vector<const GpuUnit*> units = UnitsOf(t, "n1");
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0]->partition.kind, PartitionKind::kWhole);
  EXPECT_DOUBLE_EQ(units[0]->fraction, 1.0);
  EXPECT_EQ(Values(t, "GPU-a"), (std::vector<double>{0.5, 0.5}));

  for (const std::string profile : {"banana", "9g.99gb", ""}) {
    const std::string odd = "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-m\"," + kA100 +
                            ",GPU_I_PROFILE=\"" + profile +
                            "\",GPU_I_ID=\"1\",Hostname=\"m1\"} 0.5 %T\n";
    auto m = Load(Every30s(odd, 2));
    double total = 0;
    for (const GpuUnit* u : UnitsOf(m, "m1")) {
      EXPECT_GT(u->fraction, 0) << profile;
      EXPECT_FALSE(u->holdable) << profile;  // only the rest of the GPU is left
      total += u->fraction;
    }
    EXPECT_DOUBLE_EQ(total, 1.0) << profile;
    EXPECT_TRUE(HasWarning(m, "node m1 GPU GPU-m: MIG instance 1 has profile \"" + profile + "\""))
        << profile;
  }
}

const std::string kMigPod =
    "kube_node_labels{node=\"m1\",label_nvidia_com_mig_strategy=\"mixed\"} 1 %T\n"
    "kube_pod_info{namespace=\"ml\",pod=\"p\",uid=\"u\",node=\"m1\"} 1 %T\n"
    "kube_pod_status_phase{namespace=\"ml\",pod=\"p\",uid=\"u\",phase=\"Running\"} 1 %T\n"
    "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"p\",uid=\"u\",container=\"c\",node=\"m1\",resource=\"nvidia_com_mig_1g_5gb\",unit=\"integer\"} 1 %T\n";

TEST(DcgmInventory, PodLabelsPinAMigInstanceExactly) {
  const std::string text = kMigPod +
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\"," + kA100 + ",GPU_I_PROFILE=\"1g.5gb\",GPU_I_ID=\"9\",Hostname=\"m1\",pod=\"p\",namespace=\"ml\",container=\"c\"} 0.5 %T\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\"," + kA100 + ",GPU_I_PROFILE=\"1g.5gb\",GPU_I_ID=\"10\",Hostname=\"m1\"} 0 %T\n";
  auto t = Load(Every30s(text, 3));
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  const Holding& h = t.inventory.holdings[0];
  ASSERT_EQ(h.units.size(), 1u);
  EXPECT_EQ(t.inventory.units[h.units[0]].gpu_instance_id, 9);
  EXPECT_EQ(t.inventory.units[h.units[0]].resource, "nvidia.com/mig-1g.5gb");
}

TEST(DcgmInventory, ExportedLabelsReplaceTheExportersOwn) {
  const std::string text = kMigPod +
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-a\"," + kA100 + ",GPU_I_PROFILE=\"1g.5gb\",GPU_I_ID=\"9\",Hostname=\"m1\",exported_pod=\"p\",exported_namespace=\"ml\",exported_container=\"c\",pod=\"dcgm-x\",namespace=\"monitoring\",container=\"exporter\"} 0.5 %T\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-a\"," + kA100 + ",GPU_I_PROFILE=\"1g.5gb\",GPU_I_ID=\"10\",Hostname=\"m1\",pod=\"gpu-exp-7\",namespace=\"monitoring\",container=\"metrics\"} 0.1 %T\n";
  auto t = Load(Every30s(text, 3));
  ASSERT_EQ(t.inventory.holders.size(), 1u);  // nothing for the exporter's own pod
  EXPECT_EQ(t.inventory.holders[0].pod, "p");
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  ASSERT_EQ(t.inventory.holdings[0].units.size(), 1u);
  EXPECT_EQ(t.inventory.units[t.inventory.holdings[0].units[0]].gpu_instance_id, 9);
}

const std::string kShared =
    "kube_node_labels{node=\"s1\",label_nvidia_com_gpu_count=\"1\",label_nvidia_com_gpu_replicas=\"4\",label_nvidia_com_gpu_sharing_strategy=\"time-slicing\"} 1 %T\n"
    "kube_pod_info{namespace=\"a\",pod=\"p1\",uid=\"u1\",node=\"s1\"} 1 %T\n"
    "kube_pod_status_phase{namespace=\"a\",pod=\"p1\",uid=\"u1\",phase=\"Running\"} 1 %T\n"
    "kube_pod_container_resource_requests{namespace=\"a\",pod=\"p1\",uid=\"u1\",container=\"c\",node=\"s1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1 %T\n"
    "kube_pod_info{namespace=\"a\",pod=\"p2\",uid=\"u2\",node=\"s1\"} 1 %T\n"
    "kube_pod_status_phase{namespace=\"a\",pod=\"p2\",uid=\"u2\",phase=\"Running\"} 1 %T\n"
    "kube_pod_container_resource_requests{namespace=\"a\",pod=\"p2\",uid=\"u2\",container=\"c\",node=\"s1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1 %T\n";

TEST(DcgmInventory, OnePodLabelOnASharedGpuIsDeviceActivity) {
  const std::string text = kShared +
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-s\",Hostname=\"s1\",pod=\"p2\",namespace=\"a\",container=\"c\"} 0.6 %T\n";
  auto t = Load(Every30s(text, 3));
  EXPECT_EQ(Values(t, "GPU-s"), (std::vector<double>{0.6, 0.6, 0.6}));
  EXPECT_TRUE(t.usage.holders.empty());
  ASSERT_EQ(t.inventory.holdings.size(), 2u);
  for (const Holding& h : t.inventory.holdings) EXPECT_TRUE(h.units.empty());  // not pinned
}

TEST(DcgmInventory, VirtualGpuCopiesAreNeverSummed) {
  const std::string text = kShared +
      "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-s\",Hostname=\"s1\",pod=\"p1\",namespace=\"a\",container=\"c\",vgpu=\"0\"} 60 %T\n"
      "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-s\",Hostname=\"s1\",pod=\"p2\",namespace=\"a\",container=\"c\",vgpu=\"1\"} 60 %T\n";
  auto t = Load(Every30s(text, 2));
  EXPECT_EQ(Values(t, "GPU-s"), (std::vector<double>{0.6, 0.6}));
  EXPECT_TRUE(t.usage.holders.empty());
}

TEST(DcgmInventory, PerProcessValuesBecomeHolderSeries) {
  const std::string text = kShared +
      "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-s\",Hostname=\"s1\"} 70 %T\n"
      "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-s\",Hostname=\"s1\",pod=\"p1\",namespace=\"a\",container=\"c\",vgpu=\"0\",pod_uid=\"u1\"} 50 %T\n"
      "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-s\",Hostname=\"s1\",pod=\"p2\",namespace=\"a\",container=\"c\",vgpu=\"1\",pod_uid=\"u2\"} 20 %T\n";
  auto t = Load(Every30s(text, 2));
  EXPECT_EQ(Values(t, "GPU-s"), (std::vector<double>{0.7, 0.7}));
  ASSERT_EQ(t.usage.holders.size(), 2u);
  std::map<std::string, double> by_pod;
  for (const HolderDeviceSeries& h : t.usage.holders) {
    by_pod[t.inventory.holders[h.holder].pod] = h.samples.at(0).value;
  }
  EXPECT_DOUBLE_EQ(by_pod["p1"], 0.5);
  EXPECT_DOUBLE_EQ(by_pod["p2"], 0.2);
}

TEST(DcgmInventory, MissingDcgmDataLeavesUsageEmpty) {
  auto t = Load(Every30s(kShared, 2));
  EXPECT_TRUE(t.usage.devices.empty());
  EXPECT_EQ(UnitsOf(t, "s1").size(), 4u);
  EXPECT_EQ(UnitsOf(t, "s1")[0]->gpu_uuid, "s1-gpu0");
}

TEST(DcgmInventory, MixedModelsAcrossNodes) {
  const std::string text =
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-1\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"a\"} 0.1 %T\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-2\",modelName=\"Tesla T4\",Hostname=\"b\"} 0.1 %T\n";
  auto t = Load(Every30s(text, 2));
  EXPECT_EQ(FindNode(t, "a")->gpu_model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(FindNode(t, "b")->gpu_model, "Tesla T4");
  EXPECT_EQ(UnitsOf(t, "b")[0]->gpu_model, "Tesla T4");
}

TEST(DcgmInventory, WholeGpuPinnedOnUnsharedNode) {
  const std::string text =
      "kube_node_labels{node=\"n1\",label_nvidia_com_gpu_count=\"2\"} 1 %T\n"
      "kube_pod_info{namespace=\"ml\",pod=\"p\",uid=\"u\",node=\"n1\"} 1 %T\n"
      "kube_pod_status_phase{namespace=\"ml\",pod=\"p\",uid=\"u\",phase=\"Running\"} 1 %T\n"
      "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"p\",uid=\"u\",container=\"c\",node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1 %T\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"n1\"} 0.1 %T\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"1\",UUID=\"GPU-b\",Hostname=\"n1\",pod=\"p\",namespace=\"ml\",container=\"c\"} 0.9 %T\n";
  auto t = Load(Every30s(text, 2));
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  ASSERT_EQ(t.inventory.holdings[0].units.size(), 1u);
  EXPECT_EQ(t.inventory.units[t.inventory.holdings[0].units[0]].gpu_uuid, "GPU-b");
}

}  // namespace
}  // namespace gpucost
