#include "serve/ui_api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace gpucost::serve {
namespace {

using nlohmann::json;

// One MIG node (a GPU of two slices, one held, one not partitioned), one time-sliced node (two
// replicas of a GPU, one held) and one node without a price, over a 5-minute step.
struct FleetFixture : ::testing::Test {
  Inventory inv;
  std::vector<CostRecord> records;
  const Window step{Instant(std::chrono::hours(1)),
                    Instant(std::chrono::hours(1)) + std::chrono::minutes(5)};
  const double hours = 5.0 / 60;

  void SetUp() override {
    Node mig;
    mig.cluster = "east";
    mig.name = "b-mig";
    mig.physical_gpus = 1;
    mig.gpu_model = "NVIDIA A100-SXM4-80GB";
    mig.sharing = SharingMode::kMig;
    Node ts = mig;
    ts.name = "a-ts";
    ts.sharing = SharingMode::kTimeSlicing;
    ts.replicas = 2;
    Node unpriced = mig;
    unpriced.name = "c-unpriced";
    unpriced.sharing = SharingMode::kNone;
    inv.nodes = {mig, ts, unpriced};
    auto unit = [&](NodeIndex n, PartitionKind kind, int index, double f, std::string profile,
                    bool holdable) {
      GpuUnit u;
      u.node = n;
      u.gpu_uuid = "GPU-" + std::to_string(n);
      u.partition = {kind, index};
      u.fraction = f;
      u.mig_profile = std::move(profile);
      u.holdable = holdable;
      inv.units.push_back(u);
    };
    unit(0, PartitionKind::kMig, 2, 3.0 / 7, "3g.40gb", true);  // 0: held
    unit(0, PartitionKind::kMig, 1, 4.0 / 7, "", false);        // 1: not partitioned
    unit(1, PartitionKind::kReplica, 1, 0.5, "", true);         // 2: held
    unit(1, PartitionKind::kReplica, 0, 0.5, "", true);         // 3: idle
    unit(2, PartitionKind::kWhole, 0, 1, "", true);             // 4: held, no price
    Holder h;
    h.cluster = "east";
    h.namespace_name = "ml";
    h.pod = "train-0";
    h.container = "main";
    h.workload = "train";
    h.team = "research";
    inv.holders = {h};
    h.pod = "notebook-0";
    h.team = "ads";
    inv.holders.push_back(h);
    auto rec = [&](UnitIndex u, HolderIndex holder, double f, double price, double activity) {
      CostRecord r;
      r.unit = u;
      r.holder = holder;
      r.gpu_hours = f * hours;
      r.price_known = price > 0;
      r.allocated_usd = price > 0 ? f * hours * price : NAN;
      r.price_source = price > 0 ? PriceSource::kCatalog : PriceSource::kUnknown;
      r.activity_gpu_hours = activity * f * hours;
      records.push_back(r);
    };
    rec(0, 0, 3.0 / 7, 4, 0.5);
    rec(1, kNoIndex, 4.0 / 7, 4, NAN);
    rec(2, 1, 0.5, 2, 0.25);
    rec(3, kNoIndex, 0.5, 2, NAN);
    rec(4, 0, 1, 0, 1);
  }
};

TEST_F(FleetFixture, EachUnitSaysWhoHeldHowMuchAndWhatWasIdle) {
  const json f = json::parse(FleetJsonOf(inv, records, step));
  EXPECT_EQ(f["window"]["start"], "1970-01-01T01:00:00Z");
  ASSERT_EQ(f["nodes"].size(), 3u);
  // By name: a-ts, b-mig, c-unpriced.
  const json& ts = f["nodes"][0];
  EXPECT_EQ(ts["name"], "a-ts");
  EXPECT_EQ(ts["sharing"], "time-slicing");
  EXPECT_EQ(ts["replicas"], 2);
  ASSERT_EQ(ts["gpus"].size(), 1u);
  const json& replicas = ts["gpus"][0]["units"];
  ASSERT_EQ(replicas.size(), 2u);
  EXPECT_EQ(replicas[0]["index"], 0);  // sorted by replica
  EXPECT_EQ(replicas[0]["holders"].size(), 0u);
  EXPECT_NEAR(replicas[0]["idle_gpus"].get<double>(), 0.5, 1e-12);
  EXPECT_EQ(replicas[1]["kind"], "replica");
  ASSERT_EQ(replicas[1]["holders"].size(), 1u);
  EXPECT_EQ(replicas[1]["holders"][0]["pod"], "notebook-0");
  EXPECT_NEAR(replicas[1]["holders"][0]["gpus"].get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(replicas[1]["holders"][0]["utilization"].get<double>(), 0.25, 1e-12);
  EXPECT_NEAR(replicas[1]["holders"][0]["usd_per_hour"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(ts["usd_per_gpu_hour"].get<double>(), 2, 1e-12);
  EXPECT_EQ(ts["price_source"], "catalog");
  EXPECT_NEAR(ts["allocated_gpus"].get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(ts["idle_gpus"].get<double>(), 0.5, 1e-12);

  const json& mig = f["nodes"][1];
  const json& slices = mig["gpus"][0]["units"];
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_EQ(slices[0]["holdable"], false);  // instance 1 sorts first
  EXPECT_NEAR(slices[0]["idle_gpus"].get<double>(), 4.0 / 7, 1e-12);
  EXPECT_EQ(slices[1]["mig_profile"], "3g.40gb");
  EXPECT_EQ(slices[1]["holders"][0]["team"], "research");
  EXPECT_NEAR(mig["usd_per_gpu_hour"].get<double>(), 4, 1e-12);

  const json& unpriced = f["nodes"][2];
  EXPECT_TRUE(unpriced["usd_per_gpu_hour"].is_null());
  EXPECT_EQ(unpriced["price_source"], "unknown");
  EXPECT_TRUE(unpriced["gpus"][0]["units"][0]["holders"][0]["usd_per_hour"].is_null());
  EXPECT_NEAR(unpriced["gpus"][0]["units"][0]["holders"][0]["utilization"].get<double>(), 1, 1e-12);
}

// The first scrape of a node lands in the middle of a step: its units were present for 2 of the
// step's 5 minutes. What it held and left idle is shown over those 2 minutes, so that they add up
// to its GPUs, and the node says how much of the step it was seen.
TEST_F(FleetFixture, ANodeSeenForPartOfTheStepShowsThatPartWhole) {
  for (CostRecord& r : records) {
    if (r.unit == 2 || r.unit == 3) {
      r.gpu_hours *= 0.4;
      r.allocated_usd *= 0.4;
      r.activity_gpu_hours *= 0.4;
    }
  }
  const json f = json::parse(FleetJsonOf(inv, records, step));
  const json& ts = f["nodes"][0];
  ASSERT_EQ(ts["name"], "a-ts");
  EXPECT_NEAR(ts["seen_fraction"].get<double>(), 0.4, 1e-12);
  EXPECT_NEAR(ts["allocated_gpus"].get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(ts["idle_gpus"].get<double>(), 0.5, 1e-12);
  const json& held = ts["gpus"][0]["units"][1]["holders"][0];
  EXPECT_NEAR(held["gpus"].get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(held["usd_per_hour"].get<double>(), 1.0, 1e-12);  // the rate while it ran
  EXPECT_NEAR(held["utilization"].get<double>(), 0.25, 1e-12);
  EXPECT_NEAR(ts["usd_per_gpu_hour"].get<double>(), 2, 1e-12);
  // The nodes seen for the whole step are as before.
  EXPECT_NEAR(f["nodes"][1]["seen_fraction"].get<double>(), 1, 1e-12);
  EXPECT_NEAR(
      f["nodes"][1]["allocated_gpus"].get<double>() + f["nodes"][1]["idle_gpus"].get<double>(), 1,
      1e-12);
}

// A node in the step's inventory without any record in it was not seen: nothing held, nothing
// idle, and no division by its absent time.
TEST_F(FleetFixture, ANodeNotSeenInTheStepHoldsNothing) {
  std::erase_if(records, [](const CostRecord& r) { return r.unit == 2 || r.unit == 3; });
  const json f = json::parse(FleetJsonOf(inv, records, step));
  const json& ts = f["nodes"][0];
  ASSERT_EQ(ts["name"], "a-ts");
  EXPECT_EQ(ts["seen_fraction"].get<double>(), 0);
  EXPECT_EQ(ts["allocated_gpus"].get<double>(), 0);
  EXPECT_EQ(ts["idle_gpus"].get<double>(), 0);
}

TEST_F(FleetFixture, RecordsOfUnitsNotInTheInventoryAreSkipped) {
  CostRecord stray;
  stray.unit = 99;
  stray.holder = 0;
  stray.gpu_hours = 1;
  records.push_back(stray);
  const json f = json::parse(FleetJsonOf(inv, records, step));
  EXPECT_EQ(f["nodes"].size(), 3u);
}

TEST(Fleet, AnEmptyInventoryIsNoNodes) {
  const json f = json::parse(FleetJsonOf(Inventory{}, {}, Window{Instant{}, Instant{}}));
  EXPECT_EQ(f["nodes"].size(), 0u);
}

}  // namespace
}  // namespace gpucost::serve
