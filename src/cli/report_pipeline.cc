#include "cli/report_pipeline.h"

#include <cmath>

#include "core/strings.h"

namespace gpucost::cli {

Result<ReportRun> RunReport(const LoadedTimeline& timeline, const PriceFn& price,
                            const ReportSettings& settings) {
  AggregatorOptions agg;
  agg.window = settings.window;
  agg.engine_step = settings.step;
  agg.accumulate = settings.accumulate;
  agg.by = settings.by;
  agg.idle = settings.idle;
  GPUCOST_ASSIGN_OR_RETURN(Aggregator aggregator, Aggregator::Create(timeline.inventory, agg));

  AttributionOptions options;
  options.window = settings.window;
  options.step = settings.step;
  options.staleness = settings.staleness;
  ReportRun run;
  GPUCOST_ASSIGN_OR_RETURN(run.summary,
                           Attribute(timeline.inventory, timeline.usage, price, options, aggregator));
  run.report = aggregator.Finish();

  // Conservation, end to end: what the report says the GPUs cost is what the nodes cost.
  const double want = run.summary.node_cost_usd;
  const double got = run.report.totals.cost_usd;
  if (std::isfinite(got) && std::fabs(got - want) > 1e-9 * std::max(1.0, std::fabs(want))) {
    return Status::Internal(StrCat("conservation violated: report cost ", got,
                                   " USD != node GPU cost ", want, " USD"));
  }
  return run;
}

}  // namespace gpucost::cli
