#include "cli/segmented_report.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <unordered_set>
#include <utility>

#include "attribution/inventory_union.h"
#include "core/strings.h"

namespace gpucost::cli {

std::vector<Window> PlanSegments(Window window, Duration step, Duration segment) {
  std::vector<Window> out;
  if (window.empty()) return out;
  if (segment <= Duration(0) || step <= Duration(0)) return {window};
  const Duration length = ((segment + step - Duration(1)) / step) * step;
  for (Instant t = window.start; t < window.end; t += length) {
    out.push_back({t, std::min(window.end, t + length)});
  }
  return out;
}

Result<SegmentedRun> RunSegmentedReport(const SegmentLoader& load, const PriceFn& price,
                                        const ReportSettings& settings, Duration segment,
                                        bool progress) {
  if (settings.replay != nullptr) {
    return Status::Internal("ledger records cannot be attributed in segments");
  }
  InventoryUnion units;
  AggregatorOptions agg;
  agg.window = settings.window;
  agg.engine_step = settings.step;
  agg.accumulate = settings.accumulate;
  agg.by = settings.by;
  agg.idle = settings.idle;
  GPUCOST_ASSIGN_OR_RETURN(Aggregator aggregator, Aggregator::Create(units.inventory(), agg));

  SegmentedRun out;
  std::vector<PoolDraw> carried;  // in the union's indexes
  std::unordered_set<std::string> said;
  const std::vector<Window> plan = PlanSegments(settings.window, settings.step, segment);
  for (size_t i = 0; i < plan.size(); ++i) {
    const Window& seg = plan[i];
    if (progress) {
      std::fprintf(stderr, "\rgpucost: segment %zu of %zu (%s to %s)", i + 1, plan.size(),
                   FormatRfc3339(seg.start).c_str(), FormatRfc3339(seg.end).c_str());
      std::fflush(stderr);
    }
    const Window fetch{seg.start, std::min(settings.window.end, seg.end + settings.staleness)};
    GPUCOST_ASSIGN_OR_RETURN(LoadedTimeline timeline, load(fetch));
    out.samples += timeline.samples;
    for (InputWarning& w : timeline.warnings) {
      if (said.insert(w.ToString()).second) out.warnings.push_back(std::move(w));
    }
    const SegmentIndexes indexes = units.Add(timeline.inventory);
    AttributionOptions options;
    options.window = seg;
    options.step = settings.step;
    options.staleness = settings.staleness;
    options.prior_draws = units.ToSegment(carried, indexes);
    SegmentSink sink(aggregator, indexes, (seg.start - settings.window.start) / settings.step);
    GPUCOST_ASSIGN_OR_RETURN(AttributionSummary summary,
                             Attribute(timeline.inventory, timeline.usage, price, options, sink));
    carried = units.ToUnion(summary.open_draws, indexes);
    AddSegmentSummary(out.run.summary, std::move(summary));
    ++out.segments;
  }
  if (progress) std::fputc('\n', stderr);
  out.run.summary.open_draws.clear();
  if (out.samples == 0) {
    return Status::InvalidArgument(StrCat("the source returned no samples from ",
                                          FormatRfc3339(settings.window.start), " to ",
                                          FormatRfc3339(settings.window.end)));
  }
  out.run.report = aggregator.Finish();
  GPUCOST_RETURN_IF_ERROR(CheckConservation(out.run));
  return out;
}

}  // namespace gpucost::cli
