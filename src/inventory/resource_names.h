// Resource names as they appear in kube-state-metrics (sanitized: "nvidia_com_mig_1g_5gb"), Kueue
// and the Kubernetes API (raw: "nvidia.com/mig-1g.5gb"), mapped back to one canonical spelling and
// a kind the inventory builder understands. Stateless and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace gpucost {

enum class ResourceKind : uint8_t {
  kNotGpu,             // cpu, memory, pods, ephemeral-storage, nvidia.com/priority, ...
  kUnknownGpu,         // looks like a GPU resource but is not one we know (warn)
  kNvidiaGpu,          // nvidia.com/gpu
  kNvidiaGpuShared,    // nvidia.com/gpu.shared (time-slicing/MPS with renameByDefault)
  kNvidiaMig,          // nvidia.com/mig-<profile>
  kHamiCores,          // nvidia.com/gpucores, percent of one GPU
  kHamiMem,            // nvidia.com/gpumem, MiB per GPU
  kHamiMemPercentage,  // nvidia.com/gpumem-percentage
  kAmdGpu,             // amd.com/gpu
  kAmdPartition,       // amd.com/<compute>_<memory> ("amd.com/cpx_nps4"): a partition of a GPU
  kNeuronDevice,       // aws.amazon.com/neurondevice, or its older name aws.amazon.com/neuron
  kNeuronCore,         // aws.amazon.com/neuroncore: one (logical) NeuronCore of a device
  kDraClaim,           // resource.k8s.io/claim/<name>: the devices of a DRA ResourceClaim
  // deviceclass.resource.kubernetes.io/<class>: devices of a DRA DeviceClass asked for as an
  // extended resource (device_classes.h resolves a class's other names to this spelling)
  kDraClass,
};

struct ResourceName {
  ResourceKind kind = ResourceKind::kNotGpu;
  std::string canonical;    // "nvidia.com/mig-1g.10gb.me"; the input as given for unknown kinds
  std::string mig_profile;  // "1g.10gb+me" for kNvidiaMig, "cpx_nps4" for kAmdPartition, else ""
  // True for kinds that name devices (a Request's resource); false for HAMi's fraction amounts.
  bool IsDevice() const {
    return kind == ResourceKind::kNvidiaGpu || kind == ResourceKind::kNvidiaGpuShared ||
           kind == ResourceKind::kNvidiaMig || kind == ResourceKind::kAmdGpu ||
           kind == ResourceKind::kAmdPartition || IsNeuron() || kind == ResourceKind::kDraClaim ||
           kind == ResourceKind::kDraClass;
  }
  bool IsNeuron() const {
    return kind == ResourceKind::kNeuronDevice || kind == ResourceKind::kNeuronCore;
  }
  bool IsHami() const {
    return kind == ResourceKind::kHamiCores || kind == ResourceKind::kHamiMem ||
           kind == ResourceKind::kHamiMemPercentage;
  }
};

// Accepts both the raw and the KSM-sanitized spelling.
ResourceName CanonicalResourceName(std::string_view name);

// A resource name as kube-state-metrics spells it, lower case: what both spellings of one name
// have in common ("nvidia.com/gpu" and "nvidia_com_gpu" -> "nvidia_com_gpu").
std::string KsmResourceKey(std::string_view name);

// The Neuron device plugin's resources. A device request takes every core of the device.
inline constexpr std::string_view kNeuronCoreResource = "aws.amazon.com/neuroncore";
inline constexpr std::string_view kNeuronDeviceResource = "aws.amazon.com/neurondevice";
inline constexpr std::string_view kNeuronLegacyResource = "aws.amazon.com/neuron";

// The device-plugin resource for a MIG profile: "1g.10gb+me" -> "nvidia.com/mig-1g.10gb.me".
std::string MigResourceName(std::string_view profile);

}  // namespace gpucost
