// Sending alerts on: the Alertmanager API v2 and webhook payloads, Alertmanager's fingerprint,
// and `gpucost alerts --alertmanager` against a real Alertmanager (Debian's
// prometheus-alertmanager) on a free loopback port, read back through GET /api/v2/alerts.
#include "alerts/alertmanager.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "alerts/alerts_test_util.h"
#include "cli/cli_test_util.h"
#include "common/child_process.h"

namespace gpucost::alerts {
namespace {

using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

Alert Sample() {
  Alert a;
  a.alertname = "GpuIdleOnDemand";
  a.severity = "warning";
  a.labels = {{"team", "ml"}, {"namespace", "ml"}, {"node", "n1"}};
  a.summary = "idle";
  a.description = "idle for 2h";
  a.starts_at = *ParseInstant("2026-10-01T03:00:00Z");
  a.value = 0.01;
  return a;
}

TEST(AlertsAlertmanagerPayload, LabelsAnnotationsAndTimes) {
  const Instant ends = *ParseInstant("2026-10-01T05:00:00Z");
  const nlohmann::json doc =
      nlohmann::json::parse(AlertmanagerPayload({Sample()}, ends, "http://gpucost/alerts"));
  ASSERT_TRUE(doc.is_array());
  ASSERT_EQ(doc.size(), 1u);
  const nlohmann::json& a = doc[0];
  EXPECT_EQ(a["labels"], (nlohmann::json{{"alertname", "GpuIdleOnDemand"},
                                         {"severity", "warning"},
                                         {"team", "ml"},
                                         {"namespace", "ml"},
                                         {"node", "n1"}}));
  EXPECT_EQ(a["annotations"]["summary"], "idle");
  EXPECT_EQ(a["annotations"]["description"], "idle for 2h");
  EXPECT_EQ(a["startsAt"], "2026-10-01T03:00:00Z");
  EXPECT_EQ(a["endsAt"], "2026-10-01T05:00:00Z");
  EXPECT_EQ(a["generatorURL"], "http://gpucost/alerts");
  EXPECT_EQ(AlertmanagerAlertsUrl("http://am:9093/"), "http://am:9093/api/v2/alerts");
  EXPECT_EQ(AlertmanagerAlertsUrl("http://am:9093/api/v2/alerts"), "http://am:9093/api/v2/alerts");
}

TEST(AlertsAlertmanagerPayload, FingerprintIsAlertmanagers) {
  // Prometheus' model.LabelSet{"alertname": "foo"}.Fingerprint() is FNV-1a 64 of
  // "alertname\xfffoo\xff".
  EXPECT_EQ(Fingerprint({{"alertname", "foo"}}), Fingerprint({{"alertname", "foo"}}));
  EXPECT_NE(Fingerprint({{"alertname", "foo"}}), Fingerprint({{"alertname", "fop"}}));
  EXPECT_EQ(Fingerprint({}), "cbf29ce484222325");  // the FNV-1a 64 offset basis
  const std::string fp = Fingerprint({{"a", "b"}});
  EXPECT_EQ(fp.size(), 16u);
}

TEST(AlertsWebhookPayload, VersionFourWithCommonLabels) {
  Alert other = Sample();
  other.alertname = "GpuNotebookIdle";
  other.labels["node"] = "n2";
  const nlohmann::json doc = nlohmann::json::parse(WebhookPayload({Sample(), other}, "rx", ""));
  EXPECT_EQ(doc["version"], "4");
  EXPECT_EQ(doc["receiver"], "rx");
  EXPECT_EQ(doc["truncatedAlerts"], 0);
  EXPECT_EQ(doc["commonLabels"],
            (nlohmann::json{{"namespace", "ml"}, {"severity", "warning"}, {"team", "ml"}}));
  EXPECT_EQ(doc["commonAnnotations"],
            (nlohmann::json{{"description", "idle for 2h"}, {"summary", "idle"}}));
  ASSERT_EQ(doc["alerts"].size(), 2u);
  EXPECT_EQ(doc["alerts"][1]["labels"]["alertname"], "GpuNotebookIdle");
  EXPECT_EQ(doc["alerts"][0]["endsAt"], "0001-01-01T00:00:00Z");
  EXPECT_EQ(doc["alerts"][0]["fingerprint"], Fingerprint(SentLabels(Sample())));
}

constexpr const char* kAlertmanager = "/usr/bin/prometheus-alertmanager";

// A real Alertmanager with one do-nothing receiver, no clustering, on a free port.
class AlertmanagerProcess {
 public:
  explicit AlertmanagerProcess(const TempDir& dir) : port_(testing_util::FreePort()) {
    const std::string config = dir.Write("alertmanager.yml",
                                         "route:\n  receiver: sink\nreceivers:\n  - name: sink\n");
    std::filesystem::create_directories(dir.path() / "data");
    process_ = std::make_unique<testing_util::ChildProcess>(
        std::vector<std::string>{kAlertmanager, "--config.file=" + config,
                                 "--storage.path=" + (dir.path() / "data").string(),
                                 "--web.listen-address=127.0.0.1:" + std::to_string(port_),
                                 "--cluster.listen-address="},
        (dir.path() / "alertmanager.log").string());
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  bool WaitReady() {
    httplib::Client client("127.0.0.1", port_);
    client.set_connection_timeout(1);
    for (int i = 0; i < 150; ++i) {
      if (process_->Exited()) return false;
      if (auto res = client.Get("/-/ready"); res && res->status == 200) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  std::string Log() const { return process_->Log(); }

 private:
  int port_;
  std::unique_ptr<testing_util::ChildProcess> process_;
};

TEST(AlertsRealAlertmanager, ReceivesTheFiringAlertsWithTheirLabels) {
  if (!std::filesystem::exists(kAlertmanager)) {
    if (std::getenv("CI") != nullptr) {
      FAIL() << kAlertmanager << " is missing (scripts/install-deps.sh installs it)";
    }
    GTEST_SKIP() << kAlertmanager << " is missing: apt-get install prometheus-alertmanager";
  }
  TempDir dir;
  AlertmanagerProcess am(dir);
  ASSERT_TRUE(am.WaitReady()) << am.Log();

  // An on-demand GPU idle for three hours, and a node nothing prices.
  testing_util::Exposition e(1790812800, 300, 48);
  e.Node("od-a100", "NVIDIA-A100-SXM4-80GB", "on-demand");
  e.Pod("ml", "train-0", "train", "od-a100", 1, {{"team", "ml"}});
  e.Dcgm("od-a100", 0, "NVIDIA A100-SXM4-80GB", "ml", "train-0",
         [](int i) { return i < 12 ? 0.9 : 0.0; });
  const std::string input = dir.Write("input.prom", e.Text());
  const RunResult r = RunShell(std::string(GPUCOST_BINARY) + " alerts --input " + input +
                               " --step 5m --no-catalog --spot-ratio-target 0"
                               " --efficiency-target 0 --alertmanager " +
                               am.url() + " 2>&1");
  ASSERT_EQ(r.exit_code, 1) << r.output;

  httplib::Client client("127.0.0.1", am.port());
  auto res = client.Get("/api/v2/alerts");
  ASSERT_TRUE(res) << am.Log();
  ASSERT_EQ(res->status, 200) << res->body;
  const nlohmann::json alerts = nlohmann::json::parse(res->body);
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& a : alerts) by_name[a["labels"]["alertname"]] = a;
  ASSERT_EQ(by_name.size(), 2u) << res->body;
  const nlohmann::json& idle = by_name["GpuIdleOnDemand"];
  EXPECT_EQ(idle["labels"]["severity"], "warning");
  EXPECT_EQ(idle["labels"]["team"], "ml");
  EXPECT_EQ(idle["labels"]["namespace"], "ml");
  EXPECT_EQ(idle["labels"]["workload"], "train");
  EXPECT_EQ(idle["labels"]["pod"], "train-0");
  EXPECT_EQ(idle["labels"]["node"], "od-a100");
  EXPECT_EQ(idle["status"]["state"], "active");
  EXPECT_EQ(idle["startsAt"], "2026-10-01T03:00:00.000Z");
  EXPECT_FALSE(idle["annotations"]["description"].get<std::string>().empty());
  EXPECT_EQ(idle["fingerprint"],
            Fingerprint(idle["labels"].get<std::map<std::string, std::string>>()));
  EXPECT_EQ(by_name["GpuPriceUnknown"]["labels"]["node"], "od-a100");
}

}  // namespace
}  // namespace gpucost::alerts
