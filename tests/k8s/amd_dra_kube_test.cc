// AMD Instinct GPUs handed out by AMD's DRA driver (gpu.amd.com), through the fake API server
// and the real `gpucost report --kubeconfig` (docs/k8s.md "Dynamic Resource Allocation").
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"
#include "k8s/dra_api_objects.h"
#include "k8s/fake_apiserver.h"
#include "k8s/k8s_fixtures.h"

namespace gpucost::k8s {
namespace {

using namespace dra_api;  // NOLINT(google-build-using-namespace)
using testing_util::RunShell;

// AMD's DRA driver (gpu.amd.com) as it writes its slice: a GPU that is not partitioned is an
// "amdgpu" device, a partitioned GPU's partitions "amdgpu-partition" devices naming their GPU by
// "parentPciAddr". On an MI300X in DPX (two partitions), pod a's claim of one partition is half
// a GPU; pod b's claim of the whole GPU next to it is a GPU.
json AmdDevice(const std::string& name, const std::string& type, const std::string& pci,
               const std::string& profile, int render) {
  json attributes = {{"type", {{"string", type}}},
                     {type == "amdgpu" ? "pciAddr" : "parentPciAddr", {{"string", pci}}},
                     {"cardIndex", {{"int", render - 128}}},
                     {"renderIndex", {{"int", render}}},
                     {"deviceID", {{"string", "0x74a1"}}},
                     {"family", {{"string", "AI"}}},
                     {"productName", {{"string", "AMD_Instinct_MI300X_OAM"}}},
                     {"driverVersion", {{"version", "6.10.5"}}},
                     {"partitionProfile", {{"string", profile}}}};
  return {{"name", name},
          {"attributes", std::move(attributes)},
          {"capacity",
           {{"memory", {{"value", "96Gi"}}},
            {"computeUnits", {{"value", "152"}}},
            {"simdUnits", {{"value", "608"}}}}}};
}

TEST(DraKubeTest, AmdPartitionsAndGpusFromAmdsDriver) {
  FakeApiServer server;
  server.Upsert("nodes", fx::Node({.name = "dra-1", .created = "2026-09-01T00:00:00Z"}));
  server.Upsert("namespaces", fx::Namespace({.name = "ml"}));
  server.Upsert(
      "resourceslices",
      Slice(
          "dra-1-gpu.amd.com-q2w8r", 1,
          json::array({AmdDevice("gpu-1-129", "amdgpu-partition", "0000:11:00.0", "dpx_nps1", 129),
                       AmdDevice("gpu-2-130", "amdgpu-partition", "0000:11:00.0", "dpx_nps1", 130),
                       AmdDevice("gpu-3-131", "amdgpu", "0000:21:00.0", "spx_nps1", 131)}),
          "gpu.amd.com"));
  server.Upsert("resourceclaims", Claim("half", "gpu-2-130", json::array({Reserved("a")}),
                                        json::array(), "gpu.amd.com"));
  server.Upsert("resourceclaims", Claim("whole", "gpu-3-131", json::array({Reserved("b")}),
                                        json::array(), "gpu.amd.com"));
  server.Upsert("pods", DraPod("a", "half", false));
  server.Upsert("pods", DraPod("b", "whole", false));
  TempDir dir;
  const std::string kc = WriteKubeconfig(dir, server);
  const auto r = RunShell(ReportCommand(kc, "2>&1 >" + (dir.path() / "out.json").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("AMD"), std::string::npos) << r.output;  // no AMD GPU unmatched
  std::ifstream in(dir.path() / "out.json");
  const json doc = json::parse(in);
  double idle = 0;
  std::map<std::string, double> allocated = AllocatedByPod(doc, idle);
  EXPECT_NEAR(allocated["a"], 6.0, 1e-9);
  EXPECT_NEAR(allocated["b"], 12.0, 1e-9);
  EXPECT_NEAR(idle, 6.0, 1e-9);  // the other partition
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 24.0, 1e-9);
}

}  // namespace
}  // namespace gpucost::k8s
