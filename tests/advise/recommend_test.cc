// Recommendations on clusters whose right answer is known by construction: each test builds the
// cluster, says in comments what a careful person would recommend and save, and checks that the
// advisor says exactly that — and says nothing where nothing should be done.
#include "advise/recommend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "advise/recommend_render.h"
#include "advise_test_util.h"

namespace gpucost::advise {
namespace {

constexpr int64_t kHour = 3600;

// The recommendations of one kind, pointing into `recs` (a temporary would not outlive them).
std::vector<const Recommendation*> OfKind(const Recommendations&& recs,
                                          RecommendationKind kind) = delete;
std::vector<const Recommendation*> OfKind(const Recommendations& recs, RecommendationKind kind) {
  std::vector<const Recommendation*> out;
  for (const Recommendation& r : recs.items) {
    if (r.kind == kind) out.push_back(&r);
  }
  return out;
}

// Monthly savings from a window of minutes would multiply minutes of evidence by thousands (a new
// ledger's first minutes gave "$28,105.45 a month"): a window under --min-window recommends
// nothing and says so.
TEST(Recommend, AWindowShorterThanTheMinimumRecommendsNothing) {
  ClusterBuilder b;
  const NodeIndex n = AddNode(b, "n1", "on_demand");
  const UnitIndex g = b.AddWhole(n, "g1");
  const HolderIndex h = b.AddHolder("ds", "jupyter-bob-0");
  Identify(b, h, "StatefulSet", "jupyter-bob");
  b.HoldUnits(h, {g}, 0, 4 * kHour);
  DeviceUsageSwitch(b, n, "g1", 0.6, 0.01, 2 * kHour, 4 * kHour);
  const Profiled p = ProfileCluster(b, 4, testing::ConstantPrice(2));
  const Recommendations enough = Recommend(p.profiles, p.window, p.step, AdviseSettings{});
  EXPECT_FALSE(enough.window_too_short);
  EXPECT_EQ(enough.items.size(), 1u);  // 4 h >= the default 1 h
  AdviseSettings strict;
  strict.min_window_hours = 5;
  const Recommendations short_window = Recommend(p.profiles, p.window, p.step, strict);
  EXPECT_TRUE(short_window.window_too_short);
  EXPECT_TRUE(short_window.items.empty());
  EXPECT_EQ(short_window.monthly_savings_usd, 0);
  EXPECT_EQ(short_window.workloads, 1);
  EXPECT_EQ(short_window.min_window_hours, 5);
}

TEST(Recommend, IdleNotebookIsCulledForItsIdleRunsOnly) {
  // A Jupyter notebook holds one whole GPU for 4 h at $2/GPU-hour: busy (60%) for 2 h, then
  // idle (1%) for 2 h until the window ends. Culling after 1 h idle frees the second hour of the
  // idle run, 1 h x $2 = $2 in 4 h, i.e. $2 x 730 / 4 = $365 a month.
  ClusterBuilder b;
  const NodeIndex n = AddNode(b, "n1", "on_demand");
  const UnitIndex g = b.AddWhole(n, "g1");
  const HolderIndex h = b.AddHolder("ds", "jupyter-alice-0");
  Identify(b, h, "StatefulSet", "jupyter-alice");
  b.HoldUnits(h, {g}, 0, 4 * kHour);
  DeviceUsageSwitch(b, n, "g1", 0.6, 0.01, 2 * kHour, 4 * kHour);
  const Profiled p = ProfileCluster(b, 4, testing::ConstantPrice(2));
  const Recommendations recs = Recommend(p.profiles, p.window, p.step, AdviseSettings{});

  ASSERT_EQ(recs.items.size(), 1u);
  const Recommendation& r = recs.items[0];
  EXPECT_EQ(r.kind, RecommendationKind::kScaleToZero);
  EXPECT_EQ(r.category, Category::kNotebook);
  EXPECT_EQ(r.workload, "jupyter-alice");
  EXPECT_NEAR(r.monthly_savings_usd, 365, 1e-6);
  EXPECT_NEAR(r.monthly_cost_usd, 8 * 730 / 4.0, 1e-6);
  EXPECT_EQ(r.risk, Risk::kLow);
  EXPECT_NEAR(r.evidence.idle_gpu_hours, 2, 1e-6);
  EXPECT_NEAR(r.evidence.idle_wall_hours, 2, 1e-9);
  EXPECT_NEAR(r.evidence.longest_idle_run_hours, 2, 1e-9);
  EXPECT_TRUE(r.evidence.idle_at_end);
  EXPECT_NEAR(r.evidence.p50, 0.01, 1e-6);
  EXPECT_NEAR(r.evidence.p95, 0.6, 1e-6);
  EXPECT_NEAR(recs.monthly_savings_usd, 365, 1e-6);

  // Culling after 30 min frees 1.5 h: $3 in 4 h.
  AdviseSettings eager;
  eager.notebook_idle_hours = 0.5;
  const Recommendations sooner = Recommend(p.profiles, p.window, p.step, eager);
  ASSERT_EQ(sooner.items.size(), 1u);
  EXPECT_NEAR(sooner.items[0].monthly_savings_usd, 3 * 730 / 4.0, 1e-6);
}

TEST(Recommend, LowUseWholeGpuServiceIsTimeSlicedAtTheRightReplicaFactor) {
  // A Deployment of two pods, each on its own whole GPU at 15% for 10 h, $3/GPU-hour. With 80%
  // headroom a pod fits in 1/5 of a GPU (15% <= 80% / 5), so replicas: 5 saves 4/5 of its
  // whole-GPU cost: $60 x 0.8 x 730 / 10 = $3,504 a month.
  ClusterBuilder b;
  const NodeIndex n = AddNode(b, "n2", "on_demand");
  for (const char* pod : {"ranker-a", "ranker-b"}) {
    const std::string uuid = std::string("g-") + pod;
    const UnitIndex g = b.AddWhole(n, uuid);
    const HolderIndex h = b.AddHolder("search", pod);
    Identify(b, h, "Deployment", "ranker");
    b.HoldUnits(h, {g}, 0, 10 * kHour);
    b.DeviceUsage(n, uuid, -1, 0.15, 0, 10 * kHour);
  }
  const Profiled p = ProfileCluster(b, 10, testing::ConstantPrice(3));
  const Recommendations recs = Recommend(p.profiles, p.window, p.step, AdviseSettings{});

  ASSERT_EQ(recs.items.size(), 1u);
  const Recommendation& r = recs.items[0];
  EXPECT_EQ(r.kind, RecommendationKind::kConsolidate);
  EXPECT_NEAR(r.monthly_savings_usd, 60 * 0.8 * 73, 1e-6);
  EXPECT_NE(r.action.find("replicas: 5"), std::string::npos) << r.action;
  EXPECT_NE(r.action.find("2.00 GPUs held on average would need 0.40"), std::string::npos)
      << r.action;

  // A lower headroom target fits fewer pods per GPU: 45% / 15% = 3 replicas.
  AdviseSettings tight;
  tight.target_utilization = 0.45;
  const Recommendations three = Recommend(p.profiles, p.window, p.step, tight);
  ASSERT_EQ(three.items.size(), 1u);
  EXPECT_NEAR(three.items[0].monthly_savings_usd, 60 * (2.0 / 3) * 73, 1e-6);
}

TEST(Recommend, MigSliceLargerThanTheUseShrinksToTheSmallestProfileThatFits) {
  // An embedding service on an A100-40GB 3g.20gb slice (3/7 of the GPU) whose instance is 20%
  // busy: 20% of 3 slices is 0.6 slice, under 80% of one, so a 1g profile fits. The 1g profile
  // with the most memory is 1g.10gb. The share drops from 3/7 to 1/7: 2/3 of its $15 over 5 h
  // (3/7 x $7 x 5 h), i.e. $10 x 730 / 5 = $1,460 a month. Less memory: high risk.
  ClusterBuilder b;
  const NodeIndex n = AddNode(b, "n3", "on_demand", "NVIDIA A100-SXM4-40GB", SharingMode::kMig);
  const UnitIndex g = b.AddMig(n, "g3", 1, 3.0 / 7, "3g.20gb");
  b.inventory.units[g].gpu_model = "NVIDIA A100-SXM4-40GB";
  const HolderIndex h = b.AddHolder("ml", "embedder-0");
  Identify(b, h, "Deployment", "embedder");
  b.HoldUnits(h, {g}, 0, 5 * kHour);
  b.DeviceUsage(n, "g3", 1, 0.2, 0, 5 * kHour);
  const Profiled p = ProfileCluster(b, 5, testing::ConstantPrice(7));
  const Recommendations recs = Recommend(p.profiles, p.window, p.step, AdviseSettings{});

  const auto mig = OfKind(recs, RecommendationKind::kMigRightSize);
  ASSERT_EQ(mig.size(), 1u);
  EXPECT_NEAR(mig[0]->monthly_savings_usd, 1460, 1e-6);
  EXPECT_NE(mig[0]->action.find("nvidia.com/mig-1g.10gb instead of nvidia.com/mig-3g.20gb"),
            std::string::npos)
      << mig[0]->action;
  EXPECT_EQ(mig[0]->risk, Risk::kHigh);
  EXPECT_EQ(recs.items.size(), 1u);

  // At 30% busy, 0.9 slice needs more than 80% of one: the next size up, 2g.10gb (2/7).
  ClusterBuilder busier = b;
  busier.usage.devices.clear();
  busier.DeviceUsage(n, "g3", 1, 0.3, 0, 5 * kHour);
  const Profiled q = ProfileCluster(busier, 5, testing::ConstantPrice(7));
  const Recommendations busier_recs = Recommend(q.profiles, q.window, q.step, AdviseSettings{});
  const auto two = OfKind(busier_recs, RecommendationKind::kMigRightSize);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_NE(two[0]->action.find("mig-2g.10gb"), std::string::npos) << two[0]->action;
  EXPECT_NEAR(two[0]->monthly_savings_usd, 15 * (1.0 / 3) * 146, 1e-6);
}

TEST(Recommend, MultiGpuJobLeavingGpusIdleAndOnDemandBatchToSpot) {
  // A training Job holds 4 whole on-demand GPUs for 6 h at $3/GPU-hour ($72) but keeps only two
  // busy (90%); the other two stay at 0%. Asking for 2 GPUs saves half: $36 x 730 / 6 = $4,380.
  // On spot at $1/GPU-hour with 0.02 interruptions/h and 1 h checkpoints, an effective $1.01:
  // 24 GPU-hours cost $24.24 instead of $72, saving ($72 - $24.24) x 730 / 6 a month.
  ClusterBuilder b;
  const NodeIndex n = AddNode(b, "n4", "on_demand");
  std::vector<UnitIndex> gpus;
  for (int i = 0; i < 4; ++i) gpus.push_back(b.AddWhole(n, "g4-" + std::to_string(i)));
  const HolderIndex h = b.AddHolder("research", "train-xyz");
  Identify(b, h, "Job", "train");
  b.HoldUnits(h, gpus, 0, 6 * kHour);
  for (int i = 0; i < 4; ++i) {
    b.DeviceUsage(n, "g4-" + std::to_string(i), -1, i < 2 ? 0.9 : 0.0, 0, 6 * kHour);
  }
  const AdviseSettings s;
  const Profiled p =
      ProfileCluster(b, 6, testing::ConstantPrice(3), s, [](const Node&) { return 1.0; });
  const Recommendations recs = Recommend(p.profiles, p.window, p.step, s);

  const auto multi = OfKind(recs, RecommendationKind::kMultiGpuUnused);
  ASSERT_EQ(multi.size(), 1u);
  EXPECT_NEAR(multi[0]->monthly_savings_usd, 36 * 730 / 6.0, 1e-6);
  EXPECT_NE(multi[0]->action.find("request 2 GPUs per pod instead of 4"), std::string::npos);

  const auto spot = OfKind(recs, RecommendationKind::kSpot);
  ASSERT_EQ(spot.size(), 1u);
  EXPECT_NEAR(spot[0]->monthly_savings_usd, (72 - 24 * 1.01) * 730 / 6.0, 1e-6);
  EXPECT_EQ(recs.items.size(), 2u);
  // Largest savings first.
  EXPECT_EQ(recs.items[0].kind, RecommendationKind::kSpot);
  // One-off Jobs are advised per namespace: the advice names the Jobs, not a made-up workload.
  EXPECT_EQ(multi[0]->workload, "train");
  EXPECT_TRUE(multi[0]->jobs.empty());
  EXPECT_EQ(spot[0]->workload, "");
  EXPECT_EQ(spot[0]->jobs, std::vector<std::string>{"train"});
  std::ostringstream json_out;
  RenderRecommendations(recs, RecommendFormat::kJson, json_out);
  const nlohmann::json rendered = nlohmann::json::parse(json_out.str());
  EXPECT_TRUE(rendered["recommendations"][0]["workload"].is_null()) << rendered.dump();
  EXPECT_EQ(rendered["recommendations"][0]["jobs"], nlohmann::json::array({"train"}));
  EXPECT_EQ(rendered["recommendations"][1]["workload"], "train");
  std::ostringstream text_out;
  RenderRecommendations(recs, RecommendFormat::kText, text_out);
  EXPECT_NE(text_out.str().find("research/1 Job (Job, batch"), std::string::npos) << text_out.str();

  // Interruptions cost more with longer checkpoint intervals: 4 h loses 2 h each time.
  AdviseSettings rare;
  rare.checkpoint_interval_hours = 4;
  rare.spot_interruptions_per_hour = 0.1;
  EXPECT_DOUBLE_EQ(rare.EffectiveSpotRate(1.0), 1.2);
  const Profiled q =
      ProfileCluster(b, 6, testing::ConstantPrice(3), rare, [](const Node&) { return 1.0; });
  const Recommendations rare_recs = Recommend(q.profiles, q.window, q.step, rare);
  const auto spot2 = OfKind(rare_recs, RecommendationKind::kSpot);
  ASSERT_EQ(spot2.size(), 1u);
  EXPECT_NEAR(spot2[0]->monthly_savings_usd, (72 - 24 * 1.2) * 730 / 6.0, 1e-6);
}

TEST(Recommend, NothingToSayAboutBusyUnmeasuredSpotOrBrieflyIdleWork) {
  // Each of these is fine as it is: a busy service, a batch job already on spot, a service idle
  // for 2 h (under the 24 h default), and a service with no usage samples at all (unmeasured is
  // not idle).
  ClusterBuilder b;
  const NodeIndex od = AddNode(b, "od", "on_demand");
  const NodeIndex sp = AddNode(b, "sp", "spot");
  const auto add = [&](NodeIndex node, const char* uuid, const char* kind, const char* name) {
    const UnitIndex g = b.AddWhole(node, uuid);
    const HolderIndex h = b.AddHolder("team", std::string(name) + "-0");
    Identify(b, h, kind, name);
    b.HoldUnits(h, {g}, 0, 6 * kHour);
  };
  add(od, "busy", "Deployment", "busy-svc");
  b.DeviceUsage(od, "busy", -1, 0.9, 0, 6 * kHour);
  add(sp, "onspot", "Job", "spot-job");
  b.DeviceUsage(sp, "onspot", -1, 0.7, 0, 6 * kHour);
  add(od, "brief", "Deployment", "brief-idle");
  DeviceUsageSwitch(b, od, "brief", 0.0, 0.9, 2 * kHour, 6 * kHour);
  add(od, "dark", "Deployment", "unmeasured");
  const Profiled p = ProfileCluster(b, 6, testing::ConstantPrice(3));
  const Recommendations recs = Recommend(p.profiles, p.window, p.step, AdviseSettings{});
  for (const Recommendation& r : recs.items) {
    ADD_FAILURE() << RecommendationKindName(r.kind) << " for " << r.workload << ": " << r.action;
  }
  EXPECT_EQ(recs.workloads, 4);
  EXPECT_NEAR(recs.unmeasured_gpu_hours, 6, 1e-6);
  // The unmeasured service has no evidence: no percentiles, no idle hours.
  const WorkloadProfile* dark = Find(p.profiles, "unmeasured");
  ASSERT_NE(dark, nullptr);
  EXPECT_TRUE(std::isnan(UtilizationPercentile(*dark, 0.5)));

  // The same brief idle run is worth acting on when 1 h is the bar: its second hour is freed.
  AdviseSettings strict;
  strict.idle_hours = 1;
  const Recommendations strict_recs = Recommend(p.profiles, p.window, p.step, strict);
  const auto idle = OfKind(strict_recs, RecommendationKind::kScaleToZero);
  ASSERT_EQ(idle.size(), 1u);
  EXPECT_EQ(idle[0]->workload, "brief-idle");
  EXPECT_NEAR(idle[0]->monthly_savings_usd, 1 * 3 * 730 / 6.0, 1e-6);
  EXPECT_FALSE(idle[0]->evidence.idle_at_end);
}

TEST(Recommend, UnknownPricesGiveUnknownSavingsNeverZero) {
  // The same idle notebook with no price for its node, and an on-demand batch job whose node has
  // no spot price: both are listed, with unknown savings and the reason.
  ClusterBuilder b;
  const NodeIndex n = AddNode(b, "n1", "on_demand");
  const UnitIndex g = b.AddWhole(n, "g1");
  const HolderIndex h = b.AddHolder("ds", "notebook-bob-0");
  Identify(b, h, "StatefulSet", "notebook-bob");
  b.HoldUnits(h, {g}, 0, 3 * kHour);
  b.DeviceUsage(n, "g1", -1, 0.0, 0, 3 * kHour);
  const Profiled p = ProfileCluster(b, 3, NoPrice());
  const Recommendations recs = Recommend(p.profiles, p.window, p.step, AdviseSettings{});
  ASSERT_EQ(recs.items.size(), 1u);
  EXPECT_TRUE(std::isnan(recs.items[0].monthly_savings_usd));
  EXPECT_TRUE(std::isnan(recs.items[0].monthly_cost_usd));
  EXPECT_NE(recs.items[0].savings_note.find("unknown"), std::string::npos);
  EXPECT_EQ(recs.unknown_savings, 1);
  EXPECT_EQ(recs.monthly_savings_usd, 0);

  ClusterBuilder j;
  const NodeIndex jn = AddNode(j, "n1", "on_demand");
  const UnitIndex jg = j.AddWhole(jn, "g1");
  const HolderIndex jh = j.AddHolder("ml", "etl-1");
  Identify(j, jh, "Job", "etl");
  j.HoldUnits(jh, {jg}, 0, 3 * kHour);
  j.DeviceUsage(jn, "g1", -1, 0.9, 0, 3 * kHour);
  const Profiled q = ProfileCluster(j, 3, testing::ConstantPrice(3));
  const Recommendations spot = Recommend(q.profiles, q.window, q.step, AdviseSettings{});
  ASSERT_EQ(spot.items.size(), 1u);
  EXPECT_EQ(spot.items[0].kind, RecommendationKind::kSpot);
  EXPECT_TRUE(std::isnan(spot.items[0].monthly_savings_usd));
  EXPECT_NE(spot.items[0].savings_note.find("--spot-discount"), std::string::npos);
}

TEST(Recommend, SmallSavingsAreLeftOutAndSettingsAreChecked) {
  ClusterBuilder b;
  const NodeIndex n = AddNode(b, "n1", "on_demand");
  const UnitIndex g = b.AddWhole(n, "g1");
  const HolderIndex h = b.AddHolder("ds", "jupyter-x-0");
  Identify(b, h, "StatefulSet", "jupyter-x");
  b.HoldUnits(h, {g}, 0, 2 * kHour);
  b.DeviceUsage(n, "g1", -1, 0.0, 0, 2 * kHour);
  // 1 h freed of 2 h at $0.001/GPU-hour is $0.365 a month.
  const Profiled p = ProfileCluster(b, 2, testing::ConstantPrice(0.001));
  EXPECT_TRUE(Recommend(p.profiles, p.window, p.step, AdviseSettings{}).items.empty());
  AdviseSettings any;
  any.min_monthly_savings_usd = 0;
  EXPECT_EQ(Recommend(p.profiles, p.window, p.step, any).items.size(), 1u);

  AdviseSettings bad;
  bad.idle_threshold = 1.5;
  EXPECT_NE(bad.Validate().ToString().find("idle threshold"), std::string::npos);
  bad = AdviseSettings{};
  bad.max_replicas = 1;
  EXPECT_FALSE(bad.Validate().ok());
  bad = AdviseSettings{};
  bad.spot_discount = 1;
  EXPECT_FALSE(bad.Validate().ok());
  EXPECT_TRUE(AdviseSettings{}.Validate().ok());
}

TEST(Categorize, NotebooksBatchServicesAndBarePods) {
  Holder h;
  h.workload_kind = "StatefulSet";
  h.workload = "jupyter-ana";
  EXPECT_EQ(Categorize(h), Category::kNotebook);
  h.workload = "ranker";
  EXPECT_EQ(Categorize(h), Category::kService);
  h.labels = LabelSet({{"notebook-name", "ranker"}});
  EXPECT_EQ(Categorize(h), Category::kNotebook);
  h.labels = LabelSet();
  h.workload_kind = "CronJob";
  EXPECT_EQ(Categorize(h), Category::kBatch);
  h.workload_kind = "SlurmJob";
  EXPECT_EQ(Categorize(h), Category::kBatch);
  h.workload_kind = "Pod";
  EXPECT_EQ(Categorize(h), Category::kOther);
}

// One notebook test for every command (the alert rules call IsNotebook too): each sign alone.
TEST(Categorize, EverySignOfANotebookAloneMakesOne) {
  const auto with = [](auto&& set) {
    Holder h;
    h.workload_kind = "StatefulSet";
    h.workload = "nb-ana";
    h.pod = "nb-ana-0";
    h.container = "main";
    set(h);
    return h;
  };
  EXPECT_FALSE(IsNotebook(with([](Holder&) {})));
  const std::vector<Holder> notebooks = {
      with([](Holder& h) {
        h.labels = LabelSet({{"notebook-name", "ana"}});
      }),
      with([](Holder& h) {
        h.labels = LabelSet({{"notebook_name", "ana"}});
      }),
      with([](Holder& h) {
        h.labels = LabelSet({{"component", "singleuser-server"}});
      }),
      with([](Holder& h) {
        h.labels = LabelSet({{"app.kubernetes.io/name", "JupyterLab"}});
      }),
      with([](Holder& h) { h.container = "notebook"; }),
      with([](Holder& h) { h.container = "jupyter-lab"; }),
      with([](Holder& h) { h.workload = "Team-Notebook"; }),
      with([](Holder& h) { h.pod = "jupyter-ana"; }),
  };
  for (size_t i = 0; i < notebooks.size(); ++i) {
    EXPECT_TRUE(IsNotebook(notebooks[i])) << i;
    EXPECT_EQ(Categorize(notebooks[i]), Category::kNotebook) << i;
  }
}

}  // namespace
}  // namespace gpucost::advise
