// Slurm jobs as an inventory piece: holders, nodes, units, holdings, the window cut, MIG slices,
// multi-node splits, merging into a Kubernetes timeline, and the real engine over the result.
#include "slurm/slurm_timeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "attribution/attributor.h"
#include "core/strings.h"
#include "slurm/slurm_test_util.h"

namespace gpucost::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

SlurmOptions BerlinDay() {
  SlurmOptions o;
  o.format.time_zone = "Europe/Berlin";
  o.window = Window{At(0), At(24)};
  return o;
}

std::vector<const Holding*> HoldingsOf(const Inventory& inv, HolderIndex h) {
  std::vector<const Holding*> out;
  for (const Holding& x : inv.holdings) {
    if (x.holder == h) out.push_back(&x);
  }
  return out;
}

TEST(SlurmTimelineTest, JobsBecomeSlurmHolders) {
  SlurmOptions o = BerlinDay();
  o.account_teams = {{"physics", "team-phys"}};
  const SlurmTimeline t = Load("basic.txt", o);
  const Inventory& inv = t.inventory;
  EXPECT_EQ(t.stats.jobs, 9u);
  EXPECT_EQ(inv.holders.size(), 9u);
  const Holder& h = inv.holders[HolderOf(inv, "1001")];
  EXPECT_EQ(h.kind, HolderKind::kSlurmJob);
  EXPECT_EQ(h.cluster, "hpc1");
  EXPECT_EQ(h.namespace_name, "physics");
  EXPECT_EQ(h.container, "");
  EXPECT_EQ(h.workload, "train-a");
  EXPECT_EQ(h.workload_kind, "SlurmJob");
  EXPECT_EQ(h.team, "team-phys");
  EXPECT_EQ(h.labels.Get("user"), "alice");
  EXPECT_EQ(h.labels.Get("account"), "physics");
  EXPECT_EQ(h.labels.Get("partition"), "gpu");
  EXPECT_EQ(h.labels.Get("qos"), "normal");
  EXPECT_EQ(h.labels.Get("state"), "COMPLETED");
  EXPECT_EQ(h.labels.Get("cluster"), "hpc1");
  const Holder& chem = inv.holders[HolderOf(inv, "2736118_1")];
  EXPECT_EQ(chem.team, "chem");  // not mapped: the account
  EXPECT_EQ(chem.pod_uid, "2736119");
  EXPECT_EQ(chem.labels.Get("array_job_id"), "2736118");
  EXPECT_EQ(chem.labels.Get("array_task_id"), "1");
  EXPECT_EQ(inv.holders[HolderOf(inv, "77+1")].labels.Get("het_job_offset"), "1");
  EXPECT_EQ(inv.holders[HolderOf(inv, "48412394")].labels.Get("state"), "CANCELLED");
}

// Accounts the teams file does not map are their own team, said once with the file's name and
// each account, and the file's line that differs only in case; with every account mapped, or no
// file, nothing is said.
TEST(SlurmTimelineTest, AccountsTheTeamsFileDoesNotMapAreSaid) {
  const auto account_warnings = [](const std::map<std::string, std::string>& teams) {
    SlurmOptions o = BerlinDay();
    o.account_teams = teams;
    o.account_teams_source = "teams.txt";
    std::vector<std::string> out;
    for (const InputWarning& w : Load("basic.txt", o).warnings) {
      if (w.message.find("in no line of the file") != std::string::npos)
        out.push_back(w.ToString());
    }
    return out;
  };
  const std::vector<std::string> some = account_warnings({{"physics", "sci"}, {"CHEM", "sci"}});
  ASSERT_EQ(some.size(), 1u);
  EXPECT_THAT(some[0], HasSubstr("teams.txt: "));
  EXPECT_THAT(some[0], HasSubstr("\"chem\" (the file has \"CHEM\")"));
  EXPECT_THAT(some[0], ::testing::Not(HasSubstr("\"physics\"")));
  std::map<std::string, std::string> all;
  for (const Holder& h : Load("basic.txt", BerlinDay()).inventory.holders) {
    all[h.namespace_name] = "sci";
  }
  EXPECT_TRUE(account_warnings(all).empty());
  EXPECT_TRUE(account_warnings({}).empty());
}

// Running jobs held to the end of a window taken from another input, past the file's latest time,
// are said with where the window came from; a window the user gave is not.
TEST(SlurmTimelineTest, RunningJobsHeldPastTheFileToAnotherInputsWindowAreSaid) {
  const auto held_past = [](const std::string& origin) {
    SlurmOptions o = BerlinDay();
    o.window_origin = origin;
    std::vector<std::string> out;
    for (const InputWarning& w : Load("basic.txt", o).warnings) {
      if (w.message.find("past the latest time in the file") != std::string::npos) {
        out.push_back(w.message);
      }
    }
    return out;
  };
  const std::vector<std::string> said = held_past("the Kubernetes input's window");
  ASSERT_EQ(said.size(), 1u);
  EXPECT_THAT(said[0], HasSubstr("held to " + FormatRfc3339(At(24)) +
                                 ", the end of the Kubernetes input's window"));
  EXPECT_TRUE(held_past("").empty());
}

TEST(SlurmTimelineTest, HoldingsRequestWholeGpusOverTheJobsRun) {
  const SlurmTimeline t = Load("basic.txt", BerlinDay());
  const Inventory& inv = t.inventory;
  auto hs = HoldingsOf(inv, HolderOf(inv, "1001"));
  ASSERT_EQ(hs.size(), 1u);  // one GPU although AllocTRES names it twice
  EXPECT_EQ(hs[0]->request.resource, "nvidia.com/gpu");
  EXPECT_EQ(hs[0]->request.count, 1);
  EXPECT_EQ(hs[0]->node, NodeOf(inv, "gpu01"));
  EXPECT_EQ(hs[0]->interval, (Interval{At(9), At(11)}));  // 10:00-12:00 CET
  EXPECT_TRUE(hs[0]->units.empty());
  // Het job components hold on their own nodes.
  auto c1 = HoldingsOf(inv, HolderOf(inv, "77+1"));
  ASSERT_EQ(c1.size(), 1u);
  EXPECT_EQ(c1[0]->node, NodeOf(inv, "gpu04"));
  EXPECT_EQ(c1[0]->request.count, 1);
  EXPECT_EQ(HoldingsOf(inv, HolderOf(inv, "77+0"))[0]->request.count, 2);
}

TEST(SlurmTimelineTest, RunningJobIsCutAtTheWindowEnd) {
  const SlurmTimeline t = Load("basic.txt", BerlinDay());
  auto hs = HoldingsOf(t.inventory, HolderOf(t.inventory, "1003"));
  ASSERT_EQ(hs.size(), 1u);
  EXPECT_EQ(hs[0]->interval, (Interval{At(19), At(24)}));
  EXPECT_EQ(hs[0]->request.count, 2);
}

TEST(SlurmTimelineTest, WindowClipsAndDropsJobs) {
  SlurmOptions o = BerlinDay();
  o.window = Window{At(8.5), At(10)};
  const SlurmTimeline t = Load("basic.txt", o);
  // 2736118_1 (07:00-08:00Z) ends before the window; only 1001 (09-11Z) overlaps it.
  EXPECT_EQ(t.stats.jobs, 1u);
  EXPECT_EQ(t.stats.outside_window, 8u);
  ASSERT_EQ(t.inventory.holdings.size(), 1u);
  EXPECT_EQ(t.inventory.holdings[0].interval, (Interval{At(9), At(10)}));
  ASSERT_EQ(t.inventory.nodes.size(), 1u);
  EXPECT_EQ(t.inventory.nodes[0].present, (std::vector<Interval>{{At(8.5), At(10)}}));
}

TEST(SlurmTimelineTest, MultiNodeJobsSplitTheirGpusEvenly) {
  const SlurmTimeline t = Load("basic.txt", BerlinDay());
  const Inventory& inv = t.inventory;
  auto eight = HoldingsOf(inv, HolderOf(inv, "1005"));
  ASSERT_EQ(eight.size(), 2u);
  EXPECT_EQ(eight[0]->node, NodeOf(inv, "gpu05"));
  EXPECT_EQ(eight[0]->request.count, 4);
  EXPECT_EQ(eight[1]->node, NodeOf(inv, "gpu06"));
  EXPECT_EQ(eight[1]->request.count, 4);
  auto three = HoldingsOf(inv, HolderOf(inv, "1006"));
  ASSERT_EQ(three.size(), 2u);
  EXPECT_EQ(three[0]->request.count, 2);  // the remainder goes to the first nodes listed
  EXPECT_EQ(three[1]->request.count, 1);
}

TEST(SlurmTimelineTest, NodesInferTheirGpuCountFromPeakConcurrentUse) {
  const SlurmTimeline t = Load("basic.txt", BerlinDay());
  const Inventory& inv = t.inventory;
  std::vector<std::string> names;
  for (const Node& n : inv.nodes) names.push_back(n.name);
  // cpn-k07-05-[01-02] ran only a CPU job: not a GPU node.
  EXPECT_THAT(names, ElementsAre("gpu01", "gpu02", "gpu03", "gpu04", "gpu05", "gpu06"));
  auto gpus = [&](std::string_view name) { return inv.nodes[NodeOf(inv, name)].physical_gpus; };
  EXPECT_EQ(gpus("gpu01"), 1);  // 1001 and 48412394 never overlap
  EXPECT_EQ(gpus("gpu02"), 2);  // two array tasks at once, then the running job's 2
  EXPECT_EQ(gpus("gpu03"), 2);
  EXPECT_EQ(gpus("gpu04"), 1);
  EXPECT_EQ(gpus("gpu05"), 4);
  EXPECT_EQ(gpus("gpu06"), 4);
  EXPECT_EQ(inv.nodes[NodeOf(inv, "gpu01")].gpu_model, "a100");  // from gres/gpu:a100
  EXPECT_EQ(inv.nodes[NodeOf(inv, "gpu05")].gpu_model, "h100");
  EXPECT_EQ(inv.nodes[0].cluster, "hpc1");
  size_t whole_units = 0;
  for (const GpuUnit& u : inv.units) {
    EXPECT_EQ(u.resource, "nvidia.com/gpu");
    EXPECT_EQ(u.fraction, 1.0);
    ++whole_units;
  }
  EXPECT_EQ(whole_units, 14u);
}

TEST(SlurmTimelineTest, ConfiguredGpuCountsAddIdleGpusAndAreRaisedWhenTooLow) {
  SlurmOptions o = BerlinDay();
  o.default_gpus_per_node = 4;
  o.gpus_per_node = {{"gpu05", 2}};
  o.default_gpu_model = "NVIDIA A100-SXM4-40GB";
  const SlurmTimeline t = Load("basic.txt", o);
  const Inventory& inv = t.inventory;
  EXPECT_EQ(inv.nodes[NodeOf(inv, "gpu01")].physical_gpus, 4);
  EXPECT_EQ(inv.nodes[NodeOf(inv, "gpu05")].physical_gpus, 4);
  EXPECT_EQ(inv.nodes[NodeOf(inv, "gpu01")].gpu_model, "NVIDIA A100-SXM4-40GB");
  bool warned = false;
  for (const InputWarning& w : t.warnings) {
    warned = warned || w.message.find("node gpu05: jobs held 4 GPUs") != std::string::npos;
  }
  EXPECT_TRUE(warned);
}

TEST(SlurmTimelineTest, MigGresBecomeMigSlices) {
  SlurmOptions o;
  o.format.time_zone = "UTC";
  o.cluster = "hpc2";
  const SlurmTimeline t = Load("mig_p.txt", o);
  const Inventory& inv = t.inventory;
  ASSERT_EQ(inv.nodes.size(), 1u);
  EXPECT_EQ(inv.nodes[0].cluster, "hpc2");  // no Cluster field: the option
  EXPECT_EQ(inv.nodes[0].sharing, SharingMode::kMig);
  EXPECT_EQ(inv.nodes[0].gpu_model, "a100");  // from the a100_1g.5gb type
  // 5 x 1g.5gb and 1 x 3g.20gb at once: 8 of 7 slices -> two GPUs, 6/7 of the second unused.
  EXPECT_EQ(inv.nodes[0].physical_gpus, 2);
  std::map<std::string, int> holdable;
  double capacity = 0;
  for (const GpuUnit& u : inv.units) {
    capacity += u.fraction;
    if (u.holdable) {
      ++holdable[u.resource];
      EXPECT_EQ(u.partition.kind, PartitionKind::kMig);
    } else {
      EXPECT_NEAR(u.fraction, 6.0 / 7, 1e-12);
    }
    if (u.mig_profile == "1g.5gb") {
      EXPECT_NEAR(u.fraction, 1.0 / 7, 1e-12);
    }
    if (u.mig_profile == "3g.20gb") {
      EXPECT_NEAR(u.fraction, 3.0 / 7, 1e-12);
    }
  }
  EXPECT_NEAR(capacity, 2.0, 1e-12);
  EXPECT_EQ(holdable["nvidia.com/mig-1g.5gb"], 5);
  EXPECT_EQ(holdable["nvidia.com/mig-3g.20gb"], 1);
  auto ann = HoldingsOf(inv, HolderOf(inv, "501"));
  ASSERT_EQ(ann.size(), 1u);
  EXPECT_EQ(ann[0]->request.resource, "nvidia.com/mig-1g.5gb");
  EXPECT_EQ(ann[0]->request.count, 3);
  EXPECT_EQ(HoldingsOf(inv, HolderOf(inv, "502"))[0]->request.count, 2);
  // No window given: the file's span.
  EXPECT_EQ(t.window, (Window{At(0), At(1)}));
}

TEST(SlurmAttributionTest, EngineChargesJobsAndConservesNodeCost) {
  const SlurmTimeline t = Load("basic.txt", BerlinDay());
  const Inventory& inv = t.inventory;
  AttributionOptions ao;
  ao.window = t.window;
  Sink sink;
  auto summary = Attribute(inv, Usage{}, Flat(2.0), ao, sink);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_TRUE(summary->warnings.empty()) << Join(summary->warnings, "; ");
  struct Expect {
    std::string job;
    double gpu_hours;
  };
  const std::vector<Expect> expected = {
      {"1001", 2.0},          {"2736118_0", 1022.0 / 3600}, {"2736118_1", 1.0},
      {"77+0", 2.0},          {"77+1", 1.0},                {"48412394", 262.0 / 3600},
      {"1003", 10.0},         {"1005", 16.0},               {"1006", 3.0},
  };
  double allocated = 0;
  for (const Expect& e : expected) {
    const HolderIndex h = HolderOf(inv, e.job);
    EXPECT_NEAR(sink.gpu_hours[h], e.gpu_hours, 1e-9) << e.job;
    EXPECT_NEAR(sink.allocated[h], 2.0 * e.gpu_hours, 1e-9) << e.job;
    allocated += sink.allocated[h];
  }
  const double node_cost = 14 * 24 * 2.0;  // 14 GPUs, 24 h, $2
  EXPECT_NEAR(summary->node_cost_usd, node_cost, 1e-9);
  EXPECT_NEAR(summary->allocated_usd, allocated, 1e-9);
  EXPECT_NEAR(allocated + sink.idle_usd, node_cost, 1e-9 * node_cost);
}

TEST(SlurmAttributionTest, MigSlicesAreChargedTheirFraction) {
  SlurmOptions o;
  o.format.time_zone = "UTC";
  const SlurmTimeline t = Load("mig_p.txt", o);
  AttributionOptions ao;
  ao.window = t.window;
  Sink sink;
  auto summary = Attribute(t.inventory, Usage{}, Flat(12.0), ao, sink);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_NEAR(sink.allocated[HolderOf(t.inventory, "501")], 12.0 * 3 / 7, 1e-9);
  EXPECT_NEAR(sink.allocated[HolderOf(t.inventory, "502")], 12.0 * 2 / 7, 1e-9);
  EXPECT_NEAR(sink.allocated[HolderOf(t.inventory, "503")], 12.0 * 3 / 7, 1e-9);
  EXPECT_NEAR(sink.idle_usd, 12.0 * 6 / 7, 1e-9);
  EXPECT_NEAR(summary->allocated_usd + summary->idle_usd, 24.0, 1e-9);
}

TEST(SlurmMergeTest, AppendsWithShiftedIndexesAndAttributesTogether) {
  LoadedTimeline k8s;
  k8s.window = {At(0), At(24)};
  k8s.span = k8s.window;
  Node n;
  n.cluster = "k1";
  n.name = "kube-a";
  n.physical_gpus = 1;
  k8s.inventory.nodes.push_back(n);
  GpuUnit u;
  u.node = 0;
  u.gpu_uuid = "GPU-k";
  u.resource = "nvidia.com/gpu";
  k8s.inventory.units.push_back(u);
  Holder pod;
  pod.namespace_name = "ml";
  pod.pod = "p";
  pod.container = "c";
  k8s.inventory.holders.push_back(pod);
  Holding hold;
  hold.holder = 0;
  hold.node = 0;
  hold.interval = {At(0), At(6)};
  hold.units = {0};
  k8s.inventory.holdings.push_back(hold);
  k8s.warnings.push_back(InputWarning{"k.prom", 3, "k8s warning", 1});

  const SlurmTimeline slurm = Load("basic.txt", BerlinDay());
  MergeSlurmTimeline(k8s, slurm);
  const Inventory& inv = k8s.inventory;
  ASSERT_EQ(inv.nodes.size(), 7u);
  ASSERT_EQ(inv.units.size(), 15u);
  ASSERT_EQ(inv.holders.size(), 10u);
  EXPECT_EQ(inv.holdings[0].units, std::vector<UnitIndex>{0});
  for (size_t i = 1; i < inv.units.size(); ++i) EXPECT_GE(inv.units[i].node, 1u);
  const HolderIndex j = HolderOf(inv, "1001");
  EXPECT_GE(j, 1u);
  auto hs = HoldingsOf(inv, j);
  ASSERT_EQ(hs.size(), 1u);
  EXPECT_EQ(inv.nodes[hs[0]->node].name, "gpu01");
  EXPECT_EQ(k8s.window, (Window{At(0), At(24)}));
  EXPECT_EQ(k8s.warnings.size(), 1u + slurm.warnings.size());

  AttributionOptions ao;
  ao.window = k8s.window;
  Sink sink;
  auto summary = Attribute(inv, k8s.usage, Flat(1.0), ao, sink);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_NEAR(sink.allocated[0], 6.0, 1e-9);  // the pod
  EXPECT_NEAR(sink.allocated[j], 2.0, 1e-9);  // the Slurm job
  EXPECT_NEAR(summary->node_cost_usd, 15 * 24.0, 1e-9);
  EXPECT_NEAR(summary->allocated_usd + summary->idle_usd, summary->node_cost_usd, 1e-9);
}

TEST(SlurmLoadTest, MissingFileIsAnIoErrorNamingIt) {
  auto r = LoadSacct("/nonexistent/sacct.txt", BerlinDay());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIoError);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("/nonexistent/sacct.txt"));
}

TEST(SlurmLoadTest, ToLoadedTimelineCarriesThePiece) {
  const SlurmTimeline t = Load("basic.txt", BerlinDay());
  const LoadedTimeline lt = ToLoadedTimeline(t);
  EXPECT_EQ(lt.inventory.holders.size(), 9u);
  EXPECT_EQ(lt.window, (Window{At(0), At(24)}));
  EXPECT_EQ(lt.span, (Window{At(0), At(24)}));  // 1005 starts 00:00Z, 1003 runs to the end
  EXPECT_TRUE(lt.usage.devices.empty());
}

}  // namespace
}  // namespace gpucost::slurm
