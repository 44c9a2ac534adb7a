// The Grafana dashboard's structure: unique panel ids, panels on the 24-column grid without
// overlaps, a datasource and a query on every panel, every variable it uses defined, every
// metric it queries exported by gpucost (the catalogue) or dcgm-exporter, and the topics it
// must show present. Also the lexer these checks rely on.
#include "monitoring/dashboard.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "monitoring/metric_catalog.h"
#include "monitoring/promql_names.h"

namespace gpucost::monitoring {
namespace {

using nlohmann::json;

json Dashboard(const DashboardOptions& options = {}) { return json::parse(DashboardJson(options)); }

// Every string in `j`, recursively.
void Strings(const json& j, std::vector<std::string>& out) {
  if (j.is_string()) {
    out.push_back(j.get<std::string>());
  } else if (j.is_structured()) {
    for (const json& v : j) Strings(v, out);
  }
}

std::vector<std::string> Exprs(const json& doc) {
  std::vector<std::string> out;
  for (const json& p : doc["panels"]) {
    for (const json& t : p["targets"]) out.push_back(t["expr"].get<std::string>());
  }
  return out;
}

TEST(PromqlNames, FindsMetricsNotFunctionsLabelsOrKeywords) {
  EXPECT_EQ(MetricNames(R"(sum by (team, le) (rate(foo_total{a="b", c=~"x|y"}[5m])) / )"
                        R"(on (team) group_left (x) bar:ratio * 3600 or vector(0))"),
            (std::set<std::string>{"foo_total", "bar:ratio"}));
  EXPECT_EQ(MetricNames(R"(topk(10, sum without (pod) (increase(a_b[$__range]))) > bool 1e3)"),
            (std::set<std::string>{"a_b"}));
  EXPECT_EQ(MetricNames("time() - max(x offset 5m)"), (std::set<std::string>{"x"}));
}

TEST(PromqlNames, LabelValuesSelector) {
  EXPECT_EQ(LabelValuesSelector(R"(label_values(m{a=~"$x", b="y"}, team))"),
            R"(m{a=~"$x", b="y"})");
  EXPECT_EQ(LabelValuesSelector("label_values(m, cluster)"), "m");
  EXPECT_EQ(LabelValuesSelector("query_result(up)"), "");
}

TEST(PromqlNames, FindsVariables) {
  EXPECT_EQ(VariableRefs(R"(a{b=~"$cluster", c="${team:regex}"}[$__rate_interval] [[ns]])"),
            (std::set<std::string>{"cluster", "team", "__rate_interval", "ns"}));
}

TEST(Dashboard, IsAGrafana10DashboardWithAnImportInput) {
  const json doc = Dashboard();
  EXPECT_GE(doc["schemaVersion"].get<int>(), 38);
  EXPECT_EQ(doc["uid"], "gpucost");
  EXPECT_FALSE(doc["title"].get<std::string>().empty());
  ASSERT_EQ(doc["__inputs"].size(), 1u);
  EXPECT_EQ(doc["__inputs"][0]["name"], kDatasourceInput);
  EXPECT_EQ(doc["__inputs"][0]["type"], "datasource");
  EXPECT_EQ(doc["__inputs"][0]["pluginId"], "prometheus");
  const json& vars = doc["templating"]["list"];
  ASSERT_FALSE(vars.empty());
  EXPECT_EQ(vars[0]["type"], "datasource");
  EXPECT_EQ(vars[0]["query"], "prometheus");
  EXPECT_EQ(vars[0]["current"]["value"], std::string("${") + kDatasourceInput + "}");
}

TEST(Dashboard, AFixedDatasourceUidNeedsNoInput) {
  DashboardOptions o;
  o.title = "GPU money";
  o.uid = "gpu-money";
  o.datasource_uid = "prom-uid-1";
  const json doc = Dashboard(o);
  EXPECT_FALSE(doc.contains("__inputs"));
  EXPECT_EQ(doc["title"], "GPU money");
  EXPECT_EQ(doc["uid"], "gpu-money");
  EXPECT_EQ(doc["templating"]["list"][0]["current"]["value"], "prom-uid-1");
  EXPECT_EQ(doc.dump().find(kDatasourceInput), std::string::npos);
}

TEST(Dashboard, PanelsHaveUniqueIdsADatasourceAndQueries) {
  const json doc = Dashboard();
  ASSERT_GE(doc["panels"].size(), 10u);
  std::set<int> ids;
  for (const json& p : doc["panels"]) {
    const std::string title = p["title"].get<std::string>();
    EXPECT_TRUE(ids.insert(p["id"].get<int>()).second) << "duplicate id in " << title;
    EXPECT_EQ(p["datasource"]["type"], "prometheus") << title;
    EXPECT_FALSE(p["datasource"]["uid"].get<std::string>().empty()) << title;
    ASSERT_FALSE(p["targets"].empty()) << title;
    std::set<std::string> refs;
    for (const json& t : p["targets"]) {
      EXPECT_FALSE(t["expr"].get<std::string>().empty()) << title;
      EXPECT_EQ(t["datasource"], p["datasource"]) << title;
      EXPECT_TRUE(refs.insert(t["refId"].get<std::string>()).second) << title;
    }
    EXPECT_TRUE(p["fieldConfig"]["defaults"].contains("unit")) << title;
  }
}

TEST(Dashboard, PanelsLieOnTheGridWithoutOverlapping) {
  struct Box {
    std::string title;
    int x, y, w, h;
  };
  std::vector<Box> boxes;
  const json doc = Dashboard();
  for (const json& p : doc["panels"]) {
    const json& g = p["gridPos"];
    Box b{p["title"].get<std::string>(), g["x"].get<int>(), g["y"].get<int>(), g["w"].get<int>(),
          g["h"].get<int>()};
    EXPECT_GE(b.x, 0) << b.title;
    EXPECT_GE(b.y, 0) << b.title;
    EXPECT_GT(b.w, 0) << b.title;
    EXPECT_GT(b.h, 0) << b.title;
    EXPECT_LE(b.x + b.w, 24) << b.title;
    boxes.push_back(b);
  }
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      const Box& a = boxes[i];
      const Box& b = boxes[j];
      const bool apart =
          a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
      EXPECT_TRUE(apart) << a.title << " overlaps " << b.title;
    }
  }
}

TEST(Dashboard, EveryVariableUsedIsDefined) {
  const json doc = Dashboard();
  std::set<std::string> defined;
  for (const json& v : doc["templating"]["list"]) defined.insert(v["name"].get<std::string>());
  EXPECT_TRUE(defined.contains("cluster"));
  EXPECT_TRUE(defined.contains("team"));
  EXPECT_TRUE(defined.contains("namespace"));
  std::vector<std::string> strings;
  Strings(doc["panels"], strings);
  Strings(doc["templating"], strings);
  std::set<std::string> used;
  for (const std::string& s : strings) {
    for (const std::string& v : VariableRefs(s)) {
      used.insert(v);
      if (v.starts_with("__") || v == kDatasourceInput) continue;  // Grafana's own; the input
      EXPECT_TRUE(defined.contains(v)) << "$" << v << " used in \"" << s << "\" is not defined";
    }
  }
  // The filters are used, not just defined.
  EXPECT_TRUE(used.contains("cluster"));
  EXPECT_TRUE(used.contains("team"));
  EXPECT_TRUE(used.contains("namespace"));
  EXPECT_TRUE(used.contains("datasource"));
}

TEST(Dashboard, QueriesOnlyMetricsGpucostOrDcgmExporterExport) {
  const json doc = Dashboard();
  std::vector<std::string> exprs = Exprs(doc);
  for (const json& v : doc["templating"]["list"]) {
    if (v["type"] != "query") continue;
    const std::string selector = LabelValuesSelector(v["definition"].get<std::string>());
    EXPECT_FALSE(selector.empty()) << v["definition"];
    exprs.push_back(selector);
  }
  std::set<std::string> seen;
  for (const std::string& e : exprs) {
    const std::set<std::string> names = MetricNames(e);
    EXPECT_FALSE(names.empty()) << e;
    for (const std::string& n : names) {
      seen.insert(n);
      EXPECT_TRUE(FindMetric(n) != nullptr || n.starts_with("DCGM_FI_"))
          << n << " in \"" << e << "\" is not in the metric catalogue";
    }
  }
  // The topics the dashboard is for, by the metrics that carry them.
  for (std::string_view m :
       {kAllocatedUsdTotal, kEffectiveUsdTotal, kWasteUsdTotal, kIdleUsdTotal,
        kAllocatedGpuHoursTotal, kUnmeasuredGpuHoursTotal, kIdleGpuHoursTotal, kTeamBudgetUsd,
        kTeamForecastUsd, kScrapeErrorsTotal, kAttributionLagSeconds}) {
    EXPECT_TRUE(seen.contains(std::string(m))) << m << " is on no panel";
  }
}

TEST(Dashboard, ShowsTopWorkloadsSpotRatioAndIdleByNode) {
  std::map<std::string, std::string> by_title;
  const json doc = Dashboard();
  for (const json& p : doc["panels"]) {
    std::string all;
    for (const json& t : p["targets"]) all += t["expr"].get<std::string>() + "\n";
    by_title[p["title"].get<std::string>()] = all;
  }
  auto any = [&](const std::string& needle) {
    for (const auto& [title, exprs] : by_title) {
      if (exprs.find(needle) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(any("topk(10, sum by (cluster, namespace, workload_kind, workload) (increase(" +
                  std::string(kAllocatedUsdTotal)));
  EXPECT_TRUE(any("capacity_type=\"spot\""));
  EXPECT_TRUE(any("by (cluster, node, gpu_model) (increase(" + std::string(kIdleGpuHoursTotal)));
  EXPECT_TRUE(any("sum by (team) (rate(" + std::string(kWasteUsdTotal)));
}

}  // namespace
}  // namespace gpucost::monitoring
