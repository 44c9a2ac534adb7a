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
  // Pods, units and pod uids become small integers: this runs every collection over every
  // GPU process of the node.
  std::map<PodName, int> pod_ids;
  std::map<UnitKey, int> unit_ids;
  std::vector<PodName> pods;
  std::vector<std::vector<int>> pods_on_unit;                 // unit -> pods, sorted
  std::map<std::pair<int, int>, std::set<std::string>> containers;  // (pod, unit) -> names
  for (const DeviceAssignment& a : assignments) {
    if (a.gpu_uuid.empty()) continue;
    auto [u, new_unit] = unit_ids.try_emplace({a.gpu_uuid, a.gpu_instance_id},
                                              static_cast<int>(unit_ids.size()));
    if (new_unit) pods_on_unit.emplace_back();
    auto [p, new_pod] = pod_ids.try_emplace({a.namespace_name, a.pod},
                                            static_cast<int>(pod_ids.size()));
    if (new_pod) pods.push_back(p->first);
    pods_on_unit[u->second].push_back(p->second);
    containers[{p->second, u->second}].insert(a.container);
  }
  for (std::vector<int>& v : pods_on_unit) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  // Per pod uid: the units its processes run on (-1: a unit nobody is assigned) and how many
  // container ids it has.
  std::map<std::string, int> uid_ids;
  std::vector<std::vector<int>> units_of;
  std::vector<std::set<std::string>> container_ids_of;
  for (const HolderActivity& h : holders) {
    if (h.holder.pod_uid.empty()) continue;
    auto [it, fresh] = uid_ids.try_emplace(h.holder.pod_uid, static_cast<int>(uid_ids.size()));
    if (fresh) {
      units_of.emplace_back();
      container_ids_of.emplace_back();
    }
    auto unit = unit_ids.find({h.gpu_uuid, h.gpu_instance_id});
    units_of[it->second].push_back(unit == unit_ids.end() ? -1 : unit->second);
    container_ids_of[it->second].insert(h.holder.container_id);
  }
  // Candidates per uid: the pods assigned to every unit it runs on.
  std::vector<std::vector<int>> candidates(units_of.size());
  std::vector<std::vector<int>> wanted_by(pods.size());  // pod -> uids
  for (size_t uid = 0; uid < units_of.size(); ++uid) {
    std::vector<int>& c = candidates[uid];
    bool first = true;
    for (const int u : units_of[uid]) {
      if (u < 0) {
        c.clear();
        break;
      }
      const std::vector<int>& here = pods_on_unit[static_cast<size_t>(u)];
      if (first) {
        c = here;
        first = false;
        continue;
      }
      std::vector<int> both;
      std::set_intersection(c.begin(), c.end(), here.begin(), here.end(), std::back_inserter(both));
      c = std::move(both);
    }
    for (const int p : c) wanted_by[static_cast<size_t>(p)].push_back(static_cast<int>(uid));
  }
  // Elimination: a uid left with one candidate claims it; the pod leaves every other uid's
  // candidates, which may leave one of them with a single candidate in turn.
  std::vector<int> named(units_of.size(), -1);
  std::vector<int> ready;
  for (size_t uid = 0; uid < candidates.size(); ++uid) {
    if (candidates[uid].size() == 1) ready.push_back(static_cast<int>(uid));
  }
  while (!ready.empty()) {
    const auto uid = static_cast<size_t>(ready.back());
    ready.pop_back();
    if (named[uid] >= 0 || candidates[uid].size() != 1) continue;
    const int pod = candidates[uid][0];
    named[uid] = pod;
    for (const int other : wanted_by[static_cast<size_t>(pod)]) {
      if (static_cast<size_t>(other) == uid) continue;
      std::vector<int>& oc = candidates[static_cast<size_t>(other)];
      auto at = std::find(oc.begin(), oc.end(), pod);
      if (at == oc.end()) continue;
      oc.erase(at);
      if (oc.size() == 1) ready.push_back(other);
    }
  }
  for (HolderActivity& h : holders) {
    auto it = uid_ids.find(h.holder.pod_uid);
    if (it == uid_ids.end()) continue;
    const auto uid = static_cast<size_t>(it->second);
    if (named[uid] < 0) continue;
    const PodName& pod = pods[static_cast<size_t>(named[uid])];
    h.holder.namespace_name = pod.first;
    h.holder.pod = pod.second;
    // The container name too when the pod has one container on these units and the uid one
    // container id.
    std::set<std::string> names;
    for (const int u : units_of[uid]) {
      auto c = containers.find({named[uid], u});
      if (c != containers.end()) names.insert(c->second.begin(), c->second.end());
    }
    if (names.size() == 1 && container_ids_of[uid].size() == 1) h.holder.container = *names.begin();
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
