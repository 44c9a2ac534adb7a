#include "agent/snapshot_builder.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace gpucost::agent {
namespace {

using UnitKey = std::pair<std::string, int>;  // (gpu uuid, gpu instance id)
using PodName = std::pair<std::string, std::string>;  // (namespace, pod)

HolderId IdOf(const ProcessOwner& o) {
  HolderId id;
  id.pod_uid = o.pod_uid;
  id.container_id = o.container_id;
  id.slurm_job = o.slurm_job;
  return id;
}

// Holders of one unit, from its processes.
void AddUnitHolders(const NvmlGpu& gpu, const NvmlUnit& unit, const OwnerLookup& owner_of,
                    AgentSnapshot& out) {
  const bool mig = unit.gpu_instance_id >= 0;
  const bool per_process = !mig && gpu.process_utilization;
  std::map<HolderId, HolderActivity> holders;
  double unowned = 0;
  bool any_unowned = false;
  for (const NvmlProcess& p : unit.processes) {
    const ProcessOwner owner = owner_of(p.pid);
    const double part = p.samples > 0 ? p.sm_util_sum / p.samples / 100.0 : 0.0;
    if (!owner.known()) {
      unowned += part;
      any_unowned = true;
      continue;
    }
    HolderActivity& h = holders[IdOf(owner)];
    h.gpu_uuid = gpu.uuid;
    h.gpu_instance_id = unit.gpu_instance_id;
    h.holder = IdOf(owner);
    ++h.processes;
    if (p.memory_bytes) h.memory_bytes = h.memory_bytes.value_or(0) + *p.memory_bytes;
    if (per_process) h.activity = std::min(1.0, h.activity.value_or(0.0) + part);
  }
  if (mig && holders.size() == 1 && unit.activity) {
    holders.begin()->second.activity = unit.activity;
  }
  for (auto& [id, h] : holders) out.holders.push_back(std::move(h));
  if (per_process && any_unowned) {
    out.unowned.push_back(UnitActivity{gpu.uuid, unit.gpu_instance_id, std::min(1.0, unowned),
                                       "process"});
  }
}

void AddUnit(const NvmlGpu& gpu, const NvmlUnit& unit, const OwnerLookup& owner_of,
             AgentSnapshot& out) {
  if (unit.activity) {
    out.units.push_back(
        UnitActivity{gpu.uuid, unit.gpu_instance_id, *unit.activity, unit.activity_source});
  }
  AddUnitHolders(gpu, unit, owner_of, out);
}

}  // namespace

void NameHolders(std::vector<HolderActivity>& holders,
                 const std::vector<DeviceAssignment>& assignments) {
  std::map<UnitKey, std::set<PodName>> pods_on_unit;
  std::map<std::pair<PodName, UnitKey>, std::set<std::string>> containers;
  for (const DeviceAssignment& a : assignments) {
    if (a.gpu_uuid.empty()) continue;
    const UnitKey unit{a.gpu_uuid, a.gpu_instance_id};
    const PodName pod{a.namespace_name, a.pod};
    pods_on_unit[unit].insert(pod);
    containers[{pod, unit}].insert(a.container);
    // A process on a MIG instance is also "on" its GPU for naming purposes; a whole-GPU
    // assignment covers the GPU's processes.
  }
  // Candidates per pod uid: pods assigned to every unit the uid runs on.
  std::map<std::string, std::set<PodName>> candidates;
  std::map<std::string, std::set<UnitKey>> units_of;
  for (const HolderActivity& h : holders) {
    if (h.holder.pod_uid.empty()) continue;
    units_of[h.holder.pod_uid].insert({h.gpu_uuid, h.gpu_instance_id});
  }
  for (const auto& [uid, units] : units_of) {
    std::set<PodName> c;
    bool first = true;
    for (const UnitKey& u : units) {
      auto it = pods_on_unit.find(u);
      const std::set<PodName> here = it == pods_on_unit.end() ? std::set<PodName>{} : it->second;
      if (first) {
        c = here;
        first = false;
      } else {
        std::set<PodName> both;
        std::set_intersection(c.begin(), c.end(), here.begin(), here.end(),
                              std::inserter(both, both.begin()));
        c = std::move(both);
      }
    }
    candidates[uid] = std::move(c);
  }
  // Elimination: a uid with one candidate claims it; the pod leaves every other uid's list.
  std::map<std::string, PodName> named;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [uid, c] : candidates) {
      if (named.contains(uid) || c.size() != 1) continue;
      const PodName pod = *c.begin();
      named[uid] = pod;
      changed = true;
      for (auto& [other, oc] : candidates) {
        if (other != uid) oc.erase(pod);
      }
    }
  }
  for (HolderActivity& h : holders) {
    auto it = named.find(h.holder.pod_uid);
    if (it == named.end()) continue;
    h.holder.namespace_name = it->second.first;
    h.holder.pod = it->second.second;
    std::set<std::string> names;
    for (const UnitKey& u : units_of[h.holder.pod_uid]) {
      auto c = containers.find({it->second, u});
      if (c != containers.end()) names.insert(c->second.begin(), c->second.end());
    }
    // One container of the pod on these units, and the pod has only this one container id here.
    std::set<std::string> ids;
    for (const HolderActivity& other : holders) {
      if (other.holder.pod_uid == h.holder.pod_uid) ids.insert(other.holder.container_id);
    }
    if (names.size() == 1 && ids.size() == 1) h.holder.container = *names.begin();
  }
}

AgentSnapshot BuildSnapshot(const NvmlReading& reading, const OwnerLookup& owner_of,
                            std::vector<DeviceAssignment> assignments) {
  AgentSnapshot out;
  for (const NvmlGpu& gpu : reading.gpus) {
    GpuInfo info;
    info.uuid = gpu.uuid;
    info.index = gpu.index;
    info.model = gpu.name;
    if (gpu.mig_enabled) info.mig_mode = *gpu.mig_enabled ? "enabled" : "disabled";
    info.memory_total_bytes = gpu.memory_total_bytes;
    info.energy_mj = gpu.energy_mj;
    out.gpus.push_back(std::move(info));
    for (const auto& [call, ok] : gpu.supported) out.support.push_back({gpu.uuid, call, ok});
    if (gpu.mig_enabled.value_or(false)) {
      for (const NvmlUnit& unit : gpu.mig) {
        out.migs.push_back(MigInfo{gpu.uuid, unit.gpu_instance_id, unit.compute_instance_id,
                                   unit.uuid, unit.profile});
        AddUnit(gpu, unit, owner_of, out);
      }
    } else {
      AddUnit(gpu, gpu.whole, owner_of, out);
    }
  }
  // Several compute instances of one GPU instance report the same GPU-instance activity once.
  std::sort(out.units.begin(), out.units.end(), [](const UnitActivity& a, const UnitActivity& b) {
    return std::tie(a.gpu_uuid, a.gpu_instance_id) < std::tie(b.gpu_uuid, b.gpu_instance_id);
  });
  out.units.erase(std::unique(out.units.begin(), out.units.end(),
                              [](const UnitActivity& a, const UnitActivity& b) {
                                return a.gpu_uuid == b.gpu_uuid &&
                                       a.gpu_instance_id == b.gpu_instance_id;
                              }),
                  out.units.end());
  NameHolders(out.holders, assignments);
  out.assignments = std::move(assignments);
  return out;
}

}  // namespace gpucost::agent
