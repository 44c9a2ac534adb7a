// Clusters for the advice tests whose right answer is known by construction: a ClusterBuilder
// (tests/attribution) plus workload identity and node metadata, and the engine run that turns
// them into workload profiles.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "advise/advise_settings.h"
#include "advise/workload_profile.h"
#include "attribution/cluster_builder.h"

namespace gpucost::advise {

using testing::At;
using testing::ClusterBuilder;

inline void Identify(ClusterBuilder& b, HolderIndex h, std::string kind, std::string workload) {
  b.inventory.holders[h].workload_kind = std::move(kind);
  b.inventory.holders[h].workload = std::move(workload);
}

inline NodeIndex AddNode(ClusterBuilder& b, std::string name, std::string capacity_type,
                      std::string gpu_model = "NVIDIA A100-SXM4-80GB",
                      SharingMode sharing = SharingMode::kNone) {
  const NodeIndex n = b.AddNode(std::move(name), sharing);
  b.inventory.nodes[n].capacity_type = std::move(capacity_type);
  b.inventory.nodes[n].gpu_model = std::move(gpu_model);
  return n;
}

// Per-holder activity (0..1 of the device) on a device every 30 s in [start_s, end_s).
inline void HolderUsage(ClusterBuilder& b, HolderIndex h, NodeIndex node, std::string uuid,
                        double value, int64_t start_s, int64_t end_s) {
  HolderDeviceSeries s;
  s.holder = h;
  s.node = node;
  s.gpu_uuid = std::move(uuid);
  for (int64_t t = start_s; t < end_s; t += 30) s.samples.push_back({At(t), value});
  b.usage.holders.push_back(std::move(s));
}

// One device series that is `first` in [0, switch_s) and `then` in [switch_s, end_s), every 30 s.
inline void DeviceUsageSwitch(ClusterBuilder& b, NodeIndex node, std::string uuid, double first,
                              double then, int64_t switch_s, int64_t end_s) {
  DeviceSeries d;
  d.node = node;
  d.gpu_uuid = std::move(uuid);
  for (int64_t t = 0; t < end_s; t += 30) d.samples.push_back({At(t), t < switch_s ? first : then});
  b.usage.devices.push_back(std::move(d));
}

// No node has a known price.
inline PriceFn NoPrice() {
  return [](const Node&, Window w) {
    return std::vector<PricePeriod>{{{w.start, w.end}, 0, PriceSource::kUnknown, w.start, "none"}};
  };
}

struct Profiled {
  Window window;
  Duration step;
  std::vector<WorkloadProfile> profiles;
};

// Attributes [0, hours) at `usd_per_gpu_hour` in 5-minute steps and profiles the records.
inline Profiled ProfileCluster(const ClusterBuilder& b, double hours, PriceFn price,
                               const AdviseSettings& s = {}, SpotRateFn spot = {}) {
  AttributionOptions options;
  options.window = {At(0), At(static_cast<int64_t>(hours * 3600))};
  options.step = std::chrono::minutes(5);
  ProfileSink sink(b.inventory, options.step, s.idle_threshold, std::move(spot),
                   [s](double rate) { return s.EffectiveSpotRate(rate); });
  Result<AttributionSummary> summary = Attribute(b.inventory, b.usage, price, options, sink);
  EXPECT_TRUE(summary.ok()) << summary.status().ToString();
  return {options.window, options.step, sink.Finish()};
}

inline const WorkloadProfile* Find(const std::vector<WorkloadProfile>& profiles,
                                   std::string_view workload) {
  for (const WorkloadProfile& w : profiles) {
    if (w.workload == workload) return &w;
  }
  return nullptr;
}

}  // namespace gpucost::advise
