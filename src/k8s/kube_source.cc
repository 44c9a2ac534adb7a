#include "k8s/kube_source.h"

#include <algorithm>

#include "core/redact.h"
#include "core/strings.h"

namespace gpucost::k8s {
namespace {

LabelFilter PodLabels(const KubeSourceOptions& o) {
  return PodLabelFilter(o.label_allowlist, o.team_label_keys, o.annotation_allowlist);
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
          {"/apis/resource.k8s.io/v1/deviceclasses", "deviceclasses", true},
          {"/api/v1/pods", "pods"}};
}

KubeSource::KubeSource(KubeConnection connection, KubeSourceOptions options, const Clock& clock,
                       CommandRunner runner)
    : options_(std::move(options)),
      clock_(clock),
      credentials_(connection, clock, std::move(runner)),
      client_(std::move(connection), credentials_, options_.client),
      // Only GPU pods and allocated claims are kept (KeepsPod, KeepsClaim).
      pods_(&DecodePod, PodLabels(options_), &KeepsPod),
      nodes_(&DecodeNode, LabelFilter{}),
      namespaces_(&DecodePlain, PodLabels(options_)),
      replicasets_(&DecodePlain, LabelFilter::None()),
      jobs_(&DecodePlain, LabelFilter::None()),
      cronjobs_(&DecodePlain, LabelFilter::None()),
      statefulsets_(&DecodePlain, LabelFilter::None()),
      daemonsets_(&DecodePlain, LabelFilter::None()),
      resourceslices_(&DecodeResourceSlice, LabelFilter::None()),
      resourceclaims_(&DecodeResourceClaim, LabelFilter::None(), &KeepsClaim),
      deviceclasses_(&DecodeDeviceClass, LabelFilter::None()) {
  pods_.OnDelete([](PodObject& p, Instant at) {
    if (!p.finished || *p.finished > at) p.finished = at;
    if (!p.removed) p.removed = at;
    return true;  // kept until the retention passes (Snapshot prunes)
  });
  ObjectStore* stores[] = {&nodes_,          &namespaces_,    &replicasets_, &jobs_,
                           &cronjobs_,       &statefulsets_,  &daemonsets_,  &resourceslices_,
                           &resourceclaims_, &deviceclasses_, &pods_};
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
  const Instant now = clock_.Now();
  const Instant forget_before = now - options_.deleted_pod_retention;
  const_cast<TypedStore<PodObject>&>(pods_).Prune(
      [&](const PodObject& p) { return p.removed && *p.removed < forget_before; });
  // Copies: the watch may replace a store's objects once its lock is released.
  KubeObjects objects;
  pods_.ForEach([&](const PodObject& p) { objects.pods.push_back(p); });
  nodes_.ForEach([&](const NodeObject& n) { objects.nodes.push_back(n); });
  namespaces_.ForEach([&](const PlainObject& n) { objects.namespaces.push_back(n); });
  replicasets_.ForEach([&](const PlainObject& o) { objects.replicasets.push_back(o); });
  jobs_.ForEach([&](const PlainObject& o) { objects.jobs.push_back(o); });
  resourceslices_.ForEach(
      [&](const ResourceSliceObject& o) { objects.resourceslices.push_back(o); });
  resourceclaims_.ForEach(
      [&](const ResourceClaimObject& c) { objects.resourceclaims.push_back(c); });
  deviceclasses_.ForEach([&](const DeviceClassObject& d) { objects.deviceclasses.push_back(d); });
  return AssembleKubeState(objects, options_.cluster, now);
}

KubeSourceStats KubeSource::stats() const {
  KubeSourceStats st;
  for (const auto& inf : informers_) st.informers.emplace_back(inf->type().name, inf->stats());
  st.gpu_pods = pods_.size();
  st.nodes = nodes_.size();
  const ObjectStore* stores[] = {&pods_,           &nodes_,          &namespaces_,   &replicasets_,
                                 &jobs_,           &cronjobs_,       &statefulsets_, &daemonsets_,
                                 &resourceslices_, &resourceclaims_, &deviceclasses_};
  for (const ObjectStore* st_ : stores) {
    st.decode_errors += st_->decode_errors();
    if (st_->decode_errors() > 0) st.last_decode_error = st_->last_error();
  }
  return st;
}

}  // namespace gpucost::k8s
