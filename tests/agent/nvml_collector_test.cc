#include "agent/nvml_collector.h"

#include <gtest/gtest.h>

#include "agent/fake_nvml.h"
#include "agent/nvml_library.h"

namespace gpucost::agent {
namespace {

using testing::kFakeNvmlPath;
using testing::UseFakeNvmlScript;

std::unique_ptr<NvmlLibrary> OpenFake(const std::string& name, const std::string& script) {
  UseFakeNvmlScript(name, script);
  auto lib = NvmlLibrary::Open(kFakeNvmlPath);
  EXPECT_TRUE(lib.ok()) << lib.status().ToString();
  return lib.ok() ? std::move(lib).value() : nullptr;
}

const NvmlProcess* FindProcess(const NvmlUnit& unit, uint32_t pid) {
  for (const NvmlProcess& p : unit.processes) {
    if (p.pid == pid) return &p;
  }
  return nullptr;
}

TEST(NvmlLibraryTest, MissingLibraryNamesThePath) {
  auto lib = NvmlLibrary::Open("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(lib.ok());
  EXPECT_NE(lib.status().message().find("/nonexistent/libnvidia-ml.so.1"), std::string::npos);
}

TEST(NvmlLibraryTest, LibraryWithoutNvmlSymbolsIsRefused) {
  auto lib = NvmlLibrary::Open("libz.so.1");
  ASSERT_FALSE(lib.ok());
  EXPECT_NE(lib.status().message().find("is not an NVML library"), std::string::npos);
}

TEST(NvmlCollectorTest, ProcessSamplesAreCountedOnceAcrossCollections) {
  auto lib = OpenFake("once", R"(
gpu 0 uuid=GPU-aaaa name="NVIDIA T4" util=60 mem_total=16000 mem_used=3000 energy=5000 minor=4
proc 0 pid=100 mem=1000
proc 0 pid=200 mem=na
sample 0 pid=100 ts=1000 sm=30
sample 0 pid=200 ts=1000 sm=10
sample 0 pid=100 ts=1500 sm=50
frame
gpu 0 util=40
proc 0 pid=100 mem=1200
sample 0 pid=100 ts=2000 sm=40
)");
  ASSERT_NE(lib, nullptr);
  NvmlCollector collector(*lib);
  NvmlReading first = collector.Collect();
  ASSERT_EQ(first.gpus.size(), 1u);
  const NvmlGpu& g = first.gpus[0];
  EXPECT_EQ(g.uuid, "GPU-aaaa");
  EXPECT_EQ(g.name, "NVIDIA T4");
  EXPECT_EQ(g.minor_number, 4);
  EXPECT_EQ(g.mig_enabled, std::optional<bool>(false));
  EXPECT_EQ(g.memory_total_bytes, std::optional<uint64_t>(16000));
  EXPECT_EQ(g.energy_mj, std::optional<uint64_t>(5000));
  ASSERT_TRUE(g.whole.activity.has_value());
  EXPECT_DOUBLE_EQ(*g.whole.activity, 0.6);
  EXPECT_EQ(g.whole.activity_source, "utilization");
  EXPECT_TRUE(g.process_utilization);
  const NvmlProcess* p100 = FindProcess(g.whole, 100);
  const NvmlProcess* p200 = FindProcess(g.whole, 200);
  ASSERT_NE(p100, nullptr);
  ASSERT_NE(p200, nullptr);
  EXPECT_DOUBLE_EQ(p100->sm_util_sum, 80);
  EXPECT_EQ(p100->samples, 2);
  EXPECT_EQ(p100->memory_bytes, std::optional<uint64_t>(1000));
  EXPECT_FALSE(p200->memory_bytes.has_value()) << "NVML_VALUE_NOT_AVAILABLE is not a size";
  EXPECT_DOUBLE_EQ(p200->sm_util_sum, 10);

  NvmlReading second = collector.Collect();
  ASSERT_EQ(second.gpus.size(), 1u);
  const NvmlProcess* again = FindProcess(second.gpus[0].whole, 100);
  ASSERT_NE(again, nullptr);
  EXPECT_DOUBLE_EQ(again->sm_util_sum, 40) << "samples of the first collection counted again";
  EXPECT_EQ(again->samples, 1);
  EXPECT_EQ(FindProcess(second.gpus[0].whole, 200), nullptr);
  EXPECT_DOUBLE_EQ(*second.gpus[0].whole.activity, 0.4);

  // Nothing new in the buffer: measured, and no process used the GPU.
  NvmlReading third = collector.Collect();
  EXPECT_TRUE(third.gpus[0].process_utilization);
  const NvmlProcess* idle = FindProcess(third.gpus[0].whole, 100);
  ASSERT_NE(idle, nullptr);  // still running
  EXPECT_EQ(idle->samples, 0);
  EXPECT_TRUE(third.errors.empty());
}

TEST(NvmlCollectorTest, GpmActivityReplacesUtilizationFromTheSecondCollection) {
  auto lib = OpenFake("gpm", R"(
gpu 0 uuid=GPU-h100 name="NVIDIA H100 80GB HBM3" util=90 gpm=1 gpm_util=70
frame
gpu 0 util=90 gpm_util=25
)");
  ASSERT_NE(lib, nullptr);
  NvmlCollector collector(*lib);
  NvmlReading first = collector.Collect();
  EXPECT_EQ(first.gpus[0].whole.activity_source, "utilization");
  EXPECT_DOUBLE_EQ(*first.gpus[0].whole.activity, 0.9);
  NvmlReading second = collector.Collect();
  EXPECT_EQ(second.gpus[0].whole.activity_source, "gpm");
  EXPECT_DOUBLE_EQ(*second.gpus[0].whole.activity, 0.25);
}

TEST(NvmlCollectorTest, MigInstancesWithGpmAndProcessesPerInstance) {
  auto lib = OpenFake("mig", R"(
gpu 0 uuid=GPU-a100 name="NVIDIA A100-SXM4-40GB" mig=1 gpm=1
mig 0 gi=1 ci=0 uuid=MIG-one name="NVIDIA A100-SXM4-40GB MIG 3g.20gb" gpm_util=10
mig 0 gi=5 ci=0 uuid=MIG-two name="NVIDIA A100-SXM4-40GB MIG 1g.5gb" gpm_util=90
proc 0 pid=300 mem=500 gi=5
frame
mig 0 gi=1 ci=0 gpm_util=30
mig 0 gi=5 ci=0 gpm_util=60
proc 0 pid=300 mem=700 gi=5
)");
  ASSERT_NE(lib, nullptr);
  NvmlCollector collector(*lib);
  NvmlReading first = collector.Collect();
  ASSERT_EQ(first.gpus.size(), 1u);
  const NvmlGpu& g1 = first.gpus[0];
  EXPECT_EQ(g1.mig_enabled, std::optional<bool>(true));
  EXPECT_FALSE(g1.process_utilization) << "NVML has no per-process utilization under MIG";
  ASSERT_EQ(g1.mig.size(), 2u);
  EXPECT_EQ(g1.mig[0].gpu_instance_id, 1);
  EXPECT_EQ(g1.mig[0].uuid, "MIG-one");
  EXPECT_EQ(g1.mig[0].profile, "3g.20gb");
  EXPECT_EQ(g1.mig[0].mig_index, 0);
  EXPECT_EQ(g1.mig[1].mig_index, 1);
  EXPECT_EQ(g1.minor_number, 0) << "the fake's minor defaults to the index";
  EXPECT_FALSE(g1.mig[0].activity.has_value()) << "one GPM sample is no measurement";
  EXPECT_FALSE(g1.whole.activity.has_value());

  NvmlReading second = collector.Collect();
  const NvmlGpu& g2 = second.gpus[0];
  ASSERT_EQ(g2.mig.size(), 2u);
  EXPECT_DOUBLE_EQ(*g2.mig[0].activity, 0.3);
  EXPECT_DOUBLE_EQ(*g2.mig[1].activity, 0.6);
  EXPECT_EQ(g2.mig[1].activity_source, "gpm");
  ASSERT_EQ(g2.mig[1].processes.size(), 1u);
  EXPECT_EQ(g2.mig[1].processes[0].pid, 300u);
  EXPECT_EQ(g2.mig[1].processes[0].gpu_instance_id, 5);
  EXPECT_EQ(g2.mig[1].processes[0].memory_bytes, std::optional<uint64_t>(700));
  EXPECT_TRUE(g2.mig[0].processes.empty());
}

TEST(NvmlCollectorTest, UnsupportedCallsAreNotMeasuredAndFailuresAreErrors) {
  auto lib = OpenFake("unsupported", R"(
gpu 0 uuid=GPU-old util=50
gpu 1 uuid=GPU-lost util=50
unsupported 0 nvmlDeviceGetUtilizationRates
unsupported 0 nvmlDeviceGetProcessUtilization
fail 1 nvmlDeviceGetMemoryInfo 15
)");
  ASSERT_NE(lib, nullptr);
  NvmlCollector collector(*lib);
  NvmlReading r = collector.Collect();
  ASSERT_EQ(r.gpus.size(), 2u);
  EXPECT_FALSE(r.gpus[0].whole.activity.has_value()) << "unsupported must not read as 0";
  EXPECT_FALSE(r.gpus[0].process_utilization);
  EXPECT_EQ(r.gpus[0].supported.at("nvmlDeviceGetUtilizationRates"), false);
  EXPECT_EQ(r.gpus[0].supported.at("nvmlDeviceGetMemoryInfo"), true);
  EXPECT_FALSE(r.gpus[1].memory_total_bytes.has_value());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].call, "nvmlDeviceGetMemoryInfo");
  EXPECT_EQ(r.errors[0].error, "GPU is lost");
  EXPECT_DOUBLE_EQ(*r.gpus[1].whole.activity, 0.5);
}

}  // namespace
}  // namespace gpucost::agent
