// The Kubernetes API flags of `gpucost report`, `gpucost prices` and `gpucost serve` (--kube,
// --kubeconfig, --kube-context, --kube-in-cluster, --annotation-allowlist), registered into a
// KubeFlags (pipeline/kube_input.h's KubeOptions, which reads the cluster).
#pragma once

#include <CLI/CLI.hpp>

#include "pipeline/kube_input.h"

namespace gpucost::cli {

using KubeFlags = KubeOptions;

// `flags` must outlive the command.
void AddKubeFlags(CLI::App& cmd, KubeFlags& flags);

}  // namespace gpucost::cli
