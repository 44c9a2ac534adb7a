// The workload profiles that savings advice reads (`gpucost recommend`, `gpucost whatif`, serve's
// /api/v1/recommendations): one engine run over what was loaded (or the ledger's records
// replayed) with an advise::ProfileSink beside the report's conservation check, spot rates from
// the price book. The commands and the server call the same function, so the same data gives the
// same savings from either.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "advise/advise_settings.h"
#include "advise/workload_profile.h"
#include "attribution/attributor.h"
#include "core/result.h"
#include "pipeline/input.h"
#include "pipeline/report_pipeline.h"
#include "pricing/price_book.h"

namespace gpucost {

// A node's spot rate at `t`: the book's price for the node on spot capacity where the book knows
// a spot price for it (source spot, or a rule price under on-demand), else on-demand less
// `spot_discount` (>= 0), else NaN (unknown, never guessed).
advise::SpotRateFn SpotRatesFromBook(std::shared_ptr<const PriceBook> book, Instant t,
                                     double spot_discount);

struct WorkloadProfiles {
  Window window;
  Duration step{0};
  std::vector<advise::WorkloadProfile> profiles;  // of `teams` when given
  AttributionSummary summary;                     // of the engine run, for its warnings
};

// Profiles the workloads of `input` (LoadInput's) under `settings` (AccumulatedSettings', with
// ApplyInput not yet applied), priced by `price`; spot rates come from `book` (null: unknown);
// `teams`, when not empty, keeps only theirs.
Result<WorkloadProfiles> ProfileWorkloads(const LoadedInput& input, ReportSettings settings,
                                          const PriceFn& price,
                                          std::shared_ptr<const PriceBook> book,
                                          const advise::AdviseSettings& advice,
                                          const std::vector<std::string>& teams);

}  // namespace gpucost
