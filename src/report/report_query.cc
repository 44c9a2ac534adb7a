#include "report/report_query.h"

#include <nlohmann/json.hpp>

#include "core/strings.h"

namespace gpucost {

Result<ReportQuery> ParseReportQuery(const QueryParam& param) {
  ReportQuery q;
  if (const std::optional<std::string> window = param("window")) {
    GPUCOST_ASSIGN_OR_RETURN(q.window, ParseWindow(*window));
  }
  GPUCOST_ASSIGN_OR_RETURN(q.by, ParseDimensions(param("by").value_or("namespace")));
  q.accumulate = param("accumulate") != "false";
  q.rollups = q.accumulate && param("rollups") != "false";
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
