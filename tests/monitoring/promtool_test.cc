// Every PromQL expression of the Grafana dashboard parses with the real Prometheus parser:
// Grafana's variables are replaced with concrete values, the expressions written as recording
// rules, and `promtool check rules` must accept the file (and reject one with a broken
// expression, so the check can fail). Also `gpucost grafana-dashboard` as a user runs it.
// promtool missing: the test fails when CI is set, else it is skipped.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_test_util.h"
#include "monitoring/dashboard.h"
#include "monitoring/promql_names.h"

namespace gpucost::monitoring {
namespace {

using nlohmann::json;
using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

// The promtool to use: $PROMTOOL, else promtool on PATH, else "".
std::string Promtool() {
  if (const char* p = std::getenv("PROMTOOL"); p != nullptr && *p != '\0') return p;
  const RunResult r = RunShell("command -v promtool 2>/dev/null");
  std::string path = r.output;
  while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
  return r.exit_code == 0 ? path : "";
}

// Grafana's variables replaced the way Grafana would on a dashboard showing "All".
std::string Concrete(std::string expr) {
  const std::pair<std::string, std::string> values[] = {
      {"$__rate_interval", "5m"}, {"$__interval", "1m"}, {"$__range", "7d"},
      {"${cluster}", ".*"},       {"${team}", ".*"},     {"${namespace}", ".*"},
      {"$cluster", ".*"},         {"$team", ".*"},       {"$namespace", ".*"},
  };
  for (const auto& [from, to] : values) {
    for (size_t p = expr.find(from); p != std::string::npos; p = expr.find(from, p + to.size())) {
      expr.replace(p, from.size(), to);
    }
  }
  return expr;
}

// The dashboard's expressions as recording rules: one per panel query, and the selector of each
// label_values() variable.
std::string RulesFile(const std::vector<std::pair<std::string, std::string>>& rules) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "gpucost_dashboard";
  out << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
  for (const auto& [record, expr] : rules) {
    out << YAML::BeginMap << YAML::Key << "record" << YAML::Value << record << YAML::Key << "expr"
        << YAML::Value << YAML::DoubleQuoted << expr << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::vector<std::pair<std::string, std::string>> DashboardRules() {
  const json doc = json::parse(DashboardJson({}));
  std::vector<std::pair<std::string, std::string>> rules;
  for (const json& p : doc["panels"]) {
    for (const json& t : p["targets"]) {
      rules.emplace_back("gpucost_dashboard:panel_" + std::to_string(p["id"].get<int>()) + "_" +
                             t["refId"].get<std::string>(),
                         Concrete(t["expr"].get<std::string>()));
    }
  }
  for (const json& v : doc["templating"]["list"]) {
    if (v["type"] != "query") continue;
    rules.emplace_back("gpucost_dashboard:variable_" + v["name"].get<std::string>(),
                       Concrete(LabelValuesSelector(v["definition"].get<std::string>())));
  }
  return rules;
}

class PromtoolTest : public testing::Test {
 protected:
  void SetUp() override {
    promtool_ = Promtool();
    if (promtool_.empty()) {
      if (std::getenv("CI") != nullptr) FAIL() << "promtool is required in CI (Debian: prometheus)";
      GTEST_SKIP() << "promtool not installed (Debian package prometheus); skipping";
    }
  }
  RunResult Check(const std::string& rules_text) {
    const std::string path = dir_.Write("rules.yml", rules_text);
    return RunShell(promtool_ + " check rules " + path + " 2>&1");
  }
  std::string promtool_;
  TempDir dir_;
};

TEST_F(PromtoolTest, EveryPanelQueryParses) {
  const auto rules = DashboardRules();
  ASSERT_GE(rules.size(), 10u);
  for (const auto& [record, expr] : rules) {
    EXPECT_EQ(expr.find('$'), std::string::npos) << "unsubstituted variable in " << expr;
  }
  const RunResult r = Check(RulesFile(rules));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "SUCCESS: " + std::to_string(rules.size()) + " rules found"))
      << r.output;
}

TEST_F(PromtoolTest, ABrokenQueryFailsTheCheck) {
  auto rules = DashboardRules();
  ASSERT_FALSE(rules.empty());
  // Drop the last closing parenthesis of the first query.
  std::string& expr = rules.front().second;
  const size_t close = expr.rfind(')');
  ASSERT_NE(close, std::string::npos) << expr;
  expr.erase(close, 1);
  const RunResult r = Check(RulesFile(rules));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, rules.front().first) || Contains(r.output, "parse error"))
      << r.output;
}

TEST(GrafanaCommand, WritesTheDashboardToAFile) {
  TempDir dir;
  const std::string out = (dir.path() / "gpucost.json").string();
  const RunResult r =
      RunShell(kBinary + " grafana-dashboard --title 'GPU cost (prod)' --uid " +
               "gpu-prod --datasource-uid P1809F7CD0C75ACF3 --output " + out + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  DashboardOptions o;
  o.title = "GPU cost (prod)";
  o.uid = "gpu-prod";
  o.datasource_uid = "P1809F7CD0C75ACF3";
  EXPECT_EQ(dir.Read("gpucost.json"), DashboardJson(o));
  const json doc = json::parse(dir.Read("gpucost.json"));
  EXPECT_EQ(doc["title"], "GPU cost (prod)");
}

TEST(GrafanaCommand, WritesToStdoutByDefaultAndRejectsABadUid) {
  const RunResult r = RunShell(kBinary + " grafana-dashboard 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, DashboardJson({}));
  const RunResult bad = RunShell(kBinary + " grafana-dashboard --uid '' 2>&1");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_TRUE(Contains(bad.output, "--uid")) << bad.output;
  const RunResult unwritable =
      RunShell(kBinary + " grafana-dashboard --output /nonexistent/dir/x.json 2>&1");
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_TRUE(Contains(unwritable.output, "/nonexistent/dir/x.json")) << unwritable.output;
}

}  // namespace
}  // namespace gpucost::monitoring
