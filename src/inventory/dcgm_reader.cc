#include "inventory/dcgm_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/strings.h"
#include "inventory/sample_labels.h"

namespace gpucost {
namespace {

constexpr double kInt64BlankFloor = 9.2233720368547e18;  // 0x7ffffffffffffff0, rounded down
constexpr double kFp64Blank = 140737488355328.0;            // DCGM_FP64_BLANK (2^47)

struct MetricInfo {
  UsageMetric metric;
  ValueUnit default_unit;
};

// AMD's device metrics exporter: graphics engine activity in percent, "applicable for
// unpartitioned GPU" (its metrics list); some deployments prefix the names with "amd_".
bool IsAmdActivity(std::string_view name) {
  return name == "gpu_gfx_activity" || name == "amd_gpu_gfx_activity";
}

// The same exporter's per-XCC activity, in percent (its GPUUsage.GFXBusyInst: "instantaneous
// graphics utilization per accelerated compute core as a percentage"), labelled xcc_index: on a
// partitioned GPU each partition is a device of its own (gpu_partition_id) with its XCCs.
bool IsAmdXccBusy(std::string_view name) {
  return name == "gpu_gfx_busy_instantaneous" || name == "amd_gpu_gfx_busy_instantaneous";
}

// A non-negative integer label, or -1.
int AmdIndexLabel(const SampleView& s, std::string_view key) {
  const std::string_view v = LabelValue(s, key);
  int out = -1;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc() && p == v.data() + v.size() && out >= 0 ? out : -1;
}

bool UsageMetricOf(std::string_view name, MetricInfo& out) {
  if (IsAmdActivity(name) || IsAmdXccBusy(name)) {
    out = {UsageMetric::kGpuUtil, ValueUnit::kPercent};
    return true;
  }
  if (name == "DCGM_FI_PROF_GR_ENGINE_ACTIVE" || name == "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO") {
    out = {UsageMetric::kGrEngine, ValueUnit::kRatio};
    return true;
  }
  if (name == "DCGM_FI_DEV_GPU_UTIL") {
    out = {UsageMetric::kGpuUtil, ValueUnit::kPercent};
    return true;
  }
  if (name == "DCGM_FI_DEV_GPU_UTIL_RATIO") {
    // Renamed in 4.9 with a unit change; the exact rendering was not confirmed, so the HELP text
    // or the values decide.
    out = {UsageMetric::kGpuUtil, ValueUnit::kUnknown};
    return true;
  }
  return false;
}

// The unit a HELP text states, if it states one. "0-100" and "%" mean percent; "ratio", "0-1",
// "0.0-1.0" and "0..1" mean a ratio. Percent markers are tested first ("0-100" contains "0-1").
ValueUnit UnitFromHelp(std::string_view help) {
  const std::string h = ToLower(help);
  if (h.find('%') != std::string::npos || h.find("percent") != std::string::npos ||
      h.find("0-100") != std::string::npos || h.find("0..100") != std::string::npos) {
    return ValueUnit::kPercent;
  }
  if (h.find("ratio") != std::string::npos || h.find("0-1") != std::string::npos ||
      h.find("0.0-1.0") != std::string::npos || h.find("0..1") != std::string::npos) {
    return ValueUnit::kRatio;
  }
  return ValueUnit::kUnknown;
}

std::string HostOf(const SampleView& s) {
  for (std::string_view key : {"Hostname", "hostname", "node", "kubernetes_node", "nodename"}) {
    const std::string_view v = LabelValue(s, key);
    if (!v.empty()) return std::string(v);
  }
  std::string_view instance = LabelValue(s, "instance");
  // "10.0.0.7:9400" -> "10.0.0.7"; bracketed IPv6 keeps its brackets.
  if (const size_t colon = instance.rfind(':');
      colon != std::string_view::npos && instance.find(']') == std::string_view::npos) {
    instance = instance.substr(0, colon);
  }
  return std::string(instance);
}

bool LooksLikeExporterPod(const PodRef& p) {
  return p.container == "exporter" || p.container == "dcgm-exporter" ||
         p.container == "nvidia-dcgm-exporter" || p.pod.starts_with("dcgm-exporter") ||
         p.pod.starts_with("nvidia-dcgm-exporter");
}

}  // namespace

bool IsDcgmBlank(double v) {
  return !std::isfinite(v) || v >= kInt64BlankFloor || v >= kFp64Blank;
}

void DcgmReader::OnMetadata(const MetadataView& m) {
  if (m.kind == MetadataKind::kHelp) {
    units_[std::string(m.family)] = UnitFromHelp(m.text);
  } else if (m.kind == MetadataKind::kUnit) {
    const std::string u = ToLower(m.text);
    if (u == "ratio") units_[std::string(m.family)] = ValueUnit::kRatio;
    if (u == "percent") units_[std::string(m.family)] = ValueUnit::kPercent;
  }
}

namespace {

// A blank is "no data" at this instant, not a zero: it is kept as NaN so that it also ends the
// previous sample's validity (the engine counts NaN samples as unmeasured time).
double UsageValue(double v) { return IsDcgmBlank(v) ? std::nan("") : v; }

// A negative activity is no measurement: read as a blank (unmeasured, never a measured zero that
// would make the holder's whole allocation waste), with a warning naming where.
double CheckedUsageValue(const SampleView& s, const std::string& source, Diagnostics& diag) {
  if (!(s.value < 0)) return UsageValue(s.value);
  diag.Warn("negative-usage", source, s,
            StrCat(s.name, " is negative (", s.value, "); read as no sample (unmeasured)"));
  return std::nan("");
}

}  // namespace

bool DcgmReader::OnSample(const SampleView& s, int64_t t_ms, const std::string& source,
                          Diagnostics& diag) {
  const bool xcc_busy = IsAmdXccBusy(s.name);
  const bool amd = IsAmdActivity(s.name) || xcc_busy;
  if (!s.name.starts_with("DCGM_") && !amd) return false;
  if (const Resolved* known = resolved_.Find(s)) {
    known->device->seen.Add(t_ms, 1);
    if (known->pod_labels != nullptr) known->pod_labels->Add(t_ms, 1);
    if (known->hpc_job != nullptr) known->hpc_job->Add(t_ms, 1);
    if (known->usage != nullptr) AddUsage(*known->usage, t_ms, s, source, diag);
    return true;
  }
  std::string uuid = LabelString(s, "UUID");
  if (uuid.empty()) uuid = LabelString(s, "uuid");
  std::string amd_mode;  // the compute partition mode of an AMD partition's series
  int partition = -1;
  int xcc = -1;
  if (amd) {
    const std::string mode = ToLower(LabelValue(s, "gpu_compute_partition_type"));
    const bool partitioned = !mode.empty() && mode != "spx";
    // gpu_gfx_activity measures unpartitioned GPUs only (on a partition it is the primary
    // partition's copy of the GPU's value); the XCC series measure partitions, and unpartitioned
    // GPUs are measured by gpu_gfx_activity.
    if (xcc_busy && !partitioned) return true;
    if (!xcc_busy && partitioned) {
      diag.Warn("amd-partition-activity", source, s.line,
                StrCat(SeriesText(s), ": gfx activity of a ", mode,
                       " partition is not measured by this metric (AMD: unpartitioned GPUs only); "
                       "ignored, the partition is measured by gpu_gfx_busy_instantaneous"));
      return true;
    }
    if (xcc_busy) {
      // One device per partition: GPU serial_number (the partitions of one GPU share it),
      // instance gpu_partition_id.
      uuid = LabelString(s, "serial_number");
      partition = AmdIndexLabel(s, "gpu_partition_id");
      xcc = std::max(0, AmdIndexLabel(s, "xcc_index"));
      if (uuid.empty() || partition < 0) {
        diag.Warn("amd-partition-unplaced", source, s.line,
                  StrCat(SeriesText(s), ": a ", mode,
                         " partition's activity without a serial_number or numeric "
                         "gpu_partition_id cannot be placed on its GPU; ignored"));
        return true;
      }
      amd_mode = mode;
    } else {
      uuid = LabelString(s, "gpu_uuid");
      if (uuid.empty()) uuid = LabelString(s, "serial_number");
      if (uuid.empty() && !LabelValue(s, "gpu_id").empty())
        uuid = StrCat("amd-gpu", LabelValue(s, "gpu_id"));
    }
  }
  if (uuid.empty()) return true;  // NVSwitch, CPU and link entities: not GPUs
  DeviceKey dev;
  const std::string_view cluster = LabelValue(s, "cluster");
  dev.cluster = cluster.empty() ? default_cluster_ : std::string(cluster);
  dev.host = HostOf(s);
  dev.uuid = std::move(uuid);
  if (dev.host.empty()) {
    diag.Warn("dcgm-no-host", source, s,
              StrCat("dcgm series of ", dev.uuid,
                     " has no Hostname/hostname/instance label; its "
                     "GPU is placed on a node named after the UUID"));
    dev.host = dev.uuid;
  }
  // DCGM writes its blank "<<<NULL>>>" as the profile of a GPU that is no MIG instance, with a
  // GPU_I_ID of "0" beside it (seen on non-MIG A100s): that series is of the whole GPU.
  const bool blank_profile = LabelValue(s, "GPU_I_PROFILE") == "<<<NULL>>>";
  const std::string_view gi_text = blank_profile ? std::string_view() : LabelValue(s, "GPU_I_ID");
  if (partition >= 0) {
    dev.gpu_instance_id = partition;
  } else if (!gi_text.empty()) {
    int gi = -1;
    auto [p, ec] = std::from_chars(gi_text.data(), gi_text.data() + gi_text.size(), gi);
    if (ec == std::errc() && p == gi_text.data() + gi_text.size() && gi >= 0) {
      dev.gpu_instance_id = gi;
    }
  }
  DcgmDevice& device = data_.devices[dev];
  device.seen.Add(t_ms, 1);
  // A series with a warning is not remembered, so that each of its samples warns as before.
  const bool memo = resolved_.Worth(s) && dev.host != dev.uuid;
  Resolved next;
  next.device = &device;
  if (const std::string_view g = LabelValue(s, amd ? "gpu_id" : "gpu");
      !g.empty() && device.gpu_index < 0) {
    int idx = -1;
    if (std::from_chars(g.data(), g.data() + g.size(), idx).ec == std::errc()) {
      device.gpu_index = idx;
    }
  }
  if (device.model.empty()) device.model = LabelString(s, amd ? "card_series" : "modelName");
  if (device.profile.empty() && !amd_mode.empty()) device.profile = amd_mode;
  if (const std::string_view prof = LabelValue(s, "GPU_I_PROFILE");
      device.profile.empty() && !prof.empty() && !blank_profile) {
    device.profile = std::string(prof);
  }

  // Pod labels: exported_* after Prometheus relabelling, else the exporter's own spellings.
  PodRef exported{LabelString(s, "exported_namespace"), LabelString(s, "exported_pod"),
                  LabelString(s, "exported_container"), LabelString(s, "exported_pod_uid")};
  PodRef direct{LabelString(s, "namespace"), LabelString(s, "pod"), LabelString(s, "container"),
                LabelString(s, "pod_uid")};
  if (direct.pod.empty()) {
    direct = PodRef{LabelString(s, "pod_namespace"), LabelString(s, "pod_name"),
                    LabelString(s, "container_name"), direct.pod_uid};
  }
  if (exported.pod_uid.empty() && !exported.pod.empty()) exported.pod_uid = direct.pod_uid;
  if (!exported.pod.empty()) data_.saw_exported_labels = true;
  PodRef pod;
  bool from_direct = false;
  switch (mode_) {
    case DcgmPodLabels::kAuto:
      if (!exported.pod.empty()) {
        pod = exported;
      } else if (!direct.pod.empty() && !LooksLikeExporterPod(direct)) {
        pod = direct;
        from_direct = true;
      }
      break;
    case DcgmPodLabels::kDirect: pod = direct; from_direct = true; break;
    case DcgmPodLabels::kExported: pod = exported; break;
  }
  if (pod.pod.empty()) pod = PodRef{};
  const std::string vgpu = pod.empty() ? std::string() : LabelString(s, "vgpu");
  if (!pod.empty()) {
    next.pod_labels = &data_.pod_labels[DcgmPodLabelKey{dev, pod, !vgpu.empty(), from_direct}];
    next.pod_labels->Add(t_ms, 1);
  }

  // HPC job mapping: one series copy per job listed for the device (dcgm-exporter hpc.go).
  if (const std::string_view job = Trim(LabelValue(s, "hpc_job")); !job.empty()) {
    next.hpc_job = &data_.hpc_jobs[DcgmHpcJobKey{dev, std::string(job)}];
    next.hpc_job->Add(t_ms, 1);
  }
  const auto remember = [&] {
    if (memo) resolved_.Remember(s, next);
  };

  MetricInfo info{};
  // GPU_UTIL is not supported on MIG instances and reads 0 there (dcgm-exporter #216); AMD's
  // per-XCC activity of a partition is the partition's own.
  if (!UsageMetricOf(s.name, info) ||
      (info.metric == UsageMetric::kGpuUtil && dev.gpu_instance_id >= 0 && !xcc_busy)) {
    remember();
    return true;
  }
  DcgmUsageSeries& series =
      data_.usage[DcgmUsageKey{std::move(dev), info.metric, pod, vgpu, from_direct, xcc}];
  if (series.first_line == 0) {
    series.source = source;
    series.first_line = s.line;
    // A metric's own unit wins over what its HELP says: dcgm-exporter's HELP of the PROF ratios
    // reads "Ratio of time the graphics engine is active (in %)." over values of 0 to 1, and
    // taking the "%" divided real utilization by 100. HELP (or UNIT) decides only for a name
    // whose unit is not fixed (DCGM_FI_DEV_GPU_UTIL_RATIO, renamed in 4.9).
    auto it = units_.find(s.name);
    series.unit = info.default_unit == ValueUnit::kUnknown && it != units_.end() &&
                          it->second != ValueUnit::kUnknown
                      ? it->second
                      : info.default_unit;
  }
  AddUsage(series, t_ms, s, source, diag);
  next.usage = &series;
  remember();
  return true;
}

void DcgmReader::AddUsage(DcgmUsageSeries& series, int64_t t_ms, const SampleView& s,
                          const std::string& source, Diagnostics& diag) {
  const double value = CheckedUsageValue(s, source, diag);
  conflicts_.OnAdd(&series.points, series.points.Add(t_ms, value), s, t_ms, value, source, diag);
}

// Presence series hold 1 at every sample: they cannot conflict.
void DcgmReader::Finish(Diagnostics& diag) {
  for (auto& [k, d] : data_.devices) d.seen.Finish();
  for (auto& [k, u] : data_.usage) conflicts_.OnFinish(&u.points, u.points.Finish(), diag);
  for (auto& [k, p] : data_.pod_labels) p.Finish();
  for (auto& [k, p] : data_.hpc_jobs) p.Finish();
}

}  // namespace gpucost
