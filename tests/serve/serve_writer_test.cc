#include "serve/serve_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <string_view>

#include "cli/cli_test_util.h"
#include "core/strings.h"
#include "pricing/price_fn.h"

namespace gpucost::serve {
namespace {

Instant At(int64_t minutes) { return InstantFromUnixMs(minutes * 60'000); }

TEST(ServeWriter, ANameOfThisProcessIsNotGoneAndADeadPidOfThisHostIs) {
  const std::string me = WriterName();
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof(host) - 1), 0);
  EXPECT_EQ(me.rfind(StrCat(host, ":", getpid(), ":"), 0), 0u) << me;
  // Its own name: a restarted process that got the same pid.
  EXPECT_TRUE(GoneFromThisHost(me));
  // pid_max is at most 2^22: this pid cannot run.
  EXPECT_TRUE(GoneFromThisHost(StrCat(host, ":", 1 << 23, ":0badcafe")));
  // pid 1 always runs; another host is never judged; names that are not WriterName's.
  EXPECT_FALSE(GoneFromThisHost(StrCat(host, ":1:0badcafe")));
  EXPECT_FALSE(GoneFromThisHost(StrCat(host, "-elsewhere:", 1 << 23, ":0badcafe")));
  EXPECT_FALSE(GoneFromThisHost(StrCat(host, ":x1:0badcafe")));
  EXPECT_FALSE(GoneFromThisHost(StrCat(host, "::0badcafe")));
  EXPECT_FALSE(GoneFromThisHost("nocolons"));
  EXPECT_FALSE(GoneFromThisHost(":"));
}

TEST(ServeWriter, ScanHolesKeepsStepsWithoutDataAndCarriesOnlyUnwatchedHolesDataCloses) {
  const Duration minute = std::chrono::minutes(1);
  // Steps 0..5: data, none, none, data, none, none.
  const std::vector<bool> data = {true, false, false, true, false, false};
  // Watched all along: the steps without data keep what they hold, nothing is carried.
  HoleScan watched = ScanHoles(At(0), minute, data, std::nullopt, std::nullopt);
  ASSERT_EQ(watched.keep.size(), 2u);
  EXPECT_EQ(watched.keep[0].window.start, At(1));
  EXPECT_EQ(watched.keep[0].window.end, At(3));
  EXPECT_EQ(watched.keep[1].window.start, At(4));
  EXPECT_EQ(watched.keep[1].window.end, At(6));
  EXPECT_TRUE(watched.carry.empty());
  EXPECT_FALSE(watched.pending);
  // Unwatched from step 0: the hole [1, 3) that data at 3 closes is carried over; [4, 6) stays
  // open for the next chunk.
  HoleScan unwatched = ScanHoles(At(0), minute, data, std::nullopt, At(0));
  ASSERT_EQ(unwatched.carry.size(), 1u);
  EXPECT_EQ(unwatched.carry[0].start, At(1));
  EXPECT_EQ(unwatched.carry[0].end, At(3));
  ASSERT_TRUE(unwatched.pending);
  EXPECT_EQ(*unwatched.pending, At(4));
  // A hole left open by the chunk before closes at this chunk's first data.
  HoleScan next = ScanHoles(At(6), minute, {false, true}, At(4), At(0));
  ASSERT_EQ(next.carry.size(), 1u);
  EXPECT_EQ(next.carry[0].start, At(4));
  EXPECT_EQ(next.carry[0].end, At(7));
  EXPECT_FALSE(next.pending);
}

TEST(ServeWriter, UnwrittenClustersAreThoseWithoutALiveWriter) {
  std::vector<ledger::ScopeState> scopes(4);
  scopes[0].cluster = "filled-by-ledger-write";
  scopes[1].cluster = "written";
  scopes[1].writer = "host:1:a";
  scopes[1].lease_until = At(10);
  scopes[2].cluster = "writer-gone";
  scopes[2].writer = "host:2:b";
  scopes[2].lease_until = At(5);
  scopes[3].cluster = "filled-by-ledger-write";  // named twice: once
  EXPECT_EQ(UnwrittenClusters(scopes, At(6)),
            (std::vector<std::string>{"filled-by-ledger-write", "writer-gone"}));
  EXPECT_EQ(UnwrittenClusters(scopes, At(10)),
            (std::vector<std::string>{"filled-by-ledger-write", "writer-gone", "written"}));
}

// A writer of `input` into the ledger at `path` from `from`: one-minute interval and steps, no lag
// or grace, chunks of ten minutes, $12 a GPU-hour.
ServeOptions MinuteWriter(const std::string& input, const std::string& path, Instant from) {
  ServeOptions s;
  s.source.inputs = {input};
  s.ledger = path;
  PriceOptions price;
  price.usd_per_gpu_hour = 12;
  s.price = *MakePriceFn(price);
  s.interval = std::chrono::minutes(1);
  s.step = std::chrono::minutes(1);
  s.lag = Duration(0);
  s.grace = Duration(0);
  s.max_chunk = std::chrono::minutes(10);
  s.from = from;
  return s;
}

size_t Occurrences(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// An --input file that is not there (yet): serve says so when it starts failing, not every cycle
// (a one-minute interval would make 60 lines an hour), and once when the file is there.
TEST(ServeWriter, AMissingInputIsLoggedOncePerOutageNotEveryCycle) {
  testing_util::TempDir dir;
  const std::string input = (dir.path() / "later.om").string();
  const std::string path = (dir.path() / "serve.db").string();
  Result<std::unique_ptr<ledger::Ledger>> ledger = ledger::Ledger::Open(path);
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  const Instant from = *ParseInstant("2026-10-01T00:00:00Z");
  const ServeOptions s = MinuteWriter(input, path, from);  // the writer keeps a reference
  ServeWriter writer(s, **ledger);
  const auto running = [] { return false; };
  ::testing::internal::CaptureStderr();
  for (int minutes : {5, 6, 7, 8, 9}) {
    EXPECT_FALSE(writer.Cycle(from + std::chrono::minutes(minutes), running).caught_up);
  }
  // An hour on, still failing: one more line that says since when.
  EXPECT_FALSE(writer.Cycle(from + std::chrono::minutes(70), running).caught_up);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(writer.counts().source_errors, 6) << log;
  EXPECT_EQ(Occurrences(log, "gpucost serve: attribution: "), 2u) << log;
  EXPECT_NE(log.find("later.om"), std::string::npos) << log;
  EXPECT_NE(log.find("still failing, 6 times since 2026-10-01T00:05:00Z"), std::string::npos)
      << log;

  const testing_util::RunResult demo =
      testing_util::RunShell(kBinary + " demo --write-openmetrics " + input + " 2>&1");
  ASSERT_EQ(demo.exit_code, 0) << demo.output;
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(writer.Cycle(from + std::chrono::minutes(71), running).caught_up);
  const std::string recovered = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(recovered.find("attribution: reading the source works again, after 6 failures"),
            std::string::npos)
      << recovered;
}

// A full disk: SQLite's max_page_count keeps the ledger file from growing (SQLITE_FULL), as a
// full filesystem would. Writes fail whole (one transaction each) and are counted; serve keeps
// its place, and once there is room again it attributes from there: the ledger then holds what a
// one-shot `gpucost ledger write` of the same input gives, nothing lost, nothing twice.
TEST(ServeWriter, AFullDiskStopsTheWritesAndTheyResumeWithNothingLostOrCountedTwice) {
  testing_util::TempDir dir;
  const std::string input = (dir.path() / "demo.om").string();
  const testing_util::RunResult demo =
      testing_util::RunShell(kBinary + " demo --write-openmetrics " + input + " 2>&1");
  ASSERT_EQ(demo.exit_code, 0) << demo.output;
  const std::string path = (dir.path() / "serve.db").string();
  Result<std::unique_ptr<ledger::Ledger>> ledger = ledger::Ledger::Open(path);
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  const Instant from = *ParseInstant("2026-10-01T00:00:00Z");
  const ServeOptions s = MinuteWriter(input, path, from);  // the writer keeps a reference
  ServeWriter writer(s, **ledger);
  const auto running = [] { return false; };
  ASSERT_TRUE(writer.Cycle(from + std::chrono::minutes(20), running).caught_up);
  ASSERT_EQ(writer.processed(), from + std::chrono::minutes(20));

  // The disk fills: the file may not grow past the pages it has.
  ASSERT_TRUE((*ledger)->ExecForTesting("PRAGMA max_page_count = 1").ok());
  ::testing::internal::CaptureStderr();
  for (int minutes : {40, 50}) {
    EXPECT_FALSE(writer.Cycle(from + std::chrono::minutes(minutes), running).caught_up);
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_GE(writer.counts().ledger_write_errors, 2) << log;
  EXPECT_NE(log.find("full"), std::string::npos) << log;
  // Logged when it started, not once a cycle (OutageLog).
  EXPECT_EQ(Occurrences(log, "gpucost serve: attribution: "), 1u) << log;
  ASSERT_TRUE(writer.processed());
  EXPECT_LT(*writer.processed(), from + std::chrono::minutes(40));

  // Room again: the next cycle goes on from where the writes stopped, and says so once.
  ASSERT_TRUE((*ledger)->ExecForTesting("PRAGMA max_page_count = 1073741823").ok());
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(writer.Cycle(from + std::chrono::minutes(60), running).caught_up);
  const std::string recovered = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(recovered.find("attribution: writing the ledger works again, after 2 failures"),
            std::string::npos)
      << recovered;
  EXPECT_EQ(writer.processed(), from + std::chrono::minutes(60));

  const std::string once = (dir.path() / "once.db").string();
  const testing_util::RunResult wrote =
      testing_util::RunShell(kBinary + " ledger write " + once + " --input " + input +
                             " --price-per-gpu-hour 12 --step 60s --window "
                             "2026-10-01T00:00:00Z,2026-10-01T01:00:00Z 2>&1");
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  Result<std::unique_ptr<ledger::Ledger>> reference = ledger::Ledger::Open(once);
  ASSERT_TRUE(reference.ok());
  EXPECT_EQ((*ledger)->Info()->records, (*reference)->Info()->records);
  const ledger::LedgerTotals got = *(*ledger)->Totals();
  const ledger::LedgerTotals want = *(*reference)->Totals();
  ASSERT_EQ(got.holders.size(), want.holders.size());
  ASSERT_FALSE(got.holders.empty());
  const auto near = [](double a, double b) { return std::fabs(a - b) <= 1e-9 * std::fabs(b); };
  for (size_t i = 0; i < got.holders.size(); ++i) {
    EXPECT_EQ(got.holders[i].workload, want.holders[i].workload);
    EXPECT_TRUE(near(got.holders[i].allocated_usd, want.holders[i].allocated_usd))
        << got.holders[i].workload << ": " << got.holders[i].allocated_usd << " vs "
        << want.holders[i].allocated_usd;
    EXPECT_TRUE(near(got.holders[i].gpu_hours, want.holders[i].gpu_hours));
    EXPECT_TRUE(near(got.holders[i].effective_usd, want.holders[i].effective_usd));
  }
  ASSERT_EQ(got.idle.size(), want.idle.size());
  for (size_t i = 0; i < got.idle.size(); ++i) {
    EXPECT_TRUE(near(got.idle[i].idle_usd, want.idle[i].idle_usd)) << got.idle[i].node;
  }
}

}  // namespace
}  // namespace gpucost::serve
