#include "inventory/timeline_loader.h"

#include <gtest/gtest.h>

namespace gpucost {
namespace {

TEST(TimelineLoader, OpenMetricsTextWithSecondTimestampsAndABadLine) {
  const std::string text =
      "# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-a\",Hostname=\"n1\"} 0.5 1700000000\n"
      "this line is broken {\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-a\",Hostname=\"n1\"} 0.25 1700000030\n"
      "# EOF\n";
  auto r = LoadTimelineFromText(text, TimelineOptions{}, "demo.om");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->usage.devices.size(), 1u);
  ASSERT_EQ(r->usage.devices[0].samples.size(), 2u);
  EXPECT_EQ(UnixMs(r->usage.devices[0].samples[1].t), 1700000030000);
  EXPECT_EQ(UnixMs(r->span.start), 1700000000000);
  EXPECT_EQ(r->parse_errors, 1u);
  ASSERT_FALSE(r->warnings.empty());
  EXPECT_NE(r->warnings[0].ToString().find("demo.om:3:"), std::string::npos);
}

TEST(TimelineLoader, MissingPathIsAnError) {
  EXPECT_FALSE(LoadTimelineFromFiles({"/nonexistent/gpucost/input"}, TimelineOptions{}).ok());
}

}  // namespace
}  // namespace gpucost
