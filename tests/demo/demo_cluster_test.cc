#include "demo/demo_cluster.h"

#include <gtest/gtest.h>

namespace gpucost {
namespace {

size_t Count(const std::string& s, std::string_view needle) {
  size_t n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

TEST(DemoCluster, IsTheSeedScenario) {
  const DemoCluster d = MakeDemoCluster(InstantFromUnixMs(1790812800000));
  EXPECT_EQ(d.window.length(), std::chrono::hours(1));
  // Seven 1g.5gb slices, one per pod: 3 in bu-a, 2 in bu-b, 2 in bu-c, 120 scrapes each.
  EXPECT_EQ(Count(d.openmetrics, "GPU_I_PROFILE=\"1g.5gb\""), 7u * 120);
  EXPECT_EQ(Count(d.openmetrics, "kube_pod_container_resource_requests{namespace=\"bu-a\""), 3u * 120);
  EXPECT_EQ(Count(d.openmetrics, "kube_pod_container_resource_requests{namespace=\"bu-b\""), 2u * 120);
  EXPECT_EQ(Count(d.openmetrics, "kube_pod_container_resource_requests{namespace=\"bu-c\""), 2u * 120);
  EXPECT_EQ(d.openmetrics.substr(d.openmetrics.size() - 6), "# EOF\n");
}

TEST(DemoCluster, IsDeterministic) {
  const Instant t = InstantFromUnixMs(1790812800000);
  EXPECT_EQ(MakeDemoCluster(t).openmetrics, MakeDemoCluster(t).openmetrics);
}

}  // namespace
}  // namespace gpucost
