// Joins one NVML reading with who owns each GPU process (from /proc cgroups) and which
// container holds which device (from the kubelet) into an AgentSnapshot. Pure: no NVML, files or
// sockets. A holder's activity on a whole GPU is the sum of its processes' mean SM utilization
// over the interval (NVML's per-process samples; on an H100 their sum tracks GPM's graphics
// activity, docs/agent.md); on a MIG instance it is the instance's activity when the holder is
// alone there, else not measured.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "agent/agent_snapshot.h"
#include "agent/nvml_collector.h"

namespace gpucost::agent {

struct ProcessOwner {
  std::string pod_uid;
  std::string container_id;
  std::string slurm_job;
  bool known() const { return !pod_uid.empty() || !slurm_job.empty(); }
};

using OwnerLookup = std::function<ProcessOwner(uint32_t pid)>;

// `assignments` are already resolved to GPUs (ResolveAssignments). Holders' namespace, pod and
// container are filled in where the assignments leave only one candidate (see NameHolders).
AgentSnapshot BuildSnapshot(const NvmlReading& reading, const OwnerLookup& owner_of,
                            std::vector<DeviceAssignment> assignments);

// Names pod-uid holders after the containers assigned to the units they run on: a pod uid whose
// units are all assigned to one pod, after pods already claimed by other uids are taken away,
// gets that pod's namespace and name, and its container's name when that pod has one container
// on those units. Exposed for tests.
void NameHolders(std::vector<HolderActivity>& holders,
                 const std::vector<DeviceAssignment>& assignments);

}  // namespace gpucost::agent
