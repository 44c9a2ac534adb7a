// ProcTable: host PID -> ProcessIdentity (pod/container or Slurm job), read from
// <proc root>/<pid>/cgroup and cached by (pid, start time) so that a reused PID is read again.
// Owns its cache; not thread-safe (the agent's collection loop is its one user).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agent/cgroup.h"
#include "core/result.h"

namespace gpucost::agent {

struct ProcessInfo {
  bool exists = false;            // false: no such process (it exited after NVML saw it)
  uint64_t start_time_ticks = 0;  // /proc/<pid>/stat field 22, clock ticks after boot
  ProcessIdentity identity;       // empty for a process outside Kubernetes and Slurm
};

// Field 22 (starttime) of the text of /proc/<pid>/stat. Field 2, the command name, is in
// parentheses and may hold spaces and ')', so fields are counted from the last ')'. `source`
// names the file in errors.
Result<uint64_t> StartTimeFromStat(std::string_view stat_text, std::string_view source);

class ProcTable {
 public:
  // `proc_root` is the host's /proc: "/proc" with hostPID, or where the DaemonSet mounts it.
  explicit ProcTable(std::string proc_root = "/proc");

  // Who `pid` belongs to. A missing process is {exists = false}, not an error; a file that
  // exists but cannot be read or parsed is an error naming it. Identities with a container id
  // or a Slurm step are cached until the PID's start time changes or Prune drops them; others
  // (a process not yet moved into its container's cgroup looks like one) are read every time.
  Result<ProcessInfo> Identify(uint32_t pid);

  // Forgets cached PIDs that are not in `live_pids` (the PIDs NVML reported this interval).
  void Prune(const std::vector<uint32_t>& live_pids);

  size_t cached() const { return cache_.size(); }
  const std::string& proc_root() const { return root_; }

 private:
  struct Entry {
    uint64_t start_time_ticks = 0;
    ProcessIdentity identity;
  };

  std::string root_;
  std::unordered_map<uint32_t, Entry> cache_;
};

}  // namespace gpucost::agent
