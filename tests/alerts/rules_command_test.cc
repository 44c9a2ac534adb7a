// `gpucost rules`: the PrometheusRule and plain rule file it writes pass `promtool check rules`,
// and `promtool test rules` on crafted series shows the rules firing where they should and not
// elsewhere, with the annotations this module's template renderer gives `gpucost alerts`.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "alerts/alert_settings.h"
#include "alerts/rule_catalog.h"
#include "cli/cli_test_util.h"

namespace gpucost::alerts {
namespace {

using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

using Labels = std::map<std::string, std::string>;

std::string Emit(const YAML::Node& node) {
  YAML::Emitter out;
  out << node;
  return out.c_str();
}

// spec.groups of the PrometheusRule `gpucost rules` writes with `flags`, as a plain rule file.
std::string PlainRules(const std::string& flags) {
  const RunResult r = RunShell(kBinary + " rules " + flags + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const YAML::Node doc = YAML::Load(r.output);
  YAML::Node plain;
  plain["groups"] = doc["spec"]["groups"];
  return Emit(plain) + "\n";
}

TEST(RulesCommand, PrometheusRuleShape) {
  const RunResult r = RunShell(kBinary + " rules --namespace monitoring --label release=kps 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const YAML::Node doc = YAML::Load(r.output);
  EXPECT_EQ(doc["apiVersion"].as<std::string>(), "monitoring.coreos.com/v1");
  EXPECT_EQ(doc["kind"].as<std::string>(), "PrometheusRule");
  EXPECT_EQ(doc["metadata"]["name"].as<std::string>(), "gpucost");
  EXPECT_EQ(doc["metadata"]["namespace"].as<std::string>(), "monitoring");
  EXPECT_EQ(doc["metadata"]["labels"]["release"].as<std::string>(), "kps");
  const YAML::Node groups = doc["spec"]["groups"];
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0]["name"].as<std::string>(), "gpucost");
  EXPECT_EQ(groups[1]["name"].as<std::string>(), "gpucost-dcgm");
  EXPECT_EQ(groups[2]["name"].as<std::string>(), "gpucost-kueue");
  EXPECT_EQ(groups[3]["name"].as<std::string>(), "gpucost-serve");
  size_t rules = 0;
  for (const YAML::Node& g : groups) {
    for (const YAML::Node& rule : g["rules"]) {
      ++rules;
      const RuleDef* def = FindRule(rule["alert"].as<std::string>());
      ASSERT_NE(def, nullptr);
      EXPECT_EQ(rule["labels"]["severity"].as<std::string>(), def->severity);
      EXPECT_EQ(rule["expr"].as<std::string>(), ExpandSettings(def->expr, AlertSettings{}));
      EXPECT_TRUE(rule["annotations"]["summary"]);
      EXPECT_TRUE(rule["annotations"]["description"]);
    }
  }
  EXPECT_EQ(rules, RuleCatalog().size());

  // The same groups as a plain rule file.
  const RunResult plain = RunShell(kBinary + " rules --format rules 2>&1");
  ASSERT_EQ(plain.exit_code, 0);
  EXPECT_EQ(Emit(YAML::Load(plain.output)["groups"]), Emit(groups));

  const RunResult one = RunShell(kBinary + " rules --groups gpucost-kueue --format rules");
  EXPECT_EQ(YAML::Load(one.output)["groups"].size(), 1u);
}

TEST(RulesCommand, SettingsFlagsSetTheThresholds) {
  const RunResult r = RunShell(kBinary + " rules --format rules --idle-threshold 10% --idle-for 3h"
                                         " --kueue-wait-threshold 30m 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const YAML::Node idle = YAML::Load(r.output)["groups"][0]["rules"][0];
  EXPECT_EQ(idle["alert"].as<std::string>(), "GpuIdleOnDemand");
  EXPECT_TRUE(Contains(idle["expr"].as<std::string>(), "< 0.1 and")) << idle["expr"];
  EXPECT_EQ(idle["for"].as<std::string>(), "3h");
  EXPECT_TRUE(Contains(idle["annotations"]["description"].as<std::string>(), "under 10%"));
  EXPECT_TRUE(Contains(r.output, "> 1800")) << r.output;
}

TEST(RulesCommand, ErrorsNameTheFlag) {
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"--groups nope", "no group \"nope\""},
           {"--format yaml", "--format: yaml not in {prometheus-rule,rules}"},
           {"--label nokey", "--label \"nokey\""},
           {"--idle-threshold 2", "--idle-threshold"},
       }) {
    const RunResult r = RunShell(kBinary + " rules " + args + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(Contains(r.output, says)) << r.output;
  }
}

TEST(RulesPromtool, CheckRulesAcceptsBothFormats) {
  TempDir dir;
  const std::string extracted = dir.Write("extracted.yml", PlainRules(""));
  RunResult r = RunShell("promtool check rules " + extracted + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "SUCCESS: " + std::to_string(RuleCatalog().size()) +
                                     " rules found"))
      << r.output;
  const RunResult plain = RunShell(kBinary + " rules --format rules -o " +
                                   (dir.path() / "plain.yml").string() + " 2>&1");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  r = RunShell("promtool check rules " + (dir.path() / "plain.yml").string() + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// A promtool unit test: input series, and per evaluation time the alerts expected.
class PromtoolTest {
 public:
  void Series(const std::string& series, const std::string& values) {
    series_.push_back({series, values});
  }
  // `labels` are the alert's labels without severity; `value` renders its annotations.
  void Expect(const std::string& eval_time, const std::string& alertname,
              std::vector<std::pair<Labels, double>> alerts = {}) {
    expects_.push_back({eval_time, alertname, std::move(alerts)});
  }
  std::string Yaml(const std::string& rule_file) const {
    const AlertSettings settings;
    YAML::Emitter out;
    out << YAML::BeginMap << YAML::Key << "rule_files" << YAML::Value << YAML::BeginSeq
        << rule_file << YAML::EndSeq << YAML::Key << "evaluation_interval" << YAML::Value << "1m";
    out << YAML::Key << "tests" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
    out << YAML::Key << "interval" << YAML::Value << "1m";
    out << YAML::Key << "input_series" << YAML::Value << YAML::BeginSeq;
    for (const auto& [s, v] : series_) {
      out << YAML::BeginMap << YAML::Key << "series" << YAML::Value << s << YAML::Key << "values"
          << YAML::Value << v << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::Key << "alert_rule_test" << YAML::Value << YAML::BeginSeq;
    for (const auto& e : expects_) {
      const RuleDef* rule = FindRule(e.alertname);
      out << YAML::BeginMap << YAML::Key << "eval_time" << YAML::Value << e.eval_time
          << YAML::Key << "alertname" << YAML::Value << e.alertname << YAML::Key << "exp_alerts"
          << YAML::Value << YAML::BeginSeq;
      for (const auto& [labels, value] : e.alerts) {
        Labels with = labels;
        with["severity"] = rule->severity;
        out << YAML::BeginMap << YAML::Key << "exp_labels" << YAML::Value << with;
        out << YAML::Key << "exp_annotations" << YAML::Value
            << Labels{{"summary", RenderTemplate(rule->summary, labels, value, settings)},
                      {"description", RenderTemplate(rule->description, labels, value, settings)}};
        out << YAML::EndMap;
      }
      out << YAML::EndSeq << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
    return out.c_str();
  }

 private:
  struct Expectation {
    std::string eval_time;
    std::string alertname;
    std::vector<std::pair<Labels, double>> alerts;
  };
  std::vector<std::pair<std::string, std::string>> series_;
  std::vector<Expectation> expects_;
};

std::string Sel(const std::string& metric, const Labels& labels) {
  std::string s = metric + "{";
  for (const auto& [k, v] : labels) s += (s.back() == '{' ? "" : ",") + k + "=\"" + v + "\"";
  return s + "}";
}

Labels Holder(const std::string& workload, const std::string& capacity) {
  return {{"cluster", "c1"},  {"namespace", "ml"},        {"team", "ml"},
          {"workload", workload}, {"workload_kind", "Job"}, {"gpu_model", "A100"},
          {"capacity_type", capacity}};
}

Labels NodeL(const std::string& node, const std::string& capacity = "on_demand") {
  return {{"cluster", "c1"}, {"node", node}, {"gpu_model", "A100"}, {"capacity_type", capacity}};
}

TEST(RulesPromtool, RulesFireOnCraftedSeriesAndNowhereElse) {
  PromtoolTest t;
  // GpuIdleOnDemand: idle on demand for 2 h fires; busy, spot, or nothing held does not.
  for (const auto& [workload, capacity, util, held] :
       std::vector<std::tuple<std::string, std::string, std::string, std::string>>{
           {"train", "on_demand", "0.01x180", "1x180"},
           {"busy", "on_demand", "0.5x180", "1x180"},
           {"spot-idle", "spot", "0x180", "1x180"},
           {"released", "on_demand", "0x180", "0x180"}}) {
    t.Series(Sel("gpucost_utilization_ratio", Holder(workload, capacity)), util);
    t.Series(Sel("gpucost_allocated_gpus", Holder(workload, capacity)), held);
  }
  t.Expect("1h50m", "GpuIdleOnDemand");
  t.Expect("2h10m", "GpuIdleOnDemand", {{Holder("train", "on_demand"), 0.01}});
  // GpuPriceUnknown: node a has no price, node b has one.
  t.Series(Sel("gpucost_node_price_known", NodeL("a")), "0x180");
  t.Series(Sel("gpucost_node_price_known", NodeL("b")), "1x180");
  t.Expect("10m", "GpuPriceUnknown", {{NodeL("a"), 0}});
  // GpuTelemetryMissing: "never" has held GPUs and no sample (0); "fresh" samples every minute
  // (its value is the time); "free" has no sample but nothing held.
  t.Series(Sel("gpucost_node_last_usage_sample_timestamp_seconds", NodeL("never")), "0x180");
  t.Series(Sel("gpucost_node_allocated_gpus", NodeL("never")), "1x180");
  t.Series(Sel("gpucost_node_last_usage_sample_timestamp_seconds", NodeL("fresh")), "0+60x180");
  t.Series(Sel("gpucost_node_allocated_gpus", NodeL("fresh")), "1x180");
  t.Series(Sel("gpucost_node_last_usage_sample_timestamp_seconds", NodeL("free")), "0x180");
  t.Series(Sel("gpucost_node_allocated_gpus", NodeL("free")), "0x180");
  t.Expect("10m", "GpuTelemetryMissing");
  t.Expect("20m", "GpuTelemetryMissing", {{NodeL("never"), 1200}});
  // KueueQueueStalled: "gpu" has 3 pending and admits nothing; "cpu" admits every minute.
  t.Series(R"(kueue_pending_workloads{cluster_queue="gpu",status="active"})", "3x180");
  t.Series(R"(kueue_admitted_workloads_total{cluster_queue="gpu"})", "5x180");
  t.Series(R"(kueue_pending_workloads{cluster_queue="cpu",status="active"})", "2x180");
  t.Series(R"(kueue_admitted_workloads_total{cluster_queue="cpu"})", "0+1x180");
  t.Expect("20m", "KueueQueueStalled");
  t.Expect("40m", "KueueQueueStalled", {{{{"cluster_queue", "gpu"}}, 3}});
  // GpuPodIdleOnDemand from dcgm-exporter: the ratio field where there is one, else the percent
  // field / 100; "Hostname" or "hostname"; only on on-demand nodes.
  auto dcgm = [&](const std::string& metric, const std::string& host_label,
                  const std::string& node, const std::string& pod, const std::string& values) {
    t.Series(Sel(metric, {{"gpu", "0"}, {"UUID", "GPU-" + pod}, {host_label, node},
                          {"namespace", "ml"}, {"pod", pod}, {"container", "main"}}),
             values);
  };
  dcgm("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Hostname", "n1", "prof-idle", "0.01x180");
  dcgm("DCGM_FI_DEV_GPU_UTIL", "Hostname", "n1", "util-idle", "3x180");
  dcgm("DCGM_FI_DEV_GPU_UTIL", "hostname", "n1", "util-busy", "50x180");
  dcgm("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "hostname", "n1", "both", "0.5x180");
  dcgm("DCGM_FI_DEV_GPU_UTIL", "hostname", "n1", "both", "2x180");
  dcgm("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Hostname", "n2", "on-spot", "0x180");
  t.Series(Sel("gpucost_node_gpus", NodeL("n1")), "4x180");
  t.Series(Sel("gpucost_node_gpus", NodeL("n2", "spot")), "1x180");
  auto pod = [](const std::string& name) {
    return Labels{{"namespace", "ml"}, {"pod", name}, {"container", "main"}, {"node", "n1"}};
  };
  t.Expect("1h50m", "GpuPodIdleOnDemand");
  t.Expect("2h10m", "GpuPodIdleOnDemand", {{pod("prof-idle"), 0.01}, {pod("util-idle"), 0.03}});

  TempDir dir;
  dir.Write("rules.yml", PlainRules("--groups gpucost,gpucost-dcgm,gpucost-kueue"));
  const std::string test = dir.Write("test.yml", t.Yaml("rules.yml"));
  const RunResult r = RunShell("promtool test rules " + test + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output << "\n" << dir.Read("test.yml");
  EXPECT_TRUE(Contains(r.output, "SUCCESS")) << r.output;
}

}  // namespace
}  // namespace gpucost::alerts
