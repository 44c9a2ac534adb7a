// DeviceClasses from the Kubernetes API (resource.k8s.io/v1): what their CEL selectors pin, the
// class store of the real KubeSource against the fake API server, and the real `gpucost report
// --kubeconfig` pricing a pod the API has forgotten, whose kube-state-metrics series ask for a
// class's devices by the extended resource the class names (docs/k8s.md "Device classes").
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"
#include "k8s/dra_api_objects.h"
#include "k8s/dra_objects.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kube_source.h"

namespace gpucost::k8s {
namespace {

using testing_util::RunShell;
using namespace dra_api;  // NOLINT(google-build-using-namespace)

KubeDeviceClass Pinned(std::string_view expression) {
  KubeDeviceClass c;
  ReadDeviceSelector(expression, c);
  return c;
}

TEST(DeviceSelectorTest, EqualitiesOnDriverTypeAndProfileArePinned) {
  // NVIDIA's chart's gpu.nvidia.com class, as written.
  KubeDeviceClass c = Pinned(
      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'");
  EXPECT_EQ(c.driver, "gpu.nvidia.com");
  EXPECT_EQ(c.type, "gpu");
  EXPECT_EQ(c.profile, "");
  // Double quotes, parentheses, the value first, and clauses that pin nothing.
  c = Pinned(
      R"((device.driver == "gpu.nvidia.com") && "mig" == device.attributes["gpu.nvidia.com"].type && device.attributes["gpu.nvidia.com"].profile == "1g.10gb" && device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("10Gi")) >= 0)");
  EXPECT_EQ(c.driver, "gpu.nvidia.com");
  EXPECT_EQ(c.type, "mig");
  EXPECT_EQ(c.profile, "1g.10gb");
  // AMD's partition profile attribute.
  c = Pinned(
      "device.driver == 'gpu.amd.com' && device.attributes['gpu.amd.com'].partitionProfile "
      "== 'cpx_nps4'");
  EXPECT_EQ(c.profile, "cpx_nps4");
  // Either of two: nothing is pinned rather than a guess.
  c = Pinned("device.driver == 'gpu.nvidia.com' || device.driver == 'gpu.amd.com'");
  EXPECT_EQ(c.driver, "");
  // An inequality pins nothing.
  c = Pinned("device.driver != 'gpu.nvidia.com'");
  EXPECT_EQ(c.driver, "");
  // Two selectors: both hold; the first that pins a field keeps it.
  c = Pinned("device.driver == 'gpu.nvidia.com'");
  ReadDeviceSelector("device.attributes['gpu.nvidia.com'].type == 'mig'", c);
  EXPECT_EQ(c.driver, "gpu.nvidia.com");
  EXPECT_EQ(c.type, "mig");
}

TEST(DeviceSelectorTest, ABadClassNamesItsField) {
  const auto bad = DecodeDeviceClass(
      json::parse(R"({"metadata":{"name":"gpu.example.com"},"spec":{"selectors":{"cel":{}}}})"),
      LabelFilter::None());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("deviceclass gpu.example.com: spec.selectors: not a list"),
            std::string::npos)
      << bad.status().ToString();
  const auto expr = DecodeDeviceClass(
      json::parse(R"({"metadata":{"name":"x"},"spec":{"selectors":[{"cel":{"expression":7}}]}})"),
      LabelFilter::None());
  ASSERT_FALSE(expr.ok());
  EXPECT_NE(expr.status().message().find("spec.selectors[0].cel.expression: not a string"),
            std::string::npos);
}

json DeviceClass(const std::string& name, const std::string& expression,
                 const std::string& extended = "", const std::string& created = kStart) {
  json c = {{"metadata", {{"name", name}, {"creationTimestamp", created}}},
            {"spec", {{"selectors", json::array({{{"cel", {{"expression", expression}}}}})}}}};
  if (!extended.empty()) c["spec"]["extendedResourceName"] = extended;
  return c;
}

// Two GPUs on dra-1 that NVIDIA's driver publishes, its chart's classes, and a class of the
// cluster's own that names the extended resource example.com/a100 (created after another class
// naming it, so it serves it).
void LoadClassCluster(FakeApiServer& server) {
  server.Upsert("nodes", fx::Node({.name = "dra-1", .created = kStart}));
  server.Upsert(
      "resourceslices",
      Slice("dra-1-gpu", 1,
            json::array({GpuDevice("gpu-0", "GPU-aaaa"), GpuDevice("gpu-1", "GPU-bbbb")})));
  const std::string gpu =
      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'";
  server.Upsert("deviceclasses", DeviceClass("gpu.nvidia.com", gpu, "nvidia.com/gpu"));
  server.Upsert("deviceclasses", DeviceClass("mig.nvidia.com",
                                             "device.driver == 'gpu.nvidia.com' && "
                                             "device.attributes['gpu.nvidia.com'].type == 'mig'"));
  server.Upsert("deviceclasses", DeviceClass("a100-old", "device.driver == 'gpu.amd.com'",
                                             "example.com/a100", kStart));
  server.Upsert("deviceclasses",
                DeviceClass("a100", gpu, "example.com/a100", "2026-10-01T00:10:00Z"));
}

TEST(DeviceClassKubeTest, KubeSourceReadsTheClasses) {
  FakeApiServer server;
  LoadClassCluster(server);
  FakeClock clock(At("2026-10-01T01:00:00Z"));
  KubeConnection c;
  c.server = server.url();
  KubeSource source(c, {}, clock);
  ASSERT_TRUE(source.List().ok());
  EXPECT_EQ(source.stats().decode_errors, 0u) << source.stats().last_decode_error;
  const KubeState k = source.Snapshot();
  ASSERT_EQ(k.dra_classes.size(), 4u);
  const KubeDeviceClass& a100 = k.dra_classes[0];  // by name
  EXPECT_EQ(a100.name, "a100");
  EXPECT_EQ(a100.extended_resource_name, "example.com/a100");
  EXPECT_EQ(a100.driver, "gpu.nvidia.com");
  EXPECT_EQ(a100.type, "gpu");
  EXPECT_EQ(a100.created, At("2026-10-01T00:10:00Z"));
  EXPECT_EQ(k.dra_classes[3].name, "mig.nvidia.com");
  EXPECT_EQ(k.dra_classes[3].type, "mig");
}

// The real binary: the pod holds both GPUs for the hour, by the class the API serves; without
// the classes (the account may not read them) it is not counted, and the report says why.
TEST(DeviceClassKubeTest, ReportPricesAClassRequestThePodsClaimNoLongerShows) {
  FakeApiServer server;
  LoadClassCluster(server);
  TempDir dir;
  const std::string kc = WriteKubeconfig(dir, server);
  const std::string ksm = (dir.path() / "ksm.prom").string();
  // Pod old-0, gone from the API, asked for 2 example.com/a100 for the hour.
  std::ofstream(ksm) << PodRequestSeries("old-0", "uid-old-0", "dra-1", "example_com_a100", 2);
  const std::string err = (dir.path() / "err.txt").string();
  const std::string cmd = ReportCommand(kc, "--input " + ksm + " 2>" + err);
  auto r = RunShell(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  double idle = 0;
  std::map<std::string, double> allocated = AllocatedByPod(json::parse(r.output), idle);
  EXPECT_NEAR(allocated["old-0"], 24.0, 1e-9);
  EXPECT_NEAR(idle, 0.0, 1e-9);

  server.FailNext("/apis/resource.k8s.io/v1/deviceclasses", 403, 1);
  r = RunShell(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  allocated = AllocatedByPod(json::parse(r.output), idle);
  EXPECT_EQ(allocated.count("old-0"), 0u);
  EXPECT_NEAR(idle, 24.0, 1e-9);
  std::ifstream in(err);
  const std::string warnings((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(warnings.find("deviceclasses may not be read (HTTP 403"), std::string::npos)
      << warnings;
}

}  // namespace
}  // namespace gpucost::k8s
