// The spool: a file per target and minute (and the hourly files of earlier versions), which files a window needs, pruning, torn-tail repair,
// and that what it holds loads through the CLI's input path (LoadInput).
#include "scrape/spool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_test_util.h"
#include "cli/input_flags.h"

namespace gpucost::scrape {
namespace {

using ::testing::ElementsAre;
using testing_util::TempDir;
namespace fs = std::filesystem;
using std::chrono::hours;
using std::chrono::minutes;

Instant At(std::string_view text) { return *ParseInstant(text); }

const ScrapeTarget kDcgm{"dcgm", "http://10.0.0.7:9400/metrics", {}};
const ScrapeTarget kKsm{"ksm", "http://10.0.0.9:8080/metrics", {}};

std::string Names(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& p : paths) {
    const std::string name = fs::path(p).filename().string();
    out += name.substr(0, name.find('_') + 4) + " ";
  }
  return out;
}

TEST(Spool, OneFilePerTargetPerMinute) {
  TempDir dir;
  Spool spool((dir.path() / "spool").string());
  ASSERT_TRUE(spool.Open().ok());
  ASSERT_TRUE(spool.Append(kDcgm, At("2026-10-01T10:59:30Z"), "a 1 1\n").ok());
  ASSERT_TRUE(spool.Append(kDcgm, At("2026-10-01T11:00:00Z"), "a 2 2\n").ok());
  ASSERT_TRUE(spool.Append(kDcgm, At("2026-10-01T11:00:30Z"), "a 3 3\n").ok());
  ASSERT_TRUE(spool.Append(kKsm, At("2026-10-01T11:00:30Z"), "b 1 3\n").ok());
  ASSERT_TRUE(spool.Append(kDcgm, At("2026-10-01T11:07:10Z"), "a 4 4\n").ok());
  EXPECT_EQ(Spool::FileName(kDcgm, At("2026-10-01T11:00:30Z")),
            "20261001T1100Z_" + TargetFileKey(kDcgm) + ".prom");
  EXPECT_EQ(dir.Read("spool/" + Spool::FileName(kDcgm, At("2026-10-01T11:00:30Z"))),
            "a 2 2\na 3 3\n");
  // Window 11:00-11:30 with 5m staleness reaches back to 10:55: the 10:59 minute.
  Result<std::vector<std::string>> files =
      spool.Files({At("2026-10-01T11:00:00Z"), At("2026-10-01T11:30:00Z")}, minutes(5));
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(Names(*files),
            "20261001T1059Z_dcg 20261001T1100Z_dcg 20261001T1100Z_ksm 20261001T1107Z_dcg ");
  // Only the minutes a window needs: not the rest of the hour.
  files = spool.Files({At("2026-10-01T11:05:00Z"), At("2026-10-01T11:07:00Z")}, minutes(5));
  EXPECT_EQ(Names(*files), "20261001T1100Z_dcg 20261001T1100Z_ksm ");
  files = spool.Files({At("2026-10-01T11:08:00Z"), At("2026-10-01T11:30:00Z")}, minutes(0));
  EXPECT_TRUE(files->empty());
}

TEST(Spool, ReadsAndPrunesTheHourlyFilesOfEarlierVersions) {
  TempDir dir;
  Spool spool(dir.path().string());
  ASSERT_TRUE(spool.Open().ok());
  dir.Write("20261001T09Z_" + TargetFileKey(kDcgm) + ".prom", "a 1 1\n");
  ASSERT_TRUE(spool.Append(kDcgm, At("2026-10-01T08:59:00Z"), "a 0 0\n").ok());
  ASSERT_TRUE(spool.Append(kDcgm, At("2026-10-01T10:00:00Z"), "a 2 2\n").ok());
  // In time order: the hour between the two minutes.
  Result<std::vector<std::string>> files =
      spool.Files({At("2026-10-01T09:30:00Z"), At("2026-10-01T10:30:00Z")}, minutes(40));
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(Names(*files), "20261001T0859Z_dcg 20261001T09Z_dcg 20261001T1000Z_dcg ");
  // The hour ends at 10:00: kept by a cutoff of 09:59, removed by one of 10:00.
  ASSERT_EQ(spool.Prune(At("2026-10-01T11:59:00Z"), hours(2))->files_removed, 1);  // 08:59
  ASSERT_EQ(spool.Prune(At("2026-10-01T12:00:00Z"), hours(2))->files_removed, 1);  // 09
  files = spool.Files({At("2026-10-01T00:00:00Z"), At("2026-10-02T00:00:00Z")}, minutes(0));
  EXPECT_EQ(Names(*files), "20261001T1000Z_dcg ");
}

TEST(Spool, PrunesWholeMinutesOlderThanTheRetentionAndNothingElse) {
  TempDir dir;
  Spool spool(dir.path().string());
  ASSERT_TRUE(spool.Open().ok());
  for (const char* t : {"2026-10-01T09:28:10Z", "2026-10-01T09:29:10Z", "2026-10-01T09:30:10Z"}) {
    ASSERT_TRUE(spool.Append(kDcgm, At(t), "a 1 1\n").ok());
  }
  dir.Write("notes.txt", "not a spool file");
  // Retention 2h at 11:30: 09:28 ended 09:29 <= 09:30 and goes, so does 09:29 (ends 09:30);
  // 09:30 ends 09:31 and stays.
  Result<PruneStats> pruned = spool.Prune(At("2026-10-01T11:30:00Z"), hours(2));
  ASSERT_TRUE(pruned.ok()) << pruned.status().ToString();
  EXPECT_EQ(pruned->files_removed, 2);
  EXPECT_EQ(pruned->bytes_removed, 12u);
  Result<std::vector<std::string>> left =
      spool.Files({At("2026-10-01T00:00:00Z"), At("2026-10-02T00:00:00Z")}, minutes(0));
  EXPECT_EQ(Names(*left), "20261001T0930Z_dcg ");
  EXPECT_TRUE(fs::exists(dir.path() / "notes.txt"));
}

TEST(Spool, CutsATornTailBeforeAppending) {
  TempDir dir;
  const std::string name = Spool::FileName(kDcgm, At("2026-10-01T10:00:00Z"));
  dir.Write(name, "a 1 1000\na{x=\"half");  // a crash in the middle of a write
  Spool spool(dir.path().string());
  ASSERT_TRUE(spool.Open().ok());
  ASSERT_TRUE(spool.Append(kDcgm, At("2026-10-01T10:00:30Z"), "a 2 2000\n").ok());
  EXPECT_EQ(dir.Read(name), "a 1 1000\na 2 2000\n");
}

TEST(Spool, SeveralTargetsAndHoursLoadThroughTheCliInputPath) {
  TempDir dir;
  Spool spool(dir.path().string());
  ASSERT_TRUE(spool.Open().ok());
  // One metric from two dcgm-exporters (two nodes) across an hour boundary.
  const ScrapeTarget other{"dcgm", "http://10.0.0.8:9400/metrics", {}};
  const auto scrape = [](const std::string& host, const std::string& uuid, int64_t ms, double v) {
    return "# HELP DCGM_FI_PROF_GR_ENGINE_ACTIVE Ratio of time the graphics engine is active.\n"
           "# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n"
           "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"" +
           uuid + "\",device=\"nvidia0\",modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=\"" + host +
           "\",job=\"dcgm\",instance=\"" + host + ":9400\"} " + std::to_string(v) + " " +
           std::to_string(ms) + "\n";
  };
  const Instant t0 = At("2026-10-01T10:50:00Z");
  for (int i = 0; i < 40; ++i) {
    const Instant t = t0 + std::chrono::seconds(30 * i);
    ASSERT_TRUE(spool.Append(kDcgm, t, scrape("node-a", "GPU-a", UnixMs(t), 0.5)).ok());
    ASSERT_TRUE(spool.Append(other, t, scrape("node-b", "GPU-b", UnixMs(t), 0.25)).ok());
  }
  const Window window{At("2026-10-01T10:55:00Z"), At("2026-10-01T11:05:00Z")};
  Result<std::vector<std::string>> files = spool.Files(window, minutes(5));
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 30u);  // 10:50 to 11:04, two targets
  cli::InputFlags flags;
  flags.inputs = *files;
  const auto reading = spool.LockForReading();
  Result<cli::LoadedInput> input = cli::LoadInput(flags, window, minutes(1));
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ(input->timeline.samples, 60u);  // the 15 minutes read, not the 20 written
  EXPECT_EQ(input->timeline.parse_errors, 0u);
  EXPECT_EQ(input->timeline.usage.devices.size(), 2u) << "one usage series per GPU";
}

}  // namespace
}  // namespace gpucost::scrape
