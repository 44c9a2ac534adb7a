// Pods -> holders and holdings: phases and scheduling give when a pod holds GPUs; container
// requests (or, when the node agent reports the kubelet's device assignment or dcgm-exporter pins
// a device to the pod exclusively, the device itself) give what it holds.
#include <algorithm>
#include <cmath>

#include "core/strings.h"
#include "inventory/assembly.h"
#include "inventory/workload_identity.h"

namespace gpucost {
namespace {

bool Positive(double v) { return v > 0.5; }

std::string PodName(const PodKey& k) { return StrCat(k.namespace_name, "/", k.pod); }

// One (container, resource) request, whichever source told it.
struct ResourceSpan {
  double count = 0;  // the latest positive value
  double last = 0;   // the latest value (HAMi amounts)
  std::vector<Interval> intervals;  // when it is present and positive
};
// container -> canonical resource -> span; requests first, limits only for a (container,
// resource) with no request.
using ContainerResources = std::map<std::string, std::map<std::string, ResourceSpan>>;

ContainerResources SeriesResources(const KsmPod& pod, const Assembly& a) {
  std::map<std::string, std::map<std::string, const PresenceSeries*>> chosen;  // container->res
  for (const auto& [rk, series] : pod.resources) {
    auto& slot = chosen[rk.container][rk.resource];
    if (!rk.from_limits || slot == nullptr) slot = &series;
  }
  ContainerResources out;
  for (const auto& [container, resources] : chosen) {
    for (const auto& [res, series] : resources) {
      ResourceSpan span;
      span.last = series->last_value();
      // The latest positive count: extended resources cannot be resized in place.
      series->ForEach([&](int64_t, double v) {
        if (v > 0) span.count = v;
      });
      span.intervals = PresentIntervals(*series, a.presence, [](double v) { return v > 0; });
      out[container][res] = std::move(span);
    }
  }
  return out;
}

// The API's DRA claims of a pod the series tell: each claim is held while the extended resources
// it serves are (their series then stand for the claim, not for a device plugin), else while the
// API shows the pod holding it.
void AddApiClaims(const KsmPod& pod, ContainerResources& out) {
  for (const ApiClaimUse& use : pod.api_claims) {
    auto& slot = out[use.container];
    ResourceSpan span;
    span.count = span.last = 1;
    bool served = false;
    for (const std::string& x : use.replaces) {
      auto it = slot.find(x);
      if (it == slot.end()) continue;
      served = true;
      span.intervals = UnionIntervals(span.intervals, it->second.intervals);
      slot.erase(it);
    }
    if (!served) span.intervals = use.active;
    slot[use.resource] = std::move(span);
  }
}

ContainerResources ApiResources(const ApiPodSchedule& api) {
  ContainerResources out;
  for (const auto& [rk, quantity] : api.resources) {
    auto& slot = out[rk.container];
    if (rk.from_limits && slot.contains(rk.resource)) continue;
    ResourceSpan span;
    span.count = span.last = quantity;
    if (quantity > 0) span.intervals = api.active;
    slot[rk.resource] = std::move(span);
  }
  return out;
}

std::vector<ContainerRequest> ContainerRequests(const PodKey& key,
                                                const ContainerResources& containers,
                                                Assembly& a, bool& hami, bool& shared) {
  std::vector<ContainerRequest> out;
  for (const auto& [container, resources] : containers) {
    Request hami_parts;
    for (const auto& [res, span] : resources) {
      const ResourceName rn = CanonicalResourceName(res);
      if (rn.kind == ResourceKind::kHamiCores) hami_parts.hami_cores_percent = span.last;
      if (rn.kind == ResourceKind::kHamiMem) hami_parts.hami_mem_mib = span.last;
      if (rn.kind == ResourceKind::kHamiMemPercentage) hami_parts.hami_mem_percent = span.last;
    }
    const bool has_hami = hami_parts.hami_cores_percent >= 0 || hami_parts.hami_mem_mib >= 0 ||
                          hami_parts.hami_mem_percent >= 0;
    hami = hami || has_hami;
    bool hami_attached = false;
    for (const auto& [res, span] : resources) {
      const ResourceName rn = CanonicalResourceName(res);
      if (!rn.IsDevice()) continue;
      ContainerRequest cr;
      cr.container = container;
      cr.request.resource = rn.canonical;
      cr.request.count = span.count;
      cr.intervals = span.intervals;
      if (cr.request.count <= 0 || cr.intervals.empty()) continue;
      if (const double n = cr.request.count; n != std::floor(n) || n > kMaxNodeDevices) {
        cr.request.count = std::min(std::ceil(n), kMaxNodeDevices);
        const std::string who = StrCat("pod ", PodName(key), " container ", container);
        a.diag.Warn(StrCat("request-count:", who), "", 0,
                    StrCat(who, " asks for ", n, " of ", rn.canonical,
                           ": not whole devices, at most 65536; ", cr.request.count, " taken"));
      }
      if (rn.kind == ResourceKind::kNvidiaGpuShared) shared = true;
      if (has_hami && rn.kind == ResourceKind::kNvidiaGpu) {
        cr.request.hami_cores_percent = hami_parts.hami_cores_percent;
        cr.request.hami_mem_mib = hami_parts.hami_mem_mib;
        cr.request.hami_mem_percent = hami_parts.hami_mem_percent;
        hami_attached = true;
      }
      out.push_back(std::move(cr));
    }
    if (has_hami && !hami_attached) {
      a.diag.Warn(StrCat("hami-no-gpu:", PodName(key), "/", container), "", 0,
                  StrCat("pod ", PodName(key), " container ", container,
                         " asks for HAMi GPU fractions without nvidia.com/gpu; ignored"));
    }
  }
  return out;
}

// A pod only the Kubernetes API knows: its schedule is the API's.
void ApiPodTimeline(const PodKey& key, const ApiPodSchedule& api, Assembly& a) {
  if (api.node.empty()) {
    bool asks = false;
    for (const auto& [rk, quantity] : api.resources) {
      asks = asks || (quantity > 0 && CanonicalResourceName(rk.resource).IsDevice());
    }
    if (!asks) return;
    a.diag.Warn(StrCat("pod-no-node:", PodName(key)), "", 0,
                StrCat("pod ", PodName(key), " requests GPUs but was never scheduled to a node"));
    return;
  }
  PodTimeline pt;
  pt.requests = ContainerRequests(key, ApiResources(api), a, pt.uses_hami, pt.uses_shared);
  if (pt.requests.empty()) return;
  pt.node = api.node;
  pt.active = ClipIntervals(api.active, a.window);
  a.pods.emplace(key, std::move(pt));
}

}  // namespace

void BuildPodTimelines(Assembly& a) {
  for (const auto& [key, pod] : a.ksm.pods) {
    if (pod.resources.empty()) {
      if (pod.api) ApiPodTimeline(key, *pod.api, a);
      continue;  // else holds no GPU
    }
    PodTimeline pt;
    ContainerResources resources = SeriesResources(pod, a);
    AddApiClaims(pod, resources);
    pt.requests = ContainerRequests(key, resources, a, pt.uses_hami, pt.uses_shared);
    if (pt.requests.empty()) continue;
    std::vector<Interval> scheduled;
    int64_t node_last = INT64_MIN;
    for (const auto& [node, series] : pod.info_by_node) {
      if (node.empty()) continue;
      scheduled = UnionIntervals(scheduled, PresentIntervals(series, a.presence, Positive));
      if (series.last_t() > node_last) {
        node_last = series.last_t();
        pt.node = node;
      }
    }
    if (pt.node.empty()) pt.node = pod.request_node;
    if (pt.node.empty()) {
      a.diag.Warn(StrCat("pod-no-node:", PodName(key)), "", 0,
                  StrCat("pod ", PodName(key), " requests GPUs but was never scheduled to a node"));
      continue;
    }
    std::vector<Interval> requested;
    for (const ContainerRequest& cr : pt.requests) requested = UnionIntervals(requested, cr.intervals);
    if (pod.info_by_node.empty()) scheduled = requested;  // node known from the request series
    if (pod.phases.empty()) {
      a.diag.Warn("pod-no-phase", "", 0,
                  StrCat("no kube_pod_status_phase for pod ", PodName(key),
                         " (and maybe others): it is taken to hold its GPUs while scheduled"));
      pt.active = scheduled;
    } else {
      std::vector<Interval> running, pending;
      if (auto it = pod.phases.find("Running"); it != pod.phases.end()) {
        running = PresentIntervals(it->second, a.presence, Positive);
      }
      if (auto it = pod.phases.find("Pending"); it != pod.phases.end()) {
        pending = PresentIntervals(it->second, a.presence, Positive);
      }
      pt.active = UnionIntervals(running, IntersectIntervals(pending, scheduled));
    }
    pt.active = ClipIntervals(pt.active, a.window);
    a.pods.emplace(key, std::move(pt));
  }
}

namespace {

DraClaimUse DraClaimPods(const Assembly& a) {
  DraClaimUse out;
  for (const auto& [key, pt] : a.pods) {
    std::map<std::string, std::vector<Interval>> used;  // claim -> when this pod uses it
    for (const ContainerRequest& cr : pt.requests) {
      if (CanonicalResourceName(cr.request.resource).kind != ResourceKind::kDraClaim) continue;
      std::vector<Interval>& when = used[cr.request.resource.substr(kDraClaimPrefix.size())];
      when = UnionIntervals(when, IntersectIntervals(pt.active, cr.intervals));
    }
    for (auto& [claim, when] : used) {
      out[{key.cluster, key.namespace_name, claim}].push_back(std::move(when));
    }
  }
  return out;
}

// `when` cut where another pod starts or stops using the claim, each piece with the number of
// pods using it then (this one included, so at least 1).
std::vector<std::pair<Interval, int>> SharedPieces(const std::vector<Interval>& when,
                                                   const std::vector<std::vector<Interval>>& pods) {
  std::vector<Instant> cuts;
  for (const auto& intervals : pods) {
    for (const Interval& iv : intervals) {
      cuts.push_back(iv.start);
      cuts.push_back(iv.end);
    }
  }
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::pair<Interval, int>> out;
  for (const Interval& iv : when) {
    for (Instant from = iv.start; from < iv.end;) {
      auto cut = std::upper_bound(cuts.begin(), cuts.end(), from);
      const Instant to = cut != cuts.end() && *cut < iv.end ? *cut : iv.end;
      int n = 0;
      for (const auto& intervals : pods) {
        n += std::any_of(intervals.begin(), intervals.end(),
                         [&](const Interval& p) { return p.Contains(from); });
      }
      n = std::max(n, 1);
      if (!out.empty() && out.back().first.end == from && out.back().second == n) {
        out.back().first.end = to;
      } else {
        out.push_back({Interval{from, to}, n});
      }
      from = to;
    }
  }
  return out;
}

// A container's use of a DRA claim: the claim's devices, each shared equally by the pods using
// the claim at each moment and, within a pod, by its containers that use the claim.
void AddDraHoldings(Assembly& a, const PodKey& key, const PodTimeline& pt,
                    const ContainerRequest& cr, HolderIndex holder, NodeIndex node,
                    const std::vector<Interval>& when,
                    const std::map<DraClaimKey, DraClaimUnits>& claims, const DraClaimUse& uses) {
  const std::string claim_name = cr.request.resource.substr(kDraClaimPrefix.size());
  const DraClaimKey claim_key{key.cluster, key.namespace_name, claim_name};
  auto claim = claims.find(claim_key);
  if (claim == claims.end()) {
    a.diag.Warn(StrCat("dra-claim-unallocated:", key.namespace_name, "/", claim_name), "", 0,
                StrCat("pod ", PodName(key), " uses DRA claim ", claim_name,
                       ", which the API shows with no allocated device; not attributed"));
    return;
  }
  double containers = 0;
  for (const ContainerRequest& other : pt.requests) {
    if (other.request.resource == cr.request.resource) ++containers;
  }
  static const std::vector<std::vector<Interval>> kAlone;
  auto pods = uses.find(claim_key);
  const std::vector<std::pair<Interval, int>> pieces =
      SharedPieces(when, pods != uses.end() ? pods->second : kAlone);
  for (const auto& [unit, share] : claim->second.units) {
    if (a.inventory.units[unit].node != node) {
      a.diag.Warn(StrCat("dra-claim-node:", key.namespace_name, "/", claim_name), "", 0,
                  StrCat("pod ", PodName(key), " runs on node ", a.inventory.nodes[node].name,
                         " but DRA claim ", claim_name, "'s device is on node ",
                         a.inventory.nodes[a.inventory.units[unit].node].name, "; not attributed"));
      continue;
    }
    for (const auto& [iv, n] : pieces) {
      Holding holding;
      holding.holder = holder;
      holding.node = node;
      holding.interval = iv;
      holding.units = {unit};
      holding.request = cr.request;
      holding.request.count = 1;
      holding.unit_share = share / n / containers;
      a.inventory.holdings.push_back(std::move(holding));
    }
  }
}

std::map<std::string, std::string> Allowed(const std::map<std::string, std::string>& labels,
                                           const std::vector<std::string>& allow) {
  if (allow.empty()) return labels;
  std::map<std::string, std::string> out;
  for (const std::string& k : allow) {
    auto it = labels.find(KsmLabelKey(k));
    if (it != labels.end()) out.insert(*it);
  }
  return out;
}

LabelSet HolderLabels(const std::map<std::string, std::string>& pod_labels,
                      const std::map<std::string, std::string>& ns_labels, const Assembly& a,
                      const LabelKeyRestorer& restorer) {
  std::vector<Label> labels;
  std::map<std::string, std::string> merged = Allowed(ns_labels, a.options.label_allowlist);
  for (const auto& [k, v] : Allowed(pod_labels, a.options.label_allowlist)) merged[k] = v;
  std::set<std::string> names;
  for (const auto& [k, v] : merged) {
    std::string name = restorer.Restore(k);
    if (names.insert(name).second) labels.push_back(Label{std::move(name), v});
  }
  auto made = LabelSet::Make(std::move(labels));
  return made.ok() ? std::move(made).value() : LabelSet();
}

// A Neuron device request holds every core of each device it gets: on a Neuron node it draws
// cores-per-device core units per device. Elsewhere it stays as it is (and finds no unit).
void NeuronDevicesToCores(const Assembly& a, NodeIndex n, Request& r) {
  if (CanonicalResourceName(r.resource).kind != ResourceKind::kNeuronDevice) return;
  auto it = a.neuron_cores_per_device.find(n);
  if (it == a.neuron_cores_per_device.end()) return;
  r.resource = std::string(kNeuronCoreResource);
  r.count *= it->second;
}

HolderIndex AddHolder(Assembly& a, Holder h, const std::string& uid,
                      const std::vector<Interval>& active) {
  const HolderIndex idx = static_cast<HolderIndex>(a.inventory.holders.size());
  a.holders_by_container[{h.cluster, h.namespace_name, h.pod, h.container}].push_back(idx);
  a.inventory.holders.push_back(std::move(h));
  a.holder_uids.push_back(uid);
  a.holder_active.push_back(active);
  return idx;
}

}  // namespace

void BuildHoldersAndHoldings(Assembly& a) {
  std::vector<TeamSource> chain;
  for (const std::string& t : a.options.team_labels) {
    TeamSource s;
    if (ParseTeamSource(t, s)) chain.push_back(std::move(s));
    else a.diag.Warn(StrCat("bad team source \"", t, "\" (want pod:<key> or namespace:<key>)"));
  }
  const LabelKeyRestorer restorer(KnownLabelKeys(a));
  static const std::map<std::string, std::string> kNoLabels;
  auto ns_labels_of = [&](const std::string& cluster, const std::string& ns)
      -> const std::map<std::string, std::string>& {
    auto it = a.ksm.namespace_labels.find({cluster, ns});
    return it == a.ksm.namespace_labels.end() ? kNoLabels : it->second;
  };

  // Exclusive device pins from dcgm pod labels: MIG instances, or whole GPUs on nodes that do not
  // divide them (DRA's nodes too: their claims are placed by the API, not by pins).
  PinMap pins;
  for (const auto& [key, series] : a.dcgm.pod_labels) {
    if (key.vgpu || !TrustPodLabels(a, key.pod_from_direct_labels)) continue;
    auto host = a.host_to_node.find({key.device.cluster, key.device.host});
    if (host == a.host_to_node.end()) continue;
    const NodeIndex n = a.node_index.at(host->second);
    if (key.device.gpu_instance_id < 0 && NodeDividesGpus(a.inventory.nodes[n].sharing)) {
      continue;  // one arbitrary pod of a shared GPU: not an assignment
    }
    auto unit = a.unit_by_device.find({n, key.device.uuid, key.device.gpu_instance_id});
    if (unit == a.unit_by_device.end()) continue;
    pins[{key.device.cluster, key.pod.namespace_name, key.pod.pod, key.pod.container}].push_back(
        DevicePin{unit->second, PresentIntervals(series, a.presence), false});
  }
  ResolveDeviceClassRequests(a);
  AddHamiPins(a, pins);
  AddAgentPins(a, pins);
  const std::map<DraClaimKey, DraClaimUnits> dra_claims = ResolveDraClaims(a);
  const DraClaimUse dra_uses = DraClaimPods(a);
  WarnUnusedDraClaims(a, dra_claims, dra_uses);

  for (const auto& [key, pt] : a.pods) {
    auto node_it = a.node_index.find({key.cluster, pt.node});
    if (node_it == a.node_index.end()) continue;
    const KsmPod& kpod = a.ksm.pods.at(key);
    const ClusterNamespace cns{key.cluster, key.namespace_name};
    OwnerTables tables;
    if (auto it = a.ksm.replicaset_owners.find(cns); it != a.ksm.replicaset_owners.end()) {
      tables.replicaset_owners = &it->second;
    }
    if (auto it = a.ksm.job_owners.find(cns); it != a.ksm.job_owners.end()) {
      tables.job_owners = &it->second;
    }
    const WorkloadIdentity wi =
        ResolveWorkload(key.pod, kpod.owners, tables, a.options.infer_deployment_from_replicaset);
    const auto& ns_labels = ns_labels_of(key.cluster, key.namespace_name);
    std::map<std::string, HolderIndex> by_container;
    for (const ContainerRequest& cr : pt.requests) {
      auto [hit, fresh] = by_container.try_emplace(cr.container, kNoIndex);
      if (fresh) {
        Holder h;
        h.cluster = key.cluster;
        h.namespace_name = key.namespace_name;
        h.pod = key.pod;
        h.container = cr.container;
        h.pod_uid = key.uid;
        h.workload = wi.workload;
        h.workload_kind = wi.kind;
        h.team = ResolveTeam(chain, kpod.labels, ns_labels, key.namespace_name);
        h.labels = HolderLabels(kpod.labels, ns_labels, a, restorer);
        hit->second = AddHolder(a, std::move(h), key.uid, pt.active);
      }
      const std::vector<Interval> when = IntersectIntervals(pt.active, cr.intervals);
      if (CanonicalResourceName(cr.request.resource).kind == ResourceKind::kDraClaim) {
        AddDraHoldings(a, key, pt, cr, hit->second, node_it->second, when, dra_claims, dra_uses);
        continue;
      }
      const auto pin_it = pins.find({key.cluster, key.namespace_name, key.pod, cr.container});
      for (const Interval& iv : when) {
        Holding holding;
        holding.holder = hit->second;
        holding.node = node_it->second;
        holding.interval = iv;
        holding.request = cr.request;
        NeuronDevicesToCores(a, holding.node, holding.request);
        if (pin_it != pins.end()) {
          std::vector<UnitIndex> units;
          const bool from_agent = pin_it->second.front().from_agent;
          for (const DevicePin& p : pin_it->second) {
            const GpuUnit& u = a.inventory.units[p.unit];
            if (u.node != holding.node || u.resource != cr.request.resource) continue;
            if (!IntersectIntervals(p.when, {iv}).empty()) units.push_back(p.unit);
          }
          std::sort(units.begin(), units.end());
          units.erase(std::unique(units.begin(), units.end()), units.end());
          if (static_cast<double>(units.size()) == cr.request.count) {
            holding.units = std::move(units);
          } else if (!units.empty()) {
            a.diag.Warn(StrCat("pin-count:", PodName(key), "/", cr.container), "", 0,
                        StrCat("pod ", PodName(key), " container ", cr.container, " requests ",
                               cr.request.count, " ", cr.request.resource, " but ",
                               from_agent ? "the node agent assigns it " : "dcgm-exporter labels ",
                               units.size(), " devices; using the request"));
          }
        }
        a.inventory.holdings.push_back(std::move(holding));
      }
    }
  }

  // Pods that dcgm-exporter or the node agent pins to devices but kube-state-metrics never
  // showed.
  std::set<std::tuple<std::string, std::string, std::string>> ksm_pods;
  for (const auto& [key, pod] : a.ksm.pods) ksm_pods.insert({key.cluster, key.namespace_name, key.pod});
  for (const auto& [pkey, plist] : pins) {
    const auto& [cluster, ns, pod, container] = pkey;
    if (ksm_pods.contains({cluster, ns, pod})) continue;
    a.diag.Warn(StrCat("dcgm-only-pod:", ns, "/", pod), "", 0,
                StrCat("pod ", ns, "/", pod, " is known only from ",
                       plist.front().from_agent ? "node agent device assignments"
                                                : "dcgm-exporter labels",
                       "; it holds the devices assigned to it, as a bare pod"));
    Holder h;
    h.cluster = cluster;
    h.namespace_name = ns;
    h.pod = pod;
    h.container = container;
    h.workload = pod;
    h.workload_kind = "Pod";
    h.team = ResolveTeam(chain, kNoLabels, ns_labels_of(cluster, ns), ns);
    std::vector<Interval> active;
    for (const DevicePin& p : plist) active = UnionIntervals(active, p.when);
    active = ClipIntervals(active, a.window);
    const HolderIndex hi = AddHolder(a, std::move(h), "", active);
    for (const DevicePin& p : plist) {
      const GpuUnit& u = a.inventory.units[p.unit];
      for (const Interval& iv : ClipIntervals(p.when, a.window)) {
        Holding holding;
        holding.holder = hi;
        holding.node = u.node;
        holding.interval = iv;
        holding.units = {p.unit};
        holding.request.resource = u.resource;
        holding.request.count = 1;
        a.inventory.holdings.push_back(std::move(holding));
      }
    }
  }
}

}  // namespace gpucost
