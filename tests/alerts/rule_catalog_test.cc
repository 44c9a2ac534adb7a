// The rule catalogue and its settings: every rule well formed, every ${setting} known, flags
// parsed with errors that name them, and the template subset rendered as Prometheus renders it.
#include "alerts/rule_catalog.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>

#include "alerts/alert_settings.h"
#include "monitoring/metric_catalog.h"

namespace gpucost::alerts {
namespace {

TEST(AlertsRuleCatalog, EveryRuleIsComplete) {
  std::set<std::string> ids;
  const AlertSettings defaults;
  int evaluated = 0;
  for (const RuleDef& r : RuleCatalog()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_TRUE(r.severity == "warning" || r.severity == "info") << r.id;
    EXPECT_TRUE(r.group == kGroupCost || r.group == kGroupDcgm || r.group == kGroupKueue ||
                r.group == kGroupServe);
    EXPECT_FALSE(r.summary.empty());
    EXPECT_FALSE(r.description.empty());
    for (const std::string* text : {&r.expr, &r.for_duration, &r.summary, &r.description}) {
      // No ${setting} left over ("${{ $value }}" is a dollar sign before a template).
      const std::string expanded = ExpandSettings(*text, defaults);
      for (size_t at = expanded.find("${"); at != std::string::npos;
           at = expanded.find("${", at + 1)) {
        EXPECT_EQ(expanded.compare(at, 3, "${{"), 0) << r.id << ": " << expanded;
      }
    }
    for (const std::string& s : r.settings) EXPECT_NE(FindAlertSetting(s), nullptr) << s;
    evaluated += r.evaluated_by_alerts;
    EXPECT_EQ(r.evaluated_by_alerts, r.group == kGroupCost) << r.id;
  }
  EXPECT_EQ(evaluated, 7);
  for (std::string_view id : {kGpuIdleOnDemand, kGpuNotebookIdle, kGpuSpotRatioLow,
                              kGpuEfficiencyLow, kGpuBudgetForecastOverrun, kGpuPriceUnknown,
                              kGpuTelemetryMissing}) {
    ASSERT_NE(FindRule(id), nullptr) << id;
  }
  // The gpucost and gpucost-serve groups read only metrics gpucost exports.
  for (const RuleDef& r : RuleCatalog()) {
    if (r.group != kGroupCost && r.group != kGroupServe) continue;
    size_t at = 0;
    while ((at = r.expr.find("gpucost_", at)) != std::string::npos) {
      size_t end = at;
      while (end < r.expr.size() && (std::isalnum(static_cast<unsigned char>(r.expr[end])) ||
                                     r.expr[end] == '_')) {
        ++end;
      }
      const std::string name = r.expr.substr(at, end - at);
      EXPECT_NE(monitoring::FindMetric(name), nullptr) << r.id << ": " << name;
      at = end;
    }
  }
}

TEST(AlertsRuleCatalog, ThresholdsComeFromTheSettings) {
  AlertSettings s;
  ASSERT_TRUE(SetAlertSetting(s, "idle-threshold", "10%").ok());
  ASSERT_TRUE(SetAlertSetting(s, "idle-for", "90m").ok());
  ASSERT_TRUE(SetAlertSetting(s, "telemetry-missing-for", "20m").ok());
  const RuleDef* idle = FindRule(kGpuIdleOnDemand);
  EXPECT_NE(ExpandSettings(idle->expr, s).find("< 0.1 and"), std::string::npos);
  EXPECT_EQ(ExpandSettings(idle->for_duration, s), "1h30m");
  EXPECT_NE(ExpandSettings(idle->description, s).find("under 10% for at least 1h30m"),
            std::string::npos);
  EXPECT_NE(ExpandSettings(FindRule(kGpuTelemetryMissing)->expr, s).find(">= 1200 and"),
            std::string::npos);
}

TEST(AlertsSettings, ParsedWithErrorsNamingTheFlag) {
  AlertSettings s;
  EXPECT_TRUE(SetAlertSetting(s, "spot-ratio-target", "0.6").ok());
  EXPECT_DOUBLE_EQ(s.spot_ratio_target, 0.6);
  EXPECT_TRUE(SetAlertSetting(s, "min-gpu-hours", "2.5").ok());
  EXPECT_DOUBLE_EQ(s.min_gpu_hours, 2.5);
  EXPECT_TRUE(SetAlertSetting(s, "forecast-lookback", "3d").ok());
  EXPECT_EQ(s.forecast_lookback, std::chrono::hours(72));
  struct Bad {
    const char* name;
    const char* text;
    const char* says;
  };
  for (const Bad& b : {Bad{"idle-threshold", "150%", "--idle-threshold: \"150%\" is outside"},
                       Bad{"idle-threshold", "low", "--idle-threshold: \"low\" is not"},
                       Bad{"idle-for", "soon", "--idle-for"}, Bad{"idle-for", "0s", "positive"},
                       Bad{"min-gpu-hours", "-1", "--min-gpu-hours: must be >= 0"},
                       Bad{"no-such", "1", "unknown alert setting"}}) {
    const Status st = SetAlertSetting(s, b.name, b.text);
    ASSERT_FALSE(st.ok()) << b.name;
    EXPECT_NE(st.ToString().find(b.says), std::string::npos) << st.ToString();
  }
  EXPECT_EQ(SettingText(AlertSettings{}, "efficiency-target"), "80%");
  EXPECT_EQ(SettingPromQL(AlertSettings{}, "efficiency-target"), "0.8");
  EXPECT_EQ(SettingText(AlertSettings{}, "ratio-window"), "1d");
  EXPECT_EQ(SettingSeconds(AlertSettings{}, "kueue-wait-threshold"), "3600");
}

TEST(AlertsTemplate, RendersLikePrometheus) {
  const std::map<std::string, std::string> labels = {{"team", "ml"}, {"node", "n1"}};
  const AlertSettings s;
  EXPECT_EQ(RenderTemplate("team {{ $labels.team }} at {{ $value | humanizePercentage }}, "
                           "{{$labels.absent}}under ${idle-threshold:text}",
                           labels, 0.034, s),
            "team ml at 3.4%, under 5%");
  EXPECT_EQ(RenderTemplate("{{ $value | humanizeDuration }}", labels, 9000, s), "2h 30m 0s");
  EXPECT_EQ(RenderTemplate("{{ $value | humanizeDuration }}", labels, 93784, s), "1d 2h 3m 4s");
  EXPECT_EQ(RenderTemplate("{{ $value | humanizeDuration }}", labels, 42, s), "42s");
  EXPECT_EQ(RenderTemplate("{{ $value }} and {{ $value | humanize }}", labels, 1234.5, s),
            "1234.5 and 1.234k");
  // Money ("$" then printf "%.2f") is grouped as every gpucost text prints it; Prometheus, which
  // has no grouping verb, shows "$1056.00" for the same rule.
  EXPECT_EQ(RenderTemplate("${{ $value | printf \"%.2f\" }}", labels, 1056, s), "$1,056.00");
  EXPECT_EQ(RenderTemplate("{{ $value | printf \"%.2f\" }}", labels, 1056, s), "1056.00");
  EXPECT_EQ(RenderTemplate("{{ .Unknown }}", labels, 1, s), "{{ .Unknown }}");
}

}  // namespace
}  // namespace gpucost::alerts
