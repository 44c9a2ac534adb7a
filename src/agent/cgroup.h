// Who a host process belongs to, read from the text of /proc/<pid>/cgroup: the Kubernetes pod
// UID and container id (containerd, CRI-O, cri-dockerd; systemd and cgroupfs drivers; cgroup v1,
// v2 and hybrid) or the Slurm job and step. Pure functions on strings, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpucost::agent {

struct ProcessIdentity {
  // Kubernetes. pod_uid is the API UID in canonical form (lower case, 8-4-4-4-12 with dashes),
  // or for a static pod the kubelet's 32-hex hash as it appears (no dashes). container_id is the
  // 64-hex id, as in status.containerStatuses[].containerID without the "containerd://" prefix;
  // empty for a process in the pod's own cgroup (no container leaf).
  std::string pod_uid;
  std::string container_id;
  std::string runtime;  // "containerd", "cri-o", "docker", or "" when there is no container id
  std::string qos;      // "guaranteed", "burstable", "besteffort", or "" when the path hides it

  // Slurm. slurm_uid is -1 where the path does not carry it (cgroup v2).
  std::string slurm_job;
  int64_t slurm_uid = -1;
  std::string slurm_step;  // "0", "batch", "extern", "interactive", ...; "" outside a step

  bool kubernetes() const { return !pod_uid.empty(); }
  bool slurm() const { return !slurm_job.empty(); }

  friend bool operator==(const ProcessIdentity&, const ProcessIdentity&) = default;
};

// Parses the whole file. Lines that are not "<hierarchy-id>:<controllers>:/<path>" are skipped;
// a process outside Kubernetes and Slurm gets an empty identity. Where cgroup v1 lines disagree,
// the Kubernetes fields come from a line with a container id over one with only a pod, then from
// the (pod, container) found on the most lines, then from the first such line; the Slurm fields
// likewise prefer a line with a step. Never fails and never reads past `file_text`.
ProcessIdentity ParseCgroup(std::string_view file_text);

// The identity carried by one cgroup path ("/kubepods/besteffort/pod<uid>/<id>", possibly
// relative to a cgroup namespace: "/../../kubepods..."). Used by ParseCgroup on every line.
ProcessIdentity ParseCgroupPath(std::string_view path);

}  // namespace gpucost::agent
