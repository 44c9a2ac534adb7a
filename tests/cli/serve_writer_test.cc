#include "cli/serve_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/strings.h"

namespace gpucost::cli {
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

}  // namespace
}  // namespace gpucost::cli
