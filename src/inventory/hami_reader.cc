#include "inventory/hami_reader.h"

#include <charconv>
#include <cmath>

#include "core/strings.h"
#include "inventory/sample_labels.h"

namespace gpucost {
namespace {

// The label names of one metric family: HAMi 2.9's, or the legacy ones.
struct HamiNames {
  std::string_view node, index, uuid, type;  // host series
  std::string_view ns, pod, container;       // container series
};
constexpr HamiNames kCurrent{"node",      "device_index", "device_uuid", "device_type",
                             "namespace", "pod",          "container"};
constexpr HamiNames kLegacy{"nodeid",       "deviceidx", "deviceuuid", "devicetype",
                            "podnamespace", "podname",   "ctrname"};

int IndexOf(std::string_view text) {
  int v = -1;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && p == text.data() + text.size() && v >= 0 ? v : -1;
}

}  // namespace

bool HamiReader::OnSample(const SampleView& s, int64_t t_ms, const std::string& source,
                          Diagnostics& diag) {
  const std::string_view name = s.name;
  const bool host = name == "hami_host_gpu_utilization_ratio" || name == "HostCoreUtilization";
  const bool container = name == "hami_container_device_utilization_ratio" ||
                         name == "Device_utilization_desc_of_container";
  if (!host && !container) return false;
  const HamiNames& n = name.starts_with("hami_") ? kCurrent : kLegacy;
  const std::string_view cluster = LabelValue(s, "cluster");
  // Percents: NVML's utilization rate of the GPU, and the sum of the container's processes'
  // SM utilization samples.
  if (!std::isfinite(s.value) || s.value < 0) {
    diag.Warn(
        StrCat("hami-bad-value:", name), source, s.line,
        StrCat(SeriesText(s), ": utilization ", s.value, " is not a percent; sample skipped"));
    return true;
  }
  const double ratio = std::min(1.0, s.value / 100.0);
  if (host) {
    HamiGpuKey key{cluster.empty() ? default_cluster_ : std::string(cluster),
                   std::string(ExporterLabel(s, n.node)), LabelString(s, n.uuid)};
    if (key.node.empty() || key.uuid.empty()) {
      diag.Warn(StrCat("hami-no-node:", name), source, s,
                StrCat(name, " without a ", n.node, " or ", n.uuid, " label; ignored"));
      return true;
    }
    HamiGpu& g = data_.gpus[std::move(key)];
    if (g.first_line == 0) {
      g.source = source;
      g.first_line = s.line;
      g.index = IndexOf(LabelValue(s, n.index));
      g.device_type = LabelString(s, n.type);
    }
    conflicts_.OnAdd(&g.utilization, g.utilization.Add(t_ms, ratio), s, t_ms, ratio, source, diag);
    return true;
  }
  HamiContainerKey key{cluster.empty() ? default_cluster_ : std::string(cluster),
                       std::string(ExporterLabel(s, n.ns)), std::string(ExporterLabel(s, n.pod)),
                       std::string(ExporterLabel(s, n.container)), LabelString(s, n.uuid)};
  if (key.namespace_name.empty() || key.pod.empty() || key.container.empty() || key.uuid.empty()) {
    diag.Warn(StrCat("hami-incomplete:", name), source, s,
              StrCat(name, " without ", n.ns, ", ", n.pod, ", ", n.container, " or ", n.uuid,
                     "; ignored"));
    return true;
  }
  HamiContainer& c = data_.containers[std::move(key)];
  if (c.first_line == 0) {
    c.source = source;
    c.first_line = s.line;
  }
  conflicts_.OnAdd(&c.utilization, c.utilization.Add(t_ms, ratio), s, t_ms, ratio, source, diag);
  return true;
}

void HamiReader::Finish(Diagnostics& diag) {
  for (auto& [k, g] : data_.gpus) conflicts_.OnFinish(&g.utilization, g.utilization.Finish(), diag);
  for (auto& [k, c] : data_.containers) {
    conflicts_.OnFinish(&c.utilization, c.utilization.Finish(), diag);
  }
}

}  // namespace gpucost
