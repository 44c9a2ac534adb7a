// Kubernetes Dynamic Resource Allocation objects (resource.k8s.io/v1) decoded from API JSON into
// what gpucost attributes (docs/k8s.md "Dynamic Resource Allocation"): a ResourceSlice's devices
// with their type, UUIDs, product and capacity; a ResourceClaim's allocated devices and the pods
// it is reserved for. Field paths were checked against kubernetes/api v0.34 (resource/v1) and
// NVIDIA's DRA driver (gpu.nvidia.com) up to v0.4.0; v1beta1's `basic` device layout is read too.
// Stateless functions; thread-safe.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "inventory/kube_state.h"
#include "k8s/objects.h"

namespace gpucost::k8s {

struct ResourceSliceObject {
  ObjectMeta meta;
  std::string driver;
  std::string pool;
  int64_t generation = 0;
  std::vector<KubeDraDevice> devices;  // each with the slice's (or its own) node
};

struct ResourceClaimObject {
  ObjectMeta meta;
  std::vector<KubeDraAllocation> allocations;  // empty until allocated
};

struct DeviceClassObject {
  ObjectMeta meta;
  KubeDeviceClass device_class;
};

// Errors name the object and the field ("resourceslice n1-gpu: spec.devices[1].capacity[memory]:
// ..."); a decoding error loses only that object.
Result<ResourceSliceObject> DecodeResourceSlice(const nlohmann::json& object,
                                                const LabelFilter& labels);
Result<ResourceClaimObject> DecodeResourceClaim(const nlohmann::json& object,
                                                const LabelFilter& labels);
Result<DeviceClassObject> DecodeDeviceClass(const nlohmann::json& object,
                                            const LabelFilter& labels);

// What one CEL selector expression pins, added to `into`: the equalities it ANDs on
// `device.driver` and on the attributes "type", "profile" and "partitionProfile". An expression
// with "||" pins nothing (no guess at which side holds); other clauses are ignored.
void ReadDeviceSelector(std::string_view expression, KubeDeviceClass& into);

// The devices of the slices of each pool's latest generation (older generations are being
// replaced by their driver).
std::vector<KubeDraDevice> LatestPoolDevices(const std::vector<const ResourceSliceObject*>& slices);

}  // namespace gpucost::k8s
