#include "inventory/workload_identity.h"

#include <gtest/gtest.h>

#include "inventory/series_timeline.h"

namespace gpucost {
namespace {

TEST(WorkloadIdentity, ReplicaSetToDeployment) {
  std::map<std::string, OwnerRef> rs = {{"web-7d4b9c8f6d", {"Deployment", "web", true}}};
  OwnerTables t{&rs, nullptr};
  EXPECT_EQ(ResolveWorkload("web-7d4b9c8f6d-x2x9z", {{"ReplicaSet", "web-7d4b9c8f6d", true}}, t, false),
            (WorkloadIdentity{"web", "Deployment"}));
}

TEST(WorkloadIdentity, ReplicaSetWithoutOwnerSeries) {
  OwnerTables none;
  EXPECT_EQ(ResolveWorkload("p", {{"ReplicaSet", "api-5c9f8b7d4b", true}}, none, true),
            (WorkloadIdentity{"api", "Deployment"}));
  EXPECT_EQ(ResolveWorkload("p", {{"ReplicaSet", "api-5c9f8b7d4b", true}}, none, false),
            (WorkloadIdentity{"api-5c9f8b7d4b", "ReplicaSet"}));
  // An owner series that names no owner: a bare ReplicaSet.
  std::map<std::string, OwnerRef> rs = {{"api-5c9f8b7d4b", {"", "", false}}};
  OwnerTables t{&rs, nullptr};
  EXPECT_EQ(ResolveWorkload("p", {{"ReplicaSet", "api-5c9f8b7d4b", true}}, t, true),
            (WorkloadIdentity{"api-5c9f8b7d4b", "ReplicaSet"}));
}

TEST(WorkloadIdentity, JobToCronJobAndOthers) {
  std::map<std::string, OwnerRef> jobs = {{"nightly-2890", {"CronJob", "nightly", true}},
                                          {"once", {"", "", false}}};
  OwnerTables t{nullptr, &jobs};
  EXPECT_EQ(ResolveWorkload("p", {{"Job", "nightly-2890", true}}, t, true),
            (WorkloadIdentity{"nightly", "CronJob"}));
  EXPECT_EQ(ResolveWorkload("p", {{"Job", "once", true}}, t, true), (WorkloadIdentity{"once", "Job"}));
  EXPECT_EQ(ResolveWorkload("db-0", {{"StatefulSet", "db", true}}, t, true),
            (WorkloadIdentity{"db", "StatefulSet"}));
  EXPECT_EQ(ResolveWorkload("ds-x", {{"DaemonSet", "agent", true}}, t, true),
            (WorkloadIdentity{"agent", "DaemonSet"}));
  EXPECT_EQ(ResolveWorkload("solo", {{"", "", false}}, t, true), (WorkloadIdentity{"solo", "Pod"}));
  EXPECT_EQ(ResolveWorkload("solo", {}, t, true), (WorkloadIdentity{"solo", "Pod"}));
  // The controller wins over a non-controller owner listed first.
  EXPECT_EQ(ResolveWorkload("p", {{"ConfigMap", "c", false}, {"StatefulSet", "s", true}}, t, true),
            (WorkloadIdentity{"s", "StatefulSet"}));
}

TEST(WorkloadIdentity, LabelKeys) {
  EXPECT_EQ(KsmLabelKey("app.kubernetes.io/name"), "app_kubernetes_io_name");
  EXPECT_EQ(KsmLabelKey("teamName"), "team_name");
  EXPECT_EQ(KsmLabelKey("eks.amazonaws.com/capacityType"), "eks_amazonaws_com_capacity_type");
  LabelKeyRestorer r({"cost-center"});
  EXPECT_EQ(r.Restore("app_kubernetes_io_name"), "app.kubernetes.io/name");
  EXPECT_EQ(r.Restore("cost_center"), "cost-center");
  EXPECT_EQ(r.Restore("some_unknown_key"), "some_unknown_key");
}

TEST(WorkloadIdentity, TeamChain) {
  std::vector<TeamSource> chain(2);
  ASSERT_TRUE(ParseTeamSource("pod:team", chain[0]));
  ASSERT_TRUE(ParseTeamSource("namespace:team", chain[1]));
  TeamSource bad;
  EXPECT_FALSE(ParseTeamSource("node:team", bad));
  EXPECT_EQ(ResolveTeam(chain, {{"team", "vision"}}, {{"team", "ml"}}, "ns"), "vision");
  EXPECT_EQ(ResolveTeam(chain, {}, {{"team", "ml"}}, "ns"), "ml");
  EXPECT_EQ(ResolveTeam(chain, {}, {}, "ns"), "ns");
  std::vector<TeamSource> camel(1);
  ASSERT_TRUE(ParseTeamSource("pod:teamName", camel[0]));
  EXPECT_EQ(ResolveTeam(camel, {{"team_name", "nlp"}}, {}, "ns"), "nlp");
}

TEST(SeriesTimeline, PresenceFromScrapes) {
  PresenceOptions o;
  std::vector<Point> pts = {{0, 1}, {15000, 1}, {30000, 1}};
  auto iv = PresentIntervals(pts, o);
  ASSERT_EQ(iv.size(), 1u);
  EXPECT_EQ(UnixMs(iv[0].start), 0);
  EXPECT_EQ(UnixMs(iv[0].end), 45000);  // last + estimated 15 s interval
  // A single sample stands for the default 30 s.
  auto one = PresentIntervals({{1000, 1}}, o);
  EXPECT_EQ(UnixMs(one[0].end), 31000);
  // A gap beyond the staleness limit splits the presence.
  auto split = PresentIntervals({{0, 1}, {60000, 1}, {60000 + 600000, 1}, {60000 + 660000, 1}}, o);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(UnixMs(split[0].end), 120000);
  // The value predicate: phase 1 then 0.
  auto kept = PresentIntervals({{0, 1}, {30000, 1}, {60000, 0}}, o, [](double v) { return v > 0.5; });
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(UnixMs(kept[0].end), 60000);
}

}  // namespace
}  // namespace gpucost
