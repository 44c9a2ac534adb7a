// Host lists, AllocTRES GPU counts, Slurm times and time zones.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "slurm/gpu_tres.h"
#include "slurm/hostlist.h"
#include "slurm/local_time.h"
#include "slurm/sacct_parser.h"

namespace gpucost::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::string> Hosts(std::string_view text) {
  auto r = ExpandHostList(text);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::vector<std::string>{};
}

TEST(HostListTest, RangesAndSingles) {
  EXPECT_THAT(Hosts("gpu[01-04,07]"), ElementsAre("gpu01", "gpu02", "gpu03", "gpu04", "gpu07"));
  EXPECT_THAT(Hosts("cpn-k07-05-[01-02]"), ElementsAre("cpn-k07-05-01", "cpn-k07-05-02"));
  EXPECT_THAT(Hosts("node7"), ElementsAre("node7"));
}

TEST(HostListTest, ProductsAndTopLevelCommas) {
  EXPECT_THAT(Hosts("a[1-2]b[3-4]"), ElementsAre("a1b3", "a1b4", "a2b3", "a2b4"));
  EXPECT_THAT(Hosts("n1,gpu[2-3]"), ElementsAre("n1", "gpu2", "gpu3"));
  EXPECT_THAT(Hosts("r[1-2]n[01,03],x"), ElementsAre("r1n01", "r1n03", "r2n01", "r2n03", "x"));
}

TEST(HostListTest, PaddingFollowsTheLowerBound) {
  EXPECT_THAT(Hosts("n[8-11]"), ElementsAre("n8", "n9", "n10", "n11"));
  EXPECT_THAT(Hosts("n[08-11]"), ElementsAre("n08", "n09", "n10", "n11"));
}

TEST(HostListTest, PendingJobsHaveNoNodes) {
  EXPECT_THAT(Hosts("None assigned"), IsEmpty());
  EXPECT_THAT(Hosts(""), IsEmpty());
}

TEST(HostListTest, MalformedListsAreErrorsNamingTheText) {
  for (std::string_view bad : {"gpu[01-", "gpu[3-1]", "a]b", "gpu[x-2]", "n1,,n2", "a[[1]]"}) {
    auto r = ExpandHostList(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("host list")) << bad;
  }
  EXPECT_FALSE(ExpandHostList("n[1-9]m[1-9]", 50).ok());  // 81 names over the limit
}

GpuTres Tres(std::string_view text) {
  auto r = ParseGpuTres(text);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : GpuTres{};
}

TEST(GpuTresTest, TypedAndUntypedKeysAreOneGpu) {
  const GpuTres t = Tres("billing=11,cpu=8,gres/gpu:a100=1,gres/gpu=1,mem=64G,node=1");
  EXPECT_EQ(t.whole, 1);
  EXPECT_EQ(t.total(), 1);
  EXPECT_EQ(t.whole_type, "a100");
  EXPECT_THAT(t.mig, IsEmpty());
}

TEST(GpuTresTest, TypedOnlyCountsAreSummed) {
  const GpuTres t = Tres("cpu=4,gres/gpu:a100=2,gres/gpu:v100=1");
  EXPECT_EQ(t.whole, 3);
  EXPECT_EQ(t.whole_type, "");  // two types: no single model
}

TEST(GpuTresTest, OtherGpuTresAndNoGpuAreIgnored) {
  EXPECT_EQ(Tres("gres/gpumem=40G,gres/gpuutil=80,gres/gpu=2").total(), 2);
  EXPECT_TRUE(Tres("billing=16,cpu=16,mem=30000M,node=2").empty());
  EXPECT_TRUE(Tres("cpu=1,gres/gpu=0").empty());  // no_consume GRES print 0
}

TEST(GpuTresTest, MigTypesBecomeSlices) {
  GpuTres t = Tres("gres/gpu:1g.5gb=2,gres/gpu=2");
  EXPECT_EQ(t.whole, 0);
  EXPECT_THAT(t.mig, ElementsAre(std::pair<const std::string, int>("1g.5gb", 2)));
  t = Tres("gres/gpu:a100_1g.5gb=2");
  EXPECT_EQ(t.whole, 0);
  EXPECT_THAT(t.mig, ElementsAre(std::pair<const std::string, int>("1g.5gb", 2)));
  EXPECT_EQ(t.mig_model_hint, "a100");
  // An untyped count above the typed MIG ones: the rest are whole GPUs.
  t = Tres("gres/gpu=3,gres/gpu:3g.20gb=2");
  EXPECT_EQ(t.whole, 1);
  EXPECT_EQ(t.mig.at("3g.20gb"), 2);
  // More typed than untyped: the typed counts win, with a note.
  t = Tres("gres/gpu=1,gres/gpu:1g.5gb=2");
  EXPECT_EQ(t.total(), 2);
  EXPECT_THAT(t.note, HasSubstr("exceed"));
}

TEST(GpuTresTest, ProfileInsideSiteDefinedTypeNames) {
  std::string prefix;
  EXPECT_EQ(MigProfileInGresType("nvidia_a100_3g.20gb", &prefix), "3g.20gb");
  EXPECT_EQ(prefix, "nvidia_a100");
  EXPECT_EQ(MigProfileInGresType("1g.10gb_me"), "1g.10gb+me");
  EXPECT_EQ(MigProfileInGresType("h100_1g.10gb"), "1g.10gb");
  EXPECT_EQ(MigProfileInGresType("h100_80gb"), "");
  EXPECT_EQ(MigProfileInGresType("a100"), "");
}

TEST(GpuTresTest, MalformedCountsAreErrors) {
  EXPECT_FALSE(ParseGpuTres("gres/gpu=x").ok());
  EXPECT_FALSE(ParseGpuTres("gres/gpu=-1").ok());
  EXPECT_FALSE(ParseGpuTres("cpu=8,gres/gpu").ok());
}

int64_t UnixS(LocalTimeZone& tz, std::string_view text) {
  auto r = tz.ToInstant(text);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? UnixMs(*r) / 1000 : 0;
}

constexpr int64_t k20260302 = 1772409600;  // 2026-03-02T00:00:00Z
constexpr int64_t k20260701 = 1782864000;  // 2026-07-01T00:00:00Z

TEST(LocalTimeTest, UtcAndFixedOffsets) {
  auto utc = LocalTimeZone::Make("UTC");
  ASSERT_TRUE(utc.ok());
  EXPECT_EQ(UnixS(*utc, "2026-03-02T00:00:00"), k20260302);
  auto plus = LocalTimeZone::Make("+02:00");
  ASSERT_TRUE(plus.ok());
  EXPECT_EQ(UnixS(*plus, "2026-03-02T02:00:00"), k20260302);
  auto minus = LocalTimeZone::Make("-0530");
  ASSERT_TRUE(minus.ok());
  EXPECT_EQ(UnixS(*minus, "2026-03-01T18:30:00"), k20260302);
}

TEST(LocalTimeTest, NamedZoneFollowsDaylightSaving) {
  auto berlin = LocalTimeZone::Make("Europe/Berlin");
  ASSERT_TRUE(berlin.ok()) << berlin.status().ToString();
  EXPECT_EQ(UnixS(*berlin, "2026-03-02T01:00:00"), k20260302);       // CET, +01:00
  EXPECT_EQ(UnixS(*berlin, "2026-07-01T02:00:00"), k20260701);       // CEST, +02:00
  EXPECT_EQ(UnixS(*berlin, "2026-03-29T01:59:59"), 1774745999);      // last second of CET
  EXPECT_EQ(UnixS(*berlin, "2026-03-29T03:00:00"), 1774746000);      // first of CEST
  auto ny = LocalTimeZone::Make("America/New_York");
  ASSERT_TRUE(ny.ok());
  EXPECT_EQ(UnixS(*ny, "2026-03-01T19:00:00"), k20260302);            // EST, -05:00
}

TEST(LocalTimeTest, UnixSecondsAndBadInput) {
  auto tz = LocalTimeZone::Make("Europe/Berlin");
  ASSERT_TRUE(tz.ok());
  EXPECT_EQ(UnixS(*tz, "1772409600"), k20260302);  // SLURM_TIME_FORMAT=%s is zone-free
  for (std::string_view bad : {"2026-03-02 00:00", "2026-13-01T00:00:00", "2026-02-30T00:00:00",
                               "yesterday", "2026-03-02T25:00:00"}) {
    auto r = tz->ToInstant(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  auto unknown = LocalTimeZone::Make("Mars/Olympus_Mons");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("Mars/Olympus_Mons"));
  EXPECT_FALSE(LocalTimeZone::Make("../../etc/passwd").ok());
}

TEST(ElapsedTest, SlurmDurations) {
  EXPECT_EQ(ParseSlurmElapsed("00:17:02"), std::chrono::seconds(1022));
  EXPECT_EQ(ParseSlurmElapsed("04:22"), std::chrono::seconds(262));
  EXPECT_EQ(ParseSlurmElapsed("1-02:03:04"), std::chrono::seconds(93784));
  EXPECT_EQ(ParseSlurmElapsed("banana"), std::nullopt);
  EXPECT_EQ(ParseSlurmElapsed("1-04:22"), std::nullopt);
  EXPECT_EQ(ParseSlurmElapsed("00:61:00"), std::nullopt);
}

}  // namespace
}  // namespace gpucost::slurm
