// Shared GPUs: time-slicing replicas, per-holder usage, HAMi fractions, over-subscription.
#include <gtest/gtest.h>

#include <set>

#include "attribution/attributor.h"
#include "attribution/cluster_builder.h"

namespace gpucost {
namespace {

using testing::At;
using testing::ClusterBuilder;
using testing::CollectSink;
using testing::ConstantPrice;
using testing::Options;

TEST(Sharing, TimeSlicedT4SplitsGpuActivityByShare) {
  // DESIGN.md: three holders of 1/4 of a T4 whose activity is 0.6 each get a = 0.2, u = 0.8.
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("t4-node", SharingMode::kTimeSlicing);
  b.AddReplicas(n, "GPU-t4", 4);
  std::vector<HolderIndex> hs;
  for (int i = 0; i < 3; ++i) {
    hs.push_back(b.AddHolder("team", "pod-" + std::to_string(i)));
    b.Request(hs.back(), n, "nvidia.com/gpu", 1, 0, 3600);
  }
  b.DeviceUsage(n, "GPU-t4", -1, 0.6, 0, 3600);
  const double price = 0.8;
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(price), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok());
  std::set<UnitIndex> units;
  double effective = 0;
  for (HolderIndex h : hs) {
    EXPECT_NEAR(sink.Sum(h, &CostRecord::gpu_hours), 0.25, 1e-12);
    EXPECT_NEAR(sink.Sum(h, &CostRecord::activity_gpu_hours), 0.2, 1e-12);
    EXPECT_NEAR(sink.Allocated(h), 0.25 * price, 1e-12);
    // u = 0.8
    EXPECT_NEAR(sink.Sum(h, &CostRecord::effective_usd), 0.8 * 0.25 * price, 1e-12);
    for (const CostRecord& r : sink.Of(h)) {
      EXPECT_TRUE(r.estimated);
      units.insert(r.unit);
    }
    effective += sink.Sum(h, &CostRecord::effective_usd);
  }
  EXPECT_EQ(units.size(), 3u) << "each holder draws its own replica";
  EXPECT_NEAR(effective, 0.6 * price * 1.0, 1e-12);
  EXPECT_NEAR(sink.Allocated(kNoIndex), 0.25 * price, 1e-12);
  EXPECT_NEAR(s->node_cost_usd, price, 1e-12);
}

TEST(Sharing, PerHolderSeriesIsPreferredOverTheSplit) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("t4-node", SharingMode::kTimeSlicing);
  b.AddReplicas(n, "GPU-t4", 4);
  const HolderIndex measured = b.AddHolder("team", "measured");
  const HolderIndex other = b.AddHolder("team", "other");
  b.Request(measured, n, "nvidia.com/gpu", 1, 0, 3600);
  b.Request(other, n, "nvidia.com/gpu", 1, 0, 3600);
  b.DeviceUsage(n, "GPU-t4", -1, 0.6, 0, 3600);
  HolderDeviceSeries own;
  own.holder = measured;
  own.node = n;
  own.gpu_uuid = "GPU-t4";
  for (int t = 0; t < 3600; t += 30) own.samples.push_back({At(t), 0.1});
  b.usage.holders.push_back(own);
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(1), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(sink.Sum(measured, &CostRecord::activity_gpu_hours), 0.1, 1e-12);
  EXPECT_NEAR(sink.Sum(measured, &CostRecord::effective_usd), 0.25 * (0.1 / 0.25), 1e-12);
  for (const CostRecord& r : sink.Of(measured)) EXPECT_FALSE(r.estimated);
  // The unmeasured holder still gets its split of the GPU's activity: 0.6 x 1/2.
  EXPECT_NEAR(sink.Sum(other, &CostRecord::activity_gpu_hours), 0.3, 1e-12);
  for (const CostRecord& r : sink.Of(other)) EXPECT_TRUE(r.estimated);
}

TEST(Sharing, HamiFractionsShareOneWholeGpu) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("hami-node", SharingMode::kHami);
  b.AddWhole(n, "GPU-0");
  const HolderIndex h30 = b.AddHolder("a", "p30");
  const HolderIndex h50 = b.AddHolder("b", "p50");
  b.Request(h30, n, "nvidia.com/gpu", 1, 0, 3600, /*hami_cores=*/30);
  b.Request(h50, n, "nvidia.com/gpu", 1, 0, 3600, /*hami_cores=*/50);
  b.DeviceUsage(n, "GPU-0", -1, 0.4, 0, 3600);
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(10), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(sink.Allocated(h30), 3, 1e-9);
  EXPECT_NEAR(sink.Allocated(h50), 5, 1e-9);
  EXPECT_NEAR(sink.Allocated(kNoIndex), 2, 1e-9);  // 20 % idle
  // 0.4 split 3:5 -> 0.15 and 0.25; u = 0.5 for both.
  EXPECT_NEAR(sink.Sum(h30, &CostRecord::activity_gpu_hours), 0.15, 1e-12);
  EXPECT_NEAR(sink.Sum(h50, &CostRecord::effective_usd), 2.5, 1e-9);
  EXPECT_EQ(s->oversubscribed_unit_steps, 0);
  EXPECT_NEAR(s->allocated_usd + s->idle_usd, s->node_cost_usd, 1e-9);
}

TEST(Sharing, HamiMemoryShareFallsBackToCoresWhenGpuMemoryIsUnknown) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("hami-node", SharingMode::kHami);
  b.AddWhole(n, "GPU-0");
  const HolderIndex h = b.AddHolder("a", "p");
  b.Request(h, n, "nvidia.com/gpu", 1, 0, 3600, 30);
  b.inventory.holdings[0].request.hami_mem_mib = 8000;
  AttributionOptions o = Options(0, 3600);
  o.hami_share = AttributionOptions::HamiShare::kMemory;
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(10), o, sink);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(sink.Allocated(h), 3, 1e-9);
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_NE(s->warnings[0].find("memory is unknown"), std::string::npos);

  b.inventory.nodes[n].gpu_memory_mib = 16000;
  CollectSink sink2;
  s = Attribute(b.inventory, b.usage, ConstantPrice(10), o, sink2);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(sink2.Allocated(h), 5, 1e-9);
  EXPECT_TRUE(s->warnings.empty());
}

TEST(Sharing, OversubscriptionIsScaledFlaggedAndConserves) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  const HolderIndex a = b.AddHolder("a", "p");
  const HolderIndex c = b.AddHolder("c", "p");
  b.Request(a, n, "nvidia.com/gpu", 1, 0, 3600);
  b.Request(c, n, "nvidia.com/gpu", 1, 1800, 3600);  // the only GPU is taken: overfull
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(4), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok());
  // First half: a alone (2 USD). Second half: both at 1/2 (1 USD each).
  EXPECT_NEAR(sink.Allocated(a), 3, 1e-9);
  EXPECT_NEAR(sink.Allocated(c), 1, 1e-9);
  EXPECT_EQ(s->oversubscribed_unit_steps, 30);
  for (const CostRecord& r : sink.records) {
    const bool late = r.step >= 30;
    EXPECT_EQ(r.oversubscribed, late) << "step " << r.step;
    EXPECT_LE(r.gpu_hours, 1.0 / 60 + 1e-15);
  }
  EXPECT_TRUE(sink.Of(kNoIndex).empty());
  EXPECT_NEAR(s->allocated_usd + s->idle_usd, s->node_cost_usd, 1e-12);
  EXPECT_NEAR(s->node_cost_usd, 4, 1e-12);
  ASSERT_FALSE(s->warnings.empty());
  EXPECT_NE(s->warnings[0].find("exceed"), std::string::npos);
  EXPECT_NE(s->warnings[0].find("GPU-0"), std::string::npos);
}

TEST(Sharing, ExactAssignmentsAreUsedAsGiven) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  const UnitIndex g1 = b.AddWhole(n, "GPU-1");
  const HolderIndex h = b.AddHolder("a", "p");
  b.HoldUnits(h, {g1}, 0, 3600);
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(1), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok());
  for (const CostRecord& r : sink.Of(h)) EXPECT_EQ(r.unit, g1);
  EXPECT_NEAR(sink.Allocated(h), 1, 1e-12);
}

}  // namespace
}  // namespace gpucost
