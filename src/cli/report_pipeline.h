// The report pipeline shared by `gpucost report` and `gpucost demo`: timelines + prices →
// attribution engine → aggregator → Report, with the conservation check on the way out.
#pragma once

#include <string>
#include <vector>

#include "attribution/attributor.h"
#include "core/result.h"
#include "inventory/inventory_builder.h"
#include "model/price.h"
#include "report/aggregator.h"
#include "report/report.h"

namespace gpucost::cli {

struct ReportSettings {
  Window window;
  Duration step = std::chrono::seconds(60);
  Duration staleness = std::chrono::minutes(5);
  bool accumulate = false;
  std::vector<Dimension> by;
  IdleOptions idle;
};

struct ReportRun {
  Report report;
  AttributionSummary summary;
};

// Runs the engine over `timeline` and aggregates. Fails if Σ allocated + Σ idle differs from the
// nodes' GPU cost by more than 1e-9 relative (an internal error: it should never happen).
Result<ReportRun> RunReport(const LoadedTimeline& timeline, const PriceFn& price,
                            const ReportSettings& settings);

}  // namespace gpucost::cli
