// The Grafana dashboard of gpucost's exported metrics (docs/grafana.md): a dashboard JSON model
// for Grafana 10+ (schemaVersion 38) with the Prometheus datasource chosen on import
// (`__inputs`) or fixed by uid, template variables cluster/team/namespace, and the panels of
// dashboard_panels.h. Stateless and thread-safe.
#pragma once

#include <string>

namespace gpucost::monitoring {

struct DashboardOptions {
  std::string title = "gpucost: GPU cost";
  std::string uid = "gpucost";
  // The Prometheus datasource's uid. Empty: an import input (DS_PROMETHEUS) asks for it.
  std::string datasource_uid;
};

// The input name Grafana's import dialog shows for the datasource.
inline constexpr const char* kDatasourceInput = "DS_PROMETHEUS";

// The dashboard as indented JSON text, ending in a newline.
std::string DashboardJson(const DashboardOptions& options);

}  // namespace gpucost::monitoring
