#include "inventory/ksm_reader.h"

#include <limits>

#include "core/strings.h"
#include "inventory/resource_names.h"
#include "inventory/sample_labels.h"

namespace gpucost {
namespace {

// Copies the "label_*" labels of a sample, prefix removed.
std::map<std::string, std::string> PrefixedLabels(const SampleView& s) {
  std::map<std::string, std::string> out;
  for (const LabelView& l : s.labels) {
    if (l.name.starts_with("label_") && !l.value.empty()) {
      out[std::string(l.name.substr(6))] = std::string(l.value);
    }
  }
  return out;
}

OwnerRef OwnerOf(const SampleView& s) {
  OwnerRef o{LabelString(s, "owner_kind"), LabelString(s, "owner_name"),
             LabelValue(s, "owner_is_controller") == "true"};
  if (o.kind == "<none>") o.kind.clear();
  if (o.name == "<none>") o.name.clear();
  return o;
}

// The labels of the newest series win; series of one instant merge. Applied for every sample of
// a series, so a repeat of what the labels are already copies nothing.
void MergeLatest(std::map<std::string, std::string>& labels, int64_t& labels_t,
                 const std::map<std::string, std::string>& fresh, int64_t t_ms) {
  if (t_ms > labels_t) {
    if (labels != fresh) labels = fresh;
    labels_t = t_ms;
  } else if (t_ms == labels_t) {
    for (const auto& [k, v] : fresh) labels[k] = v;
  }
}

}  // namespace

std::string_view ContainerIdWithoutRuntime(std::string_view id) {
  if (const size_t sep = id.find("://"); sep != std::string_view::npos) id.remove_prefix(sep + 3);
  return id;
}

std::string KsmReader::Cluster(const SampleView& s) const {
  const std::string_view c = LabelValue(s, "cluster");
  return c.empty() ? default_cluster_ : std::string(c);
}

KsmPod& KsmReader::Pod(const SampleView& s) {
  // kube-state-metrics writes a pod's series of one family together (five phases in a row), so
  // the last pod looked up is checked first, without building a key. Map nodes never move.
  std::string_view cluster = LabelValue(s, "cluster");
  if (cluster.empty()) cluster = default_cluster_;
  const std::string_view ns = ExporterLabel(s, "namespace");
  const std::string_view pod = ExporterLabel(s, "pod");
  const std::string_view uid = LabelValue(s, "uid");
  if (last_pod_ != nullptr && last_pod_key_.pod == pod && last_pod_key_.uid == uid &&
      last_pod_key_.namespace_name == ns && last_pod_key_.cluster == cluster) {
    return *last_pod_;
  }
  last_pod_key_ = PodKey{std::string(cluster), std::string(ns), std::string(pod), std::string(uid)};
  last_pod_ = &data_.pods[last_pod_key_];
  return *last_pod_;
}

bool KsmReader::OnSample(const SampleView& s, int64_t t_ms, const std::string& source,
                         Diagnostics& diag) {
  if (!s.name.starts_with("kube_")) return false;
  if (const Resolved* known = resolved_.Find(s)) {
    if (ValidQuantity(*known, s, source, diag)) Apply(*known, t_ms, s, source, diag);
    return known->mine;
  }
  Resolved r = Resolve(s, source, diag);
  // Scraped through a pod or service without honor_labels, a series' own namespace, pod,
  // container and node are renamed exported_*, and the plain ones name kube-state-metrics' pod
  // (which was then charged for every GPU): the exported_* ones are read (ExporterLabel).
  if (!ExporterLabel(s, "pod").empty() && ExporterLabel(s, "pod") != LabelValue(s, "pod")) {
    diag.Warn("ksm-exported-labels", source, s,
              StrCat(s.name, " carries exported_pod=\"", ExporterLabel(s, "pod"),
                     "\": kube-state-metrics was scraped without honor_labels; its exported_* "
                     "labels are read as the objects' (set honor_labels: true on that job)"));
  }
  if (ValidQuantity(r, s, source, diag)) Apply(r, t_ms, s, source, diag);
  const bool mine = r.mine;
  if (r.remember && resolved_.Worth(s)) resolved_.Remember(s, std::move(r));
  return mine;
}

bool KsmReader::ValidQuantity(const Resolved& r, const SampleView& s, const std::string& source,
                              Diagnostics& diag) {
  if (!r.quantity || (s.value >= 0 && s.value <= r.max_value)) return true;
  // NaN, infinite or negative: no amount of a device, nor a phase's 0 or 1. The sample is
  // skipped, so the series' neighbouring samples stand for its time as for any missed scrape.
  if (r.what == Resolved::Do::kNode) {
    diag.Warn(StrCat("bad-quantity:", s.name), source, s,
              StrCat(s.name, " of node ", ExporterLabel(s, "node"), " (", LabelValue(s, "resource"),
                     ") is ", s.value,
                     s.value > r.max_value
                         ? StrCat(", more devices than a node has (at most ", r.max_value, ")")
                         : std::string(", not a device count"),
                     "; sample skipped"));
  } else {
    diag.Warn(r.flag ? StrCat("bad-flag:", s.name) : std::string("bad-quantity"), source, s,
              StrCat(s.name, " of pod ", ExporterLabel(s, "namespace"), "/",
                     ExporterLabel(s, "pod"), " is ", s.value,
                     r.flag ? ", not 0 or 1" : ", not a device count", "; sample skipped"));
  }
  return false;
}

void KsmReader::Apply(const Resolved& r, int64_t t_ms, const SampleView& s,
                      const std::string& source, Diagnostics& diag) {
  const double value = s.value;
  switch (r.what) {
    case Resolved::Do::kNothing:
      return;
    case Resolved::Do::kPresence:
      conflicts_.OnAdd(r.series, r.series->Add(t_ms, value), s, t_ms, value, source, diag);
      return;
    case Resolved::Do::kPodLabels:
      MergeLatest(r.pod->labels, r.pod->labels_t, r.labels, t_ms);
      return;
    case Resolved::Do::kNode:
      break;
  }
  KsmNode& node = *r.node;
  node.seen.Add(t_ms, 1);
  switch (r.family) {
    case Resolved::NodeFamily::kOther:
      return;
    case Resolved::NodeFamily::kLabels:
      MergeLatest(node.labels, node.labels_t, r.labels, t_ms);
      return;
    case Resolved::NodeFamily::kInfo:
      // The latest non-empty provider ID: "aws:///us-east-1a/i-0abc", "gce://project/zone/name".
      if (!r.provider_id.empty() && t_ms >= node.provider_id_t) {
        node.provider_id_t = t_ms;
        if (node.provider_id != r.provider_id) node.provider_id = r.provider_id;
      }
      return;
    case Resolved::NodeFamily::kCapacity:
      if (r.capacity != nullptr && t_ms >= *r.capacity_t) {
        // The latest instant's capacity again with another value, in whatever order it came:
        // the first one stays, as Prometheus keeps it.
        if (t_ms == *r.capacity_t && !SameSampleValue(*r.capacity, value)) {
          conflicts_.OnAdd(r.capacity, Added{Added::kConflict, *r.capacity}, s, t_ms, value, source,
                           diag);
          return;
        }
        // One capacity stands for the whole window (the latest): a change is said, with the
        // node, the resource and both values, rather than silently rebilling the earlier time.
        if (t_ms > *r.capacity_t && *r.capacity_t != INT64_MIN &&
            !SameSampleValue(*r.capacity, value)) {
          diag.Warn(StrCat("capacity-change:", Cluster(s), "/", ExporterLabel(s, "node"), "/",
                           LabelValue(s, "resource")),
                    source, s,
                    StrCat("node ", ExporterLabel(s, "node"), ": ", LabelValue(s, "resource"),
                           " capacity changed from ", *r.capacity, " to ", value,
                           "; the node's latest capacity stands for the whole window"));
        }
        *r.capacity_t = t_ms;
        *r.capacity = value;
      }
      return;
  }
}

// Whether a pod's series names its pod (else it is not read: nothing to hold anything) and its
// namespace (else its pod holds under no namespace); both said, with the series.
bool KsmReader::Identified(const SampleView& s, const std::string& source, Diagnostics& diag) {
  if (ExporterLabel(s, "pod").empty()) {
    diag.Warn(StrCat("no-identity:", s.name, ":pod"), source, s,
              StrCat(s.name, " has no pod label: not read (", SeriesText(s), ")"));
    return false;
  }
  if (ExporterLabel(s, "namespace").empty()) {
    diag.Warn(StrCat("no-identity:", s.name, ":namespace"), source, s,
              StrCat(s.name, " has no namespace label: its pod ", ExporterLabel(s, "pod"),
                     " holds under no namespace (", SeriesText(s), ")"));
  }
  return true;
}

KsmReader::Resolved KsmReader::Resolve(const SampleView& s, const std::string& source,
                                       Diagnostics& diag) {
  const std::string_view name = s.name;
  Resolved r;
  if (name == "kube_pod_container_resource_requests" ||
      name == "kube_pod_container_resource_limits") {
    if (LabelValue(s, "resource").empty()) {
      diag.Warn(StrCat("no-identity:", name, ":resource"), source, s,
                StrCat(name, " has no resource label: not read (", SeriesText(s), ")"));
      return r;
    }
    const ResourceName rn = device_classes_.Resolve(Cluster(s), LabelValue(s, "resource"));
    if (rn.kind == ResourceKind::kNotGpu) return r;
    if (rn.kind == ResourceKind::kUnknownGpu) {
      diag.Warn(StrCat("unknown-resource:", rn.canonical), source, s,
                StrCat("unknown GPU-like resource \"", rn.canonical, "\" in ", name, "; ignored"));
      r.remember = false;
      return r;
    }
    if (!Identified(s, source, diag)) return r;
    KsmPod& pod = Pod(s);
    const bool limits = name == "kube_pod_container_resource_limits";
    r.what = Resolved::Do::kPresence;
    r.quantity = true;
    r.series = &pod.resources[ContainerResourceKey{std::string(ExporterLabel(s, "container")),
                                                   rn.canonical, limits}];
    if (const std::string_view node = ExporterLabel(s, "node"); !node.empty()) {
      pod.request_node = std::string(node);
    }
    return r;
  }
  if (name == "kube_pod_status_phase" || name == "kube_pod_info") {
    if (!Identified(s, source, diag)) return r;
    KsmPod& pod = Pod(s);
    r.what = Resolved::Do::kPresence;
    r.series = name == "kube_pod_info" ? &pod.info_by_node[std::string(ExporterLabel(s, "node"))]
                                       : &pod.phases[LabelString(s, "phase")];
    r.quantity = r.flag = true;
    r.max_value = 1;
    return r;
  }
  if (name == "kube_pod_owner") {
    if (ExporterLabel(s, "pod").empty()) return r;
    KsmPod& pod = Pod(s);
    OwnerRef o = OwnerOf(s);
    for (const OwnerRef& have : pod.owners) {
      if (have.kind == o.kind && have.name == o.name) return r;
    }
    pod.owners.push_back(std::move(o));
    return r;
  }
  if (name == "kube_pod_labels") {
    if (ExporterLabel(s, "pod").empty()) return r;
    r.what = Resolved::Do::kPodLabels;
    r.pod = &Pod(s);
    r.labels = PrefixedLabels(s);
    return r;
  }
  if (name == "kube_pod_container_info") {
    // One series per container and scrape: only the first sight of an id builds anything.
    const std::string_view id = ContainerIdWithoutRuntime(LabelValue(s, "container_id"));
    if (id.empty() || ExporterLabel(s, "pod").empty() || data_.containers.contains(id)) return r;
    data_.containers.emplace(
        std::string(id), KsmContainer{Cluster(s), std::string(ExporterLabel(s, "namespace")),
                                      std::string(ExporterLabel(s, "pod")), LabelString(s, "uid"),
                                      std::string(ExporterLabel(s, "container"))});
    return r;
  }
  if (name == "kube_replicaset_owner") {
    data_.replicaset_owners[{Cluster(s), std::string(ExporterLabel(s, "namespace"))}]
                           [LabelString(s, "replicaset")] = OwnerOf(s);
    return r;
  }
  if (name == "kube_job_owner") {
    data_.job_owners[{Cluster(s), std::string(ExporterLabel(s, "namespace"))}]
                    [LabelString(s, "job_name")] = OwnerOf(s);
    return r;
  }
  if (name == "kube_namespace_labels") {
    auto& labels = data_.namespace_labels[{Cluster(s), std::string(ExporterLabel(s, "namespace"))}];
    for (auto& [k, v] : PrefixedLabels(s)) labels[k] = std::move(v);
    return r;
  }
  if (name.starts_with("kube_node_")) {
    ResolveNode(s, r);
    return r;
  }
  r.mine = false;
  return r;
}

void KsmReader::ResolveNode(const SampleView& s, Resolved& r) {
  const std::string_view node_name = ExporterLabel(s, "node");
  if (node_name.empty()) return;
  r.what = Resolved::Do::kNode;
  r.node = &data_.nodes[{Cluster(s), std::string(node_name)}];
  if (s.name == "kube_node_labels") {
    r.family = Resolved::NodeFamily::kLabels;
    r.labels = PrefixedLabels(s);
  } else if (s.name == "kube_node_info") {
    r.family = Resolved::NodeFamily::kInfo;
    r.provider_id = std::string(LabelValue(s, "provider_id"));
  } else if (s.name == "kube_node_status_capacity") {
    r.family = Resolved::NodeFamily::kCapacity;
    const ResourceName rn = CanonicalResourceName(LabelValue(s, "resource"));
    if (rn.kind != ResourceKind::kNotGpu) {
      r.capacity_t = &r.node->capacity_t.try_emplace(rn.canonical, INT64_MIN).first->second;
      r.capacity = &r.node->capacity[rn.canonical];
      r.quantity = true;
      // Device counts (GPUs, their replicas, partitions): a bound far above any node, so that
      // a corrupt value cannot ask for billions of units. HAMi's amounts (MiB, percent) have none.
      if (rn.IsDevice()) r.max_value = kMaxNodeDevices;
    }
  }
}

void KsmReader::Finish(Diagnostics& diag) {
  for (auto& [key, pod] : data_.pods) {
    for (auto* m : {&pod.phases, &pod.info_by_node}) {
      for (auto& [k, series] : *m) conflicts_.OnFinish(&series, series.Finish(), diag);
    }
    for (auto& [res, series] : pod.resources) conflicts_.OnFinish(&series, series.Finish(), diag);
  }
  for (auto& [key, node] : data_.nodes) node.seen.Finish();  // 1 at every sample: no conflicts
}

}  // namespace gpucost
