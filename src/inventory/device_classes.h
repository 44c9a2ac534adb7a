// The DeviceClasses (resource.k8s.io/v1) of each cluster, by the extended resources a pod asks
// for their devices with instead of a ResourceClaim of its own (Kubernetes' DRAExtendedResource;
// docs/k8s.md "Device classes"): "deviceclass.resource.kubernetes.io/<class>" for any class, and a
// class's spec.extendedResourceName. A cluster whose classes the API did not tell (no API, or
// deviceclasses refused) has the classes its drivers' Helm charts install: NVIDIA's
// gpu.nvidia.com and mig.nvidia.com, AMD's gpu.amd.com. Not thread-safe to fill; Find is const.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "inventory/kube_state.h"
#include "inventory/resource_names.h"

namespace gpucost {

class DeviceClassTable {
 public:
  // `default_cluster` stands for a KubeState's empty cluster, as the inventory builder's does.
  explicit DeviceClassTable(std::string default_cluster);

  // The state's classes join (or replace, by name) its cluster's. A state with none adds none.
  void Add(const KubeState& state);

  // The class a container's resource names, in the API's or kube-state-metrics' spelling; null
  // for any other resource. An extendedResourceName a device plugin's resource also has
  // ("nvidia.com/gpu", which NVIDIA's gpu.nvidia.com class names) is left to that resource: it
  // draws the same units.
  const KubeDeviceClass* Find(std::string_view cluster, std::string_view resource) const;
  // A class by its name; null when the cluster has none of that name.
  const KubeDeviceClass* Named(std::string_view cluster, std::string_view name) const;

  // CanonicalResourceName, but a class's resource (either name, either spelling) becomes
  // DeviceClassResource(class) of kind kDraClass.
  ResourceName Resolve(std::string_view cluster, std::string_view resource) const;

 private:
  struct Classes {
    std::map<std::string, KubeDeviceClass, std::less<>> by_name;
    std::map<std::string, std::string, std::less<>> by_resource;  // KsmResourceKey -> class name
  };
  const Classes& Of(std::string_view cluster) const;
  static void Index(Classes& c);

  std::string default_cluster_;
  std::map<std::string, Classes, std::less<>> clusters_;
  Classes defaults_;
};

}  // namespace gpucost
