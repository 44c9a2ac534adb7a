// Client of the kubelet's PodResources v1 API (gRPC, plaintext, over the unix socket
// /var/lib/kubelet/pod-resources/kubelet.sock): which container holds which device ids (List)
// and which device ids the node has (GetAllocatableResources). Each call has its own deadline.
// gRPC stays behind this header: users need neither gRPC nor the generated code. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace gpucost::agent {

inline constexpr std::string_view kDefaultPodResourcesSocket =
    "/var/lib/kubelet/pod-resources/kubelet.sock";
// The kubelet's own PodResources client accepts messages of up to 16 MiB; a node with hundreds
// of pods and many device ids per container exceeds gRPC's default of 4 MiB.
inline constexpr int kPodResourcesMaxReceiveBytes = 16 * 1024 * 1024;

// The device-plugin devices of one resource that a container holds (or that the node has).
struct ResourceDevices {
  std::string resource_name;            // e.g. "nvidia.com/gpu", "nvidia.com/mig-1g.10gb"
  std::vector<std::string> device_ids;  // see device_id.h for their forms
  std::vector<int64_t> numa_nodes;      // topology hint, may be empty

  bool operator==(const ResourceDevices&) const = default;
};

// One device a container got through Dynamic Resource Allocation.
struct ClaimDevice {
  std::string claim_namespace;
  std::string claim_name;
  std::string driver_name;               // e.g. "gpu.nvidia.com"
  std::string pool_name;
  std::string device_name;
  std::optional<std::string> share_id;   // set when the device is shared (consumable capacity)
  std::vector<std::string> cdi_devices;  // fully qualified CDI names, "vendor.com/gpu=gpu0"

  bool operator==(const ClaimDevice&) const = default;
};

struct ContainerDevices {
  std::string container_name;
  std::vector<ResourceDevices> devices;     // groups with at least one device id
  std::vector<ClaimDevice> claim_devices;

  bool operator==(const ContainerDevices&) const = default;
};

// PodResources names pods by namespace and name only: it has no pod UID.
struct PodDevices {
  std::string pod_namespace;
  std::string pod_name;
  std::vector<ContainerDevices> containers;  // only containers that hold a device

  bool operator==(const PodDevices&) const = default;
};

// The answer to List, in the kubelet's order. Pods and containers that hold no device (CPU and
// memory only, or nothing) are left out.
struct PodResourcesList {
  std::vector<PodDevices> pods;
};

// The answer to GetAllocatableResources: every device id the node can hand out, by resource.
struct AllocatableDevices {
  std::vector<ResourceDevices> devices;
};

struct PodResourcesOptions {
  std::string socket_path = std::string(kDefaultPodResourcesSocket);
  // Per call. Below the collection interval, so a hung kubelet costs one interval at most.
  std::chrono::milliseconds deadline = std::chrono::seconds(5);
  int max_receive_bytes = kPodResourcesMaxReceiveBytes;
};

class PodResourcesClient {
 public:
  explicit PodResourcesClient(PodResourcesOptions options = {});
  PodResourcesClient(std::string socket_path, std::chrono::milliseconds deadline);
  ~PodResourcesClient();
  PodResourcesClient(const PodResourcesClient&) = delete;
  PodResourcesClient& operator=(const PodResourcesClient&) = delete;

  // Errors name the call, the socket and gRPC's status code and message, e.g.
  // "kubelet pod-resources List on unix:///var/lib/kubelet/pod-resources/kubelet.sock failed:
  // UNAVAILABLE: …". Codes: kUnavailable (no kubelet, deadline exceeded, rate-limited; retry
  // next interval), kUnimplemented (this kubelet lacks the call), kFailedPrecondition
  // (permission denied), kInternal (anything else).
  Result<PodResourcesList> List();
  Result<AllocatableDevices> GetAllocatableResources();

  // The gRPC target, "unix:///abs/path" (or "unix:rel/path").
  const std::string& target() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpucost::agent
