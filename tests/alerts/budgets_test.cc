// Budgets: the YAML file (and its errors, which name the file, line and field), the calendar
// month, and the forecast arithmetic of docs/alerts.md.
#include "alerts/budgets.h"

#include <gtest/gtest.h>

#include <string>

#include "cli/cli_test_util.h"

namespace gpucost::alerts {
namespace {

using testing_util::Contains;

Instant At(const char* rfc3339) { return *ParseInstant(rfc3339); }

TEST(AlertsBudgetFile, TeamsAndDefault) {
  const Result<BudgetFile> f = ParseBudgets(
      "# monthly GPU budgets\nbudgets:\n  ml-research: 5000\n  search: 1200.50\ndefault: 1000\n"
      "currency: USD\n",
      "budgets.yaml");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->budgets_usd.size(), 2u);
  EXPECT_EQ(*f->For("ml-research"), 5000);
  EXPECT_EQ(*f->For("search"), 1200.5);
  EXPECT_EQ(*f->For("anyone"), 1000);
  const Result<BudgetFile> no_default = ParseBudgets("budgets: {a: 1}", "b.yaml");
  ASSERT_TRUE(no_default.ok());
  EXPECT_FALSE(no_default->For("b").has_value());
}

TEST(AlertsBudgetFile, ErrorsNameFileLineAndField) {
  struct Bad {
    std::string text;
    std::string says;
  };
  for (const Bad& bad : std::vector<Bad>{
           {"budgets:\n  ml: 100\n  search: lots\n", "b.yaml:3: budgets.search: not an amount"},
           {"budgets:\n  ml: -5\n", "b.yaml:2: budgets.ml: must be a finite amount >= 0"},
           {"budgets:\n  ml: .nan\n", "b.yaml:2: budgets.ml: must be a finite amount"},
           {"budgets:\n  ml: [1, 2]\n", "b.yaml:2: budgets.ml: expected an amount"},
           {"budgets:\n  ml: 1\ndefualt: 5\n", "b.yaml:3: unknown field \"defualt\""},
           {"budgets:\n  ml: 1\n  ml: 2\n",
            "b.yaml:3: budgets.ml: duplicate key, first given on line 2"},
           {"default: 100\nbudgets: {a: 1}\ndefault: 200\n",
            "b.yaml:3: default: duplicate key, first given on line 1"},
           {"budgets: [ml, 5]\n", "b.yaml:1: budgets: expected a map"},
           {"default: ten\n", "b.yaml:1: default: not an amount in USD: \"ten\""},
           {"currency: EUR\nbudgets: {a: 1}\n", "b.yaml:1: currency: only USD"},
           {"budgets:\n  ml: {\n", "b.yaml:"},
           {"- 1\n- 2\n", "b.yaml:1: expected a map"},
           {"currency: USD\n", "no \"budgets\" and no \"default\""},
       }) {
    const Result<BudgetFile> f = ParseBudgets(bad.text, "b.yaml");
    ASSERT_FALSE(f.ok()) << bad.text;
    EXPECT_TRUE(Contains(f.status().ToString(), bad.says)) << f.status().ToString();
  }
  const Result<BudgetFile> missing = LoadBudgets("/nonexistent/budgets.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(Contains(missing.status().ToString(), "--budgets"));
  EXPECT_TRUE(Contains(missing.status().ToString(), "/nonexistent/budgets.yaml"));
}

TEST(AlertsMonth, CalendarMonthsInUtc) {
  const Window oct = MonthOf(At("2026-10-17T13:45:00Z"));
  EXPECT_EQ(oct.start, At("2026-10-01T00:00:00Z"));
  EXPECT_EQ(oct.end, At("2026-11-01T00:00:00Z"));
  EXPECT_EQ(MonthName(oct.start), "2026-10");
  const Window dec = MonthOf(At("2026-12-31T23:59:59Z"));
  EXPECT_EQ(dec.end, At("2027-01-01T00:00:00Z"));
  EXPECT_EQ(MonthOf(At("2028-02-10T00:00:00Z")).end, At("2028-03-01T00:00:00Z"));  // leap year
  EXPECT_EQ(MonthOf(At("2026-11-01T00:00:00Z")).start, At("2026-11-01T00:00:00Z"));
}

TEST(AlertsForecast, MonthToDatePlusRunRateTimesRemainingDays) {
  ForecastInput in;
  in.month = MonthOf(At("2026-10-20T12:00:00Z"));
  in.as_of = At("2026-10-20T12:00:00Z");
  in.data_start = At("2026-09-25T00:00:00Z");
  in.month_to_date_usd = 1900;
  in.recent_usd = 700;
  in.lookback = std::chrono::hours(24 * 7);
  BudgetForecast f = Forecast(in);
  EXPECT_EQ(f.rate_window.start, At("2026-10-13T12:00:00Z"));
  EXPECT_DOUBLE_EQ(f.rate_days, 7);
  EXPECT_DOUBLE_EQ(f.run_rate_usd_per_day, 100);
  EXPECT_DOUBLE_EQ(f.remaining_days, 11.5);
  EXPECT_DOUBLE_EQ(f.forecast_usd, 1900 + 100 * 11.5);
  EXPECT_FALSE(f.partial_month);

  // Data from 2.5 days ago only: the run rate is over those 2.5 days.
  in.data_start = At("2026-10-18T00:00:00Z");
  in.recent_usd = 500;
  f = Forecast(in);
  EXPECT_DOUBLE_EQ(f.rate_days, 2.5);
  EXPECT_DOUBLE_EQ(f.run_rate_usd_per_day, 200);
  EXPECT_DOUBLE_EQ(f.forecast_usd, 1900 + 200 * 11.5);
  EXPECT_TRUE(f.partial_month);

  // At the month's end nothing is left to add.
  in.as_of = in.month.end;
  f = Forecast(in);
  EXPECT_DOUBLE_EQ(f.remaining_days, 0);
  EXPECT_DOUBLE_EQ(f.forecast_usd, 1900);

  // No data time at all: no run rate, so no forecast while days remain.
  in.as_of = in.data_start;
  f = Forecast(in);
  EXPECT_TRUE(std::isnan(f.run_rate_usd_per_day));
  EXPECT_TRUE(std::isnan(f.forecast_usd));
}

TEST(AlertsMoney, FormatUsd) {
  EXPECT_EQ(FormatUsd(3428.671), "$3,428.67");
  EXPECT_EQ(FormatUsd(1234567.5), "$1,234,567.50");
  EXPECT_EQ(FormatUsd(0.005), "$0.01");
  EXPECT_EQ(FormatUsd(-12), "-$12.00");
  EXPECT_EQ(FormatUsd(NAN), "unknown");
}

}  // namespace
}  // namespace gpucost::alerts
