// KubeSource: gpucost's view of one cluster through the Kubernetes API. It owns the client and one
// informer (with its store) per kind gpucost reads: pods (GPU pods only: extended resources or
// DRA claims), nodes, namespaces, replicasets, jobs, cronjobs, statefulsets, daemonsets, and
// Dynamic Resource Allocation's resourceslices, resourceclaims and deviceclasses where the cluster
// serves them. List() reads everything once (batch reports); Start() keeps the stores current from
// watches on background threads (the server). Snapshot() turns the stores into the inventory's
// KubeState at the clock's "now": owners resolved through the ReplicaSet and Job stores, labels
// through the allow-list, by kube_snapshot.h's AssembleKubeState (which object files share).
// Thread-safe.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "inventory/kube_state.h"
#include "k8s/api_client.h"
#include "k8s/credentials.h"
#include "k8s/dra_objects.h"
#include "k8s/informer.h"
#include "k8s/kube_config.h"
#include "k8s/kube_snapshot.h"
#include "k8s/object_store.h"

namespace gpucost::k8s {

struct KubeSourceOptions {
  std::string cluster;  // the cluster label the inventory gives this cluster ("" : default)
  // Pod and namespace labels kept (original keys); empty: all. The team chain's keys are kept
  // whatever this says.
  std::vector<std::string> label_allowlist;
  std::vector<std::string> team_label_keys;
  // Pod and namespace annotations kept beside the labels (the label:KEY dimension); none by
  // default.
  std::vector<std::string> annotation_allowlist;
  InformerOptions informer;
  ClientOptions client;
  // How long a deleted GPU pod stays in the store (with its deletion as its end), so that the
  // next attribution still sees the pod's last minutes.
  Duration deleted_pod_retention = std::chrono::hours(1);
};

struct KubeSourceStats {
  std::vector<std::pair<std::string, InformerStats>> informers;  // by resource name
  size_t gpu_pods = 0;
  size_t nodes = 0;
  uint64_t decode_errors = 0;
  std::string last_decode_error;
};

class KubeSource {
 public:
  // `connection` as ResolveConnection gives it. Credentials are fetched lazily.
  KubeSource(KubeConnection connection, KubeSourceOptions options, const Clock& clock,
             CommandRunner runner = nullptr);
  ~KubeSource();
  KubeSource(const KubeSource&) = delete;
  KubeSource& operator=(const KubeSource&) = delete;

  // Lists every kind once. Errors name the resource and carry the server's message.
  Status List();
  // Starts one watching thread per kind; Stop() (or the destructor) ends them.
  void Start();
  void Stop();
  bool WaitForSync(Duration timeout);

  KubeState Snapshot() const;
  KubeSourceStats stats() const;

 private:
  KubeSourceOptions options_;
  const Clock& clock_;
  CredentialSource credentials_;
  ApiClient client_;
  TypedStore<PodObject> pods_;
  TypedStore<NodeObject> nodes_;
  TypedStore<PlainObject> namespaces_, replicasets_, jobs_, cronjobs_, statefulsets_, daemonsets_;
  TypedStore<ResourceSliceObject> resourceslices_;
  TypedStore<ResourceClaimObject> resourceclaims_;
  TypedStore<DeviceClassObject> deviceclasses_;
  std::vector<std::unique_ptr<Informer>> informers_;
  std::vector<std::thread> threads_;
};

// The resources a KubeSource reads, in the order it lists them.
std::vector<ResourceType> KubeResources();

}  // namespace gpucost::k8s
