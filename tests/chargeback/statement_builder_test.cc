#include "chargeback/statement_builder.h"

#include <gtest/gtest.h>

#include <cmath>

#include "chargeback/rounding.h"
#include "chargeback_test_util.h"
#include "core/money.h"

namespace gpucost::chargeback {
namespace {

constexpr const char* kA100 = "NVIDIA A100-SXM4-80GB";
constexpr const char* kT4 = "Tesla T4";

Statement Only(const StatementBuilder& b, const std::string& team) {
  auto set = b.Finish({team});
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  return set.ok() && !set->statements.empty() ? set->statements[0] : Statement{};
}

TEST(StatementBuilder, LinesGroupByModelCapacityAndRate) {
  StatementBuilder b(October(), {});
  b.Add(Labels("ml", "train", kA100, "spot"), Amounts(Day(1), 10, 1.17, 0.9));
  b.Add(Labels("ml", "train", kA100, "spot"), Amounts(Day(2), 5, 1.17, 0.9));
  b.Add(Labels("ml", "eval", kA100, "spot"), Amounts(Day(3), 2, 1.30, 0.9));  // another rate
  b.Add(Labels("ml", "eval", kA100, "on_demand"), Amounts(Day(3), 4, 3.06, 0.9));
  b.Add(Labels("ml", "serve", kT4, "spot"), Amounts(Day(4), 6, 0.35, 0.9));
  b.Add(Labels("other", "x", kT4, "spot"), Amounts(Day(4), 100, 0.35, 0.9));
  const Statement s = Only(b, "ml");
  ASSERT_EQ(s.lines.size(), 4u);
  EXPECT_EQ(s.lines[0].capacity_type, "on_demand");
  EXPECT_DOUBLE_EQ(s.lines[0].rate_usd_per_gpu_hour, 3.06);
  EXPECT_EQ(s.lines[1].capacity_type, "spot");
  EXPECT_DOUBLE_EQ(s.lines[1].rate_usd_per_gpu_hour, 1.17);
  EXPECT_DOUBLE_EQ(s.lines[1].totals.gpu_hours, 15);
  EXPECT_DOUBLE_EQ(s.lines[2].rate_usd_per_gpu_hour, 1.30);
  EXPECT_EQ(s.lines[3].gpu_model, kT4);
  EXPECT_DOUBLE_EQ(s.totals.gpu_hours, 27);  // the other team's hours stay out
  EXPECT_NEAR(s.totals.allocated_usd, 15 * 1.17 + 2 * 1.30 + 4 * 3.06 + 6 * 0.35, 1e-12);
}

TEST(StatementBuilder, IdleHoursAreMeasuredHoursUnderTheThreshold) {
  StatementBuilder b(October(), {});                                        // 5 %
  b.Add(Labels("ml", "nb", kA100, "spot"), Amounts(Day(1), 3, 2.0, 0.04));  // idle
  b.Add(Labels("ml", "nb", kA100, "spot"), Amounts(Day(1), 4, 2.0, 0.05));  // not under 5 %
  b.Add(Labels("ml", "nb", kA100, "spot"), Amounts(Day(1), 5, 2.0, NAN));   // unmeasured
  const Statement s = Only(b, "ml");
  EXPECT_DOUBLE_EQ(s.totals.idle_gpu_hours, 3);
  EXPECT_DOUBLE_EQ(s.totals.idle_usd, 6);
  EXPECT_DOUBLE_EQ(s.totals.idle_ratio(), 3.0 / 12);
  EXPECT_DOUBLE_EQ(s.totals.unmeasured_gpu_hours(), 5);
  // Efficiency counts the unmeasured money in the denominator: a lower bound.
  EXPECT_NEAR(s.totals.efficiency(), (3 * 2 * 0.04 + 4 * 2 * 0.05) / 24, 1e-12);
  EXPECT_NEAR(s.totals.waste_usd(), 14 - (3 * 2 * 0.04 + 4 * 2 * 0.05), 1e-12);

  ChargebackSettings higher;
  higher.idle_threshold = 0.10;
  StatementBuilder b2(October(), higher);
  b2.Add(Labels("ml", "nb", kA100, "spot"), Amounts(Day(1), 3, 2.0, 0.04));
  b2.Add(Labels("ml", "nb", kA100, "spot"), Amounts(Day(1), 4, 2.0, 0.05));
  EXPECT_DOUBLE_EQ(Only(b2, "ml").totals.idle_gpu_hours, 7);
}

// Hours on capacity of unknown type are in neither part of the ratio, as the alert rules count
// them; with no other hour the ratio is unknown, not 0.
TEST(StatementBuilder, SpotRatioIsSpotHoursOverHoursOfAKnownCapacityType) {
  StatementBuilder b(October(), {});
  b.Add(Labels("ml", "a", kA100, "spot"), Amounts(Day(1), 30, 1.0, 1));
  b.Add(Labels("ml", "b", kA100, "on_demand"), Amounts(Day(1), 10, 3.0, 1));
  b.Add(Labels("ml", "c", kT4, ""), Amounts(Day(1), 10, NAN, 1));  // unknown capacity
  b.Add(Labels("web", "d", kT4, ""), Amounts(Day(1), 5, 1.0, 1));
  const Statement s = Only(b, "ml");
  EXPECT_DOUBLE_EQ(s.totals.spot_gpu_hours, 30);
  EXPECT_DOUBLE_EQ(s.totals.typed_gpu_hours, 40);
  EXPECT_DOUBLE_EQ(s.totals.spot_ratio(), 0.75);
  EXPECT_TRUE(std::isnan(Only(b, "web").totals.spot_ratio()));
}

TEST(StatementBuilder, UnknownPricesKeepHoursAndNoMoney) {
  StatementBuilder b(October(), {});
  b.Add(Labels("ml", "a", kA100, "on_demand"), Amounts(Day(1), 10, 3.0, 0.5));
  b.Add(Labels("ml", "b", "NVIDIA H100 80GB HBM3", "on_demand"), Amounts(Day(1), 4, NAN, 0.5));
  const Statement s = Only(b, "ml");
  ASSERT_EQ(s.lines.size(), 2u);
  EXPECT_FALSE(s.lines[1].priced());
  EXPECT_DOUBLE_EQ(s.lines[1].totals.unpriced_gpu_hours, 4);
  EXPECT_FALSE(s.totals.prices_known());
  EXPECT_DOUBLE_EQ(s.totals.allocated_usd, 30);  // the priced part only
  const RoundedStatement r = RoundStatement(s);
  EXPECT_EQ(r.total_cents, 3000);
  EXPECT_FALSE(r.line_cents[1].has_value());
  ASSERT_EQ(r.workload_cents.size(), 2u);
  EXPECT_FALSE(r.workload_cents[1].has_value());  // workload b has no price at all
}

TEST(StatementBuilder, WorkloadsRankByMoneyThenHours) {
  StatementBuilder b(October(), {});
  b.Add(Labels("ml", "cheap-big", kT4, "spot"), Amounts(Day(1), 100, 0.35, 1));
  b.Add(Labels("ml", "dear-small", kA100, "on_demand"), Amounts(Day(1), 20, 3.06, 1));
  b.Add(Labels("ml", "unpriced", "H200", "on_demand"), Amounts(Day(1), 500, NAN, 1));
  const Statement s = Only(b, "ml");
  ASSERT_EQ(s.workloads.size(), 3u);
  EXPECT_EQ(s.workloads[0].workload, "dear-small");
  EXPECT_EQ(s.workloads[1].workload, "cheap-big");
  EXPECT_EQ(s.workloads[2].workload, "unpriced");
}

TEST(StatementBuilder, DaysSplitTheMonth) {
  StatementBuilder b(October(), {});
  b.Add(Labels("ml", "a", kA100, "spot"), Amounts(Day(1, 23), 1, 1.0, 1));
  b.Add(Labels("ml", "a", kA100, "spot"), Amounts(Day(2, 0), 2, 1.0, 0));
  b.Add(Labels("ml", "a", kA100, "spot"), Amounts(Day(31, 5), 4, 1.0, 1));
  const Statement s = Only(b, "ml");
  ASSERT_EQ(s.days.size(), 31u);
  EXPECT_DOUBLE_EQ(s.days[0].totals.allocated_usd, 1);
  EXPECT_DOUBLE_EQ(s.days[1].totals.waste_usd(), 2);
  EXPECT_DOUBLE_EQ(s.days[30].totals.gpu_hours, 4);
  EXPECT_EQ(FormatRfc3339(s.days[30].start), "2026-10-31T00:00:00Z");
}

TEST(StatementBuilder, UnknownTeamIsAnErrorNamingTheTeams) {
  StatementBuilder b(October(), {});
  b.Add(Labels("ml", "a", kA100, "spot"), Amounts(Day(1), 1, 1.0, 1));
  b.Add(Labels("search", "a", kA100, "spot"), Amounts(Day(1), 1, 1.0, 1));
  auto set = b.Finish({"nope"});
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().ToString().find("\"nope\""), std::string::npos);
  EXPECT_NE(set.status().ToString().find("ml, search"), std::string::npos);
  auto all = b.Finish({});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->statements.size(), 2u);
  EXPECT_EQ(all->statements[1].team, "search");
}

TEST(Rounding, EachFigureIsRoundedOnItsOwnAndTheDifferenceIsARoundingLine) {
  // Three lines of a third of a dollar: each prints $0.33, as it would anywhere else; the total
  // is $1.00, and the cent between them is a rounding line, not a line's extra cent.
  StatementBuilder b(October(), {});
  b.Add(Labels("ml", "a", "GPU-A", "spot"), Amounts(Day(1), 1, 1.0 / 3, 1));
  b.Add(Labels("ml", "b", "GPU-B", "spot"), Amounts(Day(1), 1, 1.0 / 3, 1));
  b.Add(Labels("ml", "c", "GPU-C", "spot"), Amounts(Day(1), 1, 1.0 / 3, 1));
  const RoundedStatement r = RoundStatement(Only(b, "ml"));
  EXPECT_EQ(r.total_cents, 100);
  ASSERT_EQ(r.line_cents.size(), 3u);
  EXPECT_EQ(*r.line_cents[0], 33);
  EXPECT_EQ(*r.line_cents[1], 33);
  EXPECT_EQ(*r.line_cents[2], 33);
  EXPECT_EQ(r.rounding_cents, 1);
  ASSERT_EQ(r.workload_cents.size(), 3u);
  EXPECT_EQ(r.workload_cents[0].value(), 33);
}

TEST(Rounding, HalfACentRoundsAwayFromZeroWhateverTheSumsLastBits) {
  EXPECT_EQ(RoundUnits(4.305, 2), 431);  // 4.30499999999999971578 as a double
  EXPECT_EQ(RoundUnits(-4.305, 2), -431);
  EXPECT_EQ(RoundUnits(0.1 + 0.2, 2), 30);
  EXPECT_EQ(RoundUnits(4.3049, 2), 430);
  EXPECT_EQ(RoundUnits(2846.9, 0), 2847);
  // The same money summed in two orders differs in its last bits and still rounds alike.
  const double a = (0.105 + 1e8) - 1e8;
  const double b = 0.105;
  EXPECT_NE(a, b);
  EXPECT_EQ(RoundUnits(a, 2), RoundUnits(b, 2));
}

TEST(Rounding, LineHoursPrintWithTheDecimalsThatMultiplyOutToTheAmount) {
  // 814.7119 hours at $3.430875 cost $2,795.17; 815 hrs x $3.430875 would say $2,796.16.
  const double rate = 3.430875;
  const double hours = 814.7119;
  const int64_t cents = RoundUnits(hours * rate, 2);
  const int d = LineHoursDecimals(hours, rate, cents, 0);
  const double printed = static_cast<double>(RoundUnits(hours, d)) / std::pow(10.0, d);
  EXPECT_EQ(RoundUnits(printed * rate, 2), cents) << d;
  // Where two decimals are a cent off, more are printed.
  const double h2 = 100.004;  // 100.00 x 7.5 = 750.00, the money 750.03
  EXPECT_EQ(LineHoursDecimals(h2, 7.5, RoundUnits(h2 * 7.5, 2), 0), 3);
  // Whole hours where they multiply out (312 hrs x $3.06 = $954.72), and never fewer decimals
  // than the statement's.
  EXPECT_EQ(LineHoursDecimals(312, 3.06, 95472, 0), 0);
  EXPECT_EQ(LineHoursDecimals(312, 3.06, 95472, 1), 1);
  EXPECT_EQ(HoursDecimals(2847), 0);
  EXPECT_EQ(HoursDecimals(99.99999999999999), 0);
  EXPECT_EQ(HoursDecimals(12.5), 1);
  EXPECT_EQ(HoursDecimals(0.17), 2);
}

}  // namespace
}  // namespace gpucost::chargeback
