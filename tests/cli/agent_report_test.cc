// `gpucost report` over exposition files that hold the node agent's series beside
// kube-state-metrics and dcgm-exporter: time-sliced holders become measured.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"

namespace gpucost {
namespace {

using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

constexpr int64_t kT0 = 1790812800;  // 2026-10-01T00:00:00Z
const std::string kCid(64, 'c');      // container y's id

// One T4 with 2 time-slicing replicas; pod ml/duo has two containers, x and y, holding one
// replica each. dcgm-exporter says the GPU is 50 % busy. With the agent: y's processes use 0.4
// of the GPU (its series names only the pod uid and container id, so the container id joins it,
// through kube_pod_container_info), x has its replica assigned but runs nothing.
std::string Scrapes(bool with_agent) {
  std::string out;
  for (int i = 0; i < 10; ++i) {
    const std::string ts = " " + std::to_string((kT0 + 60 * i) * 1000) + "\n";
    const std::string pod = "namespace=\"ml\",pod=\"duo\",uid=\"uid-duo\"";
    out += "kube_node_labels{node=\"ts\",label_nvidia_com_gpu_count=\"1\","
           "label_nvidia_com_gpu_replicas=\"2\",label_nvidia_com_gpu_sharing_strategy="
           "\"time-slicing\"} 1" + ts;
    out += "kube_node_status_capacity{node=\"ts\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 2" + ts;
    out += "kube_pod_info{" + pod + ",node=\"ts\"} 1" + ts;
    out += "kube_pod_status_phase{" + pod + ",phase=\"Running\"} 1" + ts;
    for (const char* c : {"x", "y"}) {
      out += "kube_pod_container_resource_requests{" + pod + ",container=\"" + c +
             "\",node=\"ts\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 1" + ts;
    }
    out += "kube_pod_container_info{" + pod + ",container=\"y\",container_id=\"containerd://" +
           kCid + "\"} 1" + ts;
    out += "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-t\",Hostname=\"ts\"} 0.5" + ts;
    if (!with_agent) continue;
    out += "gpucost_agent_gpu_info{node=\"ts\",gpu_uuid=\"GPU-t\",gpu_index=\"0\",model=\"Tesla "
           "T4\"} 1" + ts;
    out += "gpucost_agent_unit_activity_ratio{node=\"ts\",gpu_uuid=\"GPU-t\",source=\"gpm\"} 0.4" + ts;
    out += "gpucost_agent_nvml_supported{node=\"ts\",gpu_uuid=\"GPU-t\",call=\""
           "nvmlDeviceGetProcessUtilization\"} 1" + ts;
    out += "gpucost_agent_holder_activity_ratio{node=\"ts\",gpu_uuid=\"GPU-t\",pod_uid=\"uid-duo\","
           "container_id=\"" + kCid + "\"} 0.4" + ts;
    out += "gpucost_agent_device_assignment{node=\"ts\",namespace=\"ml\",pod=\"duo\",container="
           "\"x\",resource=\"nvidia.com/gpu\",device_id=\"GPU-t::1\",gpu_uuid=\"GPU-t\","
           "replica=\"1\"} 1" + ts;
  }
  return out;
}

std::map<std::string, nlohmann::json> ReportRows(bool with_agent) {
  TempDir dir;
  const std::string file = (dir.path() / "scrape.prom").string();
  std::ofstream(file) << Scrapes(with_agent);
  const RunResult r = RunShell(kBinary + " report --input " + file + " --window " +
                               std::to_string(kT0) + "," + std::to_string(kT0 + 600) +
                               " --by container --accumulate --price-per-gpu-hour 3"
                               " --format json 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::map<std::string, nlohmann::json> rows;
  if (r.exit_code != 0) return rows;
  const auto doc = nlohmann::json::parse(r.output);
  for (const auto& row : doc["rows"]) rows[row["container"].get<std::string>()] = row;
  // Conservation: one physical GPU x $3 x 1/6 h, never the two replicas' worth.
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 0.5, 1e-9);
  return rows;
}

TEST(AgentReport, TimeSlicedHoldersAreMeasuredWithTheAgent) {
  const double allocated = 0.5 * 3 / 6;  // one replica (f = 1/2), $3/GPU-hour, 1/6 h
  auto split = ReportRows(false);
  ASSERT_EQ(split.size(), 2u);
  for (const char* c : {"x", "y"}) {
    EXPECT_EQ(split[c]["estimated"], true) << c;
    EXPECT_NEAR(split[c]["effective_usd"].get<double>(), allocated * 0.5, 1e-9) << c;
  }
  auto measured = ReportRows(true);
  ASSERT_EQ(measured.size(), 2u);
  EXPECT_EQ(measured["y"]["estimated"], false);
  EXPECT_NEAR(measured["y"]["allocated_usd"].get<double>(), allocated, 1e-9);
  EXPECT_NEAR(measured["y"]["utilization"].get<double>(), 0.8, 1e-9);  // 0.4 of a GPU / 0.5
  EXPECT_NEAR(measured["y"]["effective_usd"].get<double>(), allocated * 0.8, 1e-9);
  // x ran nothing: measured idle, not unmeasured.
  EXPECT_EQ(measured["x"]["estimated"], false);
  EXPECT_NEAR(measured["x"]["effective_usd"].get<double>(), 0.0, 1e-12);
  EXPECT_NEAR(measured["x"]["unmeasured_gpu_hours"].get<double>(), 0.0, 1e-12);
}

}  // namespace
}  // namespace gpucost
