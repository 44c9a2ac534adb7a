// Several `gpucost serve` processes sharing one ledger, on SQLite and PostgreSQL (docs/serve.md,
// "Many clusters"): one serve per cluster, started late, SIGKILLed and restarted, keeps every step
// of both clusters, each back-filling its own history; two serves of the same cluster take turns
// through the writer lease, the standby taking over when the writer dies, with no step counted
// twice and no counter going down. Afterwards the ledger equals the one-shot reports of the
// clusters' data, and the fleet's total their sum, to 1e-9.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "ledger/ledger_test_util.h"
#include "ledger/serve_test_util.h"

namespace gpucost::ledger {
namespace {

using testing_util::ChildProcess;
using testing_util::FreePort;
using testing_util::RunResult;
using testing_util::RunShell;

constexpr int64_t kFleetStart = 1790812800;  // 2026-10-01T00:00:00Z
constexpr int64_t kFleetEnd = kFleetStart + 3 * 3600;
constexpr const char* kFleetWindow = " --window 2026-10-01T00:00:00Z,2026-10-01T03:00:00Z";

// A report's rows by their dimension values, each field summed over the rows of one key (so that
// the idle rows of two one-shot reports add up as one ledger's do); null stays null.
using Sums = std::map<std::string, std::map<std::string, double>>;
constexpr const char* kFields[] = {"gpu_hours", "allocated_usd", "effective_usd", "idle_usd"};

void AddRows(const std::string& flags, Sums& into, double& total) {
  const RunResult r = RunShell(kBinary + " report " + flags + kFleetWindow +
                               " --by cluster,namespace,pod,container --accumulate"
                               " --price-per-gpu-hour 2.5 --format json 2>&1");
  ASSERT_EQ(r.exit_code, 0) << flags << "\n" << r.output;
  const nlohmann::json report = nlohmann::json::parse(r.output);
  const nlohmann::json& rows = report["rows"];
  for (const nlohmann::json& row : rows) {
    std::string key;
    for (const char* dim : {"cluster", "namespace", "pod", "container"}) {
      key += row[dim].get<std::string>() + "/";
    }
    std::map<std::string, double>& sums = into[key];
    for (const char* field : kFields) {
      const double v = row[field].is_number() ? row[field].get<double>() : NAN;
      sums[field] = sums.contains(field) ? sums[field] + v : v;
    }
  }
  total += report["totals"]["cost_usd"].get<double>();
}

class ServeFleet : public LedgerBackendTest {
 protected:
  void SetUp() override {
    LedgerBackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ledger_ = NewTarget("fleet");
    for (const auto& [cluster, seed] : {std::pair<const char*, int>{"east", 3}, {"west", 4}}) {
      const std::string om = (dir_.path() / (std::string(cluster) + ".om")).string();
      const RunResult sim =
          RunShell(kBinary + " simulate --nodes 3 --duration 3h --seed " + std::to_string(seed) +
                   " --cluster " + cluster + " --out " + om + " 2>&1");
      ASSERT_EQ(sim.exit_code, 0) << sim.output;
      inputs_[cluster] = om;
    }
  }

  // `gpucost serve` of one cluster's data into the shared ledger, closing steps up to `through`.
  std::unique_ptr<ChildProcess> Serve(const std::string& cluster, int port, int64_t through,
                                      const std::string& log) {
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{kBinary,
                                 "serve",
                                 "--ledger",
                                 ledger_,
                                 "--input",
                                 inputs_.at(cluster),
                                 "--price-per-gpu-hour",
                                 "2.5",
                                 "--from",
                                 "2026-10-01T00:00:00Z",
                                 "--interval",
                                 "1s",
                                 "--writer-lease",
                                 "3s",
                                 "--max-chunk",
                                 "1h",
                                 "--lag",
                                 std::to_string(now - through) + "s",
                                 "--listen",
                                 "127.0.0.1:" + std::to_string(port)},
        (dir_.path() / log).string());
  }
  static std::string Url(int port, const char* path) {
    return "http://127.0.0.1:" + std::to_string(port) + path;
  }
  // Until /readyz says the serve writes and caught up (a standby answers "ready (standby)");
  // false at once if it exited.
  static bool WaitWriting(ChildProcess& serve, int port) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline && !serve.Exited()) {
      if (serve_test::Get(Url(port, "/readyz")).body == "ready\n") return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  // The ledger holds, row by row, what the one-shot reports of `clusters`' data give.
  void ExpectLedgerHolds(const std::vector<std::string>& clusters) {
    Sums want, got;
    double want_total = 0, got_total = 0;
    for (const std::string& c : clusters) AddRows("--input " + inputs_.at(c), want, want_total);
    AddRows("--ledger '" + ledger_ + "'", got, got_total);
    ASSERT_GT(want.size(), 10u);
    EXPECT_EQ(got.size(), want.size());
    int differ = 0;
    for (const auto& [key, fields] : want) {
      ASSERT_TRUE(got.contains(key)) << key;
      for (const auto& [field, w] : fields) {
        const double g = got[key][field];
        const bool same =
            std::isnan(w) ? std::isnan(g) : std::fabs(g - w) <= 1e-9 * std::max(1.0, std::fabs(w));
        if (!same && ++differ <= 5)
          ADD_FAILURE() << key << " " << field << ": " << g << " vs " << w;
      }
    }
    EXPECT_EQ(differ, 0);
    EXPECT_NEAR(got_total, want_total, 1e-9 * want_total);
    EXPECT_GT(want_total, 0);
  }

  std::string ledger_;
  std::map<std::string, std::string> inputs_;
};
INSTANTIATE_TEST_SUITE_P(Backends, ServeFleet,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

// East's serve and west's at once; west is killed at 01:10 and started again after east caught
// up: it back-fills its own gap (a resume point per cluster), and east's steps stay.
TEST_P(ServeFleet, OneServePerClusterKeepsEveryStepOfBoth) {
  const int east_port = FreePort();
  int west_port = FreePort();
  while (west_port == east_port) west_port = FreePort();
  auto east = Serve("east", east_port, kFleetEnd, "east.log");
  {
    auto west = Serve("west", west_port, kFleetStart + 70 * 60, "west-1.log");
    ASSERT_TRUE(WaitWriting(*west, west_port)) << west->Log();
    ASSERT_TRUE(west->Kill());
  }
  ASSERT_TRUE(WaitWriting(*east, east_port)) << east->Log();
  // West's metrics are its own only: no east series.
  auto west = Serve("west", west_port, kFleetEnd, "west-2.log");
  ASSERT_TRUE(WaitWriting(*west, west_port)) << west->Log();
  const std::string metrics = serve_test::Get(Url(west_port, "/metrics")).body;
  EXPECT_NE(metrics.find("gpucost_allocated_usd_total{cluster=\"west\""), std::string::npos);
  EXPECT_EQ(metrics.find("cluster=\"east\""), std::string::npos);
  EXPECT_NE(metrics.find("gpucost_ledger_writer{cluster=\"west\""), std::string::npos);
  // The API answers for the fleet, or for the clusters asked for.
  const auto clusters_of = [&](const std::string& query) {
    const serve_test::Response r =
        serve_test::Get(Url(east_port,
                            "/api/v1/report?by=cluster,namespace&window=2026-10-01T00:00:00Z,"
                            "2026-10-01T03:00:00Z") +
                        query);
    EXPECT_EQ(r.status, 200) << r.body;
    std::set<std::string> out;
    if (r.status != 200) return out;
    const nlohmann::json report = nlohmann::json::parse(r.body);
    for (const nlohmann::json& row : report["rows"]) {
      if (row["cluster"] != "__idle__") out.insert(row["cluster"].get<std::string>());
    }
    return out;
  };
  EXPECT_EQ(clusters_of(""), (std::set<std::string>{"east", "west"}));
  EXPECT_EQ(clusters_of("&cluster=west"), (std::set<std::string>{"west"}));
  EXPECT_EQ(west->Terminate(), 0) << west->Log();
  EXPECT_EQ(east->Terminate(), 0) << east->Log();
  ExpectLedgerHolds({"east", "west"});
  // Every one of the 180 steps holds both clusters (their rows, idle ones included, carry it).
  const RunResult steps = RunShell(kBinary + " report --ledger '" + ledger_ + "'" + kFleetWindow +
                                   " --by cluster --every 1m --format json 2>&1");
  ASSERT_EQ(steps.exit_code, 0) << steps.output;
  std::map<std::string, std::set<std::string>> starts;
  const nlohmann::json per_step = nlohmann::json::parse(steps.output);
  for (const nlohmann::json& row : per_step["rows"]) {
    starts[row["cluster"].get<std::string>()].insert(row["start"].get<std::string>());
  }
  EXPECT_EQ(starts["east"].size(), 180u);
  EXPECT_EQ(starts["west"].size(), 180u);
}

// Two serves of east: one writes, the other stands by; the writer is SIGKILLed and the standby
// takes over once the lease runs out, going on from where the writer stopped.
TEST_P(ServeFleet, TwoServesOfOneClusterTakeTurnsThroughTheLease) {
  const int a_port = FreePort();
  int b_port = FreePort();
  while (b_port == a_port) b_port = FreePort();
  auto a = Serve("east", a_port, kFleetStart + 90 * 60, "a.log");
  ASSERT_TRUE(WaitWriting(*a, a_port)) << a->Log();
  auto b = Serve("east", b_port, kFleetEnd, "b.log");
  ASSERT_TRUE(serve_test::WaitFor(Url(b_port, "/readyz"), 200, std::chrono::seconds(60)))
      << b->Log();
  const std::string standby = serve_test::Get(Url(b_port, "/metrics")).body;
  EXPECT_NE(standby.find("gpucost_ledger_writer{cluster=\"east\""), std::string::npos) << standby;
  EXPECT_NE(standby.find("} 0\n", standby.find("gpucost_ledger_writer{")), std::string::npos)
      << standby;
  EXPECT_EQ(serve_test::Get(Url(b_port, "/readyz")).body, "ready (standby)\n");
  // The counters B exports while A writes and after B takes over never go down.
  double last = serve_test::SumOf(standby, "gpucost_allocated_usd_total");
  EXPECT_GT(last, 0);
  ASSERT_TRUE(a->Kill());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  bool took_over = false;
  while (!took_over && std::chrono::steady_clock::now() < deadline) {
    const double now = serve_test::SumOf(serve_test::Get(Url(b_port, "/metrics")).body,
                                         "gpucost_allocated_usd_total");
    EXPECT_GE(now, last - 1e-9);
    last = std::max(last, now);
    took_over = serve_test::Get(Url(b_port, "/readyz")).body == "ready\n";
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(took_over) << b->Log();
  EXPECT_NE(b->Log().find("took over writing east"), std::string::npos) << b->Log();
  EXPECT_EQ(b->Terminate(), 0) << b->Log();
  ExpectLedgerHolds({"east"});
}

}  // namespace
}  // namespace gpucost::ledger
