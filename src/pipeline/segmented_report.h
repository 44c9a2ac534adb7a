// A report over a long window attributed in segments, one after the other: each segment is
// loaded from the source, attributed and released (the next one loading meanwhile), so memory
// holds two segments' samples rather than the window's. The segments' records meet in one
// InventoryUnion, and the pool draws of holdings that run across a boundary are carried over, so
// the report is that of one attribution of the whole window (docs/prometheus.md, "Segments").
// Thread-compatible.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "attribution/inventory_union.h"
#include "core/result.h"
#include "inventory/inventory_builder.h"
#include "pipeline/report_pipeline.h"

namespace gpucost {

// The timeline of `window`: the source's samples from window.start - SampleLookback(staleness) to
// window.end + SampleLookahead(staleness).
// A window without samples is no error (the cluster may not have existed yet).
using SegmentLoader = std::function<Result<LoadedTimeline>(Window window)>;

// How long segments are: the first `first` long (0: the whole window at once), each after it
// sized from the one before so that it holds about `target_samples` samples (a segment's memory
// follows its samples, ~5 bytes each: docs/perf.md), growing at most kMaxSegmentGrowth times
// from one to the next; `target_samples` 0 keeps every segment `first` long. Lengths are whole
// steps, so that every step lies in one segment.
struct SegmentSizing {
  Duration first = std::chrono::hours(24);
  uint64_t target_samples = 20'000'000;
};
inline constexpr double kMaxSegmentGrowth = 8;

// The length of the segment after one of `length` that held `samples`: at least one step.
Duration NextSegmentLength(Duration length, uint64_t samples, const SegmentSizing& sizing,
                           Duration step);

struct SegmentedRun {
  ReportRun run;
  std::vector<InputWarning> warnings;  // the loader's, each once
  uint64_t samples = 0;
  size_t segments = 0;
  std::vector<KeyedDraw> open_draws;  // the pool draws of holdings running at the window's end
};

struct SegmentedOptions {
  SegmentSizing sizing;
  // Receives every record too, as the report does (a sink built on the union's inventory).
  CostSink* also = nullptr;
  bool progress = false;  // a progress line on stderr
  // Called with each segment once its records went to the sinks (`also` may store them then); an
  // error stops the run.
  std::function<Status(Window segment)> after_segment = nullptr;
  // The draws of holdings already running at the window's start (a write before this one ended
  // there): the first segment places them first, as the next segments do theirs.
  std::vector<KeyedDraw> prior_draws = {};
};

// RunReport over settings.window (which it must hold, with no records to replay), from
// load(w) for each segment [s, e) (sized by options.sizing), with w = [s, min(e + staleness,
// window.end)): the samples just after a boundary end the presence of what runs across it as one
// load of the whole window would. Records reach the report (and options.also) in the indexes of
// `units`, which gathers the segments' nodes, units and holders. `load` may be called from
// another thread than the caller's, one call at a time, in segment order. InvalidArgument when no
// segment had a sample.
Result<SegmentedRun> RunSegmentedReport(const SegmentLoader& load, const PriceFn& price,
                                        const ReportSettings& settings, InventoryUnion& units,
                                        const SegmentedOptions& options);

}  // namespace gpucost
