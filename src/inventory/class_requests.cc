// Requests of a DeviceClass's devices by extended resource ("deviceclass.resource.kubernetes.io/
// <class>" or the class's extendedResourceName; docs/k8s.md "Device classes") as requests of the
// units the class's devices are on the pod's node. While the API shows the pod, the claim the
// scheduler made for it replaces these requests (kube_merge.cc); what is left is a pod the series
// show after the API forgot it, which holds as many devices of the class, drawn like a device
// plugin's.
#include <map>
#include <set>

#include "core/strings.h"
#include "inventory/assembly.h"
#include "inventory/mig_profiles.h"

namespace gpucost {
namespace {

// Whether a class name reads like a GPU's (an unknown class is warned about only then: a NIC's
// class is not a GPU).
bool GpuLikeClass(std::string_view name) {
  const std::string k = KsmResourceKey(name);
  return k.find("gpu") != std::string::npos || k.find("mig") != std::string::npos ||
         k.find("neuron") != std::string::npos;
}

// The resources of node n's units (`on_node`: those of its holdable units) the class's devices
// are; empty when the class is not a GPU class gpucost reads. `why` says what went wrong for a
// GPU driver's class.
std::set<std::string> ClassUnitResources(const Assembly& a, NodeIndex n,
                                         const std::set<std::string>& on_node,
                                         const KubeDeviceClass& cls, std::string& why) {
  std::set<std::string> want;
  auto node_resources = [&](std::string_view prefix, std::string_view except) {
    for (const std::string& r : on_node) {
      if (r.starts_with(prefix) && r != except) want.insert(r);
    }
  };
  if (cls.driver == "gpu.nvidia.com") {
    if (cls.type == "gpu" || cls.type == "vfio") {
      want.insert("nvidia.com/gpu");
    } else if (cls.type == "mig" && !cls.profile.empty()) {
      const auto parsed = ParseMigProfileName(cls.profile);
      want.insert(MigResourceName(parsed ? NormalizeMigProfileName(*parsed) : cls.profile));
    } else if (cls.type == "mig") {
      node_resources("nvidia.com/mig-", "");
    } else {
      node_resources("nvidia.com/", "");
    }
  } else if (cls.driver == "gpu.amd.com") {
    // AMD's DRA units are amd.com/gpu, a partition's too (accelerator_nodes.cc).
    want.insert("amd.com/gpu");
  } else if (cls.driver == kNeuronDraDriver) {
    if (a.neuron_cores_per_device.contains(n)) return {std::string(kNeuronDeviceResource)};
    why = "the node has no Neuron devices";
    return {};
  } else {
    if (KsmResourceKey(cls.driver).find("gpu") != std::string::npos) {
      why = StrCat("its driver \"", cls.driver, "\" is not one gpucost reads");
    } else if (cls.driver.empty()) {
      why = "its selectors name no driver gpucost can tell";
    }
    return {};
  }
  std::set<std::string> out;
  for (const std::string& r : want) {
    if (on_node.contains(r)) out.insert(r);
  }
  if (out.empty()) why = "the node has no unit its devices could be";
  if (out.size() > 1) {
    why = StrCat("its devices could be any of ",
                 Join(std::vector<std::string>(out.begin(), out.end()), ", "), " on the node");
    return {};
  }
  return out;
}

}  // namespace

void ResolveDeviceClassRequests(Assembly& a) {
  // Each node's holdable unit resources, made on the first class request (one pass over units).
  std::map<NodeIndex, std::set<std::string>> holdable;
  bool indexed = false;
  const auto holdable_on = [&](NodeIndex n) -> const std::set<std::string>& {
    if (!indexed) {
      for (const GpuUnit& u : a.inventory.units) {
        if (u.holdable) holdable[u.node].insert(u.resource);
      }
      indexed = true;
    }
    return holdable[n];
  };
  for (auto& pod_timeline : a.pods) {
    // Named, not bound: the lambda below uses them.
    const PodKey& key = pod_timeline.first;
    PodTimeline& pt = pod_timeline.second;
    auto node = a.node_index.find({key.cluster, pt.node});
    std::erase_if(pt.requests, [&](ContainerRequest& cr) {
      if (CanonicalResourceName(cr.request.resource).kind != ResourceKind::kDraClass) return false;
      const std::string name = cr.request.resource.substr(kDeviceClassPrefix.size());
      const std::string pod = StrCat(key.namespace_name, "/", key.pod);
      const KubeDeviceClass* cls = a.device_classes->Named(key.cluster, name);
      if (cls == nullptr) {
        if (GpuLikeClass(name)) {
          a.diag.Warn(StrCat("device-class-unknown:", key.cluster, ":", name), "", 0,
                      StrCat("pod ", pod, " asks for devices of DeviceClass ", name,
                             ", which the Kubernetes API does not show; not attributed"));
        }
        return true;
      }
      if (node == a.node_index.end()) return true;  // warned where holdings are made
      std::string why;
      const std::set<std::string> resources =
          ClassUnitResources(a, node->second, holdable_on(node->second), *cls, why);
      if (resources.size() == 1) {
        cr.request.resource = *resources.begin();
        return false;
      }
      if (!why.empty()) {
        a.diag.Warn(StrCat("device-class-units:", key.cluster, ":", pt.node, ":", name), "", 0,
                    StrCat("pod ", pod, " on node ", pt.node, " asks for ", cr.request.count,
                           " devices of DeviceClass ", name, ", but ", why, "; not attributed"));
      }
      return true;
    });
  }
}

}  // namespace gpucost
