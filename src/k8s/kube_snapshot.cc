#include "k8s/kube_snapshot.h"

#include <algorithm>
#include <tuple>

namespace gpucost::k8s {
namespace {

// The controlling owner, else the first; kind "" when there is none.
OwnerRef ControllerOf(const ObjectMeta& m) {
  for (const OwnerRef& o : m.owners) {
    if (o.controller) return o;
  }
  return m.owners.empty() ? OwnerRef{} : m.owners.front();
}

bool MetaBefore(const ObjectMeta& x, const ObjectMeta& y) {
  return std::tie(x.namespace_name, x.name) < std::tie(y.namespace_name, y.name);
}

}  // namespace

bool KeepsPod(const PodObject& pod) { return pod.HoldsGpus(); }

bool KeepsClaim(const ResourceClaimObject& claim) { return !claim.allocations.empty(); }

LabelFilter PodLabelFilter(const std::vector<std::string>& label_allowlist,
                           const std::vector<std::string>& team_label_keys,
                           const std::vector<std::string>& annotation_allowlist) {
  LabelFilter f;
  f.annotation_keys = annotation_allowlist;
  if (label_allowlist.empty()) return f;  // all
  f.keys = label_allowlist;
  f.keys.insert(f.keys.end(), team_label_keys.begin(), team_label_keys.end());
  return f;
}

KubeState AssembleKubeState(const KubeObjects& objects, const std::string& cluster,
                            Instant observed_at) {
  KubeState s;
  s.cluster = cluster;
  s.observed_at = observed_at;
  for (const PodObject& p : objects.pods) s.pods.push_back(ToKubePod(p, observed_at));
  for (const NodeObject& n : objects.nodes) s.nodes.push_back(ToKubeNode(n, observed_at));
  for (const PlainObject& n : objects.namespaces) {
    s.namespace_labels[n.meta.name] = n.meta.LabelsAndAnnotations();
  }
  for (const PlainObject& o : objects.replicasets) {
    s.replicaset_owners[o.meta.namespace_name][o.meta.name] = ControllerOf(o.meta);
  }
  for (const PlainObject& o : objects.jobs) {
    s.job_owners[o.meta.namespace_name][o.meta.name] = ControllerOf(o.meta);
  }
  std::vector<const ResourceSliceObject*> slices;
  for (const ResourceSliceObject& o : objects.resourceslices) slices.push_back(&o);
  std::sort(slices.begin(), slices.end(),
            [](const auto* x, const auto* y) { return MetaBefore(x->meta, y->meta); });
  s.dra_devices = LatestPoolDevices(slices);
  std::vector<const ResourceClaimObject*> claims;
  for (const ResourceClaimObject& c : objects.resourceclaims) claims.push_back(&c);
  std::sort(claims.begin(), claims.end(),
            [](const auto* x, const auto* y) { return MetaBefore(x->meta, y->meta); });
  for (const ResourceClaimObject* c : claims) {
    s.dra_allocations.insert(s.dra_allocations.end(), c->allocations.begin(), c->allocations.end());
  }
  for (const DeviceClassObject& d : objects.deviceclasses) s.dra_classes.push_back(d.device_class);
  std::sort(s.dra_classes.begin(), s.dra_classes.end(),
            [](const KubeDeviceClass& x, const KubeDeviceClass& y) { return x.name < y.name; });
  auto by_name = [](const auto& x, const auto& y) {
    return std::tie(x.namespace_name, x.name) < std::tie(y.namespace_name, y.name);
  };
  std::sort(s.pods.begin(), s.pods.end(), by_name);
  std::sort(s.nodes.begin(), s.nodes.end(),
            [](const KubeNode& x, const KubeNode& y) { return x.name < y.name; });
  return s;
}

}  // namespace gpucost::k8s
