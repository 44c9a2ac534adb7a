#include "pipeline/report_pipeline.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <span>
#include <unordered_set>

#include "core/money.h"
#include "core/progress.h"
#include "core/strings.h"

namespace gpucost {
namespace {

class TeeSink final : public CostSink {
 public:
  TeeSink(CostSink& a, CostSink& b) : a_(a), b_(b) {}
  void Consume(std::span<const CostRecord> records) override {
    a_.Consume(records);
    b_.Consume(records);
  }

 private:
  CostSink& a_;
  CostSink& b_;
};

// Feeds ledger records (and roll-ups, to `rolled_sink`) to the sinks in batches and sums them
// as the engine would have.
AttributionSummary Replay(const std::vector<CostRecord>& records,
                          const std::vector<RolledRecord>* rolled, const ReportSettings& settings,
                          CostSink& sink, Aggregator* rolled_sink) {
  constexpr size_t kBatch = 4096;
  for (size_t i = 0; i < records.size(); i += kBatch) {
    sink.Consume(
        std::span<const CostRecord>(records.data() + i, std::min(kBatch, records.size() - i)));
  }
  CompensatedSum node_cost;
  CompensatedSum allocated;
  CompensatedSum idle;
  CompensatedSum unpriced;
  std::unordered_set<uint64_t> oversubscribed;  // unit, step
  AttributionSummary summary;
  for (const CostRecord& r : records) {
    if (!r.price_known) {
      unpriced.Add(r.gpu_hours);
      continue;
    }
    node_cost.Add(r.allocated_usd);
    (r.is_idle() ? idle : allocated).Add(r.allocated_usd);
    if (r.oversubscribed)
      oversubscribed.insert((static_cast<uint64_t>(r.unit) << 32) ^ static_cast<uint64_t>(r.step));
  }
  summary.oversubscribed_unit_steps = static_cast<int64_t>(oversubscribed.size());
  summary.records = static_cast<int64_t>(records.size());
  if (rolled != nullptr && rolled_sink != nullptr) {
    rolled_sink->ConsumeRolled(*rolled);
    std::unordered_set<uint64_t> units_counted;  // unit, period's first step
    for (const RolledRecord& r : *rolled) {
      const RowSums& s = r.sums;
      unpriced.Add(s.unpriced_hours);
      const double usd = r.is_idle() ? s.idle_usd : s.allocated_usd;
      node_cost.Add(usd);
      (r.is_idle() ? idle : allocated).Add(usd);
      summary.records += r.records;
      if (r.unit_oversubscribed_steps > 0 &&
          units_counted
              .insert((static_cast<uint64_t>(r.unit) << 32) ^ static_cast<uint64_t>(r.step))
              .second) {
        summary.oversubscribed_unit_steps += r.unit_oversubscribed_steps;
      }
    }
  }
  const Duration span = settings.window.end - settings.window.start;
  summary.steps =
      settings.step.count() > 0 ? (span + settings.step - Duration(1)) / settings.step : 0;
  summary.node_cost_usd = node_cost.value();
  summary.allocated_usd = allocated.value();
  summary.idle_usd = idle.value();
  summary.unpriced_gpu_hours = unpriced.value();
  summary.unplaced_request_gpu_hours = NAN;  // a ledger keeps records, not the requests
  return summary;
}

}  // namespace

Result<ReportSettings> AccumulatedSettings(std::string_view step, std::string_view by) {
  ReportSettings s;
  GPUCOST_ASSIGN_OR_RETURN(s.step, ParseDuration(step));
  if (s.step.count() <= 0) return Status::InvalidArgument("--step must be positive");
  s.accumulate = true;
  GPUCOST_ASSIGN_OR_RETURN(s.by, ParseDimensions(by));
  return s;
}

Result<std::optional<Window>> OptionalWindow(const std::string& text) {
  if (text.empty()) return std::optional<Window>();
  GPUCOST_ASSIGN_OR_RETURN(Window w, ParseWindow(text));
  return std::optional<Window>(w);
}

AggregatorOptions ReportAggregation(const ReportSettings& settings) {
  AggregatorOptions agg;
  agg.window = settings.window;
  agg.engine_step = settings.step;
  agg.accumulate = settings.accumulate;
  agg.output_step = settings.every;
  agg.calendar_months = settings.every_month;
  agg.by = settings.by;
  agg.idle = settings.idle;
  return agg;
}

Result<ReportRun> RunReport(const LoadedTimeline& timeline, const PriceFn& price,
                            const ReportSettings& settings, CostSink* also) {
  GPUCOST_ASSIGN_OR_RETURN(Aggregator aggregator,
                           Aggregator::Create(timeline.inventory, ReportAggregation(settings)));

  AttributionOptions options;
  options.window = settings.window;
  options.step = settings.step;
  options.staleness = settings.staleness;
  options.prior_draws = settings.prior_draws;
  const SystemClock clock;
  std::optional<ProgressLine> line;
  if (settings.progress) {
    options.on_gpu = [&line, &clock](int64_t done, int64_t gpus) {
      if (!line) line.emplace("gpucost", ProgressUnit::kGpus, gpus, clock, std::cerr, true);
      line->Set(done);
    };
  }
  ReportRun run;
  const bool rolled = settings.replay_rolled != nullptr && !settings.replay_rolled->empty();
  if (rolled && also != nullptr) {
    return Status::Internal("ledger roll-ups replayed into a sink that wants every record");
  }
  if (settings.replay != nullptr) {
    if (also != nullptr) {
      TeeSink tee(aggregator, *also);
      run.summary = Replay(*settings.replay, nullptr, settings, tee, nullptr);
    } else {
      run.summary =
          Replay(*settings.replay, settings.replay_rolled, settings, aggregator, &aggregator);
    }
  } else if (also != nullptr) {
    TeeSink tee(aggregator, *also);
    GPUCOST_ASSIGN_OR_RETURN(run.summary,
                             Attribute(timeline.inventory, timeline.usage, price, options, tee));
  } else {
    GPUCOST_ASSIGN_OR_RETURN(
        run.summary, Attribute(timeline.inventory, timeline.usage, price, options, aggregator));
  }
  if (line) line->Finish();
  run.report = aggregator.Finish();
  run.report.totals.unplaced_request_gpu_hours = run.summary.unplaced_request_gpu_hours;
  // What the data covers, where samples time it (records replayed from a ledger cover the window
  // they were read for; the Kubernetes API alone times no data). A window taken from the data is
  // its steps: covered whole.
  if (timeline.samples > 0) {
    run.report.covered = timeline.window_from_data && settings.window == timeline.window
                             ? settings.window
                             : Intersect(settings.window, timeline.span);
  }
  GPUCOST_RETURN_IF_ERROR(CheckConservation(run));
  return run;
}

Status CheckConservation(const ReportRun& run) {
  // End to end: what the report says the GPUs cost is what the nodes cost.
  const double want = run.summary.node_cost_usd;
  const double got = run.report.totals.cost_usd;
  if (std::isfinite(got) && std::fabs(got - want) > 1e-9 * std::max(1.0, std::fabs(want))) {
    return Status::Internal(
        StrCat("conservation violated: report cost ", got, " USD != node GPU cost ", want, " USD"));
  }
  return Status::Ok();
}

Result<FocusRun> RunFocusExport(const LoadedTimeline& timeline, const PriceFn& price,
                                const ReportSettings& settings, bool per_step,
                                std::string provider_name, FocusVersion version) {
  FocusOptions fopts;
  fopts.window = settings.window;
  fopts.engine_step = settings.step;
  fopts.per_step = per_step;
  fopts.idle = settings.idle;
  fopts.provider_name = std::move(provider_name);
  fopts.version = version;
  GPUCOST_ASSIGN_OR_RETURN(FocusExporter exporter,
                           FocusExporter::Create(timeline.inventory, price, fopts));
  // The report beside the export only supplies the cost to check against: one bucket will do.
  ReportSettings report_settings = settings;
  report_settings.accumulate = true;
  FocusRun out;
  GPUCOST_ASSIGN_OR_RETURN(out.run, RunReport(timeline, price, report_settings, &exporter));
  GPUCOST_ASSIGN_OR_RETURN(out.table, exporter.Finish());

  // The FOCUS rows carry exactly the report's money: allocated plus idle.
  const double want = out.run.report.totals.cost_usd;
  const double got = out.table.effective_cost_usd;
  if (std::isfinite(want) && std::fabs(got - want) > 1e-9 * std::max(1.0, std::fabs(want))) {
    return Status::Internal(
        StrCat("FOCUS export: sum of EffectiveCost ", got, " USD != report cost ", want, " USD"));
  }
  return out;
}

}  // namespace gpucost
