// AWS Neuron nodes in the InventoryBuilder: the device plugin's resource names, one unit per
// NeuronCore with its fraction of a device, device requests holding every core of a device, and
// the Neuron monitor's per-core utilization.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "inventory/inventory_builder.h"
#include "inventory/inventory_test_util.h"
#include "inventory/neuron_shapes.h"
#include "inventory/resource_names.h"

namespace gpucost {
namespace {

using namespace inventory_test;  // NOLINT(google-build-using-namespace): test helpers

std::string NeuronNode(const std::string& name, const std::string& type,
                       const std::vector<std::pair<std::string, int>>& capacity) {
  std::string out = "kube_node_labels{node=\"" + name +
                    "\",label_node_kubernetes_io_instance_type=\"" + type + "\"} 1 %T\n";
  for (const auto& [res, n] : capacity) {
    out += "kube_node_status_capacity{node=\"" + name + "\",resource=\"" + res +
           "\",unit=\"integer\"} " + std::to_string(n) + " %T\n";
  }
  return out;
}

std::string NeuronPod(const std::string& name, const std::string& node, const std::string& res,
                      int count) {
  return "kube_pod_info{namespace=\"ml\",pod=\"" + name + "\",uid=\"u-" + name + "\",node=\"" +
         node + "\"} 1 %T\n" + "kube_pod_status_phase{namespace=\"ml\",pod=\"" + name +
         "\",uid=\"u-" + name + "\",phase=\"Running\"} 1 %T\n" +
         "kube_pod_container_resource_requests{namespace=\"ml\",pod=\"" + name + "\",uid=\"u-" +
         name + "\",container=\"main\",node=\"" + node + "\",resource=\"" + res +
         "\",unit=\"integer\"} " + std::to_string(count) + " %T\n";
}

TEST(NeuronInventory, ResourceNames) {
  for (const char* raw : {"aws.amazon.com/neurondevice", "aws_amazon_com_neurondevice"}) {
    const ResourceName rn = CanonicalResourceName(raw);
    EXPECT_EQ(rn.kind, ResourceKind::kNeuronDevice) << raw;
    EXPECT_EQ(rn.canonical, "aws.amazon.com/neurondevice");
    EXPECT_TRUE(rn.IsDevice());
  }
  EXPECT_EQ(CanonicalResourceName("aws_amazon_com_neuron").kind, ResourceKind::kNeuronDevice);
  EXPECT_EQ(CanonicalResourceName("aws_amazon_com_neuron").canonical, "aws.amazon.com/neuron");
  EXPECT_EQ(CanonicalResourceName("aws.amazon.com/neuroncore").kind, ResourceKind::kNeuronCore);
  EXPECT_EQ(CanonicalResourceName("aws_amazon_com_neuroncore").canonical,
            "aws.amazon.com/neuroncore");
  // Something Neuron-like we do not know is reported, not ignored as CPU-like.
  EXPECT_EQ(CanonicalResourceName("aws_amazon_com_neuronfabric").kind, ResourceKind::kUnknownGpu);
  EXPECT_EQ(UnitKindOfResource("aws.amazon.com/neuroncore"), UnitKind::kNeuronDevice);
  EXPECT_EQ(UnitKindOfResource("amd.com/gpu"), UnitKind::kGpu);
}

TEST(NeuronInventory, ShapesOfKnownTypes) {
  const NeuronShape* trn1 = FindNeuronShape("trn1.32xlarge");
  ASSERT_NE(trn1, nullptr);
  EXPECT_EQ(trn1->devices, 16);
  EXPECT_EQ(trn1->cores_per_device, 2);
  ASSERT_NE(FindNeuronShape("trn2.48xlarge"), nullptr);
  EXPECT_EQ(FindNeuronShape("trn2.48xlarge")->cores_per_device, 4);  // 8 physical, LNC=2
  EXPECT_EQ(FindNeuronShape("inf2.48xlarge")->devices, 12);
  EXPECT_EQ(FindNeuronShape("p5.48xlarge"), nullptr);
  EXPECT_EQ(NeuronDeviceModel("trn2.3xlarge"), "AWS Trainium2");  // family known, size not
}

TEST(NeuronInventory, CoreUnitsFromCapacity) {
  auto t = Load(Every30s(NeuronNode("trn", "trn1.32xlarge",
                                    {{"aws_amazon_com_neuroncore", 32},
                                     {"aws_amazon_com_neurondevice", 16},
                                     {"aws_amazon_com_neuron", 16}}),
                         2));
  const Node* n = FindNode(t, "trn");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->physical_gpus, 16);  // devices, not devices + cores + legacy devices
  EXPECT_EQ(n->gpu_model, "AWS Trainium");
  const auto units = UnitsOf(t, "trn");
  ASSERT_EQ(units.size(), 32u);
  double total = 0;
  for (const GpuUnit* u : units) {
    EXPECT_EQ(u->partition.kind, PartitionKind::kCore);
    EXPECT_EQ(u->resource, "aws.amazon.com/neuroncore");
    EXPECT_DOUBLE_EQ(u->fraction, 0.5);
    total += u->fraction;
  }
  EXPECT_DOUBLE_EQ(total, 16.0);
  EXPECT_EQ(units[3]->gpu_uuid, "trn-neuron1");
  EXPECT_EQ(units[3]->partition.ToString(), "core:1");
}

TEST(NeuronInventory, ShapeFromInstanceTypeWhereCapacityIsSilent) {
  // Devices only: Trainium2's default four logical cores per device come from the type.
  auto t =
      Load(Every30s(NeuronNode("t2", "trn2.48xlarge", {{"aws_amazon_com_neurondevice", 16}}), 2));
  ASSERT_EQ(UnitsOf(t, "t2").size(), 64u);
  EXPECT_DOUBLE_EQ(UnitsOf(t, "t2")[0]->fraction, 0.25);
  EXPECT_EQ(FindNode(t, "t2")->gpu_model, "AWS Trainium2");
  // Cores only: inf2.48xlarge's 24 cores are its 12 devices.
  auto i =
      Load(Every30s(NeuronNode("i2", "inf2.48xlarge", {{"aws_amazon_com_neuroncore", 24}}), 2));
  EXPECT_EQ(FindNode(i, "i2")->physical_gpus, 12);
}

TEST(NeuronInventory, UnevenCapacityWarnsAndNamesTheNode) {
  auto t = Load(
      Every30s(NeuronNode("odd", "trn1.32xlarge",
                          {{"aws_amazon_com_neuroncore", 31}, {"aws_amazon_com_neurondevice", 16}}),
               2));
  EXPECT_TRUE(HasWarning(t, "node odd: capacity says 31 aws.amazon.com/neuroncore on 16 devices"));
  EXPECT_EQ(UnitsOf(t, "odd").size(), 32u);  // the type's two per device
  auto u =
      Load(Every30s(NeuronNode("mystery", "x9.large", {{"aws_amazon_com_neurondevice", 2}}), 2));
  EXPECT_TRUE(HasWarning(u, "node mystery: NeuronCores per device unknown"));
  EXPECT_EQ(UnitsOf(u, "mystery").size(), 2u);
}

TEST(NeuronInventory, DeviceRequestHoldsEveryCoreOfADevice) {
  auto t = Load(Every30s(
      NeuronNode("trn", "trn1.32xlarge",
                 {{"aws_amazon_com_neuroncore", 32}, {"aws_amazon_com_neurondevice", 16}}) +
          NeuronPod("dev", "trn", "aws_amazon_com_neurondevice", 3) +
          NeuronPod("old", "trn", "aws_amazon_com_neuron", 1) +
          NeuronPod("core", "trn", "aws_amazon_com_neuroncore", 1),
      2));
  std::map<std::string, Request> by_pod;
  for (const Holding& h : t.inventory.holdings)
    by_pod[t.inventory.holders[h.holder].pod] = h.request;
  ASSERT_EQ(by_pod.size(), 3u);
  EXPECT_EQ(by_pod["dev"].resource, "aws.amazon.com/neuroncore");
  EXPECT_EQ(by_pod["dev"].count, 6);
  EXPECT_EQ(by_pod["old"].count, 2);
  EXPECT_EQ(by_pod["core"].count, 1);
}

std::string Monitor(const std::string& instance, const std::string& extra, double value) {
  return "neuroncore_utilization_ratio{instance_id=\"" + instance +
         "\",instance_type=\"inf2.xlarge\"," + extra + "} " + std::to_string(value) + " %T\n";
}

// Usage samples of one core unit.
std::vector<double> CoreValues(const LoadedTimeline& t, const std::string& uuid, int core) {
  std::vector<double> out;
  for (const DeviceSeries& d : t.usage.devices) {
    if (d.gpu_uuid != uuid || d.gpu_instance_id != core) continue;
    for (const UsageSample& s : d.samples) out.push_back(s.value);
  }
  return out;
}

TEST(NeuronInventory, MonitorUtilizationPerCore) {
  const std::string node =
      NeuronNode("inf", "inf2.xlarge", {{"aws_amazon_com_neuroncore", 2}}) +
      "kube_node_info{node=\"inf\",provider_id=\"aws:///us-east-1a/i-0abc\"} 1 %T\n";
  // Monitor running (hardware info), core 0 used by two runtimes: the larger value, never the sum.
  auto t =
      Load(Every30s(node +
                        "neuron_hardware_info{instance_id=\"i-0abc\",neuron_device_count=\"1\","
                        "neuroncore_per_device_count=\"2\"} 1 %T\n" +
                        Monitor("i-0abc", "neuroncore=\"0\",runtime_tag=\"1\"", 0.75) +
                        Monitor("i-0abc", "neuroncore=\"0\",runtime_tag=\"2\"", 0.5),
                    2));
  EXPECT_EQ(CoreValues(t, "inf-neuron0", 0), (std::vector<double>{0.75, 0.75}));
  EXPECT_EQ(CoreValues(t, "inf-neuron0", 1), (std::vector<double>{0.0, 0.0}));  // no runtime
  // Without the monitor's hardware info an unreported core is unmeasured, and a value outside
  // 0..1 is no sample, with a warning that names the line.
  auto u =
      Load(Every30s(node + Monitor("i-0abc", "neuroncore=\"0\",runtime_tag=\"1\"", 75), 1) +
           Every30s(node + Monitor("i-0abc", "neuroncore=\"0\",runtime_tag=\"1\"", 0.25), 1, 1));
  EXPECT_EQ(CoreValues(u, "inf-neuron0", 0), (std::vector<double>{0.25}));
  EXPECT_TRUE(CoreValues(u, "inf-neuron0", 1).empty());
  EXPECT_TRUE(HasWarning(u, "outside the ratio range 0..1"));
  EXPECT_TRUE(HasWarning(u, "t.prom:4: neuroncore_utilization_ratio{"));
}

TEST(NeuronInventory, MonitorMatchedByNodeLabel) {
  auto t =
      Load(Every30s(NeuronNode("inf", "inf2.xlarge", {{"aws_amazon_com_neuroncore", 2}}) +
                        Monitor("i-0zzz", "node=\"inf\",neuroncore=\"1\",runtime_tag=\"1\"", 0.5),
                    2));
  EXPECT_EQ(CoreValues(t, "inf-neuron0", 1), (std::vector<double>{0.5, 0.5}));
  // A monitor of another node is not this node's.
  auto u =
      Load(Every30s(NeuronNode("inf", "inf2.xlarge", {{"aws_amazon_com_neuroncore", 2}}) +
                        Monitor("i-0zzz", "node=\"other\",neuroncore=\"1\",runtime_tag=\"1\"", 0.5),
                    2));
  EXPECT_TRUE(CoreValues(u, "inf-neuron0", 1).empty());
}

}  // namespace
}  // namespace gpucost
