// The Kubernetes API flags of `gpucost report`, `gpucost prices` and `gpucost serve` (--kube,
// --kubeconfig, --kube-context, --kube-in-cluster, --annotation-allowlist, --kube-objects,
// --kube-objects-at), registered into a
// KubeFlags (pipeline/kube_input.h's KubeOptions, which reads the cluster).
#pragma once

#include <CLI/CLI.hpp>

#include "pipeline/kube_input.h"

namespace gpucost::cli {

using KubeFlags = KubeOptions;

// `flags` must outlive the command.
void AddKubeFlags(CLI::App& cmd, KubeFlags& flags);
// --kube-objects and --kube-objects-at: the API's objects from kubectl's JSON instead of a live
// server (commands that attribute; not `gpucost kube`, which inspects the live server).
void AddKubeObjectsFlags(CLI::App& cmd, KubeFlags& flags);

}  // namespace gpucost::cli
