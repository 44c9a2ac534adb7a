// The subset of NVML's C API the agent calls, declared here so that the binary has no link-time
// or build-time dependency on the driver: types, constants and function signatures as NVML's
// nvml.h (API v12/v13) defines them. Only layouts the agent reads or writes are declared; opaque
// handles stay opaque. Plain declarations, no state.
#pragma once

#include <cstddef>

namespace gpucost::agent::nvml {

using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr Return kErrorFunctionNotFound = 13;
inline constexpr Return kErrorGpuIsLost = 15;
inline constexpr Return kErrorNoData = 21;
inline constexpr Return kErrorArgumentVersionMismatch = 25;
inline constexpr Return kErrorUnknown = 999;

struct DeviceSt;
using Device = DeviceSt*;  // nvmlDevice_t
struct GpmSampleSt;
using GpmSample = GpmSampleSt*;  // nvmlGpmSample_t

inline constexpr unsigned kDeviceUuidBufferSize = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE
inline constexpr unsigned kDeviceNameBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned kSystemDriverVersionBufferSize = 80;
inline constexpr unsigned long long kValueNotAvailable = ~0ULL;  // NVML_VALUE_NOT_AVAILABLE
inline constexpr unsigned kMigEnable = 1;                        // NVML_DEVICE_MIG_ENABLE
inline constexpr unsigned kNoInstance = 0xFFFFFFFFu;  // gpuInstanceId of a process outside MIG

struct Utilization {  // nvmlUtilization_t: percent over the driver's last sample period
  unsigned int gpu;
  unsigned int memory;
};

struct Memory {  // nvmlMemory_t, bytes
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct ProcessUtilizationSample {  // nvmlProcessUtilizationSample_t
  unsigned int pid;
  unsigned long long time_stamp_us;  // CPU timestamp, µs
  unsigned int sm_util;
  unsigned int mem_util;
  unsigned int enc_util;
  unsigned int dec_util;
};

struct ProcessInfo {  // nvmlProcessInfo_t (nvmlProcessInfo_v2_st), used by *_v3
  unsigned int pid;
  unsigned long long used_gpu_memory;  // bytes, or kValueNotAvailable
  unsigned int gpu_instance_id;        // kNoInstance outside MIG
  unsigned int compute_instance_id;
};

inline constexpr unsigned kGpmSupportVersion = 1;      // NVML_GPM_SUPPORT_VERSION
inline constexpr unsigned kGpmMetricsGetVersion = 1;   // NVML_GPM_METRICS_GET_VERSION
inline constexpr unsigned kGpmMetricGraphicsUtil = 1;  // NVML_GPM_METRIC_GRAPHICS_UTIL, 0..100
inline constexpr unsigned kGpmMetricSmUtil = 2;        // NVML_GPM_METRIC_SM_UTIL, 0..100

struct GpmSupport {  // nvmlGpmSupport_t
  unsigned int version;
  unsigned int is_supported_device;
};

struct GpmMetric {  // nvmlGpmMetric_t
  unsigned int metric_id;
  Return nvml_return;
  double value;
  struct {
    char* short_name;
    char* long_name;
    char* unit;
  } metric_info;
};

// nvmlGpmMetricsGet_t ends in metrics[NVML_GPM_METRIC_MAX], whose size grows between headers
// (98, 210, 333...). NVML reads and writes only the first numMetrics entries, so a short array
// is enough for the few metrics asked for.
inline constexpr size_t kGpmMetricsAsked = 8;
struct GpmMetricsGet {
  unsigned int version;
  unsigned int num_metrics;
  GpmSample sample1;
  GpmSample sample2;
  GpmMetric metrics[kGpmMetricsAsked];
};

extern "C" {
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using SystemGetDriverVersionFn = Return (*)(char*, unsigned int);
using DeviceGetCountFn = Return (*)(unsigned int*);
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*);
using DeviceGetStringFn = Return (*)(Device, char*, unsigned int);  // UUID, name
using DeviceGetUintFn = Return (*)(Device, unsigned int*);          // index, GI/CI ids, counts
using DeviceGetMigModeFn = Return (*)(Device, unsigned int*, unsigned int*);
using DeviceGetMigDeviceHandleByIndexFn = Return (*)(Device, unsigned int, Device*);
using DeviceGetUtilizationRatesFn = Return (*)(Device, Utilization*);
using DeviceGetMemoryInfoFn = Return (*)(Device, Memory*);
using DeviceGetProcessUtilizationFn = Return (*)(Device, ProcessUtilizationSample*,
                                                 unsigned int*, unsigned long long);
using DeviceGetComputeRunningProcessesFn = Return (*)(Device, unsigned int*, ProcessInfo*);
using DeviceGetTotalEnergyConsumptionFn = Return (*)(Device, unsigned long long*);
using GpmQueryDeviceSupportFn = Return (*)(Device, GpmSupport*);
using GpmSampleAllocFn = Return (*)(GpmSample*);
using GpmSampleFreeFn = Return (*)(GpmSample);
using GpmSampleGetFn = Return (*)(Device, GpmSample);
using GpmMigSampleGetFn = Return (*)(Device, unsigned int, GpmSample);
using GpmMetricsGetFn = Return (*)(GpmMetricsGet*);
}

}  // namespace gpucost::agent::nvml
