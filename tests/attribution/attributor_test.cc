#include "attribution/attributor.h"

#include <gtest/gtest.h>

#include "attribution/cluster_builder.h"

namespace gpucost {
namespace {

using testing::At;
using testing::ClusterBuilder;
using testing::CollectSink;
using testing::ConstantPrice;
using testing::Options;

// Σ allocated + Σ idle over the records, known prices only.
double RecordTotal(const CollectSink& sink) {
  CompensatedSum s;
  for (const CostRecord& r : sink.records) {
    if (r.price_known) s.Add(r.allocated_usd);
  }
  return s.value();
}

TEST(Attribute, SevenMigSlicesOfTheDemo) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("gpu-node-1", SharingMode::kMig);
  for (int gi = 0; gi < 7; ++gi) b.AddMig(n, "GPU-a100", 7 + gi, 1.0 / 7, "1g.5gb");
  const HolderIndex a = b.AddHolder("bu-a", "train-a");
  const HolderIndex bb = b.AddHolder("bu-b", "train-b");
  const HolderIndex c = b.AddHolder("bu-c", "train-c");
  b.Request(a, n, "nvidia.com/mig-1g.5gb", 3, 0, 3600);
  b.Request(bb, n, "nvidia.com/mig-1g.5gb", 2, 0, 3600);
  b.Request(c, n, "nvidia.com/mig-1g.5gb", 2, 0, 3600);
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(12), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_NEAR(sink.Allocated(a), 36.0 / 7, 1e-9);
  EXPECT_NEAR(sink.Allocated(bb), 24.0 / 7, 1e-9);
  EXPECT_NEAR(sink.Allocated(c), 24.0 / 7, 1e-9);
  EXPECT_NEAR(sink.Allocated(a), 5.142857142857, 1e-9);
  EXPECT_NEAR(sink.Allocated(bb), 3.428571428571, 1e-9);
  EXPECT_EQ(sink.Of(kNoIndex).size(), 0u) << "every slice is held: no idle record";
  EXPECT_NEAR(s->idle_usd, 0, 1e-12);
  EXPECT_NEAR(s->node_cost_usd, 12, 1e-9);
  EXPECT_NEAR(s->allocated_usd, 12, 1e-9);
  EXPECT_EQ(s->steps, 60);
  EXPECT_EQ(s->records, 7 * 60);
  EXPECT_NEAR(sink.Sum(a, &CostRecord::gpu_hours), 3.0 / 7, 1e-12);
  // No usage at all: every record is unmeasured, never zero.
  for (const CostRecord& r : sink.records) {
    EXPECT_TRUE(std::isnan(r.effective_usd));
    EXPECT_DOUBLE_EQ(r.unmeasured_gpu_hours, r.gpu_hours);
  }
}

TEST(Attribute, WholeGpusUseTheGpuActivity) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  b.AddWhole(n, "GPU-1");
  b.AddWhole(n, "GPU-2");
  const HolderIndex h = b.AddHolder("ml", "p");
  b.Request(h, n, "nvidia.com/gpu", 2, 0, 3600);
  // Least-loaded, ties by index: GPU-0 and GPU-1.
  b.DeviceUsage(n, "GPU-0", -1, 0.5, 0, 3600);
  b.DeviceUsage(n, "GPU-1", -1, 1.7, 0, 3600);  // capped at 1
  b.DeviceUsage(n, "GPU-2", -1, 0.9, 0, 3600);  // nobody holds it: idle
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(2), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(sink.Allocated(h), 4, 1e-9);
  EXPECT_NEAR(sink.Sum(h, &CostRecord::effective_usd), 0.5 * 2 + 1 * 2, 1e-9);
  EXPECT_NEAR(sink.Sum(h, &CostRecord::activity_gpu_hours), 1.5, 1e-9);
  EXPECT_NEAR(sink.Allocated(kNoIndex), 2, 1e-9);
  for (const CostRecord& r : sink.Of(h)) {
    EXPECT_FALSE(r.estimated);
    EXPECT_NE(r.unit, 2u);
  }
  EXPECT_NEAR(s->node_cost_usd, 6, 1e-9);
}

TEST(Attribute, UnpartitionedMigSlicesAreIdle) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1", SharingMode::kMig);
  const UnitIndex big = b.AddMig(n, "GPU-h100", 1, 3.0 / 7, "3g.40gb");
  const UnitIndex small = b.AddMig(n, "GPU-h100", 9, 1.0 / 7, "1g.10gb");
  const UnitIndex free_slices =
      b.AddUnit(n, "GPU-h100", {PartitionKind::kMig, -1}, 3.0 / 7, "", /*holdable=*/false);
  const HolderIndex h = b.AddHolder("ml", "p");
  b.Request(h, n, "nvidia.com/mig-3g.40gb", 1, 0, 3600);
  b.DeviceUsage(n, "GPU-h100", 1, 0.5, 0, 3600);
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(7), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(sink.Allocated(h), 3, 1e-9);
  // u is the instance's own activity.
  EXPECT_NEAR(sink.Sum(h, &CostRecord::effective_usd), 1.5, 1e-9);
  EXPECT_NEAR(sink.Sum(h, &CostRecord::activity_gpu_hours), 0.5 * 3.0 / 7, 1e-9);
  double idle_small = 0;
  double idle_free = 0;
  for (const CostRecord& r : sink.Of(kNoIndex)) {
    EXPECT_NE(r.unit, big);
    if (r.unit == small) idle_small += r.allocated_usd;
    if (r.unit == free_slices) idle_free += r.allocated_usd;
  }
  EXPECT_NEAR(idle_small, 1, 1e-9);
  EXPECT_NEAR(idle_free, 3, 1e-9);
  EXPECT_NEAR(s->node_cost_usd, 7, 1e-9);
  EXPECT_NEAR(RecordTotal(sink), 7, 1e-9);
}

TEST(Attribute, RequestMatchingNoUnitWarnsAndChargesNothing) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  const HolderIndex h = b.AddHolder("ml", "p");
  b.Request(h, n, "nvidia.com/mig-2g.10gb", 1, 0, 3600);
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(1), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(sink.Of(h).empty());
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_NE(s->warnings[0].find("nvidia.com/mig-2g.10gb"), std::string::npos);
  EXPECT_NE(s->warnings[0].find("ml/p/main"), std::string::npos);
  EXPECT_NEAR(s->idle_usd, 1, 1e-9);
  EXPECT_NEAR(s->unplaced_request_gpu_hours, 1, 1e-12);
}

// Requests no unit holds are counted in GPU-equivalent hours inside the window: a missing
// resource (2 MIG slices for 30 minutes of the window), a count past the node's GPUs (3 asked of
// 2, for the hour), a device named on another node, and a HAMi request with no unit (0.25 of a
// GPU for the hour). A request that is held counts nothing.
TEST(Attribute, RequestsNoUnitHoldsAreCountedInGpuHours) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  const NodeIndex other = b.AddNode("n2");
  b.AddWhole(n, "GPU-0");
  b.AddWhole(n, "GPU-1");
  const UnitIndex elsewhere = b.AddWhole(other, "GPU-9");
  const HolderIndex mig = b.AddHolder("ml", "mig");
  const HolderIndex many = b.AddHolder("ml", "many");
  const HolderIndex pinned = b.AddHolder("ml", "pinned");
  const HolderIndex hami = b.AddHolder("ml", "hami");
  b.Request(mig, n, "nvidia.com/mig-2g.10gb", 2, -1800, 1800);
  b.Request(many, n, "nvidia.com/gpu", 3, 0, 3600);
  b.HoldUnits(pinned, {elsewhere}, 0, 3600);
  b.inventory.holdings.back().node = n;  // names a device of n2 on n1
  b.Request(hami, other, "nvidia.com/gpu.shared", 1, 0, 3600, /*hami_cores=*/25);
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(1), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_NEAR(s->unplaced_request_gpu_hours, 2 * 0.5 + 1 + 1 + 0.25, 1e-12);
  EXPECT_EQ(s->warnings.size(), 4u);
}

// A pod that holds a GPU after the GPU is last seen (its node gone, its pods still reported
// running) is charged nothing for that time; past the staleness the time is counted and said.
TEST(Attribute, HoldingAGpuNotSeenIsChargedNothingAndSaid) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  const UnitIndex g = b.AddWhole(n, "GPU-0");
  b.inventory.units[g].present = {{At(0), At(1800)}};
  const HolderIndex h = b.AddHolder("ml", "p");
  b.HoldUnits(h, {g}, 0, 3600);
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(1), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_NEAR(sink.Allocated(h), 0.5, 1e-9);  // the half hour it was seen
  // 30 minutes unseen, the first 5 (the staleness) an edge of the series.
  EXPECT_NEAR(s->unplaced_request_gpu_hours, 25.0 / 60, 1e-12);
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_NE(s->warnings[0].find("node n1: pods held its GPUs for 0.42 GPU-hours"),
            std::string::npos)
      << s->warnings[0];

  // Held only within the staleness after it is last seen: no finding.
  ClusterBuilder edge;
  const NodeIndex n2 = edge.AddNode("n1");
  const UnitIndex g2 = edge.AddWhole(n2, "GPU-0");
  edge.inventory.units[g2].present = {{At(0), At(3300)}};
  edge.HoldUnits(edge.AddHolder("ml", "p"), {g2}, 0, 3600);
  CollectSink sink2;
  auto s2 = Attribute(edge.inventory, edge.usage, ConstantPrice(1), Options(0, 3600), sink2);
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(s2->unplaced_request_gpu_hours, 0);
  EXPECT_TRUE(s2->warnings.empty());
}

// A count past every unit of the node, up to one past 2^64 (which no size_t holds), holds all of
// them with a warning: never a pod dropped with its GPUs charged to idle.
TEST(Attribute, AHugeRequestHoldsEveryUnitAndWarns) {
  for (const double count : {3.0, 1e18, 1e20, 1e300}) {
    ClusterBuilder b;
    const NodeIndex n = b.AddNode("n1");
    b.AddWhole(n, "GPU-0");
    b.AddWhole(n, "GPU-1");
    const HolderIndex h = b.AddHolder("ml", "p");
    b.Request(h, n, "nvidia.com/gpu", count, 0, 3600);
    CollectSink sink;
    auto s = Attribute(b.inventory, b.usage, ConstantPrice(1), Options(0, 3600), sink);
    ASSERT_TRUE(s.ok()) << count;
    CompensatedSum held;
    for (const CostRecord& r : sink.Of(h)) held.Add(r.allocated_usd);
    EXPECT_NEAR(held.value(), 2, 1e-9) << count;
    EXPECT_NEAR(s->idle_usd, 0, 1e-9) << count;
    ASSERT_EQ(s->warnings.size(), 1u) << count;
    EXPECT_NE(s->warnings[0].find("only 2 matching units, holding those"), std::string::npos)
        << s->warnings[0];
    EXPECT_NEAR(s->unplaced_request_gpu_hours, std::ceil(count) - 2, 1e-9 * count) << count;
  }
}

TEST(Attribute, PoolDrawIsStableForTheWholeHolding) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  b.AddWhole(n, "GPU-1");
  const HolderIndex first = b.AddHolder("ml", "first");
  const HolderIndex second = b.AddHolder("ml", "second");
  b.Request(first, n, "nvidia.com/gpu", 1, 0, 1800);
  b.Request(second, n, "nvidia.com/gpu", 1, 600, 3600);
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(1), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok());
  // `second` drew GPU-1 while GPU-0 was busy, and keeps it after GPU-0 frees up.
  for (const CostRecord& r : sink.Of(first)) EXPECT_EQ(r.unit, 0u);
  for (const CostRecord& r : sink.Of(second)) EXPECT_EQ(r.unit, 1u);
  EXPECT_EQ(s->oversubscribed_unit_steps, 0);
}

TEST(Attribute, ValidatesOptions) {
  ClusterBuilder b;
  b.AddWhole(b.AddNode("n1"), "GPU-0");
  CollectSink sink;
  auto bad_step = Options(0, 3600, 0);
  auto r = Attribute(b.inventory, b.usage, ConstantPrice(1), bad_step, sink);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("step must be positive"), std::string_view::npos);
  auto empty = Options(3600, 3600);
  r = Attribute(b.inventory, b.usage, ConstantPrice(1), empty, sink);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("window is empty"), std::string_view::npos);
  b.inventory.units[0].fraction = 0;
  r = Attribute(b.inventory, b.usage, ConstantPrice(1), Options(0, 60), sink);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("GPU fraction"), std::string_view::npos);
  EXPECT_TRUE(sink.records.empty());
}

TEST(Attribute, RejectsUnsortedUsageAndBadIndexes) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  b.AddWhole(n, "GPU-0");
  const HolderIndex h = b.AddHolder("ml", "p");
  b.Request(h, n, "nvidia.com/gpu", 1, 0, 60);
  b.inventory.holdings[0].holder = 7;
  CollectSink sink;
  auto r = Attribute(b.inventory, b.usage, ConstantPrice(1), Options(0, 60), sink);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("holder index 7"), std::string_view::npos);
  b.inventory.holdings[0].holder = h;
  b.usage.devices.push_back({n, "GPU-0", -1, {{At(30), 0.1}, {At(10), 0.2}}});
  r = Attribute(b.inventory, b.usage, ConstantPrice(1), Options(0, 60), sink);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("GPU-0"), std::string_view::npos);
}

TEST(Attribute, FlushesInBatches) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1");
  for (int i = 0; i < 8; ++i) b.AddWhole(n, "GPU-" + std::to_string(i));
  struct CountingSink final : CostSink {
    void Consume(std::span<const CostRecord> r) override {
      ++batches;
      total += r.size();
      largest = std::max(largest, r.size());
    }
    size_t batches = 0, total = 0, largest = 0;
  } sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(1), Options(0, 86400), sink);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(sink.total, 8u * 1440u);
  EXPECT_EQ(static_cast<int64_t>(sink.total), s->records);
  EXPECT_LE(sink.largest, 4096u);
  EXPECT_GT(sink.batches, 2u);
}

}  // namespace
// A catalog price is the instance's split over its GPUs: a node that reports fewer (a GPU gone
// from the bus) or more than its instance has costs that many GPUs' share of the instance, which
// is said once per node; a node of the instance's count is not.
TEST(Attribute, ANodeOfAnotherGpuCountThanItsInstanceIsSaid) {
  ClusterBuilder b;
  const NodeIndex short_node = b.AddNode("n1");
  b.inventory.nodes[short_node].instance_type = "p4d.24xlarge";
  const NodeIndex whole_node = b.AddNode("n2");
  b.inventory.nodes[whole_node].instance_type = "p4d.24xlarge";
  for (int i = 0; i < 7; ++i) b.AddWhole(short_node, "GPU-a" + std::to_string(i));
  for (int i = 0; i < 8; ++i) b.AddWhole(whole_node, "GPU-b" + std::to_string(i));
  const PriceFn price = [](const Node&, Window w) {  // two periods: said once all the same
    const Instant mid = w.start + (w.end - w.start) / 2;
    PricePeriod first{{w.start, mid}, 4.0, PriceSource::kCatalog, w.start, "catalog"};
    PricePeriod second{{mid, w.end}, 5.0, PriceSource::kCatalog, mid, "catalog"};
    first.instance_gpus = second.instance_gpus = 8;
    return std::vector<PricePeriod>{first, second};
  };
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, price, Options(0, 3600), sink);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_EQ(s->warnings[0],
            "node n1 reports 7 GPUs where its p4d.24xlarge has 8 in the price catalog: each is "
            "priced at 1/8 of the instance, so the node costs 7/8 of its price (a GPU gone from "
            "the node, or a wrong capacity?)");
}

}  // namespace gpucost
