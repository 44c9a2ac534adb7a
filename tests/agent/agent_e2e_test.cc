// End to end: the real `gpucost agent` binary loads the fake NVML through its dlopen path, asks
// a fake kubelet (the real PodResources gRPC protocol on a unix socket) and reads a fake /proc
// tree; its /metrics, stamped as Prometheus would store them, go with kube-state-metrics into
// `gpucost report`, whose time-sliced holders come out measured.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "agent/fake_kubelet.h"
#include "agent/fake_nvml.h"
#include "agent/fake_proc.h"
#include "cli/cli_test_util.h"
#include "common/child_process.h"

namespace gpucost {
namespace {

using agent::testing::kFakeNvmlPath;
using agent::testing::UseFakeNvmlScript;
using testing_util::FakeKubelet;
using testing_util::FakeProc;
using testing_util::Contains;
using testing_util::RunShell;

constexpr int64_t kT0 = 1790812800;  // 2026-10-01T00:00:00Z
const std::string kGpu = "GPU-7e1d0c2b-3a4f-4b5c-8d6e-9f0a1b2c3d4e";

struct PodSpec {
  std::string name;
  std::string uid;
  std::string container_id;  // 64 hex
  int replica;
};
const PodSpec kPods[] = {
    {"svc-a", "a36d0c1d-0b26-4451-8d80-9c195e004afa", std::string(64, 'a'), 0},
    {"svc-b", "8ca306fa-3c03-47fa-97dd-19979c345572", std::string(64, 'b'), 1},
    {"svc-c", "2105e389-7471-476e-a50f-6074cef29bbd", std::string(64, 'c'), 2},
};

std::string Underscored(std::string uid) {
  for (char& c : uid) c = c == '-' ? '_' : c;
  return uid;
}

// svc-a's process (pid 4001) and svc-b's (4002) run on the GPU; svc-c holds a replica but runs
// nothing. Collection 1 sees frame 0, collection 2 frame 1 (GPM activity 0.6).
const char* kNvmlScript = R"(
gpu 0 uuid=GPU-7e1d0c2b-3a4f-4b5c-8d6e-9f0a1b2c3d4e name="Tesla T4" util=95 gpm=1 gpm_util=50 mem_total=16000000000
proc 0 pid=4001 mem=1000000
proc 0 pid=4002 mem=2000000
proc 0 pid=4999 mem=3000000
sample 0 pid=4001 ts=1000000 sm=30
sample 0 pid=4002 ts=1000000 sm=10
frame
gpu 0 gpm_util=60
proc 0 pid=4001 mem=1000000
proc 0 pid=4002 mem=2000000
sample 0 pid=4001 ts=2000000 sm=44
sample 0 pid=4001 ts=2500000 sm=46
sample 0 pid=4002 ts=2000000 sm=15
)";

class AgentEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    UseFakeNvmlScript("e2e", kNvmlScript);
    proc_.Add(4001, "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" +
                        Underscored(kPods[0].uid) + ".slice/cri-containerd-" +
                        kPods[0].container_id + ".scope\n",
              100);
    proc_.Add(4002, "12:memory:/kubepods/burstable/pod" + kPods[1].uid + "/" +
                        kPods[1].container_id + "\n",
              200);
    proc_.Add(4999, "0::/system.slice/sshd.service\n", 300);  // a host process
    FakeKubelet::Script script;
    for (const PodSpec& p : kPods) {
      auto* pod = script.list.add_pod_resources();
      pod->set_name(p.name);
      pod->set_namespace_("inference");
      auto* c = pod->add_containers();
      c->set_name("main");
      auto* d = c->add_devices();
      d->set_resource_name("nvidia.com/gpu");
      d->add_device_ids(kGpu + "::" + std::to_string(p.replica));
    }
    auto* allocatable = script.allocatable.add_devices();
    allocatable->set_resource_name("nvidia.com/gpu");
    for (int r = 0; r < 4; ++r) allocatable->add_device_ids(kGpu + "::" + std::to_string(r));
    socket_ = (proc_.root() / "kubelet.sock").string();
    kubelet_ = FakeKubelet::Start(socket_, std::move(script));
    ASSERT_NE(kubelet_, nullptr);
  }

  std::string AgentFlags() const {
    return " --node-name ts-node --nvml-library " + std::string(kFakeNvmlPath) +
           " --pod-resources-socket " + socket_ + " --proc-root " + proc_.root().string();
  }

  FakeProc proc_;
  std::string socket_;
  std::unique_ptr<FakeKubelet> kubelet_;
};

// kube-state-metrics for the time-sliced node and its three pods, scraped every 60 s.
std::string KubeStateMetrics() {
  std::string out;
  for (int64_t t = kT0; t < kT0 + 600; t += 60) {
    const std::string ts = " " + std::to_string(t * 1000) + "\n";
    out += "kube_node_labels{node=\"ts-node\",label_nvidia_com_gpu_product=\"Tesla-T4-SHARED\","
           "label_nvidia_com_gpu_count=\"1\",label_nvidia_com_gpu_replicas=\"4\","
           "label_nvidia_com_gpu_sharing_strategy=\"time-slicing\"} 1" + ts;
    out += "kube_node_status_capacity{node=\"ts-node\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 4" + ts;
    for (const PodSpec& p : kPods) {
      const std::string pod = "namespace=\"inference\",pod=\"" + p.name + "\",uid=\"" + p.uid + "\"";
      out += "kube_pod_info{" + pod + ",node=\"ts-node\",created_by_kind=\"\",created_by_name=\"\"} 1" + ts;
      out += "kube_pod_status_phase{" + pod + ",phase=\"Running\"} 1" + ts;
      out += "kube_pod_container_resource_requests{" + pod + ",container=\"main\",node=\"ts-node\","
             "resource=\"nvidia_com_gpu\",unit=\"integer\"} 1" + ts;
    }
  }
  return out;
}

// The agent's /metrics text as Prometheus stores it when it scrapes every 60 s.
std::string Stamped(const std::string& metrics) {
  std::string out;
  for (int64_t t = kT0; t < kT0 + 600; t += 60) {
    std::istringstream in(metrics);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      out += line + " " + std::to_string(t * 1000) + "\n";
    }
  }
  return out;
}

TEST_F(AgentEndToEnd, AgentMetricsMakeTimeSlicedHoldersMeasuredInTheReport) {
  const auto once = RunShell(kBinary + " agent --once" + AgentFlags() + " 2>/dev/null");
  ASSERT_EQ(once.exit_code, 0) << once.output;
  const std::string& m = once.output;
  EXPECT_TRUE(Contains(m, "gpucost_agent_unit_activity_ratio{node=\"ts-node\",gpu_uuid=\"" + kGpu +
                              "\",source=\"gpm\"} 0.59999999999999998"))
      << m;
  // svc-a: mean of 44 and 46 (frame 0's sample is not counted again); svc-b: 15.
  EXPECT_TRUE(Contains(m, "pod_uid=\"" + kPods[0].uid + "\",container_id=\"" +
                              kPods[0].container_id + "\"} 0.45000000000000001"))
      << m;
  EXPECT_TRUE(Contains(m, "pod_uid=\"" + kPods[1].uid + "\",container_id=\"" +
                              kPods[1].container_id + "\"} 0.14999999999999999"))
      << m;
  EXPECT_TRUE(Contains(m, "gpucost_agent_device_assignment{node=\"ts-node\",namespace=\"inference\","
                          "pod=\"svc-c\",container=\"main\",resource=\"nvidia.com/gpu\",device_id=\"" +
                              kGpu + "::2\",gpu_uuid=\"" + kGpu + "\",replica=\"2\"} 1"))
      << m;
  EXPECT_TRUE(Contains(m, "gpucost_agent_up{node=\"ts-node\",component=\"kubelet\"} 1")) << m;
  EXPECT_TRUE(Contains(m, "gpucost_agent_up{node=\"ts-node\",component=\"nvml\"} 1")) << m;
  EXPECT_TRUE(Contains(m, "gpucost_agent_holder_memory_bytes")) << m;
  EXPECT_TRUE(Contains(m, "gpucost_agent_allocatable_device{node=\"ts-node\",resource=\"nvidia.com/gpu\","
                          "device_id=\"" + kGpu + "::3\",gpu_uuid=\"" + kGpu + "\",replica=\"3\"} 1"))
      << m;
  EXPECT_EQ(kubelet_->list_calls(), 2);
  EXPECT_EQ(kubelet_->allocatable_calls(), 2);

  testing_util::TempDir dir;
  const std::string ksm = (dir.path() / "ksm.prom").string();
  const std::string agent = (dir.path() / "agent.prom").string();
  std::ofstream(ksm) << KubeStateMetrics();
  std::ofstream(agent) << Stamped(m);
  const auto report = RunShell(kBinary + " report --input " + ksm + " --input " + agent +
                               " --window " + std::to_string(kT0) + "," +
                               std::to_string(kT0 + 600) +
                               " --by pod --accumulate --price-per-gpu-hour 2 --format json"
                               " 2>/dev/null");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const auto doc = nlohmann::json::parse(report.output);
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : doc["rows"]) rows[row["pod"].get<std::string>()] = row;
  ASSERT_TRUE(rows.contains("svc-a") && rows.contains("svc-b") && rows.contains("svc-c"))
      << report.output;
  // A replica is a quarter of the T4: u = activity / 0.25.
  const std::map<std::string, double> want = {{"svc-a", 0.45 / 0.25}, {"svc-b", 0.15 / 0.25},
                                              {"svc-c", 0.0}};
  for (const auto& [pod, u] : want) {
    EXPECT_EQ(rows[pod]["estimated"], false) << pod;
    EXPECT_NEAR(rows[pod]["utilization"].get<double>(), std::min(1.0, u), 1e-9) << pod;
    EXPECT_NEAR(rows[pod]["unmeasured_gpu_hours"].get<double>(), 0.0, 1e-12) << pod;
    EXPECT_NEAR(rows[pod]["allocated_usd"].get<double>(), 0.25 * 2 / 6, 1e-9) << pod;
  }
  // Conservation: one physical GPU at $2/h for 1/6 h, replicas never inflate it.
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 2.0 / 6, 1e-9);
}

TEST_F(AgentEndToEnd, AnOlderKubeletWithoutAllocatableResourcesIsAskedOnce) {
  FakeKubelet::Script script;
  script.allocatable_mode = FakeKubelet::Mode::kUnimplemented;
  kubelet_->SetScript(std::move(script));
  const auto once = RunShell(kBinary + " agent --once" + AgentFlags() + " 2>/dev/null");
  ASSERT_EQ(once.exit_code, 0) << once.output;
  EXPECT_EQ(kubelet_->list_calls(), 2);
  EXPECT_EQ(kubelet_->allocatable_calls(), 1) << "UNIMPLEMENTED is not asked again";
  EXPECT_TRUE(Contains(once.output, "gpucost_agent_up{node=\"ts-node\",component=\"kubelet\"} 1"));
  EXPECT_FALSE(Contains(once.output, "gpucost_agent_kubelet_errors_total{"));
  EXPECT_FALSE(Contains(once.output, "gpucost_agent_allocatable_device{"));
}

// A container that got the GPU through a DRA claim: the kubelet lists it under dynamic_resources,
// and the agent reports it as an assignment of the claim, resolved to the GPU by NVIDIA's DRA
// driver's device name ("gpu-<minor>"; the fake GPU's minor is its index, 0).
TEST_F(AgentEndToEnd, DraClaimDevicesAreReportedAsAssignmentsOfTheirClaim) {
  FakeKubelet::Script script;
  auto* pod = script.list.add_pod_resources();
  pod->set_name("llm-0");
  pod->set_namespace_("ml");
  auto* c = pod->add_containers();
  c->set_name("main");
  auto* claim = c->add_dynamic_resources();
  claim->set_claim_name("llm-0-gpu-x7k2");
  claim->set_claim_namespace("ml");
  auto* device = claim->add_claim_resources();
  device->set_driver_name("gpu.nvidia.com");
  device->set_pool_name("ts-node");
  device->set_device_name("gpu-0");
  kubelet_->SetScript(std::move(script));
  const auto once = RunShell(kBinary + " agent --once" + AgentFlags() + " 2>/dev/null");
  ASSERT_EQ(once.exit_code, 0) << once.output;
  EXPECT_TRUE(
      Contains(once.output,
               "gpucost_agent_device_assignment{node=\"ts-node\",namespace=\"ml\",pod=\"llm-0\","
               "container=\"main\",resource=\"resource.k8s.io/claim/llm-0-gpu-x7k2\","
               "device_id=\"gpu.nvidia.com/ts-node/gpu-0\",gpu_uuid=\"" +
                   kGpu + "\"} 1"))
      << once.output;
}

// On a machine with an NVIDIA GPU (GPUCOST_TEST_REAL_NVML names its libnvidia-ml.so.1): the
// kernel driver's own record of each GPU (/proc/driver/nvidia/gpus/*/information: "Device Minor"
// and "GPU UUID") against what the agent resolves NVIDIA's DRA device "gpu-<minor>" to through the
// real NVML. GPUCOST_TEST_BINARY may name the gpucost binary where the build tree is elsewhere.
TEST(AgentOnRealGpu, DraDeviceOfEachGpuResolvesToItsUuid) {
  const char* nvml = std::getenv("GPUCOST_TEST_REAL_NVML");
  if (nvml == nullptr) GTEST_SKIP() << "no GPU: GPUCOST_TEST_REAL_NVML is not set";
  const char* binary_env = std::getenv("GPUCOST_TEST_BINARY");
  const std::string binary = binary_env != nullptr ? binary_env : kBinary;
  std::map<int, std::string> uuid_by_minor;
  const std::filesystem::path gpus = "/proc/driver/nvidia/gpus";
  ASSERT_TRUE(std::filesystem::exists(gpus)) << gpus;
  for (const auto& dir : std::filesystem::directory_iterator(gpus)) {
    std::ifstream in(dir.path() / "information");
    int minor = -1;
    std::string uuid;
    for (std::string line; std::getline(in, line);) {
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      if (line.rfind("Device Minor", 0) == 0) minor = std::stoi(value);
      if (line.rfind("GPU UUID", 0) == 0) uuid = value;
    }
    ASSERT_GE(minor, 0) << dir.path();
    uuid_by_minor[minor] = uuid;
  }
  ASSERT_FALSE(uuid_by_minor.empty());
  testing_util::TempDir dir;
  const std::string socket = (dir.path() / "kubelet.sock").string();
  FakeKubelet::Script script;
  auto* pod = script.list.add_pod_resources();
  pod->set_name("dra-pod");
  pod->set_namespace_("ml");
  auto* c = pod->add_containers();
  c->set_name("main");
  auto* claim = c->add_dynamic_resources();
  claim->set_claim_name("gpus");
  claim->set_claim_namespace("ml");
  for (const auto& [minor, uuid] : uuid_by_minor) {
    auto* device = claim->add_claim_resources();
    device->set_driver_name("gpu.nvidia.com");
    device->set_pool_name("real");
    device->set_device_name("gpu-" + std::to_string(minor));
  }
  auto kubelet = FakeKubelet::Start(socket, std::move(script));
  ASSERT_NE(kubelet, nullptr);
  const auto once = RunShell(binary + " agent --once --node-name real --nvml-library " + nvml +
                             " --pod-resources-socket " + socket + " 2>&1");
  ASSERT_EQ(once.exit_code, 0) << once.output;
  for (const auto& [minor, uuid] : uuid_by_minor) {
    EXPECT_TRUE(Contains(once.output, "device_id=\"gpu.nvidia.com/real/gpu-" +
                                          std::to_string(minor) + "\",gpu_uuid=\"" + uuid + "\""))
        << once.output;
  }
  std::printf("%s", once.output.c_str());
}

// The same /metrics without the collection's own timing, which differs run to run.
std::string WithoutTiming(const std::string& metrics) {
  std::istringstream in(metrics);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("gpucost_agent_collection_seconds{", 0) != 0) out += line + "\n";
  }
  return out;
}

TEST_F(AgentEndToEnd, TheSmallAgentBinaryAnswersLikeTheSubcommand) {
  const auto sub = RunShell(kBinary + " agent --once" + AgentFlags() + " 2>/dev/null");
  const auto small =
      RunShell(std::string(GPUCOST_AGENT_BINARY) + " --once" + AgentFlags() + " 2>/dev/null");
  ASSERT_EQ(sub.exit_code, 0);
  ASSERT_EQ(small.exit_code, 0) << small.output;
  EXPECT_TRUE(Contains(small.output, "gpucost_agent_holder_activity_ratio{node=\"ts-node\""));
  EXPECT_EQ(WithoutTiming(small.output), WithoutTiming(sub.output));
}

TEST_F(AgentEndToEnd, ServesMetricsAndHealthUntilTerminated) {
  const int port = testing_util::FreePort();
  testing_util::TempDir dir;
  const std::string log = (dir.path() / "agent.log").string();
  auto child = std::make_unique<testing_util::ChildProcess>(
      std::vector<std::string>{kBinary, "agent", "--listen", "127.0.0.1:" + std::to_string(port),
                               "--interval", "1", "--node-name", "ts-node", "--nvml-library",
                               kFakeNvmlPath, "--pod-resources-socket", socket_, "--proc-root",
                               proc_.root().string()},
      log);
  httplib::Client client("127.0.0.1", port);
  std::string body;
  for (int i = 0; i < 100; ++i) {
    auto res = client.Get("/metrics");
    if (res && res->status == 200 &&
        res->body.find("gpucost_agent_collections_total{node=\"ts-node\"} 2") != std::string::npos) {
      body = res->body;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(body.empty()) << "no second collection on /metrics";
  EXPECT_TRUE(Contains(body, "# TYPE gpucost_agent_unit_activity_ratio gauge"));
  EXPECT_TRUE(Contains(body, "gpucost_agent_gpu_info{node=\"ts-node\",gpu_uuid=\"" + kGpu));
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(child->Terminate(), 0) << "SIGTERM must end the agent cleanly";
}

}  // namespace
}  // namespace gpucost
