// The exposition `gpucost serve` answers on /metrics: cost counters per holder group and idle
// capacity per node from the ledger's totals, gauges of the newest step (GPUs held, cost rate,
// utilization, node prices and telemetry), team budgets, and gpucost's own health, named as
// monitoring/metric_catalog.h says. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alerts/budgets.h"
#include "core/result.h"
#include "ledger/ledger.h"
#include "pipeline/kube_input.h"
#include "promsource/remote_write.h"
#include "serve/scrape_source.h"

namespace gpucost::serve {

struct ServeHealth {
  int64_t cycles = 0;               // attribution cycles that finished
  int64_t source_errors = 0;        // cycles whose source failed (the target is "source")
  int64_t ledger_write_errors = 0;  // chunks the ledger could not keep (disk full...)
  int64_t gap_steps = 0;            // unwatched steps without data, given the holdings before them
  uint64_t api_busy = 0;            // API answers refused for want of a turn (api_turns.h)
  double lag_seconds = 0;           // now - end of the newest attributed step
  double ledger_bytes = 0;          // the ledger file and its WAL
  bool ledger_damaged = false;      // it failed a check: no numbers are served
  // Free to serve on the SQLite ledger's filesystem; nullopt for PostgreSQL or when unknown.
  std::optional<uint64_t> ledger_free_bytes;
  std::string writer;                 // this serve's name as a writer of the ledger
  std::vector<std::string> clusters;  // the clusters it writes, or stands by for
  bool writing = false;               // whether it holds their writer lease
  double lock_wait_seconds = 0;       // its transactions' waits for other writers
  std::optional<promsource::RemoteWriteStats> remote_write;  // with --remote-write
  std::optional<ScrapeHealth> scrape;                        // with --scrape
  // With the Kubernetes API: its optional kinds, and which the latest cycle was refused.
  std::vector<KubeKindAccess> kube_kinds{};
};

struct TeamBudgetGauge {
  std::string cluster;
  std::string team;
  double budget_usd = 0;
  double month_to_date_usd = 0;  // the priced part; NaN when no hour of the month is priced
  double forecast_usd = 0;       // NaN: no forecast (no data, or no priced hour)
  double month_to_date_unpriced_gpu_hours = 0;  // held this month with no price
};

// Month-to-date and forecast per team of `budgets` in `clusters`, as of the ledger's newest step
// (`latest`), by the formula of `gpucost alerts` (docs/alerts.md); `cluster` labels the gauges.
std::vector<TeamBudgetGauge> TeamBudgetGauges(ledger::Ledger& ledger,
                                              const alerts::BudgetFile& budgets, Duration lookback,
                                              const std::string& cluster,
                                              const ledger::LedgerLatest& latest,
                                              const std::vector<std::string>& clusters);

std::string ServeMetricsText(const ledger::LedgerTotals& totals, const ledger::LedgerLatest& latest,
                             const std::vector<TeamBudgetGauge>& budgets,
                             const ServeHealth& health);

// Every sample of a text exposition as a series with one sample at `timestamp_ms` (samples that
// carry their own timestamp keep it). Comments and metadata are left out.
Result<std::vector<promsource::WriteSeries>> SeriesOfExposition(std::string_view text,
                                                                int64_t timestamp_ms);

}  // namespace gpucost::serve
