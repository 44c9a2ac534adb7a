// The Kubernetes API's view merged into the kube-state-metrics data. The API is authoritative
// for what it still holds (owners, every label rather than KSM's allow-listed ones, namespace
// labels, ReplicaSet and Job owners, node labels and capacity); kube-state-metrics series keep
// the history the API has forgotten (deleted pods, past phases), so a pod they show keeps its
// series schedule and only takes its identity from the API.
#include <cmath>
#include <set>

#include "core/strings.h"
#include "inventory/assembly.h"

namespace gpucost {
namespace {

// Original keys -> KSM spelling, which is how KsmData keys labels. Two keys that sanitize alike
// on one object ("team.name" and "team_name") keep the first in key order, with a warning.
std::map<std::string, std::string> KsmSpelled(const std::map<std::string, std::string>& labels,
                                              std::string_view what, Assembly& a,
                                              std::set<std::string>& originals) {
  std::map<std::string, std::string> out;
  std::map<std::string, std::string> first_key;
  for (const auto& [k, v] : labels) {
    std::string ksm = KsmLabelKey(k);
    auto [it, fresh] = first_key.try_emplace(ksm, k);
    if (!fresh) {
      a.diag.Warn(StrCat("label-collision:", what, ":", ksm), "", 0,
                  StrCat(what, ": labels \"", it->second, "\" and \"", k,
                         "\" read alike once sanitized (\"", ksm, "\"); keeping \"", it->second,
                         "\""));
      continue;
    }
    originals.insert(k);
    out.emplace(std::move(ksm), v);
  }
  return out;
}

KsmPod* FindPod(KsmData& ksm, const std::string& cluster, const KubePod& p) {
  auto it = ksm.pods.find(PodKey{cluster, p.namespace_name, p.name, p.uid});
  if (it != ksm.pods.end()) return &it->second;
  // kube-state-metrics releases without the uid label.
  it = ksm.pods.find(PodKey{cluster, p.namespace_name, p.name, ""});
  return it != ksm.pods.end() ? &it->second : nullptr;
}

void MergeOne(const KubeState& state, Assembly& a, std::set<std::string>& originals) {
  KsmData& ksm = a.ksm;
  const std::string cluster = state.cluster.empty() ? a.options.cluster : state.cluster;
  for (const KubeDraDevice& d : state.dra_devices) a.dra.devices.emplace_back(cluster, d);
  for (const KubeDraAllocation& x : state.dra_allocations)
    a.dra.allocations.emplace_back(cluster, x);
  for (const auto& [ns, labels] : state.namespace_labels) {
    ksm.namespace_labels[{cluster, ns}] =
        KsmSpelled(labels, StrCat("namespace ", ns), a, originals);
  }
  for (const auto& [ns, owners] : state.replicaset_owners) {
    auto& table = ksm.replicaset_owners[{cluster, ns}];
    for (const auto& [name, owner] : owners) table[name] = owner;
  }
  for (const auto& [ns, owners] : state.job_owners) {
    auto& table = ksm.job_owners[{cluster, ns}];
    for (const auto& [name, owner] : owners) table[name] = owner;
  }
  for (const KubePod& p : state.pods) {
    auto labels = KsmSpelled(p.labels, StrCat("pod ", p.namespace_name, "/", p.name), a, originals);
    for (size_t i = 0; i < p.container_ids.size() && i < p.container_names.size(); ++i) {
      const std::string_view id = ContainerIdWithoutRuntime(p.container_ids[i]);
      if (id.empty()) continue;
      ksm.containers.try_emplace(std::string(id), KsmContainer{cluster, p.namespace_name, p.name,
                                                               p.uid, p.container_names[i]});
    }
    KsmPod* pod = FindPod(ksm, cluster, p);
    if (pod == nullptr) {
      if (p.resources.empty()) continue;  // holds no GPU, and no series names it
      pod = &ksm.pods[PodKey{cluster, p.namespace_name, p.name, p.uid}];
    }
    pod->owners = p.owners;
    pod->labels = std::move(labels);
    pod->labels_t = INT64_MAX;
    if (!pod->resources.empty()) {
      // The series tell its schedule, but not its DRA claims: KSM has no series for them, and
      // shows an extended resource a claim serves as if a device plugin did.
      pod->api_claims.clear();
      for (const KubeContainerResource& r : p.resources) {
        if (CanonicalResourceName(r.resource).kind != ResourceKind::kDraClaim) continue;
        ApiClaimUse use{r.container, r.resource, {}, NormalizeIntervals(p.active)};
        for (const std::string& x : r.replaces) {
          use.replaces.push_back(a.device_classes->Resolve(cluster, x).canonical);
        }
        pod->api_claims.push_back(std::move(use));
      }
      continue;
    }
    ApiPodSchedule schedule;
    schedule.node = p.node;
    schedule.active = NormalizeIntervals(p.active);
    for (const KubeContainerResource& r : p.resources) {
      const ResourceName rn = a.device_classes->Resolve(cluster, r.resource);
      if (rn.kind == ResourceKind::kNotGpu) continue;
      if (rn.kind == ResourceKind::kUnknownGpu) {
        a.diag.Warn(StrCat("unknown-resource:", rn.canonical), "", 0,
                    StrCat("unknown GPU-like resource \"", rn.canonical, "\" on pod ",
                           p.namespace_name, "/", p.name, "; ignored"));
        continue;
      }
      schedule.resources[ContainerResourceKey{r.container, rn.canonical, r.from_limits}] =
          r.quantity;
    }
    pod->api = std::move(schedule);
  }
  for (const KubeNode& n : state.nodes) {
    KsmNode& node = ksm.nodes[{cluster, n.name}];
    node.labels = KsmSpelled(n.labels, StrCat("node ", n.name), a, originals);
    node.labels_t = INT64_MAX;
    for (const auto& [res, v] : n.capacity) {
      const ResourceName rn = CanonicalResourceName(res);
      if (rn.kind == ResourceKind::kNotGpu || rn.kind == ResourceKind::kUnknownGpu) continue;
      // A device count, as kube-state-metrics' is held to (KsmReader): 100,000,000 GPUs took
      // all memory, and 65,537 cost $786k an hour.
      if (rn.IsDevice() && !(v >= 0 && v <= kMaxNodeDevices && v == std::floor(v))) {
        a.diag.Warn(StrCat("node-capacity:", cluster, "/", n.name, ":", rn.canonical), "", 0,
                    StrCat("node ", n.name, ": status.capacity[", res, "] = ", v,
                           " is not a device count (a whole number from 0 to ",
                           static_cast<int64_t>(kMaxNodeDevices), "); ignored"));
        continue;
      }
      node.capacity[rn.canonical] = v;
      node.capacity_t[rn.canonical] = INT64_MAX;
    }
    if (!n.provider_id.empty()) node.provider_id = n.provider_id;
    node.api_present = UnionIntervals(node.api_present, ClipIntervals(n.present, a.window));
  }
}

}  // namespace

void MergeKubeStates(std::vector<KubeState>& states, Assembly& a) {
  std::set<std::string> originals(a.ksm.api_label_keys.begin(), a.ksm.api_label_keys.end());
  for (const KubeState& s : states) MergeOne(s, a, originals);
  a.ksm.api_label_keys.assign(originals.begin(), originals.end());
}

std::vector<std::string> KnownLabelKeys(const Assembly& a) {
  std::vector<std::string> keys = a.ksm.api_label_keys;
  // The settings' keys come last so that they win where both spell one KSM key.
  keys.insert(keys.end(), a.options.known_label_keys.begin(), a.options.known_label_keys.end());
  return keys;
}

}  // namespace gpucost
