// Time: holders and nodes coming and going mid-step, usage gaps and staleness, prices that
// change mid-step or are unknown.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "attribution/attributor.h"
#include "attribution/cluster_builder.h"

namespace gpucost {
namespace {

using testing::At;
using testing::ClusterBuilder;
using testing::CollectSink;
using testing::ConstantPrice;
using testing::Options;
using testing::PricesByNode;

TEST(Timing, PodsStartingAndStoppingMidStepAreTimeWeighted) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  const HolderIndex early = b.AddHolder("a", "early");
  const HolderIndex late = b.AddHolder("a", "late");
  b.Request(early, n, "nvidia.com/gpu", 1, 0, 90);    // steps 0 and half of 1
  b.Request(late, n, "nvidia.com/gpu", 1, 100, 160);  // 20 s of step 1, 40 s of step 2
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(36), Options(0, 180), sink);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(sink.Allocated(early), 36.0 * 90 / 3600, 1e-12);
  EXPECT_NEAR(sink.Allocated(late), 36.0 * 60 / 3600, 1e-12);
  const auto late_records = sink.Of(late);
  ASSERT_EQ(late_records.size(), 2u);
  EXPECT_EQ(late_records[0].step, 1);
  EXPECT_NEAR(late_records[0].gpu_hours, 20.0 / 3600, 1e-15);
  EXPECT_NEAR(late_records[1].gpu_hours, 40.0 / 3600, 1e-15);
  // Unheld: 10 s of step 1 and 20 s of step 2.
  EXPECT_NEAR(sink.Sum(kNoIndex, &CostRecord::gpu_hours), 30.0 / 3600, 1e-15);
  EXPECT_EQ(sink.Of(kNoIndex).size(), 2u);
}

TEST(Timing, NodeJoiningAndLeavingMidWindowCostsOnlyWhilePresent) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("spot-1");
  b.inventory.nodes[n].present = {{At(630), At(2430)}};  // joins mid-step 10, leaves mid-step 40
  b.AddWhole(n, "GPU-0");
  const HolderIndex h = b.AddHolder("a", "p");
  b.Request(h, n, "nvidia.com/gpu", 1, 0, 3600);  // the pod outlives what the node can carry
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(6), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s->node_cost_usd, 6.0 * 1800 / 3600, 1e-12);
  EXPECT_NEAR(sink.Allocated(h), 3, 1e-12);
  const auto records = sink.Of(h);
  ASSERT_EQ(records.size(), 31u);
  EXPECT_EQ(records.front().step, 10);
  EXPECT_NEAR(records.front().gpu_hours, 30.0 / 3600, 1e-15);
  EXPECT_EQ(records.back().step, 40);
  EXPECT_TRUE(sink.Of(kNoIndex).empty());
}

TEST(Timing, MissingUsageIsUnmeasuredButZeroUsageIsMeasuredWaste) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  b.AddWhole(n, "GPU-1");
  const HolderIndex silent = b.AddHolder("a", "no-metrics");
  const HolderIndex idle = b.AddHolder("a", "sleeping");
  b.Request(silent, n, "nvidia.com/gpu", 1, 0, 600);
  b.Request(idle, n, "nvidia.com/gpu", 1, 0, 600);
  b.DeviceUsage(n, "GPU-1", -1, 0.0, 0, 600);  // `idle` draws GPU-1 (second, least loaded)
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(6), Options(0, 600), sink);
  ASSERT_TRUE(s.ok());
  for (const CostRecord& r : sink.Of(silent)) {
    EXPECT_TRUE(std::isnan(r.effective_usd));
    EXPECT_TRUE(std::isnan(r.waste_usd()));
    EXPECT_TRUE(std::isnan(r.activity_gpu_hours));
    EXPECT_DOUBLE_EQ(r.unmeasured_gpu_hours, r.gpu_hours);
    EXPECT_GT(r.allocated_usd, 0);
  }
  for (const CostRecord& r : sink.Of(idle)) {
    EXPECT_EQ(r.effective_usd, 0);
    EXPECT_DOUBLE_EQ(r.waste_usd(), r.allocated_usd);
    EXPECT_EQ(r.unmeasured_gpu_hours, 0);
    EXPECT_EQ(r.activity_gpu_hours, 0);
  }
}

TEST(Timing, StaleSamplesStopCoveringAfterTheLimit) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  const HolderIndex h = b.AddHolder("a", "p");
  b.Request(h, n, "nvidia.com/gpu", 1, 0, 600);
  // One sample at t=0 and then silence: with staleness 120 s it covers steps 0 and 1 only.
  b.usage.devices.push_back({n, "GPU-0", -1, {{At(0), 0.5}}});
  AttributionOptions o = Options(0, 600);
  o.staleness = std::chrono::seconds(120);
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(60), o, sink);
  ASSERT_TRUE(s.ok());
  const auto records = sink.Of(h);
  ASSERT_EQ(records.size(), 10u);
  for (const CostRecord& r : records) {
    if (r.step < 2) {
      EXPECT_NEAR(r.effective_usd, 0.5, 1e-12) << r.step;
    } else {
      EXPECT_TRUE(std::isnan(r.effective_usd)) << r.step;
      EXPECT_GT(r.unmeasured_gpu_hours, 0);
    }
  }
  EXPECT_NEAR(sink.Sum(h, &CostRecord::unmeasured_gpu_hours), 8.0 / 60, 1e-12);
}

// Usage sampled every 10 minutes under a 5-minute staleness: each sample holds one and a half of
// its series' intervals, so every step is measured (with the staleness alone, half of each
// 10 minutes would be unmeasured and the holder's effective cost halved).
TEST(Timing, SparseSamplesHoldTheirSeriesInterval) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  const HolderIndex h = b.AddHolder("a", "p");
  b.Request(h, n, "nvidia.com/gpu", 1, 0, 3600);
  b.DeviceUsage(n, "GPU-0", -1, 0.5, 0, 3600, 600);
  AttributionOptions o = Options(0, 3600);
  o.staleness = std::chrono::minutes(5);
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(60), o, sink);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(sink.Sum(h, &CostRecord::unmeasured_gpu_hours), 0);
  EXPECT_NEAR(sink.Sum(h, &CostRecord::effective_usd), 30, 1e-9);
  // A gap longer than 1.5 intervals is still a gap: samples at 0-50 min, then none.
  ClusterBuilder g;
  const NodeIndex gn = g.AddNode("n1");
  g.AddWhole(gn, "GPU-0");
  const HolderIndex gh = g.AddHolder("a", "p");
  g.Request(gh, gn, "nvidia.com/gpu", 1, 0, 7200);
  g.DeviceUsage(gn, "GPU-0", -1, 0.5, 0, 3600, 600);
  CollectSink gap_sink;
  AttributionOptions go = Options(0, 7200);
  ASSERT_TRUE(Attribute(g.inventory, g.usage, ConstantPrice(60), go, gap_sink).ok());
  // The last sample (50 min) holds 15 minutes, to 65 min: 55 minutes unmeasured after it.
  EXPECT_NEAR(gap_sink.Sum(gh, &CostRecord::unmeasured_gpu_hours), 55.0 / 60, 1e-12);
}

TEST(Timing, PartialCoverageAveragesOverTheCoveredTime) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  const HolderIndex h = b.AddHolder("a", "p");
  b.Request(h, n, "nvidia.com/gpu", 1, 0, 60);
  // 0.2 for 10 s then 0.8 for 20 s (the staleness, more than 1.5 of the series' 10 s interval),
  // then stale: 30 s covered, average 0.6 for the whole step.
  b.usage.devices.push_back({n, "GPU-0", -1, {{At(0), 0.2}, {At(10), 0.8}}});
  AttributionOptions o = Options(0, 60);
  o.staleness = std::chrono::seconds(20);
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(60), o, sink);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(sink.Of(h).size(), 1u);
  const CostRecord r = sink.Of(h)[0];
  EXPECT_NEAR(r.activity_gpu_hours, 0.6 / 60, 1e-15);
  EXPECT_NEAR(r.effective_usd, 0.6, 1e-12);
  EXPECT_EQ(r.unmeasured_gpu_hours, 0);
}

TEST(Timing, PriceChangeMidStepIsSplitExactly) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  const HolderIndex h = b.AddHolder("a", "p");
  b.Request(h, n, "nvidia.com/gpu", 1, 0, 7200);
  // 10 $/h until 00:30, then 20 $/h; steps of one hour.
  auto prices = PricesByNode({{"n1",
                               {{{At(0), At(1800)}, 10, PriceSource::kCatalog, At(0), "old"},
                                {{At(1800), At(7200)}, 20, PriceSource::kSpot, At(1800), "new"}}}});
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, prices, Options(0, 7200, 3600), sink);
  ASSERT_TRUE(s.ok());
  const auto records = sink.Of(h);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_NEAR(records[0].allocated_usd, 15, 1e-12);
  EXPECT_NEAR(records[1].allocated_usd, 20, 1e-12);
  EXPECT_EQ(records[1].price_source, PriceSource::kSpot);
  EXPECT_NEAR(s->node_cost_usd, 35, 1e-12);
}

TEST(Timing, ListPriceIsCarriedBesideThePriceInWholeAndCutSteps) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  b.AddWhole(n, "GPU-1");
  const HolderIndex h = b.AddHolder("a", "p");
  b.Request(h, n, "nvidia.com/gpu", 1, 0, 10800);
  // Hour 0 and the first half of hour 1: 6 $/h against a 10 $/h list (a 40 % discount); then
  // 8 $/h with no public price, so list = price. Hour 1 is cut; hour 2 is whole.
  PricePeriod discounted{{At(0), At(5400)}, 6, PriceSource::kCatalog, At(0), "spot"};
  discounted.list_usd_per_gpu_hour = 10;
  PricePeriod on_prem{{At(5400), At(10800)}, 8, PriceSource::kRateCard, At(5400), "card"};
  auto prices = PricesByNode({{"n1", {discounted, on_prem}}});
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, prices, Options(0, 10800, 3600), sink);
  ASSERT_TRUE(s.ok());
  const auto held = sink.Of(h);
  ASSERT_EQ(held.size(), 3u);
  EXPECT_NEAR(held[0].list_usd, 10, 1e-12);
  EXPECT_NEAR(held[0].allocated_usd, 6, 1e-12);
  EXPECT_NEAR(held[1].list_usd, 5 + 4, 1e-12);
  EXPECT_NEAR(held[2].list_usd, 8, 1e-12);
  double idle_list = 0;
  for (const CostRecord& r : sink.records) {
    if (r.is_idle()) idle_list += r.list_usd;
  }
  EXPECT_NEAR(idle_list, 10 + 9 + 8, 1e-12);  // the unheld GPU, at the same list prices
}

TEST(Timing, UnknownPriceGivesNanMoneyButCountsHours) {
  ClusterBuilder b;
  const NodeIndex priced = b.AddNode("priced");
  const NodeIndex unpriced = b.AddNode("mystery");
  b.AddWhole(priced, "GPU-0");
  b.AddWhole(unpriced, "GPU-1");
  b.AddWhole(unpriced, "GPU-2");
  const HolderIndex h = b.AddHolder("a", "p");
  b.Request(h, unpriced, "nvidia.com/gpu", 1, 0, 3600);
  b.DeviceUsage(unpriced, "GPU-1", -1, 0.5, 0, 3600);
  auto prices = PricesByNode(
      {{"priced", {{{At(0), At(3600)}, 3, PriceSource::kOverride, At(0), "override"}}}});
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, prices, Options(0, 3600), sink);
  ASSERT_TRUE(s.ok());
  for (const CostRecord& r : sink.Of(h)) {
    EXPECT_FALSE(r.price_known);
    EXPECT_TRUE(std::isnan(r.allocated_usd));
    EXPECT_TRUE(std::isnan(r.effective_usd));
    EXPECT_EQ(r.price_source, PriceSource::kUnknown);
    EXPECT_NEAR(r.activity_gpu_hours, 0.5 / 60, 1e-15);  // usage still counts
  }
  EXPECT_NEAR(sink.Sum(h, &CostRecord::gpu_hours), 1, 1e-12);
  EXPECT_NEAR(s->unpriced_gpu_hours, 2, 1e-12);
  EXPECT_NEAR(s->node_cost_usd, 3, 1e-12);
  EXPECT_NEAR(s->idle_usd, 3, 1e-12);
  EXPECT_NEAR(s->allocated_usd, 0, 1e-12);
}

TEST(Timing, LastStepMayBePartial) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(3600), Options(0, 150), sink);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->steps, 3);
  ASSERT_EQ(sink.records.size(), 3u);
  EXPECT_NEAR(sink.records[2].allocated_usd, 30, 1e-9);
  EXPECT_NEAR(s->node_cost_usd, 150, 1e-9);
}

// Steps covered by one piece and one price are walked as runs with per-run constants; the run
// must end exactly at a price change on a step boundary, at one inside a step, at the end of the
// holding and at the partial last step, and every record must equal its step-by-step value.
TEST(Timing, RunsOfWholeStepsBreakAtEveryBoundary) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  const HolderIndex h = b.AddHolder("a", "p");
  b.Request(h, n, "nvidia.com/gpu", 1, 0, 1000);  // ends inside step 16
  b.DeviceUsage(n, "GPU-0", -1, 0.5, 0, 1030);
  // 6 $/h, then 12 $/h from a step boundary (300 s), then 3 $/h from inside step 10 (630 s).
  auto prices = PricesByNode({{"n1",
                               {{{At(0), At(300)}, 6, PriceSource::kCatalog, At(0), "a"},
                                {{At(300), At(630)}, 12, PriceSource::kCatalog, At(300), "b"},
                                {{At(630), At(1030)}, 3, PriceSource::kSpot, At(630), "c"}}}});
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, prices, Options(0, 1030), sink);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->steps, 18);  // the last one is 10 s
  const auto records = sink.Of(h);
  ASSERT_EQ(records.size(), 17u);
  for (const CostRecord& r : records) {
    SCOPED_TRACE("step " + std::to_string(r.step));
    const double held_s = r.step == 16 ? 40 : 60;
    double usd = 0;
    if (r.step < 5) {
      usd = 6 * held_s / 3600;
    } else if (r.step < 10) {
      usd = 12 * held_s / 3600;
    } else if (r.step == 10) {
      usd = (12 * 30 + 3 * 30) / 3600.0;
    } else {
      usd = 3 * held_s / 3600;
    }
    EXPECT_NEAR(r.gpu_hours, held_s / 3600, 1e-15);
    EXPECT_NEAR(r.allocated_usd, usd, 1e-14);
    EXPECT_NEAR(r.effective_usd, usd / 2, 1e-14);
    EXPECT_NEAR(r.activity_gpu_hours, held_s / 3600 / 2, 1e-15);
    EXPECT_EQ(r.unmeasured_gpu_hours, 0);
    EXPECT_EQ(r.price_source, r.step < 10 ? PriceSource::kCatalog : PriceSource::kSpot);
  }
  const auto idle = sink.Of(kNoIndex);
  ASSERT_EQ(idle.size(), 2u);
  EXPECT_NEAR(idle[0].gpu_hours, 20.0 / 3600, 1e-15);
  EXPECT_NEAR(idle[1].gpu_hours, 10.0 / 3600, 1e-15);
  EXPECT_NEAR(s->node_cost_usd, (300 * 6 + 330 * 12 + 400 * 3) / 3600.0, 1e-12);
  EXPECT_NEAR(s->allocated_usd + s->idle_usd, s->node_cost_usd, 1e-12);
}

// Timelines are built and walked one GPU at a time; units listed in any order (not grouped by
// GPU) must give the same totals as the same cluster listed GPU by GPU.
TEST(Timing, UnitOrderDoesNotChangeTheTotals) {
  auto run = [](bool interleaved) {
    ClusterBuilder b;
    const NodeIndex n = b.AddNode("n1", SharingMode::kTimeSlicing);
    std::map<std::pair<std::string, int>, UnitIndex> units;
    // Interleaved: GPU-0 r0, GPU-1 r0, GPU-0 r1, GPU-1 r1; grouped: GPU-0 r0, r1, GPU-1 r0, r1.
    const std::vector<std::pair<std::string, int>> layout =
        interleaved ? std::vector<std::pair<std::string, int>>{{"GPU-0", 0}, {"GPU-1", 0},
                                                               {"GPU-0", 1}, {"GPU-1", 1}}
                    : std::vector<std::pair<std::string, int>>{{"GPU-0", 0}, {"GPU-0", 1},
                                                               {"GPU-1", 0}, {"GPU-1", 1}};
    for (const auto& [uuid, r] : layout) {
      units[{uuid, r}] = b.AddUnit(n, uuid, {PartitionKind::kReplica, r}, 0.5, "nvidia.com/gpu");
    }
    const HolderIndex a = b.AddHolder("a", "p");
    const HolderIndex c = b.AddHolder("c", "q");
    b.HoldUnits(a, {units[{"GPU-0", 0}], units[{"GPU-1", 0}]}, 0, 250);
    b.HoldUnits(c, {units[{"GPU-0", 1}]}, 45, 300);
    b.DeviceUsage(n, "GPU-0", -1, 0.75, 0, 300);
    b.DeviceUsage(n, "GPU-1", -1, 0.25, 0, 300);
    CollectSink sink;
    auto s = Attribute(b.inventory, b.usage, ConstantPrice(7), Options(0, 300), sink);
    EXPECT_TRUE(s.ok());
    return std::vector<double>{s->allocated_usd, s->idle_usd, s->node_cost_usd,
                               static_cast<double>(s->records),
                               sink.Sum(a, &CostRecord::effective_usd),
                               sink.Sum(c, &CostRecord::effective_usd)};
  };
  const std::vector<double> interleaved = run(true);
  const std::vector<double> grouped = run(false);
  ASSERT_EQ(interleaved.size(), grouped.size());
  for (size_t i = 0; i < grouped.size(); ++i) {
    EXPECT_GT(grouped[i], 0) << i;
    EXPECT_NEAR(interleaved[i], grouped[i], 1e-12 * grouped[i]) << i;
  }
}

}  // namespace
}  // namespace gpucost
