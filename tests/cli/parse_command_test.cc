// Runs the real gpucost binary on the files in tests/cli/data/parse/.
#include <gtest/gtest.h>

#include <string>

#include "cli/cli_test_util.h"

namespace {

using gpucost::testing_util::Contains;
using gpucost::testing_util::RunResult;

RunResult RunGpucost(const std::string& args, const std::string& stdin_file = "") {
  std::string cmd = std::string("cd '") + GPUCOST_SOURCE_DIR + "/tests/cli/data/parse' && '" +
                    GPUCOST_BINARY + "' " + args + " 2>&1";
  if (!stdin_file.empty()) cmd += " < " + stdin_file;
  return gpucost::testing_util::RunShell(cmd);
}

TEST(ParseCommand, GoodFileSummary) {
  const RunResult r = RunGpucost("parse good.prom");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "total: 3 metrics, 5 series, 7 samples, 13 lines, 1458 bytes; 0 errors, 0 warnings"))
      << r.output;
  // metric, type, series, samples, first, last
  EXPECT_TRUE(Contains(r.output, "DCGM_FI_DEV_GPU_UTIL                  gauge                   2           4  "
                                 "2026-09-21T14:13:20Z      2026-09-21T14:13:50Z"))
      << r.output;
  // The type of "http_requests_total" comes from its family's TYPE line.
  EXPECT_TRUE(Contains(r.output, "http_requests_total                   counter                 1           1"))
      << r.output;
}

TEST(ParseCommand, GzipAndStdinGiveTheSameSummary) {
  const RunResult gz = RunGpucost("parse good.prom.gz");
  EXPECT_EQ(gz.exit_code, 0) << gz.output;
  EXPECT_TRUE(Contains(gz.output, "total: 3 metrics, 5 series, 7 samples, 13 lines")) << gz.output;
  const RunResult in = RunGpucost("parse -", "good.prom.gz");
  EXPECT_EQ(in.exit_code, 0) << in.output;
  EXPECT_TRUE(Contains(in.output, "total: 3 metrics, 5 series, 7 samples, 13 lines")) << in.output;
}

TEST(ParseCommand, BadLinesAreReportedWithLineNumbersAndExitOne) {
  const RunResult r = RunGpucost("parse bad.prom");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "total: 1 metrics, 3 series, 3 samples, 7 lines, 414 bytes; 3 errors")) << r.output;
  EXPECT_TRUE(Contains(r.output, "bad.prom:3: expected ',' or '}' after the value of label \"pod\", found 'a'"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "bad.prom:5: expected ',' or '}' after the value of label \"namespace\""))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "bad.prom:6: invalid value \"one\" for metric \"kube_pod_info\"")) << r.output;
}

TEST(ParseCommand, MaxErrorsLimitsPrintedErrorsButNotTheCount) {
  const RunResult r = RunGpucost("parse --max-errors 1 bad.prom");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.output, "errors (3):")) << r.output;
  EXPECT_TRUE(Contains(r.output, "bad.prom:3:")) << r.output;
  EXPECT_FALSE(Contains(r.output, "bad.prom:5:")) << r.output;
  EXPECT_TRUE(Contains(r.output, "... and 2 more")) << r.output;
}

TEST(ParseCommand, StrictStopsAtFirstErrorWithExitTwo) {
  const RunResult r = RunGpucost("parse --strict bad.prom");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "bad.prom:3: expected ',' or '}'")) << r.output;
  EXPECT_EQ(RunGpucost("parse --strict good.prom").exit_code, 0);
}

TEST(ParseCommand, DuplicateAndOutOfOrderWarnings) {
  const RunResult r = RunGpucost("parse warnings.prom");
  EXPECT_EQ(r.exit_code, 0) << r.output;  // warnings do not fail the check
  EXPECT_TRUE(Contains(r.output, "2 series, 5 samples")) << r.output;
  EXPECT_TRUE(Contains(r.output, "warnings.prom:2: duplicate sample for up{job=\"a\"} at 2026-09-21T14:13:50Z"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "warnings.prom:3: out-of-order sample for up{job=\"a\"}: 2026-09-21T14:13:20Z is "
                                 "before 2026-09-21T14:13:50Z"))
      << r.output;
  // An empty label is an absent one, so this is the same series as line 4.
  EXPECT_TRUE(Contains(r.output, "warnings.prom:5: duplicate sample for up{job=\"b\",extra=\"\"} (both without a "
                                 "timestamp)"))
      << r.output;
}

TEST(ParseCommand, MissingFileIsExitTwoAndOtherFilesStillRun) {
  const RunResult r = RunGpucost("parse does-not-exist.prom good.prom");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output, "does-not-exist.prom: cannot open")) << r.output;
  EXPECT_TRUE(Contains(r.output, "7 samples")) << r.output;
}

TEST(ParseCommand, OpenMetricsFormatRequiresEof) {
  const RunResult r = RunGpucost("parse --format openmetrics good.prom");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Contains(r.output, "good.prom:13: OpenMetrics input must end with \"# EOF\"")) << r.output;
}

TEST(ParseCommand, HelpDocumentsExitCodes) {
  const RunResult r = RunGpucost("parse --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(Contains(r.output, "Exit code: 0 clean, 1 some lines were malformed, 2")) << r.output;
  EXPECT_TRUE(Contains(r.output, "--max-errors")) << r.output;
}

}  // namespace
