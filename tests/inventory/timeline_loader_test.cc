#include "inventory/timeline_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

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

// A directory with no input files in it says so (and which names it reads), rather than "the
// input holds no samples".
TEST(TimelineLoader, ADirectoryWithNoInputFilesSaysSo) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gpucost-empty-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "notes.md") << "not an input\n";
  auto r = ExpandInputPaths({dir.string()});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find(dir.string() + ": a directory with no input files in it"),
            std::string::npos)
      << r.status().ToString();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpucost
