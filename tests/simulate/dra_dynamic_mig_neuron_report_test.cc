// `gpucost simulate --gpu-models h100-dynmig-dra` and `trn2-dra --kube-objects-out` through the
// real `gpucost report --input <exposition> --kube-objects <objects>`: NVIDIA's DRA driver under
// DynamicMIG (each GPU listed whole and with every MIG device it could make, without UUIDs;
// claims of MIG devices of several profiles and of whole GPUs) and AWS's Neuron DRA driver
// (claims of groups of Neuron devices). Each claim's pod holds its device's part of the node
// (a MIG profile's compute slices of 7, or all the cores of each Neuron device), activity is
// measured, cost is conserved node by node, and nothing is warned.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"

namespace gpucost {
namespace {

using nlohmann::json;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

constexpr double kUsdPerHour = 2.0;  // --price-per-gpu-hour: per GPU-hour or accelerator-hour

std::string FileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A simulated window of `model` nodes, its objects and the report on it.
struct SimulatedDraRun {
  std::string series;  // the exposition file's text
  json objects;
  json by_pod;   // report --by pod at kUsdPerHour
  json by_node;  // report --by node at kUsdPerHour
  std::string warnings;
};

SimulatedDraRun SimulateDraNodes(const TempDir& dir, const std::string& model, int nodes,
                                 int hours) {
  SimulatedDraRun run;
  const std::string input = (dir.path() / "sim.om").string();
  const std::string objects = (dir.path() / "objects.json").string();
  const RunResult sim =
      RunShell(kBinary + " simulate --nodes " + std::to_string(nodes) + " --gpu-models " + model +
               " --duration " + std::to_string(hours) + "h --seed 7 --out " + input +
               " --kube-objects-out " + objects + " 2>&1");
  EXPECT_EQ(sim.exit_code, 0) << sim.output;
  run.series = FileText(input);
  run.objects = json::parse(FileText(objects));
  const std::string err = (dir.path() / "err.txt").string();
  const auto report = [&](const std::string& by) {
    const RunResult r =
        RunShell(kBinary + " report --input " + input + " --kube-objects " + objects + " --by " +
                 by + " --price-per-gpu-hour " + std::to_string(kUsdPerHour) +
                 " --accumulate --format json 2>>" + err);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return json::parse(r.output);
  };
  run.by_pod = report("pod");
  run.by_node = report("node");
  run.warnings = FileText(err);
  return run;
}

std::vector<json> ObjectsOfKind(const json& list, const std::string& kind) {
  std::vector<json> out;
  for (const json& item : list["items"]) {
    if (item["kind"] == kind) out.push_back(item);
  }
  return out;
}

std::string SliceAttribute(const json& device, const std::string& key) {
  const json& attributes = device["attributes"];
  if (!attributes.contains(key)) return "";
  const json& a = attributes[key];
  return a.contains("string") ? a["string"].get<std::string>() : a.begin().value().dump();
}

std::map<std::string, json> RowsByPod(const json& report) {
  std::map<std::string, json> rows;
  for (const json& r : report["rows"]) rows[r["pod"].get<std::string>()] = r;
  return rows;
}

// Per node, what its holders were allocated plus its idle, against its cost: `gpus` GPUs (or
// accelerators) of node for `hours`.
void ExpectEachNodeConserved(const json& by_node, const std::map<std::string, int>& gpus,
                             int hours) {
  std::map<std::string, double> held, idle;
  for (const json& r : by_node["rows"]) {
    const std::string node = r["node"].get<std::string>();
    if (r.value("idle", false)) {
      idle[node] += r["idle_usd"].get<double>();
    } else {
      held[node] += r["allocated_usd"].get<double>();
    }
  }
  ASSERT_EQ(held.size(), gpus.size()) << by_node.dump();
  for (const auto& [node, n] : gpus) {
    const double cost = n * kUsdPerHour * hours;
    EXPECT_NEAR(held[node] + idle[node], cost, 1e-9 * cost) << node;
    EXPECT_GT(idle[node], 0) << node << ": an unclaimed GPU or device is idle";
  }
}

// DynamicMIG: the slice lists each GPU (type gpu, with its UUID) and every MIG device it could
// make (type mig, no UUID, overlapping placements); a claim of a MIG device holds its profile's
// compute slices of the GPU's 7 (a 3g claim 3/7 of the GPU's cost), a claim of the GPU all of it.
TEST(SimulatedDraKinds, DynamicMigClaimsHoldTheirProfilesPartOfTheGpu) {
  const TempDir dir;
  constexpr int kHours = 2;
  const SimulatedDraRun run = SimulateDraNodes(dir, "h100-dynmig-dra", 2, kHours);
  std::map<std::string, json> devices;                      // pool/name -> device
  std::map<std::string, int> gpus;                          // node -> GPUs
  std::map<std::string, std::set<std::string>> placements;  // GPU and memory slice -> devices
  bool overlapping = false;
  for (const json& slice : ObjectsOfKind(run.objects, "ResourceSlice")) {
    ASSERT_EQ(slice["spec"]["driver"], "gpu.nvidia.com");
    if (!slice["spec"].contains("devices")) {
      EXPECT_TRUE(slice["spec"].contains("sharedCounters")) << slice.dump();
      continue;
    }
    const std::string pool = slice["spec"]["pool"]["name"].get<std::string>();
    for (const json& d : slice["spec"]["devices"]) {
      devices[pool + "/" + d["name"].get<std::string>()] = d;
      if (SliceAttribute(d, "type") == "gpu") {
        ++gpus[pool];
        EXPECT_NE(SliceAttribute(d, "uuid"), "") << d.dump();
        continue;
      }
      ASSERT_EQ(SliceAttribute(d, "type"), "mig") << d.dump();
      EXPECT_EQ(SliceAttribute(d, "uuid"), "") << "DynamicMIG devices have no UUID: " << d.dump();
      // Two possible devices of one GPU that take one memory slice overlap.
      for (const auto& [counter, v] : d["consumesCounters"][0]["counters"].items()) {
        if (!counter.starts_with("memory-slice-")) continue;
        std::set<std::string>& takers = placements[SliceAttribute(d, "parentUUID") + counter];
        takers.insert(d["name"].get<std::string>());
        overlapping = overlapping || takers.size() > 1;
      }
    }
  }
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_TRUE(overlapping);

  std::map<std::string, double> shares;  // pod -> part of a GPU
  std::set<std::string> claimed;         // "gpu", or a profile's compute slices "3g"
  for (const json& claim : ObjectsOfKind(run.objects, "ResourceClaim")) {
    const json& results = claim["status"]["allocation"]["devices"]["results"];
    ASSERT_EQ(results.size(), 1u);
    const json& d = devices.at(results[0]["pool"].get<std::string>() + "/" +
                               results[0]["device"].get<std::string>());
    double share = 1.0;
    if (SliceAttribute(d, "type") == "mig") {
      const std::string profile = SliceAttribute(d, "profile");
      share = (profile[0] - '0') / 7.0;
      claimed.insert(profile.substr(0, 2));
    } else {
      claimed.insert("gpu");
    }
    for (const json& p : claim["status"]["reservedFor"])
      shares[p["name"].get<std::string>()] = share;
  }
  EXPECT_EQ(claimed, (std::set<std::string>{"1g", "2g", "3g", "4g", "7g", "gpu"}));

  EXPECT_EQ(run.warnings, "");
  const std::map<std::string, json> rows = RowsByPod(run.by_pod);
  double held = 0;
  int three_sevenths = 0;
  for (const auto& [pod, share] : shares) {
    ASSERT_TRUE(rows.contains(pod)) << pod << " is no holder: " << run.by_pod.dump();
    const json& r = rows.at(pod);
    EXPECT_NEAR(r["allocated_usd"].get<double>(), share * kUsdPerHour * kHours, 1e-9) << pod;
    EXPECT_NEAR(r["gpu_hours"].get<double>(), share * kHours, 1e-9) << pod;
    EXPECT_GT(r["effective_usd"].get<double>(), 0) << "measured by dcgm-exporter: " << r.dump();
    three_sevenths += share == 3 / 7.0 ? 1 : 0;
    held += share;
  }
  EXPECT_GT(three_sevenths, 0);
  // Every holder is a claim's pod.
  EXPECT_EQ(rows.size(), shares.size() + 1) << "the pods and __idle__";
  const json& t = run.by_pod["totals"];
  const double cost = 2 * 8 * kUsdPerHour * kHours;
  EXPECT_NEAR(t["cost_usd"].get<double>(), cost, 1e-9 * cost);
  EXPECT_NEAR(t["idle_usd"].get<double>(), (16 - held) * kUsdPerHour * kHours, 1e-9 * cost);
  ExpectEachNodeConserved(run.by_node, gpus, kHours);
}

// AWS's Neuron DRA driver on a trn2.48xlarge: 16 devices neurondevice<N>, claims of 8, 4, 2 and
// 1 devices (the last unclaimed). A claim holds all the cores of its devices: one
// accelerator-hour per device an hour, measured by the Neuron monitor's series of each of its
// cores. Without a price (the catalog has none for trn2) the money is unknown, not $0.
TEST(SimulatedDraKinds, NeuronDeviceClaimsHoldAllTheirCores) {
  const TempDir dir;
  constexpr int kHours = 2;
  const SimulatedDraRun run = SimulateDraNodes(dir, "trn2-dra", 1, kHours);
  std::map<std::string, int> devices;  // node -> devices
  for (const json& slice : ObjectsOfKind(run.objects, "ResourceSlice")) {
    ASSERT_EQ(slice["spec"]["driver"], "neuron.aws.com");
    const std::string node = slice["spec"]["pool"]["name"].get<std::string>();
    for (const json& d : slice["spec"]["devices"]) {
      EXPECT_EQ(d["name"], "neurondevice" + std::to_string(devices[node]++));
    }
  }
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices.begin()->second, 16);

  std::map<std::string, int> held;  // pod -> devices
  std::multiset<int> sizes;
  for (const json& claim : ObjectsOfKind(run.objects, "ResourceClaim")) {
    const int n = static_cast<int>(claim["status"]["allocation"]["devices"]["results"].size());
    sizes.insert(n);
    for (const json& p : claim["status"]["reservedFor"]) held[p["name"].get<std::string>()] = n;
  }
  EXPECT_EQ(sizes, (std::multiset<int>{1, 2, 4, 8}));

  // The monitor reports every core of every claimed device (4 logical cores each).
  std::set<std::string> cores;
  std::istringstream lines(run.series);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("neuroncore_utilization_ratio{")) continue;
    const size_t at = line.find("neuroncore=\"") + 12;
    cores.insert(line.substr(at, line.find('"', at) - at));
  }
  EXPECT_EQ(cores.size(), 15u * 4);

  EXPECT_EQ(run.warnings, "");
  const std::map<std::string, json> rows = RowsByPod(run.by_pod);
  for (const auto& [pod, n] : held) {
    ASSERT_TRUE(rows.contains(pod)) << pod << " is no holder: " << run.by_pod.dump();
    const json& r = rows.at(pod);
    EXPECT_NEAR(r["gpu_hours"].get<double>(), n * kHours, 1e-9) << "accelerator-hours: " << pod;
    EXPECT_NEAR(r["allocated_usd"].get<double>(), n * kUsdPerHour * kHours, 1e-9) << pod;
    EXPECT_GT(r["effective_usd"].get<double>(), 0)
        << "measured by the Neuron monitor: " << r.dump();
    EXPECT_FALSE(r["estimated"].get<bool>()) << r.dump();
  }
  EXPECT_EQ(rows.size(), held.size() + 1) << "the pods and __idle__";
  ASSERT_EQ(run.by_pod["unit_kind_hours"].size(), 1u) << run.by_pod.dump();
  EXPECT_NEAR(run.by_pod["unit_kind_hours"]["neuron_device"].get<double>(), 16.0 * kHours, 1e-9);
  ExpectEachNodeConserved(run.by_node, devices, kHours);

  const std::string input = (dir.path() / "sim.om").string();
  const std::string objects = (dir.path() / "objects.json").string();
  const RunResult unpriced = RunShell(kBinary + " report --input " + input + " --kube-objects " +
                                      objects + " --by pod --format json 2>/dev/null");
  ASSERT_EQ(unpriced.exit_code, 0) << unpriced.output;
  const json doc = json::parse(unpriced.output);
  EXPECT_FALSE(doc["totals"]["prices_known"].get<bool>());
  EXPECT_TRUE(doc["totals"]["cost_usd"].is_null()) << doc["totals"].dump();
  EXPECT_TRUE(doc["totals"]["allocated_usd"].is_null()) << doc["totals"].dump();
  EXPECT_NEAR(doc["totals"]["unpriced_gpu_hours"].get<double>(), 16.0 * kHours, 1e-9);
  for (const auto& [pod, r] : RowsByPod(doc)) {
    if (pod == "__idle__") continue;
    EXPECT_TRUE(r["allocated_usd"].is_null()) << r.dump();
  }
  const RunResult table = RunShell(kBinary + " report --input " + input + " --kube-objects " +
                                   objects + " --by pod 2>&1");
  EXPECT_NE(table.output.find("prices: unknown"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("cost_usd: - USD"), std::string::npos) << table.output;
}

}  // namespace
}  // namespace gpucost
