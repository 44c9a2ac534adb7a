#include "core/time.h"

#include <gtest/gtest.h>

#include <limits>

namespace gpucost {
namespace {

TEST(Time, ParsesRfc3339AndUnixSeconds) {
  auto a = ParseInstant("2026-10-01T00:00:00Z");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(UnixMs(*a), 1790812800000);
  auto b = ParseInstant("2026-10-01T02:00:00.250+02:00");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(UnixMs(*b), 1790812800250);
  auto c = ParseInstant("1790812800.5");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(UnixMs(*c), 1790812800500);
  auto d = ParseInstant("2026-10-01");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, *a);
}

TEST(Time, RejectsBadTimesWithTheText) {
  auto r = ParseInstant("2026-13-01T00:00:00Z");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("2026-13-01"), std::string_view::npos);
  EXPECT_FALSE(ParseInstant("2026-10-01T00:00:00").ok());  // no zone
  EXPECT_FALSE(ParseInstant("yesterday").ok());
  // Unix times past the year 9999 are its end (they overflowed into "END must be after START").
  EXPECT_EQ(FormatRfc3339(*ParseInstant("253402300799")), "9999-12-31T23:59:59Z");
  EXPECT_EQ(FormatRfc3339(*ParseInstant("9223372036854775")), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatRfc3339(*ParseInstant("99999999999999")), "9999-12-31T23:59:59.999Z");
}

TEST(Time, FormatsRoundTrip) {
  const Instant t = InstantFromUnixMs(1790812800250);
  EXPECT_EQ(FormatRfc3339(t), "2026-10-01T00:00:00.250Z");
  EXPECT_EQ(*ParseInstant(FormatRfc3339(t)), t);
  EXPECT_EQ(FormatRfc3339(InstantFromUnixMs(0)), "1970-01-01T00:00:00Z");
  // Years 0000 to 9999 are written; a corrupt timestamp past them (the ends of int64 overflowed
  // the day count: undefined behaviour) is its milliseconds.
  EXPECT_EQ(FormatRfc3339(InstantFromUnixMs(-62'167'219'200'000)), "0000-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(InstantFromUnixMs(253'402'300'799'999)), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatRfc3339(InstantFromUnixMs(253'402'300'800'000)), "unix ms 253402300800000");
  EXPECT_EQ(FormatRfc3339(InstantFromUnixMs(std::numeric_limits<int64_t>::min())),
            "unix ms -9223372036854775808");
  EXPECT_EQ(FormatRfc3339(InstantFromUnixMs(std::numeric_limits<int64_t>::max())),
            "unix ms 9223372036854775807");
}

TEST(Time, Durations) {
  EXPECT_EQ(*ParseDuration("60s"), Duration(60000));
  EXPECT_EQ(*ParseDuration("1h30m"), Duration(5400000));
  EXPECT_EQ(*ParseDuration("250ms"), Duration(250));
  EXPECT_EQ(*ParseDuration("90"), Duration(90000));
  EXPECT_EQ(*ParseDuration("7d"), Duration(7 * 86400000LL));
  EXPECT_FALSE(ParseDuration("5x").ok());
  EXPECT_FALSE(ParseDuration("").ok());
  EXPECT_EQ(FormatDuration(Duration(90000)), "1m30s");
  EXPECT_EQ(FormatDuration(Duration(0)), "0s");
}

// A query's step= or a flag's --step can be any text: milliseconds past 64 bits are an error,
// not a signed overflow (found by fuzz/http_query_fuzz.cc).
TEST(Time, DurationsTooLongForMillisecondsAreErrors) {
  for (const char* text : {"333333333323w", "9223372036854775807s", "106751991167d1d",
                           "99999999999999999999", "1e300"}) {
    const Result<Duration> d = ParseDuration(text);
    EXPECT_FALSE(d.ok()) << text;
  }
  EXPECT_NE(ParseDuration("333333333323w").status().message().find("too long"),
            std::string_view::npos);
  EXPECT_EQ(*ParseDuration("292y"), Duration(292 * 365 * 86400000LL));
}

TEST(Time, WindowsAndSteps) {
  auto w = ParseWindow("0,3600");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(StepCount(*w, Duration(60000)), 60);
  EXPECT_EQ(StepCount(*w, Duration(7 * 60000)), 9);  // last step partial
  EXPECT_FALSE(ParseWindow("3600,0").ok());
  EXPECT_FALSE(ParseWindow("3600").ok());
}

TEST(Time, FakeClockMovesOnlyWhenTold) {
  FakeClock clock(InstantFromUnixMs(1000));
  EXPECT_EQ(UnixMs(clock.Now()), 1000);
  clock.Advance(Duration(500));
  EXPECT_EQ(UnixMs(clock.Now()), 1500);
}

}  // namespace
}  // namespace gpucost
