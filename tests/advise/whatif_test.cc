// What-if scenarios on a cluster whose right answer is worked out by hand in the comments: each
// policy alone, then all four together, where the commitment sees what the others left on demand.
#include <gtest/gtest.h>

#include <cmath>

#include "advise/whatif.h"
#include "advise_test_util.h"

namespace gpucost::advise {
namespace {

constexpr int64_t kOneHour = 3600;

// Three on-demand whole GPUs at $4/GPU-hour for 10 h, $40 each:
//   etl (Job, team data): 90% busy;
//   api (Deployment, team web): 10% busy;
//   jupyter-z (StatefulSet notebook, team ds): 50% busy for 4 h, then idle for 6 h.
// The spot rate is $1/GPU-hour.
Profiled ThreeWorkloads(const AdviseSettings& s) {
  ClusterBuilder b;
  const NodeIndex n = AddNode(b, "n1", "on_demand");
  struct W {
    const char* ns;
    const char* kind;
    const char* name;
  };
  const W ws[] = {{"data", "Job", "etl"}, {"web", "Deployment", "api"},
                  {"ds", "StatefulSet", "jupyter-z"}};
  for (const W& w : ws) {
    const UnitIndex g = b.AddWhole(n, std::string("g-") + w.name);
    const HolderIndex h = b.AddHolder(w.ns, std::string(w.name) + "-0");
    Identify(b, h, w.kind, w.name);
    b.HoldUnits(h, {g}, 0, 10 * kOneHour);
  }
  b.DeviceUsage(n, "g-etl", -1, 0.9, 0, 10 * kOneHour);
  b.DeviceUsage(n, "g-api", -1, 0.1, 0, 10 * kOneHour);
  DeviceUsageSwitch(b, n, "g-jupyter-z", 0.5, 0.0, 4 * kOneHour, 10 * kOneHour);
  return ProfileCluster(b, 10, testing::ConstantPrice(4), s, [](const Node&) { return 1.0; });
}

const CostRow* Row(const std::vector<CostRow>& rows, std::string_view key) {
  for (const CostRow& r : rows) {
    if (r.key == key) return &r;
  }
  return nullptr;
}

TEST(WhatIf, EachPolicyAlone) {
  const AdviseSettings s;
  const Profiled p = ThreeWorkloads(s);
  const auto run = [&](const char* list) {
    Result<Policies> policies = ParsePolicies(list);
    EXPECT_TRUE(policies.ok());
    return RunScenario(p.profiles, p.window, p.step, s, *policies);
  };

  // Spot: etl's 10 GPU-hours at the effective $1.01 instead of $4: $40 -> $10.10.
  const Scenario spot = run("spot-batch");
  EXPECT_NEAR(spot.before_usd, 120, 1e-9);
  EXPECT_NEAR(spot.after_usd, 120 - 29.9, 1e-9);
  EXPECT_NEAR(Row(spot.by_category, "batch")->after_usd, 10.1, 1e-9);
  EXPECT_NEAR(Row(spot.by_team, "web")->after_usd, 40, 1e-9);
  ASSERT_EQ(spot.policies.size(), 1u);
  EXPECT_EQ(spot.policies[0].workloads, 1);

  // Time-slicing by 4: api's 10% x 4 = 40% fits under 80%; it pays a quarter, $10.
  const Scenario slice = run("time-slice=4");
  EXPECT_NEAR(slice.after_usd, 90, 1e-9);
  EXPECT_NEAR(Row(slice.by_category, "service")->after_usd, 10, 1e-9);
  // By 9, 10% x 9 = 90% does not fit: nothing changes.
  EXPECT_NEAR(run("time-slice=9").after_usd, 120, 1e-9);

  // Culling after 1 h idle frees 5 of the notebook's 6 idle hours: $20.
  const Scenario cull = run("cull-notebooks");
  EXPECT_NEAR(cull.after_usd, 100, 1e-9);
  EXPECT_NEAR(Row(cull.by_team, "ds")->after_usd, 20, 1e-9);

  // A commitment alone: 3 GPUs are on demand in every step; 31% off $4 for 30 GPU-hours.
  const Scenario commit = run("commit-base");
  EXPECT_NEAR(commit.committed_gpus, 3, 1e-6);
  EXPECT_NEAR(commit.after_usd, 120 - 30 * 4 * 0.31, 1e-6);
}

TEST(WhatIf, AllPoliciesTogetherCommitOnlyWhatIsLeftOnDemand) {
  // After spot, time-slicing and culling, on demand are api's quarter GPU always and the
  // notebook's whole GPU for its first 5 h: the steady base is 0.25 GPU. The on-demand rate left
  // is ($10 + $20) / (2.5 + 5) GPU-hours = $4, so the commitment saves 0.25 x 10 h x $4 x 31% =
  // $3.10, shared 1:2 between api ($10 on demand) and the notebook ($20).
  const AdviseSettings s;
  const Profiled p = ThreeWorkloads(s);
  Result<Policies> policies = ParsePolicies("spot-batch,time-slice=4,cull-notebooks,commit-base");
  ASSERT_TRUE(policies.ok());
  const Scenario all = RunScenario(p.profiles, p.window, p.step, s, *policies);
  EXPECT_NEAR(all.committed_gpus, 0.25, 1e-6);
  EXPECT_NEAR(all.after_usd, 120 - 29.9 - 30 - 20 - 3.1, 1e-6);
  EXPECT_NEAR(Row(all.by_category, "service")->after_usd, 10 - 3.1 / 3, 1e-6);
  EXPECT_NEAR(Row(all.by_category, "notebook")->after_usd, 20 - 3.1 * 2 / 3, 1e-6);
  EXPECT_NEAR(Row(all.by_team, "data")->after_usd, 10.1, 1e-6);
  ASSERT_EQ(all.policies.size(), 4u);
  EXPECT_EQ(all.policies[3].name, "commit-base");
  EXPECT_NEAR(all.policies[3].savings_usd, 3.1, 1e-6);
  EXPECT_EQ(all.policies[3].workloads, 2);
  // Rows add up to the totals.
  double before = 0, after = 0;
  for (const CostRow& r : all.by_team) {
    before += r.before_usd;
    after += r.after_usd;
  }
  EXPECT_NEAR(before, all.before_usd, 1e-9);
  EXPECT_NEAR(after, all.after_usd, 1e-9);
}

TEST(WhatIf, SpotWithoutASpotPriceLeavesBatchOnDemandAndSaysSo) {
  const AdviseSettings s;
  ClusterBuilder b;
  const NodeIndex n = AddNode(b, "n1", "on_demand");
  const UnitIndex g = b.AddWhole(n, "g1");
  const HolderIndex h = b.AddHolder("data", "etl-0");
  Identify(b, h, "Job", "etl");
  b.HoldUnits(h, {g}, 0, 2 * kOneHour);
  b.DeviceUsage(n, "g1", -1, 0.9, 0, 2 * kOneHour);
  const Profiled p = ProfileCluster(b, 2, testing::ConstantPrice(4), s);
  const Scenario spot = RunScenario(p.profiles, p.window, p.step, s, *ParsePolicies("spot-batch"));
  EXPECT_NEAR(spot.after_usd, 8, 1e-9);
  ASSERT_EQ(spot.policies.size(), 1u);
  EXPECT_NE(spot.policies[0].note.find("no spot price"), std::string::npos);
}

TEST(WhatIf, PolicyListErrorsNameTheItem) {
  EXPECT_EQ(ParsePolicies("time-slice").value().time_slice, 4);
  EXPECT_EQ(ParsePolicies("time-slice=3,spot-batch").value().time_slice, 3);
  const Result<Policies> bad = ParsePolicies("spot-batch,scale-everything");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("scale-everything"), std::string::npos);
  EXPECT_FALSE(ParsePolicies("time-slice=1").ok());
  EXPECT_FALSE(ParsePolicies("time-slice=x").ok());
  EXPECT_FALSE(ParsePolicies("").ok());
}

}  // namespace
}  // namespace gpucost::advise
