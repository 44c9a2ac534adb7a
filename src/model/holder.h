// Holders (containers and Slurm jobs) and holdings: which holder holds what capacity on which
// node, and when (DESIGN.md "Holders" and "Share"). Plain value types.
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "model/capacity.h"

namespace gpucost {

enum class HolderKind : uint8_t { kContainer, kSlurmJob };

struct Holder {
  HolderKind kind = HolderKind::kContainer;
  std::string cluster;
  std::string namespace_name;  // Slurm: account
  std::string pod;             // Slurm: job id
  std::string container;       // Slurm: ""
  std::string pod_uid;
  std::string workload;        // top controller name, or the pod name for a bare pod
  std::string workload_kind;   // Deployment, StatefulSet, DaemonSet, Job, CronJob, Pod, SlurmJob
  std::string team;
  LabelSet labels;             // allow-listed pod labels (namespace labels fill gaps), dotted keys
  // Slurm: the job's billing TRES per GPU-equivalent hour it holds (billing / the job's GPU
  // equivalents), so that a record's billing units are its gpu_hours times this. NaN: none.
  double billing_per_gpu_hour = NAN;
};

// The resource by which a container's use of ResourceClaim `claim` (of its pod's namespace) is
// spelled among its GPU resources: "resource.k8s.io/claim/<claim>".
inline constexpr std::string_view kDraClaimPrefix = "resource.k8s.io/claim/";

// What a holding asks for when no device assignment is known.
struct Request {
  // Canonical (unsanitized) resource name: "nvidia.com/gpu", "nvidia.com/mig-1g.5gb",
  // "nvidia.com/gpu.shared", "amd.com/gpu".
  std::string resource;
  double count = 0;  // devices requested
  // HAMi: percent of one GPU's compute (nvidia.com/gpucores) and memory
  // (nvidia.com/gpumem-percentage, or nvidia.com/gpumem in MiB); < 0 when not set.
  double hami_cores_percent = -1;
  double hami_mem_percent = -1;
  double hami_mem_mib = -1;
};

struct Holding {
  HolderIndex holder = kNoIndex;
  NodeIndex node = kNoIndex;
  Interval interval;
  std::vector<UnitIndex> units;  // exact device assignment when known; else empty
  Request request;               // used when `units` is empty
  // The part of each of `units` this holding holds: 1 for a device of its own; less for a device
  // several holders share by design (a Kubernetes DRA claim reserved for several pods, or a share
  // of a device's consumable capacity; docs/k8s.md "Dynamic Resource Allocation").
  double unit_share = 1.0;
};

// A Kubeflow or Jupyter notebook, as every command tells one (the alert rules, recommend, whatif):
// the pod label `notebook-name` (Kubeflow's notebook controller sets it; `notebook_name` as
// kube-state-metrics sanitizes it), `component=singleuser-server` (JupyterHub), "notebook" or
// "jupyter" in the workload or pod name or in `app.kubernetes.io/name`, or a container named
// `notebook` or `jupyter…`, all in any case.
bool IsNotebook(const Holder& holder);

// What names a holder across inventories, sources and time (the ledger's key): kind, cluster,
// namespace, pod, container and pod UID.
std::string HolderIdentity(const Holder& holder);

}  // namespace gpucost
