// ReportQuery: a report asked for over HTTP (serve's /api/v1/report): its window, by,
// accumulate, rollups and cluster parameters, parsed and checked before anything is read, so
// that any bytes in them are a 400 with a JSON body (JsonErrorBody), never a crash. Stateless
// and thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "report/dimension.h"

namespace gpucost {

struct ReportQuery {
  std::optional<Window> window;       // window=START,END; unset: all the ledger holds
  std::vector<Dimension> by;          // by=team,workload; default namespace
  bool accumulate = true;             // accumulate=false: one row per step
  Duration step{0};                   // step=1h: rows this long (accumulate=false); 0: data's
  // Accumulated, or in step= buckets: sealed hours and days come as the ledger's roll-ups (where
  // each lies inside one bucket); rollups=false: every record.
  bool rollups = true;
  std::vector<std::string> clusters;  // cluster=east,west, trimmed; empty: every cluster
};

// A query parameter's value (the first where it repeats), nullopt when the query has none.
using QueryParam = std::function<std::optional<std::string>(const std::string& name)>;

// InvalidArgument saying which parameter is wrong and why.
Result<ReportQuery> ParseReportQuery(const QueryParam& param);

// {"error":"MESSAGE"} and a newline: the body of a failed request, the message as a JSON string
// (what is not UTF-8 in it as U+FFFD, docs/report.md "Text that is not UTF-8").
std::string JsonErrorBody(std::string_view message);

}  // namespace gpucost
