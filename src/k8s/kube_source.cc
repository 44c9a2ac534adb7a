#include "k8s/kube_source.h"

#include <algorithm>

#include "core/redact.h"
#include "core/strings.h"

namespace gpucost::k8s {
namespace {

LabelFilter PodLabels(const KubeSourceOptions& o) {
  LabelFilter f;
  f.annotation_keys = o.annotation_allowlist;
  if (o.label_allowlist.empty()) return f;  // all
  f.keys = o.label_allowlist;
  f.keys.insert(f.keys.end(), o.team_label_keys.begin(), o.team_label_keys.end());
  return f;
}

// The controlling owner, else the first; kind "" when there is none.
OwnerRef ControllerOf(const ObjectMeta& m) {
  for (const OwnerRef& o : m.owners) {
    if (o.controller) return o;
  }
  return m.owners.empty() ? OwnerRef{} : m.owners.front();
}

}  // namespace

std::vector<ResourceType> KubeResources() {
  return {{"/api/v1/nodes", "nodes"},
          {"/api/v1/namespaces", "namespaces"},
          {"/apis/apps/v1/replicasets", "replicasets"},
          {"/apis/batch/v1/jobs", "jobs"},
          {"/apis/batch/v1/cronjobs", "cronjobs"},
          {"/apis/apps/v1/statefulsets", "statefulsets"},
          {"/apis/apps/v1/daemonsets", "daemonsets"},
          // Dynamic Resource Allocation (GA in Kubernetes 1.34); optional: an older cluster does
          // not serve it.
          {"/apis/resource.k8s.io/v1/resourceslices", "resourceslices", true},
          {"/apis/resource.k8s.io/v1/resourceclaims", "resourceclaims", true},
          {"/api/v1/pods", "pods"}};
}

KubeSource::KubeSource(KubeConnection connection, KubeSourceOptions options, const Clock& clock,
                       CommandRunner runner)
    : options_(std::move(options)),
      clock_(clock),
      credentials_(connection, clock, std::move(runner)),
      client_(std::move(connection), credentials_, options_.client),
      // Only GPU pods are kept: a pod's extended resources cannot change, so a pod that asks for
      // no GPU never will.
      pods_(&DecodePod, PodLabels(options_), [](const PodObject& p) { return p.HoldsGpus(); }),
      nodes_(&DecodeNode, LabelFilter{}),
      namespaces_(&DecodePlain, PodLabels(options_)),
      replicasets_(&DecodePlain, LabelFilter::None()),
      jobs_(&DecodePlain, LabelFilter::None()),
      cronjobs_(&DecodePlain, LabelFilter::None()),
      statefulsets_(&DecodePlain, LabelFilter::None()),
      daemonsets_(&DecodePlain, LabelFilter::None()),
      resourceslices_(&DecodeResourceSlice, LabelFilter::None()),
      // Only allocated claims: they are what pods hold.
      resourceclaims_(&DecodeResourceClaim, LabelFilter::None(),
                      [](const ResourceClaimObject& c) { return !c.allocations.empty(); }) {
  pods_.OnDelete([](PodObject& p, Instant at) {
    if (!p.finished || *p.finished > at) p.finished = at;
    if (!p.removed) p.removed = at;
    return true;  // kept until the retention passes (Snapshot prunes)
  });
  ObjectStore* stores[] = {&nodes_,          &namespaces_,   &replicasets_, &jobs_,
                           &cronjobs_,       &statefulsets_, &daemonsets_,  &resourceslices_,
                           &resourceclaims_, &pods_};
  const auto types = KubeResources();
  for (size_t i = 0; i < types.size(); ++i) {
    informers_.push_back(
        std::make_unique<Informer>(client_, types[i], *stores[i], clock_, options_.informer));
  }
}

KubeSource::~KubeSource() { Stop(); }

Status KubeSource::List() {
  for (auto& inf : informers_) {
    Status s = inf->ListOnce();
    if (!s.ok()) {
      return s.WithContext(StrCat("Kubernetes API ", RedactUri(client_.connection().server)));
    }
  }
  return Status::Ok();
}

void KubeSource::Start() {
  if (!threads_.empty()) return;
  for (auto& inf : informers_) {
    Informer* p = inf.get();
    threads_.emplace_back([p] { p->Run(); });
  }
}

void KubeSource::Stop() {
  for (auto& inf : informers_) inf->Stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

bool KubeSource::WaitForSync(Duration timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (auto& inf : informers_) {
    const auto left = std::chrono::duration_cast<Duration>(deadline - std::chrono::steady_clock::now());
    if (!inf->WaitForSync(std::max(left, Duration(0)))) return false;
  }
  return true;
}

KubeState KubeSource::Snapshot() const {
  KubeState s;
  s.cluster = options_.cluster;
  s.observed_at = clock_.Now();
  const Instant forget_before = s.observed_at - options_.deleted_pod_retention;
  const_cast<TypedStore<PodObject>&>(pods_).Prune(
      [&](const PodObject& p) { return p.removed && *p.removed < forget_before; });
  pods_.ForEach([&](const PodObject& p) { s.pods.push_back(ToKubePod(p, s.observed_at)); });
  nodes_.ForEach([&](const NodeObject& n) { s.nodes.push_back(ToKubeNode(n, s.observed_at)); });
  namespaces_.ForEach([&](const PlainObject& n) {
    s.namespace_labels[n.meta.name] = n.meta.LabelsAndAnnotations();
  });
  replicasets_.ForEach([&](const PlainObject& o) {
    s.replicaset_owners[o.meta.namespace_name][o.meta.name] = ControllerOf(o.meta);
  });
  jobs_.ForEach([&](const PlainObject& o) {
    s.job_owners[o.meta.namespace_name][o.meta.name] = ControllerOf(o.meta);
  });
  // Copies: the watch may replace a store's objects once its lock is released.
  std::vector<ResourceSliceObject> slices;
  resourceslices_.ForEach([&](const ResourceSliceObject& o) { slices.push_back(o); });
  std::vector<const ResourceSliceObject*> slice_ptrs;
  for (const ResourceSliceObject& o : slices) slice_ptrs.push_back(&o);
  s.dra_devices = LatestPoolDevices(slice_ptrs);
  resourceclaims_.ForEach([&](const ResourceClaimObject& c) {
    s.dra_allocations.insert(s.dra_allocations.end(), c.allocations.begin(), c.allocations.end());
  });
  auto by_name = [](const auto& x, const auto& y) {
    return std::tie(x.namespace_name, x.name) < std::tie(y.namespace_name, y.name);
  };
  std::sort(s.pods.begin(), s.pods.end(), by_name);
  std::sort(s.nodes.begin(), s.nodes.end(), [](const KubeNode& x, const KubeNode& y) { return x.name < y.name; });
  return s;
}

KubeSourceStats KubeSource::stats() const {
  KubeSourceStats st;
  for (const auto& inf : informers_) st.informers.emplace_back(inf->type().name, inf->stats());
  st.gpu_pods = pods_.size();
  st.nodes = nodes_.size();
  const ObjectStore* stores[] = {&pods_,           &nodes_,         &namespaces_,   &replicasets_,
                                 &jobs_,           &cronjobs_,      &statefulsets_, &daemonsets_,
                                 &resourceslices_, &resourceclaims_};
  for (const ObjectStore* st_ : stores) {
    st.decode_errors += st_->decode_errors();
    if (st_->decode_errors() > 0) st.last_decode_error = st_->last_error();
  }
  return st;
}

}  // namespace gpucost::k8s
