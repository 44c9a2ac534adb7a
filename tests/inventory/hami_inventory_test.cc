// HAMi's vGPU monitor as an input: the GPUs of a node, the GPU each container uses (a pin), and
// the bad series' warnings. The money of a whole case is in tests/golden (hami_monitor).
#include <gtest/gtest.h>

#include <algorithm>

#include "inventory/input_metrics.h"
#include "inventory_test_util.h"

namespace gpucost {
namespace {

using inventory_test::Every30s;
using inventory_test::FindNode;
using inventory_test::HasWarning;
using inventory_test::Load;
using inventory_test::UnitsOf;

// A HAMi node with two A100s, and one pod holding 30 % of a GPU.
const std::string kHamiNode =
    "kube_node_labels{node=\"h\",label_nvidia_com_gpu_product=\"NVIDIA-A100-SXM4-80GB\"} 1 %T\n"
    "kube_node_status_capacity{node=\"h\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 20 %T\n"
    "kube_pod_info{namespace=\"ns\",pod=\"p\",uid=\"uid-p\",node=\"h\"} 1 %T\n"
    "kube_pod_status_phase{namespace=\"ns\",pod=\"p\",uid=\"uid-p\",phase=\"Running\"} 1 %T\n"
    "kube_pod_container_resource_requests{namespace=\"ns\",pod=\"p\",uid=\"uid-p\","
    "container=\"main\",node=\"h\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1 %T\n"
    "kube_pod_container_resource_requests{namespace=\"ns\",pod=\"p\",uid=\"uid-p\","
    "container=\"main\",node=\"h\",resource=\"nvidia_com_gpucores\",unit=\"integer\"} 30 %T\n";

std::string Host(const std::string& uuid, int index, double pct) {
  return "hami_host_gpu_utilization_ratio{node=\"h\",device_index=\"" + std::to_string(index) +
         "\",device_uuid=\"" + uuid + "\",device_type=\"NVIDIA-NVIDIA A100-SXM4-80GB\"} " +
         std::to_string(pct) + " %T\n";
}

TEST(HamiInventory, PrometheusSourcesAskForHamisSeries) {
  for (const char* name :
       {"hami_host_gpu_utilization_ratio", "hami_container_device_utilization_ratio",
        "HostCoreUtilization", "Device_utilization_desc_of_container"}) {
    EXPECT_NE(std::find(kInventoryMetricNames.begin(), kInventoryMetricNames.end(), name),
              kInventoryMetricNames.end())
        << name;
  }
}

// The host series name the node's GPUs (UUID, index, model), and a container series pins the
// pod to the second GPU, which the pool would not have drawn first.
TEST(HamiInventory, HostSeriesNameTheGpusAndContainerSeriesPinTheirGpu) {
  const std::string text =
      kHamiNode + Host("GPU-b", 1, 50) + Host("GPU-a", 0, 0) +
      "hami_container_device_utilization_ratio{namespace=\"ns\",pod=\"p\",container=\"main\","
      "vdevice_index=\"0\",device_uuid=\"GPU-b\"} 45 %T\n";
  auto t = Load(Every30s(text, 4));
  const Node* h = FindNode(t, "h");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->physical_gpus, 2);
  EXPECT_EQ(h->sharing, SharingMode::kHami);
  EXPECT_EQ(h->gpu_model, "NVIDIA A100-SXM4-80GB");
  auto units = UnitsOf(t, "h");
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0]->gpu_uuid, "GPU-a");  // by device index
  EXPECT_EQ(units[1]->gpu_uuid, "GPU-b");
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  const Holding& hd = t.inventory.holdings[0];
  ASSERT_EQ(hd.units.size(), 1u);
  EXPECT_EQ(t.inventory.units[hd.units[0]].gpu_uuid, "GPU-b");
  // The container's part, 45 % as a ratio, on GPU-b; the GPU's own 50 %.
  ASSERT_EQ(t.usage.holders.size(), 1u);
  EXPECT_EQ(t.usage.holders[0].gpu_uuid, "GPU-b");
  ASSERT_FALSE(t.usage.holders[0].samples.empty());
  EXPECT_DOUBLE_EQ(t.usage.holders[0].samples[0].value, 0.45);
  bool found = false;
  for (const DeviceSeries& d : t.usage.devices) {
    if (d.gpu_uuid == "GPU-b") {
      found = true;
      ASSERT_FALSE(d.samples.empty());
      EXPECT_DOUBLE_EQ(d.samples[0].value, 0.5);
    }
  }
  EXPECT_TRUE(found);
}

// Bad series are told and lose nothing else: a negative percent, a series without its UUID, a
// container on a GPU no source names (its request then draws from the node's pool).
TEST(HamiInventory, BadSeriesWarnAndLoseNothingElse) {
  const std::string text =
      kHamiNode + Host("GPU-a", 0, 20) +
      "hami_host_gpu_utilization_ratio{node=\"h\",device_index=\"1\",device_uuid=\"GPU-c\"} -5 %T\n"
      "HostCoreUtilization{nodeid=\"h\",deviceidx=\"2\"} 10 %T\n"
      "Device_utilization_desc_of_container{podnamespace=\"ns\",podname=\"p\",ctrname=\"main\","
      "vdeviceid=\"0\",deviceuuid=\"GPU-zzz\"} 30 %T\n";
  auto t = Load(Every30s(text, 2));
  EXPECT_TRUE(HasWarning(t, "is not a percent")) << "negative utilization";
  EXPECT_TRUE(HasWarning(t, "without a nodeid or deviceuuid label"));
  EXPECT_TRUE(HasWarning(t, "uses GPU GPU-zzz, which no node's GPUs include"));
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  EXPECT_TRUE(t.inventory.holdings[0].units.empty());  // drawn from the pool
  EXPECT_TRUE(t.usage.holders.empty());
  const Node* h = FindNode(t, "h");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->physical_gpus, 1);  // GPU-a; GPU-c's only sample was skipped
}

}  // namespace
}  // namespace gpucost
