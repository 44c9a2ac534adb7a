// `gpucost serve` as it runs in a cluster, against a real Prometheus (Debian's package) holding
// the demo cluster's series: it catches up into the ledger, answers /metrics and /api/v1/report
// with the numbers `gpucost report` gives, survives SIGKILL without counting anything twice, keeps
// trying while its source is down, and checks bearer tokens.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "ledger/serve_test_util.h"

namespace gpucost {
namespace {

using nlohmann::json;
using serve_test::Get;
using serve_test::Response;
using serve_test::SumOf;
using serve_test::ValueOf;
using serve_test::WaitFor;
using testing_util::ChildProcess;
using testing_util::FreePort;
using testing_util::PrometheusProcess;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

class Serve : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists("/usr/bin/prometheus")) {
      if (std::getenv("CI") != nullptr) FAIL() << "prometheus is not installed";
      GTEST_SKIP() << "prometheus is not installed (scripts/install-deps.sh)";
    }
    input_ = (dir_.path() / "demo.om").string();
    ledger_ = (dir_.path() / "costs.db").string();
    ASSERT_EQ(RunShell(kBinary + " demo --write-openmetrics " + input_).exit_code, 0);
    const RunResult imported =
        RunShell("/usr/bin/promtool tsdb create-blocks-from openmetrics " + input_ + " " +
                 (dir_.path() / "tsdb").string() + " 2>&1");
    ASSERT_EQ(imported.exit_code, 0) << imported.output;
    prometheus_ = std::make_unique<PrometheusProcess>(dir_.path(), dir_.path() / "tsdb");
    ASSERT_TRUE(prometheus_->WaitReady(std::chrono::seconds(60))) << prometheus_->Log();
  }

  std::unique_ptr<ChildProcess> Start(int port, const std::string& source,
                                      const std::string& extra = "") {
    std::vector<std::string> args = {kBinary, "serve", "--ledger", ledger_,
                                     "--price-per-gpu-hour", "12",
                                     "--from", "2026-10-01T00:00:00Z",
                                     "--interval", "2s",
                                     "--listen", "127.0.0.1:" + std::to_string(port)};
    for (const std::string& a : {std::string("--prometheus"), source}) args.push_back(a);
    std::string word;
    for (char c : extra + " ") {
      if (c != ' ') {
        word += c;
      } else if (!word.empty()) {
        args.push_back(word);
        word.clear();
      }
    }
    return std::make_unique<ChildProcess>(args, (dir_.path() / "serve.log").string());
  }

  int64_t Records() {
    const RunResult r = RunShell(kBinary + " ledger info --format json " + ledger_);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return json::parse(r.output)["records"].get<int64_t>();
  }

  TempDir dir_;
  std::string input_;
  std::string ledger_;
  std::unique_ptr<PrometheusProcess> prometheus_;
};

TEST_F(Serve, CatchesUpAndServesWhatTheReportSays) {
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  auto serve = Start(port, prometheus_->url());
  ASSERT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << serve->Log();
  EXPECT_EQ(Get(base + "/healthz").status, 200);

  // /metrics: the counters add up to the hour's $12, allocated = effective + waste.
  const Response metrics = Get(base + "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NEAR(SumOf(metrics.body, "gpucost_allocated_usd_total"), 12, 1e-6) << metrics.body;
  EXPECT_NEAR(SumOf(metrics.body, "gpucost_effective_usd_total") +
                  SumOf(metrics.body, "gpucost_waste_usd_total"),
              12, 1e-6);
  EXPECT_NE(metrics.body.find("gpucost_scrape_errors_total{target=\"source\"} 0"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("gpucost_ledger_bytes "), std::string::npos);
  // The free space of the disk it writes to, by role (SQLite: the ledger's); no spool here.
  EXPECT_GT(ValueOf(metrics.body, "gpucost_disk_free_bytes{path=\"ledger\"}"), 0) << metrics.body;
  EXPECT_EQ(metrics.body.find("gpucost_disk_free_bytes{path=\"spool\"}"), std::string::npos);
  EXPECT_EQ(metrics.body.find("gpucost_scrape_spool_bytes"), std::string::npos);

  // The API answers the report contract with the CLI's numbers.
  const Response api = Get(base + "/api/v1/report?by=team");
  ASSERT_EQ(api.status, 200) << api.body;
  const RunResult cli = RunShell(kBinary + " report --input " + input_ +
                                 " --price-per-gpu-hour 12 --by team --accumulate --format json");
  ASSERT_EQ(cli.exit_code, 0);
  const json a = json::parse(api.body);
  const json b = json::parse(cli.output);
  ASSERT_EQ(a["rows"].size(), b["rows"].size());
  for (size_t i = 0; i < a["rows"].size(); ++i) {
    EXPECT_EQ(a["rows"][i]["team"], b["rows"][i]["team"]);
    EXPECT_NEAR(a["rows"][i]["allocated_usd"].get<double>(),
                b["rows"][i]["allocated_usd"].get<double>(), 1e-9);
    EXPECT_NEAR(a["rows"][i]["effective_usd"].get<double>(),
                b["rows"][i]["effective_usd"].get<double>(), 1e-9);
  }
  EXPECT_EQ(Get(base + "/api/v1/report?by=colour").status, 400);

  // OpenCost's /allocation: its parameters and GPU field names, the same money.
  const std::string hour = "window=2026-10-01T00:00:00Z,2026-10-01T01:00:00Z";
  const Response alloc =
      Get(base + "/allocation/compute?" + hour + "&aggregate=namespace&accumulate=true");
  ASSERT_EQ(alloc.status, 200) << alloc.body;
  const json oc = json::parse(alloc.body);
  EXPECT_EQ(oc["code"], 200);
  ASSERT_EQ(oc["data"].size(), 1u);
  const json& bu_a = oc["data"][0]["bu-a"];
  EXPECT_EQ(bu_a["properties"]["namespace"], "bu-a");
  EXPECT_NEAR(bu_a["gpuCost"].get<double>(), 36.0 / 7, 1e-5);  // 3 of 7 slices at $12
  EXPECT_NEAR(bu_a["gpuHours"].get<double>(), 3.0 / 7, 1e-5);
  EXPECT_NEAR(bu_a["gpuCount"].get<double>(), 3.0 / 7, 1e-5);
  EXPECT_NEAR(bu_a["gpuEfficiency"].get<double>(), b["rows"][0]["efficiency"].get<double>(), 1e-5);
  EXPECT_FALSE(oc["data"][0].contains("__idle__"));
  // Two half-hour sets with step (controller kinds lowercase, as OpenCost's); includeIdle.
  const json steps = json::parse(
      Get(base + "/allocation?" + hour + "&aggregate=controllerKind&step=30m").body);
  ASSERT_EQ(steps["data"].size(), 2u);
  EXPECT_NEAR(steps["data"][0]["job"]["gpuCost"].get<double>() +
                  steps["data"][1]["job"]["gpuCost"].get<double>(),
              36.0 / 7, 1e-4);
  const json idle =
      json::parse(Get(base + "/allocation?" + hour + "&aggregate=namespace&includeIdle=true").body);
  double total = 0;  // the demo's GPU is fully held: everything is allocated, idle or not
  for (const auto& [name, entry] : idle["data"][0].items()) total += entry["gpuCost"].get<double>();
  EXPECT_NEAR(total, 12, 1e-4);
  // gpucost knows no services: OpenCost's group for allocations without one holds them all.
  const json services = json::parse(Get(base + "/allocation?" + hour + "&aggregate=service").body);
  ASSERT_EQ(services["data"].size(), 1u);
  EXPECT_NEAR(services["data"][0]["__unallocated__"]["gpuCost"].get<double>(), 12, 1e-4);
  // OpenCost's filter language.
  const json some = json::parse(Get(base + "/allocation?" + hour +
                                    "&aggregate=namespace&filter=namespace:%22bu-a%22,%22bu-c%22")
                                    .body);
  ASSERT_EQ(some["data"].size(), 1u);
  EXPECT_TRUE(some["data"][0].contains("bu-a"));
  EXPECT_TRUE(some["data"][0].contains("bu-c"));
  EXPECT_FALSE(some["data"][0].contains("bu-b"));
  EXPECT_NEAR(some["data"][0]["bu-a"]["gpuCost"].get<double>(), 36.0 / 7, 1e-5);
  const json not_a = json::parse(
      Get(base + "/allocation?" + hour + "&aggregate=namespace&filter=namespace!:%22bu-a%22").body);
  EXPECT_FALSE(not_a["data"][0].contains("bu-a"));
  EXPECT_TRUE(not_a["data"][0].contains("bu-b"));
  const Response bad = Get(base + "/allocation?" + hour + "&filter=colour:%22red%22");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("unknown field"), std::string::npos) << bad.body;
  EXPECT_EQ(Get(base + "/allocation").status, 400);
  EXPECT_EQ(serve->Terminate(), 0) << serve->Log();
  EXPECT_EQ(Records(), 7 * 60);
}

// The value of the one sample of `name` whose labels contain `match`; NaN when absent.
double ValueOf(const std::string& text, const std::string& name, const std::string& match) {
  size_t pos = 0;
  while ((pos = text.find("\n" + name + "{", pos)) != std::string::npos) {
    const size_t eol = text.find('\n', pos + 1);
    const std::string line = text.substr(pos + 1, eol - pos - 1);
    if (line.find(match) != std::string::npos) return std::stod(line.substr(line.rfind(' ') + 1));
    pos = eol;
  }
  return NAN;
}

TEST_F(Serve, ExportsEveryMetricTheAlertRulesUse) {
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  const std::string budgets = dir_.Write("budgets.yaml", "budgets:\n  bu-a: 1000\ndefault: 500\n");
  auto serve = Start(port, prometheus_->url(), "--budgets " + budgets);
  ASSERT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << serve->Log();
  const std::string m = Get(base + "/metrics").body;

  // The newest step (00:59): all seven 1g slices held, the node's price and telemetry.
  EXPECT_NEAR(SumOf(m, "gpucost_allocated_gpus"), 1, 1e-9);
  EXPECT_NEAR(SumOf(m, "gpucost_allocated_usd_per_hour"), 12, 1e-9);
  EXPECT_NEAR(ValueOf(m, "gpucost_allocated_gpus", "workload=\"llm-finetune\""), 3.0 / 7, 1e-9);
  const double u = ValueOf(m, "gpucost_utilization_ratio", "workload=\"llm-finetune\"");
  EXPECT_GT(u, 0.5);
  EXPECT_LE(u, 1);
  EXPECT_EQ(ValueOf(m, "gpucost_node_gpus", "node=\"gpu-a100-1\""), 1);
  EXPECT_NEAR(ValueOf(m, "gpucost_node_allocated_gpus", "node=\"gpu-a100-1\""), 1, 1e-9);
  EXPECT_EQ(ValueOf(m, "gpucost_node_price_known", "node=\"gpu-a100-1\""), 1);
  EXPECT_EQ(ValueOf(m, "gpucost_node_price_usd_per_gpu_hour", "price_source=\"default\""), 12);
  EXPECT_EQ(ValueOf(m, "gpucost_node_last_usage_sample_timestamp_seconds", "gpu-a100-1"),
            1790816400);  // 2026-10-01T01:00:00Z, the end of the last measured step
  // Budgets: bu-a's own, the default for the others; the forecast runs the last hour's rate
  // ($36/7 an hour) over the 30 days 23 hours left in October.
  EXPECT_EQ(ValueOf(m, "gpucost_team_budget_usd", "team=\"bu-a\""), 1000);
  EXPECT_EQ(ValueOf(m, "gpucost_team_budget_usd", "team=\"bu-c\""), 500);
  EXPECT_NEAR(ValueOf(m, "gpucost_team_month_to_date_usd", "team=\"bu-a\""), 36.0 / 7, 1e-9);
  EXPECT_NEAR(ValueOf(m, "gpucost_team_month_forecast_usd", "team=\"bu-a\""),
              36.0 / 7 * (1 + 24 * (30 + 23.0 / 24)), 1e-6);

  // Every gpucost metric the generated alert rules read is exported. (The gpucost-serve group's
  // needs the Kubernetes API: DraKubeTest.ServeExportsTheKindsItMayNotRead checks it.)
  const RunResult rules =
      RunShell(kBinary + " rules --format rules --groups gpucost,gpucost-dcgm,gpucost-kueue");
  ASSERT_EQ(rules.exit_code, 0);
  size_t pos = 0;
  int checked = 0;
  while ((pos = rules.output.find("gpucost_", pos)) != std::string::npos) {
    size_t end = pos;
    while (end < rules.output.size() &&
           (std::isalnum(static_cast<unsigned char>(rules.output[end])) ||
            rules.output[end] == '_')) {
      ++end;
    }
    const std::string name = rules.output.substr(pos, end - pos);
    EXPECT_NE(m.find("\n" + name + "{"), std::string::npos) << name << " is not exported";
    ++checked;
    pos = end;
  }
  EXPECT_GT(checked, 5);
}

TEST_F(Serve, KilledAndRestartedItCountsNothingTwice) {
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  {
    auto serve = Start(port, prometheus_->url());
    ASSERT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << serve->Log();
    ASSERT_TRUE(serve->Kill());
  }
  const int64_t before = Records();
  EXPECT_EQ(before, 7 * 60);
  auto again = Start(port, prometheus_->url());
  ASSERT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << again->Log();
  EXPECT_NEAR(SumOf(Get(base + "/metrics").body, "gpucost_allocated_usd_total"), 12, 1e-6);
  EXPECT_EQ(Records(), before);
}

TEST_F(Serve, KeepsTryingWhileTheSourceIsDownAndChecksTokens) {
  // A source nobody listens on: not ready, errors counted, the server still answers.
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  const std::string token = dir_.Write("token", "s3cret\n");
  auto serve = Start(port, "http://127.0.0.1:" + std::to_string(FreePort()),
                     "--token-file " + token);
  ASSERT_TRUE(WaitFor(base + "/healthz", 200, std::chrono::seconds(30))) << serve->Log();
  EXPECT_EQ(Get(base + "/metrics").status, 401);
  EXPECT_EQ(Get(base + "/metrics", "wrong").status, 401);
  // The failed cycles are counted (each after the client's own retries).
  const std::string errors = "gpucost_scrape_errors_total{target=\"source\"} ";
  int failures = 0;
  for (int i = 0; i < 600 && failures == 0; ++i) {
    const Response m = Get(base + "/metrics", "s3cret");
    ASSERT_EQ(m.status, 200);
    const size_t at = m.body.find(errors);
    ASSERT_NE(at, std::string::npos) << m.body;
    failures = std::stoi(m.body.substr(at + errors.size()));
    if (failures == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_GE(failures, 1);
  EXPECT_EQ(Get(base + "/readyz").status, 503);
  EXPECT_EQ(serve->Terminate(), 0);

  // The source comes back: the same ledger catches up.
  auto back = Start(port, prometheus_->url(), "--token-file " + token);
  ASSERT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << back->Log();
  EXPECT_NEAR(SumOf(Get(base + "/metrics", "s3cret").body, "gpucost_allocated_usd_total"), 12,
              1e-6);
}

TEST_F(Serve, ServesHttpsWithItsSettingsFromAConfigFile) {
  const std::string cert = (dir_.path() / "cert.pem").string();
  const std::string key = (dir_.path() / "key.pem").string();
  const RunResult made = RunShell(
      "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext "
      "subjectAltName=IP:127.0.0.1 -keyout " + key + " -out " + cert + " 2>&1");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const int port = FreePort();
  const std::string config = dir_.Write(
      "serve.yaml", "ledger: " + ledger_ + "\nprometheus: " + prometheus_->url() +
                        "\nprice-per-gpu-hour: 12\nfrom: 2026-10-01T00:00:00Z\ninterval: 2s\n"
                        "listen: 127.0.0.1:" + std::to_string(port) + "\ntls-cert-file: " + cert +
                        "\ntls-key-file: " + key + "\ntoken-file: " +
                        dir_.Write("token", "s3cret\n") + "\n");
  ChildProcess serve({kBinary, "serve", "--config", config},
                     (dir_.path() / "serve.log").string());
  const std::string base = "https://127.0.0.1:" + std::to_string(port);
  ASSERT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120), cert)) << serve.Log();
  const Response metrics = Get(base + "/metrics", "s3cret", cert);
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NEAR(SumOf(metrics.body, "gpucost_allocated_usd_total"), 12, 1e-6);
  EXPECT_EQ(Get(base + "/metrics", "", cert).status, 401);
  // HTTPS only, and only to clients that trust the certificate.
  EXPECT_EQ(Get("http://127.0.0.1:" + std::to_string(port) + "/healthz").status, 0);
  EXPECT_EQ(Get(base + "/healthz").status, 0);
  EXPECT_EQ(serve.Terminate(), 0);
}

TEST_F(Serve, RefusesAKeyThatIsNotTheCertificates) {
  const std::string cert = dir_.Write("cert.pem", "-----BEGIN CERTIFICATE-----\nnope\n");
  const std::string key = dir_.Write("key.pem", "nope\n");
  const RunResult r = RunShell(kBinary + " serve --ledger " + ledger_ + " --prometheus " +
                               prometheus_->url() + " --listen 127.0.0.1:0 --tls-cert-file " +
                               cert + " --tls-key-file " + key + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("cannot load the TLS certificate"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(ledger_));  // refused before anything started
}

TEST_F(Serve, RidesOutItsSourceGoingAwayAndBackFillsWhenItReturns) {
  const int prometheus_port = prometheus_->port();
  ASSERT_EQ(prometheus_->Stop(), 0);
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  auto serve = Start(port, prometheus_->url());
  ASSERT_TRUE(WaitFor(base + "/healthz", 200, std::chrono::seconds(30))) << serve->Log();
  const std::string errors = "gpucost_scrape_errors_total{target=\"source\"}";
  for (int i = 0; i < 600 && ValueOf(Get(base + "/metrics").body, errors) < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(ValueOf(Get(base + "/metrics").body, errors), 1) << serve->Log();
  EXPECT_EQ(Get(base + "/readyz").status, 503);
  EXPECT_EQ(SumOf(Get(base + "/metrics").body, "gpucost_allocated_usd_total"), 0);

  // The same process, untouched, attributes everything it missed once the source is back.
  prometheus_ = std::make_unique<PrometheusProcess>(dir_.path(), dir_.path() / "tsdb", "",
                                                    "  scrape_interval: 1h\n", prometheus_port);
  ASSERT_TRUE(prometheus_->WaitReady(std::chrono::seconds(60))) << prometheus_->Log();
  ASSERT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << serve->Log();
  EXPECT_NEAR(SumOf(Get(base + "/metrics").body, "gpucost_allocated_usd_total"), 12, 1e-6);
  EXPECT_EQ(Records(), 7 * 60);
}

TEST_F(Serve, RetentionEmptiesTheLedgerButNotTheCounters) {
  // The demo's hour is weeks old: a 7-day retention removes each chunk once written.
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  auto serve = Start(port, prometheus_->url(), "--retention 7d");
  ASSERT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << serve->Log();
  EXPECT_NEAR(SumOf(Get(base + "/metrics").body, "gpucost_allocated_usd_total"), 12, 1e-6);
  EXPECT_EQ(serve->Terminate(), 0);
  EXPECT_EQ(Records(), 0);
  const RunResult bad = RunShell(kBinary + " serve --ledger " + ledger_ +
                                 " --prometheus http://x --retention 5m --check-config 2>&1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("--retention must be longer than --grace + --lag"), std::string::npos)
      << bad.output;
}

TEST_F(Serve, AFullDiskIsReportedAndCorruptsNothing) {
  // No file of the ledger may grow past 160 KiB (RLIMIT_FSIZE: writes fail as on a full disk).
  // The schema and the first chunks fit; the write-ahead log of the whole hour does not.
  // Chunks of 5 minutes: some are kept, then writes fail.
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  const std::string command =
      "trap '' XFSZ; ulimit -f 160; exec " + kBinary + " serve --ledger " + ledger_ +
      " --price-per-gpu-hour 12 --from 2026-10-01T00:00:00Z --interval 1s --max-chunk 5m "
      "--listen 127.0.0.1:" + std::to_string(port) + " --prometheus " + prometheus_->url();
  {
    ChildProcess full({"/bin/bash", "-c", command}, (dir_.path() / "full.log").string());
    ASSERT_TRUE(WaitFor(base + "/healthz", 200, std::chrono::seconds(30))) << full.Log();
    double failed = 0;
    for (int i = 0; i < 600 && failed < 2; ++i) {
      failed = ValueOf(Get(base + "/metrics").body, "gpucost_ledger_write_errors_total");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_GE(failed, 2) << full.Log();
    const Response metrics = Get(base + "/metrics");
    EXPECT_EQ(ValueOf(metrics.body, "gpucost_scrape_errors_total{target=\"source\"}"), 0);
    EXPECT_EQ(Get(base + "/readyz").status, 503);
    EXPECT_NE(full.Log().find("writing the ledger"), std::string::npos) << full.Log();
    EXPECT_EQ(full.Terminate(), 0);
  }
  // What was kept is whole chunks and reads back; with room again the same ledger completes.
  const int64_t kept = Records();
  EXPECT_LT(kept, 7 * 60);
  EXPECT_EQ(kept % (5 * 7), 0) << kept;
  auto again = Start(port, prometheus_->url());
  ASSERT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << again->Log();
  EXPECT_NEAR(SumOf(Get(base + "/metrics").body, "gpucost_allocated_usd_total"), 12, 1e-6);
  EXPECT_EQ(Records(), 7 * 60);
}

TEST_F(Serve, AnswersConcurrentClientsTheSameWithinBoundedLatency) {
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  // --grace 1h: every 2 s cycle rewrites the whole hour while the clients read it.
  auto serve = Start(port, prometheus_->url(), "--grace 1h");
  ASSERT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << serve->Log();
  const std::vector<std::string> paths = {
      "/api/v1/report?by=team,workload",
      "/api/v1/report?by=namespace&window=2026-10-01T00:00:00Z,2026-10-01T00:30:00Z",
      "/allocation?window=2026-10-01T00:00:00Z,2026-10-01T01:00:00Z&aggregate=namespace",
      "/metrics"};
  std::vector<std::string> expected;
  for (const std::string& p : paths) {
    const Response r = Get(base + p);
    ASSERT_EQ(r.status, 200) << p << ": " << r.body;
    expected.push_back(r.body);
  }
  constexpr int kClients = 8;
  constexpr int kRequests = 24;
  std::vector<std::thread> clients;
  std::vector<std::string> failures(kClients);
  std::vector<double> slowest(kClients, 0);
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; i < kRequests; ++i) {
        const size_t which = static_cast<size_t>(c + i) % paths.size();
        const auto start = std::chrono::steady_clock::now();
        const Response r = Get(base + paths[which]);
        slowest[c] = std::max(slowest[c], std::chrono::duration<double>(
                                              std::chrono::steady_clock::now() - start)
                                              .count());
        // /metrics carries the lag, which moves; the reports must not.
        if (r.status != 200 || (paths[which] != "/metrics" && r.body != expected[which])) {
          failures[c] = paths[which] + " -> " + std::to_string(r.status);
          return;
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  // A bound, not a benchmark (docs/perf.md has the latencies): every answer within 5 s while
  // 8 clients and the writer share the ledger.
  EXPECT_LT(*std::max_element(slowest.begin(), slowest.end()), 5.0);
  EXPECT_EQ(Records(), 7 * 60);
}

TEST_F(Serve, RemoteWritesItsCostSeriesIntoPrometheus) {
  // The same Prometheus is the source and, through its remote-write receiver, the sink.
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  auto serve = Start(port, prometheus_->url(),
                     "--remote-write " + prometheus_->url() +
                         "/api/v1/write --remote-write-header X-Scope-OrgID=team-a");
  ASSERT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << serve->Log();
  const std::string query = prometheus_->url() +
                            "/api/v1/query?query=sum(gpucost_allocated_usd_total)";
  double stored = -1;
  for (int i = 0; i < 300 && std::abs(stored - 12) > 1e-6; ++i) {
    const Response r = Get(query);
    ASSERT_EQ(r.status, 200) << r.body;
    const json result = json::parse(r.body)["data"]["result"];
    if (!result.empty()) stored = std::stod(result[0]["value"][1].get<std::string>());
    if (std::abs(stored - 12) > 1e-6) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NEAR(stored, 12, 1e-6) << serve->Log();
  // Labels arrive as /metrics shows them.
  const Response teams = Get(prometheus_->url() +
                             "/api/v1/label/team/values?match[]=gpucost_allocated_usd_total");
  EXPECT_NE(teams.body.find("\"bu-a\""), std::string::npos) << teams.body;
  // /metrics shows the writer's counters as of the cycle before.
  const std::string sent = "gpucost_remote_write_samples_total{result=\"sent\"}";
  std::string metrics = Get(base + "/metrics").body;
  for (int i = 0; i < 100 && ValueOf(metrics, sent) <= 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    metrics = Get(base + "/metrics").body;
  }
  EXPECT_GT(ValueOf(metrics, sent), 0) << metrics;
  EXPECT_EQ(ValueOf(metrics, "gpucost_remote_write_samples_total{result=\"rejected\"}"), 0);
  EXPECT_EQ(serve->Terminate(), 0) << serve->Log();
}

TEST_F(Serve, RefusesRemoteWriteFlagsWithoutAnEndpoint) {
  const RunResult r = RunShell(kBinary + " serve --ledger " + ledger_ +
                               " --prometheus http://x --remote-write-header X-Scope-OrgID=a "
                               "--check-config 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--remote-write-* flags need --remote-write URL"), std::string::npos)
      << r.output;
  const RunResult h = RunShell(kBinary + " serve --ledger " + ledger_ +
                               " --prometheus http://x --remote-write http://y/api/v1/write "
                               "--remote-write-header NoEquals --check-config 2>&1");
  EXPECT_EQ(h.exit_code, 2);
  EXPECT_NE(h.output.find("\"NoEquals\": NAME=VALUE"), std::string::npos) << h.output;
}

TEST(ServeScrape, ScrapesExportersItselfAndIsolatesAMalformedTarget) {
  // The simulator serves live kube-state-metrics and dcgm-exporter scrapes; a second "exporter"
  // (python's http.server over a folder) serves a broken exposition.
  TempDir dir;
  const int sim_port = FreePort();
  ChildProcess simulator({kBinary, "simulate", "--nodes", "2", "--serve",
                    "127.0.0.1:" + std::to_string(sim_port)},
                   (dir.path() / "sim.log").string());
  dir.Write("bad/metrics", "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 5\n");
  const int bad_port = FreePort();
  ChildProcess bad({"/usr/bin/python3", "-m", "http.server", "--bind", "127.0.0.1",
                    "--directory", (dir.path() / "bad").string(), std::to_string(bad_port)},
                   (dir.path() / "bad.log").string());
  const std::string sim = "http://127.0.0.1:" + std::to_string(sim_port);
  const std::string broken = "http://127.0.0.1:" + std::to_string(bad_port) + "/metrics";
  ASSERT_TRUE(WaitFor(sim + "/metrics", 200, std::chrono::seconds(30))) << simulator.Log();
  ASSERT_TRUE(WaitFor(broken, 200, std::chrono::seconds(30))) << bad.Log();

  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  const std::string ledger = (dir.path() / "costs.db").string();
  ChildProcess serve({kBinary, "serve", "--ledger", ledger, "--price-per-gpu-hour", "12",
                      "--scrape", "kube-state-metrics=" + sim + "/metrics/kube-state-metrics",
                      "--scrape", "dcgm-exporter=" + sim + "/metrics/dcgm-exporter",
                      "--scrape", "broken=" + broken, "--scrape-interval", "1s",
                      "--interval", "2s", "--step", "2s", "--lag", "1s", "--grace", "4s",
                      "--listen", "127.0.0.1:" + std::to_string(port)},
                     (dir.path() / "serve.log").string());
  // Costs appear from the two good targets.
  std::string metrics;
  for (int i = 0; i < 600; ++i) {
    metrics = Get(base + "/metrics").body;
    if (SumOf(metrics, "gpucost_allocated_usd_total") > 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_GT(SumOf(metrics, "gpucost_allocated_usd_total"), 0) << serve.Log();
  EXPECT_EQ(ValueOf(metrics, "gpucost_scrape_up", "job=\"dcgm-exporter\""), 1) << metrics;
  EXPECT_EQ(ValueOf(metrics, "gpucost_scrape_up", "job=\"kube-state-metrics\""), 1);
  EXPECT_GT(ValueOf(metrics, "gpucost_scrape_samples", "job=\"dcgm-exporter\""), 0);
  // The broken target is rejected whole and alone, by name and line.
  EXPECT_EQ(ValueOf(metrics, "gpucost_scrape_up", "job=\"broken\""), 0);
  EXPECT_GE(ValueOf(metrics, "gpucost_scrape_errors_total", "target=\"" + broken + "\""), 1);
  EXPECT_NE(serve.Log().find(broken + ":2:"), std::string::npos) << serve.Log();
  // Logged once when it started failing, not once a scrape.
  for (int i = 0;
       i < 600 && ValueOf(metrics, "gpucost_scrape_errors_total", "target=\"" + broken + "\"") < 3;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    metrics = Get(base + "/metrics").body;
  }
  EXPECT_GE(ValueOf(metrics, "gpucost_scrape_errors_total", "target=\"" + broken + "\""), 3);
  const std::string log = serve.Log();
  size_t logged = 0;
  for (size_t at = log.find("malformed exposition rejected"); at != std::string::npos;
       at = log.find("malformed exposition rejected", at + 1)) {
    ++logged;
  }
  EXPECT_EQ(logged, 1u) << log;
  EXPECT_EQ(ValueOf(metrics, "gpucost_scrape_errors_total", "target=\"source\""), 0);
  // The spool's size, files and disk, and that it stored every good scrape.
  EXPECT_GT(serve_test::ValueOf(metrics, "gpucost_scrape_spool_bytes"), 0) << metrics;
  EXPECT_GE(serve_test::ValueOf(metrics, "gpucost_scrape_spool_files"), 2);
  EXPECT_EQ(serve_test::ValueOf(metrics, "gpucost_scrape_spool_write_errors_total"), 0);
  EXPECT_EQ(
      serve_test::ValueOf(metrics, "gpucost_scrape_spool_removed_files_total{reason=\"size\"}"), 0);
  EXPECT_GT(serve_test::ValueOf(metrics, "gpucost_disk_free_bytes{path=\"spool\"}"), 0);
  EXPECT_GT(serve_test::ValueOf(metrics, "gpucost_disk_free_bytes{path=\"ledger\"}"), 0);
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
  // The spool holds zstd files per minute and good target only.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(ledger + ".scrape")) {
    ++files;
    EXPECT_EQ(e.path().filename().string().find("broken"), std::string::npos);
    EXPECT_TRUE(e.path().filename().string().ends_with(".prom.zst")) << e.path();
  }
  EXPECT_GE(files, 2);
}

}  // namespace
}  // namespace gpucost
