#include "monitoring/dashboard.h"

#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "monitoring/dashboard_panels.h"

namespace gpucost::monitoring {
namespace {

using nlohmann::json;

// Panels and variables name the datasource through the `datasource` variable, so that a
// dashboard can be pointed at another Prometheus without editing panels.
json DatasourceRef() { return {{"type", "prometheus"}, {"uid", "${datasource}"}}; }

json FieldConfig(const PanelSpec& p) {
  json defaults = {{"unit", p.unit}};
  if (p.type == "timeseries") {
    defaults["custom"] = {{"drawStyle", "line"},
                          {"lineWidth", 1},
                          {"fillOpacity", p.stacked ? 30 : 10},
                          {"showPoints", "never"},
                          {"spanNulls", false},
                          {"stacking", {{"mode", p.stacked ? "normal" : "none"}, {"group", "A"}}}};
  }
  if (p.unit == "percentunit") {
    defaults["min"] = 0;
  }
  defaults["thresholds"] = {{"mode", "absolute"},
                            {"steps", json::array({{{"color", "green"}, {"value", nullptr}}})}};
  defaults["color"] = {{"mode", p.type == "timeseries" ? "palette-classic" : "thresholds"}};
  return {{"defaults", defaults}, {"overrides", json::array()}};
}

json Options(const PanelSpec& p) {
  if (p.type == "timeseries") {
    return {{"legend",
             {{"displayMode", "table"},
              {"placement", "bottom"},
              {"showLegend", true},
              {"calcs", json::array({"mean", "max"})}}},
            {"tooltip", {{"mode", "multi"}, {"sort", "desc"}}}};
  }
  if (p.type == "stat") {
    return {{"reduceOptions",
             {{"calcs", json::array({"lastNotNull"})}, {"fields", ""}, {"values", false}}},
            {"colorMode", "value"},
            {"graphMode", "none"},
            {"justifyMode", "auto"},
            {"orientation", "auto"},
            {"textMode", "auto"}};
  }
  if (p.type == "bargauge") {
    return {{"reduceOptions",
             {{"calcs", json::array({"lastNotNull"})}, {"fields", ""}, {"values", false}}},
            {"displayMode", "gradient"},
            {"orientation", "horizontal"},
            {"showUnfilled", true}};
  }
  return {{"showHeader", true}, {"cellHeight", "sm"}, {"footer", {{"show", false}}}};
}

json Panel(const PanelSpec& p, int id) {
  json targets = json::array();
  char ref = 'A';
  for (const PanelQuery& q : p.queries) {
    json t = {{"datasource", DatasourceRef()}, {"expr", q.expr},
              {"legendFormat", q.legend},      {"refId", std::string(1, ref++)},
              {"editorMode", "code"},          {"range", !q.instant},
              {"instant", q.instant}};
    if (p.type == "table") t["format"] = "table";
    targets.push_back(std::move(t));
  }
  json panel = {{"id", id},
                {"type", p.type},
                {"title", p.title},
                {"description", p.description},
                {"datasource", DatasourceRef()},
                {"gridPos", {{"x", p.x}, {"y", p.y}, {"w", p.w}, {"h", p.h}}},
                {"fieldConfig", FieldConfig(p)},
                {"options", Options(p)},
                {"targets", std::move(targets)}};
  json transformations = json::array();
  if (p.merge) transformations.push_back({{"id", "merge"}, {"options", json::object()}});
  if (p.type == "table") {
    // A table of totals: no time column, and each query's value column named by its legend
    // ("Value" for one query, "Value #<refId>" for several once merged).
    json rename = json::object();
    char value_ref = 'A';
    for (const PanelQuery& q : p.queries) {
      const std::string column =
          p.queries.size() == 1 ? std::string("Value") : StrCat("Value #", value_ref);
      rename[column] = q.legend;
      ++value_ref;
    }
    transformations.push_back(
        {{"id", "organize"},
         {"options", {{"excludeByName", {{"Time", true}}}, {"renameByName", rename}}}});
  }
  panel["transformations"] = std::move(transformations);
  return panel;
}

json Variable(const VariableSpec& v) {
  return {
      {"name", v.name},
      {"label", v.name},
      {"type", "query"},
      {"datasource", DatasourceRef()},
      {"definition", v.query},
      {"query", {{"query", v.query}, {"refId", "PrometheusVariableQueryEditor-VariableQuery"}}},
      {"refresh", 2},  // on time range change
      {"multi", true},
      {"includeAll", true},
      {"allValue", ".*"},
      {"current",
       {{"selected", true}, {"text", json::array({"All"})}, {"value", json::array({"$__all"})}}},
      {"sort", 1},
      {"hide", 0},
      {"options", json::array()}};
}

json DatasourceVariable(const DashboardOptions& o) {
  const std::string value =
      o.datasource_uid.empty() ? StrCat("${", kDatasourceInput, "}") : o.datasource_uid;
  return {{"name", "datasource"},
          {"label", "Prometheus"},
          {"type", "datasource"},
          {"query", "prometheus"},
          {"refresh", 1},
          {"regex", ""},
          {"hide", 0},
          {"current", {{"selected", false}, {"text", value}, {"value", value}}},
          {"options", json::array()}};
}

json Requires() {
  json r = json::array();
  r.push_back({{"type", "grafana"}, {"id", "grafana"}, {"name", "Grafana"}, {"version", "10.0.0"}});
  r.push_back(
      {{"type", "datasource"}, {"id", "prometheus"}, {"name", "Prometheus"}, {"version", "1.0.0"}});
  for (const char* id : {"timeseries", "stat", "table", "bargauge"}) {
    r.push_back({{"type", "panel"}, {"id", id}, {"name", id}, {"version", ""}});
  }
  return r;
}

}  // namespace

std::string DashboardJson(const DashboardOptions& options) {
  json doc = json::object();
  if (options.datasource_uid.empty()) {
    doc["__inputs"] = json::array({{{"name", kDatasourceInput},
                                    {"label", "Prometheus"},
                                    {"description", "The store holding gpucost's metrics"},
                                    {"type", "datasource"},
                                    {"pluginId", "prometheus"},
                                    {"pluginName", "Prometheus"}}});
  }
  doc["__requires"] = Requires();
  doc["annotations"] = {
      {"list", json::array({{{"builtIn", 1},
                             {"datasource", {{"type", "grafana"}, {"uid", "-- Grafana --"}}},
                             {"enable", true},
                             {"hide", true},
                             {"iconColor", "rgba(0, 211, 255, 1)"},
                             {"name", "Annotations & Alerts"},
                             {"type", "dashboard"}}})}};
  doc["description"] =
      "GPU cost attributed by gpucost: allocated, effective, waste and idle cost per team, "
      "top workloads, efficiency, spot ratio, unmeasured time, budgets and gpucost's health.";
  doc["editable"] = true;
  doc["fiscalYearStartMonth"] = 0;
  doc["graphTooltip"] = 1;
  doc["links"] = json::array();
  doc["liveNow"] = false;
  json panels = json::array();
  int id = 1;
  for (const PanelSpec& p : DashboardPanels()) panels.push_back(Panel(p, id++));
  doc["panels"] = std::move(panels);
  doc["refresh"] = "5m";
  doc["schemaVersion"] = 38;
  doc["style"] = "dark";
  doc["tags"] = json::array({"gpucost", "gpu", "cost"});
  json vars = json::array({DatasourceVariable(options)});
  for (const VariableSpec& v : DashboardVariables()) vars.push_back(Variable(v));
  doc["templating"] = {{"list", std::move(vars)}};
  doc["time"] = {{"from", "now-7d"}, {"to", "now"}};
  doc["timepicker"] = json::object();
  doc["timezone"] = "utc";
  doc["title"] = options.title;
  doc["uid"] = options.uid;
  doc["version"] = 1;
  doc["weekStart"] = "";
  return doc.dump(2) + "\n";
}

}  // namespace gpucost::monitoring
