// Prints the demo's report: each team's allocated, effective and wasted $/h from its own MIG
// slices, and how that differs from a cluster-wide utilization scalar.
#pragma once

#include "demo/demo_cluster.h"

namespace gpucost::cli {

// Returns the process exit code.
int PrintDemoReport(const DemoCluster& demo);

}  // namespace gpucost::cli
