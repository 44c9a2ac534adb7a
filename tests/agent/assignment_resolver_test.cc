#include "agent/assignment_resolver.h"

#include <gtest/gtest.h>

namespace gpucost::agent {
namespace {

NvmlReading Node() {
  NvmlGpu whole;
  whole.index = 0;
  whole.minor_number = 3;  // /dev/nvidia3: device minors need not follow NVML's order
  whole.uuid = "GPU-whole";
  NvmlGpu mig;
  mig.index = 1;
  mig.minor_number = 0;
  mig.uuid = "GPU-mig";
  mig.mig_enabled = true;
  for (const auto& [index, gi, uuid] :
       {std::tuple{0, 2, "MIG-gi2"}, std::tuple{1, 9, "MIG-gi9"}}) {
    NvmlUnit u;
    u.mig_index = index;
    u.gpu_instance_id = gi;
    u.uuid = uuid;
    mig.mig.push_back(u);
  }
  NvmlReading r;
  r.gpus = {whole, mig};
  return r;
}

PodResourcesList Assigned(const std::string& resource, const std::vector<std::string>& ids) {
  PodResourcesList list;
  PodDevices pod;
  pod.pod_namespace = "ns";
  pod.pod_name = "p";
  ContainerDevices c;
  c.container_name = "main";
  c.devices.push_back(ResourceDevices{resource, ids, {}});
  pod.containers.push_back(c);
  list.pods.push_back(pod);
  return list;
}

struct Want {
  std::string id;
  std::string gpu_uuid;
  int gpu_instance_id;
  int replica;
};

TEST(AssignmentResolver, EveryDeviceIdFormNamesItsGpuInstanceAndReplica) {
  const std::vector<Want> wants = {
      {"GPU-whole", "GPU-whole", -1, -1},
      {"GPU-whole::3", "GPU-whole", -1, 3},
      {"MIG-gi9", "GPU-mig", 9, -1},
      {"MIG-gi2::1", "GPU-mig", 2, 1},
      {"MIG-GPU-mig/9/0", "GPU-mig", 9, -1},
      {"0", "GPU-whole", -1, -1},
      {"1:1", "GPU-mig", 9, -1},  // NVML's MIG device index 1 is GPU instance 9
      {"nvidia3", "GPU-whole", -1, -1},
      {"nvidia3/vgpu2", "GPU-whole", -1, 2},
      {"nvidia0/gi2", "GPU-mig", 2, -1},
      {"GPU-elsewhere", "GPU-elsewhere", -1, -1},  // as the kubelet says, though NVML lacks it
      {"MIG-unknown", "", -1, -1},
      {"nvidia7", "", -1, -1},
      {"weird id", "", -1, -1},
  };
  std::vector<std::string> ids;
  for (const Want& w : wants) ids.push_back(w.id);
  const std::vector<DeviceAssignment> got = ResolveAssignments(Assigned("nvidia.com/gpu", ids), Node());
  ASSERT_EQ(got.size(), wants.size());
  for (size_t i = 0; i < wants.size(); ++i) {
    SCOPED_TRACE(wants[i].id);
    EXPECT_EQ(got[i].device_id, wants[i].id);
    EXPECT_EQ(got[i].gpu_uuid, wants[i].gpu_uuid);
    EXPECT_EQ(got[i].gpu_instance_id, wants[i].gpu_instance_id);
    EXPECT_EQ(got[i].replica, wants[i].replica);
    EXPECT_EQ(got[i].namespace_name, "ns");
    EXPECT_EQ(got[i].pod, "p");
    EXPECT_EQ(got[i].container, "main");
    EXPECT_EQ(got[i].resource, "nvidia.com/gpu");
  }
}

TEST(AssignmentResolver, OtherVendorsDevicesAreNoGpus) {
  // An RDMA device plugin's "0" must not be read as NVML's GPU 0.
  EXPECT_TRUE(ResolveAssignments(Assigned("rdma/hca", {"0"}), Node()).empty());
  EXPECT_EQ(ResolveAssignments(Assigned("nvidia.com/mig-1g.10gb", {"MIG-gi2"}), Node()).size(), 1u);
}

// DRA devices (PodResources dynamic_resources): one assignment per allocated device, named as the
// API names it; NVIDIA's "gpu-<minor>" resolves by the device's minor number, not NVML's index.
TEST(AssignmentResolver, DraClaimDevicesAreAssignmentsOfTheirClaim) {
  PodResourcesList list;
  PodDevices pod;
  pod.pod_namespace = "ml";
  pod.pod_name = "train";
  ContainerDevices c;
  c.container_name = "main";
  c.claim_devices = {
      {"ml", "gpus", "gpu.nvidia.com", "node-1", "gpu-3", std::nullopt, {}},
      {"ml", "gpus", "gpu.nvidia.com", "node-1", "gpu-0", std::string("4f3c"), {}},
      {"ml", "gpus", "gpu.nvidia.com", "node-1", "gpu-0-mig-9-4-1", std::nullopt, {}},
      {"ml", "gpus", "gpu.nvidia.com", "node-1", "gpu-5", std::nullopt, {}},
      {"ml", "nic", "rdma.example.com", "node-1", "gpu-0", std::nullopt, {}},
  };
  pod.containers.push_back(c);
  list.pods.push_back(pod);
  const std::vector<DeviceAssignment> got = ResolveAssignments(list, Node());
  ASSERT_EQ(got.size(), 5u);
  const std::vector<std::pair<std::string, std::string>> wants = {
      {"gpu.nvidia.com/node-1/gpu-3", "GPU-whole"},   // minor 3 is NVML's GPU 0
      {"gpu.nvidia.com/node-1/gpu-0", "GPU-mig"},     // minor 0
      {"gpu.nvidia.com/node-1/gpu-0-mig-9-4-1", ""},  // a MIG device: not resolved
      {"gpu.nvidia.com/node-1/gpu-5", ""},            // no such GPU here
      {"rdma.example.com/node-1/gpu-0", ""},          // another driver's device
  };
  for (size_t i = 0; i < wants.size(); ++i) {
    SCOPED_TRACE(wants[i].first);
    EXPECT_EQ(got[i].resource, i == 4 ? "resource.k8s.io/claim/nic" : "resource.k8s.io/claim/gpus");
    EXPECT_EQ(got[i].device_id, wants[i].first);
    EXPECT_EQ(got[i].gpu_uuid, wants[i].second);
    EXPECT_EQ(got[i].gpu_instance_id, -1);
    EXPECT_EQ(got[i].pod, "train");
    EXPECT_EQ(got[i].container, "main");
  }

  // Drivers before v25.8 named GPUs by NVML index; NVML then gave no minor numbers.
  NvmlReading no_minors = Node();
  for (NvmlGpu& g : no_minors.gpus) g.minor_number = -1;
  const std::vector<DeviceAssignment> by_index = ResolveAssignments(list, no_minors);
  EXPECT_EQ(by_index[0].gpu_uuid, "");  // no GPU 3
  EXPECT_EQ(by_index[1].gpu_uuid, "GPU-whole");
}

}  // namespace
}  // namespace gpucost::agent
