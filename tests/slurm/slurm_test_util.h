// What the Slurm tests share: a fixed day, the test data, lookups in an inventory, a flat price and
// a sink that sums the engine's records per holder.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attribution/attributor.h"
#include "core/strings.h"
#include "inventory/timeline_loader.h"
#include "slurm/slurm_timeline.h"

namespace gpucost::slurm {

inline constexpr int64_t kDay = 1772409600;  // 2026-03-02T00:00:00Z

inline Instant At(double hours) {
  return InstantFromUnixMs(kDay * 1000 + static_cast<int64_t>(std::llround(hours * 3'600'000.0)));
}

inline std::string DataPath(std::string_view name) {
  return StrCat(GPUCOST_SOURCE_DIR, "/tests/slurm/data/", name);
}

// sacct times in UTC, the window the first `hours` of kDay.
inline SlurmOptions UtcHours(double hours) {
  SlurmOptions o;
  o.format.time_zone = "UTC";
  o.window = Window{At(0), At(hours)};
  return o;
}

inline SlurmTimeline Load(std::string_view file, const SlurmOptions& options) {
  auto r = LoadSacct(DataPath(file), options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : SlurmTimeline{};
}

inline HolderIndex HolderOf(const Inventory& inv, std::string_view job) {
  for (HolderIndex h = 0; h < inv.holders.size(); ++h) {
    if (inv.holders[h].pod == job) return h;
  }
  ADD_FAILURE() << "no holder " << job;
  return kNoIndex;
}

inline NodeIndex NodeOf(const Inventory& inv, std::string_view name) {
  for (NodeIndex n = 0; n < inv.nodes.size(); ++n) {
    if (inv.nodes[n].name == name) return n;
  }
  ADD_FAILURE() << "no node " << name;
  return kNoIndex;
}

inline PriceFn Flat(double usd_per_gpu_hour) {
  return [usd_per_gpu_hour](const Node&, Window w) {
    PricePeriod p;
    p.interval = {w.start, w.end};
    p.usd_per_gpu_hour = usd_per_gpu_hour;
    p.source = PriceSource::kDefault;
    p.effective_from = w.start;
    return std::vector<PricePeriod>{p};
  };
}

// The engine's records summed per holder; idle summed apart.
class Sink final : public CostSink {
 public:
  void Consume(std::span<const CostRecord> records) override {
    for (const CostRecord& r : records) {
      if (r.is_idle()) {
        idle_usd += r.allocated_usd;
        continue;
      }
      gpu_hours[r.holder] += r.gpu_hours;
      unmeasured[r.holder] += r.unmeasured_gpu_hours;
      if (std::isfinite(r.activity_gpu_hours)) activity[r.holder] += r.activity_gpu_hours;
      if (std::isfinite(r.effective_usd)) effective[r.holder] += r.effective_usd;
      allocated[r.holder] += r.allocated_usd;
      estimated[r.holder] = estimated[r.holder] || r.estimated;
      units[r.holder].insert(r.unit);
    }
  }
  std::map<HolderIndex, double> gpu_hours, unmeasured, activity, effective, allocated;
  std::map<HolderIndex, bool> estimated;
  std::map<HolderIndex, std::set<UnitIndex>> units;
  double idle_usd = 0;
};

// Attributes the timeline's window at a flat price and checks conservation: allocated + idle =
// the nodes' GPU cost.
inline Sink Attribute(const LoadedTimeline& t, double usd_per_gpu_hour,
                      AttributionSummary* summary_out = nullptr) {
  AttributionOptions ao;
  ao.window = t.window;
  Sink sink;
  auto summary = gpucost::Attribute(t.inventory, t.usage, Flat(usd_per_gpu_hour), ao, sink);
  EXPECT_TRUE(summary.ok()) << summary.status().ToString();
  if (summary.ok()) {
    EXPECT_NEAR(summary->allocated_usd + summary->idle_usd, summary->node_cost_usd, 1e-9);
    if (summary_out != nullptr) *summary_out = *summary;
  }
  return sink;
}

}  // namespace gpucost::slurm
