// Slurm jobs' utilization (steps' gres/gpuutil; dcgm-exporter hpc_job labels after a merge),
// billing units from TRESBillingWeights, and the slurm.partition node label, checked through
// the real engine.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "attribution/attributor.h"
#include "core/strings.h"
#include "inventory/timeline_loader.h"
#include "slurm/billing_weights.h"
#include "slurm/slurm_test_util.h"
#include "slurm/slurm_timeline.h"

namespace gpucost::slurm {
namespace {

using ::testing::HasSubstr;

TEST(SlurmGpuUtilTest, StepsGpuutilBecomesTheJobsUtilization) {
  SlurmTimeline t = Load("gpuutil.txt", UtcHours(4));
  EXPECT_EQ(t.stats.gpuutil_jobs, 2u);
  ASSERT_EQ(t.usage.holders.size(), 2u);
  for (const HolderDeviceSeries& s : t.usage.holders) {
    EXPECT_EQ(s.node, kNoIndex);
    EXPECT_EQ(s.gpu_uuid, "");
  }
  const Inventory inv = t.inventory;
  const Sink sink = Attribute(ToLoadedTimeline(std::move(t)), 1.0);
  const HolderIndex a = HolderOf(inv, "3001"), b = HolderOf(inv, "3002"), c = HolderOf(inv, "3003");
  // 3001: 2 GPUs x (1 h at 120/200 + 1 h at 180/200).
  EXPECT_NEAR(sink.gpu_hours.at(a), 4.0, 1e-9);
  EXPECT_NEAR(sink.activity.at(a), 2 * 0.6 + 2 * 0.9, 1e-9);
  EXPECT_NEAR(sink.unmeasured.at(a), 0.0, 1e-12);
  // 3002: TRESUsageInAve 45 x NTasks 1 on one GPU.
  EXPECT_NEAR(sink.activity.at(b), 0.45, 1e-9);
  // 3003 has no usage TRES: unmeasured, as before.
  EXPECT_NEAR(sink.unmeasured.at(c), 1.0, 1e-9);
  EXPECT_FALSE(sink.activity.contains(c));
}

TEST(SlurmGpuUtilTest, SamplesAreSpacedBelowTheStalenessLimit) {
  SlurmOptions o = UtcHours(4);
  o.usage_sample_interval = std::chrono::minutes(10);
  const SlurmTimeline t = Load("gpuutil.txt", o);
  const HolderIndex a = HolderOf(t.inventory, "3001");
  const HolderDeviceSeries* s = nullptr;
  for (const HolderDeviceSeries& x : t.usage.holders) {
    if (x.holder == a) s = &x;
  }
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->samples.size(), 12u);  // 2 h every 10 min; the step boundary at 1 h is one of them
  EXPECT_EQ(s->samples.front().t, At(0));
  EXPECT_DOUBLE_EQ(s->samples.front().value, 0.6);
  EXPECT_DOUBLE_EQ(s->samples[6].value, 0.9);
  EXPECT_EQ(s->samples[6].t, At(1));
}

TEST(SlurmNodeLabelTest, NodesCarryTheirPartitionsSorted) {
  const SlurmTimeline t = Load("gpuutil.txt", UtcHours(4));
  const Inventory& inv = t.inventory;
  EXPECT_EQ(inv.nodes[NodeOf(inv, "gpu01")].labels.Get("slurm.partition"), "debug,gpu");
  EXPECT_EQ(inv.nodes[NodeOf(inv, "gpu02")].labels.Get("slurm.partition"), "gpu");
}

TEST(SlurmBillingTest, RecordedBillingIsUsedWithoutWeights) {
  const SlurmTimeline t = Load("gpuutil.txt", UtcHours(4));
  const Inventory& inv = t.inventory;
  EXPECT_DOUBLE_EQ(inv.holders[HolderOf(inv, "3001")].billing_per_gpu_hour, 20.0 / 2);
  EXPECT_DOUBLE_EQ(inv.holders[HolderOf(inv, "3002")].billing_per_gpu_hour, 4.0);
}

TEST(SlurmBillingTest, WeightsFromScontrolRecomputeBilling) {
  SlurmOptions o = UtcHours(4);
  auto w = LoadBillingWeights(DataPath("scontrol_partitions.txt"));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  o.billing = *w;
  const SlurmTimeline t = Load("gpuutil.txt", o);
  const Inventory& inv = t.inventory;
  // gpu: CPU=0.5, Mem=0.0625 per GB, GRES/gpu=4: 16x0.5 + 128x0.0625 + 2x4 = 24 over 2 GPUs.
  EXPECT_DOUBLE_EQ(inv.holders[HolderOf(inv, "3001")].billing_per_gpu_hour, 12.0);
  // debug has no weights: billed its CPUs.
  EXPECT_DOUBLE_EQ(inv.holders[HolderOf(inv, "3002")].billing_per_gpu_hour, 4.0);
  EXPECT_DOUBLE_EQ(inv.holders[HolderOf(inv, "3003")].billing_per_gpu_hour, 10.0);
  bool warned = false;
  for (const InputWarning& x : t.warnings) {
    warned = warned || x.message.find("Slurm recorded billing=20") != std::string::npos;
  }
  EXPECT_TRUE(warned) << "a recomputed billing that differs from Slurm's is reported";

  o.billing->max_tres = true;  // max(8, 8, 8) for 3001; max(4, 2, 4) for 3003
  const SlurmTimeline m = Load("gpuutil.txt", o);
  EXPECT_DOUBLE_EQ(m.inventory.holders[HolderOf(m.inventory, "3001")].billing_per_gpu_hour, 4.0);
  EXPECT_DOUBLE_EQ(m.inventory.holders[HolderOf(m.inventory, "3003")].billing_per_gpu_hour, 4.0);
}

TEST(SlurmBillingTest, UnknownPartitionHasNoBillingAndIsReported) {
  SlurmOptions o = UtcHours(4);
  auto w = ParseBillingWeights("PartitionName=other TRESBillingWeights=CPU=1\n", "w.txt");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  o.billing = *w;
  const SlurmTimeline t = Load("gpuutil.txt", o);
  EXPECT_TRUE(std::isnan(t.inventory.holders[HolderOf(t.inventory, "3001")].billing_per_gpu_hour));
  bool warned = false;
  for (const InputWarning& x : t.warnings) {
    warned = warned || x.message.find("partition \"gpu\" is not in the billing weights") != std::string::npos;
  }
  EXPECT_TRUE(warned);
}

// dcgm-exporter series of gpu01's two A100s, GR_ENGINE_ACTIVE, one sample a minute over 4 h.
// Job 3001 (hours 0-2) is labelled on both GPUs (0.2 and 0.4); job 3002 (hours 2-3) on GPU 1
// only (0.7) while GPU 0 runs unlabelled at 0.1.
std::string DcgmText() {
  std::string out = "# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n";
  for (int m = 0; m < 240; ++m) {
    const int64_t ms = (kDay + m * 60) * 1000;
    for (int g = 0; g < 2; ++g) {
      std::string job;
      double v = 0;
      if (m < 120) {
        job = "3001";
        v = g == 0 ? 0.2 : 0.4;
      } else if (m < 180) {
        job = g == 1 ? "3002" : "";
        v = g == 1 ? 0.7 : 0.1;
      }
      out += StrCat("DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"", g, "\",UUID=\"GPU-", g,
                    "\",device=\"nvidia", g, "\",modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=\"gpu01\"",
                    job.empty() ? std::string() : StrCat(",hpc_job=\"", job, "\""), "} ", v, " ",
                    ms, "\n");
    }
  }
  return out;
}

LoadedTimeline DcgmTimeline() {
  TimelineOptions to;
  to.window = Window{At(0), At(4)};
  auto r = LoadTimelineFromText(DcgmText(), to, "dcgm.prom");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : LoadedTimeline{};
}

TEST(SlurmDcgmMergeTest, HpcJobLabelsAreReadPerDevice) {
  const LoadedTimeline t = DcgmTimeline();
  std::map<std::string, int> jobs;
  for (const DeviceJob& j : t.device_jobs) {
    ++jobs[j.job];
    EXPECT_EQ(t.inventory.nodes[j.node].name, "gpu01");
  }
  EXPECT_EQ(jobs["3001"], 2);
  EXPECT_EQ(jobs["3002"], 1);
}

TEST(SlurmDcgmMergeTest, SlurmTakesOverDcgmNodesAndPinsLabelledGpus) {
  LoadedTimeline t = DcgmTimeline();
  ASSERT_EQ(t.inventory.nodes.size(), 1u);
  SlurmTimeline slurm = Load("gpuutil.txt", UtcHours(4));
  MergeSlurmTimeline(t, std::move(slurm), "default");
  const Inventory& inv = t.inventory;
  ASSERT_EQ(inv.nodes.size(), 2u);  // gpu01 taken over, gpu02 added
  const Node& n = inv.nodes[NodeOf(inv, "gpu01")];
  EXPECT_EQ(n.cluster, "hpc1");
  EXPECT_EQ(n.physical_gpus, 2);
  EXPECT_EQ(n.labels.Get("slurm.partition"), "debug,gpu");
  size_t gpu01_units = 0;
  for (const GpuUnit& u : inv.units) gpu01_units += inv.nodes[u.node].name == "gpu01" ? 1 : 0;
  EXPECT_EQ(gpu01_units, 2u) << "the real GPUs only, no synthesised ones beside them";

  const HolderIndex a = HolderOf(inv, "3001"), b = HolderOf(inv, "3002");
  // Pinned jobs are measured on their GPUs; their gres/gpuutil series is dropped.
  for (const HolderDeviceSeries& s : t.usage.holders) {
    EXPECT_NE(s.holder, a);
    EXPECT_NE(s.holder, b);
  }
  const Sink sink = Attribute(t, 1.0);
  EXPECT_NEAR(sink.gpu_hours.at(a), 4.0, 1e-9);
  EXPECT_NEAR(sink.activity.at(a), 2 * 0.2 + 2 * 0.4, 1e-9);
  // Drawn from the pool, 3002 would take GPU 0 (least loaded, lowest index) at 0.1.
  EXPECT_NEAR(sink.activity.at(b), 0.7, 1e-9);
  ASSERT_EQ(sink.units.at(b).size(), 1u);
  EXPECT_EQ(inv.units[*sink.units.at(b).begin()].gpu_uuid, "GPU-1");
  // 3003 ran on gpu02, which has no dcgm data.
  EXPECT_NEAR(sink.unmeasured.at(HolderOf(inv, "3003")), 1.0, 1e-9);
}

TEST(SlurmDcgmMergeTest, NodesOfAnotherLabelledClusterAreNotTakenOver) {
  LoadedTimeline t = DcgmTimeline();
  for (Node& n : t.inventory.nodes) n.cluster = "k8s-east";
  MergeSlurmTimeline(t, Load("gpuutil.txt", UtcHours(4)), "default");
  EXPECT_EQ(t.inventory.nodes.size(), 3u);
}

TEST(SlurmDcgmMergeTest, HetJobLabelledWithItsLeadingIdIsPinned) {
  const std::string sacct =
      "JobID|JobIDRaw|Cluster|Account|Partition|AllocTRES|Start|End|State|NodeList\n"
      "3002+0|3002|hpc1|chem|gpu|cpu=4,gres/gpu=1|2026-03-02T02:00:00|2026-03-02T03:00:00|COMPLETED|gpu01\n"
      "3002+1|3003|hpc1|chem|gpu|cpu=4|2026-03-02T02:00:00|2026-03-02T03:00:00|COMPLETED|gpu02\n";
  // The label reads "3002", which is also 3002+0's JobIDRaw; rename it to the leading id only.
  LoadedTimeline t = DcgmTimeline();
  for (DeviceJob& j : t.device_jobs) {
    if (j.job == "3002") j.job = "3000";
  }
  auto piece = LoadSacctText(sacct, UtcHours(4), "het.txt");
  ASSERT_TRUE(piece.ok()) << piece.status().ToString();
  // Make the component's leading id 3000 as Slurm would for a het job submitted as 3000.
  for (Holder& h : piece->inventory.holders) h.labels = h.labels.With("het_job_id", "3000");
  MergeSlurmTimeline(t, std::move(*piece), "default");
  const Sink sink = Attribute(t, 1.0);
  const HolderIndex h = HolderOf(t.inventory, "3002+0");
  EXPECT_NEAR(sink.activity.at(h), 0.7, 1e-9);
}

TEST(BillingWeightsTest, ParsesWeightsWithUnitSuffixes) {
  auto w = ParseTresBillingWeights("CPU=1.0,Mem=0.25G,GRES/gpu=2.0,GRES/gpu:a100=3,license/matlab=1.5");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_DOUBLE_EQ(w->at("cpu").weight, 1.0);
  EXPECT_DOUBLE_EQ(w->at("mem").weight, 0.25 / 1024);  // per MB
  EXPECT_DOUBLE_EQ(w->at("gres/gpu").weight, 2.0);
  EXPECT_DOUBLE_EQ(w->at("gres/gpu:a100").weight, 3.0);
  // Slurm's own example: mem=.25 on 8 GB bills 2048; mem=.25G bills 2.
  auto per_mb = ParseTresBillingWeights("Mem=.25");
  ASSERT_TRUE(per_mb.ok());
  EXPECT_DOUBLE_EQ(*BillingOf("mem=8G", *per_mb, false), 2048);
  EXPECT_DOUBLE_EQ(*BillingOf("mem=8192M", *ParseTresBillingWeights("Mem=.25G"), false), 2);
  EXPECT_FALSE(ParseTresBillingWeights("CPU").ok());
  EXPECT_THAT(std::string(ParseTresBillingWeights("CPU=x").status().message()), HasSubstr("CPU=x"));
}

TEST(BillingWeightsTest, SumsOrTakesTheMaxOfNodeTresAndTruncates) {
  auto w = ParseTresBillingWeights("CPU=1.0,Mem=0.25G,GRES/gpu=2.0,license/matlab=1.5");
  ASSERT_TRUE(w.ok());
  const std::string tres = "billing=99,cpu=8,gres/gpu:a100=1,gres/gpu=1,mem=64G,node=1,license/matlab=1";
  // 8 + 16 + 2 + 1.5 = 27.5 -> 27 (Slurm stores billing as an integer).
  EXPECT_DOUBLE_EQ(*BillingOf(tres, *w, false), 27);
  // MAX_TRES: max(8, 16, 2) + license 1.5 = 17.5 -> 17.
  EXPECT_DOUBLE_EQ(*BillingOf(tres, *w, true), 17);
  EXPECT_DOUBLE_EQ(*BillingOf(tres, {}, false), 8);  // no weights: the CPUs
  EXPECT_EQ(RecordedBilling(tres), 99.0);
  EXPECT_FALSE(RecordedBilling("cpu=8").has_value());
  EXPECT_FALSE(BillingOf("cpu=eight", *w, false).ok());
}

TEST(BillingWeightsTest, ReadsOneLinePartitionsSlurmConfAndPriorityFlags) {
  const std::string text =
      "PartitionName=a AllowGroups=ALL TRESBillingWeights=CPU=2 State=UP\n"
      "PartitionName=b Nodes=gpu[01-04] TRESBillingWeights=\"CPU=1.0,GRES/gpu=8\" Default=YES\n"
      "PriorityFlags           = SMALL_RELATIVE_TO_TIME,MAX_TRES\n";
  auto w = ParseBillingWeights(text, "conf");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_TRUE(w->max_tres);
  EXPECT_DOUBLE_EQ(w->partitions.at("a").at("cpu").weight, 2.0);
  EXPECT_DOUBLE_EQ(w->partitions.at("b").at("gres/gpu").weight, 8.0);
  auto bad = ParseBillingWeights("PartitionName=a\n  TRESBillingWeights=CPU=1,GPU\n", "p.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("p.txt:2"));
  EXPECT_FALSE(ParseBillingWeights("nothing here\n", "x").ok());
  EXPECT_EQ(LoadBillingWeights("/nonexistent/w").status().code(), StatusCode::kIoError);
}

}  // namespace
}  // namespace gpucost::slurm
