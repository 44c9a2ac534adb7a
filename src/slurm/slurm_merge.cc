// MergeSlurmTimeline: the Slurm piece joined to a timeline from Kubernetes sources (nodes taken
// over, holdings pinned to the GPUs dcgm-exporter or the node agent names each job on, the
// agent's per-job activity as holder usage). The piece itself is built in slurm_timeline.cc.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>

#include "core/strings.h"
#include "inventory/series_timeline.h"
#include "slurm/window_hull.h"
#include "slurm/slurm_timeline.h"

namespace gpucost::slurm {
namespace {

// Whether a job id written on a GPU (dcgm-exporter's hpc_job, the agent's slurm_job) names this
// job: its JobIDRaw ($SLURM_JOB_ID in a prolog, job_<id> in a cgroup) or the id as sacct prints it
// ("2736118_0", "77+1").
bool NamesJob(const std::string& label, const Holder& h) {
  return label == h.pod_uid || label == h.pod;
}

// A job id on a unit of a node: from a dcgm-exporter hpc_job label or a node agent series.
struct UnitJob {
  NodeIndex node = kNoIndex;
  UnitIndex unit = kNoIndex;
  const std::string* job = nullptr;
  size_t source = 0;  // index into the caller's list
};
using UnitJobsByNode = std::map<NodeIndex, std::vector<UnitJob>>;

// The ids among `on_node` that name the holder of holdings[i]: by NamesJob, else the het job's
// leading id ("77" for "77+1") when the holder is the only component of that het job on the node.
std::vector<const UnitJob*> MatchJob(const Inventory& inv, size_t first_holding, size_t i,
                                     const std::vector<UnitJob>& on_node) {
  std::vector<const UnitJob*> matched;
  const Holding& held = inv.holdings[i];
  const Holder& holder = inv.holders[held.holder];
  for (const UnitJob& j : on_node) {
    if (NamesJob(*j.job, holder)) matched.push_back(&j);
  }
  const std::string_view het = holder.labels.Get("het_job_id");
  if (!matched.empty() || het.empty()) return matched;
  for (size_t k = first_holding; k < inv.holdings.size(); ++k) {
    const Holding& o = inv.holdings[k];
    if (o.node == held.node && o.holder != held.holder &&
        inv.holders[o.holder].labels.Get("het_job_id") == het) {
      return matched;
    }
  }
  for (const UnitJob& j : on_node) {
    if (*j.job == het) matched.push_back(&j);
  }
  return matched;
}

// Pins Slurm holdings on taken-over nodes to the units whose job ids name their job, except
// holdings of the (holder, node) pairs in `skip`. Only units of the requested resource count;
// fewer than the request: the rest is drawn from the node's pool; more: a warning, and the whole
// request is drawn from the pool. Returns the (holder, node) pairs pinned.
std::set<std::pair<HolderIndex, NodeIndex>> PinToUnits(
    LoadedTimeline& target, size_t first_holding, const UnitJobsByNode& by_node,
    const std::set<std::pair<HolderIndex, NodeIndex>>& skip, std::string_view who) {
  Inventory& inv = target.inventory;
  std::set<std::pair<HolderIndex, NodeIndex>> pinned;
  const size_t n_holdings = inv.holdings.size();
  for (size_t i = first_holding; i < n_holdings && !by_node.empty(); ++i) {
    auto it = by_node.find(inv.holdings[i].node);
    if (it == by_node.end() || skip.contains({inv.holdings[i].holder, inv.holdings[i].node})) {
      continue;
    }
    std::vector<UnitIndex> units;
    for (const UnitJob* j : MatchJob(inv, first_holding, i, it->second)) {
      const GpuUnit& u = inv.units[j->unit];
      if (!u.holdable || u.resource != inv.holdings[i].request.resource) continue;
      if (std::find(units.begin(), units.end(), j->unit) == units.end()) units.push_back(j->unit);
    }
    if (units.empty()) continue;
    Holding& h = inv.holdings[i];
    const auto want = static_cast<size_t>(std::llround(h.request.count));
    if (units.size() > want) {
      target.warnings.push_back(InputWarning{
          "", 0,
          StrCat("slurm job ", inv.holders[h.holder].pod, " on node ", inv.nodes[h.node].name, ": ",
                 who, " ", units.size(), " devices with the job, which holds ", want,
                 "; the job draws from the node's GPUs instead"),
          1});
      continue;
    }
    std::sort(units.begin(), units.end());
    pinned.insert({h.holder, h.node});
    if (units.size() < want) {
      Holding rest = h;  // the GPUs no id was seen on still come from the pool
      rest.request.count = static_cast<double>(want - units.size());
      h.request.count = static_cast<double>(units.size());
      h.units = std::move(units);
      inv.holdings.push_back(std::move(rest));
    } else {
      h.units = std::move(units);
    }
  }
  return pinned;
}

// dcgm-exporter's hpc_job labels on taken-over nodes, by node.
UnitJobsByNode DeviceJobsByNode(const LoadedTimeline& target, const std::set<NodeIndex>& adopted) {
  UnitJobsByNode out;
  for (size_t k = 0; k < target.device_jobs.size(); ++k) {
    const DeviceJob& j = target.device_jobs[k];
    if (adopted.contains(j.node)) out[j.node].push_back(UnitJob{j.node, j.unit, &j.job, k});
  }
  return out;
}

// The job's per-job activity on one whole GPU from its agent series, plus 0 at each instant the
// agent measured every process of the GPU while the job held it and saw none of the job's
// (measured idle), from the last such instant before the holding, which stands for its start.
std::vector<UsageSample> JobSamples(const std::vector<const AgentJobActivity*>& parts,
                                    const std::vector<Interval>& held) {
  std::map<Instant, double> values;
  for (const AgentJobActivity* a : parts) {
    for (const UsageSample& s : a->samples) {
      // Two ids of one job on one GPU are parts of its activity: they add up.
      auto [it, fresh] = values.emplace(s.t, s.value);
      if (!fresh && !std::isnan(s.value)) {
        it->second = std::isnan(it->second) ? s.value : std::min(1.0, it->second + s.value);
      }
    }
  }
  // The parts are of one GPU: they share its measured instants.
  if (parts.front()->measured != nullptr) {
    const std::vector<Instant>& at = *parts.front()->measured;
    for (const Interval& iv : held) {
      auto t = std::lower_bound(at.begin(), at.end(), iv.start);
      if (t != at.begin() && (t == at.end() || *t > iv.start)) --t;
      for (; t != at.end() && *t < iv.end; ++t) values.emplace(*t, 0.0);
    }
  }
  std::vector<UsageSample> out;
  out.reserve(values.size());
  for (const auto& [t, v] : values) out.push_back(UsageSample{t, v});
  return out;
}

// Joins the node agent's per-job series (target.agent_jobs) to the Slurm holdings on taken-over
// nodes: pins each job to the units the agent measured it on, and gives it a per-holder series
// on each of those whole GPUs. Series that name no Slurm job holding GPUs on their node are
// warned about, one warning per node. Returns the (holder, node) pairs pinned and the holders
// given series.
std::pair<std::set<std::pair<HolderIndex, NodeIndex>>, std::set<HolderIndex>> JoinAgentJobs(
    LoadedTimeline& target, size_t first_holding, const std::set<NodeIndex>& adopted) {
  Inventory& inv = target.inventory;
  UnitJobsByNode by_node;
  for (size_t k = 0; k < target.agent_jobs.size(); ++k) {
    const AgentJobActivity& j = target.agent_jobs[k];
    if (adopted.contains(j.node)) by_node[j.node].push_back(UnitJob{j.node, j.unit, &j.job, k});
  }
  // Which series name which holder, before pinning splits holdings.
  std::vector<bool> used(target.agent_jobs.size(), false);
  std::map<std::pair<HolderIndex, UnitIndex>, std::vector<const AgentJobActivity*>> parts;
  std::map<std::pair<HolderIndex, NodeIndex>, std::vector<Interval>> held;
  for (size_t i = first_holding; i < inv.holdings.size(); ++i) {
    const Holding& h = inv.holdings[i];
    auto it = by_node.find(h.node);
    if (it == by_node.end()) continue;
    const std::vector<const UnitJob*> matched = MatchJob(inv, first_holding, i, it->second);
    if (matched.empty()) continue;
    std::vector<Interval>& when = held[{h.holder, h.node}];
    if (std::find(when.begin(), when.end(), h.interval) == when.end()) when.push_back(h.interval);
    for (const UnitJob* j : matched) {
      std::vector<const AgentJobActivity*>& list = parts[{h.holder, j->unit}];
      const AgentJobActivity* a = &target.agent_jobs[j->source];
      if (std::find(list.begin(), list.end(), a) == list.end()) list.push_back(a);
      used[j->source] = true;
    }
  }
  // One warning per node, naming its first unmatched job and counting the others.
  std::set<std::pair<std::string, NodeIndex>> unmatched;
  std::map<NodeIndex, size_t> warning_of_node;
  for (size_t k = 0; k < target.agent_jobs.size(); ++k) {
    const AgentJobActivity& j = target.agent_jobs[k];
    if (used[k] || !unmatched.insert({j.job, j.node}).second) continue;
    if (auto w = warning_of_node.find(j.node); w != warning_of_node.end()) {
      ++target.warnings[w->second].count;
      continue;
    }
    warning_of_node.emplace(j.node, target.warnings.size());
    target.warnings.push_back(InputWarning{
        j.source, j.first_line,
        StrCat("node agent: GPU activity of Slurm job ", j.job, " on node ", inv.nodes[j.node].name,
               " matches no Slurm job holding GPUs on that node",
               adopted.contains(j.node) ? "" : " (no Slurm node took it over)",
               "; it counts only in the GPU's activity"),
        1});
  }

  const auto pinned = PinToUnits(target, first_holding, by_node, {}, "the node agent measures");
  std::set<HolderIndex> measured;
  for (auto& [key, list] : parts) {
    const auto [holder, unit] = key;
    const GpuUnit& u = inv.units[unit];
    // A MIG instance's activity is its holder's already; per-holder series are for whole GPUs.
    if (u.partition.kind == PartitionKind::kMig || list.front()->gpu_instance_id >= 0) continue;
    std::vector<UsageSample> samples = JobSamples(list, held[{holder, u.node}]);
    if (samples.empty()) continue;
    target.usage.holders.push_back(
        HolderDeviceSeries{holder, u.node, u.gpu_uuid, -1, std::move(samples)});
    measured.insert(holder);
  }
  return {pinned, measured};
}

}  // namespace

void MergeSlurmTimeline(LoadedTimeline& target, SlurmTimeline slurm,
                        const std::string& unlabelled_cluster) {
  Inventory& inv = target.inventory;
  const auto holder0 = static_cast<HolderIndex>(inv.holders.size());
  const size_t holding0 = inv.holdings.size();

  // Nodes the target knows only from dcgm data (no Kubernetes holding), by name.
  std::vector<bool> k8s_held(inv.nodes.size(), false);
  for (const Holding& h : inv.holdings) {
    if (h.node != kNoIndex) k8s_held[h.node] = true;
    for (UnitIndex u : h.units) k8s_held[inv.units[u].node] = true;
  }
  std::map<std::string, std::vector<NodeIndex>> by_name;
  for (NodeIndex n = 0; n < inv.nodes.size(); ++n) {
    if (!k8s_held[n]) by_name[inv.nodes[n].name].push_back(n);
  }
  std::vector<NodeIndex> node_map(slurm.inventory.nodes.size(), kNoIndex);
  std::set<NodeIndex> adopted;
  for (NodeIndex s = 0; s < slurm.inventory.nodes.size(); ++s) {
    Node& sn = slurm.inventory.nodes[s];
    auto it = by_name.find(sn.name);
    NodeIndex pick = kNoIndex;
    if (it != by_name.end()) {
      for (NodeIndex t : it->second) {
        const std::string& c = inv.nodes[t].cluster;
        if (adopted.contains(t) || (c != sn.cluster && c != unlabelled_cluster)) continue;
        if (pick == kNoIndex || c == sn.cluster) pick = t;
      }
    }
    if (pick == kNoIndex) {
      node_map[s] = static_cast<NodeIndex>(inv.nodes.size());
      inv.nodes.push_back(std::move(sn));
      continue;
    }
    Node& t = inv.nodes[pick];
    if (sn.physical_gpus > t.physical_gpus) {
      target.warnings.push_back(InputWarning{
          "", 0,
          StrCat("node ", sn.name, ": Slurm jobs held ", sn.physical_gpus, " GPUs at one time, "
                 "dcgm-exporter shows ", t.physical_gpus, "; the dcgm count is used"),
          1});
    }
    t.cluster = sn.cluster;
    for (const Label& l : sn.labels) t.labels = t.labels.With(l.name, l.value);
    t.present = UnionIntervals(t.present, sn.present);
    node_map[s] = pick;
    adopted.insert(pick);
  }
  std::vector<UnitIndex> unit_map(slurm.inventory.units.size(), kNoIndex);
  for (UnitIndex i = 0; i < slurm.inventory.units.size(); ++i) {
    GpuUnit& u = slurm.inventory.units[i];
    if (adopted.contains(node_map[u.node])) continue;  // the node's real GPUs stand instead
    u.node = node_map[u.node];
    unit_map[i] = static_cast<UnitIndex>(inv.units.size());
    inv.units.push_back(std::move(u));
  }
  for (Holder& h : slurm.inventory.holders) inv.holders.push_back(std::move(h));
  for (Holding& h : slurm.inventory.holdings) {
    h.holder += holder0;
    h.node = node_map[h.node];
    // Units assigned per GPU type (nodes of several types) name synthesised units; on a node
    // whose real GPUs stand instead, the holding is pinned or draws from them as any other.
    if (adopted.contains(h.node)) {
      h.units.clear();
    } else {
      for (UnitIndex& u : h.units) u = unit_map[u];
    }
    inv.holdings.push_back(std::move(h));
  }
  // The agent measures each job's own processes: its pins and series come first; dcgm-exporter's
  // hpc_job labels pin the holdings it does not.
  const auto [agent_pinned, agent_measured] = JoinAgentJobs(target, holding0, adopted);
  const auto dcgm_pinned = PinToUnits(target, holding0, DeviceJobsByNode(target, adopted),
                                      agent_pinned, "dcgm-exporter labels");
  std::set<HolderIndex> measured = agent_measured;
  for (const auto& [holder, node] : agent_pinned) measured.insert(holder);
  for (const auto& [holder, node] : dcgm_pinned) measured.insert(holder);
  for (HolderDeviceSeries& series : slurm.usage.holders) {
    series.holder += holder0;
    if (measured.contains(series.holder)) continue;  // measured on its own GPUs instead
    target.usage.holders.push_back(std::move(series));
  }
  target.span = Hull(target.span, slurm.span);
  target.window = Hull(target.window, slurm.window);
  for (InputWarning& w : slurm.warnings) target.warnings.push_back(std::move(w));
  target.parse_errors += slurm.stats.malformed_lines;
}

}  // namespace gpucost::slurm
