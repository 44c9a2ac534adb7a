// One NVML reading per collection: every GPU with its MIG instances, activity (GPM
// graphics-engine activity between this collection and the last where the GPU supports it, else
// NVML's utilization rate), memory, energy, running compute processes and the per-process
// utilization samples that arrived since the last collection (each sample counted once: the
// newest timestamp seen is passed back to NVML as lastSeenTimeStamp). A call a GPU does not
// support makes its values "not measured" (an empty optional), never zero. Owns the GPM sample
// buffers. Not thread-safe: one collector per agent, called from one thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/nvml_library.h"

namespace gpucost::agent {

struct NvmlProcess {
  uint32_t pid = 0;
  int gpu_instance_id = -1;  // MIG instance the process runs in; -1 outside MIG
  int compute_instance_id = -1;
  std::optional<uint64_t> memory_bytes;
  double sm_util_sum = 0;  // Σ of the SM percent of its samples since the last collection
  int samples = 0;         // how many samples that is
};

// A whole GPU or one MIG instance.
struct NvmlUnit {
  int gpu_instance_id = -1;  // -1: the whole GPU
  int compute_instance_id = -1;
  int mig_index = -1;        // NVML's MIG device index on the GPU (device plugins' "0:<n>")
  std::string uuid;          // the GPU's GPU-… or the instance's MIG-…
  std::string name;          // NVML's device name ("NVIDIA H100 80GB HBM3 MIG 1g.10gb")
  std::string profile;       // MIG profile from the name ("1g.10gb"), "" for a whole GPU
  std::optional<double> activity;  // 0..1
  std::string activity_source;     // "gpm" or "utilization"
  std::vector<NvmlProcess> processes;  // sorted by pid
};

struct NvmlGpu {
  unsigned int index = 0;
  int minor_number = -1;  // /dev/nvidia<minor> (GKE's device ids name GPUs by it); -1 unknown
  std::string uuid;
  std::string name;
  std::optional<bool> mig_enabled;
  std::optional<uint64_t> memory_total_bytes;
  std::optional<uint64_t> memory_used_bytes;
  std::optional<uint64_t> energy_mj;  // since the driver loaded
  // Whether per-process utilization was measured (false on MIG, or when unsupported).
  bool process_utilization = false;
  NvmlUnit whole;              // the GPU's own activity and processes (not MIG-enabled)
  std::vector<NvmlUnit> mig;   // its MIG instances, by GPU instance id
  std::map<std::string, bool> supported;  // NVML call -> whether it works on this GPU
};

struct NvmlError {
  std::string call;
  std::string error;  // NVML's text
};

struct NvmlReading {
  std::vector<NvmlGpu> gpus;
  std::vector<NvmlError> errors;  // failed calls, other than "not supported"
};

class NvmlCollector {
 public:
  explicit NvmlCollector(const NvmlLibrary& nvml) : nvml_(nvml) {}
  ~NvmlCollector();
  NvmlCollector(const NvmlCollector&) = delete;
  NvmlCollector& operator=(const NvmlCollector&) = delete;

  NvmlReading Collect();

 private:
  // GPM samples of one unit: the last collection's and a spare for this one.
  struct GpmPair {
    nvml::GpmSample previous = nullptr;
    nvml::GpmSample current = nullptr;
    bool have_previous = false;
  };
  struct GpuState {
    unsigned long long last_seen_us = 0;
    std::optional<bool> gpm_supported;
    std::map<int, GpmPair> gpm;  // by GPU instance id, -1 = whole GPU
  };

  class Calls;  // per-collection error and support bookkeeping
  void FreeGpm(GpuState& state);
  void ReadGpu(nvml::Device device, NvmlGpu& gpu, Calls& calls);
  void ReadMig(nvml::Device device, NvmlGpu& gpu, GpuState& state, Calls& calls);
  void ReadRunningProcesses(nvml::Device device, NvmlUnit& unit, NvmlGpu& gpu, Calls& calls);
  void ReadProcessUtilization(nvml::Device device, NvmlGpu& gpu, GpuState& state, Calls& calls);
  std::optional<double> GpmActivity(nvml::Device device, int gpu_instance_id, GpuState& state,
                                    Calls& calls);

  const NvmlLibrary& nvml_;
  std::map<std::string, GpuState> state_;  // by GPU UUID
};

}  // namespace gpucost::agent
