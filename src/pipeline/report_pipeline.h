// The report pipeline shared by `gpucost report` and `gpucost demo`: timelines + prices →
// attribution engine → aggregator → Report, with the conservation check on the way out.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attribution/attributor.h"
#include "core/result.h"
#include "inventory/inventory_builder.h"
#include "model/price.h"
#include "report/aggregator.h"
#include "report/focus_export.h"
#include "report/report.h"

namespace gpucost {

struct ReportSettings {
  Window window;
  Duration step = std::chrono::seconds(60);
  Duration staleness = std::chrono::minutes(5);
  bool accumulate = false;
  // Not accumulated: the output buckets (--every), a whole multiple of `step`; 0 is `step`.
  Duration every{0};
  bool every_month = false;  // UTC calendar months instead
  std::vector<Dimension> by;
  IdleOptions idle;
  // Records read from a ledger (their indexes refer to the timeline's inventory, their steps to
  // `window` and `step`): replayed into the sinks instead of running the engine.
  const std::vector<CostRecord>* replay = nullptr;
  // Roll-ups read with them (ledger::ReadOptions::rollups): for a report without `also` only.
  const std::vector<RolledRecord>* replay_rolled = nullptr;
  // Pool draws of holdings running when the window starts, from the attribution of the time
  // before it (AttributionOptions::prior_draws, in the timeline's indexes).
  std::vector<PoolDraw> prior_draws;
  // A progress line on stderr while the engine runs (the GPUs attributed, core/progress.h).
  bool progress = false;
};

// The settings of a command that runs one accumulated report beside its own sink (chargeback,
// alerts, recommend, ledger write...): --step, which must be positive, and the report's
// dimensions.
Result<ReportSettings> AccumulatedSettings(std::string_view step, std::string_view by);

// --window START,END when given; nullopt (the input's span) when empty.
Result<std::optional<Window>> OptionalWindow(const std::string& text);

struct ReportRun {
  Report report;
  AttributionSummary summary;
};

// Runs the engine over `timeline` (or replays settings.replay) and aggregates. Fails if
// Σ allocated + Σ idle differs from the nodes' GPU cost by more than 1e-9 relative (an internal
// error: it should never happen). `also`, when given, receives every record too (the same engine
// run).
Result<ReportRun> RunReport(const LoadedTimeline& timeline, const PriceFn& price,
                            const ReportSettings& settings, CostSink* also = nullptr);

// The aggregation a report with these settings makes of the engine's records.
AggregatorOptions ReportAggregation(const ReportSettings& settings);

// Internal error unless Σ allocated + Σ idle in the report equals the nodes' GPU cost the engine
// summed, to 1e-9 relative.
Status CheckConservation(const ReportRun& run);

struct FocusRun {
  FocusTable table;  // points into `timeline`, which must outlive it
  ReportRun run;
};

// `gpucost report --format focus`: one engine run feeds both the report and the FOCUS exporter
// (docs/focus.md), whose CSV is written in FOCUS `version`. Charge periods are the --step buckets
// when `per_step`, else UTC days. Fails naming the nodes without a price, and (internally) if Σ
// EffectiveCost differs from the report's cost by more than 1e-9 relative.
Result<FocusRun> RunFocusExport(const LoadedTimeline& timeline, const PriceFn& price,
                                const ReportSettings& settings, bool per_step,
                                std::string provider_name,
                                FocusVersion version = FocusVersion::k1_3);

}  // namespace gpucost
