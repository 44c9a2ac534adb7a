#include "report/aggregator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/strings.h"
#include "report/report_test_util.h"

namespace gpucost {
namespace {

using report_test::Aggregate;
using report_test::FindRow;
using report_test::FourNodes;
using report_test::Held;
using report_test::Idle;
using report_test::Options;
using report_test::Unpriced;

TEST(Dimensions, ParseNamesAndErrors) {
  auto dims = ParseDimensions("namespace, label:team ,gpu_model");
  ASSERT_TRUE(dims.ok()) << dims.status().ToString();
  ASSERT_EQ(dims->size(), 3u);
  EXPECT_EQ((*dims)[0].kind, DimensionKind::kNamespace);
  EXPECT_EQ((*dims)[1].Name(), "label:team");
  EXPECT_EQ((*dims)[2].Name(), "gpu_model");
  EXPECT_FALSE(ParseDimensions("").ok());
  EXPECT_FALSE(ParseDimensions("namespace,namespace").ok());
  EXPECT_FALSE(ParseDimensions("label:").ok());
  auto bad = ParseDimensions("namespace,controller");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("\"controller\""), std::string::npos);
}

TEST(Aggregator, GroupsBySeveralDimensionsAndLabel) {
  const Inventory inv = FourNodes();
  // Holder 0 on two nodes (n1, n2), holder 2 on n1, holder 1 (no app label) on n2.
  const std::vector<CostRecord> records = {
      Held(0, 0, 0, 0.5, 2.0, 0.5), Held(1, 1, 0, 0.25, 0.5, 1.0), Held(0, 0, 2, 0.5, 2.0, 0.1),
      Held(0, 1, 1, 0.25, 0.5, 0.0)};
  const Report report = Aggregate(inv, Options("namespace,label:app"), records);
  ASSERT_EQ(report.rows.size(), 3u);
  const ReportRow* web = FindRow(report, {"a", "web"});
  ASSERT_NE(web, nullptr);
  EXPECT_DOUBLE_EQ(web->gpu_hours, 0.75);
  EXPECT_DOUBLE_EQ(web->allocated_usd, 2.5);
  EXPECT_DOUBLE_EQ(web->effective_usd, 1.5);
  EXPECT_DOUBLE_EQ(web->waste_usd, 1.0);
  EXPECT_DOUBLE_EQ(web->utilization, 0.6);
  EXPECT_DOUBLE_EQ(web->efficiency, 0.6);
  EXPECT_DOUBLE_EQ(web->activity_gpu_hours, 0.5);
  const ReportRow* unlabelled = FindRow(report, {"b", std::string(kUnallocatedValue)});
  ASSERT_NE(unlabelled, nullptr);
  EXPECT_DOUBLE_EQ(unlabelled->effective_usd, 0.0);  // measured and unused: zero, not null
  EXPECT_DOUBLE_EQ(unlabelled->utilization, 0.0);
  // Sorted by allocated descending.
  EXPECT_EQ(report.rows[0].values, (std::vector<std::string>{"a", "web"}));
  EXPECT_EQ(report.rows[1].values, (std::vector<std::string>{"a", "db"}));

  // Node-level dimensions and node labels (holders lack "pool").
  const Report by_node = Aggregate(inv, Options("gpu_model,capacity_type,label:pool"), records);
  const ReportRow* t4 = FindRow(by_node, {"Tesla T4", "spot", "gpu-a"});
  ASSERT_NE(t4, nullptr);
  EXPECT_DOUBLE_EQ(t4->allocated_usd, 1.0);
  EXPECT_NE(FindRow(by_node, {"NVIDIA A100-SXM4-40GB", "on_demand", "gpu-a"}), nullptr);

  // AWS recipe: 3, 2 and 2 1g.5gb slices of one A100 at $12/GPU-hour over an hour.
  Inventory poc = FourNodes();
  const std::vector<CostRecord> slices = {Held(0, 0, 0, 3.0 / 7, 12.0 * 3 / 7, 1),
                                          Held(0, 0, 1, 2.0 / 7, 12.0 * 2 / 7, 1),
                                          Held(0, 0, 3, 2.0 / 7, 12.0 * 2 / 7, 1)};
  const Report teams = Aggregate(poc, Options("team"), slices);
  EXPECT_NEAR(FindRow(teams, {"x"})->allocated_usd, 5.142857, 5e-7);
  EXPECT_NEAR(FindRow(teams, {"y"})->allocated_usd, 3.428571, 5e-7);
  EXPECT_NEAR(FindRow(teams, {"z"})->allocated_usd, 3.428571, 5e-7);
}

TEST(Aggregator, BucketsFollowTheOutputStepUnlessAccumulated) {
  const Inventory inv = FourNodes();
  std::vector<CostRecord> records;
  for (int64_t step = 0; step < 60; ++step)
    records.push_back(Held(step, 0, 0, 1.0 / 60, 0.05, 0.5));
  AggregatorOptions o = Options("namespace", /*accumulate=*/false);
  o.output_step = std::chrono::minutes(25);  // 25, 25, then a partial 10-minute bucket
  const Report report = Aggregate(inv, o, records);
  ASSERT_EQ(report.rows.size(), 3u);
  EXPECT_FALSE(report.accumulated);
  EXPECT_EQ(report.step, std::chrono::minutes(25));
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(report.rows[b].bucket, b);
    EXPECT_EQ(report.rows[b].start, report_test::kT0 + std::chrono::minutes(25 * b));
  }
  EXPECT_EQ(report.rows[2].end, report_test::kHour.end);  // clipped to the window
  EXPECT_NEAR(report.rows[0].allocated_usd, 1.25, 1e-12);
  EXPECT_NEAR(report.rows[2].allocated_usd, 0.5, 1e-12);
  EXPECT_NEAR(report.totals.allocated_usd, 3.0, 1e-12);

  const Report whole = Aggregate(inv, Options("namespace"), records);
  ASSERT_EQ(whole.rows.size(), 1u);
  EXPECT_TRUE(whole.accumulated);
  EXPECT_EQ(whole.rows[0].start, report_test::kHour.start);
  EXPECT_EQ(whole.rows[0].end, report_test::kHour.end);
  EXPECT_NEAR(whole.rows[0].allocated_usd, 3.0, 1e-12);
  EXPECT_NEAR(whole.rows[0].gpu_hours, 1.0, 1e-12);

  // Default output step = engine step: one bucket per record.
  EXPECT_EQ(Aggregate(inv, Options("namespace", false), records).rows.size(), 60u);
}

TEST(Aggregator, RejectsBadOptions) {
  const Inventory inv = FourNodes();
  AggregatorOptions o = Options("namespace", false);
  o.output_step = std::chrono::seconds(90);
  auto agg = Aggregator::Create(inv, o);
  ASSERT_FALSE(agg.ok());
  EXPECT_NE(agg.status().message().find("not a whole multiple"), std::string::npos);
  o.output_step = Duration(0);
  o.by.clear();
  EXPECT_FALSE(Aggregator::Create(inv, o).ok());
}

TEST(Aggregator, IdleIsItsOwnRowByDefault) {
  const Inventory inv = FourNodes();
  const std::vector<CostRecord> records = {Held(0, 0, 0, 0.5, 2.0, 0.5), Idle(0, 0, 0.5, 2.0),
                                           Idle(0, 2, 1.0, 4.0)};
  const Report report = Aggregate(inv, Options("namespace,team"), records);
  ASSERT_EQ(report.rows.size(), 2u);
  const ReportRow& idle = report.rows.back();  // __idle__ sorts last despite its larger cost
  EXPECT_TRUE(idle.is_idle);
  EXPECT_EQ(idle.values, (std::vector<std::string>{"__idle__", "__idle__"}));
  EXPECT_DOUBLE_EQ(idle.gpu_hours, 1.5);
  EXPECT_DOUBLE_EQ(idle.allocated_usd, 0.0);
  EXPECT_DOUBLE_EQ(idle.idle_usd, 6.0);
  EXPECT_DOUBLE_EQ(idle.waste_usd, 6.0);
  EXPECT_TRUE(std::isnan(idle.effective_usd));
  EXPECT_TRUE(std::isnan(idle.utilization));
  EXPECT_DOUBLE_EQ(report.rows[0].idle_usd, 0.0);
  EXPECT_DOUBLE_EQ(report.totals.cost_usd, 8.0);
  EXPECT_DOUBLE_EQ(report.totals.allocated_usd + report.totals.idle_usd, 8.0);
  EXPECT_DOUBLE_EQ(report.totals.waste_usd, 7.0);  // 1 unused by web-0 + 6 nobody held
}

// n1: web-0 $3, api-0 $1, idle $4.  n2: db-0 $2, idle $1.  n3 (prod): no holder, idle $5.
// n4 (dev): train-0 $1, idle $2.  Grouped by pod.
std::vector<CostRecord> SharingCase() {
  return {Held(0, 0, 0, 0.3, 3.0, 0.5),  Held(0, 0, 1, 0.1, 1.0, 0.5), Idle(0, 0, 0.4, 4.0),
          Held(0, 1, 2, 0.5, 2.0, 0.5),  Idle(0, 1, 0.25, 1.0),        Idle(0, 2, 1.0, 5.0),
          Held(0, 3, 3, 0.25, 1.0, 0.5), Idle(0, 3, 0.5, 2.0)};
}

struct SharingExpectation {
  IdlePolicy policy;
  IdleScope scope;
  double web, api, db, train;  // allocated after sharing
  double idle_left;            // on the __idle__ row; 0: no such row
};

class IdleSharing : public ::testing::TestWithParam<SharingExpectation> {};

TEST_P(IdleSharing, SharesIdleAndConservesCost) {
  const SharingExpectation& e = GetParam();
  const Inventory inv = FourNodes();
  AggregatorOptions o = Options("pod");
  o.idle = {e.policy, e.scope};
  const std::vector<CostRecord> records = SharingCase();
  auto agg = Aggregator::Create(inv, o);
  ASSERT_TRUE(agg.ok());
  agg->Consume(records);
  const Report report = agg->Finish();

  const double own[] = {3, 1, 2, 1};
  const double expect[] = {e.web, e.api, e.db, e.train};
  const char* pods[] = {"web-0", "api-0", "db-0", "train-0"};
  for (int i = 0; i < 4; ++i) {
    const ReportRow* row = FindRow(report, {pods[i]});
    ASSERT_NE(row, nullptr) << pods[i];
    EXPECT_NEAR(row->allocated_usd, expect[i], 1e-12) << pods[i];
    EXPECT_NEAR(row->idle_usd, expect[i] - own[i], 1e-12) << pods[i];
    EXPECT_NEAR(row->effective_usd, own[i] * 0.5, 1e-12) << pods[i];
    EXPECT_NEAR(row->waste_usd, row->allocated_usd - row->effective_usd, 1e-12) << pods[i];
    EXPECT_NEAR(row->utilization, 0.5, 1e-12) << pods[i];
    EXPECT_NEAR(row->efficiency, own[i] * 0.5 / expect[i], 1e-12) << pods[i];
  }
  const ReportRow* idle = FindRow(report, {"__idle__"});
  if (e.idle_left > 0) {
    ASSERT_NE(idle, nullptr);
    EXPECT_NEAR(idle->idle_usd, e.idle_left, 1e-12);
  } else {
    EXPECT_EQ(idle, nullptr);
  }

  // Conservation: the report's cost is the records' cost, and rows add up to it.
  const double cost = 3 + 1 + 4 + 2 + 1 + 5 + 1 + 2;
  EXPECT_NEAR(agg->recorded_cost_usd(), cost, 1e-12);
  EXPECT_NEAR(report.totals.cost_usd, cost, 1e-9 * cost);
  double sum = 0;
  for (const ReportRow& r : report.rows) sum += r.is_idle ? r.idle_usd : r.allocated_usd;
  EXPECT_NEAR(sum, cost, 1e-9 * cost);
  EXPECT_NEAR(report.totals.allocated_usd + (idle ? idle->idle_usd : 0), cost, 1e-9 * cost);
  // Idle received plus idle left is all idle, whatever the policy.
  EXPECT_NEAR(report.totals.idle_usd, 4 + 1 + 5 + 2, 1e-9 * cost);
}

INSTANTIATE_TEST_SUITE_P(
    PolicyByScope, IdleSharing,
    ::testing::Values(
        SharingExpectation{IdlePolicy::kSeparate, IdleScope::kCluster, 3, 1, 2, 1, 12},
        SharingExpectation{IdlePolicy::kSeparate, IdleScope::kNode, 3, 1, 2, 1, 12},
        // n1's 4 split 3:1, n2's 1 to db-0, n3's 5 has nobody on n3, n4's 2 to train-0.
        SharingExpectation{IdlePolicy::kProportional, IdleScope::kNode, 6, 2, 3, 3, 5},
        // prod's 10 split 3:1:2, dev's 2 to train-0.
        SharingExpectation{IdlePolicy::kProportional, IdleScope::kCluster, 8, 1 + 10.0 / 6,
                           2 + 10.0 / 3, 3, 0},
        SharingExpectation{IdlePolicy::kEven, IdleScope::kNode, 5, 3, 3, 3, 5},
        SharingExpectation{IdlePolicy::kEven, IdleScope::kCluster, 3 + 10.0 / 3, 1 + 10.0 / 3,
                           2 + 10.0 / 3, 3, 0}),
    [](const ::testing::TestParamInfo<SharingExpectation>& p) {
      return std::string(IdlePolicyName(p.param.policy)) + "_" +
             std::string(IdleScopeName(p.param.scope));
    });

// The records of SharingCase on `units` only: one cluster's, or one node's, report on its own.
std::vector<CostRecord> SharingCaseOn(std::initializer_list<UnitIndex> units) {
  std::vector<CostRecord> out;
  for (const CostRecord& r : SharingCase()) {
    for (UnitIndex u : units) {
      if (r.unit == u) out.push_back(r);
    }
  }
  return out;
}

// The idle rows of a report, in report order, as (values, idle_usd).
std::vector<std::pair<std::vector<std::string>, double>> IdleRowsOf(const Report& report) {
  std::vector<std::pair<std::vector<std::string>, double>> out;
  for (const ReportRow& r : report.rows) {
    if (r.is_idle) out.emplace_back(r.values, r.idle_usd);
  }
  return out;
}

// The report's one idle row when grouped by namespace: the idle of `records` as a whole.
double IdleAsOneRow(const Inventory& inv, const std::vector<CostRecord>& records) {
  const Report report = Aggregate(inv, Options("namespace"), records);
  const ReportRow* idle = FindRow(report, {"__idle__"});
  return idle == nullptr ? 0.0 : idle->idle_usd;
}

TEST(IdleRows, ByClusterOneIdleRowPerClusterWithThatClustersIdle) {
  const Inventory inv = FourNodes();
  const Report report = Aggregate(inv, Options("cluster"), SharingCase());
  ASSERT_EQ(report.rows.size(), 4u);
  // Holder rows first, then idle rows sorted by value (not by cost).
  EXPECT_EQ(report.rows[0].values, (std::vector<std::string>{"prod"}));
  EXPECT_FALSE(report.rows[0].is_idle);
  EXPECT_DOUBLE_EQ(report.rows[0].allocated_usd, 6.0);
  EXPECT_EQ(report.rows[1].values, (std::vector<std::string>{"dev"}));
  EXPECT_FALSE(report.rows[1].is_idle);
  const auto idle = IdleRowsOf(report);
  ASSERT_EQ(idle.size(), 2u);
  EXPECT_EQ(idle[0].first, (std::vector<std::string>{"dev"}));
  EXPECT_EQ(idle[1].first, (std::vector<std::string>{"prod"}));
  EXPECT_TRUE(report.rows[2].is_idle && report.rows[3].is_idle);
  // Each is its cluster's idle, as the report of that cluster's records alone has it.
  const double dev = IdleAsOneRow(inv, SharingCaseOn({3}));
  const double prod = IdleAsOneRow(inv, SharingCaseOn({0, 1, 2}));
  EXPECT_DOUBLE_EQ(dev, 2.0);
  EXPECT_DOUBLE_EQ(prod, 10.0);
  EXPECT_NEAR(idle[0].second, dev, 1e-9);
  EXPECT_NEAR(idle[1].second, prod, 1e-9);
  EXPECT_NEAR(report.rows[3].gpu_hours, 0.4 + 0.25 + 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(report.rows[3].allocated_usd, 0.0);
  EXPECT_DOUBLE_EQ(report.rows[3].waste_usd, 10.0);
  // Together they are the one idle row of a grouping without capacity dimensions, and the
  // totals do not move.
  const double whole = IdleAsOneRow(inv, SharingCase());
  EXPECT_NEAR(idle[0].second + idle[1].second, whole, 1e-9);
  const Report by_ns = Aggregate(inv, Options("namespace"), SharingCase());
  EXPECT_NEAR(report.totals.idle_usd, by_ns.totals.idle_usd, 1e-9);
  EXPECT_NEAR(report.totals.cost_usd, by_ns.totals.cost_usd, 1e-9);
  EXPECT_NEAR(report.totals.gpu_hours, by_ns.totals.gpu_hours, 1e-9);
  EXPECT_NEAR(report.totals.waste_usd, by_ns.totals.waste_usd, 1e-9);
}

TEST(IdleRows, ByNodeOneIdleRowPerNode) {
  const Inventory inv = FourNodes();
  const Report report = Aggregate(inv, Options("node"), SharingCase());
  const auto idle = IdleRowsOf(report);
  ASSERT_EQ(idle.size(), 4u);
  const char* nodes[] = {"n1", "n2", "n3", "n4"};
  for (UnitIndex u = 0; u < 4; ++u) {
    EXPECT_EQ(idle[u].first, (std::vector<std::string>{nodes[u]}));
    EXPECT_NEAR(idle[u].second, IdleAsOneRow(inv, SharingCaseOn({u})), 1e-9) << nodes[u];
  }
  EXPECT_NEAR(idle[0].second + idle[1].second + idle[2].second + idle[3].second,
              IdleAsOneRow(inv, SharingCase()), 1e-9);
  // Idle rows are the report's last four.
  for (size_t i = 0; i < report.rows.size(); ++i) EXPECT_EQ(report.rows[i].is_idle, i >= 3);
}

TEST(IdleRows, HolderDimensionsKeepOneIdleRow) {
  const Inventory inv = FourNodes();
  for (const char* by : {"namespace", "team", "workload,workload_kind", "pod,container"}) {
    const Report report = Aggregate(inv, Options(by), SharingCase());
    const auto idle = IdleRowsOf(report);
    ASSERT_EQ(idle.size(), 1u) << by;
    EXPECT_EQ(idle[0].first, std::vector<std::string>(report.by.size(), "__idle__")) << by;
    EXPECT_DOUBLE_EQ(idle[0].second, 12.0) << by;
    EXPECT_TRUE(report.rows.back().is_idle) << by;
  }
}

TEST(IdleRows, CapacityDimensionsCarryValuesHolderDimensionsIdle) {
  const Inventory inv = FourNodes();
  const Report report = Aggregate(inv, Options("cluster,namespace"), SharingCase());
  const auto idle = IdleRowsOf(report);
  ASSERT_EQ(idle.size(), 2u);
  EXPECT_EQ(idle[0].first, (std::vector<std::string>{"dev", "__idle__"}));
  EXPECT_DOUBLE_EQ(idle[0].second, 2.0);
  EXPECT_EQ(idle[1].first, (std::vector<std::string>{"prod", "__idle__"}));
  EXPECT_DOUBLE_EQ(idle[1].second, 10.0);

  // The node's labels; a label only holders carry (app) is __idle__ on idle rows.
  const Report labels = Aggregate(inv, Options("label:pool,label:app"), SharingCase());
  const auto by_label = IdleRowsOf(labels);
  ASSERT_EQ(by_label.size(), 2u);
  EXPECT_EQ(by_label[0].first, (std::vector<std::string>{"gpu-a", "__idle__"}));
  EXPECT_DOUBLE_EQ(by_label[0].second, 4.0 + 1.0);  // n1, n2
  EXPECT_EQ(by_label[1].first, (std::vector<std::string>{"gpu-b", "__idle__"}));
  EXPECT_DOUBLE_EQ(by_label[1].second, 5.0 + 2.0);  // n3, n4

  const Report models =
      Aggregate(inv, Options("gpu_model,capacity_type,mig_profile"), SharingCase());
  const auto by_model = IdleRowsOf(models);
  ASSERT_EQ(by_model.size(), 2u);
  EXPECT_EQ(by_model[0].first,
            (std::vector<std::string>{"NVIDIA A100-SXM4-40GB", "on_demand", "__unallocated__"}));
  EXPECT_DOUBLE_EQ(by_model[0].second, 4.0 + 5.0 + 2.0);
  EXPECT_EQ(by_model[1].first, (std::vector<std::string>{"Tesla T4", "spot", "__unallocated__"}));
  EXPECT_DOUBLE_EQ(by_model[1].second, 1.0);
}

TEST(IdleRows, IdleRowsAreLastInEachBucket) {
  const Inventory inv = FourNodes();
  AggregatorOptions o = Options("cluster", /*accumulate=*/false);
  o.output_step = std::chrono::minutes(30);
  const Report report =
      Aggregate(inv, o,
                {Held(0, 0, 0, 0.25, 1.0, 0.5), Idle(0, 3, 0.5, 9.0), Idle(0, 0, 0.25, 1.0),
                 Held(30, 3, 3, 0.25, 1.0, 0.5), Idle(30, 0, 0.5, 2.0)});
  std::vector<std::pair<int64_t, std::vector<std::string>>> order;
  for (const ReportRow& r : report.rows) {
    order.emplace_back(r.bucket, r.values);
    EXPECT_EQ(r.is_idle, r.allocated_usd == 0.0);
  }
  using Key = std::pair<int64_t, std::vector<std::string>>;
  EXPECT_EQ(order, (std::vector<Key>{{0, {"prod"}},
                                     {0, {"dev"}},   // idle
                                     {0, {"prod"}},  // idle
                                     {1, {"dev"}},
                                     {1, {"prod"}}}));  // idle
  EXPECT_TRUE(report.rows[1].is_idle);
  EXPECT_DOUBLE_EQ(report.rows[1].idle_usd, 9.0);
  EXPECT_DOUBLE_EQ(report.rows[2].idle_usd, 1.0);
}

TEST(IdleRows, IdleLeftAfterSharingKeepsItsCapacityValues) {
  const Inventory inv = FourNodes();
  // n3 has idle and no holder: with node scope its $5 has nobody to go to.
  AggregatorOptions o = Options("node");
  o.idle = {IdlePolicy::kProportional, IdleScope::kNode};
  const Report report = Aggregate(inv, o, SharingCase());
  const auto idle = IdleRowsOf(report);
  ASSERT_EQ(idle.size(), 1u);
  EXPECT_EQ(idle[0].first, (std::vector<std::string>{"n3"}));
  EXPECT_NEAR(idle[0].second, 5.0, 1e-12);
  EXPECT_NEAR(FindRow(report, {"n1"})->allocated_usd, 3 + 1 + 4, 1e-12);
  EXPECT_NEAR(report.totals.cost_usd, 19.0, 1e-9);
  // Cluster scope: n3's idle goes to n1's and n2's holders; nothing is left.
  o.idle = {IdlePolicy::kEven, IdleScope::kCluster};
  const Report even = Aggregate(inv, o, SharingCase());
  EXPECT_TRUE(IdleRowsOf(even).empty());
  EXPECT_NEAR(even.totals.cost_usd, 19.0, 1e-9);
}

// Idle with no known price has no money to share: a holder none of whose own hours is priced
// stays unknown (null) under every policy and scope, never $0.00, and the unpriced idle stays in
// its idle row. A holder with priced hours receives nothing from it either.
TEST(IdleRows, UnpricedIdleSharesNoMoneyAndLeavesAnUnpricedHolderUnknown) {
  const Inventory inv = FourNodes();
  const std::vector<CostRecord> records = {Unpriced(Held(0, 0, 0, 0.5, 0, 0.5)),
                                           Held(0, 1, 1, 0.5, 2.0, 1.0),
                                           Unpriced(Idle(0, 2, 1.0, NAN))};
  for (const IdlePolicy policy : {IdlePolicy::kEven, IdlePolicy::kProportional}) {
    for (const IdleScope scope : {IdleScope::kCluster, IdleScope::kNode}) {
      AggregatorOptions o = Options("namespace");
      o.idle = {policy, scope};
      const Report report = Aggregate(inv, o, records);
      const std::string what = StrCat(IdlePolicyName(policy), "/", IdleScopeName(scope));
      const ReportRow* a = FindRow(report, {"a"});
      const ReportRow* b = FindRow(report, {"b"});
      ASSERT_NE(a, nullptr) << what;
      ASSERT_NE(b, nullptr) << what;
      EXPECT_TRUE(std::isnan(a->allocated_usd)) << what << ": " << a->allocated_usd;
      EXPECT_DOUBLE_EQ(b->allocated_usd, 2.0) << what;
      const auto idle = IdleRowsOf(report);
      ASSERT_EQ(idle.size(), 1u) << what;
      EXPECT_TRUE(std::isnan(idle[0].second)) << what;
      EXPECT_NEAR(report.totals.cost_usd, 2.0, 1e-12) << what;
    }
  }
}

TEST(IdleRows, RolledUpIdleGivesTheSameRows) {
  const Inventory inv = FourNodes();
  const std::vector<CostRecord> records = SharingCase();
  std::vector<RolledRecord> rolled;
  for (const CostRecord& r : records) {
    RowAccumulator acc;
    if (r.is_idle()) {
      acc.AddIdle(r);
    } else {
      acc.AddHolder(r);
    }
    RolledRecord x;
    x.step = r.step;
    x.unit = r.unit;
    x.holder = r.holder;
    x.records = 1;
    x.sums = acc.Sums();
    rolled.push_back(x);
  }
  auto agg = Aggregator::Create(inv, Options("cluster,node"));
  ASSERT_TRUE(agg.ok());
  agg->ConsumeRolled(rolled);
  const Report from_rollups = agg->Finish();
  const Report from_records = Aggregate(inv, Options("cluster,node"), records);
  ASSERT_EQ(IdleRowsOf(from_rollups).size(), 4u);
  EXPECT_EQ(IdleRowsOf(from_rollups)[0].first, (std::vector<std::string>{"dev", "n4"}));
  ASSERT_EQ(from_rollups.rows.size(), from_records.rows.size());
  for (size_t i = 0; i < from_records.rows.size(); ++i) {
    EXPECT_EQ(from_rollups.rows[i].values, from_records.rows[i].values);
    EXPECT_EQ(from_rollups.rows[i].is_idle, from_records.rows[i].is_idle);
    EXPECT_NEAR(from_rollups.rows[i].idle_usd, from_records.rows[i].idle_usd, 1e-12);
  }
}

TEST(Aggregator, EvenSharingCountsHoldersNotRecords) {
  const Inventory inv = FourNodes();
  AggregatorOptions o = Options("team");
  o.idle = {IdlePolicy::kEven, IdleScope::kNode};
  // On n1: web-0 (team x) with many records, api-0 and db-0 (team y) one each. $6 idle.
  std::vector<CostRecord> records = {Held(0, 0, 1, 0.1, 1, 1), Held(0, 0, 2, 0.1, 1, 1),
                                     Idle(0, 0, 0.1, 6.0)};
  for (int i = 0; i < 5; ++i) records.push_back(Held(0, 0, 0, 0.01, 0.1, 1));
  const Report report = Aggregate(inv, o, records);
  EXPECT_NEAR(FindRow(report, {"x"})->idle_usd, 2.0, 1e-12);
  EXPECT_NEAR(FindRow(report, {"y"})->idle_usd, 4.0, 1e-12);
}

TEST(Aggregator, SharingIsPerBucket) {
  const Inventory inv = FourNodes();
  AggregatorOptions o = Options("pod", /*accumulate=*/false);
  o.idle = {IdlePolicy::kProportional, IdleScope::kNode};
  // Idle in minute 1 when only api-0 holds n1; web-0 held it in minute 0 only.
  const Report report = Aggregate(
      inv, o,
      {Held(0, 0, 0, 1.0 / 60, 1, 1), Held(1, 0, 1, 0.5 / 60, 1, 1), Idle(1, 0, 0.5 / 60, 1)});
  EXPECT_NEAR(FindRow(report, {"web-0"}, 0)->idle_usd, 0, 1e-12);
  EXPECT_NEAR(FindRow(report, {"api-0"}, 1)->allocated_usd, 2, 1e-12);
}

TEST(Aggregator, AllUnmeasuredIsNullNotZero) {
  const Inventory inv = FourNodes();
  const Report report = Aggregate(inv, Options("namespace"),
                                  {Held(0, 0, 0, 0.5, 2.0, NAN), Held(0, 0, 2, 0.5, 2.0, NAN),
                                   Held(0, 1, 1, 0.5, 1.0, 0.5), Held(0, 1, 1, 0.5, 1.0, NAN)});
  const ReportRow* a = FindRow(report, {"a"});
  ASSERT_NE(a, nullptr);
  EXPECT_DOUBLE_EQ(a->allocated_usd, 4.0);
  EXPECT_TRUE(std::isnan(a->effective_usd));
  EXPECT_TRUE(std::isnan(a->waste_usd));
  EXPECT_TRUE(std::isnan(a->utilization));
  EXPECT_TRUE(std::isnan(a->efficiency));
  EXPECT_DOUBLE_EQ(a->unmeasured_gpu_hours, 1.0);
  // Half measured: effective and waste cover the measured half; unmeasured says what is missing.
  const ReportRow* b = FindRow(report, {"b"});
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(b->allocated_usd, 2.0);
  EXPECT_DOUBLE_EQ(b->effective_usd, 0.5);
  EXPECT_DOUBLE_EQ(b->waste_usd, 0.5);
  EXPECT_DOUBLE_EQ(b->utilization, 0.5);
  EXPECT_DOUBLE_EQ(b->efficiency, 0.25);
  EXPECT_DOUBLE_EQ(b->unmeasured_gpu_hours, 0.5);
  EXPECT_DOUBLE_EQ(report.totals.effective_usd, 0.5);
  EXPECT_DOUBLE_EQ(report.totals.unmeasured_gpu_hours, 1.5);
}

TEST(Aggregator, UnknownPriceIsNullMoneyAndFlagsTotals) {
  const Inventory inv = FourNodes();
  const Report report =
      Aggregate(inv, Options("namespace"),
                {Unpriced(Held(0, 0, 0, 0.5, 0, 0.8)), Unpriced(Held(0, 0, 2, 0.5, 0, 0.4)),
                 Held(0, 1, 1, 0.5, 1.0, 0.5), Unpriced(Held(0, 2, 1, 0.25, 0, 0.5)),
                 Unpriced(Idle(0, 2, 0.75, 0))});
  const ReportRow* a = FindRow(report, {"a"});
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(std::isnan(a->allocated_usd));
  EXPECT_TRUE(std::isnan(a->effective_usd));
  EXPECT_TRUE(std::isnan(a->waste_usd));
  EXPECT_DOUBLE_EQ(a->unpriced_gpu_hours, 1.0);
  EXPECT_DOUBLE_EQ(a->utilization, 0.6);  // hour-weighted when no price is known
  const ReportRow* b = FindRow(report, {"b"});
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(b->allocated_usd, 1.0);  // the priced part
  EXPECT_DOUBLE_EQ(b->unpriced_gpu_hours, 0.25);
  const ReportRow* idle = FindRow(report, {"__idle__"});
  ASSERT_NE(idle, nullptr);
  EXPECT_TRUE(std::isnan(idle->idle_usd));
  EXPECT_TRUE(std::isnan(idle->allocated_usd)) << "unpriced idle is no known $0";
  EXPECT_FALSE(report.totals.prices_known);
  EXPECT_DOUBLE_EQ(report.totals.unpriced_gpu_hours, 2.0);
  EXPECT_DOUBLE_EQ(report.totals.cost_usd, 1.0);
  EXPECT_DOUBLE_EQ(report.totals.allocated_usd, 1.0);

  // Nothing priced at all: every total of money is unknown, none a $0.
  const Report none =
      Aggregate(inv, Options("namespace"),
                {Unpriced(Held(0, 0, 0, 0.5, 0, 0.8)), Unpriced(Idle(0, 2, 0.75, 0))});
  EXPECT_TRUE(std::isnan(none.totals.allocated_usd)) << none.totals.allocated_usd;
  EXPECT_TRUE(std::isnan(none.totals.idle_usd));
  EXPECT_TRUE(std::isnan(none.totals.cost_usd));
  // Priced idle beside it stays a known $0 of allocation.
  const Report idle_priced = Aggregate(inv, Options("namespace"),
                                       {Unpriced(Held(0, 0, 0, 0.5, 0, 0.8)), Idle(0, 2, 0.75, 3)});
  EXPECT_DOUBLE_EQ(idle_priced.totals.allocated_usd, 0.0);
}

TEST(Aggregator, ConservationHoldsOverManyRecords) {
  const Inventory inv = FourNodes();
  for (IdlePolicy policy : {IdlePolicy::kSeparate, IdlePolicy::kProportional, IdlePolicy::kEven}) {
    for (IdleScope scope : {IdleScope::kNode, IdleScope::kCluster}) {
      AggregatorOptions o = Options("team,node", /*accumulate=*/false);
      o.output_step = std::chrono::minutes(10);
      o.idle = {policy, scope};
      auto agg = Aggregator::Create(inv, o);
      ASSERT_TRUE(agg.ok());
      long double exact = 0;
      std::vector<CostRecord> batch;
      for (int64_t step = 0; step < 60; ++step) {
        for (UnitIndex u = 0; u < 4; ++u) {
          const double price = 12.0 / 7 / 60 * (u + 1);
          const double held = (step + u) % 7 / 7.0;
          if (held > 0) {
            batch.push_back(
                Held(step, u, (u + static_cast<uint32_t>(step)) % 4, held / 60, held * price, 0.3));
          }
          batch.push_back(Idle(step, u, (1 - held) / 60, (1 - held) * price));
          exact += static_cast<long double>(price);
        }
        agg->Consume(batch);
        batch.clear();
      }
      const Report report = agg->Finish();
      const double cost = static_cast<double>(exact);
      EXPECT_NEAR(report.totals.cost_usd, cost, 1e-9 * cost);
      CompensatedSum sum;
      for (const ReportRow& r : report.rows) sum.Add(r.is_idle ? r.idle_usd : r.allocated_usd);
      EXPECT_NEAR(sum.value(), cost, 1e-9 * cost)
          << IdlePolicyName(policy) << "/" << IdleScopeName(scope);
    }
  }
}

}  // namespace
}  // namespace gpucost
