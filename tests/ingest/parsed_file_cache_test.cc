// ParsedFileCache: a replay hands over exactly what the parse did (samples with their lines and
// flags, metadata, malformed lines, in order); a series has one id in every file while cached;
// a changed file is parsed again; Retain and the byte bound keep the memory to what is asked.
#include "ingest/parsed_file_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ingest/exposition_test_util.h"

namespace gpucost {
namespace {

using testing::Recorder;

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "gpucost-cache-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

void WriteFile(const std::filesystem::path& path, const std::string& text, bool append = false) {
  std::ofstream out(path, append ? std::ios::app : std::ios::trunc);
  out << text;
}

constexpr char kScrape[] =
    "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n"
    "# TYPE DCGM_FI_DEV_FB_USED gauge\n"
    "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-a\"} 100 1700000000000\n"
    "DCGM_FI_DEV_FB_USED{gpu=\"1\",UUID=\"GPU-b\"} 200 1700000000000\n"
    "this line is broken {\n"
    "up 1\n"
    "# TYPE requests counter\n"
    "requests_created{path=\"/\"} 1699999999\n"
    "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-a\"} 110 1700000030000\n";

Recorder Parse(ParsedFileCache& cache, const std::string& path) {
  Recorder rec;
  ParseOptions po;
  po.source_name = path;
  const Result<ParseStats> stats = cache.Parse(path, po, rec);
  EXPECT_TRUE(stats.ok()) << stats.status().ToString();
  return rec;
}

TEST(ParsedFileCache, AReplayHandsOverWhatTheParseDid) {
  TempDir dir;
  const std::string path = (dir.path() / "a.prom").string();
  WriteFile(path, kScrape);
  const testing::ParseOutcome plain = testing::ParseString(kScrape);
  ParsedFileCache cache;
  const Recorder first = Parse(cache, path);
  const Recorder again = Parse(cache, path);
  EXPECT_EQ(cache.stats().misses, 1u);
  EXPECT_EQ(cache.stats().hits, 1u);
  for (const Recorder* r : {&first, &again}) {
    ASSERT_EQ(r->samples.size(), plain.rec.samples.size());
    for (size_t i = 0; i < r->samples.size(); ++i) EXPECT_EQ(r->samples[i], plain.rec.samples[i]);
    ASSERT_EQ(r->metadata.size(), 3u);
    EXPECT_EQ(r->metadata[2].type, MetricType::kCounter);
    EXPECT_EQ(r->metadata[0].text, "Framebuffer memory used (in MiB).");
    EXPECT_EQ(r->metadata[1].type, MetricType::kGauge);
    EXPECT_EQ(r->metadata[1].line, 2u);
    ASSERT_EQ(r->errors.size(), 1u);
    EXPECT_EQ(r->errors[0].line, 5u);
    EXPECT_EQ(r->errors[0].message, plain.rec.errors[0].message);
  }
  // The flags came back: no timestamp on "up", "_created" known as such.
  EXPECT_FALSE(again.samples[2].has_timestamp);
  EXPECT_TRUE(again.samples[3].is_created);
  // Every sample carries the cache's id of its series: the same for the same series, in the
  // parse and in the replay, and different for another series.
  for (size_t i = 0; i < first.samples.size(); ++i) {
    EXPECT_NE(first.samples[i].series, 0u);
    EXPECT_EQ(first.samples[i].series, again.samples[i].series);
  }
  EXPECT_EQ(first.samples[0].series, first.samples[4].series);
  EXPECT_NE(first.samples[0].series, first.samples[1].series);
  EXPECT_EQ(cache.stats().series, 4u);
}

TEST(ParsedFileCache, ASeriesHasOneIdInEveryFileAndAChangedFileIsParsedAgain) {
  TempDir dir;
  const std::string a = (dir.path() / "a.prom").string();
  const std::string b = (dir.path() / "b.prom").string();
  WriteFile(a, "m{k=\"1\"} 1 1000\nm{k=\"2\"} 2 1000\n");
  WriteFile(b, "m{k=\"2\"} 3 2000\n");
  ParsedFileCache cache;
  const Recorder ra = Parse(cache, a);
  const Recorder rb = Parse(cache, b);
  EXPECT_EQ(ra.samples[1].series, rb.samples[0].series);
  // An append changes the file's size: the new sample is read, not the old recording.
  WriteFile(a, "m{k=\"3\"} 4 3000\n", /*append=*/true);
  const Recorder grown = Parse(cache, a);
  ASSERT_EQ(grown.samples.size(), 3u);
  EXPECT_EQ(grown.samples[2].value, 4);
  EXPECT_EQ(cache.stats().misses, 3u);
  EXPECT_EQ(cache.stats().hits, 0u);
  // The series that b still holds keeps its id.
  EXPECT_EQ(grown.samples[1].series, rb.samples[0].series);
  EXPECT_EQ(Parse(cache, b).samples[0].series, rb.samples[0].series);
  EXPECT_EQ(cache.stats().hits, 1u);
}

TEST(ParsedFileCache, RetainForgetsTheFilesNotNamedAndTheirSeries) {
  TempDir dir;
  const std::string a = (dir.path() / "a.prom").string();
  const std::string b = (dir.path() / "b.prom").string();
  WriteFile(a, "m{k=\"1\"} 1 1000\nm{k=\"2\"} 2 1000\n");
  WriteFile(b, "m{k=\"2\"} 3 2000\n");
  ParsedFileCache cache;
  Parse(cache, a);
  Parse(cache, b);
  EXPECT_EQ(cache.stats().files, 2u);
  EXPECT_EQ(cache.stats().series, 2u);
  const uint64_t both = cache.stats().bytes;
  cache.Retain(std::vector<std::string>{b});
  EXPECT_EQ(cache.stats().files, 1u);
  EXPECT_EQ(cache.stats().series, 1u);  // k=1 was a's alone
  EXPECT_LT(cache.stats().bytes, both);
  Parse(cache, a);  // parsed again
  EXPECT_EQ(cache.stats().misses, 3u);
  cache.Retain({});
  EXPECT_EQ(cache.stats().files, 0u);
  EXPECT_EQ(cache.stats().series, 0u);
  EXPECT_EQ(cache.stats().bytes, 0u);
}

TEST(ParsedFileCache, AParsePastTheBoundOrStoppedByItsHandlerIsNotKept) {
  TempDir dir;
  const std::string path = (dir.path() / "a.prom").string();
  WriteFile(path, kScrape);
  ParsedFileCache tiny(/*max_bytes=*/64);
  const Recorder r = Parse(tiny, path);
  EXPECT_EQ(r.samples.size(), 5u);  // the handler got everything all the same
  EXPECT_EQ(tiny.stats().files, 0u);
  EXPECT_EQ(tiny.stats().series, 0u);
  EXPECT_EQ(tiny.stats().bytes, 0u);

  ParsedFileCache cache;
  Recorder stops;
  stops.stop_after_errors = 1;  // stops at the broken line
  ParseOptions po;
  ASSERT_TRUE(cache.Parse(path, po, stops).ok());
  EXPECT_EQ(stops.samples.size(), 2u);
  EXPECT_EQ(cache.stats().files, 0u);  // a later handler would read on: parsed again
  EXPECT_EQ(Parse(cache, path).samples.size(), 5u);
  EXPECT_EQ(cache.stats().misses, 2u);
}

TEST(ParsedFileCache, AMissingFileIsTheParsersError) {
  ParsedFileCache cache;
  Recorder rec;
  const Result<ParseStats> r = cache.Parse("/nonexistent/gpucost/a.prom", ParseOptions{}, rec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/gpucost/a.prom"), std::string::npos);
}

}  // namespace
}  // namespace gpucost
