// The node agent's part of the timelines (docs/agent.md, "How the engine uses agent data"):
// device assignments from the kubelet pin containers to exact units (whole GPUs, MIG instances,
// time-slicing/MPS replicas); unit activity replaces dcgm-exporter's for the time the agent
// reports a device; holder activity on whole GPUs becomes per-holder series, with the holders
// the agent places on a GPU but saw no process of counted as measured idle; holder activity of
// Slurm jobs is kept, resolved to units, for the Slurm source to join to its jobs.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "core/strings.h"
#include "inventory/assembly.h"

namespace gpucost {
namespace {

using GpuRef = std::pair<NodeIndex, std::string>;  // (node, GPU UUID)

double Clamp01(double v) { return std::clamp(v, 0.0, 1.0); }  // NaN stays NaN

// Whether t falls in one of the sorted, disjoint intervals.
bool Covered(const std::vector<Interval>& iv, Instant t) {
  auto it = std::upper_bound(iv.begin(), iv.end(), t,
                             [](Instant x, const Interval& i) { return x < i.start; });
  return it != iv.begin() && std::prev(it)->Contains(t);
}

// Keeps the samples the agent does not stand for: those outside its presence.
void DropCovered(std::vector<UsageSample>& samples, const std::vector<Interval>& agent) {
  std::erase_if(samples, [&](const UsageSample& s) { return Covered(agent, s.t); });
}

// The agent's samples and the kept ones in time order; the agent's wins an instant both have.
std::vector<UsageSample> MergeSamples(const std::vector<UsageSample>& kept,
                                      std::vector<UsageSample> agent) {
  agent.insert(agent.end(), kept.begin(), kept.end());
  std::stable_sort(agent.begin(), agent.end(),
                   [](const UsageSample& x, const UsageSample& y) { return x.t < y.t; });
  agent.erase(std::unique(agent.begin(), agent.end(),
                          [](const UsageSample& x, const UsageSample& y) { return x.t == y.t; }),
              agent.end());
  return agent;
}

std::string PodText(const AgentHolderRef& r) {
  std::string out = r.pod_uid.empty() ? std::string() : StrCat("pod uid ", r.pod_uid);
  if (!r.pod.empty()) {
    out += StrCat(out.empty() ? "pod " : " (", r.namespace_name, "/", r.pod, " container ",
                  r.container, out.empty() ? "" : ")");
  }
  if (!r.container_id.empty()) {
    out += StrCat(out.empty() ? "" : ", ", "container id ", r.container_id.substr(0, 12));
  }
  return out;
}

// Finds the holder a holder series is about: by namespace/pod/container (the pod uid, when both
// sides know it, must agree), else the pod uid's only GPU-holding container, else the container
// id through kube_pod_container_info.
class HolderJoin {
 public:
  explicit HolderJoin(const Assembly& a) : a_(a) {
    for (HolderIndex h = 0; h < a.inventory.holders.size(); ++h) {
      if (!a.holder_uids[h].empty()) {
        by_uid_[{a.inventory.holders[h].cluster, a.holder_uids[h]}].push_back(h);
      }
    }
  }

  HolderIndex Find(const std::string& cluster, const AgentHolderRef& r) const {
    if (!r.pod.empty() && !r.container.empty()) {
      const HolderIndex h = ByName(cluster, r.namespace_name, r.pod, r.container, r.pod_uid);
      if (h != kNoIndex) return h;
    }
    if (!r.pod_uid.empty()) {
      auto it = by_uid_.find({cluster, r.pod_uid});
      if (it != by_uid_.end() && it->second.size() == 1) return it->second.front();
    }
    if (!r.container_id.empty()) {
      auto it = a_.ksm.containers.find(r.container_id);
      if (it != a_.ksm.containers.end() && it->second.cluster == cluster) {
        const KsmContainer& c = it->second;
        return ByName(cluster, c.namespace_name, c.pod, c.container, c.uid);
      }
    }
    return kNoIndex;
  }

 private:
  HolderIndex ByName(const std::string& cluster, const std::string& ns, const std::string& pod,
                     const std::string& container, const std::string& uid) const {
    auto it = a_.holders_by_container.find({cluster, ns, pod, container});
    if (it == a_.holders_by_container.end()) return kNoIndex;
    for (HolderIndex h : it->second) {
      if (uid.empty() || a_.holder_uids[h].empty() || a_.holder_uids[h] == uid) return h;
    }
    return kNoIndex;
  }

  const Assembly& a_;
  std::map<std::pair<std::string, std::string>, std::vector<HolderIndex>> by_uid_;
};

// A process of a Slurm job: its cgroup named the job and no pod.
bool IsSlurmJob(const AgentHolderRef& r) { return !r.slurm_job.empty() && r.pod_uid.empty(); }

// Two series of one holder at one instant are parts of its activity: they add up.
void AddParts(std::map<int64_t, double>& values, const PointSeries& points) {
  for (const Point& p : points.points()) {
    auto [it, fresh] = values.emplace(p.t_ms, Clamp01(p.v));
    if (!fresh && !std::isnan(p.v)) {
      it->second = std::isnan(it->second) ? Clamp01(p.v) : Clamp01(it->second + p.v);
    }
  }
}

// Keeps the Slurm jobs' series (a.agent.slurm_jobs), one per (unit, job), for the Slurm source:
// which job holds a Slurm node's GPUs is known only once sacct's jobs are merged.
void AddSlurmJobActivity(
    Assembly& a, Window keep,
    const std::map<AgentGpuKey, std::shared_ptr<const std::vector<Instant>>>& measured) {
  std::map<std::pair<AgentGpuKey, std::string>, AgentJobActivity> jobs;
  std::map<std::pair<AgentGpuKey, std::string>, std::map<int64_t, double>> values;
  for (const auto& [key, activity] : a.agent.holders) {
    if (!IsSlurmJob(key.holder)) continue;
    const std::string& job = key.holder.slurm_job;
    auto node = a.node_index.find({key.gpu.cluster, key.gpu.node});
    UnitIndex unit = kNoIndex;
    if (node != a.node_index.end()) {
      auto it = a.unit_by_device.find({node->second, key.gpu.uuid, key.gpu.gpu_instance_id});
      if (it != a.unit_by_device.end()) unit = it->second;
    }
    if (unit == kNoIndex) {
      a.diag.Warn(
          StrCat("agent-slurm-no-unit:", key.gpu.node), activity.source, activity.first_line,
          StrCat("node agent: GPU activity of Slurm job ", job, " on node ", key.gpu.node, " GPU ",
                 key.gpu.uuid,
                 key.gpu.gpu_instance_id >= 0 ? StrCat(" instance ", key.gpu.gpu_instance_id)
                                              : std::string(),
                 " names no GPU unit of the inputs; ignored"));
      continue;
    }
    auto [it, fresh] = jobs.try_emplace({key.gpu, job});
    if (fresh) {
      AgentJobActivity& j = it->second;
      j.node = node->second;
      j.unit = unit;
      j.gpu_uuid = key.gpu.uuid;
      j.gpu_instance_id = key.gpu.gpu_instance_id;
      j.job = job;
      j.source = activity.source;
      j.first_line = activity.first_line;
      if (auto m = measured.find(key.gpu); m != measured.end()) j.measured = m->second;
    }
    AddParts(values[{key.gpu, job}], activity.points);
  }
  for (auto& [key, j] : jobs) {
    j.samples = ToSamples(values[key], keep);
    a.agent.slurm_jobs.push_back(std::move(j));
  }
}

// Whole GPUs DRA holdings share (Holding::unit_share below 1), with their holders.
std::map<GpuRef, std::set<HolderIndex>> DraSharedGpus(const Assembly& a) {
  std::map<GpuRef, std::set<HolderIndex>> out;
  for (const Holding& h : a.inventory.holdings) {
    if (h.units.size() != 1 || h.unit_share >= 1.0) continue;
    const GpuUnit& u = a.inventory.units[h.units.front()];
    if (u.partition.kind == PartitionKind::kWhole) out[{u.node, u.gpu_uuid}].insert(h.holder);
  }
  return out;
}

// The node agent's DRA assignments against the API's claims. They place nothing (the API's
// claims do, exactly), but a claim the API data lacks holds a GPU nobody is charged for, and a
// device the two place on different GPUs is worth a look.
void CheckAgentDraAssignments(Assembly& a) {
  if (a.agent.dra_assignments.empty()) return;
  std::map<std::pair<HolderIndex, std::string>, std::set<std::string>> held;  // -> GPU UUIDs
  for (const Holding& h : a.inventory.holdings) {
    if (!h.request.resource.starts_with(kDraClaimPrefix)) continue;
    std::set<std::string>& uuids = held[{h.holder, h.request.resource}];
    for (UnitIndex u : h.units) uuids.insert(a.inventory.units[u].gpu_uuid);
  }
  for (const auto& [key, x] : a.agent.dra_assignments) {
    const std::string resource = DraClaimResource(key.claim);
    const std::set<std::string>* uuids = nullptr;
    auto holders =
        a.holders_by_container.find({key.cluster, key.namespace_name, key.pod, key.container});
    if (holders != a.holders_by_container.end()) {
      for (HolderIndex h : holders->second) {
        if (auto it = held.find({h, resource}); it != held.end()) uuids = &it->second;
      }
    }
    const std::string what =
        StrCat("node agent: ", key.namespace_name, "/", key.pod, " container ", key.container,
               " holds device ", key.device_id, " of DRA claim ", key.claim, " on node ", key.node);
    if (uuids == nullptr) {
      a.diag.Warn(StrCat("agent-dra-claim-unknown:", key.node), x.source, x.first_line,
                  StrCat(what,
                         ", which the Kubernetes API data does not show allocated to it: the "
                         "device's time is not charged to the pod (idle); read the API "
                         "(--kubeconfig, or serve's Kubernetes source) to attribute DRA claims"));
    } else if (!x.gpu_uuid.empty() && !uuids->contains(x.gpu_uuid)) {
      a.diag.Warn(StrCat("agent-dra-claim-mismatch:", key.namespace_name, "/", key.claim), x.source,
                  x.first_line,
                  StrCat(what, " (GPU ", x.gpu_uuid, "), but the API places the claim on ",
                         Join(std::vector<std::string>(uuids->begin(), uuids->end()), ", "),
                         "; the API's placement is used"));
    }
  }
}

}  // namespace

void AddAgentPins(Assembly& a, PinMap& pins) {
  PinMap agent_pins;
  for (const auto& [key, assignment] : a.agent.assignments) {
    auto node = a.node_index.find({key.cluster, key.node});
    const char* what = key.gpu_instance_id >= 0 ? "MIG instance"
                       : key.replica >= 0       ? "replica"
                                                : "GPU";
    UnitIndex unit = kNoIndex;
    if (node != a.node_index.end()) {
      const auto& units = key.replica >= 0 && key.gpu_instance_id < 0 ? a.replica_units
                                                                      : a.unit_by_device;
      const int index = key.gpu_instance_id >= 0 ? key.gpu_instance_id : key.replica;
      auto it = units.find({node->second, key.gpu_uuid, index});
      if (it != units.end()) unit = it->second;
    }
    if (unit == kNoIndex) {
      a.diag.Warn(StrCat("agent-assignment-unmatched:", key.node), assignment.source,
                  assignment.first_line,
                  StrCat("node agent: ", key.namespace_name, "/", key.pod, " container ",
                         key.container, " holds device ", key.device_id, " on node ", key.node,
                         ", which matches no ", what, " unit of the node (", key.gpu_uuid,
                         key.gpu_instance_id >= 0 ? StrCat(" instance ", key.gpu_instance_id)
                         : key.replica >= 0       ? StrCat(" replica ", key.replica)
                                                  : std::string(),
                         "); its request draws from the node's pool"));
      continue;
    }
    agent_pins[{key.cluster, key.namespace_name, key.pod, key.container}].push_back(
        DevicePin{unit, PresentIntervals(assignment.seen, a.presence), true});
  }
  // The kubelet's assignment is exact: it replaces what dcgm-exporter's labels suggest.
  for (auto& [key, list] : agent_pins) pins[key] = std::move(list);
}

void BuildAgentUsage(Assembly& a) {
  CheckAgentDraAssignments(a);
  if (a.agent.units.empty() && a.agent.holders.empty()) return;
  const Window keep{a.window.start - SampleLookback(a.options.staleness), a.window.end};
  // Whole GPUs with a Slurm job's series: when the agent measured them, for measured idle.
  std::map<AgentGpuKey, std::shared_ptr<const std::vector<Instant>>> slurm_measured;
  for (const auto& [key, activity] : a.agent.holders) {
    if (IsSlurmJob(key.holder) && key.gpu.gpu_instance_id < 0) {
      slurm_measured.emplace(key.gpu, nullptr);
    }
  }
  // Per-holder activity is used on shared whole GPUs (time-slicing, MPS, HAMi). A MIG instance's
  // activity is its holder's, and so is an unshared GPU's (DESIGN.md: the GPU's own activity,
  // GPM preferred, stands for its one holder).
  // So is a whole GPU that DRA claims share (a claim reserved for several pods, a claim several
  // containers of a pod use, consumable capacity): each holder's part is measured per claim. A
  // DRA node ("dra") is shared GPU by GPU, where its claims share one, not as a whole.
  const std::map<GpuRef, std::set<HolderIndex>> dra_shared = DraSharedGpus(a);
  auto shared_node = [&](NodeIndex n) {
    const SharingMode m = a.inventory.nodes[n].sharing;
    return m == SharingMode::kTimeSlicing || m == SharingMode::kMps || m == SharingMode::kHami;
  };
  auto shared = [&](NodeIndex n, const std::string& uuid) {
    return shared_node(n) || dra_shared.contains({n, uuid});
  };

  // Unit activity: GPM where the agent has it, else NVML's utilization rate.
  std::map<std::tuple<NodeIndex, std::string, int>, size_t> device_index;
  for (size_t i = 0; i < a.usage.devices.size(); ++i) {
    const DeviceSeries& d = a.usage.devices[i];
    device_index.emplace(std::tuple{d.node, d.gpu_uuid, d.gpu_instance_id}, i);
  }
  std::map<GpuRef, std::vector<Interval>> gpu_presence;  // shared whole GPUs the agent reports
  std::map<GpuRef, std::vector<int64_t>> gpu_instants;   // ... and when it measured them
  for (auto& [key, unit] : a.agent.units) {
    const NodeIndex node = a.node_index.at({key.cluster, key.node});
    const PointSeries& points = unit.gpm.empty() ? unit.utilization : unit.gpm;
    std::vector<UsageSample> samples;  // points are sorted, one per instant
    double max_v = 0;
    for (const Point& p : points.points()) {
      if (p.v > max_v) max_v = p.v;
      const Instant at = InstantFromUnixMs(p.t_ms);
      if (at >= keep.start && at < keep.end) samples.push_back(UsageSample{at, Clamp01(p.v)});
    }
    if (max_v > 1.0 + 1e-6) {
      a.diag.Warn("agent-ratio-over-one", unit.source, unit.first_line,
                  StrCat("gpucost_agent_unit_activity_ratio above 1 (", max_v, "); clamped to 1"));
    }
    const std::vector<Interval> present = PresentIntervals(points.points(), a.presence);
    unit = AgentUnitActivity{};  // the raw points are not needed again
    auto slurm_gpu = slurm_measured.find(key);
    const bool for_shared = key.gpu_instance_id < 0 && shared(node, key.uuid);
    if (for_shared || slurm_gpu != slurm_measured.end()) {
      // Only instants where the agent also measured every process of the GPU.
      std::set<int64_t> measured;
      if (auto pm = a.agent.process_measured.find(key); pm != a.agent.process_measured.end()) {
        // Not where an input cut short said so: the processes' lines may be what it lost.
        static const std::vector<std::pair<int64_t, int64_t>> kNone;
        auto unsure = a.agent.process_unsure.find(key);
        const auto& cut = unsure == a.agent.process_unsure.end() ? kNone : unsure->second;
        for (const Point& p : pm->second.points()) {
          if (p.v >= 0.5 && std::none_of(cut.begin(), cut.end(), [&](const auto& span) {
                return p.t_ms >= span.first && p.t_ms <= span.second;
              })) {
            measured.insert(p.t_ms);
          }
        }
      }
      std::vector<int64_t> instants;
      for (const UsageSample& s : samples) {
        if (!std::isnan(s.value) && measured.contains(UnixMs(s.t))) instants.push_back(UnixMs(s.t));
      }
      if (slurm_gpu != slurm_measured.end() && !instants.empty()) {
        std::vector<Instant> at;
        at.reserve(instants.size());
        for (int64_t t : instants) at.push_back(InstantFromUnixMs(t));
        slurm_gpu->second = std::make_shared<const std::vector<Instant>>(std::move(at));
      }
      if (for_shared) {
        std::vector<int64_t>& all = gpu_instants[{node, key.uuid}];
        all.insert(all.end(), instants.begin(), instants.end());
        gpu_presence[{node, key.uuid}] = present;
      }
    }
    auto it = device_index.find({node, key.uuid, key.gpu_instance_id});
    if (it != device_index.end()) {
      // dcgm-exporter fills the time the agent does not report (before it was deployed, say).
      DeviceSeries& d = a.usage.devices[it->second];
      DropCovered(d.samples, present);
      d.samples = MergeSamples(d.samples, std::move(samples));
    } else if (!samples.empty()) {
      a.usage.devices.push_back(DeviceSeries{node, key.uuid, key.gpu_instance_id, std::move(samples)});
    }
  }

  AddSlurmJobActivity(a, keep, slurm_measured);

  // Holder activity on shared whole GPUs.
  const HolderJoin join(a);
  std::map<std::tuple<HolderIndex, NodeIndex, std::string>, std::map<int64_t, double>> series;
  std::map<GpuRef, std::set<HolderIndex>> placed;  // holders the agent puts on each GPU
  for (const auto& [key, activity] : a.agent.holders) {
    if (key.gpu.gpu_instance_id >= 0 || IsSlurmJob(key.holder)) continue;
    const AgentHolderRef& r = key.holder;
    const HolderIndex h = join.Find(key.gpu.cluster, r);
    if (h == kNoIndex) {
      const std::string who = PodText(r);
      a.diag.Warn(StrCat("agent-no-holder:", r.pod_uid.empty() ? who : r.pod_uid),
                  activity.source, activity.first_line,
                  StrCat("node agent: GPU activity of ", who.empty() ? "a process of no pod" : who,
                         " on node ", key.gpu.node, " GPU ", key.gpu.uuid,
                         " matches no container holding a GPU; it counts only in the GPU's "
                         "activity"));
      continue;
    }
    auto node_it = a.node_index.find({key.gpu.cluster, key.gpu.node});
    if (node_it == a.node_index.end() || !shared(node_it->second, key.gpu.uuid)) continue;
    const NodeIndex node = node_it->second;
    placed[{node, key.gpu.uuid}].insert(h);
    AddParts(series[{h, node, key.gpu.uuid}], activity.points);
  }
  a.agent.holders.clear();  // the raw points are not needed again
  for (const auto& [key, assignment] : a.agent.assignments) {
    if (key.gpu_instance_id >= 0) continue;
    auto node = a.node_index.find({key.cluster, key.node});
    auto holders =
        a.holders_by_container.find({key.cluster, key.namespace_name, key.pod, key.container});
    if (node == a.node_index.end() || holders == a.holders_by_container.end() ||
        !shared(node->second, key.gpu_uuid)) {
      continue;
    }
    for (HolderIndex h : holders->second) placed[{node->second, key.gpu_uuid}].insert(h);
  }
  // The API places a DRA claim's holders exactly.
  for (const auto& [gpu, holders] : dra_shared) placed[gpu].insert(holders.begin(), holders.end());
  // A holder the agent places on a GPU, with no sample where the GPU has one, ran no process on
  // it then: measured idle, not unmeasured. Only while its pod is active (and one staleness
  // before, for the sample that stands for its start): the series grow with pod time, not with
  // the window times the pods a GPU ever had.
  const int64_t staleness_ms = a.options.staleness.count();
  for (const auto& [gpu, holders] : placed) {
    auto instants = gpu_instants.find(gpu);
    if (instants == gpu_instants.end()) continue;
    const std::vector<int64_t>& at = instants->second;
    for (HolderIndex h : holders) {
      std::map<int64_t, double>& values = series[{h, gpu.first, gpu.second}];
      for (const Interval& iv : a.holder_active[h]) {
        auto t = std::lower_bound(at.begin(), at.end(), UnixMs(iv.start) - staleness_ms);
        for (; t != at.end() && *t < UnixMs(iv.end); ++t) values.emplace(*t, 0.0);
      }
    }
  }

  // dcgm-exporter's per-process series keep the time the agent does not report; the agent's
  // series replace them for the rest.
  std::map<std::tuple<HolderIndex, NodeIndex, std::string>, size_t> holder_index;
  for (size_t i = 0; i < a.usage.holders.size(); ++i) {
    HolderDeviceSeries& hs = a.usage.holders[i];
    if (hs.gpu_instance_id >= 0) continue;
    if (auto p = gpu_presence.find({hs.node, hs.gpu_uuid}); p != gpu_presence.end()) {
      DropCovered(hs.samples, p->second);
    }
    holder_index.emplace(std::tuple{hs.holder, hs.node, hs.gpu_uuid}, i);
  }
  for (auto& [key, values] : series) {
    const auto& [h, node, uuid] = key;
    std::vector<UsageSample> samples = ToSamples(values, keep);
    if (auto it = holder_index.find(key); it != holder_index.end()) {
      HolderDeviceSeries& hs = a.usage.holders[it->second];
      hs.samples = MergeSamples(hs.samples, std::move(samples));
    } else if (!samples.empty()) {
      a.usage.holders.push_back(HolderDeviceSeries{h, node, uuid, -1, std::move(samples)});
    }
  }
}

}  // namespace gpucost
