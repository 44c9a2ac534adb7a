// The node agent's collection: NVML, the kubelet's PodResources and /proc cgroups joined into an
// AgentSnapshot, plus health counters, rendered on demand as /metrics text. NVML is opened on
// the first collection and again after it fails, so an agent started before the driver is
// ready recovers. Collect() and Metrics() may run on different threads (the snapshot is
// swapped under a mutex); Collect() itself is called from one thread.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "agent/agent_exposition.h"
#include "agent/agent_snapshot.h"
#include "agent/nvml_collector.h"
#include "agent/nvml_library.h"
#include "agent/pod_resources.h"
#include "agent/proc_table.h"

namespace gpucost::agent {

struct AgentOptions {
  std::string node_name;
  std::string nvml_library = NvmlLibrary::kDefaultPath;
  std::string pod_resources_socket = std::string(kDefaultPodResourcesSocket);  // "" = none
  std::chrono::milliseconds kubelet_deadline = std::chrono::seconds(5);
  std::string proc_root = "/proc";
};

class Agent {
 public:
  explicit Agent(AgentOptions options);
  ~Agent();

  void Collect();
  std::string Metrics() const;
  // The last snapshot (for tests and --once).
  AgentSnapshot Snapshot() const;

 private:
  NvmlReading ReadNvml(AgentHealth& health);
  PodResourcesList ReadKubelet(AgentHealth& health);
  AllocatableDevices ReadAllocatable(AgentHealth& health);

  AgentOptions options_;
  std::unique_ptr<NvmlLibrary> nvml_;
  std::unique_ptr<NvmlCollector> collector_;
  std::unique_ptr<PodResourcesClient> kubelet_;
  ProcTable procs_;
  AgentHealth counters_;  // owned by the collecting thread; copied into health_
  std::string last_nvml_error_;     // logged once until it changes
  std::string last_kubelet_error_;
  bool allocatable_unimplemented_ = false;  // an older kubelet: not asked again

  mutable std::mutex mu_;
  AgentSnapshot snapshot_;
  AgentHealth health_;
};

}  // namespace gpucost::agent
