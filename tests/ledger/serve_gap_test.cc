// `gpucost serve` over a hole in its source (docs/serve.md, "Gaps"): twenty minutes of a
// simulated cluster's series are missing. Resuming a ledger it stopped writing before the hole,
// serve gives each empty step of the hole the holdings of the step before, unmeasured, and counts
// them on /metrics; attributing the same files as they come (a new ledger), it leaves the hole
// empty: a source that had nothing while serve watched had nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/serve_test_util.h"

namespace gpucost {
namespace {

using serve_test::Get;
using serve_test::ValueOf;
using serve_test::WaitFor;
using testing_util::ChildProcess;
using testing_util::FreePort;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

// Copies an OpenMetrics file without the samples timestamped in [from, to).
void CutHole(const std::string& in, const std::string& out, Instant from, Instant to) {
  std::ifstream src(in);
  std::ofstream dst(out);
  std::string line;
  while (std::getline(src, line)) {
    if (!line.empty() && line[0] != '#') {
      const double ts = std::stod(line.substr(line.rfind(' ') + 1));
      const int64_t ms = std::llround(ts * 1000);
      if (ms >= UnixMs(from) && ms < UnixMs(to)) continue;
    }
    dst << line << '\n';
  }
}

// Serves `ledger` from `input` until a cycle caught up; gives gpucost_gap_steps_total.
double ServeOnce(const TempDir& dir, const std::string& ledger, const std::string& input,
                 const std::string& extra) {
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  std::vector<std::string> args = {kBinary,
                                   "serve",
                                   "--ledger",
                                   ledger,
                                   "--input",
                                   input,
                                   "--price-per-gpu-hour",
                                   "12",
                                   "--interval",
                                   "1s",
                                   "--listen",
                                   "127.0.0.1:" + std::to_string(port)};
  std::istringstream words(extra);
  for (std::string w; words >> w;) args.push_back(w);
  ChildProcess serve(args, (dir.path() / "serve.log").string());
  EXPECT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << serve.Log();
  const double gaps = ValueOf(Get(base + "/metrics").body, "gpucost_gap_steps_total");
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
  return gaps;
}

// Records per step (relative to `w.start`) of a ledger.
std::map<int64_t, std::vector<CostRecord>> ByStep(const std::string& target, Window w) {
  std::map<int64_t, std::vector<CostRecord>> out;
  auto ledger = ledger::Ledger::Open(target);
  EXPECT_TRUE(ledger.ok()) << ledger.status().ToString();
  if (!ledger.ok()) return out;
  Result<ledger::LedgerWindow> read = (*ledger)->Read(w);
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  if (!read.ok()) return out;
  for (const CostRecord& r : read->records) out[r.step].push_back(r);
  return out;
}

TEST(ServeGaps, CarriesHoldingsOverAHoleItDidNotWatchAndLeavesAWatchedOneEmpty) {
  TempDir dir;
  using std::chrono::minutes;
  const Instant now = std::chrono::floor<minutes>(
      std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now()));
  const Instant t0 = now - minutes(45);
  const std::string full = (dir.path() / "full.om").string();
  const std::string holed = (dir.path() / "holed.om").string();
  const RunResult made =
      RunShell(StrCat(kBinary, " simulate --nodes 2 --gpu-models a100-80gb:1 --sharing whole:1 ",
                      "--namespaces 2 --seed 4 --scrape-interval 30s --window ", FormatRfc3339(t0),
                      ",", FormatRfc3339(now), " --out ", full, " 2>&1"));
  ASSERT_EQ(made.exit_code, 0) << made.output;
  CutHole(full, holed, t0 + minutes(10), t0 + minutes(30));

  // A new ledger attributes the files as they come: the hole stays empty.
  const std::string fresh = (dir.path() / "fresh.db").string();
  EXPECT_EQ(ServeOnce(dir, fresh, holed, "--from " + FormatRfc3339(t0)), 0);
  const Window span{t0, now - minutes(3)};
  const auto watched = ByStep(fresh, span);
  std::set<int64_t> empty;
  for (int64_t s = 0; s < 42; ++s) {
    if (!watched.count(s)) empty.insert(s);
  }
  // The staleness (5m) carries the last series into the hole; the rest of it is empty.
  ASSERT_FALSE(empty.empty());
  EXPECT_GE(*empty.begin(), 10);
  EXPECT_LE(*empty.rbegin(), 29);
  ASSERT_TRUE(watched.count(*empty.begin() - 1));

  // A ledger serve stopped writing at t0 + 10m (the first ten minutes attributed, and where it
  // stopped recorded as serve records it): the hole gets the holdings of the step before it.
  const std::string resumed = (dir.path() / "resumed.db").string();
  const RunResult wrote =
      RunShell(StrCat(kBinary, " ledger write --input ", holed, " --window ", FormatRfc3339(t0),
                      ",", FormatRfc3339(t0 + minutes(10)), " ", resumed, " 2>&1"));
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  {
    auto ledger = ledger::Ledger::Open(resumed);
    ASSERT_TRUE(ledger.ok());
    Result<std::vector<ledger::ScopeState>> scopes = (*ledger)->Scopes();
    ASSERT_TRUE(scopes.ok());
    ASSERT_EQ(scopes->size(), 1u);
    ledger::WriteScope scope;
    scope.clusters = {(*scopes)[0].cluster};
    ASSERT_TRUE((*ledger)->SetAttributedThrough(scope, t0 + minutes(10), {}).ok());
  }
  EXPECT_EQ(ServeOnce(dir, resumed, holed, ""), static_cast<double>(empty.size()));
  const auto carried = ByStep(resumed, span);
  const std::vector<CostRecord>& before = watched.at(*empty.begin() - 1);
  double held_before = 0;
  for (const CostRecord& r : before) held_before += r.is_idle() ? 0 : r.gpu_hours;
  ASSERT_GT(held_before, 0);
  for (const int64_t s : empty) {
    ASSERT_TRUE(carried.count(s)) << "step " << s;
    const std::vector<CostRecord>& got = carried.at(s);
    EXPECT_EQ(got.size(), before.size()) << "step " << s;
    double held = 0;
    for (const CostRecord& r : got) {
      EXPECT_TRUE(std::isnan(r.effective_usd));
      if (r.is_idle()) continue;
      held += r.gpu_hours;
      EXPECT_EQ(r.unmeasured_gpu_hours, r.gpu_hours);
      EXPECT_NEAR(r.allocated_usd, 12 * r.gpu_hours, 1e-9);
    }
    EXPECT_NEAR(held, held_before, 1e-9) << "step " << s;
  }
  // Everything outside the hole is what the new ledger has.
  for (const auto& [s, records] : watched) {
    ASSERT_TRUE(carried.count(s)) << "step " << s;
    EXPECT_EQ(carried.at(s).size(), records.size()) << "step " << s;
  }
}

// A ledger whose steps were written on another grid (a back-fill with --window 30 s past the
// minute): serve goes on on that grid, rather than have every write refused as off it.
TEST(ServeGaps, GoesOnOnTheGridOfTheStepsWrittenBefore) {
  TempDir dir;
  using std::chrono::minutes;
  using std::chrono::seconds;
  const Instant now = std::chrono::floor<minutes>(
      std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now()));
  const Instant t0 = now - minutes(20);
  const std::string input = (dir.path() / "sim.om").string();
  const RunResult made =
      RunShell(StrCat(kBinary, " simulate --nodes 1 --gpu-models a100-80gb:1 --sharing whole:1 ",
                      "--namespaces 1 --seed 4 --scrape-interval 30s --window ", FormatRfc3339(t0),
                      ",", FormatRfc3339(now), " --out ", input, " 2>&1"));
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const std::string db = (dir.path() / "costs.db").string();
  const Instant a = t0 + seconds(30);
  const Instant b = a + minutes(10);
  const RunResult wrote =
      RunShell(StrCat(kBinary, " ledger write --input ", input, " --window ", FormatRfc3339(a), ",",
                      FormatRfc3339(b), " ", db, " --price-per-gpu-hour 12 2>&1"));
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  EXPECT_EQ(ServeOnce(dir, db, input, ""), 0);
  auto ledger = ledger::Ledger::Open(db);
  ASSERT_TRUE(ledger.ok());
  // One grid, and steps written past the back-fill by serve.
  const Result<ledger::LedgerWindow> all = (*ledger)->Read(std::nullopt);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  const Result<std::optional<Window>> span = (*ledger)->Span();
  ASSERT_TRUE(span.ok() && span->has_value());
  EXPECT_GT((*span)->end, b + minutes(2));
  EXPECT_EQ(UnixMs((*span)->end) % 60'000, 30'000);
}

// A source whose data ended hours ago: serve back-fills from --from to now, and writes nothing for
// the time after the data (no evidence that the nodes still exist, so no idle either); the ledger
// holds what `report --input` says of the same window.
TEST(ServeGaps, WritesNothingPastTheEndOfItsSourcesData) {
  TempDir dir;
  using std::chrono::hours;
  using std::chrono::minutes;
  const Instant now = std::chrono::floor<minutes>(
      std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now()));
  const Instant t0 = now - hours(3);
  const std::string file = (dir.path() / "hour.om").string();
  const RunResult made = RunShell(StrCat(
      kBinary, " simulate --nodes 2 --gpu-models t4:1 --sharing whole:1 --seed 5 ", "--window ",
      FormatRfc3339(t0), ",", FormatRfc3339(t0 + hours(1)), " --out ", file, " 2>&1"));
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const std::string db = (dir.path() / "ledger.db").string();
  ServeOnce(dir, db, file, "--from " + FormatRfc3339(t0));
  const Window w{t0, now};
  double ledger_usd = 0;
  int64_t last_step = -1;
  for (const auto& [s, records] : ByStep(db, w)) {
    last_step = std::max(last_step, s);
    for (const CostRecord& r : records) ledger_usd += r.allocated_usd;
  }
  EXPECT_EQ(last_step, 59);  // the hour of data, in 60 s steps, and nothing after it
  const RunResult report =
      RunShell(StrCat(kBinary, " report --input ", file, " --accumulate --format json ",
                      "--price-per-gpu-hour 12 --window ", FormatRfc3339(t0), ",",
                      FormatRfc3339(now), " 2>/dev/null"));
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const auto doc = nlohmann::json::parse(report.output);
  EXPECT_NEAR(ledger_usd, doc["totals"]["cost_usd"].get<double>(), 1e-9);
  EXPECT_NEAR(ledger_usd, 2 * 4 * 12.0, 1e-9);  // 2 nodes x 4 T4s x 1 hour x $12
}

}  // namespace
}  // namespace gpucost
