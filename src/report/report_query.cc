#include "report/report_query.h"

#include <nlohmann/json.hpp>

#include "core/strings.h"

namespace gpucost {

namespace {

// A boolean parameter: `fallback` when absent; true/1 or false/0.
Result<bool> BoolParam(const QueryParam& param, const std::string& name, bool fallback) {
  const std::optional<std::string> v = param(name);
  if (!v) return fallback;
  if (*v == "true" || *v == "1") return true;
  if (*v == "false" || *v == "0") return false;
  return Status::InvalidArgument(StrCat(name, ": true or false"));
}

}  // namespace

Result<ReportQuery> ParseReportQuery(const QueryParam& param) {
  ReportQuery q;
  if (const std::optional<std::string> window = param("window")) {
    Result<Window> w = ParseWindow(*window);
    if (!w.ok()) return Status::InvalidArgument(StrCat("window: ", w.status().message()));
    q.window = *w;
  }
  Result<std::vector<Dimension>> by = ParseDimensions(param("by").value_or("namespace"));
  if (!by.ok()) return Status::InvalidArgument(StrCat("by: ", by.status().message()));
  q.by = std::move(*by);
  GPUCOST_ASSIGN_OR_RETURN(q.accumulate, BoolParam(param, "accumulate", true));
  GPUCOST_ASSIGN_OR_RETURN(const bool rollups, BoolParam(param, "rollups", true));
  if (const std::optional<std::string> step = param("step")) {
    Result<Duration> d = ParseDuration(*step);
    if (!d.ok() || d->count() <= 0) {
      return Status::InvalidArgument(
          "step: a positive duration (1h), a whole number of the "
          "ledger's steps");
    }
    q.step = *d;
  }
  // Roll-ups answer one bucket (accumulated) or step= buckets, each where it lies inside one
  // (ledger::ReadOptions); rows at the ledger's own step come from its records.
  q.rollups = rollups && (q.accumulate || q.step.count() > 0);
  if (const std::optional<std::string> clusters = param("cluster")) {
    for (std::string_view c : Split(*clusters, ',')) {  // views into *clusters
      if (!Trim(c).empty()) q.clusters.emplace_back(Trim(c));
    }
  }
  return q;
}

std::string JsonErrorBody(std::string_view message) {
  const nlohmann::json body = {{"error", std::string(message)}};
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace gpucost
