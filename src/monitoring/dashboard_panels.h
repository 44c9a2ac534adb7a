// The panels of the Grafana dashboard `gpucost grafana-dashboard` writes: title, kind, unit,
// place on the 24-column grid and PromQL over the exported metrics (metric_catalog.h), with
// Grafana's variables ($cluster, $team, $namespace, $__rate_interval, $__range) in the
// expressions. Plain data; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpucost::monitoring {

struct PanelQuery {
  std::string expr;
  std::string legend;    // Grafana legend format, e.g. "{{team}}"; in tables the column name
  bool instant = false;  // one value per series at the range's end (tables, stats)
};

struct PanelSpec {
  std::string title;
  std::string description;
  std::string type;  // timeseries | stat | table | bargauge
  std::string unit;  // Grafana unit id: currencyUSD, percentunit, s, none, h
  int x = 0;
  int y = 0;
  int w = 0;
  int h = 0;
  std::vector<PanelQuery> queries;
  bool stacked = false;  // time series stacked (shares of a whole)
  bool merge = false;    // table: join the queries' frames on their labels
};

// The dashboard's template variables besides the datasource, in the order shown.
struct VariableSpec {
  std::string name;   // cluster | team | namespace
  std::string query;  // label_values(...)
};

std::vector<PanelSpec> DashboardPanels();
std::vector<VariableSpec> DashboardVariables();

}  // namespace gpucost::monitoring
