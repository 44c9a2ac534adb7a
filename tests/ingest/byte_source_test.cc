#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "ingest/exposition.h"
#include "ingest/exposition_test_util.h"

namespace gpucost {
namespace {

std::string Gzip(const std::string& data) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(compressBound(static_cast<uLong>(data.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// One zstd frame with a content checksum, as the scrape spool writes them.
std::string Zstd(const std::string& data) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  EXPECT_FALSE(ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)));
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), data.data(), data.size());
  ZSTD_freeCCtx(cctx);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

std::string ReadAll(ByteSource& src) {
  std::string out;
  char buf[333];
  while (true) {
    auto got = src.Read(buf, sizeof(buf));
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok() || *got == 0) return out;
    out.append(buf, *got);
  }
}

class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    path_ = (std::filesystem::temp_directory_path() /
             ("gpucost_bs_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++)))
                .string();
    std::ofstream(path_, std::ios::binary) << contents;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

// What the parser makes of a file holding `bytes` (compressed or not), read from its start.
testing::Recorder ParseFile(const std::string& bytes) {
  TempFile f(bytes);
  testing::Recorder rec;
  auto src = OpenByteSource(f.path());
  EXPECT_TRUE(src.ok()) << src.status().ToString();
  if (!src.ok()) return rec;
  auto stats = ParseExposition(**src, {}, rec);
  EXPECT_TRUE(stats.ok()) << stats.status().ToString();
  return rec;
}

const std::string kText = "# TYPE a gauge\na{x=\"1\"} 1\na{x=\"2\"} 2\n";

TEST(ByteSource, PlainFile) {
  TempFile f(kText);
  auto src = OpenByteSource(f.path());
  ASSERT_TRUE(src.ok());
  EXPECT_EQ((*src)->name(), f.path());
  EXPECT_EQ(ReadAll(**src), kText);
}

TEST(ByteSource, GzipFileIsDetectedByMagicBytes) {
  TempFile f(Gzip(kText));
  auto src = OpenByteSource(f.path());
  ASSERT_TRUE(src.ok());
  EXPECT_EQ(ReadAll(**src), kText);
}

TEST(ByteSource, ConcatenatedGzipMembers) {
  TempFile f(Gzip("first 1\n") + Gzip("second 2\n") + Gzip(""));
  auto src = OpenByteSource(f.path());
  ASSERT_TRUE(src.ok());
  testing::Recorder rec;
  auto stats = ParseExposition(**src, {}, rec);
  ASSERT_TRUE(stats.ok());
  ASSERT_EQ(rec.samples.size(), 2u);
  EXPECT_EQ(rec.samples[1].name, "second");
  EXPECT_EQ(rec.samples[1].line, 2u);
}

TEST(ByteSource, GzipThroughTinyReads) {
  std::string big;
  for (int i = 0; i < 5000; ++i) big += "m{i=\"" + std::to_string(i) + "\"} " + std::to_string(i) + "\n";
  auto src = MaybeDecompress(std::make_unique<testing::ChunkedSource>(Gzip(big), 5));
  ASSERT_TRUE(src.ok());
  EXPECT_EQ(ReadAll(**src), big);
}

TEST(ByteSource, AGzipMemberCutShortIsAnIssueAndWhatCameBeforeIsKept) {
  // Two whole members, then a third torn by a crash in the middle of its write: the lines of the
  // whole members stand, the cut is one issue (strict: the error), the cut line is not a sample.
  const std::string third = Gzip("c 3\nd 4\n");
  const std::string gz = Gzip("a 1\n") + Gzip("b 2\n") + third.substr(0, third.size() - 6);
  TempFile f(gz);
  auto src = OpenByteSource(f.path());
  ASSERT_TRUE(src.ok());
  testing::Recorder rec;
  auto stats = ParseExposition(**src, {}, rec);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ASSERT_GE(rec.samples.size(), 2u);
  EXPECT_EQ(rec.samples[0].name, "a");
  EXPECT_EQ(rec.samples[1].name, "b");
  for (const auto& s : rec.samples) EXPECT_TRUE(s.name != "d" || s.value == 4) << "no torn value";
  ASSERT_EQ(rec.errors.size(), 1u);
  EXPECT_NE(rec.errors[0].message.find("ends inside a member, after 2 whole ones"),
            std::string::npos)
      << rec.errors[0].message;
  EXPECT_EQ(stats->errors, 1u);

  src = OpenByteSource(f.path());
  ParseOptions strict;
  strict.strict = true;
  strict.source_name = "spool.prom.gz";
  stats = ParseExposition(**src, strict, rec);
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.status().code(), StatusCode::kParseError);
  EXPECT_NE(stats.status().message().find("spool.prom.gz:"), std::string::npos);
}

TEST(ByteSource, TruncatedGzipKeepsItsWholeLinesAndDropsTheCutOne) {
  std::string big;
  for (int i = 0; i < 2000; ++i)
    big += "m{i=\"" + std::to_string(i) + "\"} " + std::to_string(i) + "\n";
  const std::string gz = Gzip(big);
  TempFile f(gz.substr(0, gz.size() / 2));
  auto src = OpenByteSource(f.path());
  ASSERT_TRUE(src.ok());
  testing::Recorder rec;
  auto stats = ParseExposition(**src, {}, rec);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ASSERT_GT(rec.samples.size(), 0u);
  ASSERT_LT(rec.samples.size(), 2000u);
  for (size_t i = 0; i < rec.samples.size(); ++i) {
    EXPECT_EQ(rec.samples[i].value, static_cast<double>(i)) << "a whole line, never a cut one";
  }
  EXPECT_EQ(rec.errors.size(), 1u);
}

TEST(ByteSource, DamageAfterWholeMembersIsAnIssue) {
  // A crash can leave zeros where an append was going (the file grew, the data never landed).
  const testing::Recorder rec = ParseFile(Gzip("a 1\n") + std::string(64, '\0'));
  ASSERT_EQ(rec.samples.size(), 1u);
  ASSERT_EQ(rec.errors.size(), 1u);
  EXPECT_NE(rec.errors[0].message.find("damaged at byte"), std::string::npos)
      << rec.errors[0].message;
}

TEST(ByteSource, ConcatenatedZstdFramesAreOneStream) {
  std::string big;
  for (int i = 0; i < 5000; ++i)
    big += "m{i=\"" + std::to_string(i) + "\"} " + std::to_string(i) + "\n";
  TempFile f(Zstd("first 1\n") + Zstd(big) + Zstd(""));
  auto src = OpenByteSource(f.path());
  ASSERT_TRUE(src.ok());
  EXPECT_EQ(ReadAll(**src), "first 1\n" + big);
  // Through reads of a few bytes at a time, as from a pipe.
  auto tiny = MaybeDecompress(std::make_unique<testing::ChunkedSource>(Zstd(big) + Zstd(big), 5));
  ASSERT_TRUE(tiny.ok());
  EXPECT_EQ(ReadAll(**tiny), big + big);
}

TEST(ByteSource, AZstdFrameCutShortIsAnIssueAndWhatCameBeforeIsKept) {
  // Two whole frames, then a third torn by a crash in the middle of its write.
  const std::string third = Zstd("c 3\nd 4\n");
  const testing::Recorder rec =
      ParseFile(Zstd("a 1\n") + Zstd("b 2\n") + third.substr(0, third.size() - 6));
  // The lines of the whole frames stand, and the whole lines of the torn one that came through;
  // the line it cuts is not a sample.
  ASSERT_GE(rec.samples.size(), 2u);
  EXPECT_EQ(rec.samples[0].name, "a");
  EXPECT_EQ(rec.samples[1].name, "b");
  for (const auto& s : rec.samples) EXPECT_NE(s.name, "d") << "no torn line";
  ASSERT_EQ(rec.errors.size(), 1u);
  EXPECT_NE(rec.errors[0].message.find("zstd data ends inside a frame, after 2 whole ones"),
            std::string::npos)
      << rec.errors[0].message;
}

TEST(ByteSource, ADamagedZstdFrameIsAnIssue) {
  // A flipped byte in the second frame's checksum fails it; zeros where an append was going are
  // not a frame. Either way the first frame's line stands and the damage is one issue.
  std::string second = Zstd("b 2\nc 3\n");
  second[second.size() - 2] ^= 0x55;
  for (const std::string& tail : {second, std::string(64, '\0')}) {
    const testing::Recorder rec = ParseFile(Zstd("a 1\n") + tail);
    ASSERT_GE(rec.samples.size(), 1u);
    EXPECT_EQ(rec.samples[0].name, "a");
    ASSERT_EQ(rec.errors.size(), 1u);
    EXPECT_NE(rec.errors[0].message.find("zstd data is damaged at byte"), std::string::npos)
        << rec.errors[0].message;
  }
}

TEST(ByteSource, MissingFileIsAnIoError) {
  auto src = OpenByteSource("/nonexistent/metrics.prom");
  ASSERT_FALSE(src.ok());
  EXPECT_EQ(src.status().code(), StatusCode::kIoError);
  EXPECT_NE(src.status().message().find("/nonexistent/metrics.prom"), std::string::npos);
}

TEST(ByteSource, DashIsStdin) {
  TempFile f(Gzip(kText));
  // Point this process's stdin at the file for the duration of the test.
  const int saved = ::dup(STDIN_FILENO);
  ASSERT_NE(std::freopen(f.path().c_str(), "rb", stdin), nullptr);
  auto src = OpenByteSource("-");
  ASSERT_TRUE(src.ok());
  EXPECT_EQ((*src)->name(), "<stdin>");
  EXPECT_EQ(ReadAll(**src), kText);
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
}

TEST(ByteSource, ShortInputs) {
  for (const std::string s : {"", "a", "\x1f", "a 1", "\x28\xb5\x2f"}) {
    auto src = MaybeDecompress(StringByteSource(s));
    ASSERT_TRUE(src.ok());
    EXPECT_EQ(ReadAll(**src), s);
  }
}

}  // namespace
}  // namespace gpucost
