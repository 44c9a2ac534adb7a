// `gpucost demo`: attributes the built-in demo cluster (the seed scenario of DESIGN.md) and says
// how the result differs from a cluster-wide utilization scalar.
#include <cstdio>
#include <fstream>
#include <string>

#include "cli/commands.h"
#include "cli/demo_report.h"
#include "core/log.h"
#include "demo/demo_cluster.h"

namespace gpucost::cli {
namespace {

// A fixed hour so the demo prints the same numbers everywhere.
constexpr int64_t kDemoStartMs = 1790812800000;  // 2026-10-01T00:00:00Z

struct DemoFlags {
  std::string write_openmetrics;
};

int RunDemo(const DemoFlags& flags) {
  const DemoCluster demo = MakeDemoCluster(InstantFromUnixMs(kDemoStartMs));
  if (!flags.write_openmetrics.empty()) {
    std::ofstream out(flags.write_openmetrics, std::ios::binary);
    out << demo.openmetrics;
    if (!out) {
      LogError("cannot write " + flags.write_openmetrics);
      return 2;
    }
    std::printf("wrote the demo's input (%zu bytes, OpenMetrics) to %s\n", demo.openmetrics.size(),
                flags.write_openmetrics.c_str());
    return 0;
  }
  return PrintDemoReport(demo);
}

}  // namespace

void AddDemoCommand(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<DemoFlags>();
  CLI::App* cmd = app.add_subcommand(
      "demo",
      "Attribute the built-in demo cluster: one A100-40GB in MIG single strategy, seven 1g.5gb "
      "slices held 3/2/2 by namespaces bu-a, bu-b and bu-c for one hour at $12/GPU-hour");
  cmd->add_option("--write-openmetrics", flags->write_openmetrics,
                  "Write the demo's input (kube-state-metrics and dcgm-exporter series) to FILE "
                  "instead, as OpenMetrics that `gpucost report --input` and `promtool tsdb "
                  "create-blocks-from openmetrics` accept");
  cmd->callback([flags, &exit_code] { exit_code = RunDemo(*flags); });
}

}  // namespace gpucost::cli
