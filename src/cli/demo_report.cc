#include "cli/demo_report.h"

#include <fmt/core.h>

#include <cmath>

#include "core/log.h"
#include "inventory/timeline_loader.h"
#include "pipeline/report_pipeline.h"
#include "pricing/price_fn.h"

namespace gpucost::cli {
namespace {

constexpr int kSlices = 7;

struct TeamLine {
  std::string team;
  double slices = 0;
  double allocated = 0;  // $/h
  double effective = 0;
  double utilization = 0;
};

}  // namespace

int PrintDemoReport(const DemoCluster& demo) {
  TimelineOptions topts;
  topts.window = demo.window;
  auto timeline = LoadTimelineFromText(demo.openmetrics, topts, "demo.om");
  if (!timeline.ok()) {
    LogError(timeline.status().ToString());
    return 2;
  }
  ReportSettings settings;
  settings.window = demo.window;
  settings.accumulate = true;
  settings.by = {Dimension{DimensionKind::kTeam, ""}};
  auto run = RunReport(*timeline, FlatPriceFn(DemoCluster::kPricePerGpuHour), settings);
  if (!run.ok()) {
    LogError(run.status().ToString());
    return 2;
  }
  const double hours = Hours(demo.window.length());
  std::vector<TeamLine> teams;
  double idle = 0;
  for (const ReportRow& row : run->report.rows) {
    if (row.is_idle) {
      idle += row.idle_usd / hours;
      continue;
    }
    teams.push_back(TeamLine{row.values[0], row.gpu_hours / hours * kSlices,
                             row.allocated_usd / hours, row.effective_usd / hours,
                             row.utilization});
  }
  std::sort(teams.begin(), teams.end(),
            [](const TeamLine& a, const TeamLine& b) { return a.team < b.team; });

  fmt::print("gpucost demo: one NVIDIA A100-SXM4-40GB in MIG single strategy, seven 1g.5gb slices,\n"
             "$12.00/GPU-hour, {} to {}, 60 s steps. Per hour:\n\n",
             FormatRfc3339(demo.window.start), FormatRfc3339(demo.window.end));
  fmt::print("{:<6} {:>6} {:>14} {:>12} {:>14} {:>10}\n", "team", "slices", "allocated $/h",
             "utilization", "effective $/h", "waste $/h");
  double total_alloc = 0, total_eff = 0;
  for (const TeamLine& t : teams) {
    fmt::print("{:<6} {:>6.0f} {:>14.6f} {:>11.1f}% {:>14.6f} {:>10.6f}\n", t.team, t.slices,
               t.allocated, 100 * t.utilization, t.effective, t.allocated - t.effective);
    total_alloc += t.allocated;
    total_eff += t.effective;
  }
  const double cluster_u = total_eff / total_alloc;
  fmt::print("{:<6} {:>6d} {:>14.6f} {:>11.1f}% {:>14.6f} {:>10.6f}\n", "total", kSlices,
             total_alloc, 100 * cluster_u, total_eff, total_alloc - total_eff);
  fmt::print("idle   {:.6f} $/h; allocated + idle = {:.6f} $/h = the node's GPU cost\n\n", idle,
             total_alloc + idle);

  // The two differences from a cluster-wide scalar, computed from the same data.
  const TeamLine* low = &teams.front();
  const TeamLine* high = &teams.front();
  for (const TeamLine& t : teams) {
    if (t.utilization < low->utilization) low = &t;
    if (t.utilization > high->utilization) high = &t;
  }
  fmt::print(
      "One cluster-wide utilization ({:.1f}%) smeared over every team would put {}'s effective "
      "cost at ${:.2f}/h and {}'s at ${:.2f}/h;\nfrom their own slices they are ${:.2f}/h "
      "({:.1f}% busy) and ${:.2f}/h ({:.1f}% busy).\n",
      100 * cluster_u, low->team, low->allocated * cluster_u, high->team,
      high->allocated * cluster_u, low->effective, 100 * low->utilization, high->effective,
      100 * high->utilization);
  fmt::print(
      "Dividing the 0-1 DCGM_FI_PROF_GR_ENGINE_ACTIVE ratio by 100 again (as AWS's EKS GPU cost "
      "recipe does) "
      "would report {:.2f}% utilization and ${:.2f}/h of waste instead of ${:.2f}/h.\n",
      cluster_u, total_alloc * (1 - cluster_u / 100), total_alloc - total_eff);
  return 0;
}

}  // namespace gpucost::cli
