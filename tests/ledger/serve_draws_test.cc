// `gpucost serve` attributing a churning simulated cluster from a real Prometheus in one-hour
// pieces, and `gpucost ledger write` in one-hour segments or in consecutive writes, keep in the
// ledger what one
// attribution of the whole time gives: pods whose requests drew units from a node's pool keep
// them from one piece to the next (without the draws carried, the pods running across the pieces'
// boundaries land on other GPUs and take their activity).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "ledger/serve_test_util.h"

namespace gpucost {
namespace {

using nlohmann::json;
using serve_test::WaitFor;
using testing_util::ChildProcess;
using testing_util::FreePort;
using testing_util::PrometheusProcess;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

constexpr int64_t kStart = 1790812800;  // 2026-10-01T00:00:00Z
constexpr int64_t kEnd = kStart + 6 * 3600;

json ReportJson(const std::string& flags) {
  const RunResult r = RunShell(kBinary + " report " + flags +
                               " --window 2026-10-01T00:00:00Z,2026-10-01T06:00:00Z"
                               " --by namespace,pod,container --accumulate --format json"
                               " 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << flags << "\n" << r.output;
  return r.exit_code == 0 ? json::parse(r.output) : json::object();
}

class LedgerInPieces : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists("/usr/bin/prometheus")) {
      if (std::getenv("CI") != nullptr) FAIL() << "prometheus is not installed";
      GTEST_SKIP() << "prometheus is not installed (scripts/install-deps.sh)";
    }
    const std::string om = (dir_.path() / "sim.om").string();
    ledger_ = (dir_.path() / "costs.db").string();
    ASSERT_EQ(
        RunShell(kBinary + " simulate --nodes 6 --seed 3 --duration 6h --out " + om).exit_code, 0);
    const RunResult imported = RunShell("/usr/bin/promtool tsdb create-blocks-from openmetrics " +
                                        om + " " + (dir_.path() / "tsdb").string() + " 2>&1");
    ASSERT_EQ(imported.exit_code, 0) << imported.output;
    prometheus_ = std::make_unique<PrometheusProcess>(dir_.path(), dir_.path() / "tsdb");
    ASSERT_TRUE(prometheus_->WaitReady(std::chrono::seconds(60))) << prometheus_->Log();
  }

  // `gpucost serve` into the ledger, closing steps up to `through` (a lag from now back to it), in
  // pieces of an hour.
  std::unique_ptr<ChildProcess> Serve(int port, int64_t through) {
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{kBinary, "serve", "--ledger", ledger_, "--price-per-gpu-hour",
                                 "2.5", "--from", "2026-10-01T00:00:00Z", "--interval", "1s",
                                 "--max-chunk", "1h", "--lag", std::to_string(now - through) + "s",
                                 "--listen", "127.0.0.1:" + std::to_string(port), "--prometheus",
                                 prometheus_->url()},
        (dir_.path() / "serve.log").string());
  }
  static std::string Base(int port) { return "http://127.0.0.1:" + std::to_string(port); }

  // The ledger's report equals the report of the whole window read at once.
  void ExpectLedgerHoldsTheWholeWindowsReport() {
    const json from_ledger = ReportJson("--ledger " + ledger_);
    const json at_once =
        ReportJson("--prometheus " + prometheus_->url() + " --segment 0 --price-per-gpu-hour 2.5");
    ASSERT_GT(at_once["rows"].size(), 20u);
    ASSERT_EQ(from_ledger["rows"].size(), at_once["rows"].size());
    std::map<std::string, json> want;
    auto key = [](const json& r) {
      return r["namespace"].get<std::string>() + "/" + r["pod"].get<std::string>() + "/" +
             r["container"].get<std::string>();
    };
    for (const json& r : at_once["rows"]) want[key(r)] = r;
    int differ = 0;
    for (const json& r : from_ledger["rows"]) {
      ASSERT_TRUE(want.contains(key(r))) << key(r);
      const json& w = want[key(r)];
      for (const char* field : {"gpu_hours", "allocated_usd", "effective_usd", "idle_usd"}) {
        if (!w[field].is_number()) {
          EXPECT_EQ(r[field], w[field]) << key(r) << " " << field;
          continue;
        }
        const double x = r[field].get<double>(), y = w[field].get<double>();
        if (std::fabs(x - y) > 1e-9 * std::max(1.0, std::fabs(y)) && ++differ <= 5) {
          ADD_FAILURE() << key(r) << " " << field << ": ledger " << x << ", at once " << y;
        }
      }
    }
    EXPECT_EQ(differ, 0);
    EXPECT_NEAR(from_ledger["totals"]["cost_usd"].get<double>(),
                at_once["totals"]["cost_usd"].get<double>(), 1e-6);
  }

  TempDir dir_;
  std::string ledger_;
  std::unique_ptr<PrometheusProcess> prometheus_;
};

TEST_F(LedgerInPieces, ServeKeepsWhatOneAttributionOfTheWholeTimeGives) {
  const int port = FreePort();
  auto serve = Serve(port, kEnd);
  ASSERT_TRUE(WaitFor(Base(port) + "/readyz", 200, std::chrono::seconds(120))) << serve->Log();
  EXPECT_EQ(serve->Terminate(), 0) << serve->Log();
  ExpectLedgerHoldsTheWholeWindowsReport();
}

// Killed at 03:10 and started again, serve goes on with the draws of the pods running then, kept
// in the ledger: without them those pods draw anew from 03:10 - grace on (two pods sharing a
// time-sliced GPU can swap replicas, and with them their activity, to the end of the data).
TEST_F(LedgerInPieces, ServeKilledAndRestartedKeepsThePodsDraws) {
  const int port = FreePort();
  {
    auto serve = Serve(port, kStart + 3 * 3600 + 600);
    ASSERT_TRUE(WaitFor(Base(port) + "/readyz", 200, std::chrono::seconds(120))) << serve->Log();
    ASSERT_TRUE(serve->Kill());
  }
  auto again = Serve(port, kEnd);
  ASSERT_TRUE(WaitFor(Base(port) + "/readyz", 200, std::chrono::seconds(120))) << again->Log();
  EXPECT_EQ(again->Terminate(), 0) << again->Log();
  ExpectLedgerHoldsTheWholeWindowsReport();
}

// A serve stopped at 03:10, the ledger written on to 04:30 by `ledger write`, and serve started
// again: it resumes at 04:30 with the units its pods held in the ledger's step before, not the
// draws it kept at 03:10.
TEST_F(LedgerInPieces, ServeAfterALedgerWriteTakesTheDrawsOfTheLedgersLastStep) {
  const int port = FreePort();
  {
    auto serve = Serve(port, kStart + 3 * 3600 + 600);
    ASSERT_TRUE(WaitFor(Base(port) + "/readyz", 200, std::chrono::seconds(120))) << serve->Log();
    EXPECT_EQ(serve->Terminate(), 0) << serve->Log();
  }
  const RunResult info = RunShell(kBinary + " ledger info --format json " + ledger_);
  ASSERT_EQ(info.exit_code, 0) << info.output;
  const std::string end = json::parse(info.output)["span"]["end"].get<std::string>();
  const RunResult wrote = RunShell(
      kBinary + " ledger write " + ledger_ + " --prometheus " + prometheus_->url() + " --window " +
      end + ",2026-10-01T04:30:00Z --segment 0 --price-per-gpu-hour 2.5 2>&1");
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  EXPECT_EQ(wrote.output.find("GPU units"), std::string::npos) << wrote.output;
  auto again = Serve(port, kEnd);
  ASSERT_TRUE(WaitFor(Base(port) + "/readyz", 200, std::chrono::seconds(120))) << again->Log();
  EXPECT_EQ(again->Terminate(), 0) << again->Log();
  ExpectLedgerHoldsTheWholeWindowsReport();
}

TEST_F(LedgerInPieces, LedgerWriteInSegmentsWritesWhatOneAttributionGives) {
  const RunResult written = RunShell(
      kBinary + " ledger write " + ledger_ + " --prometheus " + prometheus_->url() +
      " --window 2026-10-01T00:00:00Z,2026-10-01T06:00:00Z --segment 1h --segment-samples 0"
      " --price-per-gpu-hour 2.5 2>&1");
  ASSERT_EQ(written.exit_code, 0) << written.output;
  EXPECT_NE(written.output.find("to 2026-10-01T06:00:00Z, 60 s steps"), std::string::npos)
      << written.output;
  ExpectLedgerHoldsTheWholeWindowsReport();
}

// Windows written one after another, by separate `ledger write`s (a daily job), whole or in
// segments, carry the draws through the ledger as serve's cycles do; written again one by one,
// each takes the units its pods held in the step before it from the ledger.
TEST_F(LedgerInPieces, ConsecutiveLedgerWritesWriteWhatOneAttributionGives) {
  const auto write = [&](const std::string& window, const std::string& segment) {
    const RunResult r = RunShell(kBinary + " ledger write " + ledger_ + " --prometheus " +
                                 prometheus_->url() + " --window " + window + " --segment " +
                                 segment + " --segment-samples 0 --price-per-gpu-hour 2.5 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    // The same data written again changes no money (a late-data rerun of the same window).
    EXPECT_EQ(r.output.find("this write changed"), std::string::npos) << window << "\n" << r.output;
  };
  write("2026-10-01T00:00:00Z,2026-10-01T02:00:00Z", "0");
  write("2026-10-01T02:00:00Z,2026-10-01T03:17:00Z", "0");
  write("2026-10-01T03:17:00Z,2026-10-01T06:00:00Z", "1h");
  {
    SCOPED_TRACE("written in order");
    ExpectLedgerHoldsTheWholeWindowsReport();
  }
  write("2026-10-01T03:17:00Z,2026-10-01T06:00:00Z", "0");
  write("2026-10-01T02:00:00Z,2026-10-01T03:17:00Z", "1h");
  write("2026-10-01T00:00:00Z,2026-10-01T02:00:00Z", "0");
  write("2026-10-01T01:00:00Z,2026-10-01T04:30:00Z", "0");
  SCOPED_TRACE("written again, in another order");
  ExpectLedgerHoldsTheWholeWindowsReport();
}

// Windows written out of time order: the later one was attributed before the earlier existed, so
// pods running across their edge were drawn anew there. The write that shows it says which pods,
// and writing the later window again gives what one attribution gives.
TEST_F(LedgerInPieces, AWriteBeforeItsEarlierWindowSaysWhichPodsMoved) {
  const auto write = [&](const std::string& window) {
    const RunResult r =
        RunShell(kBinary + " ledger write " + ledger_ + " --prometheus " + prometheus_->url() +
                 " --window " + window + " --segment 0 --price-per-gpu-hour 2.5 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  };
  EXPECT_EQ(write("2026-10-01T02:00:00Z,2026-10-01T06:00:00Z").find("GPU units"),
            std::string::npos);
  const std::string earlier = write("2026-10-01T00:00:00Z,2026-10-01T02:00:00Z");
  EXPECT_NE(earlier.find("hold other GPU units after 2026-10-01T02:00:00Z than before it ("),
            std::string::npos)
      << earlier;
  const std::string again = write("2026-10-01T02:00:00Z,2026-10-01T06:00:00Z");
  EXPECT_EQ(again.find("GPU units"), std::string::npos) << again;
  EXPECT_NE(again.find("this write changed"), std::string::npos) << again;  // effective moved
  ExpectLedgerHoldsTheWholeWindowsReport();
}

}  // namespace
}  // namespace gpucost
