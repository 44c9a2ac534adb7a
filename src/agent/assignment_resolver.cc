#include "agent/assignment_resolver.h"

#include <charconv>
#include <string_view>

#include "agent/device_id.h"
#include "core/strings.h"

namespace gpucost::agent {
namespace {

// Fills gpu_uuid and gpu_instance_id of `a` from a parsed id.
void Resolve(const DeviceId& id, const NvmlReading& reading, DeviceAssignment& a) {
  a.replica = id.replica;
  switch (id.kind) {
    case DeviceIdKind::kGpuUuid:
      a.gpu_uuid = id.gpu_uuid;
      return;
    case DeviceIdKind::kMigLegacy:
      a.gpu_uuid = id.gpu_uuid;
      a.gpu_instance_id = id.gpu_instance_id;
      return;
    case DeviceIdKind::kMigUuid:
      for (const NvmlGpu& g : reading.gpus) {
        for (const NvmlUnit& u : g.mig) {
          if (u.uuid == id.mig_uuid) {
            a.gpu_uuid = g.uuid;
            a.gpu_instance_id = u.gpu_instance_id;
            return;
          }
        }
      }
      return;
    case DeviceIdKind::kGpuIndex:
      for (const NvmlGpu& g : reading.gpus) {
        if (static_cast<int>(g.index) == id.gpu_index) a.gpu_uuid = g.uuid;
      }
      return;
    case DeviceIdKind::kMigIndex:
      for (const NvmlGpu& g : reading.gpus) {
        if (static_cast<int>(g.index) != id.gpu_index) continue;
        for (const NvmlUnit& u : g.mig) {
          if (u.mig_index == id.mig_index) {
            a.gpu_uuid = g.uuid;
            a.gpu_instance_id = u.gpu_instance_id;
          }
        }
      }
      return;
    case DeviceIdKind::kGkeGpu:
    case DeviceIdKind::kGkeMig:
      // GKE names GPUs by their device node, /dev/nvidia<minor>, not by NVML's index.
      for (const NvmlGpu& g : reading.gpus) {
        if (g.minor_number < 0 || g.minor_number != id.device_minor) continue;
        a.gpu_uuid = g.uuid;
        a.gpu_instance_id = id.kind == DeviceIdKind::kGkeMig ? id.gpu_instance_id : -1;
      }
      return;
    case DeviceIdKind::kUnknown:
      return;
  }
}

// NVIDIA's device plugins (and HAMi, GKE) all register under nvidia.com/; other devices (RDMA,
// FPGAs) may use the same id shapes and are no GPUs.
bool IsGpuResource(const ResourceDevices& r) { return r.resource_name.rfind("nvidia.com/", 0) == 0; }

void AddResolved(const ResourceDevices& r, const NvmlReading& reading, const DeviceAssignment& who,
                 std::vector<DeviceAssignment>& out) {
  for (const std::string& raw : r.device_ids) {
    DeviceAssignment a = who;
    a.resource = r.resource_name;
    a.device_id = raw;
    Resolve(ParseDeviceId(raw), reading, a);
    out.push_back(std::move(a));
  }
}

// NVIDIA's DRA driver names a GPU "gpu-<minor>" (older releases: by NVML index) and a MIG device
// "gpu-<parent minor>-mig-<profile id>-<placement start>-<size>". A GPU name resolves to the GPU
// with that minor number (its index where NVML gave no minor numbers); a MIG name names no
// instance the agent can tell from NVML's reading (placements are not read), so it stays
// unresolved, as does any other driver's device.
std::string DraGpuUuid(const ClaimDevice& d, const NvmlReading& reading) {
  if (d.driver_name != "gpu.nvidia.com") return "";
  const std::string_view name = d.device_name;
  if (!name.starts_with("gpu-")) return "";
  int n = -1;
  const char* end = name.data() + name.size();
  const auto [ptr, ec] = std::from_chars(name.data() + 4, end, n);
  if (ec != std::errc() || ptr != end || n < 0) return "";
  bool minors = false;
  for (const NvmlGpu& g : reading.gpus) minors |= g.minor_number >= 0;
  for (const NvmlGpu& g : reading.gpus) {
    if (minors ? g.minor_number == n : static_cast<int>(g.index) == n) return g.uuid;
  }
  return "";
}

}  // namespace

std::string DraClaimResource(std::string_view claim) {
  return StrCat(kDraClaimResourcePrefix, claim);
}

std::vector<DeviceAssignment> ResolveAssignments(const PodResourcesList& list,
                                                 const NvmlReading& reading) {
  std::vector<DeviceAssignment> out;
  for (const PodDevices& pod : list.pods) {
    for (const ContainerDevices& c : pod.containers) {
      DeviceAssignment who;
      who.namespace_name = pod.pod_namespace;
      who.pod = pod.pod_name;
      who.container = c.container_name;
      for (const ResourceDevices& r : c.devices) {
        if (IsGpuResource(r)) AddResolved(r, reading, who, out);
      }
      for (const ClaimDevice& d : c.claim_devices) {
        DeviceAssignment a = who;
        a.resource = DraClaimResource(d.claim_name);
        a.device_id = StrCat(d.driver_name, "/", d.pool_name, "/", d.device_name);
        a.gpu_uuid = DraGpuUuid(d, reading);
        out.push_back(std::move(a));
      }
    }
  }
  return out;
}

std::vector<DeviceAssignment> ResolveAllocatable(const AllocatableDevices& allocatable,
                                                 const NvmlReading& reading) {
  std::vector<DeviceAssignment> out;
  for (const ResourceDevices& r : allocatable.devices) {
    if (IsGpuResource(r)) AddResolved(r, reading, DeviceAssignment{}, out);
  }
  return out;
}

}  // namespace gpucost::agent
