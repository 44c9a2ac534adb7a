#include "inventory/ksm_reader.h"

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

void MergeLatest(std::map<std::string, std::string>& labels, int64_t& labels_t,
                 std::map<std::string, std::string> fresh, int64_t t_ms) {
  if (t_ms > labels_t) {
    labels = std::move(fresh);
    labels_t = t_ms;
  } else if (t_ms == labels_t) {
    for (auto& [k, v] : fresh) labels[k] = std::move(v);
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
  const std::string_view ns = LabelValue(s, "namespace");
  const std::string_view pod = LabelValue(s, "pod");
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
  const std::string_view name = s.name;
  if (!name.starts_with("kube_")) return false;
  if (name == "kube_pod_container_resource_requests" ||
      name == "kube_pod_container_resource_limits") {
    const ResourceName r = CanonicalResourceName(LabelValue(s, "resource"));
    if (r.kind == ResourceKind::kNotGpu) return true;
    if (r.kind == ResourceKind::kUnknownGpu) {
      diag.Warn(StrCat("unknown-resource:", r.canonical), source, s.line,
                StrCat("unknown GPU-like resource \"", r.canonical, "\" in ", name, "; ignored"));
      return true;
    }
    if (LabelValue(s, "pod").empty()) return true;
    KsmPod& pod = Pod(s);
    const bool limits = name == "kube_pod_container_resource_limits";
    pod.resources[ContainerResourceKey{LabelString(s, "container"), r.canonical, limits}].Add(
        t_ms, s.value);
    if (const std::string_view node = LabelValue(s, "node"); !node.empty()) {
      pod.request_node = std::string(node);
    }
    return true;
  }
  if (name == "kube_pod_status_phase") {
    if (LabelValue(s, "pod").empty()) return true;
    Pod(s).phases[LabelString(s, "phase")].Add(t_ms, s.value);
    return true;
  }
  if (name == "kube_pod_info") {
    if (LabelValue(s, "pod").empty()) return true;
    Pod(s).info_by_node[LabelString(s, "node")].Add(t_ms, s.value);
    return true;
  }
  if (name == "kube_pod_owner") {
    if (LabelValue(s, "pod").empty()) return true;
    KsmPod& pod = Pod(s);
    OwnerRef o = OwnerOf(s);
    for (const OwnerRef& have : pod.owners) {
      if (have.kind == o.kind && have.name == o.name) return true;
    }
    pod.owners.push_back(std::move(o));
    return true;
  }
  if (name == "kube_pod_labels") {
    if (LabelValue(s, "pod").empty()) return true;
    KsmPod& pod = Pod(s);
    MergeLatest(pod.labels, pod.labels_t, PrefixedLabels(s), t_ms);
    return true;
  }
  if (name == "kube_pod_container_info") {
    // One series per container and scrape: only the first sight of an id builds anything.
    const std::string_view id = ContainerIdWithoutRuntime(LabelValue(s, "container_id"));
    if (id.empty() || LabelValue(s, "pod").empty() || data_.containers.contains(id)) return true;
    data_.containers.emplace(std::string(id),
                             KsmContainer{Cluster(s), LabelString(s, "namespace"),
                                          LabelString(s, "pod"), LabelString(s, "uid"),
                                          LabelString(s, "container")});
    return true;
  }
  if (name == "kube_replicaset_owner") {
    data_.replicaset_owners[{Cluster(s), LabelString(s, "namespace")}]
                           [LabelString(s, "replicaset")] = OwnerOf(s);
    return true;
  }
  if (name == "kube_job_owner") {
    data_.job_owners[{Cluster(s), LabelString(s, "namespace")}][LabelString(s, "job_name")] =
        OwnerOf(s);
    return true;
  }
  if (name == "kube_namespace_labels") {
    auto& labels = data_.namespace_labels[{Cluster(s), LabelString(s, "namespace")}];
    for (auto& [k, v] : PrefixedLabels(s)) labels[k] = std::move(v);
    return true;
  }
  if (name.starts_with("kube_node_")) {
    const std::string_view node_name = LabelValue(s, "node");
    if (node_name.empty()) return true;
    KsmNode& node = data_.nodes[{Cluster(s), std::string(node_name)}];
    node.seen.Add(t_ms, 1);
    if (name == "kube_node_labels") {
      MergeLatest(node.labels, node.labels_t, PrefixedLabels(s), t_ms);
    } else if (name == "kube_node_info") {
      // The latest non-empty provider ID: "aws:///us-east-1a/i-0abc", "gce://project/zone/name".
      const std::string_view provider_id = LabelValue(s, "provider_id");
      if (!provider_id.empty() && t_ms >= node.provider_id_t) {
        node.provider_id_t = t_ms;
        node.provider_id = std::string(provider_id);
      }
    } else if (name == "kube_node_status_capacity") {
      const ResourceName r = CanonicalResourceName(LabelValue(s, "resource"));
      if (r.kind != ResourceKind::kNotGpu) {
        int64_t& last = node.capacity_t.try_emplace(r.canonical, INT64_MIN).first->second;
        if (t_ms >= last) {
          last = t_ms;
          node.capacity[r.canonical] = s.value;
        }
      }
    }
    return true;
  }
  return false;
}

void KsmReader::Finish() {
  for (auto& [key, pod] : data_.pods) {
    for (auto& [phase, series] : pod.phases) series.Finish();
    for (auto& [node, series] : pod.info_by_node) series.Finish();
    for (auto& [res, series] : pod.resources) series.Finish();
  }
  for (auto& [key, node] : data_.nodes) node.seen.Finish();
}

}  // namespace gpucost
