// AMD Instinct nodes in the InventoryBuilder: whole GPUs, and compute partitions under the AMD GPU
// device plugin's single and mixed resource naming, each partition a unit with its fraction and
// its own activity from AMD's exporter.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "inventory/amd_partitions.h"
#include "inventory/input_metrics.h"
#include "inventory/inventory_builder.h"
#include "inventory/inventory_test_util.h"
#include "inventory/resource_names.h"

namespace gpucost {
namespace {

using namespace inventory_test;  // NOLINT(google-build-using-namespace): test helpers

std::string AmdNode(const std::string& name, const std::string& labels,
                    const std::vector<std::pair<std::string, int>>& capacity) {
  std::string out = "kube_node_labels{node=\"" + name + "\"" + labels + "} 1 %T\n";
  for (const auto& [res, n] : capacity) {
    out += "kube_node_status_capacity{node=\"" + name + "\",resource=\"" + res +
           "\",unit=\"integer\"} " + std::to_string(n) + " %T\n";
  }
  return out;
}

const std::string kMi300x = ",label_amd_com_gpu_product_name=\"AMD_Instinct_MI300X_OAM\"";

TEST(AmdInventory, PartitionResourceNames) {
  const ResourceName raw = CanonicalResourceName("amd.com/cpx_nps4");
  EXPECT_EQ(raw.kind, ResourceKind::kAmdPartition);
  EXPECT_EQ(raw.canonical, "amd.com/cpx_nps4");
  EXPECT_EQ(raw.mig_profile, "cpx_nps4");
  EXPECT_TRUE(raw.IsDevice());
  EXPECT_EQ(CanonicalResourceName("amd_com_spx_nps1").canonical, "amd.com/spx_nps1");
  // Passthrough resources (a VF is no compute partition) and unknown modes are not guessed.
  EXPECT_EQ(CanonicalResourceName("amd_com_gpu_vf").kind, ResourceKind::kUnknownGpu);
  EXPECT_EQ(CanonicalResourceName("amd_com_xpx_nps4").kind, ResourceKind::kUnknownGpu);
}

TEST(AmdInventory, PartitionsPerGpu) {
  EXPECT_EQ(AmdPartitionsPerGpu("cpx_nps4", "AMD Instinct MI300X OAM").partitions, 8);
  EXPECT_EQ(AmdPartitionsPerGpu("cpx_nps1", "AMD Instinct MI300A").partitions, 6);
  EXPECT_EQ(AmdPartitionsPerGpu("dpx_nps1", "").partitions, 2);
  EXPECT_EQ(AmdPartitionsPerGpu("qpx_nps4", "").partitions, 4);
  EXPECT_EQ(AmdPartitionsPerGpu("spx_nps1", "").partitions, 1);
  EXPECT_TRUE(AmdPartitionsPerGpu("cpx_nps4", "some GPU").xcds_assumed);
  EXPECT_EQ(AmdPartitionsPerGpu("zpx_nps1", "").partitions, 0);
}

TEST(AmdInventory, WholeGpusKeepTheirModel) {
  auto t = Load(Every30s(AmdNode("mi", kMi300x, {{"amd_com_gpu", 8}}), 2));
  EXPECT_EQ(FindNode(t, "mi")->physical_gpus, 8);
  EXPECT_EQ(FindNode(t, "mi")->gpu_model, "AMD Instinct MI300X OAM");
  ASSERT_EQ(UnitsOf(t, "mi").size(), 8u);
  EXPECT_EQ(UnitsOf(t, "mi")[0]->resource, "amd.com/gpu");
  EXPECT_DOUBLE_EQ(UnitsOf(t, "mi")[0]->fraction, 1.0);
}

TEST(AmdInventory, SingleNamingPartitionsFromTheLabel) {
  // 8 GPUs in CPX-NPS4 advertise amd.com/gpu: 64 (the plugin's README example): 8 GPUs, not 64.
  auto t =
      Load(Every30s(AmdNode("mi", kMi300x + ",label_amd_com_compute_memory_partition=\"cpx_nps4\"",
                            {{"amd_com_gpu", 64}}),
                    2));
  EXPECT_EQ(FindNode(t, "mi")->physical_gpus, 8);
  const auto units = UnitsOf(t, "mi");
  ASSERT_EQ(units.size(), 64u);
  double total = 0;
  for (const GpuUnit* u : units) total += u->fraction;
  EXPECT_DOUBLE_EQ(total, 8.0);
  EXPECT_EQ(units[9]->gpu_uuid, "mi-gpu1");
  EXPECT_EQ(units[9]->partition.ToString(), "xcp:1");
  EXPECT_EQ(units[9]->resource, "amd.com/gpu");
  EXPECT_EQ(units[9]->mig_profile, "cpx_nps4");
}

TEST(AmdInventory, MixedNamingPerMode) {
  // The README's heterogeneous node: 5 GPUs in SPX-NPS1, 3 in CPX-NPS1.
  auto t = Load(
      Every30s(AmdNode("mi", kMi300x, {{"amd_com_spx_nps1", 5}, {"amd_com_cpx_nps1", 24}}), 2));
  EXPECT_EQ(FindNode(t, "mi")->physical_gpus, 8);
  int spx = 0, cpx = 0;
  for (const GpuUnit* u : UnitsOf(t, "mi")) {
    if (u->resource == "amd.com/spx_nps1") {
      ++spx;
      EXPECT_DOUBLE_EQ(u->fraction, 1.0);
    } else if (u->resource == "amd.com/cpx_nps1") {
      ++cpx;
      EXPECT_DOUBLE_EQ(u->fraction, 0.125);
    }
  }
  EXPECT_EQ(spx, 5);
  EXPECT_EQ(cpx, 24);
}

TEST(AmdInventory, UnevenAndUnknownWarn) {
  auto t = Load(Every30s(AmdNode("mi", kMi300x, {{"amd_com_cpx_nps4", 12}}), 2));
  EXPECT_TRUE(HasWarning(t, "node mi: 12 amd.com/cpx_nps4 is not a whole number of cpx_nps4 GPUs"));
  EXPECT_EQ(FindNode(t, "mi")->physical_gpus, 2);
  int holdable = 0;
  for (const GpuUnit* u : UnitsOf(t, "mi")) holdable += u->holdable ? 1 : 0;
  EXPECT_EQ(holdable, 12);
  auto u = Load(Every30s(AmdNode("x", "", {{"amd_com_cpx_nps4", 8}}), 2));
  EXPECT_TRUE(HasWarning(u, "no known XCD count"));
}

std::string Gfx(const std::string& gpu_id, const std::string& uuid, const std::string& extra,
                double percent) {
  return "gpu_gfx_activity{card_series=\"AMD Instinct MI300X OAM\",gpu_id=\"" + gpu_id +
         "\",gpu_uuid=\"" + uuid + "\",hostname=\"mi\"," + extra + "} " + std::to_string(percent) +
         " %T\n";
}

TEST(AmdInventory, ExporterActivityAndPins) {
  const std::string pod =
      "kube_pod_info{namespace=\"ml\",pod=\"p\",uid=\"u-p\",node=\"mi\"} 1 %T\n"
      "kube_pod_status_phase{namespace=\"ml\",pod=\"p\",uid=\"u-p\",phase=\"Running\"} 1 %T\n"
      "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"p\",uid=\"u-p\","
      "container=\"main\",node=\"mi\",resource=\"amd_com_gpu\",unit=\"integer\"} 1 %T\n";
  auto t = Load(Every30s(AmdNode("mi", kMi300x, {{"amd_com_gpu", 3}}) + pod +
                             Gfx("0", "u0", "pod=\"\",namespace=\"\",container=\"\"", 0) +
                             Gfx("1", "u1", "pod=\"p\",namespace=\"ml\",container=\"main\"", 60),
                         2));
  const Node* n = FindNode(t, "mi");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->physical_gpus, 3);  // capacity beyond the exporter's two GPUs
  EXPECT_EQ(n->gpu_model, "AMD Instinct MI300X OAM");
  const auto units = UnitsOf(t, "mi");
  ASSERT_EQ(units.size(), 3u);
  EXPECT_EQ(units[1]->gpu_uuid, "u1");
  EXPECT_EQ(units[1]->resource, "amd.com/gpu");
  EXPECT_EQ(units[2]->gpu_uuid, "mi-gpu2");
  EXPECT_TRUE(
      HasWarning(t, "node mi: 2 GPUs in AMD exporter data but capacity says amd.com/gpu 3"));
  // Percent, divided by 100; the pod's labels pin the GPU it holds.
  std::vector<double> u1;
  for (const DeviceSeries& d : t.usage.devices) {
    if (d.gpu_uuid == "u1") {
      for (const UsageSample& s : d.samples) u1.push_back(s.value);
    }
  }
  EXPECT_EQ(u1, (std::vector<double>{0.6, 0.6}));
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  ASSERT_EQ(t.inventory.holdings[0].units.size(), 1u);
  EXPECT_EQ(t.inventory.units[t.inventory.holdings[0].units[0]].gpu_uuid, "u1");
}

TEST(AmdInventory, PartitionActivityIsNotRead) {
  auto t = Load(
      Every30s(AmdNode("mi", kMi300x + ",label_amd_com_compute_memory_partition=\"cpx_nps4\"",
                       {{"amd_com_gpu", 8}}) +
                   Gfx("0", "u0", "gpu_compute_partition_type=\"cpx\",gpu_partition_id=\"0\"", 50),
               2));
  EXPECT_TRUE(t.usage.devices.empty());
  EXPECT_TRUE(HasWarning(t, "gfx activity of a cpx partition is not measured by this metric"));
  EXPECT_EQ(FindNode(t, "mi")->physical_gpus, 1);
}

// AMD's exporter on a partitioned GPU: one device per partition (gpu_partition_id), its GPU's
// serial_number, and gpu_gfx_busy_instantaneous per XCC of the partition (xcc_index), percent.
std::string AmdBusy(const std::string& host, int gpu_id, const std::string& serial,
                    const std::string& mode, int partition, int xcc, const std::string& pod,
                    double percent) {
  return "gpu_gfx_busy_instantaneous{card_model=\"102-G30211-0C\",gpu_compute_partition_type=\"" +
         mode + "\",gpu_id=\"" + std::to_string(gpu_id) + "\",gpu_partition_id=\"" +
         std::to_string(partition) + "\",hostname=\"" + host + "\",serial_number=\"" + serial +
         "\",xcc_index=\"" + std::to_string(xcc) + "\"," + pod + "} " + std::to_string(percent) +
         " %T\n";
}

std::vector<double> AmdDeviceValues(const LoadedTimeline& t, const std::string& uuid, int gi) {
  std::vector<double> out;
  for (const DeviceSeries& d : t.usage.devices) {
    if (d.gpu_uuid != uuid || d.gpu_instance_id != gi) continue;
    for (const UsageSample& s : d.samples) out.push_back(s.value);
  }
  return out;
}

TEST(AmdInventory, PartitionActivityFromXccBusy) {
  const std::string none = "pod=\"\",namespace=\"\",container=\"\"";
  const std::string pod =
      "kube_pod_info{namespace=\"ml\",pod=\"p\",uid=\"u-p\",node=\"mi\"} 1 %T\n"
      "kube_pod_status_phase{namespace=\"ml\",pod=\"p\",uid=\"u-p\",phase=\"Running\"} 1 %T\n"
      "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"p\",uid=\"u-p\","
      "container=\"main\",node=\"mi\",resource=\"amd_com_gpu\",unit=\"integer\"} 1 %T\n";
  // Two CPX GPUs; the exporter numbers serial SA's partitions 0-7 and SB's 8-15, so SA is the
  // node's first GPU. SA's partition 1 is held by ml/p at 40 %, SB's partition 0 is free at 80 %.
  // An SPX series of the same metric is not a partition's and is not read.
  auto t = Load(Every30s(
      AmdNode("mi", kMi300x + ",label_amd_com_compute_memory_partition=\"cpx_nps4\"",
              {{"amd_com_gpu", 16}}) +
          pod + AmdBusy("mi", 9, "SB", "cpx", 0, 0, none, 80) +
          AmdBusy("mi", 1, "SA", "cpx", 1, 0, "pod=\"p\",namespace=\"ml\",container=\"main\"", 40) +
          AmdBusy("mi", 0, "SA", "cpx", 0, 0, none, 0) +
          AmdBusy("mi", 8, "SB", "cpx", 1, 0, none, 0) +
          AmdBusy("mi", 2, "SX", "spx", 0, 0, none, 55),
      2));
  EXPECT_EQ(FindNode(t, "mi")->physical_gpus, 2);
  const auto units = UnitsOf(t, "mi");
  ASSERT_EQ(units.size(), 16u);
  EXPECT_EQ(units[1]->gpu_uuid, "SA");
  EXPECT_EQ(units[1]->partition.ToString(), "xcp:1");
  EXPECT_EQ(units[8]->gpu_uuid, "SB");
  // Percent, divided by 100, each partition its own device.
  EXPECT_EQ(AmdDeviceValues(t, "SA", 1), (std::vector<double>{0.4, 0.4}));
  EXPECT_EQ(AmdDeviceValues(t, "SB", 0), (std::vector<double>{0.8, 0.8}));
  EXPECT_TRUE(AmdDeviceValues(t, "SX", -1).empty());
  EXPECT_TRUE(AmdDeviceValues(t, "SX", 0).empty());
  // The partition's pod labels pin the partition the pod holds.
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  ASSERT_EQ(t.inventory.holdings[0].units.size(), 1u);
  const GpuUnit& held = t.inventory.units[t.inventory.holdings[0].units[0]];
  EXPECT_EQ(held.gpu_uuid, "SA");
  EXPECT_EQ(held.gpu_instance_id, 1);
}

TEST(AmdInventory, PrometheusSourcesAskForTheExportersSeries) {
  for (const char* name : {"gpu_gfx_activity", "amd_gpu_gfx_activity", "gpu_gfx_busy_instantaneous",
                           "amd_gpu_gfx_busy_instantaneous"}) {
    EXPECT_NE(std::find(kInventoryMetricNames.begin(), kInventoryMetricNames.end(), name),
              kInventoryMetricNames.end())
        << name;
  }
}

TEST(AmdInventory, PartitionActivityIsTheMeanOfItsXccs) {
  // DPX on an MI300X: two partitions of four XCCs each; partition 0's XCCs at 10/20/30/40 %.
  const std::string none = "pod=\"\",namespace=\"\",container=\"\"";
  std::string busy;
  for (int x = 0; x < 4; ++x) {
    busy += AmdBusy("md", 0, "SD", "dpx", 0, x, none, 10.0 * (x + 1));
    busy += AmdBusy("md", 1, "SD", "dpx", 1, x, none, 100);
  }
  auto t = Load(Every30s(AmdNode("md", kMi300x, {{"amd_com_dpx_nps1", 2}}) + busy, 2));
  const auto units = UnitsOf(t, "md");
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0]->gpu_uuid, "SD");
  EXPECT_DOUBLE_EQ(units[0]->fraction, 0.5);
  const std::vector<double> p0 = AmdDeviceValues(t, "SD", 0);
  ASSERT_EQ(p0.size(), 2u);
  EXPECT_DOUBLE_EQ(p0[0], 0.25);
  EXPECT_EQ(AmdDeviceValues(t, "SD", 1), (std::vector<double>{1.0, 1.0}));
  // An exporter GPU the advertised resources leave no room for is named, not silently dropped.
  auto u = Load(Every30s(AmdNode("md", kMi300x, {{"amd_com_cpx_nps1", 8}}) + busy, 2));
  EXPECT_TRUE(HasWarning(u, "AMD exporter GPU SD (dpx) matches no GPU"));
}

}  // namespace
}  // namespace gpucost
