// The progress line as a terminal would show it, with a clock moved by hand: what it says, how
// often it redraws (at most once per interval), that it clears itself, and that a disabled line
// (stderr is not a terminal, or --no-progress) writes nothing at all.
#include "core/progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

namespace gpucost {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const Instant kStart = InstantFromUnixMs(1'790'812'800'000);

TEST(ProgressLine, SaysBytesOfTotalRateAndTimeLeft) {
  FakeClock clock(kStart);
  std::ostringstream out;
  ProgressLine line("report", ProgressUnit::kBytes, 100 << 20, clock, out, true);
  clock.Advance(seconds(2));
  line.Set(25 << 20);
  EXPECT_EQ(out.str(), "\rreport: read 25MiB of 100MiB (25%), 12.5MiB/s, 6s left");
  EXPECT_EQ(line.draws(), 1);
}

TEST(ProgressLine, SaysTimeCoveredForAWindow) {
  FakeClock clock(kStart);
  std::ostringstream out;
  const int64_t two_days_ms = 48 * 3'600'000LL;
  ProgressLine line("simulate", ProgressUnit::kTime, two_days_ms, clock, out, true);
  clock.Advance(seconds(10));
  line.Set(12 * 3'600'000LL);
  EXPECT_EQ(line.Text(seconds(10)), "simulate: covered 12.0h of 48.0h (25%), 1.20h/s, 30s left");
  clock.Advance(seconds(200));
  line.Set(36 * 3'600'000LL);
  EXPECT_EQ(line.Text(seconds(210)), "simulate: covered 36.0h of 48.0h (75%), 0.17h/s, 1m10s left");
}

TEST(ProgressLine, RedrawsAtMostTenTimesASecondAndClearsAtTheEnd) {
  FakeClock clock(kStart);
  std::ostringstream out;
  ProgressLine line("report", ProgressUnit::kBytes, 1000, clock, out, true);
  for (int i = 1; i <= 1000; ++i) {
    clock.Advance(milliseconds(1));  // a second in all, a thousand updates
    line.Set(i);
  }
  EXPECT_EQ(line.draws(), 10);
  line.Finish();
  const std::string shown = out.str();
  // The last thing written blanks the line and returns to its start: nothing stays.
  const size_t last_cr = shown.rfind('\r', shown.size() - 2);
  ASSERT_NE(last_cr, std::string::npos);
  const std::string tail = shown.substr(last_cr);
  EXPECT_EQ(tail.front(), '\r');
  EXPECT_EQ(tail.back(), '\r');
  EXPECT_EQ(tail.find_first_not_of(" \r"), std::string::npos) << tail;
  line.Set(5);  // after Finish: nothing more
  EXPECT_EQ(out.str(), shown);
}

TEST(ProgressLine, AShorterTextBlanksWhatALongerOneLeft) {
  FakeClock clock(kStart);
  std::ostringstream out;
  ProgressLine line("x", ProgressUnit::kBytes, 0, clock, out, true);  // total unknown
  clock.Advance(seconds(1));
  line.Set(5'000'000'000);
  const size_t first = out.str().size();
  clock.Advance(seconds(1));
  line.Set(1);
  const std::string second = out.str().substr(first);
  EXPECT_EQ(second.size(), first) << "the second draw is as wide as the first";
  EXPECT_EQ(second.rfind("\rx: read 1B, ", 0), 0u) << second;
}

TEST(ProgressLine, DisabledWritesNothing) {
  FakeClock clock(kStart);
  std::ostringstream out;
  {
    ProgressLine line("report", ProgressUnit::kBytes, 1000, clock, out, false);
    for (int i = 0; i < 100; ++i) {
      clock.Advance(seconds(1));
      line.Set(i * 10);
    }
  }
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressLine, SaysGpusAttributed) {
  FakeClock clock(kStart);
  std::ostringstream out;
  ProgressLine line("gpucost", ProgressUnit::kGpus, 8000, clock, out, true);
  clock.Advance(seconds(4));
  line.Set(2000);
  EXPECT_EQ(out.str(), "\rgpucost: attributed 2,000 of 8,000 GPUs (25%), 500 GPUs/s, 12s left");
}

TEST(ProgressLine, ALabelChangeShowsFromTheNextDraw) {
  FakeClock clock(kStart);
  std::ostringstream out;
  ProgressLine line("gpucost", ProgressUnit::kTime, 10 * 3'600'000LL, clock, out, true, seconds(0));
  line.SetLabel("gpucost: segment 2");
  clock.Advance(seconds(1));
  line.Set(3'600'000);
  EXPECT_EQ(out.str().rfind("\rgpucost: segment 2: covered 1.00h of 10.0h (10%)", 0), 0u)
      << out.str();
}

// A message written while a line is shown clears the line first, so that it starts a line of its
// own; the line comes back at its next update, and Finish has nothing left to clear.
TEST(ProgressLine, AMessageClearsTheLineBeforeItAndTheLineComesBack) {
  FakeClock clock(kStart);
  std::ostringstream out;
  ProgressLine line("report", ProgressUnit::kBytes, 1000, clock, out, true);
  clock.Advance(seconds(1));
  line.Set(100);
  const std::string drawn = out.str();
  ASSERT_FALSE(drawn.empty());
  WriteBesideProgress([&out] { out << "gpucost warn: something\n"; });
  const std::string after = out.str().substr(drawn.size());
  const std::string blank = "\r" + std::string(drawn.size() - 1, ' ') + "\r";
  EXPECT_EQ(after, blank + "gpucost warn: something\n");
  // Within the redraw interval of the last draw, yet drawn again: the message took it away.
  clock.Advance(milliseconds(1));
  line.Set(200);
  EXPECT_EQ(line.draws(), 2);
  EXPECT_EQ(out.str().rfind("\rreport: read 200B of 1000B", out.str().size()), std::string::npos);
  EXPECT_NE(out.str().find("\rreport: read 200B", drawn.size()), std::string::npos) << out.str();
  line.Finish();
  // With no line shown, a message is written as it is.
  const size_t before = out.str().size();
  WriteBesideProgress([&out] { out << "next\n"; });
  EXPECT_EQ(out.str().substr(before), "next\n");
}

TEST(ProgressLine, AMessageBesideADisabledLineIsWrittenAsItIs) {
  FakeClock clock(kStart);
  std::ostringstream out;
  ProgressLine line("report", ProgressUnit::kBytes, 1000, clock, out, false);
  clock.Advance(seconds(1));
  line.Set(100);
  WriteBesideProgress([&out] { out << "m\n"; });
  EXPECT_EQ(out.str(), "m\n");
}

TEST(ProgressWanted, FlagsWinElseTheTerminalDecides) {
  EXPECT_TRUE(ProgressWanted(true, -1));
  EXPECT_FALSE(ProgressWanted(false, -1));
  EXPECT_FALSE(ProgressWanted(std::nullopt, -1));  // not a terminal (not even a descriptor)
}

}  // namespace
}  // namespace gpucost
