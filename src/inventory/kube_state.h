// KubeState: what the Kubernetes API says about one cluster at one moment (pods with their GPU
// requests, schedule and owners; nodes with labels and capacity; namespace labels; ReplicaSet and
// Job owners), in the inventory's terms. The Kubernetes API source (src/k8s) fills it; the
// inventory builder merges it with kube-state-metrics series (docs/k8s.md "Merging with
// kube-state-metrics"). Plain value types.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/time.h"
#include "inventory/workload_identity.h"
#include "model/capacity.h"

namespace gpucost {

// One GPU resource of one container, as its spec asks (requests, or limits where the request is
// absent: Kubernetes defaults an extended resource's request to its limit).
struct KubeContainerResource {
  std::string container;
  std::string resource;  // as the API spells it: "nvidia.com/mig-1g.5gb"
  double quantity = 0;
  bool from_limits = false;
};

struct KubePod {
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string node;   // spec.nodeName; "" while unscheduled
  std::string phase;  // Pending, Running, Succeeded, Failed, Unknown
  std::map<std::string, std::string> labels;  // original keys
  std::vector<OwnerRef> owners;
  std::vector<KubeContainerResource> resources;  // GPU resources only
  std::vector<std::string> container_ids;  // "containerd://<id>" per container status
  std::vector<std::string> container_names;  // same order as container_ids
  // Scheduled and not terminated, as far as the API tells: from PodScheduled (else startTime,
  // else creation) to the last container's finish (Succeeded/Failed) or `observed_at`.
  std::vector<Interval> active;
};

struct KubeNode {
  std::string name;
  std::map<std::string, std::string> labels;   // original keys
  std::map<std::string, double> capacity;      // GPU resources of status.capacity
  std::string provider_id;                     // spec.providerID
  std::vector<Interval> present;               // creation to `observed_at`
};

struct KubeState {
  std::string cluster;  // "" : the builder's default cluster
  Instant observed_at;
  std::vector<KubePod> pods;
  std::vector<KubeNode> nodes;
  std::map<std::string, std::map<std::string, std::string>> namespace_labels;  // ns -> labels
  // namespace -> ReplicaSet / Job name -> its controlling owner (kind "" when it has none).
  std::map<std::string, std::map<std::string, OwnerRef>> replicaset_owners;
  std::map<std::string, std::map<std::string, OwnerRef>> job_owners;
};

}  // namespace gpucost
