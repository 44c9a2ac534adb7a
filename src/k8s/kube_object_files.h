// The Kubernetes API's objects read from files instead of a live server: what `kubectl get
// nodes,pods,namespaces,replicasets,jobs,resourceslices,resourceclaims,deviceclasses -A -o json`
// writes (a v1 List of items, each with its kind), or single objects. Each item is decoded as the
// live source decodes it and the state assembled by the same function (kube_snapshot.h), so the
// same objects give the same KubeState. Stateless functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "inventory/kube_state.h"
#include "k8s/kube_source.h"

namespace gpucost::k8s {

struct KubeObjectFilesResult {
  KubeState state;
  // One per item skipped, naming the file, the item's index, kind and name and what was wrong.
  std::vector<std::string> warnings;
  size_t items = 0;  // items read (every kind, kept or not)
};

// Reads `paths` in order (an object a later file repeats replaces the earlier one, as a watch
// event would). `observed_at`: when the objects were taken; nullopt: the latest modification
// time of the files. Errors (a file that cannot be read or is not JSON) name the file; a bad
// item is a warning and loses only itself. Kinds gpucost does not read are passed over.
Result<KubeObjectFilesResult> ReadKubeObjectFiles(const std::vector<std::string>& paths,
                                                  const KubeSourceOptions& options,
                                                  std::optional<Instant> observed_at);

}  // namespace gpucost::k8s
