// KubeState: what the Kubernetes API says about one cluster at one moment (pods with their GPU
// requests, schedule and owners; nodes with labels and capacity; namespace labels; ReplicaSet and
// Job owners), in the inventory's terms. The Kubernetes API source (src/k8s) fills it; the
// inventory builder merges it with kube-state-metrics series (docs/k8s.md "Merging with
// kube-state-metrics"). Plain value types.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"
#include "inventory/workload_identity.h"
#include "model/capacity.h"
#include "model/holder.h"

namespace gpucost {

// One GPU resource of one container, as its spec asks (requests, or limits where the request is
// absent: Kubernetes defaults an extended resource's request to its limit).
struct KubeContainerResource {
  std::string container;
  std::string resource;  // as the API spells it: "nvidia.com/mig-1g.5gb"
  double quantity = 0;
  bool from_limits = false;
  // A DRA claim the scheduler made for DRA-backed extended resources
  // (status.extendedResourceClaimStatus): the extended resources of the container it serves.
  std::vector<std::string> replaces;
};

struct KubePod {
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string node;   // spec.nodeName; "" while unscheduled
  std::string phase;  // Pending, Running, Succeeded, Failed, Unknown
  std::map<std::string, std::string> labels;  // original keys
  std::vector<OwnerRef> owners;
  std::vector<KubeContainerResource> resources;  // GPU resources only
  std::vector<std::string> container_ids;  // "containerd://<id>" per container status
  std::vector<std::string> container_names;  // same order as container_ids
  // Scheduled and not terminated, as far as the API tells: from PodScheduled (else startTime,
  // else creation) to the last container's finish (Succeeded/Failed) or `observed_at`.
  std::vector<Interval> active;
};

struct KubeNode {
  std::string name;
  std::map<std::string, std::string> labels;   // original keys
  std::map<std::string, double> capacity;      // GPU resources of status.capacity
  std::string provider_id;                     // spec.providerID
  std::vector<Interval> present;               // creation to `observed_at`
};

// A device a Dynamic Resource Allocation driver publishes in a ResourceSlice
// (resource.k8s.io/v1), as far as gpucost needs it (docs/k8s.md "Dynamic Resource Allocation").
struct KubeDraDevice {
  std::string node;    // spec.nodeName of its slice
  std::string driver;  // "gpu.nvidia.com"
  std::string pool;
  std::string name;         // "gpu-0", "gpu-0-mig-1g5gb-19-0"
  // Attribute "type": "gpu", "mig" (NVIDIA's driver); "amdgpu", "amdgpu-partition" (AMD's);
  // "" when none.
  std::string type;
  std::string uuid;         // attribute "uuid"
  std::string parent_uuid;  // MIG: attribute "parentUUID"
  std::string product;      // attribute "productName"
  // MIG: attribute "profile", e.g. "1g.5gb"; AMD: "partitionProfile", e.g. "cpx_nps4".
  std::string profile;
  // AMD: the PCI address of the GPU (a partition's "parentPciAddr"), which names the GPU where
  // AMD's driver gives no UUID; and the DRM render node, which orders a GPU's partitions.
  std::string pci_address;
  int render_index = -1;
  std::map<std::string, double> capacity;  // capacity.<name>.value
  bool multiple_allocations = false;       // allowMultipleAllocations (consumable capacity)
};

// One device of one allocated ResourceClaim (status.allocation.devices.results[]), with the
// pods the claim is reserved for.
struct KubeDraAllocation {
  std::string namespace_name;
  std::string claim;  // the ResourceClaim's name
  std::string driver, pool, device;
  std::string share_id;                    // consumable capacity: this share of the device
  std::map<std::string, double> consumed;  // consumedCapacity
  std::vector<std::string> reserved_for;   // pod names (status.reservedFor, resource "pods")
};

// A DeviceClass (resource.k8s.io/v1), as far as it says what a pod asking for its devices by an
// extended resource holds (docs/k8s.md "Device classes"): the class's devices are asked for as
// "deviceclass.resource.kubernetes.io/<name>" or by its extendedResourceName, and its CEL
// selectors pin a driver, a device type and a profile in the usual spelling
// (`device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'`).
struct KubeDeviceClass {
  std::string name;
  std::string extended_resource_name;  // spec.extendedResourceName; "" when none
  std::string driver;   // "" when the selectors pin none (or pin it only in part, behind "||")
  std::string type;     // attribute "type" the selectors pin, else ""
  std::string profile;  // attribute "profile" or "partitionProfile" the selectors pin, else ""
  Instant created{};    // of two classes naming one extended resource, the newer serves it
};

struct KubeState {
  std::string cluster;  // "" : the builder's default cluster
  Instant observed_at;
  std::vector<KubePod> pods;
  std::vector<KubeNode> nodes;
  std::map<std::string, std::map<std::string, std::string>> namespace_labels;  // ns -> labels
  // namespace -> ReplicaSet / Job name -> its controlling owner (kind "" when it has none).
  std::map<std::string, std::map<std::string, OwnerRef>> replicaset_owners;
  std::map<std::string, std::map<std::string, OwnerRef>> job_owners;
  // Dynamic Resource Allocation: the devices of the slices of the pools' latest generation, and
  // the allocated claims' devices. A pod's use of a claim is a KubeContainerResource whose
  // resource is DraClaimResource(claim).
  std::vector<KubeDraDevice> dra_devices;
  std::vector<KubeDraAllocation> dra_allocations;
  std::vector<KubeDeviceClass> dra_classes;  // empty when the cluster serves none (or no API)
};

// The extended resource by which a pod asks for `count` devices of DeviceClass `name` without a
// claim of its own (Kubernetes' DRAExtendedResource): "deviceclass.resource.kubernetes.io/<name>".
inline constexpr std::string_view kDeviceClassPrefix = "deviceclass.resource.kubernetes.io/";
inline std::string DeviceClassResource(std::string_view name) {
  return std::string(kDeviceClassPrefix) + std::string(name);
}

// The resource of a container's use of ResourceClaim `claim` (kDraClaimPrefix, model/holder.h).
inline std::string DraClaimResource(std::string_view claim) {
  return std::string(kDraClaimPrefix) + std::string(claim);
}

}  // namespace gpucost
