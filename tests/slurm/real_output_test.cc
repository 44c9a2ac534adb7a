// Output recorded from a real Slurm 22.05.8 (tests/slurm/data/real_22.05_*; how: the files'
// headers), read the way gpucost reads sacct's live output: what the hand-written data had missed,
// and the rules it called for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "slurm/billing_weights.h"
#include "slurm/sacct_runner.h"
#include "slurm_test_util.h"

namespace gpucost::slurm {
namespace {

// 2026-11-28T02:36:00Z .. 02:40:00Z, the window the file was recorded for.
constexpr int64_t kRecorded = 1795833360;

SlurmOptions Recorded() {
  SlurmOptions o;
  o.format.time_zone = "UTC";
  o.format.fields = SacctFields();  // recorded with --noheader, as gpucost runs sacct
  o.window =
      Window{InstantFromUnixMs(kRecorded * 1000), InstantFromUnixMs((kRecorded + 240) * 1000)};
  return o;
}

// GPU-seconds of each job id (summed over its holders), from the holdings.
std::map<std::string, double> GpuSecondsByJob(const Inventory& inv) {
  std::map<std::string, double> out;
  for (const Holding& h : inv.holdings) {
    const double s = Seconds(h.interval.end - h.interval.start);
    out[inv.holders[h.holder].pod] +=
        s * (h.units.empty() ? h.request.count : static_cast<double>(h.units.size()));
  }
  return out;
}

// sacct --duplicates prints every run of a requeued job, each with the same JobIDRaw: each run is
// a holder of its own, so the GPUs the first run held are charged (without --duplicates sacct
// printed only the last run and the first one's GPU time went to idle).
TEST(RealOutputTest, EveryRunOfARequeuedJobIsCharged) {
  const SlurmTimeline t = Load("real_22.05_duplicates.txt", Recorded());
  EXPECT_EQ(t.stats.malformed_lines, 0u);
  int runs = 0;
  for (const Holder& h : t.inventory.holders) {
    if (h.pod == "2") {
      ++runs;
      EXPECT_EQ(h.pod_uid, "2");
    }
  }
  EXPECT_EQ(runs, 2);
  // Two holders, two identities (the ledger's key): the runs share a minute and a GPU.
  const HolderIndex first = HolderOf(t.inventory, "2");
  EXPECT_EQ(t.inventory.holders[first].container, "requeued@2026-11-28T02:37:12Z");
  std::set<std::string> identities;
  for (const Holder& h : t.inventory.holders) {
    if (h.pod == "2") identities.insert(HolderIdentity(h));
  }
  EXPECT_EQ(identities.size(), 2u);
  const auto seconds = GpuSecondsByJob(t.inventory);
  EXPECT_DOUBLE_EQ(seconds.at("2"), 2.0 + 2.0);   // 02:37:12-14 (REQUEUED), 02:37:15-17
  EXPECT_DOUBLE_EQ(seconds.at("4"), 2 * 3.0);     // 2 GPUs, 3 s; its steps are not holders
  EXPECT_DOUBLE_EQ(seconds.at("11+1"), 2 * 1.0);  // het component on the other node
  EXPECT_EQ(seconds.size(), 8u) << "1, 2, 3_0, 3_1, 3_2, 4, 11+0, 11+1";
}

// Het jobs cancelled while pending: Start=None, an End, NodeList "None assigned", no AllocTRES.
// Skipped as pending, not malformed.
TEST(RealOutputTest, HetJobsCancelledWhilePendingAreSkippedQuietly) {
  const SlurmTimeline t = Load("real_22.05_duplicates.txt", Recorded());
  EXPECT_EQ(t.stats.malformed_lines, 0u);
  EXPECT_EQ(t.stats.pending_skipped, 4u);  // 7+0, 7+1, 9+0, 9+1
  for (const InputWarning& w : t.warnings) ADD_FAILURE() << w.message;
}

// Node gpunode has `Gres=gpu:a100:4,gpu:l4:2`: jobs that asked for a100 hold a100 units, jobs
// that asked for l4 hold l4 units, and the node's units are of both models (it used to have one
// model or none: "the single GRES type its jobs named").
TEST(RealOutputTest, ANodeOfTwoGpuTypesHasUnitsOfEach) {
  const SlurmTimeline t = Load("real_22.05_duplicates.txt", Recorded());
  const Inventory& inv = t.inventory;
  const NodeIndex n = NodeOf(inv, "gpunode");
  std::map<std::string, int> models;
  for (const GpuUnit& u : inv.units) {
    if (u.node == n) ++models[u.gpu_model];
  }
  // At most 2 + 1 + 1 a100 at one time (job 1 alone, the array's three tasks at once, job 4's two),
  // and one l4 (job 2).
  EXPECT_EQ(models["a100"], 3);
  EXPECT_EQ(models["l4"], 1);
  EXPECT_EQ(inv.nodes[n].physical_gpus, 4);
  for (const Holding& h : inv.holdings) {
    if (h.node != n) continue;
    const std::string& job = inv.holders[h.holder].pod;
    const std::string want = job == "2" ? "l4" : "a100";
    ASSERT_EQ(h.units.size(), static_cast<size_t>(h.request.count)) << job;
    for (UnitIndex u : h.units) EXPECT_EQ(inv.units[u].gpu_model, want) << job;
  }
  // Attributed: every GPU-second lands on a unit of the job's type; nothing is oversubscribed.
  const LoadedTimeline lt = ToLoadedTimeline(t);
  const Sink sink = Attribute(lt, 3.6);
  EXPECT_NEAR(sink.gpu_hours.at(HolderOf(inv, "4")) * 3600.0, 6.0, 1e-9);
  for (UnitIndex u : sink.units.at(HolderOf(inv, "4"))) EXPECT_EQ(inv.units[u].gpu_model, "a100");
}

// Rows each under the per-job bound but many at once on one node (148 jobs of 65,536 GPUs took all
// memory): the node's units stop at what a node can have, the jobs share them, and it is said.
TEST(RealOutputTest, JobsHoldingMoreThanANodeHasAtOnceAreCappedAndSaid) {
  std::string text = "JobID|JobIDRaw|AllocTRES|Start|End|State|NodeList\n";
  for (int i = 1; i <= 3; ++i) {
    text +=
        StrCat(i, "|", i, "|gres/gpu=40000|2026-03-02T00:00:00|2026-03-02T01:00:00|COMPLETED|n1\n");
  }
  auto t = LoadSacctText(text, UtcHours(1), "big.txt");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->inventory.nodes.size(), 1u);
  EXPECT_EQ(t->inventory.nodes[0].physical_gpus, 65536);
  EXPECT_EQ(t->inventory.units.size(), 65536u);
  bool said = false;
  for (const InputWarning& w : t->warnings) {
    said |= w.message.find(
                "jobs held 120000 GPUs and MIG slices at one time, more than a node "
                "has (at most 65536)") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

// On a node of two types, a job that named no single type draws from untyped units of its own
// (as many as such jobs held at once), and a configured GPU count adds untyped units: no GPU is
// held twice.
TEST(RealOutputTest, UntypedJobsOnANodeOfTwoTypesDrawUntypedUnits) {
  const std::string text =
      "JobID|JobIDRaw|Account|Partition|AllocTRES|Start|End|State|NodeList\n"
      "1|1|ml|gpu|cpu=1,gres/gpu:a100=2,gres/gpu=2,node=1|2026-03-02T00:00:00|"
      "2026-03-02T01:00:00|COMPLETED|n1\n"
      "2|2|ml|gpu|cpu=1,gres/gpu:l4=1,gres/gpu=1,node=1|2026-03-02T00:00:00|"
      "2026-03-02T01:00:00|COMPLETED|n1\n"
      "3|3|ml|gpu|cpu=1,gres/gpu=1,node=1|2026-03-02T00:30:00|2026-03-02T01:00:00|COMPLETED|n1\n";
  SlurmOptions o = UtcHours(1);
  auto t = LoadSacctText(text, o);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  const Inventory& inv = t->inventory;
  std::map<std::string, int> models;
  for (const GpuUnit& u : inv.units) ++models[u.gpu_model];
  EXPECT_EQ(models, (std::map<std::string, int>{{"", 1}, {"a100", 2}, {"l4", 1}}));
  EXPECT_EQ(inv.nodes[0].physical_gpus, 4);
  AttributionSummary summary;
  const Sink sink = Attribute(ToLoadedTimeline(*t), 3.6, &summary);
  EXPECT_NEAR(sink.gpu_hours.at(HolderOf(inv, "3")), 0.5, 1e-9);
  for (UnitIndex u : sink.units.at(HolderOf(inv, "3"))) EXPECT_EQ(inv.units[u].gpu_model, "");
  for (UnitIndex u : sink.units.at(HolderOf(inv, "1"))) EXPECT_EQ(inv.units[u].gpu_model, "a100");

  o.default_gpus_per_node = 6;
  auto six = LoadSacctText(text, o);
  ASSERT_TRUE(six.ok());
  EXPECT_EQ(six->inventory.nodes[0].physical_gpus, 6);
}

// A node that ran one type keeps the old rule: its model is that type.
TEST(RealOutputTest, ANodeOfOneTypeKeepsThatModel) {
  const SlurmTimeline t = Load("real_22.05_duplicates.txt", Recorded());
  const Inventory& inv = t.inventory;
  const NodeIndex n = NodeOf(inv, "gpunode2");
  EXPECT_EQ(inv.nodes[n].gpu_model, "l4");
  for (const Holding& h : inv.holdings) {
    if (h.node == n) {
      EXPECT_TRUE(h.units.empty()) << "drawn from the node's pool";
    }
  }
}

// `scontrol show partition` as 22.05 prints it: the weights of both partitions, and each job's
// recomputed billing equal to the billing= Slurm recorded (no warning).
TEST(RealOutputTest, ScontrolShowPartitionWeights) {
  auto w = LoadBillingWeights(DataPath("real_22.05_scontrol_show_partition.txt"));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->partitions.size(), 2u);
  EXPECT_DOUBLE_EQ(w->partitions.at("gpu").at("gres/gpu").weight, 2.0);
  EXPECT_DOUBLE_EQ(w->partitions.at("premium").at("gres/gpu:a100").weight, 8.0);
  EXPECT_DOUBLE_EQ(w->partitions.at("premium").at("gres/gpu:l4").weight, 3.0);
  SlurmOptions o = Recorded();
  o.billing = *w;
  const SlurmTimeline t = Load("real_22.05_duplicates.txt", o);
  for (const InputWarning& warning : t.warnings) ADD_FAILURE() << warning.message;
  auto billing = BillingOf("billing=7,cpu=1,gres/gpu:l4=2,gres/gpu=2,node=1",
                           w->partitions.at("premium"), false);
  ASSERT_TRUE(billing.ok());
  EXPECT_DOUBLE_EQ(*billing, 7.0);
}

}  // namespace
}  // namespace gpucost::slurm
