#include "inventory/workload_identity.h"

#include <cctype>

namespace gpucost {
namespace {

// Kubernetes' pod-template-hash alphabet (rand.SafeEncodeString): no vowels, no 0/1/3.
bool LooksLikeTemplateHash(std::string_view s) {
  if (s.size() < 5 || s.size() > 10) return false;
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  for (char c : s) {
    if (kAlphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

const OwnerRef* PickOwner(const std::vector<OwnerRef>& owners) {
  const OwnerRef* first = nullptr;
  for (const OwnerRef& o : owners) {
    if (o.kind.empty() || o.name.empty() || o.kind == "<none>") continue;
    if (o.controller) return &o;
    if (first == nullptr) first = &o;
  }
  return first;
}

}  // namespace

WorkloadIdentity ResolveWorkload(std::string_view pod, const std::vector<OwnerRef>& pod_owners,
                                 const OwnerTables& tables, bool infer_deployment) {
  const OwnerRef* owner = PickOwner(pod_owners);
  if (owner == nullptr) return {std::string(pod), "Pod"};
  if (owner->kind == "ReplicaSet") {
    if (tables.replicaset_owners != nullptr) {
      auto it = tables.replicaset_owners->find(owner->name);
      if (it != tables.replicaset_owners->end()) {
        if (!it->second.kind.empty() && !it->second.name.empty() && it->second.kind != "<none>") {
          return {it->second.name, it->second.kind};
        }
        return {owner->name, "ReplicaSet"};
      }
    }
    const size_t dash = owner->name.rfind('-');
    if (infer_deployment && dash != std::string::npos && dash > 0 &&
        LooksLikeTemplateHash(std::string_view(owner->name).substr(dash + 1))) {
      return {owner->name.substr(0, dash), "Deployment"};
    }
    return {owner->name, "ReplicaSet"};
  }
  if (owner->kind == "Job") {
    if (tables.job_owners != nullptr) {
      auto it = tables.job_owners->find(owner->name);
      if (it != tables.job_owners->end() && !it->second.kind.empty() &&
          !it->second.name.empty() && it->second.kind != "<none>") {
        return {it->second.name, it->second.kind};
      }
    }
    return {owner->name, "Job"};
  }
  return {owner->name, owner->kind};
}

std::string KsmLabelKey(std::string_view key) {
  std::string sanitized;
  sanitized.reserve(key.size());
  for (char c : key) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    sanitized.push_back(ok ? c : '_');
  }
  std::string out;
  out.reserve(sanitized.size() + 4);
  for (size_t i = 0; i < sanitized.size(); ++i) {
    const char c = sanitized[i];
    if (i > 0 && std::isupper(static_cast<unsigned char>(c)) != 0) {
      const char p = sanitized[i - 1];
      if (std::islower(static_cast<unsigned char>(p)) != 0 ||
          std::isdigit(static_cast<unsigned char>(p)) != 0) {
        out.push_back('_');
      }
    }
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

LabelKeyRestorer::LabelKeyRestorer(const std::vector<std::string>& extra_known_keys) {
  static const char* const kWellKnown[] = {
      "app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version",
      "app.kubernetes.io/component", "app.kubernetes.io/part-of", "app.kubernetes.io/managed-by",
      "kubernetes.io/hostname", "kubernetes.io/arch", "kubernetes.io/os",
      "node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type",
      "topology.kubernetes.io/zone", "topology.kubernetes.io/region",
      "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
      "karpenter.sh/capacity-type", "karpenter.sh/nodepool", "eks.amazonaws.com/capacityType",
      "eks.amazonaws.com/nodegroup", "cloud.google.com/gke-spot",
      "cloud.google.com/gke-preemptible", "cloud.google.com/gke-accelerator",
      "cloud.google.com/gke-nodepool", "kubernetes.azure.com/scalesetpriority",
      "kubernetes.azure.com/agentpool", "nvidia.com/gpu.product", "nvidia.com/gpu.count",
      "nvidia.com/gpu.replicas", "nvidia.com/gpu.sharing-strategy", "nvidia.com/gpu.memory",
      "nvidia.com/gpu.family", "nvidia.com/gpu.machine", "nvidia.com/gpu.present",
      "nvidia.com/mig.strategy", "nvidia.com/mig.config", "nvidia.com/mig.config.state",
      "nvidia.com/mig.capable", "nvidia.com/mps.capable", "nvidia.com/device-plugin.config",
      "batch.kubernetes.io/job-name", "job-name", "controller-uid", "pod-template-hash",
      "statefulset.kubernetes.io/pod-name", "kueue.x-k8s.io/queue-name"};
  for (const char* k : kWellKnown) originals_[KsmLabelKey(k)] = k;
  for (const std::string& k : extra_known_keys) originals_[KsmLabelKey(k)] = k;
}

std::string LabelKeyRestorer::Restore(std::string_view ksm_key) const {
  auto it = originals_.find(std::string(ksm_key));
  return it == originals_.end() ? std::string(ksm_key) : it->second;
}

bool ParseTeamSource(std::string_view text, TeamSource& out) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    out = {TeamSource::Scope::kPod, std::string(text)};
    return !text.empty();
  }
  const std::string_view scope = text.substr(0, colon);
  out.key = std::string(text.substr(colon + 1));
  if (scope == "pod") out.scope = TeamSource::Scope::kPod;
  else if (scope == "namespace" || scope == "ns") out.scope = TeamSource::Scope::kNamespace;
  else return false;
  return !out.key.empty();
}

std::string ResolveTeam(const std::vector<TeamSource>& chain,
                        const std::map<std::string, std::string>& pod_labels,
                        const std::map<std::string, std::string>& namespace_labels,
                        std::string_view namespace_name) {
  for (const TeamSource& s : chain) {
    const auto& labels = s.scope == TeamSource::Scope::kPod ? pod_labels : namespace_labels;
    auto it = labels.find(KsmLabelKey(s.key));
    if (it != labels.end() && !it->second.empty()) return it->second;
  }
  return std::string(namespace_name);
}

}  // namespace gpucost
