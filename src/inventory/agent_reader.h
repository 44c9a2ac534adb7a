// Collects the node agent's series (`gpucost agent`, docs/agent.md): the GPUs and MIG instances
// of each node, each unit's activity, each holder's part of a GPU's activity, and which container
// the kubelet assigned which device. Keyed by (cluster, node), the node being the `node` label (the
// Kubernetes node name). What the series mean is decided later, by the inventory builder
// (agent_assembly.cc). Not thread-safe.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ingest/exposition.h"
#include "inventory/conflict_warnings.h"
#include "inventory/diagnostics.h"
#include "inventory/series_timeline.h"
#include "model/usage.h"

namespace gpucost {

// A physical GPU (gpu_instance_id -1) or a MIG instance on a node.
struct AgentGpuKey {
  std::string cluster;
  std::string node;
  std::string uuid;
  int gpu_instance_id = -1;
  auto operator<=>(const AgentGpuKey&) const = default;
};

// gpucost_agent_gpu_info (whole GPUs) and gpucost_agent_mig_instance_info (MIG instances).
struct AgentGpu {
  int gpu_index = -1;
  std::string model;
  std::string profile;  // MIG instances: "1g.10gb" ("MIG " prefix removed)
  PresenceSeries seen;
};

// gpucost_agent_unit_activity_ratio of one unit: GPM activity where the GPU has it, else NVML's
// utilization rate. Values are ratios 0..1 as written.
struct AgentUnitActivity {
  PointSeries gpm;
  PointSeries utilization;
  std::string source;
  uint64_t first_line = 0;
};

// Who a holder series or a device assignment names. Empty strings are absent labels.
struct AgentHolderRef {
  std::string pod_uid;
  std::string container_id;  // the 64-hex id, runtime prefix removed
  std::string namespace_name;
  std::string pod;
  std::string container;
  std::string slurm_job;
  auto operator<=>(const AgentHolderRef&) const = default;
};

struct AgentHolderKey {
  AgentGpuKey gpu;
  AgentHolderRef holder;
  auto operator<=>(const AgentHolderKey&) const = default;
};

struct AgentHolderActivity {
  PointSeries points;  // ratios of the whole device, as written
  std::string source;
  uint64_t first_line = 0;
};

// gpucost_agent_device_assignment: a container holds a device id (kubelet PodResources).
struct AgentAssignmentKey {
  std::string cluster;
  std::string node;
  std::string namespace_name;
  std::string pod;
  std::string container;
  std::string device_id;
  std::string gpu_uuid;
  int gpu_instance_id = -1;  // MIG instance, else -1
  int replica = -1;          // time-slicing / MPS replica ("GPU-<uuid>::<n>"), else -1
  auto operator<=>(const AgentAssignmentKey&) const = default;
};

struct AgentAssignment {
  PresenceSeries seen;
  std::string source;
  uint64_t first_line = 0;
};

// gpucost_agent_device_assignment of a device from a DRA claim (resource
// "resource.k8s.io/claim/<claim>", device_id "<driver>/<pool>/<device>"): not a pin, the API
// places claims exactly; kept to tell where the API's data lacks the claim or disagrees.
struct AgentDraAssignmentKey {
  std::string cluster;
  std::string node;
  std::string namespace_name;
  std::string pod;
  std::string container;
  std::string claim;
  std::string device_id;
  auto operator<=>(const AgentDraAssignmentKey&) const = default;
};

struct AgentDraAssignment {
  std::string gpu_uuid;  // where the agent resolved the device to a whole GPU, else ""
  std::string source;
  uint64_t first_line = 0;
};

// A Slurm job's part of a unit's activity as the agent measured it (`slurm_job` label, from the
// job's cgroup), resolved to the inventory's unit, for the Slurm source to join to the job's
// holder (slurm/slurm_timeline.h). Built by the inventory builder; the Slurm source decides what
// the job id names.
struct AgentJobActivity {
  NodeIndex node = kNoIndex;
  UnitIndex unit = kNoIndex;  // the whole GPU or the MIG instance
  std::string gpu_uuid;
  int gpu_instance_id = -1;
  std::string job;  // the slurm_job label as written (the job's JobIDRaw, from job_<id>)
  // Ratios of the whole device, clipped to the window (from one staleness limit before it).
  std::vector<UsageSample> samples;
  // Whole GPUs: the instants the agent measured every process of the GPU (a unit sample and
  // nvmlDeviceGetProcessUtilization supported). A job holding the GPU then with no sample ran
  // nothing on it: measured idle. Shared by the jobs of one GPU; null where none.
  std::shared_ptr<const std::vector<Instant>> measured;
  std::string source;
  uint64_t first_line = 0;
};

struct AgentData {
  std::map<AgentGpuKey, AgentGpu> gpus;
  std::map<AgentGpuKey, AgentUnitActivity> units;
  std::map<AgentHolderKey, AgentHolderActivity> holders;
  std::map<AgentAssignmentKey, AgentAssignment> assignments;
  std::map<AgentDraAssignmentKey, AgentDraAssignment> dra_assignments;
  // gpucost_agent_nvml_supported{call="nvmlDeviceGetProcessUtilization"} per GPU: where it is 1
  // the agent measured every process, so a holder without a series used nothing.
  std::map<AgentGpuKey, PointSeries> process_measured;
  // Per GPU, the times [first, last] of process_measured samples read from an input cut short:
  // instants at which a holder without a sample is not known to have run nothing.
  std::map<AgentGpuKey, std::vector<std::pair<int64_t, int64_t>>> process_unsure;
  // Filled by the inventory builder from the holder series that name a Slurm job.
  std::vector<AgentJobActivity> slurm_jobs;
};

class AgentReader {
 public:
  explicit AgentReader(std::string default_cluster)
      : default_cluster_(std::move(default_cluster)) {}
  // Returns false when the sample is not a series this reader consumes.
  bool OnSample(const SampleView& s, int64_t t_ms, const std::string& source, Diagnostics& diag);
  // The input `source` looks cut short (ParseIssue::cut_short): its lines that say the agent
  // measured every process of a GPU do not stand for the instants they cover, since the lines of
  // those processes may be what was cut.
  void SourceCutShort(const std::string& source) { cut_sources_.insert(source); }
  // Sorts every series and warns of the conflicting samples sorting finds. Call once, after the
  // last sample.
  void Finish(Diagnostics& diag);
  AgentData& data() { return data_; }

 private:
  bool GpuKey(const SampleView& s, const std::string& source, Diagnostics& diag,
              AgentGpuKey& key) const;
  // Adds the sample's value to `series`; two samples of one instant that disagree are told.
  void AddValue(PointSeries& series, const SampleView& s, int64_t t_ms, const std::string& source,
                Diagnostics& diag);
  std::string default_cluster_;
  AgentData data_;
  ConflictWarnings conflicts_;
  // Per process_measured series, the first and last time of the samples each source gave (one
  // entry per run of samples from one source).
  struct SourceSpan {
    uint32_t source = 0;  // in sources_
    int64_t first = 0;
    int64_t last = 0;
  };
  std::unordered_map<const AgentGpuKey*, std::vector<SourceSpan>> measured_spans_;
  std::vector<std::string> sources_;
  std::string last_source_;
  uint32_t source_index_ = 0;
  std::set<std::string> cut_sources_;
};

}  // namespace gpucost
