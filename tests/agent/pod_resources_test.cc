// The PodResources client against a fake kubelet: a real gRPC server on a unix socket serving
// v1.PodResourcesLister from the same proto. The node mixes whole GPUs, time-sliced replicas,
// MIG devices, a DRA claim, CPU-only, empty and device-less containers.
#include "agent/pod_resources.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "agent/fake_kubelet.h"
#include "core/strings.h"

namespace gpucost::agent {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_util::FakeKubelet;

constexpr char kGpuA[] = "GPU-5f8e2c1a-7b3d-4e9f-a2c6-1d0b9e8f7a65";
constexpr char kGpuB[] = "GPU-3bc239e1-4cc8-97e4-e817-5a36dfd2885e";
constexpr char kMig[] = "MIG-2ce7a541-c516-5dbc-a76e-26cc100d9b55";

// What a kubelet on a mixed GPU node sends for List, in protobuf text format.
const std::string kNodeList = StrCat(R"pb(
  pod_resources {
    name: "train-0" namespace: "ml"
    containers {
      name: "trainer"
      devices { resource_name: "nvidia.com/gpu" device_ids: ")pb", kGpuA, R"pb(" device_ids: ")pb",
                                     kGpuB, R"pb(" topology { nodes { ID: 0 } nodes { ID: 1 } } }
      cpu_ids: 4 cpu_ids: 5
      memory { memory_type: "memory" size: 1073741824 topology { nodes { ID: 0 } } }
    }
    containers { name: "log-shipper" cpu_ids: 6 }
  }
  pod_resources {
    name: "notebook-a" namespace: "team-a"
    containers { name: "setup" }
    containers {
      name: "jupyter"
      devices { resource_name: "nvidia.com/gpu.shared" device_ids: "GPU-0::3" }
    }
  }
  pod_resources {
    name: "notebook-b" namespace: "team-b"
    containers {
      name: "jupyter"
      devices { resource_name: "nvidia.com/gpu.shared" device_ids: "GPU-0::7" }
    }
  }
  pod_resources {
    name: "infer" namespace: "serving"
    containers {
      name: "server"
      devices { resource_name: "nvidia.com/mig-1g.10gb" device_ids: ")pb", kMig, R"pb(" }
      devices { resource_name: "example.com/empty" }
    }
  }
  pod_resources {
    name: "web" namespace: "default"
    cpu_ids: 1
    containers { name: "nginx" cpu_ids: 2 cpu_ids: 3 }
  }
  pod_resources { name: "no-containers" namespace: "default" }
  pod_resources {
    name: "dra" namespace: "ml"
    containers {
      name: "worker"
      dynamic_resources {
        claim_name: "gpu-claim" claim_namespace: "ml"
        claim_resources {
          cdi_devices { name: "k8s.gpu.nvidia.com/device=gpu-0" }
          driver_name: "gpu.nvidia.com" pool_name: "node-1" device_name: "gpu-0"
          share_id: "4f3c"
        }
        claim_resources { driver_name: "gpu.nvidia.com" pool_name: "node-1" device_name: "gpu-1" }
      }
    }
  }
)pb");

const std::string kNodeAllocatable = StrCat(R"pb(
  devices { resource_name: "nvidia.com/gpu" device_ids: ")pb", kGpuA, R"pb(" device_ids: ")pb",
                                kGpuB, R"pb(" topology { nodes { ID: 1 } } }
  devices { resource_name: "nvidia.com/gpu.shared"
            device_ids: "GPU-0::0" device_ids: "GPU-0::1" device_ids: "GPU-0::2" }
  devices { resource_name: "nvidia.com/mig-1g.10gb" device_ids: ")pb", kMig, R"pb(" }
  devices { resource_name: "example.com/none-left" }
  cpu_ids: 0 cpu_ids: 1
  memory { memory_type: "hugepages-2Mi" size: 2097152 }
)pb");

class PodResourcesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpucost-podres-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    socket_ = (dir_ / "kubelet.sock").string();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  FakeKubelet::Script NodeScript() {
    FakeKubelet::Script script;
    const std::string error = FakeKubelet::ParseText(kNodeList, kNodeAllocatable, script);
    EXPECT_EQ(error, "");
    return script;
  }

  fs::path dir_;
  std::string socket_;
};

TEST_F(PodResourcesTest, ListHandsOverEveryDeviceOfEveryContainerThatHoldsOne) {
  auto kubelet = FakeKubelet::Start(socket_, NodeScript());
  ASSERT_NE(kubelet, nullptr);
  PodResourcesClient client(socket_, std::chrono::seconds(10));
  EXPECT_EQ(client.target(), "unix://" + socket_);

  const Result<PodResourcesList> list = client.List();
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(kubelet->list_calls(), 1);

  std::vector<PodDevices> want;
  want.push_back({"ml", "train-0",
                  {{"trainer", {{"nvidia.com/gpu", {kGpuA, kGpuB}, {0, 1}}}, {}}}});
  want.push_back({"team-a", "notebook-a",
                  {{"jupyter", {{"nvidia.com/gpu.shared", {"GPU-0::3"}, {}}}, {}}}});
  want.push_back({"team-b", "notebook-b",
                  {{"jupyter", {{"nvidia.com/gpu.shared", {"GPU-0::7"}, {}}}, {}}}});
  want.push_back({"serving", "infer",
                  {{"server", {{"nvidia.com/mig-1g.10gb", {kMig}, {}}}, {}}}});
  ClaimDevice shared{"ml", "gpu-claim", "gpu.nvidia.com", "node-1", "gpu-0", "4f3c",
                     {"k8s.gpu.nvidia.com/device=gpu-0"}};
  ClaimDevice whole{"ml", "gpu-claim", "gpu.nvidia.com", "node-1", "gpu-1", std::nullopt, {}};
  want.push_back({"ml", "dra", {{"worker", {}, {shared, whole}}}});

  ASSERT_EQ(list->pods.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(list->pods[i], want[i]) << "pod " << i << " " << want[i].pod_name;
  }
}

TEST_F(PodResourcesTest, AllocatableListsTheNodesDeviceIdsByResource) {
  auto kubelet = FakeKubelet::Start(socket_, NodeScript());
  ASSERT_NE(kubelet, nullptr);
  PodResourcesClient client(socket_, std::chrono::seconds(10));

  const Result<AllocatableDevices> allocatable = client.GetAllocatableResources();
  ASSERT_TRUE(allocatable.ok()) << allocatable.status().ToString();
  const std::vector<ResourceDevices> want = {
      {"nvidia.com/gpu", {kGpuA, kGpuB}, {1}},
      {"nvidia.com/gpu.shared", {"GPU-0::0", "GPU-0::1", "GPU-0::2"}, {}},
      {"nvidia.com/mig-1g.10gb", {kMig}, {}},
  };
  EXPECT_EQ(allocatable->devices, want);
  EXPECT_EQ(kubelet->allocatable_calls(), 1);
}

TEST_F(PodResourcesTest, AnEmptyNodeListsNoPods) {
  auto kubelet = FakeKubelet::Start(socket_, FakeKubelet::Script{});
  ASSERT_NE(kubelet, nullptr);
  PodResourcesClient client(socket_, std::chrono::seconds(10));
  const Result<PodResourcesList> list = client.List();
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_TRUE(list->pods.empty());
  const Result<AllocatableDevices> allocatable = client.GetAllocatableResources();
  ASSERT_TRUE(allocatable.ok()) << allocatable.status().ToString();
  EXPECT_TRUE(allocatable->devices.empty());
}

TEST_F(PodResourcesTest, AKubeletWithoutGetAllocatableResourcesIsUnimplementedAndListStillWorks) {
  FakeKubelet::Script script = NodeScript();
  script.allocatable_mode = FakeKubelet::Mode::kUnimplemented;
  auto kubelet = FakeKubelet::Start(socket_, script);
  ASSERT_NE(kubelet, nullptr);
  PodResourcesClient client(socket_, std::chrono::seconds(10));

  const Result<AllocatableDevices> allocatable = client.GetAllocatableResources();
  ASSERT_FALSE(allocatable.ok());
  EXPECT_EQ(allocatable.status().code(), StatusCode::kUnimplemented);
  const std::string message(allocatable.status().message());
  EXPECT_THAT(message, HasSubstr("kubelet pod-resources GetAllocatableResources on unix://" +
                                 socket_ + " failed: UNIMPLEMENTED: unknown method"));

  const Result<PodResourcesList> list = client.List();
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->pods.size(), 5u);
}

TEST_F(PodResourcesTest, AMissingSocketIsUnavailableAndNamesTheSocket) {
  PodResourcesClient client(socket_, std::chrono::seconds(10));
  const Result<PodResourcesList> list = client.List();
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.status().code(), StatusCode::kUnavailable);
  const std::string message(list.status().message());
  EXPECT_THAT(message, HasSubstr("kubelet pod-resources List on unix://" + socket_ +
                                 " failed: UNAVAILABLE: "));
  EXPECT_THAT(message, HasSubstr("(no socket at " + socket_));

  const Result<AllocatableDevices> allocatable = client.GetAllocatableResources();
  ASSERT_FALSE(allocatable.ok());
  EXPECT_EQ(allocatable.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(std::string(allocatable.status().message()),
              HasSubstr("GetAllocatableResources on unix://" + socket_));
}

TEST_F(PodResourcesTest, AFileThatIsNotASocketIsNamedInTheError) {
  { std::ofstream(socket_) << "not a socket"; }
  PodResourcesClient client(socket_, std::chrono::seconds(10));
  const Result<PodResourcesList> list = client.List();
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(std::string(list.status().message()), HasSubstr(socket_ + " is not a socket"));
}

TEST_F(PodResourcesTest, TheNextCallReachesAKubeletThatCameBack) {
  PodResourcesClient client(socket_, std::chrono::seconds(10));
  ASSERT_FALSE(client.List().ok());
  {
    auto kubelet = FakeKubelet::Start(socket_, NodeScript());
    ASSERT_NE(kubelet, nullptr);
    const Result<PodResourcesList> list = client.List();
    ASSERT_TRUE(list.ok()) << list.status().ToString();
    EXPECT_EQ(list->pods.size(), 5u);
  }
  // Stopped (a kubelet restart): the call fails, and the restarted kubelet is reached at once.
  const Result<PodResourcesList> gone = client.List();
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), StatusCode::kUnavailable);
  auto restarted = FakeKubelet::Start(socket_, FakeKubelet::Script{});
  ASSERT_NE(restarted, nullptr);
  const Result<PodResourcesList> again = client.List();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->pods.empty());
}

TEST_F(PodResourcesTest, AHungKubeletCostsOneDeadline) {
  FakeKubelet::Script script = NodeScript();
  script.list_mode = FakeKubelet::Mode::kHang;
  auto kubelet = FakeKubelet::Start(socket_, script);
  ASSERT_NE(kubelet, nullptr);
  PodResourcesClient client(socket_, std::chrono::milliseconds(200));

  const Result<PodResourcesList> list = client.List();
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(std::string(list.status().message()),
              HasSubstr("kubelet pod-resources List on unix://" + socket_ +
                        " failed: DEADLINE_EXCEEDED: "));
  EXPECT_EQ(kubelet->list_calls(), 1);

  // The kubelet recovers; the same client gets its answer.
  script.list_mode = FakeKubelet::Mode::kServe;
  kubelet->SetScript(script);
  const Result<PodResourcesList> recovered = client.List();
  ASSERT_TRUE(recovered.ok()) << recovered.status().ToString();
  EXPECT_EQ(recovered->pods.size(), 5u);
}

TEST_F(PodResourcesTest, AKubeletErrorKeepsItsCodeAndMessage) {
  FakeKubelet::Script script = NodeScript();
  script.list_mode = FakeKubelet::Mode::kFail;
  script.fail_code = grpc::StatusCode::RESOURCE_EXHAUSTED;
  script.fail_message = "rejected by rate limit";
  auto kubelet = FakeKubelet::Start(socket_, script);
  ASSERT_NE(kubelet, nullptr);
  PodResourcesClient client(socket_, std::chrono::seconds(10));
  Result<PodResourcesList> list = client.List();
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(std::string(list.status().message()),
              HasSubstr("failed: RESOURCE_EXHAUSTED: rejected by rate limit"));

  script.fail_code = grpc::StatusCode::PERMISSION_DENIED;
  script.fail_message = "not allowed";
  kubelet->SetScript(script);
  list = client.List();
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(list.status().message()), HasSubstr("PERMISSION_DENIED: not allowed"));

  script.fail_code = grpc::StatusCode::UNKNOWN;  // what a kubelet with the call disabled sends
  script.fail_message = "Pod Resources API GetAllocatableResources disabled";
  script.allocatable_mode = FakeKubelet::Mode::kFail;
  kubelet->SetScript(script);
  const Result<AllocatableDevices> allocatable = client.GetAllocatableResources();
  ASSERT_FALSE(allocatable.ok());
  EXPECT_EQ(allocatable.status().code(), StatusCode::kInternal);
  EXPECT_THAT(std::string(allocatable.status().message()),
              HasSubstr("failed: UNKNOWN: Pod Resources API GetAllocatableResources disabled"));
}

// A node with thousands of pods answers with more than gRPC's default limit of 4 MiB.
TEST_F(PodResourcesTest, AListLargerThanGrpcsDefaultLimitArrives) {
  FakeKubelet::Script script;
  constexpr int kPods = 30000;
  for (int i = 0; i < kPods; ++i) {
    v1::PodResources* pod = script.list.add_pod_resources();
    pod->set_name(StrCat("pod-with-a-long-generated-name-", i));
    pod->set_namespace_("namespace-of-a-large-tenant");
    v1::ContainerResources* container = pod->add_containers();
    container->set_name("main");
    v1::ContainerDevices* devices = container->add_devices();
    devices->set_resource_name("nvidia.com/gpu.shared");
    devices->add_device_ids(StrCat(kGpuA, "::", i % 64));
    devices->add_device_ids(StrCat(kGpuB, "::", i % 64));
  }
  ASSERT_GT(script.list.ByteSizeLong(), size_t{4} << 20);
  ASSERT_LT(script.list.ByteSizeLong(), size_t{kPodResourcesMaxReceiveBytes});
  auto kubelet = FakeKubelet::Start(socket_, script);
  ASSERT_NE(kubelet, nullptr);
  PodResourcesClient client(socket_, std::chrono::seconds(30));
  const Result<PodResourcesList> list = client.List();
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->pods.size(), size_t{kPods});
  EXPECT_EQ(list->pods.back().pod_name, StrCat("pod-with-a-long-generated-name-", kPods - 1));
  EXPECT_EQ(list->pods.back().containers.at(0).devices.at(0).device_ids.at(1),
            StrCat(kGpuB, "::", (kPods - 1) % 64));
}

TEST_F(PodResourcesTest, ARelativeSocketPathIsAUnixTargetToo) {
  PodResourcesClient client("kubelet.sock", std::chrono::seconds(1));
  EXPECT_EQ(client.target(), "unix:kubelet.sock");
  PodResourcesClient by_default;
  EXPECT_EQ(by_default.target(), "unix:///var/lib/kubelet/pod-resources/kubelet.sock");
}

}  // namespace
}  // namespace gpucost::agent
