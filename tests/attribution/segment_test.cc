// A window attributed in segments (each from its own inventory, pool draws carried across the
// boundaries, records gathered in one union inventory) gives what one attribution of the whole
// window gives.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "attribution/attributor.h"
#include "attribution/cluster_builder.h"
#include "attribution/engine_common.h"
#include "attribution/inventory_union.h"

namespace gpucost {
namespace {

using testing::At;
using testing::ClusterBuilder;
using testing::CollectSink;
using testing::ConstantPrice;
using testing::Options;

// Two whole GPUs drawn from the node's pool, one busy and one nearly idle. `late` has the lower
// holding index but starts half an hour after `early`, so a segment that starts while both run
// would, drawing afresh, give `late` the first GPU.
struct TwoGpuPool {
  TwoGpuPool() {
    node = b.AddNode("n1");
    busy = b.AddWhole(node, "GPU-busy");
    quiet = b.AddWhole(node, "GPU-quiet");
    late = b.AddHolder("ns", "late");
    early = b.AddHolder("ns", "early");
    b.Request(late, node, "nvidia.com/gpu", 1, 1800, 7200);
    b.Request(early, node, "nvidia.com/gpu", 1, 0, 7200);
    b.DeviceUsage(node, "GPU-busy", -1, 0.9, 0, 7200);
    b.DeviceUsage(node, "GPU-quiet", -1, 0.1, 0, 7200);
  }
  ClusterBuilder b;
  NodeIndex node;
  UnitIndex busy, quiet;
  HolderIndex late, early;
};

using Key = std::tuple<int64_t, UnitIndex, HolderIndex>;

std::map<Key, CostRecord> ByKey(const std::vector<CostRecord>& records, int64_t from_step = 0) {
  std::map<Key, CostRecord> out;
  for (const CostRecord& r : records) {
    if (r.step >= from_step) out[{r.step, r.unit, r.holder}] = r;
  }
  return out;
}

TEST(Segments, APoolDrawCarriedIntoTheNextWindowKeepsItsUnits) {
  TwoGpuPool p;
  CollectSink whole;
  ASSERT_TRUE(Attribute(p.b.inventory, p.b.usage, ConstantPrice(2), Options(0, 7200), whole).ok());

  CollectSink first;
  auto s1 = Attribute(p.b.inventory, p.b.usage, ConstantPrice(2), Options(0, 3600), first);
  ASSERT_TRUE(s1.ok());
  // Both holdings run past the first window's end, each with the GPU it drew.
  ASSERT_EQ(s1->open_draws.size(), 2u);
  std::map<HolderIndex, PoolDraw> open;
  for (const PoolDraw& d : s1->open_draws) open[d.holder] = d;
  EXPECT_EQ(open[p.early].units, std::vector<UnitIndex>{p.busy});
  EXPECT_EQ(open[p.late].units, std::vector<UnitIndex>{p.quiet});
  EXPECT_EQ(open[p.early].resource, "nvidia.com/gpu");
  EXPECT_EQ(open[p.early].node, p.node);

  AttributionOptions second_options = Options(3600, 7200);
  CollectSink fresh;
  ASSERT_TRUE(Attribute(p.b.inventory, p.b.usage, ConstantPrice(2), second_options, fresh).ok());
  second_options.prior_draws = s1->open_draws;
  CollectSink carried;
  ASSERT_TRUE(Attribute(p.b.inventory, p.b.usage, ConstantPrice(2), second_options, carried).ok());

  // Whole-window records of the second hour, renumbered from its first step.
  std::map<Key, CostRecord> want;
  for (auto& [k, r] : ByKey(whole.records, 60)) {
    want[{std::get<0>(k) - 60, std::get<1>(k), std::get<2>(k)}] = r;
  }
  const auto got = ByKey(carried.records);
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [k, r] : want) {
    auto it = got.find(k);
    ASSERT_NE(it, got.end()) << "step " << std::get<0>(k) << " unit " << std::get<1>(k);
    EXPECT_DOUBLE_EQ(it->second.allocated_usd, r.allocated_usd);
    EXPECT_DOUBLE_EQ(it->second.effective_usd, r.effective_usd);
  }
  // Drawn afresh, the second hour swaps the GPUs: the carry is what keeps them.
  EXPECT_NEAR(fresh.Sum(p.early, &CostRecord::effective_usd), 0.1 * 2, 1e-9);
  EXPECT_NEAR(carried.Sum(p.early, &CostRecord::effective_usd), 0.9 * 2, 1e-9);
}

TEST(Segments, APriorDrawThatNoLongerFitsIsDrawnAnew) {
  TwoGpuPool p;
  AttributionOptions o = Options(3600, 7200);
  // Two units for a request of one, and a unit of another pool: neither can be kept.
  o.prior_draws.push_back({p.early, p.node, "nvidia.com/gpu", {p.quiet, p.busy}});
  o.prior_draws.push_back({p.late, p.node, "nvidia.com/mig-1g.5gb", {p.quiet}});
  CollectSink sink;
  auto s = Attribute(p.b.inventory, p.b.usage, ConstantPrice(2), o, sink);
  ASSERT_TRUE(s.ok());
  // Fresh draws in holding order: late (index 0) takes the first GPU.
  EXPECT_NEAR(sink.Sum(p.late, &CostRecord::effective_usd), 0.9 * 2, 1e-9);
  EXPECT_NEAR(sink.Sum(p.early, &CostRecord::gpu_hours), 1.0, 1e-12);
  EXPECT_TRUE(s->warnings.empty());
}

TEST(Segments, OnlyHoldingsRunningToTheWindowsEndAreOpen) {
  ClusterBuilder b;
  const NodeIndex n = b.AddNode("n1", SharingMode::kTimeSlicing);
  b.AddReplicas(n, "GPU-a", 2);
  const HolderIndex done = b.AddHolder("ns", "done");
  const HolderIndex running = b.AddHolder("ns", "running");
  const HolderIndex pinned = b.AddHolder("ns", "pinned");
  b.Request(done, n, "nvidia.com/gpu", 1, 0, 1200);
  b.Request(running, n, "nvidia.com/gpu", 1, 600, 7200);
  b.HoldUnits(pinned, {0}, 0, 7200);  // exact assignments need no carrying
  CollectSink sink;
  auto s = Attribute(b.inventory, b.usage, ConstantPrice(1), Options(0, 3600), sink);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->open_draws.size(), 1u);
  EXPECT_EQ(s->open_draws[0].holder, running);
  EXPECT_EQ(s->open_draws[0].units.size(), 1u);
}

TEST(InventoryUnionTest, SegmentsNameEachNodeUnitAndHolderOnce) {
  ClusterBuilder a;
  const NodeIndex an = a.AddNode("n1");
  a.AddWhole(an, "GPU-1");
  a.AddWhole(an, "GPU-2");
  a.AddHolder("ns", "p1");
  ClusterBuilder b;  // the next segment: a new node first, one unit gone, one new holder
  const NodeIndex bn2 = b.AddNode("n2");
  const NodeIndex bn1 = b.AddNode("n1");
  b.AddWhole(bn2, "GPU-9");
  b.AddWhole(bn1, "GPU-2");
  b.AddHolder("ns", "p2");
  b.AddHolder("ns", "p1");
  b.inventory.holders[1].team = "renamed";

  InventoryUnion u;
  const SegmentIndexes ia = u.Add(a.inventory);
  const SegmentIndexes ib = u.Add(b.inventory);
  EXPECT_EQ(u.inventory().nodes.size(), 2u);
  EXPECT_EQ(u.inventory().units.size(), 3u);
  EXPECT_EQ(u.inventory().holders.size(), 2u);
  EXPECT_EQ(ib.nodes, (std::vector<NodeIndex>{1, 0}));
  EXPECT_EQ(ib.units[1], ia.units[1]);  // GPU-2 of n1
  EXPECT_EQ(u.inventory().units[ib.units[0]].node, 1u);
  EXPECT_EQ(ib.holders, (std::vector<HolderIndex>{1, 0}));
  EXPECT_EQ(u.inventory().holders[0].team, "ns") << "the first attributes stay";

  // A draw of p1 on GPU-2 travels from a to b; one on GPU-1 (gone in b) does not.
  const std::vector<PoolDraw> from_a = {{0, an, "nvidia.com/gpu", {1}},
                                        {0, an, "nvidia.com/gpu", {0}}};
  const std::vector<PoolDraw> in_union = u.ToUnion(from_a, ia);
  ASSERT_EQ(in_union.size(), 2u);
  const std::vector<PoolDraw> in_b = u.ToSegment(in_union, ib);
  ASSERT_EQ(in_b.size(), 1u);
  EXPECT_EQ(in_b[0].holder, 1u);
  EXPECT_EQ(in_b[0].node, bn1);
  EXPECT_EQ(in_b[0].units, std::vector<UnitIndex>{1});
}

TEST(InventoryUnionTest, DrawsTravelByIdentityBetweenInventories) {
  ClusterBuilder a;
  const NodeIndex an = a.AddNode("n1");
  a.AddWhole(an, "GPU-1");
  const UnitIndex a2 = a.AddWhole(an, "GPU-2");
  const HolderIndex ap = a.AddHolder("ns", "p1");
  ClusterBuilder b;  // the same node, unit and holder at other indexes, and GPU-1 gone
  b.AddNode("n0");
  const NodeIndex bn = b.AddNode("n1");
  const UnitIndex b2 = b.AddWhole(bn, "GPU-2");
  b.AddHolder("ns", "p0");
  const HolderIndex bp = b.AddHolder("ns", "p1");
  const std::vector<PoolDraw> draws = {{ap, an, "nvidia.com/gpu", {a2}},
                                       {ap, an, "nvidia.com/gpu", {0}}};
  const std::vector<KeyedDraw> keyed = KeyDraws(a.inventory, draws);
  ASSERT_EQ(keyed.size(), 2u);
  const std::vector<PoolDraw> found = FindDraws(b.inventory, keyed);
  ASSERT_EQ(found.size(), 1u) << "GPU-1 is not in the second inventory";
  EXPECT_EQ(found[0], (PoolDraw{bp, bn, "nvidia.com/gpu", {b2}}));
}

TEST(InventoryUnionTest, ASegmentSinkRenumbersUnitsHoldersAndSteps) {
  SegmentIndexes idx;
  idx.units = {5, 7};
  idx.holders = {3};
  CollectSink out;
  SegmentSink sink(out, idx, 60);
  CostRecord held;
  held.step = 2;
  held.unit = 1;
  held.holder = 0;
  CostRecord idle;
  idle.step = 0;
  idle.unit = 0;
  idle.holder = kNoIndex;
  const std::vector<CostRecord> batch = {held, idle};
  sink.Consume(batch);
  ASSERT_EQ(out.records.size(), 2u);
  EXPECT_EQ(out.records[0].step, 62);
  EXPECT_EQ(out.records[0].unit, 7u);
  EXPECT_EQ(out.records[0].holder, 3u);
  EXPECT_EQ(out.records[1].step, 60);
  EXPECT_EQ(out.records[1].unit, 5u);
  EXPECT_TRUE(out.records[1].is_idle());
}

TEST(InventoryUnionTest, SummariesAddUpAndSayEachWarningOnce) {
  AttributionSummary whole;
  AttributionSummary a;
  a.steps = 60;
  a.records = 10;
  a.node_cost_usd = 1.5;
  a.allocated_usd = 1.0;
  a.idle_usd = 0.5;
  a.warnings = {"w1", "w2", "... and 3 more warnings"};
  a.open_draws = {{1, 0, "nvidia.com/gpu", {0}}};
  AttributionSummary b = a;
  b.warnings = {"w2", "w3", "... and 2 more warnings"};
  b.open_draws.clear();
  AddSegmentSummary(whole, a);
  AddSegmentSummary(whole, b);
  EXPECT_EQ(whole.steps, 120);
  EXPECT_EQ(whole.records, 20);
  EXPECT_DOUBLE_EQ(whole.node_cost_usd, 3.0);
  EXPECT_DOUBLE_EQ(whole.idle_usd, 1.0);
  EXPECT_EQ(whole.warnings,
            (std::vector<std::string>{"w1", "w2", "w3", "... and 5 more warnings"}));
  EXPECT_TRUE(whole.open_draws.empty()) << "the last segment's draws";
}

// Within one attribution too: a request drawn in pieces, or sized in several places, tells its
// trouble once; past the cap, warnings are counted.
TEST(Warnings, AMessageAlreadyKeptIsNotKeptAgain) {
  attribution::Warnings w;
  w.Add("node n1: request by a: nothing held");
  w.Add("node n2: other");
  w.Add("node n1: request by a: nothing held");
  EXPECT_EQ(w.Take(),
            (std::vector<std::string>{"node n1: request by a: nothing held", "node n2: other"}));
  attribution::Warnings many;
  for (size_t i = 0; i < attribution::Warnings::kMax + 3; ++i) many.Add(std::to_string(i));
  // Past the cap, a message left out and said again is one more, not two.
  many.Add(std::to_string(attribution::Warnings::kMax + 1));
  many.Add("0");  // kept already
  const std::vector<std::string> kept = many.Take();
  ASSERT_EQ(kept.size(), attribution::Warnings::kMax + 1);
  EXPECT_EQ(kept.back(), "... and 3 more warnings");
  // Take starts afresh: what was left out before is counted again.
  for (size_t i = 0; i < attribution::Warnings::kMax + 1; ++i) many.Add(std::to_string(i));
  EXPECT_EQ(many.Take().back(), "... and 1 more warning");
}

}  // namespace
}  // namespace gpucost
