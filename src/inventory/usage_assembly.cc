// Usage: one activity series per device (whole GPU, MIG instance or AMD compute partition, the
// mean of its XCCs), GR_ENGINE_ACTIVE preferred over GPU_UTIL, in ratio units; per-holder series
// only where dcgm-exporter measured per process. Copies of one device value (one pod label per
// shared GPU, or per-pod copies in virtual-GPU mode) are device activity and are never summed.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "core/strings.h"
#include "inventory/assembly.h"

namespace gpucost {
namespace {

struct Normalised {
  const DcgmUsageKey* key;
  std::vector<Point> values;  // t -> ratio 0..1, in time order, one per instant
  bool has_pod = false;
};

double Clamp01(double v) { return std::clamp(v, 0.0, 1.0); }  // NaN stays NaN

// Combines two values for one instant: NaN (no data) never hides a measured value, and a
// measured value is never turned into NaN. `sum` adds (per-process parts), else keeps the max
// (copies of one device value). Either way the order of combining does not matter.
double Combine(double have, double v, bool sum) {
  if (std::isnan(v)) return have;
  if (std::isnan(have)) return v;
  return sum ? Clamp01(have + v) : std::max(have, v);
}

// The series of `list` as one, each instant's values combined.
std::vector<Point> Merged(const std::vector<Normalised>& list, bool sum) {
  if (list.size() == 1) return list.front().values;
  std::vector<Point> all;
  size_t n = 0;
  for (const Normalised& x : list) n += x.values.size();
  all.reserve(n);
  for (const Normalised& x : list) all.insert(all.end(), x.values.begin(), x.values.end());
  std::sort(all.begin(), all.end(), [](const Point& x, const Point& y) { return x.t_ms < y.t_ms; });
  std::vector<Point> out;
  out.reserve(all.size());
  for (const Point& p : all) {
    if (!out.empty() && out.back().t_ms == p.t_ms) {
      out.back().v = Combine(out.back().v, p.v, sum);
    } else {
      out.push_back(p);
    }
  }
  return out;
}

// `device` where it has a value, `pods` at the other instants.
std::vector<Point> DeviceOverPods(const std::vector<Point>& device,
                                  const std::vector<Point>& pods) {
  std::vector<Point> out;
  out.reserve(device.size() + pods.size());
  size_t i = 0, j = 0;
  while (i < device.size() || j < pods.size()) {
    if (j == pods.size() || (i < device.size() && device[i].t_ms < pods[j].t_ms)) {
      out.push_back(device[i++]);
    } else if (i == device.size() || pods[j].t_ms < device[i].t_ms) {
      out.push_back(pods[j++]);
    } else {
      out.push_back(std::isnan(device[i].v) ? pods[j] : device[i]);
      ++i;
      ++j;
    }
  }
  return out;
}

Normalised Normalise(const DcgmUsageKey& key, const DcgmUsageSeries& s, Assembly& a) {
  Normalised out{&key, {}, false};
  double max_v = 0;
  for (const Point& p : s.points.points()) max_v = std::max(max_v, p.v);
  ValueUnit unit = s.unit;
  if (unit == ValueUnit::kUnknown) unit = max_v > 1.0 ? ValueUnit::kPercent : ValueUnit::kRatio;
  if (unit == ValueUnit::kRatio && max_v > 1.0 + 1e-6) {
    if (key.metric == UsageMetric::kGpuUtil) {
      a.diag.Warn("gpu-util-ratio-over-one", s.source, s.first_line,
                  StrCat("GPU_UTIL series labelled a ratio has values up to ", max_v,
                         "; read as percent"));
      unit = ValueUnit::kPercent;
    } else {
      a.diag.Warn("ratio-over-one", s.source, s.first_line,
                  StrCat("GR_ENGINE ratio above 1 (", max_v, "); clamped to 1"));
    }
  }
  const double divisor = unit == ValueUnit::kPercent ? 100.0 : 1.0;
  out.values.reserve(s.points.points().size());
  for (const Point& p : s.points.points())
    out.values.push_back(Point{p.t_ms, Clamp01(p.v / divisor)});
  return out;
}

// AMD partitions: the series of one device that differ only in their XCC become one, each
// instant the mean of the XCCs measured then (a partition's activity is its XCCs' mean).
std::vector<Normalised> MeanOverXccs(std::vector<Normalised> list) {
  const auto same_but_xcc = [](const DcgmUsageKey& x, const DcgmUsageKey& y) {
    return std::tie(x.pod, x.vgpu, x.pod_from_direct_labels) ==
           std::tie(y.pod, y.vgpu, y.pod_from_direct_labels);
  };
  std::vector<Normalised> out;
  std::vector<bool> done(list.size(), false);
  for (size_t i = 0; i < list.size(); ++i) {
    if (done[i]) continue;
    if (list[i].key->xcc < 0) {
      out.push_back(std::move(list[i]));
      continue;
    }
    std::map<int64_t, std::pair<double, int>> sums;  // t -> (sum, XCCs measured)
    for (size_t j = i; j < list.size(); ++j) {
      if (done[j] || list[j].key->xcc < 0 || !same_but_xcc(*list[i].key, *list[j].key)) continue;
      done[j] = true;
      for (const Point& p : list[j].values) {
        auto& [sum, n] = sums[p.t_ms];
        if (!std::isnan(p.v)) {
          sum += p.v;
          ++n;
        }
      }
    }
    Normalised merged{list[i].key, {}, list[i].has_pod};
    merged.values.reserve(sums.size());
    for (const auto& [t, sn] : sums) {
      merged.values.push_back(Point{t, sn.second > 0 ? sn.first / sn.second : std::nan("")});
    }
    out.push_back(std::move(merged));
  }
  return out;
}

bool DiffersAtSomeInstant(const std::vector<Point>& x, const std::vector<Point>& y) {
  size_t j = 0;
  for (const Point& p : x) {
    while (j < y.size() && y[j].t_ms < p.t_ms) ++j;
    if (j == y.size()) break;
    if (y[j].t_ms == p.t_ms && std::abs(y[j].v - p.v) > 1e-9) return true;
  }
  return false;
}

}  // namespace

std::vector<UsageSample> ToSamples(const std::map<int64_t, double>& m, Window keep) {
  std::vector<UsageSample> out;
  out.reserve(m.size());
  for (const auto& [t, v] : m) {
    const Instant at = InstantFromUnixMs(t);
    if (at < keep.start || at >= keep.end) continue;
    out.push_back(UsageSample{at, v});
  }
  return out;
}

std::vector<UsageSample> ToSamples(const std::vector<Point>& points, Window keep) {
  std::vector<UsageSample> out;
  out.reserve(points.size());
  for (const Point& p : points) {
    const Instant at = InstantFromUnixMs(p.t_ms);
    if (at < keep.start || at >= keep.end) continue;
    out.push_back(UsageSample{at, p.v});
  }
  return out;
}

void BuildUsage(Assembly& a) {
  // Samples just before the window still stand for its start.
  const Window keep{a.window.start - SampleLookback(a.options.staleness), a.window.end};
  using SeriesList = std::vector<std::pair<const DcgmUsageKey*, DcgmUsageSeries*>>;
  std::map<DeviceKey, SeriesList> by_dev;
  for (auto& [key, series] : a.dcgm.usage) by_dev[key.device].emplace_back(&key, &series);

  for (const auto& [dev, list] : by_dev) {
    // A device's raw points are read only here: free them once it is done, so that they and
    // the samples built from them are not all held at once.
    struct FreeWhenDone {
      const SeriesList& list;
      ~FreeWhenDone() {
        for (const auto& [k, s] : list) s->points = PointSeries{};
      }
    } free_when_done{list};
    auto host = a.host_to_node.find({dev.cluster, dev.host});
    if (host == a.host_to_node.end()) continue;
    const NodeIndex node = a.node_index.at(host->second);
    bool have_gr = false;
    for (const auto& [k, s] : list) have_gr = have_gr || k->metric == UsageMetric::kGrEngine;
    const UsageMetric metric = have_gr ? UsageMetric::kGrEngine : UsageMetric::kGpuUtil;

    std::vector<Normalised> device_level, per_pod;
    for (const auto& [k, s] : list) {
      if (k->metric != metric) continue;
      Normalised n = Normalise(*k, *s, a);
      n.has_pod = !k->pod.empty() && TrustPodLabels(a, k->pod_from_direct_labels);
      (n.has_pod ? per_pod : device_level).push_back(std::move(n));
    }
    device_level = MeanOverXccs(std::move(device_level));
    per_pod = MeanOverXccs(std::move(per_pod));
    // Per-process values (dcgm-exporter >= 4.8.2, virtual-GPU mode, GPU_UTIL with pod_uid): the
    // per-pod series of one device differ from each other or from the device series.
    bool per_process = false;
    if (metric == UsageMetric::kGpuUtil) {
      bool all_tagged = !per_pod.empty();
      for (const Normalised& p : per_pod) {
        all_tagged = all_tagged && !p.key->vgpu.empty() && !p.key->pod.pod_uid.empty();
      }
      if (all_tagged) {
        for (size_t i = 0; i < per_pod.size() && !per_process; ++i) {
          for (size_t j = i + 1; j < per_pod.size() && !per_process; ++j) {
            per_process = DiffersAtSomeInstant(per_pod[i].values, per_pod[j].values);
          }
          for (const Normalised& d : device_level) {
            per_process = per_process || DiffersAtSomeInstant(per_pod[i].values, d.values);
          }
        }
      }
    }

    // The unlabelled device series wins at every instant it has a value. Pod-labelled series
    // fill the other instants: dcgm-exporter labels a GPU's series with its pod while one holds
    // it and drops the labels while it is free, so one device alternates between label sets.
    const std::vector<Point> device_values =
        DeviceOverPods(Merged(device_level, false), Merged(per_pod, per_process));
    if (!device_values.empty()) {
      DeviceSeries ds;
      ds.node = node;
      ds.gpu_uuid = dev.uuid;
      ds.gpu_instance_id = dev.gpu_instance_id;
      ds.samples = ToSamples(device_values, keep);
      if (!ds.samples.empty()) a.usage.devices.push_back(std::move(ds));
    }
    if (!per_process) continue;
    for (const Normalised& p : per_pod) {
      const PodRef& pod = p.key->pod;
      auto it = a.holders_by_container.find({dev.cluster, pod.namespace_name, pod.pod, pod.container});
      HolderIndex holder = kNoIndex;
      if (it != a.holders_by_container.end()) {
        for (HolderIndex h : it->second) {
          if (pod.pod_uid.empty() || a.holder_uids[h].empty() || a.holder_uids[h] == pod.pod_uid) {
            holder = h;
          }
        }
      }
      if (holder == kNoIndex) {
        a.diag.Warn(StrCat("usage-no-holder:", pod.namespace_name, "/", pod.pod), "", 0,
                    StrCat("per-process GPU activity for pod ", pod.namespace_name, "/", pod.pod,
                           " container ", pod.container, ", which holds no GPU; ignored"));
        continue;
      }
      HolderDeviceSeries hs;
      hs.holder = holder;
      hs.node = node;
      hs.gpu_uuid = dev.uuid;
      hs.gpu_instance_id = dev.gpu_instance_id;
      hs.samples = ToSamples(p.values, keep);
      if (!hs.samples.empty()) a.usage.holders.push_back(std::move(hs));
    }
  }
}

}  // namespace gpucost

namespace gpucost {

std::vector<DeviceJob> BuildDeviceJobs(Assembly& a) {
  std::vector<DeviceJob> out;
  for (const auto& [key, series] : a.dcgm.hpc_jobs) {
    const DeviceKey& dev = key.device;
    auto host = a.host_to_node.find({dev.cluster, dev.host});
    if (host == a.host_to_node.end()) continue;
    const NodeIndex node = a.node_index.at(host->second);
    auto unit = a.unit_by_device.find({node, dev.uuid, dev.gpu_instance_id});
    if (unit == a.unit_by_device.end()) continue;
    DeviceJob j;
    j.node = node;
    j.unit = unit->second;
    j.job = key.job;
    j.present = ClipIntervals(PresentIntervals(series, a.presence), a.window);
    if (!j.present.empty()) out.push_back(std::move(j));
  }
  return out;
}

}  // namespace gpucost
