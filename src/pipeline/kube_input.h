// Where the Kubernetes API is (kubeconfig, context, in-cluster, or object files), as a KubeOptions
// (cli/kube_flags.h fills one from --kube, --kubeconfig, --kube-context, --kube-in-cluster), and
// the one-shot read of a cluster through the API that it asks for.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "inventory/kube_state.h"
#include "k8s/kube_config.h"
#include "k8s/kube_source.h"

namespace gpucost {

struct KubeOptions {
  bool kube = false;
  std::string kubeconfig;
  std::string context;
  bool in_cluster = false;
  std::string annotation_allowlist;  // comma-separated
  // The API's objects from files (kubectl get ... -o json) instead of a live server, taken at
  // `objects_at` (a time; "": the files' latest modification time).
  std::vector<std::string> objects;
  std::string objects_at;
  // The live API server.
  bool wanted() const { return kube || !kubeconfig.empty() || !context.empty() || in_cluster; }
  // The live API server or object files: a KubeState to merge.
  bool any() const { return wanted() || !objects.empty(); }
};

// The connection the flags name (kubeconfig, context, in-cluster; see k8s::ResolveConnection).
Result<k8s::KubeConnection> ResolveKubeConnection(const KubeOptions& flags);

// Source options: pod and namespace labels per `label_allowlist` (empty: all) plus the keys of
// the team chain ("pod:team" entries), and the flags' annotations.
k8s::KubeSourceOptions KubeSourceOptionsFor(const KubeOptions& flags, const std::string& cluster,
                                            const std::vector<std::string>& label_allowlist,
                                            const std::vector<std::string>& team_labels);

// A kind a read of the API goes without when it cannot have it (resource.k8s.io's, which
// clusters before Kubernetes 1.34 do not serve), and whether the account was refused it.
struct KubeKindAccess {
  std::string resource{};   // "resourceclaims"
  std::string forbidden{};  // "HTTP 403: <the server's message>" when refused; "" otherwise
};

struct KubeRead {
  std::optional<KubeState> state{};  // nullopt: the flags name no cluster
  // Of a live read: each optional kind, by name; a 404 (not served) is not a refusal.
  std::vector<KubeKindAccess> optional_kinds{};
};

// Lists the cluster once, or reads its object files, when the flags ask for it (no state
// otherwise); an object file's bad items are logged as warnings and skipped. Pod and namespace
// labels are kept per `label_allowlist` (empty: all) plus the team chain's keys; failures name the
// server and the resource. A kind refused (403) is also a warning, once a process.
Result<KubeRead> ReadKube(const KubeOptions& flags, const std::string& cluster,
                          const std::vector<std::string>& label_allowlist,
                          const std::vector<std::string>& team_labels);

// ReadKube's state alone.
Result<std::optional<KubeState>> ReadKubeState(const KubeOptions& flags, const std::string& cluster,
                                               const std::vector<std::string>& label_allowlist,
                                               const std::vector<std::string>& team_labels);

}  // namespace gpucost
