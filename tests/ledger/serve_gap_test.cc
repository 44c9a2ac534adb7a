// `gpucost serve` over a hole in its source (docs/serve.md, "Gaps"): twenty minutes of a
// simulated cluster's series are missing. Where serve is the scraper (--scrape) and resumes a
// ledger it stopped writing before the hole, the hole is its own downtime: each empty step gets
// the holdings of the step before, unmeasured, counted on /metrics; so does a file that lost
// everything up to the hole's end (a store's retention). A gap that files (or a Prometheus)
// recorded, with data before it, is the source's: left empty, as `report` and a serve that
// watched it leave it.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
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

// Serves `ledger` from `source` (its flags: "--input FILE", "--scrape …") until a cycle caught up;
// gives gpucost_gap_steps_total.
double ServeOnce(const TempDir& dir, const std::string& ledger, const std::string& source) {
  const int port = FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  std::vector<std::string> args = {
      kBinary, "serve",      "--ledger", ledger,     "--price-per-gpu-hour",
      "12",    "--interval", "1s",       "--listen", "127.0.0.1:" + std::to_string(port)};
  std::istringstream words(source);
  for (std::string w; words >> w;) args.push_back(w);
  ChildProcess serve(args, (dir.path() / "serve.log").string());
  EXPECT_TRUE(WaitFor(base + "/readyz", 200, std::chrono::seconds(120))) << serve.Log();
  const double gaps = ValueOf(Get(base + "/metrics").body, "gpucost_gap_steps_total");
  EXPECT_EQ(serve.Terminate(), 0) << serve.Log();
  return gaps;
}

// Files an OpenMetrics file's samples into a scrape spool, as serve stores its scrapes: a file per
// UTC minute, Prometheus text with millisecond timestamps.
void FillSpool(const std::string& in, const std::filesystem::path& spool) {
  std::filesystem::create_directories(spool);
  std::ifstream src(in);
  std::map<std::string, std::ofstream> files;
  std::string line;
  while (std::getline(src, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t cut = line.rfind(' ');
    const int64_t ms = std::llround(std::stod(line.substr(cut + 1)) * 1000);
    const std::string stamp =
        FormatRfc3339(InstantFromUnixMs(ms - ms % 60'000));  // 2026-11-28T17:31:00Z
    std::string name;
    for (const char c : stamp.substr(0, 16)) {
      if (c != '-' && c != ':') name += c;
    }
    std::ofstream& out = files[name];
    if (!out.is_open()) out.open(spool / (name + "Z_source.prom"));
    out << line.substr(0, cut) << ' ' << ms << '\n';
  }
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

// A ledger with its first ten minutes (t0 to t0 + 10m) attributed, and where its writer stopped
// recorded as serve records it.
void StoppedAfterTenMinutes(const std::string& input, const std::string& target, Instant t0) {
  using std::chrono::minutes;
  const RunResult wrote = RunShell(StrCat(kBinary, " ledger write --input ", input, " --window ",
                                          FormatRfc3339(t0), ",", FormatRfc3339(t0 + minutes(10)),
                                          " ", target, " --price-per-gpu-hour 12 2>&1"));
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  auto ledger = ledger::Ledger::Open(target);
  ASSERT_TRUE(ledger.ok());
  Result<std::vector<ledger::ScopeState>> scopes = (*ledger)->Scopes();
  ASSERT_TRUE(scopes.ok());
  ASSERT_EQ(scopes->size(), 1u);
  ledger::WriteScope scope;
  scope.clusters = {(*scopes)[0].cluster};
  ASSERT_TRUE((*ledger)->SetAttributedThrough(scope, t0 + minutes(10), {}).ok());
}

// Each of `steps` holds the holdings of `before` (a step's records), unmeasured, at $12/GPU-hour.
void ExpectHoldingsCarried(const std::map<int64_t, std::vector<CostRecord>>& ledger,
                           const std::set<int64_t>& steps, const std::vector<CostRecord>& before) {
  double held_before = 0;
  for (const CostRecord& r : before) held_before += r.is_idle() ? 0 : r.gpu_hours;
  ASSERT_GT(held_before, 0);
  for (const int64_t s : steps) {
    ASSERT_TRUE(ledger.count(s)) << "step " << s;
    const std::vector<CostRecord>& got = ledger.at(s);
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
}

double AllocatedUsd(const std::vector<CostRecord>& records) {
  double usd = 0;
  for (const CostRecord& r : records) usd += r.allocated_usd;
  return usd;
}

TEST(ServeGaps, CarriesHoldingsOverItsOwnDowntimeAndASourcesLossButNotAGapTheSourceRecorded) {
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
  EXPECT_EQ(ServeOnce(dir, fresh, StrCat("--input ", holed, " --from ", FormatRfc3339(t0))), 0);
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

  // Resuming a ledger stopped at t0 + 10m from the same files: the files are the record, and the
  // hole stays as empty as `report` on them leaves it. Every step costs what the new ledger's does.
  const std::string from_files = (dir.path() / "from-files.db").string();
  StoppedAfterTenMinutes(holed, from_files, t0);
  EXPECT_EQ(ServeOnce(dir, from_files, "--input " + holed), 0);
  const auto resumed = ByStep(from_files, span);
  ASSERT_EQ(resumed.size(), watched.size());
  for (const auto& [s, records] : watched) {
    ASSERT_TRUE(resumed.count(s)) << "step " << s;
    EXPECT_NEAR(AllocatedUsd(resumed.at(s)), AllocatedUsd(records), 1e-9) << "step " << s;
  }

  // A file that lost the time (as a store's retention loses it): nothing before t0 + 30m is left.
  // The ledger stopped at t0 + 10m, and the steps serve reads again before the hole are empty
  // too: the hole is the source's loss, not a gap it recorded, and is carried over.
  const std::string retained = (dir.path() / "retained.om").string();
  CutHole(full, retained, t0 - minutes(60), t0 + minutes(30));
  const std::string restored = (dir.path() / "restored.db").string();
  StoppedAfterTenMinutes(holed, restored, t0);
  EXPECT_EQ(ServeOnce(dir, restored, "--input " + retained), 20);
  std::set<int64_t> lost;
  for (int64_t s = 10; s < 30; ++s) lost.insert(s);
  const auto after_loss = ByStep(restored, span);
  ExpectHoldingsCarried(after_loss, lost, after_loss.at(9));
  EXPECT_EQ(after_loss.size(), 42u);  // the ten steps before the hole kept what they held

  // serve as the scraper, resuming where it stopped: its spool has nothing of the hole because it
  // was not there to scrape. The hole gets the holdings of the step before it, unmeasured.
  const std::string scraped = (dir.path() / "scraped.db").string();
  StoppedAfterTenMinutes(holed, scraped, t0);
  FillSpool(holed, scraped + ".scrape");
  const std::string gone = StrCat("http://127.0.0.1:", FreePort(), "/metrics");
  EXPECT_EQ(ServeOnce(dir, scraped, "--scrape source=" + gone), static_cast<double>(empty.size()));
  const auto carried = ByStep(scraped, span);
  const std::vector<CostRecord>& before = watched.at(*empty.begin() - 1);
  ExpectHoldingsCarried(carried, empty, before);
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
  EXPECT_EQ(ServeOnce(dir, db, "--input " + input), 0);
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
  ServeOnce(dir, db, StrCat("--input ", file, " --from ", FormatRfc3339(t0)));
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
