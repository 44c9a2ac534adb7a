// Hand-made inventories and CostRecords for the report tests: no engine involved.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "model/cost_record.h"
#include "model/inventory.h"
#include "report/aggregator.h"

namespace gpucost::report_test {

inline const Instant kT0 = InstantFromUnixMs(1'759'276'800'000);  // 2025-10-01T00:00:00Z
inline const Window kHour{kT0, kT0 + std::chrono::hours(1)};

// Four one-GPU nodes: n1, n2, n3 in cluster prod, n4 in cluster dev; unit i is on node i.
// Holders: 0 a/web-0 (team x, app=web), 1 b/api-0 (team y), 2 a/db-0 (team y, app=db),
// 3 c/train-0 (team z) on dev.
inline Inventory FourNodes() {
  Inventory inv;
  const char* names[] = {"n1", "n2", "n3", "n4"};
  for (int i = 0; i < 4; ++i) {
    Node n;
    n.cluster = i < 3 ? "prod" : "dev";
    n.name = names[i];
    n.physical_gpus = 1;
    n.gpu_model = i == 1 ? "Tesla T4" : "NVIDIA A100-SXM4-40GB";
    n.capacity_type = i == 1 ? "spot" : "on_demand";
    n.labels = LabelSet{{"pool", i < 2 ? "gpu-a" : "gpu-b"}};
    inv.nodes.push_back(n);
    GpuUnit u;
    u.node = static_cast<NodeIndex>(i);
    u.gpu_uuid = std::string("GPU-") + names[i];
    u.gpu_model = n.gpu_model;
    inv.units.push_back(u);
  }
  auto holder = [&](std::string ns, std::string pod, std::string team, LabelSet labels) {
    Holder h;
    h.cluster = "prod";
    h.namespace_name = std::move(ns);
    h.pod = pod;
    h.container = "main";
    h.workload = pod.substr(0, pod.find('-'));
    h.workload_kind = "StatefulSet";
    h.team = std::move(team);
    h.labels = std::move(labels);
    inv.holders.push_back(h);
  };
  holder("a", "web-0", "x", LabelSet{{"app", "web"}});
  holder("b", "api-0", "y", LabelSet{});
  holder("a", "db-0", "y", LabelSet{{"app", "db"}});
  holder("c", "train-0", "z", LabelSet{});
  inv.holders[3].cluster = "dev";
  return inv;
}

// A measured holder record: `u` is the utilization (NaN: unmeasured).
inline CostRecord Held(int64_t step, UnitIndex unit, HolderIndex holder, double gpu_hours,
                       double allocated_usd, double u) {
  CostRecord r;
  r.step = step;
  r.unit = unit;
  r.holder = holder;
  r.gpu_hours = gpu_hours;
  r.allocated_usd = allocated_usd;
  r.price_source = PriceSource::kDefault;
  if (std::isnan(u)) {
    r.unmeasured_gpu_hours = gpu_hours;
  } else {
    r.effective_usd = allocated_usd * u;
    r.activity_gpu_hours = gpu_hours * u;
  }
  return r;
}

inline CostRecord Idle(int64_t step, UnitIndex unit, double gpu_hours, double idle_usd) {
  CostRecord r;
  r.step = step;
  r.unit = unit;
  r.holder = kNoIndex;
  r.gpu_hours = gpu_hours;
  r.allocated_usd = idle_usd;
  r.price_source = PriceSource::kDefault;
  return r;
}

inline CostRecord Unpriced(CostRecord r) {
  r.price_known = false;
  r.price_source = PriceSource::kUnknown;
  r.allocated_usd = NAN;
  r.effective_usd = NAN;
  return r;
}

inline AggregatorOptions Options(std::string_view by, bool accumulate = true) {
  AggregatorOptions o;
  o.window = kHour;
  o.engine_step = std::chrono::minutes(1);
  o.accumulate = accumulate;
  o.by = ParseDimensions(by).value();
  return o;
}

inline Report Aggregate(const Inventory& inv, const AggregatorOptions& options,
                        const std::vector<CostRecord>& records) {
  auto agg = Aggregator::Create(inv, options);
  agg->Consume(records);
  return agg->Finish();
}

inline const ReportRow* FindRow(const Report& report, const std::vector<std::string>& values,
                                int64_t bucket = 0) {
  for (const ReportRow& r : report.rows) {
    if (r.values == values && r.bucket == bucket) return &r;
  }
  return nullptr;
}

}  // namespace gpucost::report_test
