// The Kubernetes API flags of `gpucost report` and `gpucost prices` (--kube, --kubeconfig,
// --kube-context, --kube-in-cluster), registered into a KubeFlags, and the one-shot read of a
// cluster through the API that they ask for.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/result.h"
#include "inventory/kube_state.h"
#include "k8s/kube_config.h"
#include "k8s/kube_source.h"

namespace gpucost::cli {

struct KubeFlags {
  bool kube = false;
  std::string kubeconfig;
  std::string context;
  bool in_cluster = false;
  std::string annotation_allowlist;  // comma-separated
  bool wanted() const { return kube || !kubeconfig.empty() || !context.empty() || in_cluster; }
};

// `flags` must outlive the command.
void AddKubeFlags(CLI::App& cmd, KubeFlags& flags);

// The connection the flags name (kubeconfig, context, in-cluster; see k8s::ResolveConnection).
Result<k8s::KubeConnection> ResolveKubeConnection(const KubeFlags& flags);

// Source options: pod and namespace labels per `label_allowlist` (empty: all) plus the keys of
// the team chain ("pod:team" entries), and the flags' annotations.
k8s::KubeSourceOptions KubeSourceOptionsFor(const KubeFlags& flags, const std::string& cluster,
                                            const std::vector<std::string>& label_allowlist,
                                            const std::vector<std::string>& team_labels);

// Lists the cluster once when the flags ask for it (nullopt otherwise). Pod and namespace labels
// are kept per `label_allowlist` (empty: all) plus the team chain's keys; failures name the
// server and the resource.
Result<std::optional<KubeState>> ReadKubeState(const KubeFlags& flags, const std::string& cluster,
                                               const std::vector<std::string>& label_allowlist,
                                               const std::vector<std::string>& team_labels);

}  // namespace gpucost::cli
