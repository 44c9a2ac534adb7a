// NVML loaded at run time: dlopen of the driver's libnvidia-ml.so.1 (or a given path), the
// symbols the agent uses resolved one by one. A symbol the library lacks is not an error: its
// calls return kErrorFunctionNotFound, which the collector reports as "not supported". Owns the
// library handle (nvmlInit on Open, nvmlShutdown and dlclose on destruction). Calls are as
// thread-safe as NVML's own (it is); the object itself is immutable after Open.
#pragma once

#include <memory>
#include <string>

#include "agent/nvml_api.h"
#include "core/result.h"

namespace gpucost::agent {

class NvmlLibrary {
 public:
  static constexpr const char* kDefaultPath = "libnvidia-ml.so.1";

  // Loads `path` and initialises NVML. Errors name the path and dlerror's or NVML's message.
  static Result<std::unique_ptr<NvmlLibrary>> Open(const std::string& path);
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // NVML's text for a return code ("Not Supported"), or "error <n>".
  std::string ErrorString(nvml::Return r) const;
  std::string DriverVersion() const;

  nvml::Return DeviceGetCount(unsigned int* count) const;
  nvml::Return DeviceGetHandleByIndex(unsigned int index, nvml::Device* device) const;
  nvml::Return DeviceGetUuid(nvml::Device d, std::string* uuid) const;
  nvml::Return DeviceGetName(nvml::Device d, std::string* name) const;
  nvml::Return DeviceGetIndex(nvml::Device d, unsigned int* index) const;
  nvml::Return DeviceGetMinorNumber(nvml::Device d, unsigned int* minor) const;
  nvml::Return DeviceGetMigMode(nvml::Device d, unsigned int* current, unsigned int* pending) const;
  nvml::Return DeviceGetMaxMigDeviceCount(nvml::Device d, unsigned int* count) const;
  nvml::Return DeviceGetMigDeviceHandleByIndex(nvml::Device d, unsigned int index,
                                               nvml::Device* mig) const;
  nvml::Return DeviceGetGpuInstanceId(nvml::Device mig, unsigned int* id) const;
  nvml::Return DeviceGetComputeInstanceId(nvml::Device mig, unsigned int* id) const;
  nvml::Return DeviceGetUtilizationRates(nvml::Device d, nvml::Utilization* u) const;
  nvml::Return DeviceGetMemoryInfo(nvml::Device d, nvml::Memory* m) const;
  nvml::Return DeviceGetProcessUtilization(nvml::Device d, nvml::ProcessUtilizationSample* samples,
                                           unsigned int* count,
                                           unsigned long long last_seen_us) const;
  nvml::Return DeviceGetComputeRunningProcesses(nvml::Device d, unsigned int* count,
                                                nvml::ProcessInfo* infos) const;
  nvml::Return DeviceGetTotalEnergyConsumption(nvml::Device d, unsigned long long* mj) const;
  nvml::Return GpmQueryDeviceSupport(nvml::Device d, nvml::GpmSupport* support) const;
  nvml::Return GpmSampleAlloc(nvml::GpmSample* sample) const;
  nvml::Return GpmSampleFree(nvml::GpmSample sample) const;
  nvml::Return GpmSampleGet(nvml::Device d, nvml::GpmSample sample) const;
  nvml::Return GpmMigSampleGet(nvml::Device d, unsigned int gpu_instance_id,
                               nvml::GpmSample sample) const;
  nvml::Return GpmMetricsGet(nvml::GpmMetricsGet* request) const;

 private:
  struct Symbols;
  NvmlLibrary(void* handle, std::unique_ptr<Symbols> symbols);

  void* handle_;
  std::unique_ptr<Symbols> fn_;
};

}  // namespace gpucost::agent
