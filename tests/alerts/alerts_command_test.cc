// `gpucost alerts` as a user runs it, on kube-state-metrics and dcgm-exporter exposition built
// here: which alerts fire and which do not, the exit status, text and JSON, the budget table,
// webhook delivery to a local HTTP server, and errors that name what is wrong.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "alerts/alerts_test_util.h"
#include "cli/cli_test_util.h"

namespace gpucost {
namespace {

using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

constexpr int64_t kT0 = 1790812800;  // 2026-10-01T00:00:00Z

// Four hours of 5-minute scrapes:
//  - ml/train-0 on on-demand A100 node od-a100: busy the first hour, then 1% for 3 hours;
//  - research/notebook-ana-0 on spot A100 node spot-a100: idle throughout;
//  - platform/bench-0 on on-demand H100 node od-h100, which prices.yaml does not price, and
//    whose dcgm-exporter stops after 2 hours.
class AlertsCommand : public testing::Test {
 protected:
  void SetUp() override {
    testing_util::Exposition e(kT0, 300, 48);
    e.Node("od-a100", "NVIDIA-A100-SXM4-80GB", "on-demand");
    e.Node("spot-a100", "NVIDIA-A100-SXM4-80GB", "spot");
    e.Node("od-h100", "NVIDIA-H100-80GB-HBM3", "on-demand");
    e.Pod("ml", "train-0", "train", "od-a100", 1, {{"team", "ml"}});
    e.Pod("research", "notebook-ana-0", "notebook-ana", "spot-a100", 1);
    e.Pod("platform", "bench-0", "bench", "od-h100", 1);
    e.Dcgm("od-a100", 0, "NVIDIA A100-SXM4-80GB", "ml", "train-0",
           [](int i) { return i < 12 ? 0.9 : 0.01; });
    e.Dcgm("spot-a100", 0, "NVIDIA A100-SXM4-80GB", "research", "notebook-ana-0",
           [](int) { return 0.0; });
    e.Dcgm("od-h100", 0, "NVIDIA H100 80GB HBM3", "platform", "bench-0",
           [](int i) { return i < 24 ? 0.9 : -1; });
    input_ = dir_.Write("input.prom", e.Text());
    prices_ = dir_.Write("prices.yaml",
                         "prices:\n"
                         "  - match: {gpu_model: \"*A100*\", capacity_type: on_demand}\n"
                         "    usd_per_gpu_hour: 3\n"
                         "  - match: {gpu_model: \"*A100*\", capacity_type: spot}\n"
                         "    usd_per_gpu_hour: 1\n"
                         "catalog: none\n");
  }

  RunResult Alerts(const std::string& extra, bool with_stderr = false) const {
    return RunShell(kBinary + " alerts --input " + input_ + " --prices " + prices_ +
                    " --step 5m " + extra + (with_stderr ? " 2>&1" : " 2>/dev/null"));
  }

  // alertname -> the "team"/"node" label of each firing alert.
  static std::multimap<std::string, std::string> Firing(const nlohmann::json& doc) {
    std::multimap<std::string, std::string> out;
    for (const auto& a : doc["alerts"]) {
      const auto& l = a["labels"];
      out.emplace(a["alertname"].get<std::string>(),
                  l.contains("node") && !l.contains("pod") ? l["node"].get<std::string>()
                                                           : l["team"].get<std::string>());
    }
    return out;
  }

  TempDir dir_;
  std::string input_;
  std::string prices_;
};

// Team targets off, so that only the idle, notebook, price and telemetry rules speak.
const std::string kNoTeamTargets = " --spot-ratio-target 0 --efficiency-target 0";

TEST_F(AlertsCommand, EachRuleFiresOnItsCase) {
  const RunResult r = Alerts("--format json" + kNoTeamTargets);
  ASSERT_EQ(r.exit_code, 1) << r.output;  // some firing
  const nlohmann::json doc = nlohmann::json::parse(r.output);
  EXPECT_EQ(doc["as_of"], "2026-10-01T04:00:00Z");
  const std::multimap<std::string, std::string> want = {
      {"GpuIdleOnDemand", "ml"},
      {"GpuNotebookIdle", "research"},
      {"GpuPriceUnknown", "od-h100"},
      {"GpuTelemetryMissing", "od-h100"}};
  EXPECT_EQ(Firing(doc), want) << r.output;
  for (const auto& a : doc["alerts"]) {
    if (a["alertname"] == "GpuIdleOnDemand") {
      EXPECT_EQ(a["labels"]["pod"], "train-0");
      EXPECT_EQ(a["labels"]["node"], "od-a100");
      EXPECT_EQ(a["labels"]["capacity_type"], "on_demand");
      EXPECT_NEAR(a["value"].get<double>(), 0.01, 1e-9);
      EXPECT_EQ(a["starts_at"], "2026-10-01T03:00:00Z");  // idle from 01:00, for 2h
    }
    if (a["alertname"] == "GpuTelemetryMissing") {
      // Newest sample 01:55, evaluated at 04:00.
      EXPECT_DOUBLE_EQ(a["value"].get<double>(), 2 * 3600 + 5 * 60);
      EXPECT_EQ(a["starts_at"], "2026-10-01T02:10:00Z");
    }
    if (a["alertname"] == "GpuPriceUnknown") {
      EXPECT_TRUE(a["value"].is_null());
    }
  }
}

// From a ledger, which keeps steps and not samples, the newest measured step's end stands for the
// newest sample (as gpucost_node_last_usage_sample_timestamp_seconds says it): a node silent for
// less than --telemetry-missing-for does not fire because the ledger has no samples.
TEST_F(AlertsCommand, TelemetryMissingFromALedgerCountsFromTheNewestMeasuredStep) {
  const std::string ledger = (dir_.path() / "costs.db").string();
  const RunResult wrote = RunShell(kBinary + " ledger write " + ledger + " --input " + input_ +
                                   " --prices " + prices_ + " --step 5m 2>&1");
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  std::string said;
  const auto telemetry = [&](const std::string& flags) {
    const RunResult r = RunShell(kBinary + " alerts " + flags + " --format json" + kNoTeamTargets +
                                 " --idle-for 5h --notebook-idle-for 5h 2>/dev/null");
    said = r.output;
    std::vector<nlohmann::json> out;
    const nlohmann::json doc = nlohmann::json::parse(r.output);
    for (const auto& a : doc["alerts"]) {
      if (a["alertname"] == "GpuTelemetryMissing") out.push_back(a);
    }
    return out;
  };
  const auto from_ledger = telemetry("--ledger " + ledger);
  ASSERT_EQ(from_ledger.size(), 1u) << said;
  EXPECT_EQ(from_ledger[0]["labels"]["node"], "od-h100");
  // The newest sample is 01:55; the steps it measures (within the staleness) end at 02:05,
  // evaluated at 04:00.
  EXPECT_DOUBLE_EQ(from_ledger[0]["value"].get<double>(), 3600 + 55 * 60);
  EXPECT_EQ(from_ledger[0]["starts_at"], "2026-10-01T02:20:00Z");
  EXPECT_NE(from_ledger[0]["annotations"]["description"].get<std::string>().find(
                "Newest measured step ended at 2026-10-01T02:05:00Z"),
            std::string::npos)
      << from_ledger[0].dump();
  // A window that starts after the newest sample counts from its start, as before: the samples
  // are there, the steps are not what is read.
  const auto windowed = telemetry("--input " + input_ + " --prices " + prices_ +
                                  " --step 5m --window 2026-10-01T02:00:00Z,2026-10-01T04:00:00Z"
                                  " --telemetry-missing-for 1h58m");
  ASSERT_EQ(windowed.size(), 1u) << said;
  EXPECT_DOUBLE_EQ(windowed[0]["value"].get<double>(), 2 * 3600);
  // 1h55m of silence by the steps, 2h5m by the samples: past 2h only the samples fire.
  EXPECT_TRUE(telemetry("--ledger " + ledger + " --telemetry-missing-for 2h").empty()) << said;
  EXPECT_EQ(telemetry("--input " + input_ + " --prices " + prices_ +
                      " --step 5m --telemetry-missing-for 2h")
                .size(),
            1u)
      << said;
}

TEST_F(AlertsCommand, NothingFiresBelowTheThresholds) {
  const std::string h100 = dir_.Write("prices-all.yaml",
                                      "prices:\n  - match: {gpu_model: \"*\"}\n"
                                      "    usd_per_gpu_hour: 2\ncatalog: none\n");
  const RunResult r = RunShell(kBinary + " alerts --input " + input_ + " --prices " + h100 +
                               " --step 5m --idle-for 3h5m --notebook-idle-for 5h"
                               " --telemetry-missing-for 2h10m" + kNoTeamTargets +
                               " 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "Alerts at 2026-10-01T04:00:00Z (data from "
                                 "2026-10-01T00:00:00Z): none firing\n"))
      << r.output;
  // The same data, a minute under each of those thresholds, fires again.
  const RunResult again = RunShell(kBinary + " alerts --input " + input_ + " --prices " + h100 +
                                   " --step 5m --idle-for 3h --notebook-idle-for 4h"
                                   " --telemetry-missing-for 2h5m --format json" +
                                   kNoTeamTargets + " 2>/dev/null");
  ASSERT_EQ(again.exit_code, 1) << again.output;
  const std::multimap<std::string, std::string> want = {{"GpuIdleOnDemand", "ml"},
                                                        {"GpuNotebookIdle", "research"},
                                                        {"GpuTelemetryMissing", "od-h100"}};
  EXPECT_EQ(Firing(nlohmann::json::parse(again.output)), want) << again.output;
}

TEST_F(AlertsCommand, TeamTargetsAndText) {
  const RunResult r = Alerts("--idle-for 5h --notebook-idle-for 5h --telemetry-missing-for 5h");
  ASSERT_EQ(r.exit_code, 1) << r.output;
  // ml: on demand only, efficiency (0.9 x 1 h + 0.01 x 3 h) / 4 h; research: spot, 0%;
  // platform: no price, so no efficiency, but 0% spot.
  EXPECT_TRUE(Contains(r.output, "info     GpuSpotRatioLow: Team ml runs 0% of its GPU-hours on "
                                 "spot\n"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "GpuSpotRatioLow: Team platform")) << r.output;
  EXPECT_FALSE(Contains(r.output, "GpuSpotRatioLow: Team research")) << r.output;
  EXPECT_TRUE(Contains(r.output, "warning  GpuEfficiencyLow: Team ml uses 23.25% of the GPU cost"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "GpuEfficiencyLow: Team research uses 0%")) << r.output;
  EXPECT_FALSE(Contains(r.output, "GpuEfficiencyLow: Team platform")) << r.output;
  EXPECT_TRUE(Contains(r.output, "GpuPriceUnknown: GPU price unknown for node od-h100"))
      << r.output;
}

TEST_F(AlertsCommand, BudgetTableAndForecast) {
  const std::string budgets =
      dir_.Write("budgets.yaml", "budgets:\n  ml: 2000\n  research: 5000\ndefault: 100\n");
  const RunResult r = Alerts("--format json --budgets " + budgets + kNoTeamTargets);
  ASSERT_EQ(r.exit_code, 1) << r.output;
  const nlohmann::json doc = nlohmann::json::parse(r.output);
  const nlohmann::json& b = doc["budgets"];
  EXPECT_EQ(b["month"], "2026-10");
  std::map<std::string, nlohmann::json> teams;
  for (const auto& t : b["teams"]) teams[t["team"]] = t;
  ASSERT_EQ(teams.size(), 3u) << b.dump(2);
  // ml: 4 h at $3 so far; run rate $12 per 4 h = $72/day; 30 days 20 hours left.
  const double remaining = 30 + 20.0 / 24;
  EXPECT_DOUBLE_EQ(teams["ml"]["month_to_date_usd"].get<double>(), 12);
  EXPECT_DOUBLE_EQ(teams["ml"]["run_rate_usd_per_day"].get<double>(), 72);
  EXPECT_NEAR(teams["ml"]["remaining_days"].get<double>(), remaining, 1e-12);
  EXPECT_NEAR(teams["ml"]["forecast_usd"].get<double>(), 12 + 72 * remaining, 1e-9);
  EXPECT_EQ(teams["ml"]["over_budget"], true);
  EXPECT_NEAR(teams["research"]["forecast_usd"].get<double>(), 4 + 24 * remaining, 1e-9);
  EXPECT_EQ(teams["research"]["over_budget"], false);
  // platform's H100 has no price: unknown, not zero, and the default budget.
  EXPECT_TRUE(teams["platform"]["month_to_date_usd"].is_null());
  EXPECT_TRUE(teams["platform"]["forecast_usd"].is_null());
  EXPECT_EQ(teams["platform"]["budget_usd"], 100.0);
  EXPECT_EQ(teams["platform"]["prices_known"], false);
  std::set<std::string> over;
  for (const auto& a : doc["alerts"]) {
    if (a["alertname"] == "GpuBudgetForecastOverrun") over.insert(a["labels"]["team"]);
  }
  EXPECT_EQ(over, std::set<std::string>{"ml"});

  const RunResult text = Alerts("--budgets " + budgets + kNoTeamTargets);
  EXPECT_TRUE(Contains(text.output, "Budgets for 2026-10 (as of 2026-10-01T04:00:00Z"))
      << text.output;
  EXPECT_TRUE(
      Contains(text.output, "platform  $100.00    unknown        unknown    -          unknown"))
      << text.output;
  EXPECT_TRUE(Contains(text.output, "ml        $2,000.00  $12.00         $2,232.00  111.6%     over"))
      << text.output;
}

TEST_F(AlertsCommand, ErrorsNameWhatIsWrong) {
  const std::string bad_budget = dir_.Write("bad.yaml", "budgets:\n  ml: plenty\n");
  struct Bad {
    std::string args;
    std::string says;
  };
  for (const Bad& bad : std::vector<Bad>{
           {"--budgets " + bad_budget, "bad.yaml:2: budgets.ml: not an amount in USD"},
           {"--budgets /nonexistent.yaml", "--budgets"},
           {"--idle-threshold 200%", "--idle-threshold"},
           {"--idle-for never", "--idle-for"},
           {"--format xml", "xml"},
           {"--month 2026-10 --window 0,1", "either --month or --window"},
           {"--alertmanager http://127.0.0.1:1", "POST http://127.0.0.1:1/api/v2/alerts"},
       }) {
    const RunResult r = Alerts(bad.args, true);
    EXPECT_EQ(r.exit_code, 2) << bad.args << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, bad.says)) << bad.args << "\n" << r.output;
  }
}

// A webhook receiver on a free loopback port, recording what it is sent.
class WebhookServer {
 public:
  WebhookServer() {
    server_.Post("/hook", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      bodies_.push_back(req.body);
      content_type_ = req.get_header_value("Content-Type");
      res.status = 200;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 200 && !server_.is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  ~WebhookServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  std::vector<std::string> bodies() {
    std::lock_guard<std::mutex> lock(mu_);
    return bodies_;
  }
  std::string content_type() {
    std::lock_guard<std::mutex> lock(mu_);
    return content_type_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> bodies_;
  std::string content_type_;
};

TEST_F(AlertsCommand, WebhookGetsAlertmanagersPayload) {
  WebhookServer hook;
  const RunResult r =
      Alerts("--webhook " + hook.url() + " --receiver finops" + kNoTeamTargets, true);
  ASSERT_EQ(r.exit_code, 1) << r.output;
  const std::vector<std::string> bodies = hook.bodies();
  ASSERT_EQ(bodies.size(), 1u) << r.output;
  EXPECT_EQ(hook.content_type(), "application/json");
  const nlohmann::json doc = nlohmann::json::parse(bodies[0]);
  EXPECT_EQ(doc["version"], "4");
  EXPECT_EQ(doc["status"], "firing");
  EXPECT_EQ(doc["receiver"], "finops");
  ASSERT_EQ(doc["alerts"].size(), 4u);
  std::set<std::string> names;
  for (const auto& a : doc["alerts"]) {
    names.insert(a["labels"]["alertname"].get<std::string>());
    EXPECT_EQ(a["status"], "firing");
    EXPECT_FALSE(a["annotations"]["summary"].get<std::string>().empty());
    EXPECT_EQ(a["fingerprint"].get<std::string>().size(), 16u);
  }
  EXPECT_EQ(names, (std::set<std::string>{"GpuIdleOnDemand", "GpuNotebookIdle", "GpuPriceUnknown",
                                          "GpuTelemetryMissing"}));
  EXPECT_EQ(doc["commonLabels"]["severity"], "warning");
  EXPECT_FALSE(doc["commonLabels"].contains("alertname"));

  // Nothing firing: nothing sent, exit 0.
  const RunResult quiet = Alerts("--webhook " + hook.url() +
                                 " --idle-for 5h --notebook-idle-for 5h --telemetry-missing-for 5h"
                                 " --price-per-gpu-hour 1" + kNoTeamTargets);
  EXPECT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(hook.bodies().size(), 1u);
}

TEST_F(AlertsCommand, DeliveryHidesTheSecretsOfItsUrls) {
  // A password and a token in the URLs are used to send, never shown: not in the error of a
  // receiver nobody answers, not in the line that says where the alerts went.
  WebhookServer hook;
  const RunResult sent =
      Alerts("--webhook '" + hook.url() + "?token=S3cretPlant'" + kNoTeamTargets, true);
  EXPECT_EQ(sent.exit_code, 1) << sent.output;
  EXPECT_EQ(hook.bodies().size(), 1u) << sent.output;
  EXPECT_TRUE(Contains(sent.output, hook.url() + "?token=***")) << sent.output;
  EXPECT_FALSE(Contains(sent.output, "S3cretPlant")) << sent.output;
  for (const std::string flag : {"--alertmanager", "--webhook"}) {
    const RunResult r =
        Alerts(flag + " 'http://am:S3cretPlant@127.0.0.1:1/hook?access_token=S3cretPlant'", true);
    EXPECT_EQ(r.exit_code, 2) << flag << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, "POST http://am:***@127.0.0.1:1/")) << flag << "\n" << r.output;
    EXPECT_FALSE(Contains(r.output, "S3cretPlant")) << flag << "\n" << r.output;
  }
}

}  // namespace
}  // namespace gpucost
