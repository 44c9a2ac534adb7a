// serve's read APIs answer what the commands answer for the same ledger and window: the report's
// time series in step= buckets (read from the daily and hourly roll-ups, where each lies inside a
// bucket) equals the one read from every record and `gpucost report --ledger --every`'s, to
// 1e-9; /api/v1/recommendations equals `gpucost recommend --ledger --format json`.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "ledger/serve_test_util.h"

namespace gpucost {
namespace {

using serve_test::Get;
using serve_test::Response;
using serve_test::WaitFor;
using testing_util::ChildProcess;
using testing_util::FreePort;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

constexpr const char* kApiWindow = "2026-10-01T00:00:00Z,2026-10-03T02:00:00Z";

// Three simulated nodes over 50 hours (two whole days: the ledger rolls them up) in a SQLite
// ledger at 5-minute steps, served read-only.
class ServeApiAnswers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    ledger_ = (dir_->path() / "costs.db").string();
    const std::string om = (dir_->path() / "sim.om.gz").string();
    const RunResult sim = RunShell(kBinary + " simulate --nodes 3 --seed 5 --duration 50h " +
                                   "--scrape-interval 5m --out " + om + " 2>&1");
    ASSERT_EQ(sim.exit_code, 0) << sim.output;
    const RunResult wrote = RunShell(kBinary + " ledger write " + ledger_ + " --input " + om +
                                     " --step 5m --price-per-gpu-hour 2.5 --max-warnings 0 2>&1");
    ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
    const int port = FreePort();
    serve_ = new ChildProcess(
        {kBinary, "serve", "--ledger", ledger_, "--read-only", "--price-per-gpu-hour", "2.5",
         "--listen", "127.0.0.1:" + std::to_string(port)},
        (dir_->path() / "serve.log").string());
    base_ = "http://127.0.0.1:" + std::to_string(port);
    ASSERT_TRUE(WaitFor(base_ + "/readyz", 200, std::chrono::seconds(60))) << serve_->Log();
  }
  static void TearDownTestSuite() {
    delete serve_;
    serve_ = nullptr;
    delete dir_;
    dir_ = nullptr;
  }

  static nlohmann::json Api(const std::string& path) {
    const Response r = Get(base_ + path);
    EXPECT_EQ(r.status, 200) << path << ": " << r.body;
    return nlohmann::json::parse(r.body, nullptr, false);
  }

  static TempDir* dir_;
  static std::string ledger_;
  static ChildProcess* serve_;
  static std::string base_;
};
TempDir* ServeApiAnswers::dir_ = nullptr;
std::string ServeApiAnswers::ledger_;
ChildProcess* ServeApiAnswers::serve_ = nullptr;
std::string ServeApiAnswers::base_;

// Two reports' rows by bucket and team (an order among rows of one bucket is not part of the
// contract): the same keys, each money and hours field to 1e-9.
void ExpectSameRows(const nlohmann::json& a, const nlohmann::json& b, const std::string& what) {
  ASSERT_TRUE(a.contains("rows") && b.contains("rows")) << what;
  ASSERT_EQ(a["rows"].size(), b["rows"].size()) << what;
  ASSERT_GT(a["rows"].size(), 0u) << what;
  std::map<std::string, const nlohmann::json*> theirs;
  for (const nlohmann::json& y : b["rows"]) {
    theirs[y["start"].get<std::string>() + " " + y["team"].dump()] = &y;
  }
  for (const nlohmann::json& x : a["rows"]) {
    const std::string key = x["start"].get<std::string>() + " " + x["team"].dump();
    const auto it = theirs.find(key);
    ASSERT_NE(it, theirs.end()) << what << ": " << key;
    const nlohmann::json& y = *it->second;
    EXPECT_EQ(x["end"], y["end"]) << what << " " << key;
    for (const char* k : {"gpu_hours", "allocated_usd", "effective_usd", "waste_usd", "idle_usd",
                          "unmeasured_gpu_hours"}) {
      if (x[k].is_null() || y[k].is_null()) {
        EXPECT_EQ(x[k].is_null(), y[k].is_null()) << what << " " << key << " " << k;
        continue;
      }
      const double p = x[k].get<double>();
      const double q = y[k].get<double>();
      EXPECT_NEAR(p, q, 1e-9 * std::max(1.0, std::fabs(q))) << what << " " << key << " " << k;
    }
  }
}

TEST_F(ServeApiAnswers, SeriesInBucketsFromRollUpsAreTheRecordsAndTheCommandsSeries) {
  for (const char* step : {"1d", "6h", "1h"}) {
    const std::string query = std::string("/api/v1/report?by=team&accumulate=false&step=") + step +
                              "&window=" + kApiWindow;
    const nlohmann::json rolled = Api(query);
    const nlohmann::json records = Api(query + "&rollups=false");
    ExpectSameRows(rolled, records, std::string("roll-ups vs records, step ") + step);
    const RunResult cli =
        RunShell(kBinary + " report --ledger " + ledger_ + " --window " + kApiWindow +
                 " --by team --every " + step + " --format json 2>/dev/null");
    ASSERT_EQ(cli.exit_code, 0) << cli.output;
    ExpectSameRows(rolled, nlohmann::json::parse(cli.output), std::string("API vs CLI, ") + step);
  }
  // Daily buckets: one row per team and day, the third day partial.
  const nlohmann::json daily =
      Api(std::string("/api/v1/report?by=team&accumulate=false&step=1d&window=") + kApiWindow);
  EXPECT_EQ(daily["rows"].back()["end"], "2026-10-03T02:00:00Z") << daily.dump().substr(0, 400);
}

TEST_F(ServeApiAnswers, RecommendationsAreTheCommands) {
  const nlohmann::json api = Api(std::string("/api/v1/recommendations?window=") + kApiWindow);
  const RunResult cli =
      RunShell(kBinary + " recommend --ledger " + ledger_ + " --window " + kApiWindow +
               " --price-per-gpu-hour 2.5 --format json 2>/dev/null");
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  const nlohmann::json want = nlohmann::json::parse(cli.output);
  ASSERT_TRUE(api.contains("recommendations")) << api.dump();
  EXPECT_GT(api["recommendations"].size(), 0u) << api.dump().substr(0, 400);
  EXPECT_EQ(api["workloads"], want["workloads"]);
  EXPECT_NEAR(api["monthly_savings_usd"].get<double>(), want["monthly_savings_usd"].get<double>(),
              1e-9 * std::max(1.0, want["monthly_savings_usd"].get<double>()));
  ASSERT_EQ(api["recommendations"].size(), want["recommendations"].size());
  for (size_t i = 0; i < want["recommendations"].size(); ++i) {
    const nlohmann::json& a = api["recommendations"][i];
    const nlohmann::json& b = want["recommendations"][i];
    EXPECT_EQ(a["kind"], b["kind"]) << i;
    EXPECT_EQ(a["workload"], b["workload"]) << i;
    EXPECT_EQ(a["action"], b["action"]) << i;
    EXPECT_EQ(a["monthly_savings_usd"].is_null(), b["monthly_savings_usd"].is_null()) << i;
  }
  // team= keeps one team's.
  const std::string team = want["recommendations"][0]["team"].get<std::string>();
  const nlohmann::json one =
      Api(std::string("/api/v1/recommendations?window=") + kApiWindow + "&team=" + team);
  for (const nlohmann::json& r : one["recommendations"]) EXPECT_EQ(r["team"], team);
  // A bad window is a 400 with a JSON error, not a crash.
  EXPECT_EQ(Get(base_ + "/api/v1/recommendations?window=nope").status, 400);
}

// A ledger filled by `ledger write` has no serve writing it: a read-only serve exports its
// counters (what a writing serve would), and they add up to the report of the whole ledger.
TEST_F(ServeApiAnswers, ReadOnlyExportsTheCountersOfALedgerNoServeWrites) {
  EXPECT_EQ(Get(base_ + "/readyz").body, "ready (read-only)\n");
  std::istringstream metrics(Get(base_ + "/metrics").body);
  double usd = 0;
  int series = 0;
  for (std::string line; std::getline(metrics, line);) {
    if (line.starts_with("gpucost_allocated_usd_total{") ||
        line.starts_with("gpucost_idle_usd_total{")) {
      usd += std::stod(line.substr(line.rfind(' ') + 1));
      ++series;
    }
  }
  EXPECT_GT(series, 3);
  const RunResult cli =
      RunShell(kBinary + " report --ledger " + ledger_ + " --format json 2>/dev/null");
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  const double cost = nlohmann::json::parse(cli.output)["totals"]["cost_usd"].get<double>();
  ASSERT_GT(cost, 0);
  EXPECT_NEAR(usd, cost, 1e-9 * cost);
}

}  // namespace
}  // namespace gpucost
