#include "pipeline/segmented_report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <utility>

#include "attribution/inventory_union.h"
#include "core/progress.h"
#include "core/strings.h"
#include "pipeline/input.h"

namespace gpucost {
namespace {

// The report's aggregator and, when given, the caller's sink.
class ReportAndAlso final : public CostSink {
 public:
  ReportAndAlso(CostSink& report, CostSink* also) : report_(report), also_(also) {}
  void Consume(std::span<const CostRecord> records) override {
    report_.Consume(records);
    if (also_ != nullptr) also_->Consume(records);
  }

 private:
  CostSink& report_;
  CostSink* also_;
};

}  // namespace

Duration NextSegmentLength(Duration length, uint64_t samples, const SegmentSizing& sizing,
                           Duration step) {
  if (step <= Duration(0)) return length;
  double factor = 1;
  if (sizing.target_samples > 0) {
    factor = samples == 0 ? kMaxSegmentGrowth
                          : std::min(kMaxSegmentGrowth, static_cast<double>(sizing.target_samples) /
                                                            static_cast<double>(samples));
  }
  const double steps =
      std::floor(static_cast<double>(length.count()) * factor / static_cast<double>(step.count()));
  // Far beyond any window (and within int64 milliseconds) is as good as the rest of it.
  return step *
         static_cast<int64_t>(std::clamp(steps, 1.0, 1e12 / static_cast<double>(step.count())));
}

Result<SegmentedRun> RunSegmentedReport(const SegmentLoader& load, const PriceFn& price,
                                        const ReportSettings& settings, InventoryUnion& units,
                                        const SegmentedOptions& options) {
  const SegmentSizing& sizing = options.sizing;
  const bool progress = options.progress;
  if (settings.replay != nullptr) {
    return Status::Internal("ledger records cannot be attributed in segments");
  }
  const Window window = settings.window;
  if (window.empty() || settings.step <= Duration(0)) {
    return Status::InvalidArgument("segments need a window and a positive step");
  }
  GPUCOST_ASSIGN_OR_RETURN(Aggregator aggregator,
                           Aggregator::Create(units.inventory(), ReportAggregation(settings)));
  ReportAndAlso sink_of_all(aggregator, options.also);

  SegmentedRun out;
  std::vector<PoolDraw> carried;  // in the union's indexes
  std::unordered_set<std::string> said;
  // A segment is read with the staleness after it (never past the window).
  const auto fetch = [&window, &settings](Window seg) {
    return Window{seg.start, std::min(window.end, seg.end + settings.staleness)};
  };
  const auto clip = [&window](Instant start, Duration length) {
    return Window{start, std::min(window.end, start + length)};
  };
  Duration length =
      sizing.first > Duration(0)
          ? NextSegmentLength(sizing.first, 0, SegmentSizing{sizing.first, 0}, settings.step)
          : window.length();
  Window seg = clip(window.start, length);
  Result<LoadedTimeline> loaded = load(fetch(seg));
  // The next segment is loaded while this one is attributed: the source's time and the engine's
  // overlap, and two segments at most are held.
  std::future<Result<LoadedTimeline>> next;
  std::optional<Window> data;  // the segments' data spans, end to end
  const SystemClock clock;
  ProgressLine line("gpucost", ProgressUnit::kTime, window.length().count(), clock, std::cerr,
                    progress, Duration(0));
  for (;;) {
    line.SetLabel(StrCat("gpucost: segment ", out.segments + 1));
    line.Set((seg.start - window.start).count());
    if (!loaded.ok()) return std::move(loaded).status();
    LoadedTimeline timeline = std::move(loaded).value();
    Window following{seg.end, seg.end};
    if (seg.end < window.end) {
      length = NextSegmentLength(seg.length(), timeline.samples, sizing, settings.step);
      following = clip(seg.end, length);
      next = std::async(std::launch::async, load, fetch(following));
    }
    out.samples += timeline.samples;
    if (timeline.samples > 0 && !timeline.span.empty()) {
      data = data ? Window{std::min(data->start, timeline.span.start),
                           std::max(data->end, timeline.span.end)}
                  : timeline.span;
    }
    for (InputWarning& w : timeline.warnings) {
      // A segment without data is no input without data: said once at the end, if none had any.
      if (w.message == kNoClusterData) continue;
      if (said.insert(w.ToString()).second) out.warnings.push_back(std::move(w));
    }
    const SegmentIndexes indexes = units.Add(timeline.inventory);
    AttributionOptions engine;
    engine.window = seg;
    engine.step = settings.step;
    engine.staleness = settings.staleness;
    engine.prior_draws = out.segments == 0 ? FindDraws(timeline.inventory, options.prior_draws)
                                           : units.ToSegment(carried, indexes);
    SegmentSink sink(sink_of_all, indexes, (seg.start - settings.window.start) / settings.step);
    GPUCOST_ASSIGN_OR_RETURN(AttributionSummary summary,
                             Attribute(timeline.inventory, timeline.usage, price, engine, sink));
    carried = units.ToUnion(summary.open_draws, indexes);
    AddSegmentSummary(out.run.summary, std::move(summary));
    ++out.segments;
    if (options.after_segment) GPUCOST_RETURN_IF_ERROR(options.after_segment(seg));
    if (following.empty()) break;
    loaded = next.get();
    seg = following;
  }
  line.Finish();
  out.run.summary.open_draws.clear();
  out.open_draws = KeyDraws(units.inventory(), carried);
  if (out.samples == 0) {
    return Status::InvalidArgument(StrCat("the source returned no samples from ",
                                          FormatRfc3339(settings.window.start), " to ",
                                          FormatRfc3339(settings.window.end)));
  }
  out.run.report = aggregator.Finish();
  out.run.report.totals.unplaced_request_gpu_hours = out.run.summary.unplaced_request_gpu_hours;
  if (!data) out.warnings.push_back(InputWarning{"", 0, std::string(kNoClusterData)});
  const Window span = data.value_or(Window{window.start, window.start});
  out.run.report.covered = Intersect(window, span);  // as one read of the window gives
  if (auto w = BeyondDataWarning(window, span)) out.warnings.push_back(std::move(*w));
  GPUCOST_RETURN_IF_ERROR(CheckConservation(out.run));
  return out;
}

}  // namespace gpucost
