#include "chargeback/period.h"

#include <gtest/gtest.h>

#include "chargeback/format.h"

namespace gpucost::chargeback {
namespace {

TEST(Period, MonthIsItsUtcCalendarMonth) {
  auto oct = ParseMonth("2026-10");
  ASSERT_TRUE(oct.ok()) << oct.status().ToString();
  EXPECT_EQ(FormatRfc3339(oct->window.start), "2026-10-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(oct->window.end), "2026-11-01T00:00:00Z");
  EXPECT_EQ(oct->month, "2026-10");
  EXPECT_EQ(oct->day_count(), 31);

  auto dec = ParseMonth("2026-12");
  ASSERT_TRUE(dec.ok());
  EXPECT_EQ(FormatRfc3339(dec->window.end), "2027-01-01T00:00:00Z");
  auto feb = ParseMonth("2028-02");
  ASSERT_TRUE(feb.ok());
  EXPECT_EQ(feb->day_count(), 29);  // a leap year
}

TEST(Period, CurrentAndPreviousAreTheUtcMonthsOfNowAndBefore) {
  const Instant now = *ParseInstant("2027-01-01T00:30:00Z");
  auto current = ParseMonth("current", now);
  ASSERT_TRUE(current.ok()) << current.status().ToString();
  EXPECT_EQ(current->month, "2027-01");
  auto previous = ParseMonth("previous", now);
  ASSERT_TRUE(previous.ok()) << previous.status().ToString();
  EXPECT_EQ(previous->month, "2026-12");
  EXPECT_EQ(FormatRfc3339(previous->window.start), "2026-12-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(previous->window.end), "2027-01-01T00:00:00Z");
  EXPECT_EQ(ParseMonth("previous", *ParseInstant("2026-10-31T23:59:59Z"))->month, "2026-09");
}

TEST(Period, BadMonthsAreErrorsNamingTheFormat) {
  for (const char* bad : {"2026-13", "2026-00", "2026-1", "26-10", "October", "2026/10", "",
                          "2026-10-01", "1969-12"}) {
    auto p = ParseMonth(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.status().ToString().find("YYYY-MM"), std::string::npos) << p.status().ToString();
  }
}

TEST(Period, DaysAreUtcDaysTheWindowTouches) {
  auto w = ParseWindow("2026-10-01T12:00:00Z,2026-10-03T06:00:00Z");
  ASSERT_TRUE(w.ok());
  const Period p = WindowPeriod(*w);
  EXPECT_TRUE(p.month.empty());
  EXPECT_EQ(FormatRfc3339(p.first_day()), "2026-10-01T00:00:00Z");
  EXPECT_EQ(p.day_count(), 3);
  EXPECT_EQ(p.DayOf(w->start), 0);
  EXPECT_EQ(p.DayOf(*ParseInstant("2026-10-02T23:59:59Z")), 1);
  EXPECT_EQ(p.DayOf(*ParseInstant("2026-10-03T05:00:00Z")), 2);
  EXPECT_EQ(p.DayOf(*ParseInstant("2026-11-03T05:00:00Z")), 2);  // clamped
}

TEST(ReadablePeriod, WholeDaysReadAsAnInclusiveRange) {
  const auto at = [](const char* t) { return *ParseInstant(t); };
  EXPECT_EQ(FormatReadablePeriod({at("2026-10-01T00:00:00Z"), at("2026-10-08T00:00:00Z")}),
            "Oct 1\u2013Oct 7, 2026");
  EXPECT_EQ(FormatReadablePeriod({at("2026-10-01T00:00:00Z"), at("2026-11-01T00:00:00Z")}),
            "Oct 1\u2013Oct 31, 2026");
  EXPECT_EQ(FormatReadablePeriod({at("2026-10-01T00:00:00Z"), at("2026-10-02T00:00:00Z")}),
            "Oct 1, 2026");
  EXPECT_EQ(FormatReadablePeriod({at("2026-12-28T00:00:00Z"), at("2027-01-04T00:00:00Z")}),
            "Dec 28, 2026\u2013Jan 3, 2027");
}

TEST(ReadablePeriod, PartsOfDaysShowTheirTimes) {
  const auto at = [](const char* t) { return *ParseInstant(t); };
  EXPECT_EQ(FormatReadablePeriod({at("2026-10-01T00:00:00Z"), at("2026-10-01T01:00:00Z")}),
            "Oct 1, 2026, 00:00\u201301:00 UTC");
  EXPECT_EQ(FormatReadablePeriod({at("2026-10-01T06:00:00Z"), at("2026-10-02T00:00:00Z")}),
            "Oct 1, 2026, 06:00\u201324:00 UTC");
  EXPECT_EQ(FormatReadablePeriod({at("2026-10-01T06:00:00Z"), at("2026-10-03T12:00:00Z")}),
            "Oct 1, 2026 06:00\u2013Oct 3, 2026 12:00 UTC");
}

}  // namespace
}  // namespace gpucost::chargeback
