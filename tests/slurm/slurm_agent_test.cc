// Slurm jobs measured by the node agent (`slurm_job` series from the jobs' cgroups), joined to the
// sacct holders by MergeSlurmTimeline and checked through the real engine: the job's rows use its
// own measured activity on the GPUs the agent saw it on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "attribution/attributor.h"
#include "core/strings.h"
#include "inventory/timeline_loader.h"
#include "slurm/slurm_test_util.h"
#include "slurm/slurm_timeline.h"

namespace gpucost::slurm {
namespace {

using ::testing::HasSubstr;

constexpr int kMinutes = 240;  // the window: four hours

constexpr std::string_view kHeader =
    "JobID|JobIDRaw|Cluster|Account|Partition|AllocTRES|Start|End|State|NodeList|NTasks|"
    "TRESUsageInTot\n";

// A GPU job row of `gpus` GPUs from hour `from` to hour `to` (single digits, same day).
std::string Job(std::string_view id, std::string_view raw, int gpus, int from, int to,
                std::string_view nodes = "gpu01") {
  return StrCat(id, "|", raw, "|hpc1|physics|gpu|cpu=8,gres/gpu=", gpus, "|2026-03-02T0", from,
                ":00:00|2026-03-02T0", to, ":00:00|COMPLETED|", nodes, "||\n");
}

// One sample a minute over the window where f(minute) is not NaN.
template <typename F>
std::string Series(std::string_view name_and_labels, F f) {
  std::string out;
  for (int m = 0; m < kMinutes; ++m) {
    const double v = f(m);
    if (std::isnan(v)) continue;
    out += StrCat(name_and_labels, " ", v, " ", (kDay + m * 60) * 1000, "\n");
  }
  return out;
}

std::string Uuid(int gpu) { return StrCat("GPU-", gpu); }

// The agent on `node`: its GPUs, each at `unit_activity` all along, every process measured.
std::string AgentGpus(std::string_view node, int gpus, double unit_activity) {
  std::string out;
  for (int g = 0; g < gpus; ++g) {
    const std::string id = StrCat("node=\"", node, "\",gpu_uuid=\"", Uuid(g), "\"");
    out += Series(StrCat("gpucost_agent_gpu_info{", id, ",gpu_index=\"", g,
                         "\",model=\"NVIDIA A100-SXM4-80GB\",mig_mode=\"disabled\"}"),
                  [](int) { return 1.0; });
    out += Series(StrCat("gpucost_agent_unit_activity_ratio{", id, ",source=\"gpm\"}"),
                  [&](int) { return unit_activity; });
    out += Series(
        StrCat("gpucost_agent_nvml_supported{", id, ",call=\"nvmlDeviceGetProcessUtilization\"}"),
        [](int) { return 1.0; });
  }
  return out;
}

// A Slurm job's processes on a GPU: `v` over minutes [from, to).
std::string AgentJob(std::string_view node, int gpu, std::string_view job, double v, int from,
                     int to) {
  return Series(StrCat("gpucost_agent_holder_activity_ratio{node=\"", node, "\",gpu_uuid=\"",
                       Uuid(gpu), "\",slurm_job=\"", job, "\"}"),
                [&](int m) { return m >= from && m < to ? v : std::nan(""); });
}

// The exposition files' timeline with the sacct piece merged in, as `gpucost report` does.
LoadedTimeline Merged(const std::string& exposition, const std::string& sacct) {
  TimelineOptions to;
  to.window = Window{At(0), At(kMinutes / 60.0)};
  auto t = LoadTimelineFromText(exposition, to, "agent.prom");
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  auto piece = LoadSacctText(StrCat(kHeader, sacct), UtcHours(kMinutes / 60.0), "sacct.txt");
  EXPECT_TRUE(piece.ok()) << piece.status().ToString();
  if (!t.ok() || !piece.ok()) return {};
  MergeSlurmTimeline(*t, std::move(*piece), "default");
  return std::move(*t);
}

// Attributes at $2/GPU-hour: the nodes' GPU cost is every GPU over the whole window.
Sink AttributeAtTwoDollars(const LoadedTimeline& t) {
  AttributionSummary summary;
  Sink sink = Attribute(t, 2.0, &summary);
  double gpus = 0;
  for (const Node& n : t.inventory.nodes) gpus += n.physical_gpus;
  EXPECT_NEAR(summary.node_cost_usd, gpus * 2.0 * kMinutes / 60.0, 1e-9);
  return sink;
}

std::string UnitUuid(const LoadedTimeline& t, const Sink& sink, HolderIndex h) {
  const std::set<UnitIndex>& units = sink.units.at(h);
  EXPECT_EQ(units.size(), 1u);
  return units.empty() ? std::string() : t.inventory.units[*units.begin()].gpu_uuid;
}

size_t WarningsWith(const LoadedTimeline& t, std::string_view needle) {
  size_t n = 0;
  for (const InputWarning& w : t.warnings)
    n += w.ToString().find(needle) != std::string::npos ? 1 : 0;
  return n;
}

TEST(SlurmAgentTest, JobRowsUseTheAgentsPerJobActivityOnItsGpu) {
  // Both GPUs run at 0.5 (GPM). Job 4001 holds one GPU for hours 0-2; the agent sees its
  // processes on GPU-1 at 0.3 for the first hour and none in the second (measured idle). Its
  // batch step's gres/gpuutil (90) is not used.
  const std::string sacct =
      Job("4001", "4001", 1, 0, 2) +
      "4001.batch|4001.batch|hpc1|physics||cpu=8,gres/gpu=1|2026-03-02T00:00:00|"
      "2026-03-02T02:00:00|COMPLETED|gpu01|1|gres/gpuutil=90\n";
  const LoadedTimeline t =
      Merged(AgentGpus("gpu01", 2, 0.5) + AgentJob("gpu01", 1, "4001", 0.3, 0, 60), sacct);
  ASSERT_EQ(t.inventory.nodes.size(), 1u) << "the agent's node is taken over by the Slurm node";
  EXPECT_EQ(t.inventory.nodes[0].cluster, "hpc1");
  EXPECT_EQ(t.inventory.nodes[0].physical_gpus, 2);
  const HolderIndex h = HolderOf(t.inventory, "4001");
  const Sink sink = AttributeAtTwoDollars(t);
  // Drawn from the pool it would get GPU-0 (lowest index); the agent pins it to GPU-1.
  EXPECT_EQ(UnitUuid(t, sink, h), "GPU-1");
  EXPECT_NEAR(sink.gpu_hours.at(h), 2.0, 1e-9);
  EXPECT_NEAR(sink.activity.at(h), 1.0 * 0.3 + 1.0 * 0.0, 1e-9);
  EXPECT_NEAR(sink.effective.at(h), 0.3 * 2.0, 1e-9);
  EXPECT_NEAR(sink.unmeasured.at(h), 0.0, 1e-12);
  EXPECT_FALSE(sink.estimated.at(h));
  EXPECT_EQ(WarningsWith(t, "not joined"), 0u);
  EXPECT_EQ(WarningsWith(t, "node agent"), 0u);
}

TEST(SlurmAgentTest, JobsWithoutAnAgentSeriesKeepTheirGpusActivity) {
  // 4002 has no series of its own: it draws from the pool and gets its GPU's activity, as before.
  const LoadedTimeline t =
      Merged(AgentGpus("gpu01", 2, 0.5) + AgentJob("gpu01", 1, "4001", 0.3, 0, 60),
             Job("4001", "4001", 1, 0, 2) + Job("4002", "4002", 1, 0, 1));
  const Sink sink = AttributeAtTwoDollars(t);
  const HolderIndex h = HolderOf(t.inventory, "4002");
  EXPECT_EQ(UnitUuid(t, sink, h), "GPU-0");
  EXPECT_NEAR(sink.activity.at(h), 0.5, 1e-9);
  EXPECT_NEAR(sink.activity.at(HolderOf(t.inventory, "4001")), 0.3, 1e-9);
}

TEST(SlurmAgentTest, JobIdAsJobIdRawOrAsSacctPrintsIt) {
  // Array task 4002_7 (JobIDRaw 4010) labelled with its raw id, as the cgroup job_4010 names it;
  // array task 4003_1 (JobIDRaw 4020) labelled with the id as sacct prints it.
  const LoadedTimeline t = Merged(
      AgentGpus("gpu01", 2, 0.5) + AgentJob("gpu01", 0, "4020", 0.4, 0, 60) +
          AgentJob("gpu01", 0, "4003_1", 0.6, 60, 120) + AgentJob("gpu01", 1, "4010", 0.8, 60, 120),
      Job("4002_7", "4010", 1, 1, 2) + Job("4003_1", "4020", 1, 1, 2));
  const Sink sink = AttributeAtTwoDollars(t);
  const HolderIndex raw = HolderOf(t.inventory, "4002_7"),
                    printed = HolderOf(t.inventory, "4003_1");
  EXPECT_EQ(UnitUuid(t, sink, raw), "GPU-1");
  EXPECT_NEAR(sink.activity.at(raw), 0.8, 1e-9);
  EXPECT_EQ(UnitUuid(t, sink, printed), "GPU-0");
  // Both ids on GPU-0 are the job's; the "4020" samples end before the job starts.
  EXPECT_NEAR(sink.activity.at(printed), 0.6, 1e-9);
  EXPECT_NEAR(sink.unmeasured.at(printed), 0.0, 1e-12);
}

TEST(SlurmAgentTest, HetJobComponentMatchesTheLeadingIdWhenAloneOnTheNode) {
  // Het job 4100: component +0 (JobIDRaw 4100) on gpu01, component +1 (JobIDRaw 4101) on gpu02.
  // gpu02's series carries the leading id 4100; +1 is the only component there, so it is its.
  const LoadedTimeline t = Merged(
      AgentGpus("gpu01", 2, 0.5) + AgentGpus("gpu02", 2, 0.5) +
          AgentJob("gpu01", 1, "4100", 0.2, 0, 60) + AgentJob("gpu02", 1, "4100", 0.7, 0, 60),
      Job("4100+0", "4100", 1, 0, 1) + Job("4100+1", "4101", 1, 0, 1, "gpu02"));
  const Sink sink = AttributeAtTwoDollars(t);
  const HolderIndex lead = HolderOf(t.inventory, "4100+0"), other = HolderOf(t.inventory, "4100+1");
  EXPECT_NEAR(sink.activity.at(lead), 0.2, 1e-9);
  EXPECT_NEAR(sink.activity.at(other), 0.7, 1e-9);
  EXPECT_EQ(UnitUuid(t, sink, other), "GPU-1");
  EXPECT_EQ(t.inventory.nodes[t.inventory.units[*sink.units.at(other).begin()].node].name, "gpu02");
  EXPECT_EQ(WarningsWith(t, "node agent"), 0u);
}

TEST(SlurmAgentTest, SeriesOfAnUnknownJobAreWarnedAndIgnored) {
  // Job 9999 is not in sacct's output: its series is named in a warning and changes no row;
  // 4001 (no series) keeps its GPU's activity.
  const LoadedTimeline t =
      Merged(AgentGpus("gpu01", 1, 0.5) + AgentJob("gpu01", 0, "9999", 0.9, 0, 60),
             Job("4001", "4001", 1, 0, 1));
  EXPECT_EQ(WarningsWith(t,
                         "node agent: GPU activity of Slurm job 9999 on node gpu01 matches no "
                         "Slurm job holding GPUs on that node"),
            1u);
  const Sink sink = AttributeAtTwoDollars(t);
  const HolderIndex h = HolderOf(t.inventory, "4001");
  EXPECT_NEAR(sink.activity.at(h), 0.5, 1e-9);
  for (const HolderDeviceSeries& s : t.usage.holders) EXPECT_NE(s.holder, h);
}

TEST(SlurmAgentTest, AgentPreferredOverDcgmHpcJobLabels) {
  // dcgm-exporter labels GPU-0 with job 4001 at 0.9; the agent measures 4001's processes on
  // GPU-1 at 0.3 (unit activity 0.5). The agent's pin and per-job activity win.
  std::string dcgm = "# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n";
  for (int g = 0; g < 2; ++g) {
    dcgm += Series(
        StrCat("DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"", g, "\",UUID=\"", Uuid(g),
               "\",device=\"nvidia", g, "\",modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=\"gpu01\"",
               g == 0 ? ",hpc_job=\"4001\"" : "", "}"),
        [](int) { return 0.9; });
  }
  LoadedTimeline t =
      Merged(dcgm + AgentGpus("gpu01", 2, 0.5) + AgentJob("gpu01", 1, "4001", 0.3, 0, 120),
             Job("4001", "4001", 1, 0, 2));
  ASSERT_EQ(t.inventory.nodes.size(), 1u);
  ASSERT_FALSE(t.device_jobs.empty());
  const HolderIndex h = HolderOf(t.inventory, "4001");
  const Sink sink = AttributeAtTwoDollars(t);
  EXPECT_EQ(UnitUuid(t, sink, h), "GPU-1");
  EXPECT_NEAR(sink.activity.at(h), 2 * 0.3, 1e-9);
}

TEST(SlurmAgentTest, TooManyMeasuredGpusDrawFromThePoolWithTheirSeries) {
  // 4001 holds one GPU but the agent saw it on both: a warning; the job draws from the pool
  // (GPU-0) and still uses its own series there.
  const LoadedTimeline t =
      Merged(AgentGpus("gpu01", 2, 0.5) + AgentJob("gpu01", 0, "4001", 0.1, 0, 60) +
                 AgentJob("gpu01", 1, "4001", 0.3, 0, 60),
             Job("4001", "4001", 1, 0, 1));
  EXPECT_EQ(WarningsWith(t, "slurm job 4001 on node gpu01: the node agent measures 2 devices"), 1u);
  const Sink sink = AttributeAtTwoDollars(t);
  const HolderIndex h = HolderOf(t.inventory, "4001");
  EXPECT_EQ(UnitUuid(t, sink, h), "GPU-0");
  EXPECT_NEAR(sink.activity.at(h), 0.1, 1e-9);
}

}  // namespace
}  // namespace gpucost::slurm
