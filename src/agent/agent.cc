#include "agent/agent.h"

#include <algorithm>

#include "agent/assignment_resolver.h"
#include "agent/snapshot_builder.h"
#include "core/log.h"

namespace gpucost::agent {

Agent::Agent(AgentOptions options)
    : options_(std::move(options)), procs_(options_.proc_root) {
  if (!options_.pod_resources_socket.empty()) {
    kubelet_ = std::make_unique<PodResourcesClient>(options_.pod_resources_socket,
                                                    options_.kubelet_deadline);
  }
}

Agent::~Agent() {
  collector_.reset();  // frees GPM samples through the library before it closes
  nvml_.reset();
}

NvmlReading Agent::ReadNvml(AgentHealth& health) {
  if (nvml_ == nullptr) {
    auto opened = NvmlLibrary::Open(options_.nvml_library);
    if (!opened.ok()) {
      const std::string why(opened.status().message());
      if (why != last_nvml_error_) LogWarn(why);
      last_nvml_error_ = why;
      ++health.nvml_errors[{"nvmlInit", why}];
      health.nvml_up = false;
      return {};
    }
    nvml_ = std::move(opened).value();
    last_nvml_error_.clear();
    LogInfo("NVML loaded from " + options_.nvml_library + ", driver " + nvml_->DriverVersion());
    collector_ = std::make_unique<NvmlCollector>(*nvml_);
  }
  NvmlReading reading = collector_->Collect();
  for (const NvmlError& e : reading.errors) ++health.nvml_errors[{e.call, e.error}];
  const bool count_failed = std::any_of(reading.errors.begin(), reading.errors.end(),
                                        [](const NvmlError& e) { return e.call == "nvmlDeviceGetCount"; });
  health.nvml_up = !count_failed;
  if (count_failed) {  // the driver went away: start over next time
    collector_.reset();
    nvml_.reset();
  }
  return reading;
}

PodResourcesList Agent::ReadKubelet(AgentHealth& health) {
  health.kubelet_up = false;
  if (kubelet_ == nullptr) return {};
  auto list = kubelet_->List();
  if (!list.ok()) {
    const std::string why(list.status().message());
    if (why != last_kubelet_error_) LogWarn(why);
    last_kubelet_error_ = why;
    ++health.kubelet_errors["List"];
    return {};
  }
  last_kubelet_error_.clear();
  health.kubelet_up = true;
  return std::move(list).value();
}

AllocatableDevices Agent::ReadAllocatable(AgentHealth& health) {
  if (kubelet_ == nullptr || !health.kubelet_up || allocatable_unimplemented_) return {};
  auto allocatable = kubelet_->GetAllocatableResources();
  if (allocatable.ok()) return std::move(allocatable).value();
  if (allocatable.status().code() == StatusCode::kUnimplemented) {
    allocatable_unimplemented_ = true;  // kubelets before 1.23 lack the call
    LogInfo(allocatable.status().ToString());
  } else {
    ++health.kubelet_errors["GetAllocatableResources"];
  }
  return {};
}

void Agent::Collect() {
  const auto start = std::chrono::steady_clock::now();
  AgentHealth& h = counters_;
  const NvmlReading reading = ReadNvml(h);
  const PodResourcesList pods = ReadKubelet(h);
  const AllocatableDevices allocatable = ReadAllocatable(h);

  std::vector<uint32_t> pids;
  for (const NvmlGpu& g : reading.gpus) {
    for (const NvmlProcess& p : g.whole.processes) pids.push_back(p.pid);
    for (const NvmlUnit& u : g.mig) {
      for (const NvmlProcess& p : u.processes) pids.push_back(p.pid);
    }
  }
  const OwnerLookup owner_of = [this, &h](uint32_t pid) {
    ProcessOwner owner;
    auto info = procs_.Identify(pid);
    if (!info.ok()) {
      ++h.proc_errors;
      return owner;
    }
    owner.pod_uid = info->identity.pod_uid;
    owner.container_id = info->identity.container_id;
    owner.slurm_job = info->identity.slurm_job;
    return owner;
  };
  AgentSnapshot snapshot = BuildSnapshot(reading, owner_of, ResolveAssignments(pods, reading));
  snapshot.allocatable = ResolveAllocatable(allocatable, reading);
  procs_.Prune(pids);

  ++h.collections;
  h.last_collection_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(mu_);
  snapshot_ = std::move(snapshot);
  health_ = h;
}

std::string Agent::Metrics() const {
  std::lock_guard<std::mutex> lock(mu_);
  return RenderMetrics(options_.node_name, snapshot_, health_);
}

AgentSnapshot Agent::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return snapshot_;
}

}  // namespace gpucost::agent
