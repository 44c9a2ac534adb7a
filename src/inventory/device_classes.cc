#include "inventory/device_classes.h"

#include <tuple>

namespace gpucost {

DeviceClassTable::DeviceClassTable(std::string default_cluster)
    : default_cluster_(std::move(default_cluster)) {
  // What the drivers' charts install (NVIDIA k8s-dra-driver-gpu deviceclass-gpu.yaml and
  // deviceclass-mig.yaml; AMD k8s-gpu-dra-driver deviceclass.yaml).
  for (KubeDeviceClass c :
       {KubeDeviceClass{"gpu.nvidia.com", "nvidia.com/gpu", "gpu.nvidia.com", "gpu", "", Instant{}},
        KubeDeviceClass{"mig.nvidia.com", "", "gpu.nvidia.com", "mig", "", Instant{}},
        KubeDeviceClass{"gpu.amd.com", "", "gpu.amd.com", "", "", Instant{}}}) {
    defaults_.by_name.emplace(c.name, c);
  }
  Index(defaults_);
}

void DeviceClassTable::Index(Classes& c) {
  c.by_resource.clear();
  std::map<std::string, const KubeDeviceClass*> extended;  // KsmResourceKey -> serving class
  for (const auto& [name, cls] : c.by_name) {
    c.by_resource[KsmResourceKey(DeviceClassResource(name))] = name;
    if (cls.extended_resource_name.empty() ||
        CanonicalResourceName(cls.extended_resource_name).IsDevice()) {
      continue;
    }
    // Two classes naming one extended resource: the newer serves it, then the first by name.
    const KubeDeviceClass*& serving = extended[KsmResourceKey(cls.extended_resource_name)];
    if (serving == nullptr || cls.created > serving->created) serving = &cls;
  }
  for (const auto& [key, cls] : extended) c.by_resource.try_emplace(key, cls->name);
}

void DeviceClassTable::Add(const KubeState& state) {
  if (state.dra_classes.empty()) return;
  Classes& c = clusters_[state.cluster.empty() ? default_cluster_ : state.cluster];
  for (const KubeDeviceClass& cls : state.dra_classes) c.by_name.insert_or_assign(cls.name, cls);
  Index(c);
}

const DeviceClassTable::Classes& DeviceClassTable::Of(std::string_view cluster) const {
  auto it = clusters_.find(cluster.empty() ? std::string_view(default_cluster_) : cluster);
  return it != clusters_.end() ? it->second : defaults_;
}

const KubeDeviceClass* DeviceClassTable::Find(std::string_view cluster,
                                              std::string_view resource) const {
  const Classes& c = Of(cluster);
  auto it = c.by_resource.find(KsmResourceKey(resource));
  if (it == c.by_resource.end()) return nullptr;
  return &c.by_name.find(it->second)->second;
}

const KubeDeviceClass* DeviceClassTable::Named(std::string_view cluster,
                                               std::string_view name) const {
  const Classes& c = Of(cluster);
  auto it = c.by_name.find(name);
  return it != c.by_name.end() ? &it->second : nullptr;
}

ResourceName DeviceClassTable::Resolve(std::string_view cluster, std::string_view resource) const {
  if (const KubeDeviceClass* cls = Find(cluster, resource)) {
    return {ResourceKind::kDraClass, DeviceClassResource(cls->name), ""};
  }
  return CanonicalResourceName(resource);
}

}  // namespace gpucost
