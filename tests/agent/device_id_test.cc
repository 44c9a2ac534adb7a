// Device ids in every form GPU device plugins give the kubelet, and garbage that must come back
// as unknown with the id kept.
#include "agent/device_id.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace gpucost::agent {
namespace {

constexpr char kUuid[] = "GPU-5f8e2c1a-7b3d-4e9f-a2c6-1d0b9e8f7a65";
constexpr char kMigUuid[] = "MIG-2ce7a541-c516-5dbc-a76e-26cc100d9b55";

struct DeviceIdWant {
  DeviceIdKind kind;
  std::string gpu_uuid{};
  std::string mig_uuid{};
  int gpu_index = -1;
  int device_minor = -1;
  int gpu_instance_id = -1;
  int compute_instance_id = -1;
  int mig_index = -1;
  int replica = -1;
};

void ExpectParses(const std::string& id, const DeviceIdWant& want) {
  SCOPED_TRACE(id);
  const DeviceId got = ParseDeviceId(id);
  EXPECT_EQ(got.raw, id);
  EXPECT_EQ(DeviceIdKindName(got.kind), DeviceIdKindName(want.kind));
  EXPECT_EQ(got.gpu_uuid, want.gpu_uuid);
  EXPECT_EQ(got.mig_uuid, want.mig_uuid);
  EXPECT_EQ(got.gpu_index, want.gpu_index);
  EXPECT_EQ(got.device_minor, want.device_minor);
  EXPECT_EQ(got.gpu_instance_id, want.gpu_instance_id);
  EXPECT_EQ(got.compute_instance_id, want.compute_instance_id);
  EXPECT_EQ(got.mig_index, want.mig_index);
  EXPECT_EQ(got.replica, want.replica);
}

void ExpectUnknown(const std::string& id) {
  ExpectParses(id, DeviceIdWant{DeviceIdKind::kUnknown});
}

TEST(DeviceIdTest, WholeGpuByUuid) {
  ExpectParses(kUuid, {.kind = DeviceIdKind::kGpuUuid, .gpu_uuid = kUuid});
  ExpectParses("GPU-0", {.kind = DeviceIdKind::kGpuUuid, .gpu_uuid = "GPU-0"});
  const DeviceId id = ParseDeviceId(kUuid);
  EXPECT_TRUE(id.known());
  EXPECT_FALSE(id.is_mig());
  EXPECT_FALSE(id.is_replica());
}

TEST(DeviceIdTest, TimeSlicedOrMpsReplicaOfAGpu) {
  ExpectParses(std::string(kUuid) + "::3",
               {.kind = DeviceIdKind::kGpuUuid, .gpu_uuid = kUuid, .replica = 3});
  ExpectParses(std::string(kUuid) + "::0",
               {.kind = DeviceIdKind::kGpuUuid, .gpu_uuid = kUuid, .replica = 0});
  ExpectParses("GPU-0::12", {.kind = DeviceIdKind::kGpuUuid, .gpu_uuid = "GPU-0", .replica = 12});
  EXPECT_TRUE(ParseDeviceId(std::string(kUuid) + "::3").is_replica());
}

TEST(DeviceIdTest, MigDeviceByUuidAndItsReplicas) {
  ExpectParses(kMigUuid, {.kind = DeviceIdKind::kMigUuid, .mig_uuid = kMigUuid});
  // EKS time-slices MIG devices: the form seen there.
  ExpectParses("MIG-2ce7a541-c516-5dbc-a76e-26cc100d9b55::7",
               {.kind = DeviceIdKind::kMigUuid, .mig_uuid = kMigUuid, .replica = 7});
  EXPECT_TRUE(ParseDeviceId(kMigUuid).is_mig());
}

TEST(DeviceIdTest, LegacyMigNames) {
  ExpectParses(std::string("MIG-") + kUuid + "/1/0",
               {.kind = DeviceIdKind::kMigLegacy, .gpu_uuid = kUuid, .gpu_instance_id = 1,
                .compute_instance_id = 0});
  ExpectParses(std::string("MIG-") + kUuid + "/13/2::4",
               {.kind = DeviceIdKind::kMigLegacy, .gpu_uuid = kUuid, .gpu_instance_id = 13,
                .compute_instance_id = 2, .replica = 4});
  EXPECT_TRUE(ParseDeviceId(std::string("MIG-") + kUuid + "/1/0").is_mig());
}

TEST(DeviceIdTest, IndexStrategy) {
  ExpectParses("0", {.kind = DeviceIdKind::kGpuIndex, .gpu_index = 0});
  ExpectParses("7", {.kind = DeviceIdKind::kGpuIndex, .gpu_index = 7});
  ExpectParses("15::2", {.kind = DeviceIdKind::kGpuIndex, .gpu_index = 15, .replica = 2});
  ExpectParses("0:1", {.kind = DeviceIdKind::kMigIndex, .gpu_index = 0, .mig_index = 1});
  ExpectParses("3:6::9",
               {.kind = DeviceIdKind::kMigIndex, .gpu_index = 3, .mig_index = 6, .replica = 9});
  EXPECT_FALSE(ParseDeviceId("0").is_mig());
  EXPECT_TRUE(ParseDeviceId("0:1").is_mig());
}

TEST(DeviceIdTest, GkeDeviceNames) {
  ExpectParses("nvidia0", {.kind = DeviceIdKind::kGkeGpu, .device_minor = 0});
  ExpectParses("nvidia12", {.kind = DeviceIdKind::kGkeGpu, .device_minor = 12});
  ExpectParses("nvidia0/vgpu2", {.kind = DeviceIdKind::kGkeGpu, .device_minor = 0, .replica = 2});
  ExpectParses("nvidia0/gi1",
               {.kind = DeviceIdKind::kGkeMig, .device_minor = 0, .gpu_instance_id = 1});
  ExpectParses("nvidia3/gi13/vgpu0", {.kind = DeviceIdKind::kGkeMig, .device_minor = 3,
                                      .gpu_instance_id = 13, .replica = 0});
  EXPECT_TRUE(ParseDeviceId("nvidia0/gi1").is_mig());
  EXPECT_FALSE(ParseDeviceId("nvidia0/vgpu2").is_mig());
}

TEST(DeviceIdTest, GarbageIsUnknownWithTheIdKept) {
  const std::vector<std::string> garbage = {
      "", " ", "GPU-", "GPU", "gpu-0", "GPU-abc/1", "GPU-a b", "GPU-abc:1", "GPU-abc::",
      "GPU-abc::x", "GPU-abc::-1", "GPU-abc::+1", "GPU-abc:: 1", "GPU-abc::1::2", "GPU-abc::1:",
      "GPU-abc::1234567890", "GPU-\xff\xfe", std::string("GPU-a\0b", 7), "::3", "::", ":::1",
      "MIG-", "MIG-::1", "MIG-GPU-abc/1", "MIG-GPU-abc/1/", "MIG-GPU-abc/x/0", "MIG-GPU-/1/0",
      "MIG-GPU-abc/1/0/2", "MIG-abc/1/0", "MIG-GPU-abc//0", "-1", "+1", "1.5", "0x1", " 0", "0 ",
      "0:", ":1", "0:1:2", "0::1::2", "0:x", "1234567890", "99999999999:0", "nvidia",
      "nvidiactl", "nvidia-uvm", "nvidia0/", "nvidia0/vgpu", "nvidia0/vgpux", "nvidia0/gi",
      "nvidia0/gi1/", "nvidia0/gi1/ci0", "nvidia0/vgpu1/gi1", "nvidia0/gi1/vgpu1/x",
      "nvidia0::1", "nvidia/gi1", "NVIDIA0", "nvidia0/gi-1", "vendor.com/gpu=gpu0",
  };
  for (const std::string& id : garbage) ExpectUnknown(id);
}

// Random bytes and random edits of valid ids: every input parses to something, the id is kept,
// and an id that parses as known is one of the forms (a replica only with a device).
TEST(DeviceIdTest, ArbitraryInputNeverBreaksTheParser) {
  const std::vector<std::string> seeds = {
      kUuid, std::string(kUuid) + "::3", kMigUuid, std::string("MIG-") + kUuid + "/1/0", "0",
      "0:1", "nvidia0", "nvidia0/vgpu2", "nvidia0/gi1/vgpu3"};
  const std::string alphabet = "GPUMIGnvidagvpu-:/0123456789abcdef \xff";
  std::mt19937 rng(20240601);
  for (int round = 0; round < 20000; ++round) {
    std::string id;
    if (round % 2 == 0) {
      const size_t length = rng() % 48;
      for (size_t i = 0; i < length; ++i) id.push_back(static_cast<char>(rng() % 256));
    } else {
      id = seeds[rng() % seeds.size()];
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        const size_t at = id.empty() ? 0 : rng() % (id.size() + 1);
        const char c = alphabet[rng() % alphabet.size()];
        switch (rng() % 3) {
          case 0: id.insert(id.begin() + static_cast<std::ptrdiff_t>(at), c); break;
          case 1:
            if (at < id.size()) id.erase(at, 1);
            break;
          default:
            if (at < id.size()) id[at] = c;
            break;
        }
      }
    }
    const DeviceId parsed = ParseDeviceId(id);
    ASSERT_EQ(parsed.raw, id);
    if (!parsed.known()) {
      ASSERT_TRUE(parsed.gpu_uuid.empty() && parsed.mig_uuid.empty() && parsed.replica == -1 &&
                  parsed.gpu_index == -1 && parsed.device_minor == -1 &&
                  parsed.gpu_instance_id == -1 && parsed.compute_instance_id == -1 &&
                  parsed.mig_index == -1)
          << id;
      continue;
    }
    const bool has_device = !parsed.gpu_uuid.empty() || !parsed.mig_uuid.empty() ||
                            parsed.gpu_index >= 0 || parsed.device_minor >= 0;
    ASSERT_TRUE(has_device) << id;
  }
}

}  // namespace
}  // namespace gpucost::agent
