// Joining work counters to holders and the cost per unit of work, on a hand-made inventory and
// hand-made engine records whose right answers are worked out in the comments: grouping by
// workload, team and pod, pods with several containers and several series, resets, unknown
// prices and missing work (unknown, never $0 or inf), work of pods that held no GPU, the
// workload-kind filter.
#include "workcost/unit_cost.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace gpucost::workcost {
namespace {

constexpr int64_t kStart = 1790812800000;  // 2026-10-01T00:00:00Z

Holder MakeHolder(std::string ns, std::string pod, std::string container, std::string workload,
                  std::string kind, std::string team) {
  Holder h;
  h.cluster = "default";
  h.namespace_name = std::move(ns);
  h.pod = std::move(pod);
  h.container = std::move(container);
  h.workload = std::move(workload);
  h.workload_kind = std::move(kind);
  h.team = std::move(team);
  return h;
}

// One record: `hours` GPU-hours at `rate` $/h (NaN: unknown) used at `u` (NaN: unmeasured).
CostRecord Record(HolderIndex holder, double hours, double rate, double u) {
  CostRecord r;
  r.holder = holder;
  r.unit = 0;
  r.gpu_hours = hours;
  r.price_known = std::isfinite(rate);
  r.allocated_usd = r.price_known ? hours * rate : NAN;
  r.effective_usd = r.price_known && std::isfinite(u) ? hours * rate * u : NAN;
  r.unmeasured_gpu_hours = std::isfinite(u) ? 0 : hours;
  r.activity_gpu_hours = std::isfinite(u) ? hours * u : NAN;
  return r;
}

// A series of `pod` with one sample a minute from kStart.
WorkSeries Series(std::string ns, std::string pod, std::vector<double> values,
                  std::string reason = "stop") {
  WorkSeries s;
  s.cluster = "default";
  s.namespace_name = ns;
  s.pod = pod;
  s.labels = LabelSet{{"namespace", ns}, {"pod", pod}, {"finished_reason", reason}};
  s.first_seen = "work.prom:1";
  for (size_t i = 0; i < values.size(); ++i) {
    s.samples.push_back({kStart + static_cast<int64_t>(i) * 60000, values[i]});
  }
  return s;
}

class UnitCostTest : public testing::Test {
 protected:
  void SetUp() override {
    inv_.holders = {
        MakeHolder("ml", "vllm-a-1", "main", "vllm", "Deployment", "search"),       // 0
        MakeHolder("ml", "vllm-a-2", "main", "vllm", "Deployment", "search"),       // 1
        MakeHolder("research", "exp-7-abc", "train", "exp-7", "Job", "research"),   // 2
        MakeHolder("research", "exp-8-xyz", "train", "exp-8", "Job", "research"),   // 3
        MakeHolder("ml", "vllm-a-1", "sidecar", "vllm", "Deployment", "search"),    // 4
        MakeHolder("research", "exp-9-def", "train", "exp-9", "Job", "research"),   // 5
        MakeHolder("ml", "frontend-0", "web", "frontend", "Deployment", "search"),  // 6
    };
    HolderCostSink sink(inv_.holders.size());
    const std::vector<CostRecord> records = {
        // vllm-a-1/main: 2 GPU-hours at $4 used at 0.75: allocated 8, effective 6.
        Record(0, 1, 4, 0.75),
        Record(0, 1, 4, 0.75),
        // vllm-a-2: 1 GPU-hour at $4, unmeasured: allocated 4, effective unknown.
        Record(1, 1, 4, NAN),
        // exp-7: 3 GPU-hours at $2.5 used at 0.5: allocated 7.5, effective 3.75.
        Record(2, 3, 2.5, 0.5),
        // exp-8: 2 GPU-hours on a node without a price.
        Record(3, 2, NAN, 0.9),
        // vllm-a-1/sidecar: 0.5 GPU-hour at $4 used at 0.5: allocated 2, effective 1.
        Record(4, 0.5, 4, 0.5),
        // exp-9: 1 GPU-hour at $3, no work counter at all.
        Record(5, 1, 3, 1),
    };
    CostRecord idle = Record(kNoIndex, 5, 4, NAN);  // idle capacity belongs to no holder
    sink.Consume(records);
    sink.Consume({&idle, 1});
    costs_.assign(sink.costs().begin(), sink.costs().end());
    series_ = {
        Series("ml", "vllm-a-1", {1000, 1500, 2000}),  // +1000
        Series("ml", "vllm-a-1", {0, 200}, "length"),  // +200
        Series("ml", "vllm-a-2", {0, 600, 200}),       // +600, reset to 200: +800
        Series("research", "exp-7-abc", {0, 500}),     // +500
        Series("research", "exp-8-xyz", {0, 100}),     // +100
        Series("ml", "frontend-0", {0, 50}),           // no GPU held: unmatched
        Series("ml", "gone-pod", {7, 9, 20}),          // no such holder: unmatched
    };
    settings_.window = {InstantFromUnixMs(kStart), InstantFromUnixMs(kStart + 600000)};
    settings_.lookback = std::chrono::minutes(5);
    settings_.per = 1000;
    settings_.unit = "requests";
    settings_.metric = "vllm:request_success_total";
  }

  UnitCostTable Build() {
    auto t = BuildUnitCost(inv_, costs_, series_, settings_);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? std::move(t).value() : UnitCostTable{};
  }

  Inventory inv_;
  std::vector<HolderCost> costs_;
  std::vector<WorkSeries> series_;
  UnitCostSettings settings_;
};

TEST_F(UnitCostTest, PerWorkload) {
  const UnitCostTable t = Build();
  EXPECT_EQ(t.columns, (std::vector<std::string>{"namespace", "workload_kind", "workload"}));
  ASSERT_EQ(t.rows.size(), 4u);  // sorted by key: ml/vllm, research/exp-7, exp-8, exp-9
  const UnitCostRow& vllm = t.rows[0];
  EXPECT_EQ(vllm.keys, (std::vector<std::string>{"ml", "Deployment", "vllm"}));
  // 1000 + 200 (vllm-a-1, two series, counted once per series not per container) + 800.
  EXPECT_DOUBLE_EQ(vllm.work, 2000);
  EXPECT_EQ(vllm.series, 3);
  EXPECT_EQ(vllm.resets, 1);
  EXPECT_DOUBLE_EQ(vllm.gpu_hours, 3.5);     // 2 + 1 + 0.5
  EXPECT_DOUBLE_EQ(vllm.allocated_usd, 14);  // 8 + 4 + 2
  EXPECT_DOUBLE_EQ(vllm.effective_usd, 7);   // 6 + 1; vllm-a-2's hour is unmeasured
  EXPECT_DOUBLE_EQ(vllm.unmeasured_gpu_hours, 1);
  EXPECT_DOUBLE_EQ(vllm.allocated_usd_per_n, 7);  // 14 / 2000 x 1000
  EXPECT_DOUBLE_EQ(vllm.effective_usd_per_n, 3.5);
  EXPECT_DOUBLE_EQ(vllm.gpu_hours_per_n, 1.75);  // 3.5 / 2000 x 1000

  const UnitCostRow& exp7 = t.rows[1];
  EXPECT_EQ(exp7.keys, (std::vector<std::string>{"research", "Job", "exp-7"}));
  EXPECT_DOUBLE_EQ(exp7.allocated_usd_per_n, 15);   // 7.5 / 500 x 1000
  EXPECT_DOUBLE_EQ(exp7.effective_usd_per_n, 7.5);  // 3.75 / 500 x 1000
  EXPECT_DOUBLE_EQ(exp7.gpu_hours_per_n, 6);        // 3 / 500 x 1000

  // No price: money unknown, never $0; GPU-hours per unit are still known.
  const UnitCostRow& exp8 = t.rows[2];
  EXPECT_EQ(exp8.keys[2], "exp-8");
  EXPECT_DOUBLE_EQ(exp8.work, 100);
  EXPECT_TRUE(std::isnan(exp8.allocated_usd));
  EXPECT_TRUE(std::isnan(exp8.effective_usd));
  EXPECT_TRUE(std::isnan(exp8.allocated_usd_per_n));
  EXPECT_TRUE(std::isnan(exp8.effective_usd_per_n));
  EXPECT_DOUBLE_EQ(exp8.unpriced_gpu_hours, 2);
  EXPECT_DOUBLE_EQ(exp8.gpu_hours_per_n, 20);  // 2 / 100 x 1000

  // No work: cost known, every per-unit figure unknown (not inf).
  const UnitCostRow& exp9 = t.rows[3];
  EXPECT_EQ(exp9.keys[2], "exp-9");
  EXPECT_DOUBLE_EQ(exp9.work, 0);
  EXPECT_DOUBLE_EQ(exp9.allocated_usd, 3);
  EXPECT_TRUE(std::isnan(exp9.allocated_usd_per_n));
  EXPECT_TRUE(std::isnan(exp9.gpu_hours_per_n));

  // Totals: one unpriced group makes the total's money unknown; the work is the joined work.
  EXPECT_DOUBLE_EQ(t.totals.work, 2600);
  EXPECT_DOUBLE_EQ(t.totals.gpu_hours, 9.5);
  EXPECT_TRUE(std::isnan(t.totals.allocated_usd));
  EXPECT_DOUBLE_EQ(t.totals.gpu_hours_per_n, 9.5 / 2600 * 1000);
}

TEST_F(UnitCostTest, WorkOfPodsThatHeldNoGpuIsLeftOutWithAWarning) {
  const UnitCostTable t = Build();
  // frontend-0 (a holder with no GPU time) 50 and gone-pod 13.
  EXPECT_EQ(t.unmatched_series, 2);
  EXPECT_DOUBLE_EQ(t.unmatched_work, 63);
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_NE(t.warnings[0].find("2 series"), std::string::npos) << t.warnings[0];
  EXPECT_NE(t.warnings[0].find("pod=\"frontend-0\""), std::string::npos) << t.warnings[0];
  EXPECT_NE(t.warnings[0].find("work.prom:1"), std::string::npos) << t.warnings[0];
}

TEST_F(UnitCostTest, PerTeamAndPerPod) {
  settings_.by = {GroupBy::kTeam};
  UnitCostTable t = Build();
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].keys, (std::vector<std::string>{"research"}));
  EXPECT_EQ(t.rows[1].keys, (std::vector<std::string>{"search"}));
  EXPECT_DOUBLE_EQ(t.rows[1].allocated_usd_per_n, 7);
  EXPECT_TRUE(std::isnan(t.rows[0].allocated_usd));  // exp-8 has no price

  settings_.by = {GroupBy::kPod};
  t = Build();
  EXPECT_EQ(t.columns, (std::vector<std::string>{"namespace", "pod"}));
  ASSERT_EQ(t.rows.size(), 5u);
  const UnitCostRow& a1 = t.rows[0];
  EXPECT_EQ(a1.keys, (std::vector<std::string>{"ml", "vllm-a-1"}));
  EXPECT_DOUBLE_EQ(a1.work, 1200);
  EXPECT_DOUBLE_EQ(a1.allocated_usd, 10);  // both containers: 8 + 2
  EXPECT_DOUBLE_EQ(a1.allocated_usd_per_n, 10.0 / 1200 * 1000);
}

TEST_F(UnitCostTest, PerExperimentKeepsOnlyJobs) {
  settings_.workload_kind = "Job";
  const UnitCostTable t = Build();
  ASSERT_EQ(t.rows.size(), 3u);
  for (const UnitCostRow& r : t.rows) EXPECT_EQ(r.keys[1], "Job");
  // vllm's work belongs to a filtered-out workload, not to nobody.
  EXPECT_EQ(t.unmatched_series, 2);
  EXPECT_DOUBLE_EQ(t.totals.work, 600);
}

TEST(ParseGroupBy, NamesAndErrors) {
  auto by = ParseGroupBy("workload, team");
  ASSERT_TRUE(by.ok());
  EXPECT_EQ(*by, (std::vector<GroupBy>{GroupBy::kWorkload, GroupBy::kTeam}));
  EXPECT_FALSE(ParseGroupBy("node").ok());
  EXPECT_FALSE(ParseGroupBy("pod,pod").ok());
  EXPECT_FALSE(ParseGroupBy("").ok());
}

}  // namespace
}  // namespace gpucost::workcost
