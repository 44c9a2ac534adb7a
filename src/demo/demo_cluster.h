// The built-in demo cluster: the seed scenario of DESIGN.md. One A100-40GB node in MIG single
// strategy with seven 1g.5gb slices; namespaces bu-a, bu-b and bu-c hold 3, 2 and 2 slices for
// one hour at $12/GPU-hour; dcgm-exporter-shaped per-slice activity (training busy, inference
// moderate, notebooks mostly idle). Deterministic. Stateless functions.
#pragma once

#include <string>

#include "core/time.h"

namespace gpucost {

struct DemoCluster {
  static constexpr double kPricePerGpuHour = 12.0;
  static constexpr int kScrapeIntervalS = 30;
  Window window;        // the hour the demo covers
  std::string openmetrics;  // kube-state-metrics and dcgm-exporter series, OpenMetrics 1.0
};

// `start` is the first scrape; the window is [start, start + 1h).
DemoCluster MakeDemoCluster(Instant start);

}  // namespace gpucost
