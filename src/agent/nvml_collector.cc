#include "agent/nvml_collector.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace gpucost::agent {

// Sorts each call's outcome into "works", "not supported here" and "failed".
class NvmlCollector::Calls {
 public:
  Calls(const NvmlLibrary& nvml, NvmlReading& reading) : nvml_(nvml), reading_(reading) {}

  // True on success. Unsupported calls mark the GPU's support map; other failures are errors.
  bool Check(const char* call, nvml::Return r, NvmlGpu* gpu) {
    if (r == nvml::kSuccess) {
      if (gpu != nullptr) gpu->supported.emplace(call, true);
      return true;
    }
    if (r == nvml::kErrorNotSupported || r == nvml::kErrorFunctionNotFound) {
      if (gpu != nullptr) gpu->supported[call] = false;
      return false;
    }
    reading_.errors.push_back(NvmlError{call, nvml_.ErrorString(r)});
    return false;
  }

 private:
  const NvmlLibrary& nvml_;
  NvmlReading& reading_;
};

namespace {

NvmlProcess& ProcessOf(NvmlUnit& unit, uint32_t pid) {
  auto it = std::lower_bound(unit.processes.begin(), unit.processes.end(), pid,
                             [](const NvmlProcess& p, uint32_t v) { return p.pid < v; });
  if (it == unit.processes.end() || it->pid != pid) {
    it = unit.processes.insert(it, NvmlProcess{});
    it->pid = pid;
  }
  return *it;
}

// "NVIDIA H100 80GB HBM3 MIG 1g.10gb" -> "1g.10gb"; older drivers name MIG devices after the
// parent GPU alone, which leaves the profile unknown.
std::string ProfileFromName(const std::string& name) {
  const size_t at = name.rfind(" MIG ");
  return at == std::string::npos ? std::string() : name.substr(at + 5);
}

}  // namespace

NvmlCollector::~NvmlCollector() {
  for (auto& [uuid, st] : state_) FreeGpm(st);
}

void NvmlCollector::FreeGpm(GpuState& state) {
  for (auto& [gi, pair] : state.gpm) {
    if (pair.previous != nullptr) (void)nvml_.GpmSampleFree(pair.previous);
    if (pair.current != nullptr) (void)nvml_.GpmSampleFree(pair.current);
  }
  state.gpm.clear();
}

NvmlReading NvmlCollector::Collect() {
  NvmlReading out;
  Calls calls(nvml_, out);
  unsigned int count = 0;
  if (!calls.Check("nvmlDeviceGetCount", nvml_.DeviceGetCount(&count), nullptr)) return out;
  std::set<std::string> seen;
  for (unsigned int i = 0; i < count; ++i) {
    nvml::Device device = nullptr;
    if (!calls.Check("nvmlDeviceGetHandleByIndex", nvml_.DeviceGetHandleByIndex(i, &device),
                     nullptr)) {
      continue;
    }
    NvmlGpu gpu;
    gpu.index = i;
    if (!calls.Check("nvmlDeviceGetUUID", nvml_.DeviceGetUuid(device, &gpu.uuid), nullptr) ||
        gpu.uuid.empty()) {
      continue;  // a GPU without an identity cannot be attributed
    }
    ReadGpu(device, gpu, calls);
    seen.insert(gpu.uuid);
    out.gpus.push_back(std::move(gpu));
  }
  for (auto it = state_.begin(); it != state_.end();) {
    if (seen.contains(it->first)) {
      ++it;
      continue;
    }
    FreeGpm(it->second);
    it = state_.erase(it);
  }
  return out;
}

void NvmlCollector::ReadGpu(nvml::Device device, NvmlGpu& gpu, Calls& calls) {
  GpuState& state = state_[gpu.uuid];
  (void)calls.Check("nvmlDeviceGetName", nvml_.DeviceGetName(device, &gpu.name), &gpu);
  unsigned int minor = 0;
  if (calls.Check("nvmlDeviceGetMinorNumber", nvml_.DeviceGetMinorNumber(device, &minor), &gpu)) {
    gpu.minor_number = static_cast<int>(minor);
  }
  unsigned int current = 0, pending = 0;
  if (calls.Check("nvmlDeviceGetMigMode", nvml_.DeviceGetMigMode(device, &current, &pending),
                  &gpu)) {
    gpu.mig_enabled = current == nvml::kMigEnable;
  }
  nvml::Memory memory{};
  if (calls.Check("nvmlDeviceGetMemoryInfo", nvml_.DeviceGetMemoryInfo(device, &memory), &gpu)) {
    gpu.memory_total_bytes = memory.total;
    gpu.memory_used_bytes = memory.used;
  }
  unsigned long long energy = 0;
  if (calls.Check("nvmlDeviceGetTotalEnergyConsumption",
                  nvml_.DeviceGetTotalEnergyConsumption(device, &energy), &gpu)) {
    gpu.energy_mj = energy;
  }
  gpu.whole.uuid = gpu.uuid;
  gpu.whole.name = gpu.name;
  if (gpu.mig_enabled.value_or(false)) {
    ReadMig(device, gpu, state, calls);
    return;
  }
  gpu.whole.activity = GpmActivity(device, -1, state, calls);
  if (state.gpm_supported) gpu.supported["nvmlGpmSampleGet"] = *state.gpm_supported;
  if (gpu.whole.activity) {
    gpu.whole.activity_source = "gpm";
  } else {
    nvml::Utilization u{};
    if (calls.Check("nvmlDeviceGetUtilizationRates", nvml_.DeviceGetUtilizationRates(device, &u),
                    &gpu)) {
      gpu.whole.activity = std::min(1.0, u.gpu / 100.0);
      gpu.whole.activity_source = "utilization";
    }
  }
  ReadRunningProcesses(device, gpu.whole, gpu, calls);
  ReadProcessUtilization(device, gpu, state, calls);
}

void NvmlCollector::ReadRunningProcesses(nvml::Device device, NvmlUnit& unit, NvmlGpu& gpu,
                                         Calls& calls) {
  // Sized by asking with no room first; processes may start in between, so retry a few times.
  std::vector<nvml::ProcessInfo> infos;
  unsigned int count = 0;
  nvml::Return r = nvml_.DeviceGetComputeRunningProcesses(device, &count, nullptr);
  for (int attempt = 0; attempt < 4 && r == nvml::kErrorInsufficientSize; ++attempt) {
    infos.resize(count + 16);
    count = static_cast<unsigned int>(infos.size());
    r = nvml_.DeviceGetComputeRunningProcesses(device, &count, infos.data());
  }
  if (!calls.Check("nvmlDeviceGetComputeRunningProcesses", r, &gpu)) return;
  infos.resize(std::min<size_t>(count, infos.size()));
  for (const nvml::ProcessInfo& info : infos) {
    NvmlProcess& p = ProcessOf(unit, info.pid);
    if (info.used_gpu_memory != nvml::kValueNotAvailable) p.memory_bytes = info.used_gpu_memory;
    p.gpu_instance_id = unit.gpu_instance_id;
    p.compute_instance_id = unit.gpu_instance_id >= 0 && info.compute_instance_id != nvml::kNoInstance
                                ? static_cast<int>(info.compute_instance_id)
                                : unit.compute_instance_id;
  }
}

void NvmlCollector::ReadProcessUtilization(nvml::Device device, NvmlGpu& gpu, GpuState& state,
                                           Calls& calls) {
  std::vector<nvml::ProcessUtilizationSample> samples;
  unsigned int count = 0;
  nvml::Return r = nvml_.DeviceGetProcessUtilization(device, nullptr, &count, state.last_seen_us);
  for (int attempt = 0; attempt < 4 && r == nvml::kErrorInsufficientSize; ++attempt) {
    samples.resize(count + 16);
    count = static_cast<unsigned int>(samples.size());
    r = nvml_.DeviceGetProcessUtilization(device, samples.data(), &count, state.last_seen_us);
  }
  if (r == nvml::kErrorNotFound) {  // no process used the GPU since the last collection
    gpu.process_utilization = true;
    gpu.supported["nvmlDeviceGetProcessUtilization"] = true;
    return;
  }
  if (!calls.Check("nvmlDeviceGetProcessUtilization", r, &gpu)) return;
  gpu.process_utilization = true;
  samples.resize(std::min<size_t>(count, samples.size()));
  unsigned long long newest = state.last_seen_us;
  for (const nvml::ProcessUtilizationSample& s : samples) {
    if (s.time_stamp_us <= state.last_seen_us) continue;  // counted in an earlier collection
    NvmlProcess& p = ProcessOf(gpu.whole, s.pid);
    p.sm_util_sum += std::min(s.sm_util, 100u);
    ++p.samples;
    newest = std::max(newest, s.time_stamp_us);
  }
  state.last_seen_us = newest;
}

void NvmlCollector::ReadMig(nvml::Device device, NvmlGpu& gpu, GpuState& state, Calls& calls) {
  unsigned int max_count = 0;
  if (!calls.Check("nvmlDeviceGetMaxMigDeviceCount",
                   nvml_.DeviceGetMaxMigDeviceCount(device, &max_count), &gpu)) {
    return;
  }
  for (unsigned int i = 0; i < max_count; ++i) {
    if (state.gpm_supported) gpu.supported["nvmlGpmMigSampleGet"] = *state.gpm_supported;
    nvml::Device mig = nullptr;
    const nvml::Return r = nvml_.DeviceGetMigDeviceHandleByIndex(device, i, &mig);
    if (r == nvml::kErrorNotFound) continue;  // an empty index
    if (!calls.Check("nvmlDeviceGetMigDeviceHandleByIndex", r, &gpu)) continue;
    NvmlUnit unit;
    unit.mig_index = static_cast<int>(i);
    unsigned int gi = 0, ci = 0;
    if (!calls.Check("nvmlDeviceGetGpuInstanceId", nvml_.DeviceGetGpuInstanceId(mig, &gi), &gpu)) {
      continue;  // an instance that cannot be named cannot be attributed
    }
    unit.gpu_instance_id = static_cast<int>(gi);
    if (calls.Check("nvmlDeviceGetComputeInstanceId", nvml_.DeviceGetComputeInstanceId(mig, &ci),
                    &gpu)) {
      unit.compute_instance_id = static_cast<int>(ci);
    }
    (void)calls.Check("nvmlDeviceGetUUID", nvml_.DeviceGetUuid(mig, &unit.uuid), &gpu);
    if (calls.Check("nvmlDeviceGetName", nvml_.DeviceGetName(mig, &unit.name), &gpu)) {
      unit.profile = ProfileFromName(unit.name);
    }
    // Several compute instances of one GPU instance share its GPM counters: read them once.
    auto same_gi = std::find_if(gpu.mig.begin(), gpu.mig.end(), [&](const NvmlUnit& u) {
      return u.gpu_instance_id == unit.gpu_instance_id;
    });
    if (same_gi != gpu.mig.end()) {
      unit.activity = same_gi->activity;
      unit.activity_source = same_gi->activity_source;
    } else {
      unit.activity = GpmActivity(device, unit.gpu_instance_id, state, calls);
      if (unit.activity) unit.activity_source = "gpm";
    }
    ReadRunningProcesses(mig, unit, gpu, calls);
    gpu.mig.push_back(std::move(unit));
  }
  std::sort(gpu.mig.begin(), gpu.mig.end(), [](const NvmlUnit& a, const NvmlUnit& b) {
    return std::tie(a.gpu_instance_id, a.compute_instance_id) <
           std::tie(b.gpu_instance_id, b.compute_instance_id);
  });
}

std::optional<double> NvmlCollector::GpmActivity(nvml::Device device, int gpu_instance_id,
                                                 GpuState& state, Calls& calls) {
  if (!state.gpm_supported) {
    nvml::GpmSupport support{nvml::kGpmSupportVersion, 0};
    const nvml::Return r = nvml_.GpmQueryDeviceSupport(device, &support);
    state.gpm_supported = r == nvml::kSuccess && support.is_supported_device != 0;
    if (r != nvml::kSuccess && r != nvml::kErrorNotSupported && r != nvml::kErrorFunctionNotFound) {
      (void)calls.Check("nvmlGpmQueryDeviceSupport", r, nullptr);
      state.gpm_supported.reset();  // ask again next time
      return std::nullopt;
    }
  }
  if (!*state.gpm_supported) return std::nullopt;
  GpmPair& pair = state.gpm[gpu_instance_id];
  for (nvml::GpmSample* s : {&pair.previous, &pair.current}) {
    if (*s == nullptr && !calls.Check("nvmlGpmSampleAlloc", nvml_.GpmSampleAlloc(s), nullptr)) {
      return std::nullopt;
    }
  }
  const nvml::Return r = gpu_instance_id < 0
                             ? nvml_.GpmSampleGet(device, pair.current)
                             : nvml_.GpmMigSampleGet(device, static_cast<unsigned int>(gpu_instance_id),
                                                     pair.current);
  if (!calls.Check(gpu_instance_id < 0 ? "nvmlGpmSampleGet" : "nvmlGpmMigSampleGet", r, nullptr)) {
    pair.have_previous = false;
    return std::nullopt;
  }
  std::optional<double> activity;
  if (pair.have_previous) {
    nvml::GpmMetricsGet request{};
    request.version = nvml::kGpmMetricsGetVersion;
    request.num_metrics = 1;
    request.sample1 = pair.previous;
    request.sample2 = pair.current;
    request.metrics[0].metric_id = nvml::kGpmMetricGraphicsUtil;
    if (calls.Check("nvmlGpmMetricsGet", nvml_.GpmMetricsGet(&request), nullptr) &&
        request.metrics[0].nvml_return == nvml::kSuccess) {
      activity = std::clamp(request.metrics[0].value / 100.0, 0.0, 1.0);
    }
  }
  std::swap(pair.previous, pair.current);
  pair.have_previous = true;
  return activity;
}

}  // namespace gpucost::agent
