// Collects the series of HAMi's vGPU monitor (the `vgpu-monitor` container of HAMi's device plugin
// DaemonSet, docs/inputs.md "HAMi"): each GPU's utilization and each container's part of it, by GPU
// UUID. Both metric spellings are read: the names of HAMi 2.9 and later
// (hami_host_gpu_utilization_ratio, hami_container_device_utilization_ratio) and the older ones
// (HostCoreUtilization, Device_utilization_desc_of_container), which later releases still write
// with --legacy-metrics. Values are percents (0-100) whatever the name says; they are kept as
// ratios 0..1 of the whole GPU. What the series mean is decided by the inventory builder
// (hami_assembly.cc). Not thread-safe.
#pragma once

#include <compare>
#include <map>
#include <string>

#include "ingest/exposition.h"
#include "inventory/conflict_warnings.h"
#include "inventory/diagnostics.h"
#include "inventory/series_timeline.h"

namespace gpucost {

// A physical GPU as HAMi's host series name it.
struct HamiGpuKey {
  std::string cluster;
  std::string node;  // the Kubernetes node name
  std::string uuid;
  auto operator<=>(const HamiGpuKey&) const = default;
};

struct HamiGpu {
  int index = -1;
  std::string device_type;  // "NVIDIA-NVIDIA A100-SXM4-80GB" as HAMi writes it
  PointSeries utilization;  // ratio 0..1 of the GPU
  std::string source;
  uint64_t first_line = 0;
};

// One container's use of one GPU.
struct HamiContainerKey {
  std::string cluster;
  std::string namespace_name;
  std::string pod;
  std::string container;
  std::string uuid;
  auto operator<=>(const HamiContainerKey&) const = default;
};

struct HamiContainer {
  PointSeries utilization;  // the container's processes' part of the GPU, ratio 0..1
  std::string source;
  uint64_t first_line = 0;
};

struct HamiData {
  std::map<HamiGpuKey, HamiGpu> gpus;
  std::map<HamiContainerKey, HamiContainer> containers;
};

class HamiReader {
 public:
  explicit HamiReader(std::string default_cluster) : default_cluster_(std::move(default_cluster)) {}
  // True when the sample is one of HAMi's (used or warned about).
  bool OnSample(const SampleView& s, int64_t t_ms, const std::string& source, Diagnostics& diag);
  void Finish(Diagnostics& diag);
  HamiData& data() { return data_; }

 private:
  std::string default_cluster_;
  HamiData data_;
  ConflictWarnings conflicts_;
};

}  // namespace gpucost
