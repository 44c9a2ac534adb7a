// Turns the kubelet's PodResources answer into device assignments on this node's GPUs: the
// device ids a container holds under an nvidia.com/ resource (GPU-…, GPU-…::n, MIG-…, legacy
// MIG-GPU-…/gi/ci, NVML indexes) resolved to the physical GPU's UUID, the MIG GPU instance and
// the replica, using the NVML reading of the same collection. Ids that name no GPU of this node
// keep an empty gpu_uuid. Devices a container got through Dynamic Resource Allocation are
// assignments too: resource "resource.k8s.io/claim/<claim>", device id "<driver>/<pool>/<device>"
// (the API's name for an allocated device), and the GPU's UUID where NVIDIA's DRA driver names a
// whole GPU of this node. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agent/agent_snapshot.h"
#include "agent/nvml_collector.h"
#include "agent/pod_resources.h"

namespace gpucost::agent {

inline constexpr std::string_view kDraClaimResourcePrefix = "resource.k8s.io/claim/";
// The resource label of a DRA claim's devices: how the inventory spells a container's use of a
// claim (inventory/kube_state.h), so that the two join.
std::string DraClaimResource(std::string_view claim);

std::vector<DeviceAssignment> ResolveAssignments(const PodResourcesList& list,
                                                 const NvmlReading& reading);

// The node's allocatable GPU device ids (GetAllocatableResources), resolved the same way; the
// namespace, pod and container of each are empty. A time-sliced GPU lists one id per replica.
std::vector<DeviceAssignment> ResolveAllocatable(const AllocatableDevices& allocatable,
                                                 const NvmlReading& reading);

}  // namespace gpucost::agent
