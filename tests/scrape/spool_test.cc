// The spool: a zstd file per target and minute (and the gzip and text files of earlier versions),
// which files a window needs, pruning by age and size, torn-frame repair, a full disk, and that
// what it holds loads through the CLI's input path (LoadInput).
#include "scrape/spool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_test_util.h"
#include "ingest/exposition.h"
#include "pipeline/input.h"
#include "scrape/spool_codec.h"

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

// A spool file's text: its frames decompressed one after another.
std::string Inflated(const std::filesystem::path& path) {
  Result<std::unique_ptr<ByteSource>> src = OpenByteSource(path.string());
  if (!src.ok()) return "<" + src.status().ToString() + ">";
  std::string out;
  char buf[4096];
  while (true) {
    Result<size_t> got = (*src)->Read(buf, sizeof buf);
    if (!got.ok()) return out + "<" + got.status().ToString() + ">";
    if (*got == 0) return out;
    out.append(buf, *got);
  }
}

uint64_t SizeOfFiles(const std::filesystem::path& dir) {
  uint64_t bytes = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().find("Z_") != std::string::npos) bytes += e.file_size();
  }
  return bytes;
}

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
            "20261001T1100Z_" + TargetFileKey(kDcgm) + ".prom.zst");
  // Two scrapes, two zstd frames: one stream to a reader.
  const fs::path minute = dir.path() / "spool" / Spool::FileName(kDcgm, At("2026-10-01T11:00:30Z"));
  EXPECT_EQ(dir.Read("spool/" + minute.filename().string()).substr(0, 4), "\x28\xb5\x2f\xfd");
  EXPECT_EQ(Inflated(minute), "a 2 2\na 3 3\n");
  EXPECT_EQ(spool.Stats().files, 4u);
  EXPECT_EQ(spool.Stats().bytes, SizeOfFiles(dir.path() / "spool"));
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

TEST(Spool, ReadsAndPrunesTheFilesOfEarlierVersions) {
  TempDir dir;
  // An hour file and a minute file of text, and a minute file of gzip members, as earlier
  // versions wrote them.
  dir.Write("20261001T09Z_" + TargetFileKey(kDcgm) + ".prom", "a 1 1\n");
  dir.Write("20261001T1000Z_" + TargetFileKey(kKsm) + ".prom", "b 1 1\n");
  const std::string gz_name = "20261001T1000Z_" + TargetFileKey(kDcgm) + "x.prom.gz";
  {
    gzFile gz = gzopen((dir.path() / gz_name).c_str(), "wb6");
    ASSERT_NE(gz, nullptr);
    ASSERT_EQ(gzputs(gz, "c 1 1\n"), 6);
    ASSERT_EQ(gzclose(gz), Z_OK);
  }
  const uint64_t gz_bytes = fs::file_size(dir.path() / gz_name);
  Spool spool(dir.path().string());
  ASSERT_TRUE(spool.Open().ok());
  EXPECT_EQ(spool.Stats().files, 3u) << "counted from the start";
  EXPECT_EQ(spool.Stats().bytes, 12u + gz_bytes);
  ASSERT_TRUE(spool.Append(kDcgm, At("2026-10-01T08:59:00Z"), "a 0 0\n").ok());
  ASSERT_TRUE(spool.Append(kDcgm, At("2026-10-01T10:00:00Z"), "a 2 2\n").ok());
  // In time order: the hour between the two minutes.
  Result<std::vector<std::string>> files =
      spool.Files({At("2026-10-01T09:30:00Z"), At("2026-10-01T10:30:00Z")}, minutes(40));
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(Names(*files),
            "20261001T0859Z_dcg 20261001T09Z_dcg 20261001T1000Z_dcg "
            "20261001T1000Z_dcg 20261001T1000Z_ksm ");
  // The hour ends at 10:00: kept by a cutoff of 09:59, removed by one of 10:00.
  ASSERT_EQ(spool.Prune(At("2026-10-01T11:59:00Z"), hours(2))->files_removed, 1);  // 08:59
  ASSERT_EQ(spool.Prune(At("2026-10-01T12:00:00Z"), hours(2))->files_removed, 1);  // 09
  files = spool.Files({At("2026-10-01T00:00:00Z"), At("2026-10-02T00:00:00Z")}, minutes(0));
  EXPECT_EQ(Names(*files), "20261001T1000Z_dcg 20261001T1000Z_dcg 20261001T1000Z_ksm ");
  // Text, gzip and zstd files of one window read back and load together.
  EXPECT_EQ(Inflated(dir.path() / gz_name), "c 1 1\n");
  EXPECT_EQ(Inflated(dir.path() / Spool::FileName(kDcgm, At("2026-10-01T10:00:00Z"))), "a 2 2\n");
  InputOptions flags;
  flags.inputs = *files;
  Result<LoadedInput> input =
      LoadInput(flags, Window{At("2026-10-01T10:00:00Z"), At("2026-10-01T10:01:00Z")}, minutes(1));
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ(input->timeline.parse_errors, 0u);
  ASSERT_EQ(spool.Prune(At("2026-10-01T12:01:00Z"), hours(2))->files_removed, 3);
  EXPECT_EQ(spool.Stats().files, 0u);
  EXPECT_EQ(spool.Stats().bytes, 0u);
  EXPECT_EQ(spool.Stats().removed_for_age, 5u);
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
  EXPECT_EQ(pruned->files_over_size, 0);
  EXPECT_EQ(pruned->bytes_removed, 2 * ZstdFrame("a 1 1\n", Spool::kDefaultZstdLevel)->size());
  Result<std::vector<std::string>> left =
      spool.Files({At("2026-10-01T00:00:00Z"), At("2026-10-02T00:00:00Z")}, minutes(0));
  EXPECT_EQ(Names(*left), "20261001T0930Z_dcg ");
  EXPECT_TRUE(fs::exists(dir.path() / "notes.txt"));
}

TEST(Spool, CutsATornLastFrameBeforeAppending) {
  TempDir dir;
  const std::string name = Spool::FileName(kDcgm, At("2026-10-01T10:00:00Z"));
  const auto frame = [](const char* text) { return *ZstdFrame(text, Spool::kDefaultZstdLevel); };
  const std::string torn = frame("a 2 1500\na{x=\"half\"} 3 1500\n");
  // A whole scrape, then a crash in the middle of writing the next one.
  dir.Write(name, frame("a 1 1000\n") + torn.substr(0, torn.size() / 2));
  Spool spool(dir.path().string());
  ASSERT_TRUE(spool.Open().ok());
  const uint64_t before = spool.Stats().bytes;
  ASSERT_TRUE(spool.Append(kDcgm, At("2026-10-01T10:00:30Z"), "a 2 2000\n").ok());
  EXPECT_EQ(Inflated(dir.path() / name), "a 1 1000\na 2 2000\n");
  EXPECT_EQ(dir.Read(name), frame("a 1 1000\n") + frame("a 2 2000\n")) << "whole frames only";
  EXPECT_EQ(spool.Stats().bytes, SizeOfFiles(dir.path()));
  EXPECT_LT(spool.Stats().bytes, before + frame("a 2 2000\n").size());
}

TEST(Spool, ATornFrameOfTheCurrentMinuteIsAnIssueForItsReader) {
  // A crash tore the minute's last append and nothing has appended to the file since: a reader
  // gets the whole scrapes and one warning of the file's damage (not a malformed line), and
  // fails nothing.
  TempDir dir;
  Spool spool(dir.path().string());
  ASSERT_TRUE(spool.Open().ok());
  const auto scrape = [](int64_t ms, double v) {
    return "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"node-a\","
           "modelName=\"NVIDIA A100-SXM4-80GB\"} " +
           std::to_string(v) + " " + std::to_string(ms) + "\n";
  };
  const Instant t = At("2026-10-01T10:00:00Z");
  ASSERT_TRUE(spool.Append(kDcgm, t, scrape(UnixMs(t), 0.5)).ok());
  const std::string torn = *ZstdFrame(scrape(UnixMs(t) + 30'000, 0.25), 1);
  std::ofstream(dir.path() / Spool::FileName(kDcgm, t), std::ios::binary | std::ios::app)
      << torn.substr(0, torn.size() - 3);
  InputOptions flags;
  flags.inputs = *spool.Files({t, t + minutes(1)}, minutes(0));
  Result<LoadedInput> input = LoadInput(flags, Window{t, t + minutes(1)}, minutes(1));
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ(input->timeline.parse_errors, 0u);
  size_t damaged = 0;
  for (const InputWarning& w : input->timeline.warnings) {
    damaged += w.message.find("zstd data") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(damaged, 1u);
  EXPECT_GE(input->timeline.samples, 1u);
}

TEST(Spool, PrunesTheOldestFilesPastTheSizeBound) {
  TempDir dir;
  Spool spool(dir.path().string());
  ASSERT_TRUE(spool.Open().ok());
  for (const char* t : {"2026-10-01T10:00:10Z", "2026-10-01T10:01:10Z", "2026-10-01T10:02:10Z",
                        "2026-10-01T10:03:10Z"}) {
    ASSERT_TRUE(spool.Append(kKsm, At(t), "b 1 1\n").ok());
    ASSERT_TRUE(spool.Append(kDcgm, At(t), "a 1 1\n").ok());
  }
  const uint64_t file = ZstdFrame("a 1 1\n", Spool::kDefaultZstdLevel)->size();
  ASSERT_EQ(spool.Stats().bytes, 8 * file);
  // No bound, or a bound it is within: nothing newer than the retention goes.
  EXPECT_EQ(spool.Prune(At("2026-10-01T10:04:00Z"), hours(1), 0)->files_removed, 0);
  EXPECT_EQ(spool.Prune(At("2026-10-01T10:04:00Z"), hours(1), 8 * file)->files_removed, 0);
  // Three files over: the oldest three, by minute then name; said to be newer than retention.
  Result<PruneStats> pruned = spool.Prune(At("2026-10-01T10:04:00Z"), hours(1), 5 * file + 1);
  ASSERT_TRUE(pruned.ok()) << pruned.status().ToString();
  EXPECT_EQ(pruned->files_removed, 3);
  EXPECT_EQ(pruned->files_over_size, 3);
  EXPECT_EQ(pruned->over_size_from, At("2026-10-01T10:00:00Z"));
  EXPECT_EQ(spool.Stats().bytes, 5 * file);
  EXPECT_EQ(spool.Stats().removed_for_size, 3u);
  Result<std::vector<std::string>> left =
      spool.Files({At("2026-10-01T00:00:00Z"), At("2026-10-02T00:00:00Z")}, minutes(0));
  EXPECT_EQ(left->size(), 5u) << Names(*left);
  // Files past the retention go first and are not "over size".
  pruned = spool.Prune(At("2026-10-01T11:03:00Z"), hours(1), 4 * file);
  EXPECT_EQ(pruned->files_removed, 3);  // 10:01 (one left) and 10:02 (two)
  EXPECT_EQ(pruned->files_over_size, 0);
  EXPECT_EQ(spool.Stats().files, 2u);
}

// Makes every write of this process past `bytes` of a file fail with EFBIG, as a full disk
// fails it with ENOSPC, until it goes.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);  // an error, not a signal
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit saved_{};
  sighandler_t old_handler_;
};

TEST(Spool, AFullDiskDropsTheScrapeLeavesTheFileWholeAndResumes) {
  TempDir dir;
  Spool spool(dir.path().string());
  ASSERT_TRUE(spool.Open().ok());
  const Instant t = At("2026-10-01T10:00:00Z");
  // Scrapes that compress poorly: each append larger than the room left. The first is large so
  // that the limit leaves room for the log, which the test captures in a file.
  const auto noise = [](uint64_t seed) {
    std::string text;
    for (int i = 0; i < 5000; ++i) {
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      text += "a{i=\"" + std::to_string(seed) + "\"} 1 1\n";
    }
    return text;
  };
  const std::string first = noise(1), big = noise(2);
  ASSERT_TRUE(spool.Append(kDcgm, t, first).ok());
  const fs::path file = dir.path() / Spool::FileName(kDcgm, t);
  const std::string whole = dir.Read(file.filename().string());
  ASSERT_GT(whole.size(), 20'000u);
  ::testing::internal::CaptureStderr();
  {
    FileSizeLimit full(whole.size() + 100);
    for (int i = 0; i < 3; ++i) {
      const Status s = spool.Append(kDcgm, t + std::chrono::seconds(10 * i), big);
      EXPECT_FALSE(s.ok());
      EXPECT_NE(s.message().find("append to"), std::string::npos) << s.ToString();
    }
    // A new minute's file (larger than the limit: it holds per file): nothing of it is left.
    EXPECT_FALSE(spool.Append(kDcgm, t + minutes(1), big + noise(3)).ok());
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(dir.Read(file.filename().string()), whole) << "truncated back to the whole frame";
  EXPECT_FALSE(fs::exists(dir.path() / Spool::FileName(kDcgm, t + minutes(1))));
  EXPECT_EQ(spool.Stats().write_errors, 4u);
  EXPECT_EQ(spool.Stats().bytes, whole.size());
  EXPECT_EQ(spool.Stats().files, 1u);
  // Logged once for the burst, not once per scrape.
  size_t logged = 0;
  for (size_t at = log.find("cannot store the scrapes of dcgm"); at != std::string::npos;
       at = log.find("cannot store the scrapes of dcgm", at + 1)) {
    ++logged;
  }
  EXPECT_EQ(logged, 1u) << log;
  // Space again: the next scrape is stored once, the dropped ones never.
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(spool.Append(kDcgm, t + std::chrono::seconds(40), "a 2 2\n").ok());
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("stored again, after 4"),
            std::string::npos);
  EXPECT_EQ(Inflated(file), first + "a 2 2\n");
  EXPECT_EQ(spool.Stats().bytes, SizeOfFiles(dir.path()));
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
  InputOptions flags;
  flags.inputs = *files;
  const auto reading = spool.LockForReading();
  Result<LoadedInput> input = LoadInput(flags, window, minutes(1));
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_EQ(input->timeline.samples, 60u);  // the 15 minutes read, not the 20 written
  EXPECT_EQ(input->timeline.parse_errors, 0u);
  EXPECT_EQ(input->timeline.usage.devices.size(), 2u) << "one usage series per GPU";
}

}  // namespace
}  // namespace gpucost::scrape
