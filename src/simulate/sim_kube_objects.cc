// The Kubernetes API's objects of the simulated cluster's DRA nodes (gpu_catalog.h's `dra`
// models), as `kubectl get ... -A -o json` writes them (a v1 List): what kube-state-metrics has
// no series for. The namespaces, the DRA nodes, the owners of their pods (ReplicaSets, Jobs),
// each node's ResourceSlice of NVIDIA's DRA driver (AMD's for AMD models), the allocated
// ResourceClaims and the pods that use them, as the API shows them at the latest scrape. The rest
// of the cluster is in the exporters' series.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/strings.h"
#include "core/time.h"
#include "simulate/sim_impl.h"

namespace gpucost::simulate {
namespace {

using json = nlohmann::json;

constexpr std::string_view kDraDriver = "gpu.nvidia.com";

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

// A stable UID for an object (RFC 4122 layout), from its kind, namespace and name.
std::string ObjectUid(std::string_view kind, std::string_view ns, std::string_view name) {
  Rng r{HashCombine(Hash64(kind), HashCombine(Hash64(ns), Hash64(name)))};
  return r.Uuid();
}

json KubeMeta(std::string_view kind, std::string_view ns, std::string_view name, Instant created) {
  json m = json::object();
  if (!ns.empty()) m["namespace"] = ns;
  m["name"] = name;
  m["uid"] = ObjectUid(kind, ns, name);
  m["creationTimestamp"] = FormatRfc3339(created);
  return m;
}

json KubeOwner(std::string_view api_version, std::string_view kind, std::string_view ns,
               std::string_view name) {
  return {{"apiVersion", api_version},        {"kind", kind},       {"name", name},
          {"uid", ObjectUid(kind, ns, name)}, {"controller", true}, {"blockOwnerDeletion", true}};
}

json DraAttribute(std::string_view type, std::string_view value) { return {{type, value}}; }

constexpr std::string_view kAmdDraDriver = "gpu.amd.com";

// A node's one ResourceSlice of `driver`: its pool is the node, generation 1.
json NodeSlice(const Node& node, std::string_view driver, json devices, Instant origin) {
  json slice = {{"metadata", KubeMeta("ResourceSlice", "", StrCat(node.name, "-", driver),
                                      origin - std::chrono::hours(24))}};
  slice["spec"] = {{"driver", driver},
                   {"nodeName", node.name},
                   {"pool", {{"name", node.name}, {"generation", 1}, {"resourceSliceCount", 1}}},
                   {"devices", std::move(devices)}};
  return slice;
}

// Unit `i` of an AMD DRA node (a compute partition) as AMD's DRA driver publishes it: named by its
// DRM card and render node, its GPU by PCI address ("0000:11:00.0").
json AmdDraDevice(const Node& node, size_t i) {
  const Unit& u = node.units[i];
  const int card = static_cast<int>(i) + 1;
  const int parts = std::max(1, node.model->amd_partitions);
  json attributes = {
      {"type", DraAttribute("string", parts > 1 ? "amdgpu-partition" : "amdgpu")},
      {parts > 1 ? "parentPciAddr" : "pciAddr", DraAttribute("string", u.pci_bus_id.substr(4))},
      {"cardIndex", {{"int", card}}},
      {"renderIndex", {{"int", 127 + card}}},
      {"family", DraAttribute("string", "AI")},
      {"productName", DraAttribute("string", node.model->product)},
      {"driverVersion", DraAttribute("version", "6.12.12")},
      {"partitionProfile", DraAttribute("string", node.model->amd_partition_mode)}};
  const int64_t memory_mib = node.model->memory_mib / parts;
  return {{"name", StrCat("gpu-", card, "-", 127 + card)},
          {"attributes", std::move(attributes)},
          {"capacity",
           {{"memory", {{"value", StrCat(memory_mib, "Mi")}}},
            {"computeUnits", {{"value", std::to_string(304 / parts)}}}}}};
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
  for (const Node& node : nodes_) {
    if (!node.model->dra || node.model->vendor != Vendor::kAmd) continue;
    json devices = json::array();
    for (size_t i = 0; i < node.units.size(); ++i) devices.push_back(AmdDraDevice(node, i));
    item("resource.k8s.io/v1", "ResourceSlice",
         NodeSlice(node, kAmdDraDriver, std::move(devices), origin));
  }
  for (const Node& node : nodes_) {
    if (!node.model->dra || node.model->vendor == Vendor::kAmd) continue;
    json devices = json::array();
    for (const Unit& u : node.units) {
      bool shared = false;
      for (const DraClaim& c : node.claims)
        shared = shared || (c.gpu == u.gpu && !c.share_id.empty());
      json d = {{"name", StrCat("gpu-", u.gpu)},
                {"attributes",
                 {{"type", DraAttribute("string", "gpu")},
                  {"uuid", DraAttribute("string", u.uuid)},
                  {"productName", DraAttribute("string", node.model->model_name)},
                  {"driverVersion", DraAttribute("version", "550.90.7")},
                  {"resource.kubernetes.io/pciBusID", DraAttribute("string", u.pci_bus_id)}}},
                {"capacity", {{"memory", {{"value", StrCat(node.model->memory_mib, "Mi")}}}}}};
      if (shared) d["allowMultipleAllocations"] = true;
      devices.push_back(std::move(d));
    }
    item("resource.k8s.io/v1", "ResourceSlice",
         NodeSlice(node, kDraDriver, std::move(devices), origin));
  }
  for (const Node& node : nodes_) {
    if (!node.model->dra) continue;
    for (const DraClaim& c : node.claims) {
      const Slot& holder = node.slots[static_cast<size_t>(c.slots.front())];
      const std::string_view ns = kNamespaces[holder.ns].ns;
      json claim = {{"metadata", KubeMeta("ResourceClaim", ns, c.name, origin)}};
      const bool amd = node.model->vendor == Vendor::kAmd;
      const std::string_view driver = amd ? kAmdDraDriver : kDraDriver;
      json request = {
          {"name", "gpu"},
          {"exactly", {{"deviceClassName", driver}, {"count", amd ? c.units.size() : size_t{1}}}}};
      json result = {{"request", "gpu"},
                     {"driver", driver},
                     {"pool", node.name},
                     {"device", StrCat("gpu-", c.gpu)}};
      if (amd) {
        json results = json::array();
        for (int u : c.units) {
          result["device"] = AmdDraDevice(node, static_cast<size_t>(u))["name"];
          results.push_back(result);
        }
        claim["spec"]["devices"]["requests"] = json::array({request});
        claim["status"]["allocation"]["devices"]["results"] = std::move(results);
      }
      if (!c.share_id.empty()) {
        const auto bytes = static_cast<int64_t>(std::llround(
            static_cast<double>(node.model->memory_mib) * 1048576.0 * c.memory_fraction));
        request["exactly"]["capacity"] = {{"requests", {{"memory", std::to_string(bytes)}}}};
        result["shareID"] = ObjectUid("share", c.name, c.share_id);
        result["consumedCapacity"] = {{"memory", std::to_string(bytes)}};
      }
      if (!amd) {
        claim["spec"]["devices"]["requests"] = json::array({request});
        claim["status"]["allocation"]["devices"]["results"] = json::array({result});
      }
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
    json use = {{"name", "gpu"}};
    json container = {{"name", p.container}, {"image", "nvcr.io/nvidia/pytorch:24.05-py3"}};
    container["resources"]["claims"] = json::array({use});
    json ref = {{"name", "gpu"}, {"resourceClaimName", s.claim}};
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
