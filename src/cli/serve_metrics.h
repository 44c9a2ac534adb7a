// The exposition `gpucost serve` answers on /metrics: cost counters per holder group and idle
// capacity per node from the ledger's totals, and gpucost's own health, named as
// monitoring/metric_catalog.h says. Pure.
#pragma once

#include <cstdint>
#include <string>

#include "ledger/ledger.h"

namespace gpucost::cli {

struct ServeHealth {
  int64_t cycles = 0;           // attribution cycles that finished
  int64_t source_errors = 0;    // cycles whose source failed (the target is "source")
  double lag_seconds = 0;       // now - end of the newest attributed step
  double ledger_bytes = 0;      // the ledger file and its WAL
};

std::string ServeMetricsText(const ledger::LedgerTotals& totals, const ServeHealth& health);

}  // namespace gpucost::cli
