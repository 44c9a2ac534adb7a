#include "agent/nvml_library.h"

#include <dlfcn.h>

#include "core/strings.h"

namespace gpucost::agent {

struct NvmlLibrary::Symbols {
  nvml::ShutdownFn shutdown = nullptr;
  nvml::ErrorStringFn error_string = nullptr;
  nvml::SystemGetDriverVersionFn driver_version = nullptr;
  nvml::DeviceGetCountFn get_count = nullptr;
  nvml::DeviceGetHandleByIndexFn get_handle_by_index = nullptr;
  nvml::DeviceGetStringFn get_uuid = nullptr;
  nvml::DeviceGetStringFn get_name = nullptr;
  nvml::DeviceGetUintFn get_index = nullptr;
  nvml::DeviceGetUintFn get_minor_number = nullptr;
  nvml::DeviceGetMigModeFn get_mig_mode = nullptr;
  nvml::DeviceGetUintFn get_max_mig_device_count = nullptr;
  nvml::DeviceGetMigDeviceHandleByIndexFn get_mig_device_handle_by_index = nullptr;
  nvml::DeviceGetUintFn get_gpu_instance_id = nullptr;
  nvml::DeviceGetUintFn get_compute_instance_id = nullptr;
  nvml::DeviceGetUtilizationRatesFn get_utilization_rates = nullptr;
  nvml::DeviceGetMemoryInfoFn get_memory_info = nullptr;
  nvml::DeviceGetProcessUtilizationFn get_process_utilization = nullptr;
  nvml::DeviceGetComputeRunningProcessesFn get_compute_running_processes = nullptr;
  nvml::DeviceGetTotalEnergyConsumptionFn get_total_energy_consumption = nullptr;
  nvml::GpmQueryDeviceSupportFn gpm_query_device_support = nullptr;
  nvml::GpmSampleAllocFn gpm_sample_alloc = nullptr;
  nvml::GpmSampleFreeFn gpm_sample_free = nullptr;
  nvml::GpmSampleGetFn gpm_sample_get = nullptr;
  nvml::GpmMigSampleGetFn gpm_mig_sample_get = nullptr;
  nvml::GpmMetricsGetFn gpm_metrics_get = nullptr;
};

namespace {

template <typename Fn>
void Bind(void* handle, const char* name, Fn& out) {
  // POSIX guarantees that a data pointer from dlsym converts to a function pointer.
  out = reinterpret_cast<Fn>(::dlsym(handle, name));
}

// Calls `fn` when the library has it; NVML's own "function not found" otherwise.
template <typename Fn, typename... Args>
nvml::Return Call(Fn fn, Args... args) {
  return fn == nullptr ? nvml::kErrorFunctionNotFound : fn(args...);
}

nvml::Return GetString(nvml::DeviceGetStringFn fn, nvml::Device d, unsigned size,
                       std::string* out) {
  std::string buf(size, '\0');
  const nvml::Return r = Call(fn, d, buf.data(), size);
  if (r == nvml::kSuccess) {
    buf.resize(buf.find('\0') == std::string::npos ? buf.size() : buf.find('\0'));
    *out = std::move(buf);
  }
  return r;
}

}  // namespace

Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Open(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return Status::Unavailable(StrCat("cannot load NVML from ", path, ": ",
                                      why != nullptr ? why : "unknown dlopen error"));
  }
  auto fn = std::make_unique<Symbols>();
  nvml::InitFn init = nullptr;
  Bind(handle, "nvmlInit_v2", init);
  if (init == nullptr) Bind(handle, "nvmlInit", init);
  Bind(handle, "nvmlShutdown", fn->shutdown);
  Bind(handle, "nvmlErrorString", fn->error_string);
  Bind(handle, "nvmlSystemGetDriverVersion", fn->driver_version);
  Bind(handle, "nvmlDeviceGetCount_v2", fn->get_count);
  Bind(handle, "nvmlDeviceGetHandleByIndex_v2", fn->get_handle_by_index);
  Bind(handle, "nvmlDeviceGetUUID", fn->get_uuid);
  Bind(handle, "nvmlDeviceGetName", fn->get_name);
  Bind(handle, "nvmlDeviceGetIndex", fn->get_index);
  Bind(handle, "nvmlDeviceGetMinorNumber", fn->get_minor_number);
  Bind(handle, "nvmlDeviceGetMigMode", fn->get_mig_mode);
  Bind(handle, "nvmlDeviceGetMaxMigDeviceCount", fn->get_max_mig_device_count);
  Bind(handle, "nvmlDeviceGetMigDeviceHandleByIndex", fn->get_mig_device_handle_by_index);
  Bind(handle, "nvmlDeviceGetGpuInstanceId", fn->get_gpu_instance_id);
  Bind(handle, "nvmlDeviceGetComputeInstanceId", fn->get_compute_instance_id);
  Bind(handle, "nvmlDeviceGetUtilizationRates", fn->get_utilization_rates);
  Bind(handle, "nvmlDeviceGetMemoryInfo", fn->get_memory_info);
  Bind(handle, "nvmlDeviceGetProcessUtilization", fn->get_process_utilization);
  Bind(handle, "nvmlDeviceGetComputeRunningProcesses_v3", fn->get_compute_running_processes);
  Bind(handle, "nvmlDeviceGetTotalEnergyConsumption", fn->get_total_energy_consumption);
  Bind(handle, "nvmlGpmQueryDeviceSupport", fn->gpm_query_device_support);
  Bind(handle, "nvmlGpmSampleAlloc", fn->gpm_sample_alloc);
  Bind(handle, "nvmlGpmSampleFree", fn->gpm_sample_free);
  Bind(handle, "nvmlGpmSampleGet", fn->gpm_sample_get);
  Bind(handle, "nvmlGpmMigSampleGet", fn->gpm_mig_sample_get);
  Bind(handle, "nvmlGpmMetricsGet", fn->gpm_metrics_get);
  if (init == nullptr || fn->get_count == nullptr || fn->get_handle_by_index == nullptr ||
      fn->get_uuid == nullptr) {
    ::dlclose(handle);
    return Status::Unavailable(
        StrCat(path, " is not an NVML library (nvmlInit_v2, nvmlDeviceGetCount_v2, "
                     "nvmlDeviceGetHandleByIndex_v2 or nvmlDeviceGetUUID missing)"));
  }
  if (const nvml::Return r = init(); r != nvml::kSuccess) {
    std::string why = StrCat("error ", r);
    if (fn->error_string != nullptr) why = fn->error_string(r);
    ::dlclose(handle);
    return Status::Unavailable(StrCat("nvmlInit failed (", path, "): ", why));
  }
  return std::unique_ptr<NvmlLibrary>(new NvmlLibrary(handle, std::move(fn)));
}

NvmlLibrary::NvmlLibrary(void* handle, std::unique_ptr<Symbols> symbols)
    : handle_(handle), fn_(std::move(symbols)) {}

NvmlLibrary::~NvmlLibrary() {
  if (fn_->shutdown != nullptr) fn_->shutdown();
  ::dlclose(handle_);
}

std::string NvmlLibrary::ErrorString(nvml::Return r) const {
  if (r == nvml::kErrorFunctionNotFound && fn_->error_string == nullptr) {
    return "Function Not Found";
  }
  const char* s = fn_->error_string != nullptr ? fn_->error_string(r) : nullptr;
  return s != nullptr ? std::string(s) : StrCat("error ", r);
}

std::string NvmlLibrary::DriverVersion() const {
  char buf[nvml::kSystemDriverVersionBufferSize] = {};
  if (Call(fn_->driver_version, buf, nvml::kSystemDriverVersionBufferSize) != nvml::kSuccess) {
    return "";
  }
  return std::string(buf);
}

nvml::Return NvmlLibrary::DeviceGetCount(unsigned int* count) const {
  return Call(fn_->get_count, count);
}
nvml::Return NvmlLibrary::DeviceGetHandleByIndex(unsigned int index, nvml::Device* device) const {
  return Call(fn_->get_handle_by_index, index, device);
}
nvml::Return NvmlLibrary::DeviceGetUuid(nvml::Device d, std::string* uuid) const {
  return GetString(fn_->get_uuid, d, nvml::kDeviceUuidBufferSize, uuid);
}
nvml::Return NvmlLibrary::DeviceGetName(nvml::Device d, std::string* name) const {
  return GetString(fn_->get_name, d, nvml::kDeviceNameBufferSize, name);
}
nvml::Return NvmlLibrary::DeviceGetIndex(nvml::Device d, unsigned int* index) const {
  return Call(fn_->get_index, d, index);
}
nvml::Return NvmlLibrary::DeviceGetMinorNumber(nvml::Device d, unsigned int* minor) const {
  return Call(fn_->get_minor_number, d, minor);
}
nvml::Return NvmlLibrary::DeviceGetMigMode(nvml::Device d, unsigned int* current,
                                           unsigned int* pending) const {
  return Call(fn_->get_mig_mode, d, current, pending);
}
nvml::Return NvmlLibrary::DeviceGetMaxMigDeviceCount(nvml::Device d, unsigned int* count) const {
  return Call(fn_->get_max_mig_device_count, d, count);
}
nvml::Return NvmlLibrary::DeviceGetMigDeviceHandleByIndex(nvml::Device d, unsigned int index,
                                                          nvml::Device* mig) const {
  return Call(fn_->get_mig_device_handle_by_index, d, index, mig);
}
nvml::Return NvmlLibrary::DeviceGetGpuInstanceId(nvml::Device mig, unsigned int* id) const {
  return Call(fn_->get_gpu_instance_id, mig, id);
}
nvml::Return NvmlLibrary::DeviceGetComputeInstanceId(nvml::Device mig, unsigned int* id) const {
  return Call(fn_->get_compute_instance_id, mig, id);
}
nvml::Return NvmlLibrary::DeviceGetUtilizationRates(nvml::Device d, nvml::Utilization* u) const {
  return Call(fn_->get_utilization_rates, d, u);
}
nvml::Return NvmlLibrary::DeviceGetMemoryInfo(nvml::Device d, nvml::Memory* m) const {
  return Call(fn_->get_memory_info, d, m);
}
nvml::Return NvmlLibrary::DeviceGetProcessUtilization(nvml::Device d,
                                                      nvml::ProcessUtilizationSample* samples,
                                                      unsigned int* count,
                                                      unsigned long long last_seen_us) const {
  return Call(fn_->get_process_utilization, d, samples, count, last_seen_us);
}
nvml::Return NvmlLibrary::DeviceGetComputeRunningProcesses(nvml::Device d, unsigned int* count,
                                                           nvml::ProcessInfo* infos) const {
  return Call(fn_->get_compute_running_processes, d, count, infos);
}
nvml::Return NvmlLibrary::DeviceGetTotalEnergyConsumption(nvml::Device d,
                                                          unsigned long long* mj) const {
  return Call(fn_->get_total_energy_consumption, d, mj);
}
nvml::Return NvmlLibrary::GpmQueryDeviceSupport(nvml::Device d, nvml::GpmSupport* support) const {
  return Call(fn_->gpm_query_device_support, d, support);
}
nvml::Return NvmlLibrary::GpmSampleAlloc(nvml::GpmSample* sample) const {
  return Call(fn_->gpm_sample_alloc, sample);
}
nvml::Return NvmlLibrary::GpmSampleFree(nvml::GpmSample sample) const {
  return Call(fn_->gpm_sample_free, sample);
}
nvml::Return NvmlLibrary::GpmSampleGet(nvml::Device d, nvml::GpmSample sample) const {
  return Call(fn_->gpm_sample_get, d, sample);
}
nvml::Return NvmlLibrary::GpmMigSampleGet(nvml::Device d, unsigned int gpu_instance_id,
                                          nvml::GpmSample sample) const {
  return Call(fn_->gpm_mig_sample_get, d, gpu_instance_id, sample);
}
nvml::Return NvmlLibrary::GpmMetricsGet(nvml::GpmMetricsGet* request) const {
  return Call(fn_->gpm_metrics_get, request);
}

}  // namespace gpucost::agent
