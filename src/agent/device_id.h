// Device ids as GPU device plugins hand them to the kubelet (and PodResources hands them back):
// whole GPUs, MIG instances, time-sliced or MPS replicas, by UUID, NVML index or GKE device
// name. ParseDeviceId reads any string, never fails and never throws: a form it does not know is
// kUnknown with the string kept in `raw`. Pure functions, thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace gpucost::agent {

enum class DeviceIdKind {
  kUnknown,
  kGpuUuid,    // "GPU-<uuid>": a whole GPU (NVIDIA device plugin, --device-id-strategy=uuid)
  kMigUuid,    // "MIG-<uuid>": a MIG device (driver R470 and later)
  kMigLegacy,  // "MIG-GPU-<uuid>/<gi>/<ci>": a MIG device named by drivers before R470
  kGpuIndex,   // "<index>": a whole GPU by NVML index (--device-id-strategy=index)
  kMigIndex,   // "<gpu index>:<mig index>": a MIG device by index
  kGkeGpu,     // "nvidia<minor>" (GKE's device plugin): a whole GPU by its /dev/nvidia<minor>
  kGkeMig,     // "nvidia<minor>/gi<gi>" (GKE): a MIG GPU instance
};

std::string_view DeviceIdKindName(DeviceIdKind kind);

// One parsed device id. Numbers are -1 where the form does not carry them.
struct DeviceId {
  DeviceIdKind kind = DeviceIdKind::kUnknown;
  std::string raw;                // the id as given, always set
  std::string gpu_uuid;           // "GPU-…" (kGpuUuid, kMigLegacy)
  std::string mig_uuid;           // "MIG-…" (kMigUuid)
  int gpu_index = -1;             // NVML device index (kGpuIndex, kMigIndex)
  int device_minor = -1;          // /dev/nvidia<minor> (kGkeGpu, kGkeMig), not the NVML index
  int gpu_instance_id = -1;       // MIG GPU instance id (kMigLegacy, kGkeMig)
  int compute_instance_id = -1;   // MIG compute instance id (kMigLegacy)
  int mig_index = -1;             // MIG device index on its GPU (kMigIndex)
  // Time-slicing/MPS replica: "<id>::<n>" (NVIDIA device plugin, any form) or "…/vgpu<n>"
  // (GKE). Several replicas of one device are one physical unit shared by their holders.
  int replica = -1;

  bool known() const { return kind != DeviceIdKind::kUnknown; }
  bool is_mig() const {
    return kind == DeviceIdKind::kMigUuid || kind == DeviceIdKind::kMigLegacy ||
           kind == DeviceIdKind::kMigIndex || kind == DeviceIdKind::kGkeMig;
  }
  bool is_replica() const { return replica >= 0; }
};

DeviceId ParseDeviceId(std::string_view id);

}  // namespace gpucost::agent
