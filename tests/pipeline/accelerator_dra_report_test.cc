// Accelerators other than NVIDIA's handed out by DRA, through the real inventory builder and
// engine (docs/k8s.md "Dynamic Resource Allocation"): AMD Instinct GPUs from AMD's driver
// (gpu.amd.com), where a GPU that is not partitioned is one "amdgpu" device and a partitioned GPU
// its "amdgpu-partition" devices naming their GPU by PCI address; and AWS Neuron devices from the
// Neuron driver (neuron.aws.com, "neurondevice<N>"). Expected values are worked out by hand; every
// case conserves cost.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pipeline/dra_report_fixture.h"

namespace gpucost {
namespace {

using namespace dra_report_fixture;  // NOLINT(google-build-using-namespace)

constexpr const char* kProduct = "AMD_Instinct_MI300X_OAM";  // as the driver normalizes it

KubeDraDevice AmdGpu(const std::string& name, const std::string& pci) {
  KubeDraDevice d;
  d.node = "n1";
  d.driver = "gpu.amd.com";
  d.pool = "n1";
  d.name = name;
  d.type = "amdgpu";
  d.pci_address = pci;
  d.product = kProduct;
  d.profile = "spx_nps1";
  return d;
}

// Partition `p` of the GPU at `pci`, in mode `profile`: its render node orders it in its GPU.
KubeDraDevice AmdPartition(const std::string& pci, int card, int p, const std::string& profile) {
  KubeDraDevice d =
      AmdGpu("gpu-" + std::to_string(card + p) + "-" + std::to_string(128 + card + p), pci);
  d.type = "amdgpu-partition";
  d.profile = profile;
  d.render_index = 128 + card + p;
  return d;
}

// The eight CPX partitions of one MI300X at `pci`, its first card `card`.
std::vector<KubeDraDevice> CpxGpu(const std::string& pci, int card, int published = 8) {
  std::vector<KubeDraDevice> out;
  for (int p = 0; p < published; ++p) out.push_back(AmdPartition(pci, card, p, "cpx_nps4"));
  return out;
}

KubeDraAllocation AmdAllocation(const std::string& claim, const std::string& device,
                                std::vector<std::string> pods) {
  KubeDraAllocation x;
  x.namespace_name = "ml";
  x.claim = claim;
  x.driver = "gpu.amd.com";
  x.pool = "n1";
  x.device = device;
  x.reserved_for = std::move(pods);
  return x;
}

// One MI300X in CPX (eight partitions of 1/8) and one not partitioned: a claim of one partition
// holds an eighth, a claim of two partitions a quarter, a claim of the whole GPU all of it while
// its pod runs; the rest is idle. Two physical GPUs cost the node's hour.
TEST(AmdDraReport, PartitionsAndWholeGpusAreUnitsWithTheirFraction) {
  KubeState k = OneDraNode();
  k.dra_devices = CpxGpu("0000:11:00.0", 1);
  k.dra_devices.push_back(AmdGpu("gpu-9-137", "0000:21:00.0"));
  const std::string p0 = k.dra_devices[0].name, p1 = k.dra_devices[1].name,
                    p2 = k.dra_devices[2].name;
  k.dra_allocations = {AmdAllocation("small", p0, {"nb-0"}), AmdAllocation("pair", p1, {"train-0"}),
                       AmdAllocation("pair", p2, {"train-0"}),
                       AmdAllocation("whole", "gpu-9-137", {"train-1"})};
  k.pods = {Pod("nb-0", "n1", {{"main", "small"}}, 0, 3600),
            Pod("train-0", "n1", {{"main", "pair"}}, 0, 3600),
            Pod("train-1", "n1", {{"main", "whole"}}, 0, 1800)};
  Money m = Attribute(k);
  EXPECT_NEAR(m.cost, 2 * kPrice, 1e-9);
  EXPECT_NEAR(m.allocated["nb-0/main"], kPrice / 8, 1e-9);
  EXPECT_NEAR(m.gpu_hours["nb-0/main"], 1.0 / 8, 1e-9);
  EXPECT_NEAR(m.allocated["train-0/main"], kPrice / 4, 1e-9);
  EXPECT_NEAR(m.allocated["train-1/main"], kPrice / 2, 1e-9);
  EXPECT_NEAR(m.idle, 2 * kPrice - kPrice / 8 - kPrice / 4 - kPrice / 2, 1e-9);
  EXPECT_TRUE(m.warnings.empty()) << ::testing::PrintToString(m.warnings);
  EXPECT_EQ(m.sharing["n1"], "dra");  // its claims hand out partitions and GPUs
}

// A mode whose partition count is known takes each partition as its share of the GPU even where
// the driver publishes fewer (the missing ones are idle capacity); a mode not known is warned of,
// and the published partitions are taken as the whole GPU.
TEST(AmdDraReport, PartitionCountComesFromTheModeElseFromTheDevices) {
  KubeState k = OneDraNode();
  k.dra_devices = CpxGpu("0000:11:00.0", 1, 6);
  k.dra_allocations = {AmdAllocation("one", k.dra_devices[5].name, {"nb-0"})};
  k.pods = {Pod("nb-0", "n1", {{"main", "one"}}, 0, 3600)};
  Money six = Attribute(k);
  EXPECT_NEAR(six.cost, kPrice, 1e-9);
  EXPECT_NEAR(six.allocated["nb-0/main"], kPrice / 8, 1e-9);
  EXPECT_NEAR(six.idle, 7 * kPrice / 8, 1e-9);

  for (KubeDraDevice& d : k.dra_devices) d.profile = "zpx_nps9";
  Money unknown = Attribute(k);
  EXPECT_NEAR(unknown.allocated["nb-0/main"], kPrice / 6, 1e-9);
  EXPECT_TRUE(Told(unknown,
                   "partition mode \"zpx_nps9\" is not known; its 6 DRA partitions are "
                   "taken as the whole GPU"))
      << ::testing::PrintToString(unknown.warnings);

  // A partition that names no GPU is a GPU of its own, and told.
  k.dra_devices = CpxGpu("0000:11:00.0", 1, 8);
  k.dra_devices[7].pci_address.clear();
  k.dra_allocations = {AmdAllocation("one", k.dra_devices[5].name, {"nb-0"})};
  Money orphan = Attribute(k);
  EXPECT_NEAR(orphan.cost, 2 * kPrice, 1e-9);
  EXPECT_NEAR(orphan.allocated["nb-0/main"], kPrice / 8, 1e-9);
  EXPECT_TRUE(Told(orphan, "AMD DRA device " + k.dra_devices[7].name +
                               " names no GPU (no pciAddr or parentPciAddr attribute)"))
      << ::testing::PrintToString(orphan.warnings);
}

// AMD's device plugin beside its DRA driver on one node: the plugin's amd.com/gpu capacity is one
// more GPU, which a plain amd.com/gpu request holds; the DRA GPU is its claim's.
TEST(AmdDraReport, DevicePluginGpusBesideDraGpus) {
  KubeState k = OneDraNode();
  k.nodes[0].capacity = {{"amd.com/gpu", 1}};
  k.dra_devices = {AmdGpu("gpu-1-129", "0000:11:00.0")};
  k.dra_allocations = {AmdAllocation("whole", "gpu-1-129", {"train-0"})};
  KubePod plain = Pod("infer-0", "n1", {}, 0, 3600);
  plain.resources.push_back({"main", "amd.com/gpu", 1, false, {}});
  k.pods = {Pod("train-0", "n1", {{"main", "whole"}}, 0, 3600), plain};
  Money m = Attribute(k);
  EXPECT_NEAR(m.cost, 2 * kPrice, 1e-9);
  EXPECT_NEAR(m.allocated["train-0/main"], kPrice, 1e-9);
  EXPECT_NEAR(m.allocated["infer-0/main"], kPrice, 1e-9);
  EXPECT_NEAR(m.idle, 0, 1e-9);
  EXPECT_TRUE(m.warnings.empty()) << ::testing::PrintToString(m.warnings);
  EXPECT_EQ(m.sharing["n1"], "dra");  // the device plugin's whole GPU beside DRA's
}

// AMD's exporter names the GPU's partitions by serial number and partition id: the DRA GPU takes
// the exporter's GPU of its mode, and its partitions in render node order are the exporter's
// partition ids, so a claimed partition's activity is its pod's. (The device names, gpu-8-136 to
// gpu-15-143, sort otherwise.)
TEST(AmdDraReport, ExporterActivityMeetsTheClaimedPartition) {
  KubeState k = OneDraNode();
  k.dra_devices = CpxGpu("0000:11:00.0", 8);
  k.dra_allocations = {AmdAllocation("one", k.dra_devices[3].name, {"nb-0"})};
  k.pods = {Pod("nb-0", "n1", {{"main", "one"}}, 0, 3600)};
  std::string exporter;
  for (int p = 0; p < 8; ++p) {
    for (int64_t t = 0; t < 3600; t += 60) {
      exporter +=
          "gpu_gfx_busy_instantaneous{card_model=\"102-G30211-0C\","
          "gpu_compute_partition_type=\"cpx\",gpu_id=\"" +
          std::to_string(p) + "\",gpu_memory_partition_type=\"nps4\",gpu_partition_id=\"" +
          std::to_string(p) + "\",hostname=\"n1\",serial_number=\"692409001\",xcc_index=\"0\"} " +
          (p == 3 ? "40" : "0") + " " + std::to_string((kBase + t) * 1000) + "\n";
    }
  }
  Money m = Attribute(k, exporter);
  EXPECT_NEAR(m.allocated["nb-0/main"], kPrice / 8, 1e-9);
  EXPECT_NEAR(m.effective["nb-0/main"], 0.4 * kPrice / 8, 1e-9);
  EXPECT_FALSE(m.estimated["nb-0/main"]);
  EXPECT_FALSE(Told(m, "matches no GPU")) << ::testing::PrintToString(m.warnings);
}

// A trn2.48xlarge (16 Neuron devices of 4 logical cores) whose devices the Neuron DRA driver
// publishes: a claim of four devices holds four devices' cores for the hour, a claim of one device
// one device's for its pod's half hour; the rest is idle. Money is per accelerator-hour.
TEST(NeuronDraReport, ClaimedDevicesHoldTheirCores) {
  KubeState k = OneDraNode();
  k.nodes[0].labels = {{"node.kubernetes.io/instance-type", "trn2.48xlarge"}};
  for (int d = 0; d < 16; ++d) {
    KubeDraDevice x;
    x.node = "n1";
    x.driver = "neuron.aws.com";
    x.pool = "n1";
    x.name = "neurondevice" + std::to_string(d);
    k.dra_devices.push_back(x);
  }
  const auto allocation = [](const std::string& claim, int device, const std::string& pod) {
    KubeDraAllocation x = AmdAllocation(claim, "neurondevice" + std::to_string(device), {pod});
    x.driver = "neuron.aws.com";
    return x;
  };
  for (int d : {2, 3, 1, 0}) k.dra_allocations.push_back(allocation("four", d, "train-0"));
  k.dra_allocations.push_back(allocation("one", 12, "infer-0"));
  k.pods = {Pod("train-0", "n1", {{"main", "four"}}, 0, 3600),
            Pod("infer-0", "n1", {{"main", "one"}}, 1800, 3600)};
  Money m = Attribute(k);
  EXPECT_NEAR(m.cost, 16 * kPrice, 1e-9);
  EXPECT_NEAR(m.allocated["train-0/main"], 4 * kPrice, 1e-9);
  EXPECT_NEAR(m.gpu_hours["train-0/main"], 4, 1e-9);
  EXPECT_NEAR(m.allocated["infer-0/main"], 0.5 * kPrice, 1e-9);
  EXPECT_NEAR(m.idle, 11.5 * kPrice, 1e-9);
  EXPECT_TRUE(m.warnings.empty()) << ::testing::PrintToString(m.warnings);
  EXPECT_EQ(m.sharing["n1"], "dra");

  // Devices the driver does not publish are still the instance's: idle, not gone.
  k.dra_devices.resize(13);  // neurondevice13 to 15 not published
  Money fewer = Attribute(k);
  EXPECT_NEAR(fewer.cost, 16 * kPrice, 1e-9);
  EXPECT_NEAR(fewer.allocated["train-0/main"], 4 * kPrice, 1e-9);
  EXPECT_NEAR(fewer.idle, 11.5 * kPrice, 1e-9);
}

}  // namespace
}  // namespace gpucost
