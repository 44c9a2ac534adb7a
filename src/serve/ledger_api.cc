#include "serve/ledger_api.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "advise/recommend.h"
#include "advise/recommend_render.h"
#include "alerts/alert_sink.h"
#include "alerts/evaluator.h"
#include "alerts/render.h"
#include "core/strings.h"
#include "pipeline/report_pipeline.h"
#include "pipeline/workload_profiles.h"
#include "report/render.h"

namespace gpucost::serve {
namespace {

std::string ParamOr(const QueryParam& param, const std::string& name) {
  return param(name).value_or(std::string());
}

// ?window=START,END, or the ledger's last 7 days (its newest records' end).
Result<Window> WindowOrLastWeek(const ServeOptions& s, const QueryParam& param) {
  if (const std::optional<std::string> text = param("window")) {
    Result<Window> w = ParseWindow(*text);
    if (!w.ok()) return Status::InvalidArgument(StrCat("window: ", w.status().message()));
    return *w;
  }
  GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ledger::Ledger> l, ledger::Ledger::Open(s.ledger));
  GPUCOST_ASSIGN_OR_RETURN(std::optional<Window> span, l->Span());
  // As every read of an empty ledger answers (ApiErrorOf: 503, not the caller's fault).
  if (!span) return Status::NotFound(StrCat(s.ledger, ": ", ledger::kNoCostRecords));
  return Window{std::max(span->start, span->end - std::chrono::hours(24 * 7)), span->end};
}

// The ledger's records of `window` (of ?cluster=a,b's clusters), as `--ledger` reads them.
Result<LoadedInput> LoadLedgerWindow(const ServeOptions& s, const QueryParam& param,
                                     Window window) {
  InputOptions in;
  in.ledger = s.ledger;
  in.ledger_clusters = SplitList(ParamOr(param, "cluster"));
  in.ledger_max_records = kApiMaxRecords;
  return LoadInput(in, window, s.step);
}

}  // namespace

Result<std::string> ReportJson(const ServeOptions& s, const QueryParam& param,
                               ledger::RollupCache* rollups, size_t max_rows) {
  GPUCOST_ASSIGN_OR_RETURN(const ReportQuery query, ParseReportQuery(param));
  InputOptions in;
  in.ledger = s.ledger;
  ReportSettings settings;
  settings.by = query.by;
  settings.accumulate = query.accumulate;
  in.ledger_rollups = query.rollups;
  in.ledger_bucket = query.accumulate ? Duration(0) : query.step;
  // The fleet's, or ?cluster=a,b's: every cluster of the ledger, not only serve's.
  in.ledger_clusters = query.clusters;
  in.ledger_cache = rollups;
  in.ledger_max_records = kApiMaxRecords;
  GPUCOST_ASSIGN_OR_RETURN(const LoadedInput input, LoadInput(in, query.window, s.step));
  ApplyInput(input, settings);
  settings.every = query.step;
  if (!settings.accumulate && input.step.count() > 0) {
    const int64_t buckets = (input.timeline.window.end - input.timeline.window.start) /
                            std::max(settings.every, input.step);
    if (buckets > kApiMaxBuckets) {
      return Status::InvalidArgument(StrCat("the window holds ", buckets,
                                            " steps of output, at most ", kApiMaxBuckets,
                                            ": a longer step= or a shorter window"));
    }
  }
  GPUCOST_ASSIGN_OR_RETURN(const ReportRun run, RunReport(input.timeline, s.price, settings));
  if (run.report.rows.size() > max_rows) {
    return Status::InvalidArgument(
        StrCat("the report has ", run.report.rows.size(), " rows, at most ", max_rows,
               " in one answer: fewer dimensions in by=, a longer step= or a shorter window"));
  }
  std::ostringstream out;
  RenderJson(run.report, out);
  return out.str();
}

Result<std::string> AlertsJson(const ServeOptions& s, const QueryParam& param) {
  GPUCOST_ASSIGN_OR_RETURN(const Window window, WindowOrLastWeek(s, param));
  // The rules at their defaults, and serve's run-rate window, as its budget gauges take it.
  alerts::AlertSettings cfg;
  if (s.forecast_lookback.count() > 0) cfg.forecast_lookback = s.forecast_lookback;
  GPUCOST_ASSIGN_OR_RETURN(ReportSettings settings, AccumulatedSettings("60s", "team"));
  GPUCOST_ASSIGN_OR_RETURN(const LoadedInput input, LoadLedgerWindow(s, param, window));
  ApplyInput(input, settings);
  const LoadedTimeline& timeline = input.timeline;
  settings.window =
      Window{timeline.window.start,
             std::clamp(timeline.span.end, timeline.window.start, timeline.window.end)};
  alerts::AlertSink sink(timeline.inventory, alerts::AlertRun{settings.window, settings.step, cfg});
  GPUCOST_ASSIGN_OR_RETURN(const ReportRun run, RunReport(timeline, s.price, settings, &sink));
  const alerts::AlertReport report =
      alerts::Evaluate(sink, timeline.usage, s.budgets ? &*s.budgets : nullptr);
  std::ostringstream out;
  alerts::RenderAlerts(report, cfg, alerts::AlertFormat::kJson, out);
  return out.str();
}

Result<std::string> RecommendationsJson(const ServeOptions& s, const QueryParam& param) {
  GPUCOST_ASSIGN_OR_RETURN(const Window window, WindowOrLastWeek(s, param));
  const advise::AdviseSettings advice;  // `gpucost recommend`'s defaults
  // The step is the ledger's (ApplyInput); "5m" is `gpucost recommend`'s, replaced by it.
  GPUCOST_ASSIGN_OR_RETURN(ReportSettings settings, AccumulatedSettings("5m", "team"));
  GPUCOST_ASSIGN_OR_RETURN(const LoadedInput input, LoadLedgerWindow(s, param, window));
  GPUCOST_ASSIGN_OR_RETURN(const WorkloadProfiles profiled,
                           ProfileWorkloads(input, settings, s.price, s.price_book, advice,
                                            SplitList(ParamOr(param, "team"))));
  const advise::Recommendations recs =
      advise::Recommend(profiled.profiles, profiled.window, profiled.step, advice);
  std::ostringstream out;
  advise::RenderRecommendations(recs, advise::RecommendFormat::kJson, out);
  return out.str();
}

}  // namespace gpucost::serve
