// One money, as a property. Seeded random simulated clusters (whole GPUs, MIG, time-slicing, MPS
// and HAMi; scrapes every 15 s to 10 min), each with a random window that starts and ends off the
// step and may reach before or after the data, and a random segment size. For each cluster:
//   - `report --input`, `report --prometheus` (a real Prometheus holding every cluster, read in
//     segments), `ledger write` + `report --ledger`, `chargeback` and `whatif`'s "before" give
//     each team the same money to 1e-9, and the three reports each pod;
//   - `gpucost serve`, killed with SIGKILL at random moments and started again until it catches
//     up, leaves in its ledger what one report of the same time gives, per team and per pod;
//   - the cluster's cost is price x GPUs x the hours of the window the data evidences (the
//     simulator's nodes live from its first scrape to one interval after its last).
// GPUCOST_PROPERTY_CLUSTERS (default 6; 3 under AddressSanitizer, the first 3 of the same seed)
// and GPUCOST_PROPERTY_SEED (default 3) choose how many clusters and which; a failure names the
// cluster's flags and window, to run again by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "ledger/serve_test_util.h"

namespace gpucost {
namespace {

namespace fs = std::filesystem;
using testing_util::RunResult;
using testing_util::RunShell;

constexpr int64_t kDataStart = 1790812800;  // 2026-10-01T00:00:00Z, the simulator's default
constexpr double kFlatPrice = 2.5;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

// One random cluster: the simulator's flags, and the window and segment to read it with.
struct Case {
  std::string name;
  std::string flags;
  int64_t interval_s = 60;
  int64_t data_end = 0;
  int64_t from = 0, to = 0;  // the window, unix seconds
  std::string segment;
  std::string file;
  int64_t gpus = 0;  // physical GPUs, as the simulator counts them

  std::string What() const {
    return "gpucost simulate " + flags + " --window " + std::to_string(from) + "," +
           std::to_string(to) + " --segment " + segment;
  }
  std::string Window() const {
    return " --window " + std::to_string(from) + "," + std::to_string(to);
  }
};

Case RandomCase(int index, std::mt19937_64& rng) {
  auto pick = [&rng](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  const char* sharings[] = {
      "whole:1", "mig:1",         "time-slicing:1",        "mps:1",
      "hami:1",  "whole:1,mig:1", "time-slicing:1,hami:1", "whole:1,mps:1,mig:1"};
  const int64_t intervals[] = {15, 30, 60, 120, 300, 600};
  const std::string sharing = sharings[pick(std::size(sharings))];
  Case c;
  c.name = "c" + std::to_string(index);
  c.interval_s = intervals[pick(std::size(intervals))];
  const int64_t hours = 2 + pick(3);
  c.data_end = kDataStart + hours * 3600;
  const std::string models =
      sharing.find("mig") != std::string::npos ? "a100-80gb:2,h100-80gb:1" : "a100-80gb:1,t4:1";
  c.flags = "--nodes " + std::to_string(2 + pick(2)) + " --gpu-models " + models + " --sharing " +
            sharing + " --scrape-interval " + std::to_string(c.interval_s) + "s --duration " +
            std::to_string(hours) + "h --seed " + std::to_string(rng() % 1000) + " --cluster " +
            c.name;
  // A window off the step, overlapping the data by ten minutes at least, from up to an hour
  // before it to half an hour after it.
  const int64_t span = c.data_end - kDataStart;
  c.from = kDataStart - 3600 + static_cast<int64_t>(rng() % static_cast<uint64_t>(span + 3000));
  const int64_t min_to = std::max(c.from, kDataStart) + 600;
  c.to = min_to + static_cast<int64_t>(rng() % static_cast<uint64_t>(c.data_end + 1800 - min_to));
  const char* segments[] = {"17m", "45m", "1h", "2h", "1d"};
  c.segment = segments[pick(std::size(segments))];
  return c;
}

class OneMoneyProperty : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists("/usr/bin/prometheus") || !fs::exists("/usr/bin/promtool")) return;
    tmp_ = new testing_util::TempDir();
    std::mt19937_64 rng(static_cast<uint64_t>(EnvInt("GPUCOST_PROPERTY_SEED", 3)));
    const int n = EnvInt("GPUCOST_PROPERTY_CLUSTERS", 6);
    const fs::path tsdb = tmp_->path() / "tsdb";
    for (int i = 0; i < n; ++i) {
      Case c = RandomCase(i, rng);
      c.file = (tmp_->path() / (c.name + ".om")).string();
      const RunResult sim =
          RunShell(kBinary + " simulate " + c.flags + " --out " + c.file + " 2>&1");
      ASSERT_EQ(sim.exit_code, 0) << c.What() << "\n" << sim.output;
      const size_t at = sim.output.find("gpus=");
      ASSERT_NE(at, std::string::npos) << sim.output;
      c.gpus = std::stoll(sim.output.substr(at + 5));
      const RunResult imp = RunShell("/usr/bin/promtool tsdb create-blocks-from openmetrics " +
                                     c.file + " " + tsdb.string() + " 2>&1");
      ASSERT_EQ(imp.exit_code, 0) << imp.output;
      cases_->push_back(std::move(c));
    }
    prom_ = new testing_util::PrometheusProcess(tmp_->path(), tsdb);
    ASSERT_TRUE(prom_->WaitReady(std::chrono::seconds(60))) << prom_->Log();
  }
  static void TearDownTestSuite() {
    delete prom_;
    prom_ = nullptr;
    delete tmp_;
    tmp_ = nullptr;
    cases_->clear();
  }
  void SetUp() override {
    if (prom_ == nullptr) {
      if (std::getenv("CI") != nullptr) FAIL() << "prometheus is not installed";
      GTEST_SKIP() << "prometheus and promtool are not installed (scripts/install-deps.sh)";
    }
  }

  static nlohmann::json Json(const std::string& command, const std::string& what) {
    const RunResult r = RunShell(kBinary + " " + command + " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << what << "\n" << command << "\n" << r.output;
    return r.exit_code == 0 ? nlohmann::json::parse(r.output) : nlohmann::json::object();
  }

  // A report's money by `key` (its rows of `cluster` only, idle apart).
  static std::map<std::string, double> Money(const nlohmann::json& report,
                                             const std::string& cluster,
                                             const std::vector<std::string>& key,
                                             const char* field = "allocated_usd") {
    std::map<std::string, double> out;
    for (const nlohmann::json& row : report.value("rows", nlohmann::json::array())) {
      if (row.value("cluster", cluster) != cluster || row.value("idle", false)) continue;
      std::string k;
      for (const std::string& d : key) k += "/" + row[d].get<std::string>();
      out[k] += row[field].is_number() ? row[field].get<double>() : NAN;
    }
    return out;
  }

  static void ExpectSame(const std::map<std::string, double>& got,
                         const std::map<std::string, double>& want, const std::string& what) {
    EXPECT_EQ(got.size(), want.size()) << what;
    int shown = 0;
    for (const auto& [k, w] : want) {
      const auto it = got.find(k);
      if (it == got.end()) {
        if (++shown <= 5) ADD_FAILURE() << what << ": " << k << " missing";
        continue;
      }
      const bool same = std::isnan(w)
                            ? std::isnan(it->second)
                            : std::fabs(it->second - w) <= 1e-9 * std::max(1.0, std::fabs(w));
      if (!same && ++shown <= 5)
        ADD_FAILURE() << what << ": " << k << " " << it->second << " vs " << w;
    }
  }

  // `gpucost serve` from the Prometheus into a ledger of its own, over [from, to) (a lag from
  // now back to `to`), in 20-minute pieces, SIGKILLed after a random moment twice and started
  // again until ready; then its ledger's report of cluster `c` against the store's.
  static void ExpectServeKeepsTheReport(const Case& c, int64_t from, int64_t to,
                                        std::mt19937_64& rng) {
    const std::string ledger = (tmp_->path() / (c.name + "-serve.db")).string();
    const auto start = [&] {
      const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
      const int port = testing_util::FreePort();
      return std::make_pair(
          port,
          std::make_unique<testing_util::ChildProcess>(
              std::vector<std::string>{
                  kBinary, "serve", "--ledger", ledger, "--price-per-gpu-hour",
                  std::to_string(kFlatPrice), "--from", std::to_string(from), "--interval", "1s",
                  "--max-chunk", "20m", "--lag", std::to_string(now - to) + "s", "--listen",
                  "127.0.0.1:" + std::to_string(port), "--prometheus", prom_->url()},
              (tmp_->path() / (c.name + "-serve.log")).string()));
    };
    for (int kill = 0; kill < 2; ++kill) {
      auto [port, serve] = start();
      std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 1200));
      ASSERT_TRUE(serve->Kill()) << serve->Log();
    }
    auto [port, serve] = start();
    ASSERT_TRUE(serve_test::WaitFor("http://127.0.0.1:" + std::to_string(port) + "/readyz", 200,
                                    std::chrono::seconds(120)))
        << serve->Log();
    EXPECT_EQ(serve->Terminate(), 0) << serve->Log();
    const std::string window = " --window " + std::to_string(from) + "," + std::to_string(to);
    const std::string store = " --prometheus " + prom_->url() + window + " --price-per-gpu-hour " +
                              std::to_string(kFlatPrice);
    for (const std::string by : {"cluster,team", "cluster,namespace,pod,container"}) {
      const std::string flags = " --by " + by + " --accumulate --format json";
      std::vector<std::string> key;
      for (const std::string d : {"team", "namespace", "pod", "container"}) {
        if (by.find(d) != std::string::npos) key.push_back(d);
      }
      const std::map<std::string, double> want =
          Money(Json("report" + store + flags, c.What()), c.name, key);
      ASSERT_FALSE(want.empty()) << by;
      ExpectSame(Money(Json("report --ledger " + ledger + window + flags, c.What()), c.name, key),
                 want, "serve's ledger after SIGKILLs, by " + by);
    }
  }

  static testing_util::TempDir* tmp_;
  static testing_util::PrometheusProcess* prom_;
  static std::vector<Case>* cases_;
  static std::mt19937_64 rng_for_kills_;
};

testing_util::TempDir* OneMoneyProperty::tmp_ = nullptr;
testing_util::PrometheusProcess* OneMoneyProperty::prom_ = nullptr;
std::vector<Case>* OneMoneyProperty::cases_ = new std::vector<Case>();
std::mt19937_64 OneMoneyProperty::rng_for_kills_(7);

TEST_F(OneMoneyProperty, EverySourceAndCommandGivesTheSameMoney) {
  ASSERT_FALSE(cases_->empty());
  const std::string price = " --price-per-gpu-hour " + std::to_string(kFlatPrice);
  for (const Case& c : *cases_) {
    SCOPED_TRACE(c.What());
    const std::string by_team = " --by cluster,team --accumulate --format json";
    const std::string by_pod = " --by cluster,namespace,pod,container --accumulate --format json";
    const std::string files = " --input " + c.file + c.Window() + price;
    const std::string prom = " --prometheus " + prom_->url() + c.Window() + price + " --segment " +
                             c.segment + " --segment-samples 0";
    const std::string ledger = (tmp_->path() / (c.name + ".db")).string();
    const RunResult written = RunShell(kBinary + " ledger write " + ledger + files + " 2>&1");
    ASSERT_EQ(written.exit_code, 0) << written.output;
    const std::string from_ledger = " --ledger " + ledger + c.Window();

    const nlohmann::json team_files = Json("report" + files + by_team, c.What());
    const std::map<std::string, double> teams = Money(team_files, c.name, {"team"});
    ASSERT_FALSE(teams.empty()) << team_files.dump();
    ExpectSame(Money(Json("report" + prom + by_team, c.What()), c.name, {"team"}), teams,
               "report --prometheus, per team");
    ExpectSame(Money(Json("report" + from_ledger + by_team, c.What()), c.name, {"team"}), teams,
               "report --ledger, per team");

    const std::vector<std::string> pod_key = {"namespace", "pod", "container"};
    const nlohmann::json pod_files = Json("report" + files + by_pod, c.What());
    for (const char* field : {"allocated_usd", "effective_usd", "gpu_hours"}) {
      const std::map<std::string, double> pods = Money(pod_files, c.name, pod_key, field);
      ExpectSame(Money(Json("report" + prom + by_pod, c.What()), c.name, pod_key, field), pods,
                 std::string("report --prometheus, per pod, ") + field);
      ExpectSame(Money(Json("report" + from_ledger + by_pod, c.What()), c.name, pod_key, field),
                 pods, std::string("report --ledger, per pod, ") + field);
    }

    std::map<std::string, double> charged;
    const nlohmann::json statements =
        Json("chargeback" + files + " --by team --format json", c.What());
    for (const nlohmann::json& s : statements["statements"]) {
      charged["/" + s["team"].get<std::string>()] = s["allocated_usd"].get<double>();
    }
    ExpectSame(charged, teams, "chargeback, per team");
    std::map<std::string, double> before;
    const nlohmann::json whatif =
        Json("whatif" + files + " --policy spot-batch --format json", c.What());
    for (const nlohmann::json& t : whatif["by_team"]) {
      before["/" + t["team"].get<std::string>()] = t["before_usd"].get<double>();
    }
    ExpectSame(before, teams, "whatif's before, per team");

    // Serve, killed and started again: its steps are whole minutes, so it is compared over the
    // whole minutes of the window.
    if (&c - cases_->data() < 2) {
      const int64_t from = (std::max(c.from, kDataStart - 600) + 59) / 60 * 60;
      const int64_t to = std::min(c.to, c.data_end + 600) / 60 * 60;
      ExpectServeKeepsTheReport(c, from, to, rng_for_kills_);
    }

    // Evidence: GPUs x price x the part of the window the data covers.
    const double hours =
        static_cast<double>(std::min(c.to, c.data_end) - std::max(c.from, kDataStart)) / 3600.0;
    const double cost = team_files["totals"]["cost_usd"].get<double>();
    EXPECT_NEAR(cost, kFlatPrice * static_cast<double>(c.gpus) * hours, 1e-9 * cost)
        << "allocated + idle = price x GPUs x evidenced hours";
  }
}

}  // namespace
}  // namespace gpucost
