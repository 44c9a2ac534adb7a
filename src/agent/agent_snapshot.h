// What one agent collection found, joined: unit activity, per-holder activity and memory,
// device assignments, GPU and MIG inventory and NVML support. Plain value types; the
// exposition (agent_exposition.h) renders them as the series docs/agent.md lists.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpucost::agent {

struct UnitActivity {
  std::string gpu_uuid;
  int gpu_instance_id = -1;  // -1: the whole GPU
  double activity = 0;       // 0..1
  std::string source;        // "gpm" or "utilization"
};

// Who a GPU process belongs to: a container (pod uid, container id, and its names where known)
// or a Slurm job.
struct HolderId {
  std::string pod_uid;
  std::string container_id;
  std::string namespace_name;
  std::string pod;
  std::string container;
  std::string slurm_job;
  auto operator<=>(const HolderId&) const = default;
};

struct HolderActivity {
  std::string gpu_uuid;
  int gpu_instance_id = -1;
  HolderId holder;
  std::optional<double> activity;  // part of the unit's activity; empty when not measured
  std::optional<uint64_t> memory_bytes;
  int processes = 0;
};

struct DeviceAssignment {
  std::string namespace_name;
  std::string pod;
  std::string container;
  std::string resource;
  std::string device_id;
  std::string gpu_uuid;       // resolved physical GPU, "" when the id names no GPU of this node
  int gpu_instance_id = -1;
  int replica = -1;
};

struct GpuInfo {
  std::string uuid;
  unsigned int index = 0;
  std::string model;
  std::string mig_mode;  // "enabled", "disabled", "" (not measured)
  std::optional<uint64_t> memory_total_bytes;
  std::optional<uint64_t> energy_mj;
};

struct MigInfo {
  std::string gpu_uuid;
  int gpu_instance_id = -1;
  int compute_instance_id = -1;
  std::string mig_uuid;
  std::string profile;
};

struct CallSupport {
  std::string gpu_uuid;
  std::string call;
  bool supported = false;
};

struct AgentSnapshot {
  std::vector<GpuInfo> gpus;
  std::vector<MigInfo> migs;
  std::vector<UnitActivity> units;
  std::vector<HolderActivity> holders;
  // Activity of GPU processes that belong to no pod and no Slurm job, per unit.
  std::vector<UnitActivity> unowned;
  std::vector<DeviceAssignment> assignments;
  std::vector<DeviceAssignment> allocatable;  // the node's GPU device ids; no pod
  std::vector<CallSupport> support;
};

}  // namespace gpucost::agent
