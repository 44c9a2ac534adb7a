// Which physical GPUs each node has, as the sources name them before any unit is made:
// dcgm-exporter (by host, mapped to nodes), the node agent, HAMi's vGPU monitor and DRA
// ResourceSlices; and which nodes exist at all (docs/inputs.md "Capacity units per node").
#include "inventory/known_gpus.h"

#include <algorithm>

#include "core/strings.h"

namespace gpucost {

KnownGpus GatherKnownGpus(Assembly& a) {
  // GPUs per dcgm host.
  std::map<NodeKey, std::map<std::string, KnownGpu>> host_gpus;
  for (const auto& [key, dev] : a.dcgm.devices) {
    KnownGpu& g = host_gpus[{key.cluster, key.host}][key.uuid];
    g.uuid = key.uuid;
    // The lowest index of its devices: AMD's exporter numbers each partition of a GPU apart.
    if (dev.gpu_index >= 0 && (g.index < 0 || dev.gpu_index < g.index)) g.index = dev.gpu_index;
    if (g.model.empty()) g.model = dev.model;
    if (key.gpu_instance_id >= 0) {
      g.instances[key.gpu_instance_id] = MigInstance{dev.profile, &dev.seen};
    }
  }
  // (cluster, GPU UUID) -> the node the agent runs on: UUIDs are unique, the agent's node label
  // is the Kubernetes node name.
  std::map<std::pair<std::string, std::string>, NodeKey> agent_node_of_gpu;
  for (const auto& [key, g] : a.agent.gpus) {
    agent_node_of_gpu.try_emplace({key.cluster, key.uuid}, NodeKey{key.cluster, key.node});
  }
  // dcgm hosts -> node names: the node itself, else the node the agent reports the same GPUs on,
  // else (an exporter pod's name in old releases) the node of the pods it labels, else a node of
  // that name.
  for (const auto& [hk, gpus] : host_gpus) {
    if (a.ksm.nodes.contains(hk)) {
      a.host_to_node[hk] = hk;
      continue;
    }
    const NodeKey* agent_node = nullptr;
    for (const auto& [uuid, g] : gpus) {
      auto it = agent_node_of_gpu.find({hk.first, uuid});
      if (it != agent_node_of_gpu.end()) agent_node = &it->second;
    }
    if (agent_node != nullptr) {
      a.host_to_node[hk] = *agent_node;
      continue;
    }
    std::map<std::string, int> votes;
    for (const auto& [pk, series] : a.dcgm.pod_labels) {
      if (pk.device.cluster != hk.first || pk.device.host != hk.second) continue;
      for (const auto& [podkey, pt] : a.pods) {
        if (podkey.cluster == hk.first && podkey.namespace_name == pk.pod.namespace_name &&
            podkey.pod == pk.pod.pod) {
          ++votes[pt.node];
        }
      }
    }
    auto best = std::max_element(votes.begin(), votes.end(),
                                 [](const auto& x, const auto& y) { return x.second < y.second; });
    a.host_to_node[hk] = best == votes.end() ? hk : NodeKey{hk.first, best->first};
  }

  KnownGpus out;
  std::set<NodeKey>& names = out.names;
  for (const auto& [k, n] : a.ksm.nodes) names.insert(k);
  for (const auto& [hk, nk] : a.host_to_node) names.insert(nk);
  for (const auto& [key, g] : a.agent.gpus) names.insert({key.cluster, key.node});
  for (const auto& [key, u] : a.agent.units) names.insert({key.cluster, key.node});
  for (const auto& [key, g] : a.hami.gpus) names.insert({key.cluster, key.node});
  for (const auto& [cluster, d] : a.dra.devices) {
    if (!d.node.empty()) names.insert({cluster, d.node});
  }
  std::map<NodeKey, std::vector<Interval>>& pod_presence = out.pod_presence;
  std::set<NodeKey>& hami_nodes = out.hami_nodes;
  std::set<NodeKey>& shared_nodes = out.shared_nodes;
  for (const auto& [pk, pt] : a.pods) {
    const NodeKey nk{pk.cluster, pt.node};
    if (pt.uses_hami) hami_nodes.insert(nk);
    if (pt.uses_shared) shared_nodes.insert(nk);
    if (!names.contains(nk)) pod_presence[nk] = UnionIntervals(pod_presence[nk], pt.active);
  }
  for (const auto& [nk, iv] : pod_presence) {
    a.diag.Warn(StrCat("node-unknown:", nk.second), "", 0,
                StrCat("node ", nk.second,
                       " has GPU pods but no kube_node_* or dcgm series; "
                       "its GPU capacity is unknown"));
    names.insert(nk);
  }
  // GPUs per node (a node may have several dcgm host names), then the agent's GPUs and MIG
  // instances where dcgm-exporter did not report them.
  std::map<NodeKey, std::map<std::string, KnownGpu>>& node_gpus = out.gpus;
  std::map<NodeKey, std::vector<Interval>>& dcgm_presence = out.device_presence;
  for (const auto& [hk, gpus] : host_gpus) {
    std::map<std::string, KnownGpu>& known = node_gpus[a.host_to_node[hk]];
    for (const auto& [uuid, g] : gpus) {
      auto [it, fresh] = known.try_emplace(uuid, g);
      if (!fresh) it->second.instances.insert(g.instances.begin(), g.instances.end());
    }
  }
  for (const auto& [key, ag] : a.agent.gpus) {
    KnownGpu& g = node_gpus[{key.cluster, key.node}][key.uuid];
    g.uuid = key.uuid;
    if (key.gpu_instance_id < 0) {
      if (g.index < 0) g.index = ag.gpu_index;
      if (g.model.empty()) g.model = ag.model;
    } else {
      auto [it, fresh] =
          g.instances.try_emplace(key.gpu_instance_id, MigInstance{ag.profile, &ag.seen});
      if (!fresh && it->second.profile.empty()) it->second.profile = ag.profile;
    }
  }
  // HAMi's vGPU monitor names each GPU of its node by UUID and index, where neither dcgm-exporter
  // nor the agent did. Its device type is "NVIDIA-" and the product name.
  for (const auto& [key, hg] : a.hami.gpus) {
    KnownGpu& g = node_gpus[{key.cluster, key.node}][key.uuid];
    g.uuid = key.uuid;
    if (g.index < 0) g.index = hg.index;
    if (g.model.empty()) {
      std::string_view type = hg.device_type;
      if (type.starts_with("NVIDIA-")) type.remove_prefix(7);
      g.model = std::string(type);
    }
    const NodeKey nk{key.cluster, key.node};
    dcgm_presence[nk] =
        UnionIntervals(dcgm_presence[nk], PresentIntervals(hg.utilization.points(), a.presence));
  }
  // DRA devices (docs/k8s.md "Dynamic Resource Allocation"): a "gpu" device names a GPU by its
  // UUID; a "mig" device a MIG instance of its parent GPU, as one of that GPU's instances unless
  // dcgm-exporter or the agent report them (their instance ids are the GPU's own; DRA's devices
  // are then matched to them by profile, dra_assembly.cc). Instances DRA alone names are numbered
  // in the order of their device names. A MIG device without a UUID is DynamicMIG's: its GPU is
  // whole, whatever instances other sources saw.
  {
    std::vector<const std::pair<std::string, KubeDraDevice>*> devices;
    for (const auto& cd : a.dra.devices) devices.push_back(&cd);
    std::sort(devices.begin(), devices.end(), [](const auto* x, const auto* y) {
      return std::tie(x->first, x->second.node, x->second.name) <
             std::tie(y->first, y->second.node, y->second.name);
    });
    std::set<std::pair<NodeKey, std::string>> dra_numbered;  // GPUs whose instances DRA numbers
    std::vector<const std::pair<std::string, KubeDraDevice>*> dynamic;  // DynamicMIG devices
    for (const auto* cd : devices) {
      const KubeDraDevice& d = cd->second;
      const NodeKey nk{cd->first, d.node};
      const bool mig = d.type == "mig";
      const std::string& uuid = mig ? d.parent_uuid : d.uuid;
      if (d.node.empty() || uuid.empty() || (!mig && d.type != "gpu")) continue;
      if (mig && d.uuid.empty()) {  // an abstract MIG device: DynamicMIG
        dynamic.push_back(cd);
        continue;
      }
      KnownGpu& g = node_gpus[nk][uuid];
      if (g.uuid.empty()) g.dra_only = true;
      g.uuid = uuid;
      if (g.model.empty()) g.model = d.product;
      if (!mig) continue;
      if (g.instances.empty()) dra_numbered.insert({nk, uuid});
      if (!dra_numbered.contains({nk, uuid})) continue;
      const int gi = g.instances.empty() ? 0 : g.instances.rbegin()->first + 1;
      g.instances[gi] = MigInstance{d.profile, nullptr};
    }
    // A DynamicMIG device is a placement its GPU could make, not a GPU: the slice lists the GPU
    // itself beside it. One whose parent no slice nor any telemetry names is no evidence of a
    // GPU, and makes none (its claims match no unit, and are told so).
    for (const auto* cd : dynamic) {
      const KubeDraDevice& d = cd->second;
      const NodeKey nk{cd->first, d.node};
      auto gpus = node_gpus.find(nk);
      auto g = gpus == node_gpus.end() ? nullptr : &gpus->second;
      if (g == nullptr || !g->contains(d.parent_uuid)) {
        a.diag.Warn(StrCat("dynamic-mig-parent:", nk.first, ":", nk.second, ":", d.parent_uuid), "",
                    0,
                    StrCat("node ", nk.second, ": DynamicMIG device ", d.name, " of driver ",
                           d.driver, " names parent GPU ", d.parent_uuid,
                           ", which no ResourceSlice lists as a GPU and no telemetry reports; "
                           "it is not counted as a GPU"));
        continue;
      }
      KnownGpu& parent = g->at(d.parent_uuid);
      parent.dynamic_mig = true;
      if (parent.model.empty()) parent.model = d.product;
    }
    for (auto& [nk, gpus] : node_gpus) {
      for (auto& [uuid, g] : gpus) {
        if (!g.dynamic_mig || g.instances.empty()) continue;
        // Their activity is per MIG instance, which no unit of a DynamicMIG GPU is: say so
        // rather than leave the claims on it unmeasured without a word.
        a.diag.Warn(StrCat("dynamic-mig-instances:", nk.first, ":", nk.second, ":", uuid), "", 0,
                    StrCat("node ", nk.second, ": GPU ", uuid,
                           " is DynamicMIG's (its DRA MIG devices have no UUID), so its ",
                           g.instances.size(),
                           " MIG instances that dcgm-exporter reports are not "
                           "units and their activity is not used; have dcgm-exporter watch whole "
                           "GPUs (-d g), or run the node agent for per-pod activity"));
        g.instances.clear();
      }
    }
  }
  for (const auto& [key, dev] : a.dcgm.devices) {
    const NodeKey nk = a.host_to_node[{key.cluster, key.host}];
    dcgm_presence[nk] = UnionIntervals(dcgm_presence[nk], PresentIntervals(dev.seen, a.presence));
  }
  for (const auto& [key, ag] : a.agent.gpus) {
    const NodeKey nk{key.cluster, key.node};
    dcgm_presence[nk] = UnionIntervals(dcgm_presence[nk], PresentIntervals(ag.seen, a.presence));
  }
  for (const auto& [key, u] : a.agent.units) {
    const NodeKey nk{key.cluster, key.node};
    for (const PointSeries* p : {&u.gpm, &u.utilization}) {
      dcgm_presence[nk] =
          UnionIntervals(dcgm_presence[nk], PresentIntervals(p->points(), a.presence));
    }
  }
  return out;
}

}  // namespace gpucost
