// The one assembly of a KubeState from decoded Kubernetes objects, shared by the live API source
// (KubeSource::Snapshot) and the offline object files (kube_object_files.h), so the same objects
// give the same state whichever way they were read: which objects count (GPU pods, allocated
// claims), which labels are kept, owners through ReplicaSets and Jobs, DRA devices of each pool's
// latest generation. Stateless functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "core/time.h"
#include "inventory/kube_state.h"
#include "k8s/dra_objects.h"
#include "k8s/objects.h"

namespace gpucost::k8s {

// The objects of one cluster as decoded, in any order.
struct KubeObjects {
  std::vector<PodObject> pods;
  std::vector<NodeObject> nodes;
  std::vector<PlainObject> namespaces;
  std::vector<PlainObject> replicasets;
  std::vector<PlainObject> jobs;
  std::vector<ResourceSliceObject> resourceslices;
  std::vector<ResourceClaimObject> resourceclaims;
  std::vector<DeviceClassObject> deviceclasses;
};

// Which decoded objects are kept: pods that hold GPUs (a pod's extended resources and claims
// cannot change, so a pod that asks for no GPU never will) and allocated claims (what pods hold).
bool KeepsPod(const PodObject& pod);
bool KeepsClaim(const ResourceClaimObject& claim);

// Pod and namespace labels kept: `label_allowlist` (empty: all) plus the team chain's keys, and
// the annotations of `annotation_allowlist`.
LabelFilter PodLabelFilter(const std::vector<std::string>& label_allowlist,
                           const std::vector<std::string>& team_label_keys,
                           const std::vector<std::string>& annotation_allowlist);

// The inventory's KubeState at `observed_at`: pods and nodes sorted by name, owners resolved to
// each ReplicaSet's and Job's controller, the devices of each pool's latest slices, the claims'
// allocations (slices and claims in name order, so the state does not depend on read order).
KubeState AssembleKubeState(const KubeObjects& objects, const std::string& cluster,
                            Instant observed_at);

}  // namespace gpucost::k8s
