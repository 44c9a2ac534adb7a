// Workload identity and labels for holders: resolves a pod's owner chain (ReplicaSet ->
// Deployment, Job -> CronJob, StatefulSet, DaemonSet, bare pod), picks its team from a label
// chain, and maps kube-state-metrics label keys ("label_app_kubernetes_io_name") back to the
// Kubernetes keys ("app.kubernetes.io/name") where the original is known. Thread-safe after
// construction.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpucost {

struct OwnerRef {
  std::string kind;
  std::string name;
  bool controller = false;
};

struct WorkloadIdentity {
  std::string workload;
  std::string kind;  // Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, Pod, or the
                     // owner's own kind for other controllers
  friend bool operator==(const WorkloadIdentity&, const WorkloadIdentity&) = default;
};

// Owners of ReplicaSets and Jobs in one namespace, by ReplicaSet / Job name.
struct OwnerTables {
  const std::map<std::string, OwnerRef>* replicaset_owners = nullptr;
  const std::map<std::string, OwnerRef>* job_owners = nullptr;
};

// The controlling owner wins over others. A ReplicaSet with no kube_replicaset_owner series is
// taken as a Deployment's when `infer_deployment` holds and its name ends in a pod-template hash
// ("web-7d4b9c8f6d" -> Deployment "web"); with an owner series naming no owner it stays a
// ReplicaSet. No owner: the pod itself, kind "Pod".
WorkloadIdentity ResolveWorkload(std::string_view pod, const std::vector<OwnerRef>& pod_owners,
                                 const OwnerTables& tables, bool infer_deployment);

// kube-state-metrics' spelling of a label key, without the "label_" prefix: [^a-zA-Z0-9_] -> '_',
// then '_' between a lower-case letter or digit and an upper-case letter, then lower case
// ("app.kubernetes.io/name" -> "app_kubernetes_io_name", "teamName" -> "team_name").
std::string KsmLabelKey(std::string_view key);

// Restores original keys from KSM keys for a list of known originals (well-known Kubernetes, GFD
// and cloud keys plus the caller's). Unknown keys are kept as KSM wrote them.
class LabelKeyRestorer {
 public:
  explicit LabelKeyRestorer(const std::vector<std::string>& extra_known_keys = {});
  std::string Restore(std::string_view ksm_key) const;

 private:
  std::unordered_map<std::string, std::string> originals_;  // KSM key -> original
};

// One step of the team chain: a label of the pod or of its namespace.
struct TeamSource {
  enum class Scope : uint8_t { kPod, kNamespace } scope = Scope::kPod;
  std::string key;  // original or KSM spelling; compared in KSM spelling
};

// "pod:team" / "namespace:team" (a bare key means pod). Unknown scope: false.
bool ParseTeamSource(std::string_view text, TeamSource& out);

// The first chain entry with a non-empty value, else the namespace name. Label maps are keyed in
// KSM spelling (no "label_" prefix).
std::string ResolveTeam(const std::vector<TeamSource>& chain,
                        const std::map<std::string, std::string>& pod_labels,
                        const std::map<std::string, std::string>& namespace_labels,
                        std::string_view namespace_name);

}  // namespace gpucost
