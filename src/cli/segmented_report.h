// A report over a long window attributed in segments, one after the other: each segment is
// loaded from the source, attributed and released before the next, so memory holds one
// segment's samples rather than the window's. The segments' records meet in one InventoryUnion,
// and the pool draws of holdings that run across a boundary are carried over, so the report is
// that of one attribution of the whole window (docs/prometheus.md, "Segments").
// Thread-compatible.
#pragma once

#include <functional>
#include <vector>

#include "cli/report_pipeline.h"
#include "core/result.h"
#include "inventory/inventory_builder.h"

namespace gpucost::cli {

// The timeline of `window`: the source's samples from window.start - staleness to window.end.
// A window without samples is no error (the cluster may not have existed yet).
using SegmentLoader = std::function<Result<LoadedTimeline>(Window window)>;

// [start, start + L), [start + L, start + 2L), ... with L `segment` rounded up to whole steps;
// the last one ends at window.end. One segment when `segment` is not positive.
std::vector<Window> PlanSegments(Window window, Duration step, Duration segment);

struct SegmentedRun {
  ReportRun run;
  std::vector<InputWarning> warnings;  // the loader's, each once
  uint64_t samples = 0;
  size_t segments = 0;
};

// RunReport over settings.window (which it must hold, with no records to replay), from
// load(w) for each segment [s, e) of PlanSegments, with w = [s, min(e + staleness,
// window.end)): the samples just after a boundary end the presence of what runs across it as one
// load of the whole window would. InvalidArgument when no segment had a sample.
Result<SegmentedRun> RunSegmentedReport(const SegmentLoader& load, const PriceFn& price,
                                        const ReportSettings& settings, Duration segment,
                                        bool progress = false);

}  // namespace gpucost::cli
