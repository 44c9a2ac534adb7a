// The JSON endpoints that answer from the ledger with a report, alerts or savings, each the
// contract of the command that gives the same from the command line:
//   /api/v1/report           `gpucost report --ledger --format json` (docs/report.md);
//   /api/v1/alerts           `gpucost alerts --ledger --format json` at the rules' default
//                            settings, with serve's --budgets;
//   /api/v1/recommendations  `gpucost recommend --ledger --format json` at its default settings,
//                            with serve's prices (for the spot rates).
// Each opens the ledger for the request. Thread-safe: requests run at once.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "ledger/rollup_cache.h"
#include "report/report_query.h"
#include "serve/serve_server.h"

namespace gpucost::serve {

// Bounds of one API request: what a 30-day report of a fleet needs, many times over, and not
// what a window of a century at 60 s steps would ask.
inline constexpr int64_t kApiMaxBuckets = 10'000;
inline constexpr size_t kApiMaxRecords = 20'000'000;
// Rows of one report answer: a month of a 1,000-node fleet by team per hour is ~36,000; a
// per-minute series by pod of three days was ~1 M rows, half a gigabyte of JSON.
inline constexpr size_t kApiMaxRows = 200'000;

// The parameters each answer reads (ParseReportQuery; below): serve refuses any other with a 400.
inline constexpr std::string_view kReportParams[] = {"window",  "by",   "accumulate",
                                                     "rollups", "step", "cluster"};
inline constexpr std::string_view kAlertsParams[] = {"window", "cluster"};
inline constexpr std::string_view kRecommendationsParams[] = {"window", "cluster", "team"};
inline constexpr std::string_view kFleetParams[] = {"cluster"};

// ?window=START,END&by=team,workload&step=1h&accumulate=true&cluster=a,b; a report of more than
// `max_rows` rows is a 400 that says what to ask instead.
Result<std::string> ReportJson(const ServeOptions& s, const QueryParam& param,
                               ledger::RollupCache* rollups, size_t max_rows = kApiMaxRows);

// ?window=START,END&cluster=a,b; the window defaults to the ledger's last 7 days.
Result<std::string> AlertsJson(const ServeOptions& s, const QueryParam& param);

// ?window=START,END&cluster=a,b&team=a,b; the window defaults to the ledger's last 7 days.
Result<std::string> RecommendationsJson(const ServeOptions& s, const QueryParam& param);

}  // namespace gpucost::serve
