// `gpucost simulate --gpu-models h100-dra --kube-objects-out` through the real `gpucost report
// --input <exposition> --kube-objects <objects>`: nodes whose GPUs NVIDIA's DRA driver hands out
// (no nvidia.com/gpu anywhere in the series), priced by the claims in the objects file: an
// exclusive claim a whole GPU, a claim two pods share half each, a consumable-capacity share its
// fraction of the GPU's memory; activity measured from dcgm-exporter by UUID; cost conserved.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"
#include "common/child_process.h"
#include "focus/focus_validator.h"
#include "ledger/serve_test_util.h"

namespace gpucost {
namespace {

using nlohmann::json;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

// Each pod's expected share of its GPU, from the claims as the objects file gives them.
std::map<std::string, double> DraShares(const json& list) {
  std::map<std::string, double> device_memory;  // pool/device -> bytes
  for (const json& item : list["items"]) {
    if (item["kind"] != "ResourceSlice") continue;
    for (const json& d : item["spec"]["devices"]) {
      const std::string mi = d["capacity"]["memory"]["value"].get<std::string>();
      device_memory[item["spec"]["pool"]["name"].get<std::string>() + "/" +
                    d["name"].get<std::string>()] =
          std::stod(mi.substr(0, mi.size() - 2)) * 1048576.0;
    }
  }
  std::map<std::string, double> shares;
  for (const json& item : list["items"]) {
    if (item["kind"] != "ResourceClaim") continue;
    const json& result = item["status"]["allocation"]["devices"]["results"][0];
    const json& pods = item["status"]["reservedFor"];
    double share = 1.0 / static_cast<double>(pods.size());
    if (result.contains("shareID")) {
      share = std::stod(result["consumedCapacity"]["memory"].get<std::string>()) /
              device_memory.at(result["pool"].get<std::string>() + "/" +
                               result["device"].get<std::string>());
    }
    for (const json& p : pods) shares[p["name"].get<std::string>()] = share;
  }
  return shares;
}

TEST(SimulatedDra, ReportPricesClaimsFromTheObjectsFileAndConservesCost) {
  const TempDir dir;
  const std::string input = (dir.path() / "dra.om").string();
  const std::string objects = (dir.path() / "objects.json").string();
  const RunResult sim =
      RunShell(kBinary + " simulate --nodes 2 --gpu-models h100-dra --duration 6h --seed 7 --out " +
               input + " --kube-objects-out " + objects + " 2>&1");
  ASSERT_EQ(sim.exit_code, 0) << sim.output;
  std::ifstream in(objects);
  std::stringstream text;
  text << in.rdbuf();
  const json list = json::parse(text.str());
  ASSERT_EQ(list["kind"], "List");
  std::map<std::string, int> kinds;
  for (const json& item : list["items"]) ++kinds[item["kind"].get<std::string>()];
  EXPECT_EQ(kinds["Node"], 2);
  EXPECT_EQ(kinds["ResourceSlice"], 2);
  const std::map<std::string, double> shares = DraShares(list);
  // Per node: gpu-0 one pod, gpu-1 two, gpu-2 a quarter share, gpu-3..6 one each, gpu-7 idle.
  ASSERT_EQ(shares.size(), 2u * 8);
  int whole = 0, halves = 0, quarters = 0;
  for (const auto& [pod, share] : shares) {
    whole += share == 1.0 ? 1 : 0;
    halves += share == 0.5 ? 1 : 0;
    quarters += share == 0.25 ? 1 : 0;
  }
  EXPECT_EQ(whole, 2 * 5);
  EXPECT_EQ(halves, 2 * 2);
  EXPECT_EQ(quarters, 2);
  // No pod asks for nvidia.com/gpu and no node has it (the gpu.nvidia.com DeviceClass names it).
  EXPECT_EQ(text.str().find("\"nvidia.com/gpu\":"), std::string::npos);
  EXPECT_NE(text.str().find("\"extendedResourceName\": \"nvidia.com/gpu\""), std::string::npos);
  std::ifstream om(input);
  std::stringstream series;
  series << om.rdbuf();
  EXPECT_EQ(series.str().find("nvidia_com_gpu\""), std::string::npos)
      << "DRA nodes have no nvidia.com/gpu capacity or requests";

  const RunResult report =
      RunShell(kBinary + " report --input " + input + " --kube-objects " + objects +
               " --by pod --price-per-gpu-hour 2 --accumulate --format json "
               "2>/dev/null");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const json doc = json::parse(report.output);
  std::map<std::string, json> rows;
  for (const json& r : doc["rows"]) rows[r["pod"].get<std::string>()] = r;
  constexpr double kGpuWindowUsd = 2.0 * 6;
  for (const auto& [pod, share] : shares) {
    ASSERT_TRUE(rows.contains(pod)) << pod << " has no row: " << report.output;
    const json& r = rows[pod];
    EXPECT_NEAR(r["allocated_usd"].get<double>(), share * kGpuWindowUsd, 1e-9) << r.dump();
    EXPECT_FALSE(r["effective_usd"].is_null()) << "measured by dcgm-exporter: " << r.dump();
  }
  const json& t = doc["totals"];
  const double want = 2 * 8 * kGpuWindowUsd;
  EXPECT_NEAR(t["cost_usd"].get<double>(), want, 1e-9 * want);
  EXPECT_NEAR(t["allocated_usd"].get<double>() + t["idle_usd"].get<double>(), want, 1e-9 * want);
  // Unheld: gpu-7 and three quarters of gpu-2 on each node.
  EXPECT_NEAR(t["idle_usd"].get<double>(), 2 * 1.75 * kGpuWindowUsd, 1e-9 * want);
}

// `simulate --gpu-models mi300x-dra`: MI300Xs in CPX whose partitions AMD's DRA driver hands out.
// Each pod holds its claim's partitions, an eighth of a GPU each (eight partitions per GPU in
// the slice); activity measured from AMD's exporter; cost conserved; nothing told.
TEST(SimulatedDra, AmdPartitionClaimsFromTheObjectsFile) {
  const TempDir dir;
  const std::string input = (dir.path() / "amd.om").string();
  const std::string objects = (dir.path() / "objects.json").string();
  const RunResult sim = RunShell(kBinary +
                                 " simulate --nodes 1 --gpu-models mi300x-dra --duration 2h "
                                 "--seed 7 --out " +
                                 input + " --kube-objects-out " + objects + " 2>&1");
  ASSERT_EQ(sim.exit_code, 0) << sim.output;
  std::ifstream in(objects);
  const json list = json::parse(in);
  std::map<std::string, int> per_gpu;         // parent address -> partitions
  std::map<std::string, std::string> parent;  // device -> parent address
  for (const json& item : list["items"]) {
    if (item["kind"] != "ResourceSlice") continue;
    ASSERT_EQ(item["spec"]["driver"], "gpu.amd.com");
    for (const json& d : item["spec"]["devices"]) {
      const std::string pci = d["attributes"]["parentPciAddr"]["string"].get<std::string>();
      ++per_gpu[pci];
      parent[d["name"].get<std::string>()] = pci;
    }
  }
  ASSERT_EQ(per_gpu.size(), 8u);
  std::map<std::string, double> shares;  // pod -> part of a GPU
  for (const json& item : list["items"]) {
    if (item["kind"] != "ResourceClaim") continue;
    double share = 0;
    for (const json& r : item["status"]["allocation"]["devices"]["results"]) {
      share += 1.0 / per_gpu.at(parent.at(r["device"].get<std::string>()));
    }
    for (const json& p : item["status"]["reservedFor"])
      shares[p["name"].get<std::string>()] = share;
  }
  ASSERT_FALSE(shares.empty());

  const std::string err = (dir.path() / "err.txt").string();
  const RunResult report =
      RunShell(kBinary + " report --input " + input + " --kube-objects " + objects +
               " --by pod --price-per-gpu-hour 2 --accumulate --format json "
               "2>" +
               err);
  ASSERT_EQ(report.exit_code, 0) << report.output;
  std::ifstream warnings(err);
  std::stringstream told;
  told << warnings.rdbuf();
  EXPECT_EQ(told.str(), "");
  const json doc = json::parse(report.output);
  std::map<std::string, json> rows;
  for (const json& r : doc["rows"]) rows[r["pod"].get<std::string>()] = r;
  constexpr double kGpuWindowUsd = 2.0 * 2;
  double held = 0;
  for (const auto& [pod, share] : shares) {
    ASSERT_TRUE(rows.contains(pod)) << pod << " has no row: " << report.output;
    EXPECT_NEAR(rows[pod]["allocated_usd"].get<double>(), share * kGpuWindowUsd, 1e-9);
    EXPECT_FALSE(rows[pod]["effective_usd"].is_null()) << "measured by AMD's exporter";
    held += share;
  }
  const json& t = doc["totals"];
  const double want = 8 * kGpuWindowUsd;
  EXPECT_NEAR(t["cost_usd"].get<double>(), want, 1e-9 * want);
  EXPECT_NEAR(t["idle_usd"].get<double>(), (8 - held) * kGpuWindowUsd, 1e-9 * want);
  EXPECT_GT(t["idle_usd"].get<double>(), 0);  // unclaimed partitions
}

// The sharing mode of nodes whose GPUs DRA's claims hand out, NVIDIA's and AMD's: "dra" in the
// FOCUS export's x_SharingMode, and in serve's /api/v1/fleet from a ledger of the same inputs
// (the mode goes through the ledger as a number).
TEST(SimulatedDra, NodesSayDraInFocusAndInTheFleet) {
  const TempDir dir;
  const std::string input = (dir.path() / "dra.om").string();
  const std::string objects = (dir.path() / "objects.json").string();
  const RunResult sim = RunShell(
      kBinary + " simulate --nodes 2 --gpu-models h100-dra:1,mi300x-dra:1 --duration 1h " +
      "--scrape-interval 5m --seed 7 --out " + input + " --kube-objects-out " + objects + " 2>&1");
  ASSERT_EQ(sim.exit_code, 0) << sim.output;

  const RunResult focus = RunShell(kBinary + " report --input " + input + " --kube-objects " +
                                   objects + " --price-per-gpu-hour 2 --format focus 2>/dev/null");
  ASSERT_EQ(focus.exit_code, 0) << focus.output;
  std::string error;
  const std::optional<focus_test::Table> table = focus_test::ParseCsv(focus.output, &error);
  ASSERT_TRUE(table.has_value()) << error;
  ASSERT_GT(table->rows.size(), 0u);
  std::map<std::string, int> modes;
  for (size_t i = 0; i < table->rows.size(); ++i) ++modes[table->Str(i, "x_SharingMode")];
  EXPECT_EQ(modes.size(), 1u) << ::testing::PrintToString(modes);
  EXPECT_EQ(modes["dra"], static_cast<int>(table->rows.size()));

  const std::string ledger = (dir.path() / "costs.db").string();
  const RunResult wrote = RunShell(kBinary + " ledger write " + ledger + " --input " + input +
                                   " --kube-objects " + objects + " --step 5m 2>&1");
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  const int port = testing_util::FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  const testing_util::ChildProcess serve({kBinary, "serve", "--ledger", ledger, "--read-only",
                                          "--listen", "127.0.0.1:" + std::to_string(port)},
                                         (dir.path() / "serve.log").string());
  ASSERT_TRUE(serve_test::WaitFor(base + "/readyz", 200, std::chrono::seconds(60))) << serve.Log();
  const serve_test::Response fleet = serve_test::Get(base + "/api/v1/fleet");
  ASSERT_EQ(fleet.status, 200) << fleet.body;
  const json f = json::parse(fleet.body);
  ASSERT_EQ(f["nodes"].size(), 2u) << f;
  for (const json& n : f["nodes"]) EXPECT_EQ(n["sharing"], "dra") << n["name"];
}

}  // namespace
}  // namespace gpucost
