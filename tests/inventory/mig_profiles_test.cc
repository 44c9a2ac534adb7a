#include "inventory/mig_profiles.h"

#include <gtest/gtest.h>

#include "inventory/resource_names.h"

namespace gpucost {
namespace {

TEST(MigProfiles, ParsesNamesAndVariants) {
  auto p = ParseMigProfileName("1g.10gb+me");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->compute_slices, 1);
  EXPECT_DOUBLE_EQ(p->memory_gb, 10);
  EXPECT_EQ(p->suffix, "+me");
  EXPECT_EQ(ParseMigProfileName("1g.10gb.me")->suffix, "+me");
  EXPECT_EQ(ParseMigProfileName("2g.48gb+gfx")->suffix, "+gfx");
  EXPECT_EQ(ParseMigProfileName("1g.24gb-me")->suffix, "-me");
  EXPECT_EQ(ParseMigProfileName("7g.79gb")->compute_slices, 7);
  EXPECT_FALSE(ParseMigProfileName("<<<NULL>>>"));
  EXPECT_FALSE(ParseMigProfileName("gpu"));
  EXPECT_FALSE(ParseMigProfileName("1g.5gb+bogus"));
}

TEST(MigProfiles, DetectsModelFamilies) {
  EXPECT_EQ(DetectMigModel("NVIDIA A100-SXM4-40GB")->family, "A100-40GB");
  EXPECT_EQ(DetectMigModel("NVIDIA A100 80GB PCIe")->family, "A100-80GB/H100-80GB/H800");
  EXPECT_EQ(DetectMigModel("NVIDIA H100 80GB HBM3")->family, "A100-80GB/H100-80GB/H800");
  EXPECT_EQ(DetectMigModel("NVIDIA H100 NVL")->family, "H100-NVL/H100-94GB");
  EXPECT_EQ(DetectMigModel("NVIDIA-H100-NVL-MIG-1g.12gb")->family, "H100-NVL/H100-94GB");
  EXPECT_EQ(DetectMigModel("A100-SXM4-40GB-MIG-1g.5gb-SHARED")->family, "A100-40GB");
  EXPECT_EQ(DetectMigModel("NVIDIA H200")->family, "H200-141GB");
  EXPECT_EQ(DetectMigModel("NVIDIA H20")->family, "H100-96GB/GH200-96GB/H20");
  EXPECT_EQ(DetectMigModel("NVIDIA GH200 144G HBM3e")->family, "GH200-144GB");
  EXPECT_EQ(DetectMigModel("NVIDIA B200")->family, "B200");
  EXPECT_EQ(DetectMigModel("NVIDIA GB200")->family, "GB200");
  EXPECT_EQ(DetectMigModel("NVIDIA B300 SXM6 AC")->family, "B300");
  EXPECT_EQ(DetectMigModel("NVIDIA A30")->family, "A30");
  EXPECT_EQ(DetectMigModel("NVIDIA RTX PRO 6000 Blackwell Server Edition")->family,
            "RTX-PRO-6000-Blackwell");
  EXPECT_EQ(DetectMigModel("Tesla T4"), nullptr);
}

TEST(MigProfiles, ComputeFractions) {
  const MigModel& a100 = *DetectMigModel("NVIDIA A100-SXM4-40GB");
  EXPECT_DOUBLE_EQ(MigFraction(a100, *FindMigProfile(a100, "1g.5gb"), MigWeight::kCompute), 1.0 / 7);
  EXPECT_DOUBLE_EQ(MigFraction(a100, *FindMigProfile(a100, "3g.20gb"), MigWeight::kCompute), 3.0 / 7);
  const MigModel& a30 = *DetectMigModel("NVIDIA A30");
  EXPECT_EQ(a30.compute_slices, 4);
  EXPECT_DOUBLE_EQ(MigFraction(a30, *FindMigProfile(a30, "1g.6gb"), MigWeight::kCompute), 0.25);
  EXPECT_DOUBLE_EQ(MigFraction(a30, *FindMigProfile(a30, "2g.12gb+me"), MigWeight::kCompute), 0.5);
}

TEST(MigProfiles, MemoryWeightedFractions) {
  const MigModel& m = *DetectMigModel("NVIDIA H100 80GB HBM3");
  auto mem = [&](const char* p) { return MigFraction(m, *FindMigProfile(m, p), MigWeight::kMemory); };
  EXPECT_DOUBLE_EQ(mem("1g.10gb"), 1.0 / 8);
  EXPECT_DOUBLE_EQ(mem("1g.20gb"), 2.0 / 8);
  EXPECT_DOUBLE_EQ(mem("2g.20gb"), 2.0 / 8);
  EXPECT_DOUBLE_EQ(mem("3g.40gb"), 4.0 / 8);
  EXPECT_DOUBLE_EQ(mem("4g.40gb"), 4.0 / 8);
  EXPECT_DOUBLE_EQ(mem("7g.80gb"), 1.0);
  EXPECT_DOUBLE_EQ(*MigFractionWithoutModel("3g.20gb", MigWeight::kMemory), 0.5);
  EXPECT_DOUBLE_EQ(*MigFractionWithoutModel("3g.20gb", MigWeight::kCompute), 3.0 / 7);
}

TEST(MigProfiles, OddDcgmNamesMapToTheTable) {
  const MigModel& m = *DetectMigModel("NVIDIA A100 80GB PCIe");
  const MigProfile* p = FindMigProfile(m, "7g.79gb");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name, "7g.80gb");
  EXPECT_DOUBLE_EQ(MigFraction(m, *p, MigWeight::kCompute), 1.0);
  EXPECT_EQ(FindMigProfile(m, "1g.10gb+me")->name, "1g.10gb+me");
  const MigModel& rtx = *DetectMigModel("NVIDIA RTX PRO 6000 Blackwell");
  EXPECT_EQ(FindMigProfile(rtx, "2g.48gb+gfx")->name, "2g.48gb");
}

TEST(MigProfiles, EveryFamilyHasItsSliceCount) {
  for (const MigModel& m : MigModels()) {
    const bool four = m.family == "A30" || m.family == "RTX-PRO-6000-Blackwell";
    EXPECT_EQ(m.compute_slices, four ? 4 : 7) << m.family;
    for (const MigProfile& p : m.profiles) {
      EXPECT_LE(p.compute_slices * p.max_instances, m.compute_slices) << m.family << " " << p.name;
    }
  }
}

TEST(ResourceNames, SanitizedAndRawSpellings) {
  EXPECT_EQ(CanonicalResourceName("nvidia_com_gpu").canonical, "nvidia.com/gpu");
  EXPECT_EQ(CanonicalResourceName("nvidia.com/gpu").kind, ResourceKind::kNvidiaGpu);
  auto mig = CanonicalResourceName("nvidia_com_mig_1g_5gb");
  EXPECT_EQ(mig.kind, ResourceKind::kNvidiaMig);
  EXPECT_EQ(mig.canonical, "nvidia.com/mig-1g.5gb");
  EXPECT_EQ(mig.mig_profile, "1g.5gb");
  auto me = CanonicalResourceName("nvidia_com_mig_1g_10gb_me");
  EXPECT_EQ(me.canonical, "nvidia.com/mig-1g.10gb.me");
  EXPECT_EQ(me.mig_profile, "1g.10gb+me");
  EXPECT_EQ(CanonicalResourceName("nvidia.com/mig-1g.10gb.me").canonical, "nvidia.com/mig-1g.10gb.me");
  EXPECT_EQ(CanonicalResourceName("nvidia_com_gpu_shared").canonical, "nvidia.com/gpu.shared");
  EXPECT_EQ(CanonicalResourceName("nvidia_com_gpucores").kind, ResourceKind::kHamiCores);
  EXPECT_EQ(CanonicalResourceName("nvidia_com_gpumem").kind, ResourceKind::kHamiMem);
  EXPECT_EQ(CanonicalResourceName("nvidia_com_gpumem_percentage").canonical,
            "nvidia.com/gpumem-percentage");
  EXPECT_EQ(CanonicalResourceName("amd_com_gpu").canonical, "amd.com/gpu");
  EXPECT_EQ(CanonicalResourceName("cpu").kind, ResourceKind::kNotGpu);
  EXPECT_EQ(CanonicalResourceName("memory").kind, ResourceKind::kNotGpu);
  EXPECT_EQ(CanonicalResourceName("gpu_intel_com_i915").kind, ResourceKind::kUnknownGpu);
  EXPECT_EQ(MigResourceName("1g.10gb+me"), "nvidia.com/mig-1g.10gb.me");
}

}  // namespace
}  // namespace gpucost
