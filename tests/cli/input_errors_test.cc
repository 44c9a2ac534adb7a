// Input that gives nothing to attribute is an error that says where and what to do: a saved
// /metrics scrape (no timestamps) names its file:line and --untimestamped-at, which takes it as
// one scrape; unreadable bytes name their first lines, in every command that reads --input.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"

namespace {

using gpucost::testing_util::Contains;
using gpucost::testing_util::RunResult;
using gpucost::testing_util::RunShell;
using gpucost::testing_util::TempDir;

RunResult RunInputCommand(const std::string& args) {
  return RunShell(std::string("'") + GPUCOST_BINARY + "' " + args + " 2>&1");
}

// The golden whole-GPU case's first scrape as `curl <exporter>/metrics` saves it: no timestamps.
std::string UntimestampedScrape() {
  std::ifstream in(std::string(GPUCOST_SOURCE_DIR) +
                   "/tests/golden/cases/whole_gpu/input/scrape.prom");
  const std::string first = " 1790812800000";
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("#")) {
      out += line + "\n";
    } else if (line.ends_with(first)) {
      out += line.substr(0, line.size() - first.size()) + "\n";
    }
  }
  return out;
}

TEST(InputErrors, AScrapeWithoutTimestampsSaysSoAndHowToUseIt) {
  const TempDir dir;
  const std::string live = dir.Write("live.prom", UntimestampedScrape());
  const RunResult r = RunInputCommand("report --input '" + live + "'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, live + ":3: ")) << r.output;
  EXPECT_TRUE(Contains(r.output, "samples without a timestamp")) << r.output;
  EXPECT_TRUE(Contains(r.output, "--untimestamped-at")) << r.output;
  // Taken as one scrape at a given time, it is attributed.
  const RunResult one =
      RunInputCommand("report --input '" + live +
                      "' --untimestamped-at 2026-10-01T00:00:00Z --price-per-gpu-hour 4");
  EXPECT_EQ(one.exit_code, 0) << one.output;
  EXPECT_TRUE(Contains(one.output, "over 2026-10-01T00:00:00Z to ")) << one.output;
  const RunResult bad =
      RunInputCommand("report --input '" + live + "' --untimestamped-at yesterday");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_TRUE(Contains(bad.output, "--untimestamped-at \"yesterday\"")) << bad.output;
}

TEST(InputErrors, UnreadableBytesNameTheirFirstLinesInEveryCommand) {
  const TempDir dir;
  const std::string junk = dir.Write("junk.prom", "\x01\x02\x03\n)(*&\n=== ===\n{}\n~\n");
  for (const std::string cmd : {"report", "chargeback --by team", "alerts", "prices"}) {
    const RunResult r = RunInputCommand(cmd + " --input '" + junk + "'");
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, "5 malformed lines")) << cmd << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, junk + ":1: ")) << cmd << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, junk + ":3: ")) << cmd << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, "and 2 more")) << cmd << "\n" << r.output;
  }
}

}  // namespace
