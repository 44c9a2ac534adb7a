// CUR import on the fixtures of tests/billing/data (README.md there derives every expected
// amount): per instance-hour effective, billed and list cost to the cent, buckets, totals checked
// against sums of the raw columns, gzip, net mode, and errors that name file, line and column.
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "billing/cur.h"
#include "core/strings.h"

namespace gpucost::billing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string DataPath(std::string_view name) {
  return StrCat(GPUCOST_SOURCE_DIR, "/tests/billing/data/", name);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Bill MustLoad(const std::string& path, CurOptions options = {}) {
  auto r = LoadCur(path, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : Bill{};
}

Status ParseError(const std::string& text) {
  auto r = ParseCur(text, "bad.csv");
  return r.ok() ? Status::Ok() : r.status();
}

Instant At(std::string_view rfc3339) { return *ParseInstant(rfc3339); }
int64_t Cents(double usd) { return std::llround(usd * 100); }

const InstanceCharge* Find(const Bill& bill, std::string_view id, std::string_view start) {
  for (const InstanceCharge& c : bill.charges) {
    if (c.resource_id == id && c.start == At(start)) return &c;
  }
  return nullptr;
}

// An independent reading of the fixture: its own small CSV splitter and the amortized-cost
// formula written over the raw columns by name, to check the import's totals against.
std::vector<std::map<std::string, std::string>> RawRows(const std::string& text) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        records.back().back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        records.back().back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      records.back().emplace_back();
    } else if (c == '\n') {
      records.emplace_back(1);
    } else if (c != '\r') {
      records.back().back() += c;
    }
  }
  std::vector<std::map<std::string, std::string>> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != records[0].size()) continue;  // the empty record after the last \n
    auto& row = rows.emplace_back();
    for (size_t c = 0; c < records[0].size(); ++c) row[records[0][c]] = records[r][c];
  }
  return rows;
}

double Num(const std::map<std::string, std::string>& row, const std::string& col) {
  auto it = row.find(col);
  return it == row.end() || it->second.empty() ? 0.0 : std::stod(it->second);
}

struct RawTotals {
  double effective = 0, billed = 0;
  int split_rows = 0;
};

RawTotals RawSums(const std::string& text, bool legacy) {
  const auto n = [legacy](const char* l, const char* s) { return std::string(legacy ? l : s); };
  RawTotals t;
  for (const auto& row : RawRows(text)) {
    const std::string type = row.at(n("lineItem/LineItemType", "line_item_line_item_type"));
    const std::string op = row.at(n("lineItem/Operation", "line_item_operation"));
    if (op == "EKSPod-EC2" || op == "ECSTask-EC2") {
      ++t.split_rows;
      continue;
    }
    const double unblended = Num(row, n("lineItem/UnblendedCost", "line_item_unblended_cost"));
    t.billed += legacy ? unblended : Num(row, "line_item_net_unblended_cost");
    if (type == "SavingsPlanCoveredUsage") {
      t.effective += Num(row, n("savingsPlan/SavingsPlanEffectiveCost", "savings_plan_savings_plan_effective_cost"));
    } else if (type == "SavingsPlanRecurringFee") {
      t.effective += Num(row, n("savingsPlan/TotalCommitmentToDate", "savings_plan_total_commitment_to_date")) -
                     Num(row, n("savingsPlan/UsedCommitment", "savings_plan_used_commitment"));
    } else if (type == "DiscountedUsage") {
      t.effective += Num(row, n("reservation/EffectiveCost", "reservation_effective_cost"));
    } else if (type == "RIFee") {
      t.effective +=
          Num(row, n("reservation/UnusedAmortizedUpfrontFeeForBillingPeriod",
                     "reservation_unused_amortized_upfront_fee_for_billing_period")) +
          Num(row, n("reservation/UnusedRecurringFee", "reservation_unused_recurring_fee"));
    } else if (type == "SavingsPlanNegation" || type == "SavingsPlanUpfrontFee" ||
               (type == "Fee" && !row.at(n("reservation/ReservationARN", "reservation_reservation_a_r_n")).empty())) {
      // zero
    } else {
      t.effective += unblended;
    }
  }
  return t;
}

struct Expected {
  const char* id;
  const char* start;
  double hours, effective, billed, list;
  const char* option;
};

// Legacy fixture, 2026-10-01: see tests/billing/data/README.md.
constexpr Expected kLegacy[] = {
    {"i-0123456789abcdef0", "2026-10-01T00:00:00Z", 1, 13.17, 0, 21.957642, "Reserved"},
    {"i-0123456789abcdef0", "2026-10-01T01:00:00Z", 1, 13.17, 0, 21.957642, "Reserved"},
    {"i-0123456789abcdef0", "2026-10-01T02:00:00Z", 1, 13.17, 0, 21.957642, "Reserved"},
    {"i-05a5b5c5d5e5f5a5b", "2026-10-01T00:00:00Z", 1, 0.4023, 0.4023, 1.006, "Spot"},
    {"i-05a5b5c5d5e5f5a5b", "2026-10-01T01:00:00Z", 1, 0.4023, 0.4023, 1.006, "Spot"},
    {"i-05a5b5c5d5e5f5a5b", "2026-10-01T02:00:00Z", 1, 0.4118, 0.4118, 1.006, "Spot"},
    {"i-0a1b2c3d4e5f60718", "2026-10-01T00:00:00Z", 1, 55.04, 55.04, 55.04, "OnDemand"},
    {"i-0a1b2c3d4e5f60718", "2026-10-01T01:00:00Z", 1, 55.04, 55.04, 55.04, "OnDemand"},
    {"i-0a1b2c3d4e5f60718", "2026-10-01T02:00:00Z", 1, 55.04, 55.04, 55.04, "OnDemand"},
    {"i-0f9e8d7c6b5a40321", "2026-10-01T01:00:00Z", 0.5, 27.52, 27.52, 27.52, "OnDemand"},
    {"i-0f9e8d7c6b5a40321", "2026-10-01T02:00:00Z", 1, 55.04, 55.04, 55.04, "OnDemand"},
    {"i-0fedcba9876543210", "2026-10-01T00:00:00Z", 1, 3.97, 5.672, 5.672, "SavingsPlan"},
    {"i-0fedcba9876543210", "2026-10-01T01:00:00Z", 1, 3.97, 5.672, 5.672, "SavingsPlan"},
    {"i-0fedcba9876543210", "2026-10-01T02:00:00Z", 1, 3.97, 5.672, 5.672, "SavingsPlan"},
};

TEST(CurLegacyTest, OneChargePerInstanceHourWithEffectiveBilledAndList) {
  const Bill bill = MustLoad(DataPath("legacy_cur.csv"));
  EXPECT_EQ(bill.schema, "CUR legacy");
  ASSERT_EQ(bill.charges.size(), std::size(kLegacy));
  for (size_t i = 0; i < std::size(kLegacy); ++i) {
    const Expected& e = kLegacy[i];
    const InstanceCharge& c = bill.charges[i];  // sorted by (resource id, start)
    SCOPED_TRACE(StrCat(e.id, " ", e.start));
    EXPECT_EQ(c.resource_id, e.id);
    EXPECT_EQ(c.start, At(e.start));
    EXPECT_DOUBLE_EQ(c.usage_hours, e.hours);
    EXPECT_EQ(Cents(c.effective_usd), Cents(e.effective));
    EXPECT_EQ(Cents(c.billed_usd), Cents(e.billed));
    EXPECT_EQ(Cents(c.list_usd), Cents(e.list));
    EXPECT_EQ(c.purchase_option, e.option);
  }
}

TEST(CurLegacyTest, ChargeCarriesItsAttributesAndSourceLines) {
  const Bill bill = MustLoad(DataPath("legacy_cur.csv"));
  const InstanceCharge* p5 = Find(bill, "i-0f9e8d7c6b5a40321", "2026-10-01T01:00:00Z");
  ASSERT_NE(p5, nullptr);
  EXPECT_EQ(p5->end, At("2026-10-01T02:00:00Z"));
  EXPECT_EQ(p5->instance_type, "p5.48xlarge");
  EXPECT_EQ(p5->region, "us-east-1");
  EXPECT_EQ(p5->availability_zone, "us-east-1a");
  EXPECT_EQ(p5->usage_account_id, "111122223333");
  EXPECT_EQ(p5->payer_account_id, "111122223333");
  EXPECT_EQ(p5->payer_account_name, "");  // a legacy CUR has no account names
  EXPECT_EQ(p5->invoice_id, "1234567890");
  EXPECT_THAT(p5->source_lines, ElementsAre(DataPath("legacy_cur.csv") + ":32"));
  const InstanceCharge* g5 = Find(bill, "i-0fedcba9876543210", "2026-10-01T00:00:00Z");
  ASSERT_NE(g5, nullptr);
  EXPECT_EQ(g5->region, "us-east-2");
  EXPECT_EQ(g5->instance_type, "g5.12xlarge");
  // The negation row has no resource id in this file, so only the covered row is the charge's.
  EXPECT_THAT(g5->source_lines, ElementsAre(DataPath("legacy_cur.csv") + ":4"));
}

TEST(CurLegacyTest, BucketsAccountForEveryRow) {
  const BillDiagnostics d = MustLoad(DataPath("legacy_cur.csv")).diagnostics;
  EXPECT_EQ(d.rows_read, 37);
  EXPECT_EQ(d.rows_used, 14);
  EXPECT_EQ(d.instances.rows, 14);
  EXPECT_EQ(d.other_usage.rows, 7);      // 3 data transfer, 3 EBS, 1 EKS control plane
  EXPECT_EQ(d.commitment_fees.rows, 8);  // 3 negations, 3 SP fees, RIFee, RI upfront Fee
  EXPECT_EQ(d.adjustments.rows, 2);      // Tax, Credit
  EXPECT_EQ(d.split_cost_skipped.rows, 6);
  EXPECT_EQ(d.rows_read, d.instances.rows + d.other_usage.rows + d.commitment_fees.rows +
                             d.adjustments.rows + d.split_cost_skipped.rows);
  EXPECT_EQ(Cents(d.instances.effective_usd), Cents(300.3164));
  EXPECT_EQ(Cents(d.instances.billed_usd), Cents(265.9124));
  EXPECT_EQ(Cents(d.other_usage.effective_usd), Cents(1.3201612902));
  EXPECT_EQ(Cents(d.commitment_fees.effective_usd), Cents(39.60));  // unused RI + unused SP
  EXPECT_EQ(Cents(d.commitment_fees.billed_usd), Cents(125242.024));
  EXPECT_EQ(Cents(d.adjustments.effective_usd), Cents(-37.66));
  EXPECT_EQ(Cents(d.split_cost_skipped.effective_usd), Cents(16.3875));
  EXPECT_EQ(Cents(d.total_effective_usd()), Cents(303.5765612902));
  EXPECT_EQ(Cents(d.total_billed_usd()), Cents(125471.5965612902));
  EXPECT_TRUE(d.warnings.empty()) << d.warnings.front();
}

TEST(CurLegacyTest, TotalsEqualTheRawColumnSums) {
  const std::string path = DataPath("legacy_cur.csv");
  const BillDiagnostics d = MustLoad(path).diagnostics;
  const RawTotals raw = RawSums(ReadFile(path), /*legacy=*/true);
  EXPECT_EQ(raw.split_rows, d.split_cost_skipped.rows);
  EXPECT_EQ(Cents(d.total_effective_usd()), Cents(raw.effective));
  EXPECT_EQ(Cents(d.total_billed_usd()), Cents(raw.billed));
  double charges_effective = 0;
  for (const InstanceCharge& c : MustLoad(path).charges) charges_effective += c.effective_usd;
  EXPECT_EQ(Cents(charges_effective + d.commitment_fees.effective_usd + d.other_usage.effective_usd +
                  d.adjustments.effective_usd),
            Cents(raw.effective));
}

TEST(CurLegacyTest, NetAskedForButAbsentWarnsAndUsesGross) {
  const Bill bill = MustLoad(DataPath("legacy_cur.csv"), CurOptions{.net = true});
  EXPECT_EQ(Cents(bill.diagnostics.total_effective_usd()), Cents(303.5765612902));
  ASSERT_FALSE(bill.diagnostics.warnings.empty());
  EXPECT_THAT(bill.diagnostics.warnings.front(), HasSubstr("lineItem/NetUnblendedCost"));
}

TEST(Cur2Test, SnakeCaseColumnsNegationTiedToInstanceAndNetBilled) {
  const Bill bill = MustLoad(DataPath("cur2.csv"));
  EXPECT_EQ(bill.schema, "CUR 2.0");
  ASSERT_EQ(bill.charges.size(), 14u);
  const InstanceCharge* g5 = Find(bill, "i-0fedcba9876543210", "2026-11-01T01:00:00Z");
  ASSERT_NE(g5, nullptr);
  EXPECT_EQ(g5->source_lines.size(), 2u);  // covered usage + its negation
  EXPECT_EQ(Cents(g5->effective_usd), Cents(3.97));
  EXPECT_EQ(Cents(g5->billed_usd), 0);  // on-demand charge and negation cancel
  EXPECT_EQ(Cents(g5->list_usd), Cents(5.672));
  EXPECT_DOUBLE_EQ(g5->usage_hours, 1.0);  // the negation's amount is not counted again
  EXPECT_EQ(g5->region, "us-east-2");      // product_region_code
  const InstanceCharge* p5 = Find(bill, "i-0a1b2c3d4e5f60718", "2026-11-01T02:00:00Z");
  ASSERT_NE(p5, nullptr);
  EXPECT_EQ(Cents(p5->effective_usd), Cents(55.04));  // gross effective by default
  EXPECT_EQ(Cents(p5->billed_usd), Cents(52.288));    // billed: net unblended (5 % EDP)
  EXPECT_EQ(p5->end, At("2026-11-01T03:00:00Z"));     // ".000Z" times
  const BillDiagnostics& d = bill.diagnostics;
  EXPECT_EQ(d.rows_read, 38);
  EXPECT_EQ(d.instances.rows, 17);
  EXPECT_EQ(d.commitment_fees.rows, 5);
  EXPECT_EQ(d.adjustments.rows, 3);  // Tax, Credit, EdpDiscount
  EXPECT_EQ(Cents(d.total_effective_usd()), Cents(303.5765612902 - 8.75));
  const RawTotals raw = RawSums(ReadFile(DataPath("cur2.csv")), /*legacy=*/false);
  EXPECT_EQ(Cents(d.total_effective_usd()), Cents(raw.effective));
  EXPECT_EQ(Cents(d.total_billed_usd()), Cents(raw.billed));
  EXPECT_TRUE(d.warnings.empty()) << d.warnings.front();
}

TEST(Cur2Test, NetModeUsesNetColumns) {
  const Bill bill = MustLoad(DataPath("cur2.csv"), CurOptions{.net = true});
  const InstanceCharge* p4d = Find(bill, "i-0123456789abcdef0", "2026-11-01T00:00:00Z");
  ASSERT_NE(p4d, nullptr);
  EXPECT_EQ(Cents(p4d->effective_usd), Cents(13.17 * 0.95));  // reservation_net_effective_cost
  const InstanceCharge* g5 = Find(bill, "i-0fedcba9876543210", "2026-11-01T00:00:00Z");
  ASSERT_NE(g5, nullptr);
  EXPECT_EQ(Cents(g5->effective_usd), Cents(3.97 * 0.95));
  const BillDiagnostics& d = bill.diagnostics;
  // Every amount in the file is 95 % of gross in the net columns and the EDP row nets to 0.
  EXPECT_EQ(Cents(d.total_effective_usd()), Cents(303.5765612902 * 0.95));
  EXPECT_TRUE(d.warnings.empty()) << d.warnings.front();
}

TEST(Cur2Test, GzipWithBomAndCrlfReadsLikeThePlainFile) {
  const Bill plain = MustLoad(DataPath("cur2.csv"));
  const Bill gz = MustLoad(DataPath("cur2.csv.gz"));
  ASSERT_EQ(gz.charges.size(), plain.charges.size());
  for (size_t i = 0; i < gz.charges.size(); ++i) {
    EXPECT_EQ(gz.charges[i].resource_id, plain.charges[i].resource_id);
    EXPECT_EQ(gz.charges[i].start, plain.charges[i].start);
    EXPECT_EQ(gz.charges[i].effective_usd, plain.charges[i].effective_usd);
    EXPECT_EQ(gz.charges[i].billed_usd, plain.charges[i].billed_usd);
  }
  EXPECT_EQ(gz.diagnostics.total_effective_usd(), plain.diagnostics.total_effective_usd());
  EXPECT_EQ(gz.diagnostics.rows_read, plain.diagnostics.rows_read);
}

TEST(CurFileTest, GzipIsDetectedByContentNotName) {
  const std::string dir = ::testing::TempDir();
  const std::string named_csv = dir + "/bill_gz_named.csv";
  std::filesystem::copy_file(DataPath("cur2.csv.gz"), named_csv,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string named_gz = dir + "/bill_plain_named.csv.gz";
  std::filesystem::copy_file(DataPath("legacy_cur.csv"), named_gz,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(MustLoad(named_csv).charges.size(), 14u);
  EXPECT_EQ(MustLoad(named_gz).charges.size(), 14u);
}

TEST(CurFileTest, TruncatedGzipAndMissingFileAreErrors) {
  const std::string gz = ReadFile(DataPath("cur2.csv.gz"));
  const std::string cut = ::testing::TempDir() + "/cut.csv.gz";
  std::ofstream(cut, std::ios::binary) << gz.substr(0, gz.size() / 2);
  auto r = LoadCur(cut);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("cut.csv.gz"));
  auto missing = LoadCur(::testing::TempDir() + "/no-such-bill.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("no-such-bill.csv: cannot open"));
}

const char kHeader[] =
    "lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/ResourceId,"
    "lineItem/UsageType,lineItem/UsageAmount,lineItem/UnblendedCost\n";

TEST(CurErrorTest, BadNumberNamesFileLineAndColumn) {
  const Status s = ParseError(StrCat(kHeader,
                                     "Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,i-1,BoxUsage:p5.48xlarge,1,55.04\n"
                                     "Usage,2026-10-01T01:00:00Z,2026-10-01T02:00:00Z,i-1,BoxUsage:p5.48xlarge,1,55.O4\n"));
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("bad.csv:3: column lineItem/UnblendedCost: bad number \"55.O4\""));
}

TEST(CurErrorTest, EmptyCostCellsReadAsZero) {
  auto r = ParseCur(StrCat(kHeader, "Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,i-1,BoxUsage:p5.48xlarge,,\n"),
                    "t.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->charges.size(), 1u);
  EXPECT_EQ(r->charges[0].effective_usd, 0.0);
  EXPECT_TRUE(std::isnan(r->charges[0].list_usd));  // no pricing/publicOnDemandCost column
}

TEST(CurErrorTest, BadTimeAndReversedPeriodAreNamed) {
  Status s = ParseError(StrCat(kHeader, "Usage,2026-13-01T00:00:00Z,2026-10-01T01:00:00Z,i-1,BoxUsage:p5.48xlarge,1,1\n"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("bad.csv:2: column lineItem/UsageStartDate: bad time"));
  s = ParseError(StrCat(kHeader, "Usage,2026-10-01T02:00:00Z,2026-10-01T01:00:00Z,i-1,BoxUsage:p5.48xlarge,1,1\n"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("bad.csv:2: column lineItem/UsageEndDate: usage period ends"));
}

TEST(CurErrorTest, ZonelessTimesAreUtc) {
  auto r = ParseCur(StrCat(kHeader, "Usage,2026-10-01 00:00:00,2026-10-01 01:00:00,i-1,BoxUsage:p5.48xlarge,1,2\n"),
                    "t.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->charges.size(), 1u);
  EXPECT_EQ(r->charges[0].start, At("2026-10-01T00:00:00Z"));
}

TEST(CurErrorTest, WrongFieldCountMissingColumnAndNotACur) {
  Status s = ParseError(StrCat(kHeader, "Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,i-1,1,2\n"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("bad.csv:2: 6 fields, but the header has 7"));
  s = ParseError("lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/UsageType,"
                 "lineItem/UsageAmount,lineItem/UnblendedCost\n");
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("bad.csv:1: missing column lineItem/ResourceId (the report must be created with "
                        "resource IDs included)"));
  s = ParseError("name,value\na,1\n");
  EXPECT_THAT(std::string(s.message()), HasSubstr("bad.csv:1: not a Cost and Usage Report"));
  s = ParseError("");
  EXPECT_THAT(std::string(s.message()), HasSubstr("bad.csv: empty file"));
}

TEST(CurRulesTest, OnlyInstanceHourUsageTypesOnInstanceIdsBecomeCharges) {
  auto r = ParseCur(StrCat(kHeader,
                           "Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,i-1,USW2-DedicatedUsage:p4d.24xlarge,1,30\n"
                           "Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,i-1,USW2-EBSOptimized:p4d.24xlarge,1,0.5\n"
                           "Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,i-1,USW2-DataTransfer-Out-Bytes,3,0.27\n"
                           "Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,cr-1,USW2-UnusedBox:p5.48xlarge,1,55\n"
                           "Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,,USW2-BoxUsage:p5.48xlarge,1,55\n"),
                    "t.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->charges.size(), 1u);
  EXPECT_EQ(r->charges[0].instance_type, "p4d.24xlarge");  // from the usage type
  EXPECT_EQ(r->charges[0].effective_usd, 30.0);
  EXPECT_EQ(r->diagnostics.other_usage.rows, 4);
  EXPECT_NEAR(r->diagnostics.other_usage.effective_usd, 110.77, 1e-9);
}

// CUR 2.0 names the payer and usage accounts (bill_payer_account_name,
// line_item_usage_account_name) beside their ids; the FOCUS export names them.
TEST(Cur2Test, AccountIdsAndNamesAreRead) {
  auto r = ParseCur(
      "line_item_line_item_type,line_item_usage_start_date,line_item_usage_end_date,"
      "line_item_resource_id,line_item_usage_type,line_item_usage_amount,line_item_unblended_cost,"
      "bill_payer_account_id,bill_payer_account_name,line_item_usage_account_id,"
      "line_item_usage_account_name\n"
      "Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,i-1,BoxUsage:p5.48xlarge,1,55.04,"
      "111122223333,Acme Payer,444455556666,ml-research\n",
      "t.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->charges.size(), 1u);
  const InstanceCharge& c = r->charges[0];
  EXPECT_EQ(c.payer_account_id, "111122223333");
  EXPECT_EQ(c.payer_account_name, "Acme Payer");
  EXPECT_EQ(c.usage_account_id, "444455556666");
  EXPECT_EQ(c.usage_account_name, "ml-research");
  EXPECT_EQ(r->schema, "CUR 2.0");
}

TEST(CurRulesTest, RowsOfOnePeriodFoldIntoOneChargeInAnyOrder) {
  auto r = ParseCur(StrCat(kHeader,
                           "Usage,2026-10-01T01:00:00Z,2026-10-01T02:00:00Z,i-2,BoxUsage:g5.xlarge,0.25,0.25\n"
                           "Usage,2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,i-2,BoxUsage:g5.xlarge,1,1\n"
                           "DiscountedUsage,2026-10-01T01:00:00Z,2026-10-01T02:00:00Z,i-2,BoxUsage:g5.xlarge,0.75,0\n"),
                    "t.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->charges.size(), 2u);
  EXPECT_EQ(r->charges[0].start, At("2026-10-01T00:00:00Z"));
  EXPECT_EQ(r->charges[1].usage_hours, 1.0);
  EXPECT_EQ(r->charges[1].purchase_option, "Reserved");  // the option with the most hours
  EXPECT_THAT(r->charges[1].source_lines, ElementsAre("t.csv:2", "t.csv:4"));
}

}  // namespace
}  // namespace gpucost::billing
