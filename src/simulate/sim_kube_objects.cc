// The Kubernetes API's objects of the simulated cluster's DRA nodes (gpu_catalog.h's `dra`
// models), as `kubectl get ... -A -o json` writes them (a v1 List): what kube-state-metrics has
// no series for. The namespaces, the DRA nodes, the owners of their pods (ReplicaSets, Jobs),
// each node's ResourceSlices of its DRA driver (sim_dra_slices.cc), the allocated ResourceClaims
// and the pods that use them, as the API shows them at the latest scrape. The rest of the cluster
// is in the exporters' series.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "core/strings.h"
#include "core/time.h"
#include "simulate/sim_dra_slices.h"
#include "simulate/sim_impl.h"

namespace gpucost::simulate {
namespace {

using json = nlohmann::json;

// The original label keys of the KSM-spelled node labels the simulator writes.
constexpr std::pair<std::string_view, std::string_view> kNodeLabelKeys[] = {
    {"label_kubernetes_io_hostname", "kubernetes.io/hostname"},
    {"label_node_kubernetes_io_instance_type", "node.kubernetes.io/instance-type"},
    {"label_topology_kubernetes_io_region", "topology.kubernetes.io/region"},
    {"label_topology_kubernetes_io_zone", "topology.kubernetes.io/zone"},
    {"label_karpenter_sh_capacity_type", "karpenter.sh/capacity-type"},
    {"label_karpenter_sh_nodepool", "karpenter.sh/nodepool"},
    {"label_nvidia_com_gpu_present", "nvidia.com/gpu.present"},
    {"label_nvidia_com_gpu_memory", "nvidia.com/gpu.memory"},
    {"label_nvidia_com_cuda_driver_major", "nvidia.com/cuda.driver.major"},
    {"label_nvidia_com_gpu_product", "nvidia.com/gpu.product"},
};

// The name a claim's request, and the pod's reference to the claim, go by.
std::string_view ClaimRequestName(const GpuModelSpec& model) {
  return model.vendor == Vendor::kAwsNeuron ? "neurons" : "gpu";
}

constexpr std::string_view kNeuronImage =
    "public.ecr.aws/neuron/pytorch-training-neuronx:2.1.2-neuronx-py310-sdk2.20.0-ubuntu20.04";

json KubeOwner(std::string_view api_version, std::string_view kind, std::string_view ns,
               std::string_view name) {
  return {{"apiVersion", api_version},        {"kind", kind},       {"name", name},
          {"uid", ObjectUid(kind, ns, name)}, {"controller", true}, {"blockOwnerDeletion", true}};
}

}  // namespace

std::string ClusterSimulator::Impl::KubeObjectsJson() const {
  const Instant origin = InstantFromUnixMs(origin_ms_);
  json items = json::array();
  auto item = [&](std::string_view api_version, std::string_view kind, json object) {
    object["apiVersion"] = api_version;
    object["kind"] = kind;
    items.push_back(std::move(object));
  };
  for (int i = 0; i < options_.namespaces; ++i) {
    const NamespaceSpec& n = kNamespaces[i];
    json ns = {{"metadata", KubeMeta("Namespace", "", n.ns, origin - std::chrono::hours(24 * 30))}};
    ns["metadata"]["labels"] = {{"kubernetes.io/metadata.name", n.ns}, {"team", n.team}};
    ns["status"] = {{"phase", "Active"}};
    item("v1", "Namespace", std::move(ns));
  }
  for (const Node& node : nodes_) {
    if (!node.model->dra) continue;
    json labels = json::object();
    for (const auto& [k, v] : node.labels) {
      for (const auto& [ksm, original] : kNodeLabelKeys) {
        if (k == ksm) labels[std::string(original)] = v;
      }
    }
    json n = {{"metadata", KubeMeta("Node", "", node.name, origin - std::chrono::hours(24))}};
    n["metadata"]["labels"] = std::move(labels);
    json capacity = {{"cpu", std::to_string(node.model->cpus)}, {"pods", "110"}};
    n["status"] = {{"capacity", capacity}, {"allocatable", capacity}};
    // The EC2 instance of a Neuron node, which names its Neuron monitor's series.
    if (!node.instance_id.empty()) {
      n["spec"] = {{"providerID", StrCat("aws:///", node.zone, "/", node.instance_id)}};
    }
    item("v1", "Node", std::move(n));
  }
  // Each running pod of a DRA node that uses a claim, in node and slot order.
  const auto for_each_dra_pod = [&](const auto& fn) {
    for (const Node& node : nodes_) {
      if (!node.model->dra) continue;
      for (const Slot& s : node.slots) {
        if (s.pod.alive && !s.claim.empty()) fn(node, s);
      }
    }
  };
  // The pods' owners, once each.
  std::vector<std::string> owners;
  auto first = [&](std::string key) {
    if (std::find(owners.begin(), owners.end(), key) != owners.end()) return false;
    owners.push_back(std::move(key));
    return true;
  };
  for_each_dra_pod([&](const Node&, const Slot& s) {
    const std::string_view ns = kNamespaces[s.ns].ns;
    const Pod& p = s.pod;
    if (p.owner_kind == "ReplicaSet" && first(StrCat("rs/", ns, "/", p.owner_name))) {
      json rs = {{"metadata", KubeMeta("ReplicaSet", ns, p.owner_name, origin)}};
      rs["metadata"]["ownerReferences"] =
          json::array({KubeOwner("apps/v1", "Deployment", ns, s.deployment)});
      item("apps/v1", "ReplicaSet", std::move(rs));
    } else if (p.owner_kind == "Job" && first(StrCat("job/", ns, "/", p.owner_name))) {
      json job = {{"metadata", KubeMeta("Job", ns, p.owner_name, origin)}};
      if (!p.cronjob.empty()) {
        job["metadata"]["ownerReferences"] =
            json::array({KubeOwner("batch/v1", "CronJob", ns, p.cronjob)});
      }
      item("batch/v1", "Job", std::move(job));
    }
  });
  // AMD's slices first, then the others, each in node order.
  for (const bool amd : {true, false}) {
    for (const Node& node : nodes_) {
      if (!node.model->dra || (node.model->vendor == Vendor::kAmd) != amd) continue;
      for (json& slice : DraNodeSlices(node, origin)) {
        item("resource.k8s.io/v1", "ResourceSlice", std::move(slice));
      }
    }
  }
  // The DeviceClasses the drivers' charts install, for the drivers the nodes run (NVIDIA's with
  // the extended resource its gpu.nvidia.com class names).
  std::set<std::string_view> drivers;
  for (const Node& node : nodes_) {
    if (node.model->dra) drivers.insert(DraDriver(*node.model));
  }
  const auto device_class = [&](std::string_view name, std::string expression,
                                std::string_view extended) {
    json c = {{"metadata", KubeMeta("DeviceClass", "", name, origin)}};
    c["spec"]["selectors"] = json::array({{{"cel", {{"expression", std::move(expression)}}}}});
    if (!extended.empty()) c["spec"]["extendedResourceName"] = extended;
    item("resource.k8s.io/v1", "DeviceClass", std::move(c));
  };
  for (std::string_view driver : drivers) {
    const std::string is_driver = StrCat("device.driver == '", driver, "'");
    if (driver == "gpu.nvidia.com") {
      const std::string type = "device.attributes['gpu.nvidia.com'].type == ";
      device_class("gpu.nvidia.com", StrCat(is_driver, " && ", type, "'gpu'"), "nvidia.com/gpu");
      device_class("mig.nvidia.com", StrCat(is_driver, " && ", type, "'mig'"), "");
    } else {
      device_class(driver, is_driver, "");
    }
  }
  for (const Node& node : nodes_) {
    if (!node.model->dra) continue;
    const std::string_view driver = DraDriver(*node.model);
    const std::string_view request_name = ClaimRequestName(*node.model);
    for (const DraClaim& c : node.claims) {
      const Slot& holder = node.slots[static_cast<size_t>(c.slots.front())];
      const std::string_view ns = kNamespaces[holder.ns].ns;
      json claim = {{"metadata", KubeMeta("ResourceClaim", ns, c.name, origin)}};
      const std::vector<std::string> devices = DraClaimDevices(node, c);
      json exactly = {{"deviceClassName", driver}, {"count", devices.size()}};
      json result = {{"request", request_name}, {"driver", driver}, {"pool", node.name}};
      if (!c.mig_profile.empty()) {
        // DynamicMIG: a MIG device of the profile (NVIDIA's mig.nvidia.com DeviceClass).
        exactly["deviceClassName"] = "mig.nvidia.com";
        exactly["selectors"] =
            json::array({{{"cel",
                           {{"expression", StrCat("device.attributes['gpu.nvidia.com']"
                                                  ".profile == '",
                                                  c.mig_profile, "'")}}}}});
      }
      if (!c.share_id.empty()) {
        const auto bytes = static_cast<int64_t>(std::llround(
            static_cast<double>(node.model->memory_mib) * 1048576.0 * c.memory_fraction));
        exactly["capacity"] = {{"requests", {{"memory", std::to_string(bytes)}}}};
        result["shareID"] = ObjectUid("share", c.name, c.share_id);
        result["consumedCapacity"] = {{"memory", std::to_string(bytes)}};
      }
      claim["spec"]["devices"]["requests"] =
          json::array({{{"name", request_name}, {"exactly", std::move(exactly)}}});
      // Neuron: a claim of 4, 8 or 16 devices asks for a connected group of them.
      const size_t n = devices.size();
      if (node.model->vendor == Vendor::kAwsNeuron && (n == 4 || n == 8 || n == 16)) {
        claim["spec"]["devices"]["constraints"] =
            json::array({{{"requests", json::array({request_name})},
                          {"matchAttribute", StrCat("resource.aws.com/devicegroup", n, "_id")}}});
      }
      json results = json::array();
      for (const std::string& device : devices) {
        result["device"] = device;
        results.push_back(result);
      }
      claim["status"]["allocation"]["devices"]["results"] = std::move(results);
      json reserved = json::array();
      for (int si : c.slots) {
        const Pod& p = node.slots[static_cast<size_t>(si)].pod;
        if (!p.alive) continue;
        reserved.push_back({{"resource", "pods"}, {"name", p.name}, {"uid", p.uid}});
      }
      claim["status"]["reservedFor"] = std::move(reserved);
      item("resource.k8s.io/v1", "ResourceClaim", std::move(claim));
    }
  }
  for_each_dra_pod([&](const Node& node, const Slot& s) {
    const std::string_view ns = kNamespaces[s.ns].ns;
    const Pod& p = s.pod;
    json pod = {{"metadata", KubeMeta("Pod", ns, p.name, origin)}};
    pod["metadata"]["uid"] = p.uid;
    pod["metadata"]["labels"] = {{"app.kubernetes.io/name", p.app},
                                 {"team", p.team},
                                 {"workload-class", s.kind == Kind::kTraining   ? "training"
                                                    : s.kind == Kind::kNotebook ? "notebook"
                                                                                : "inference"}};
    const std::string owner_api = p.owner_kind == "Job" ? "batch/v1" : "apps/v1";
    pod["metadata"]["ownerReferences"] =
        json::array({KubeOwner(owner_api, p.owner_kind, ns, p.owner_name)});
    const bool neuron = node.model->vendor == Vendor::kAwsNeuron;
    const std::string_view request_name = ClaimRequestName(*node.model);
    json use = {{"name", request_name}};
    json container = {{"name", p.container},
                      {"image", neuron ? kNeuronImage : "nvcr.io/nvidia/pytorch:24.05-py3"}};
    container["resources"]["claims"] = json::array({use});
    json ref = {{"name", request_name}, {"resourceClaimName", s.claim}};
    pod["spec"] = {{"nodeName", node.name},
                   {"containers", json::array({container})},
                   {"resourceClaims", json::array({ref})}};
    const std::string running = FormatRfc3339(InstantFromUnixMs(p.running_ms));
    json scheduled = {{"type", "PodScheduled"},
                      {"status", "True"},
                      {"lastTransitionTime", FormatRfc3339(origin)}};
    Rng ids{p.uid_hash};
    json status = {{"name", p.container},
                   {"containerID", StrCat("containerd://", ids.Hex(64))},
                   {"ready", true},
                   {"restartCount", 0},
                   {"state", {{"running", {{"startedAt", running}}}}}};
    pod["status"] = {{"phase", "Running"},
                     {"hostIP", node.host_ip},
                     {"podIP", p.pod_ip},
                     {"startTime", running},
                     {"conditions", json::array({scheduled})},
                     {"containerStatuses", json::array({status})}};
    item("v1", "Pod", std::move(pod));
  });
  json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
  list["metadata"] = {{"resourceVersion", ""}};
  return list.dump(2) + "\n";
}

std::string ClusterSimulator::KubeObjectsJson() const { return impl_->KubeObjectsJson(); }

}  // namespace gpucost::simulate
