// `gpucost prices` and the price book through `gpucost report`: catalog, spot and commitment
// prices on nodes read from kube-state-metrics series, with totals checked against the catalog's
// published numbers.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "cli_test_util.h"

namespace gpucost {
namespace {

using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

const std::string kBinary = GPUCOST_BINARY;

// One hour of two nodes, no pods: a p5.48xlarge on demand and a g6.12xlarge on spot.
void WriteCluster(const std::filesystem::path& dir) {
  std::ofstream out(dir / "ksm.prom");
  const int64_t t0 = 1'790'812'800'000;  // 2026-10-01T00:00:00Z
  for (int i = 0; i <= 60; ++i) {
    const int64_t t = t0 + i * 60'000LL;
    out << "kube_node_labels{node=\"p5-a\",label_node_kubernetes_io_instance_type=\"p5.48xlarge\","
           "label_topology_kubernetes_io_region=\"us-east-1\",label_karpenter_sh_capacity_type="
           "\"on-demand\",label_nvidia_com_gpu_count=\"8\",label_nvidia_com_gpu_product="
           "\"NVIDIA-H100-80GB-HBM3\"} 1 "
        << t << "\n";
    out << "kube_node_info{node=\"p5-a\",provider_id=\"aws:///us-east-1a/i-0p5a\"} 1 " << t << "\n";
    out << "kube_node_status_capacity{node=\"p5-a\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 8 "
        << t << "\n";
    out << "kube_node_labels{node=\"g6-s\",label_node_kubernetes_io_instance_type=\"g6.12xlarge\","
           "label_topology_kubernetes_io_region=\"us-east-1\",label_karpenter_sh_capacity_type="
           "\"spot\",label_nvidia_com_gpu_count=\"4\",label_nvidia_com_gpu_product=\"NVIDIA-L4\"} 1 "
        << t << "\n";
    out << "kube_node_status_capacity{node=\"g6-s\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 4 "
        << t << "\n";
  }
}

void WritePrices(const std::filesystem::path& file) {
  std::ofstream out(file);
  out << "commitments:\n"
         "  - match: {instance_type: p5.48xlarge}\n"
         "    name: 1-yr compute savings plan\n"
         "    discount: 0.31\n"
         "spot:\n"
         "  discount: 0.55\n";
}

TEST(PricesCommand, ExplainsEveryNodesPrice) {
  TempDir dir;
  WriteCluster(dir.path());
  WritePrices(dir.path() / "prices.yaml");
  const RunResult r = RunShell(kBinary + " prices --input " + (dir.path() / "ksm.prom").string() +
                               " --prices " + (dir.path() / "prices.yaml").string() + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "default/p5-a  p5.48xlarge  us-east-1  on_demand  8 x"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "4.7472    commitment list 6.8800 (31 % off)")) << r.output;
  EXPECT_TRUE(Contains(r.output, "1-yr compute savings plan")) << r.output;
  EXPECT_TRUE(Contains(r.output, "0.5177    spot       list 1.1504 (55 % off)")) << r.output;
  EXPECT_FALSE(Contains(r.output, "no price")) << r.output;

  const RunResult catalog = RunShell(kBinary + " prices --catalog");
  ASSERT_EQ(catalog.exit_code, 0);
  EXPECT_TRUE(Contains(catalog.output, "p4d.24xlarge")) << catalog.output;
  EXPECT_TRUE(Contains(catalog.output, "aws-cut:")) << catalog.output;
}

TEST(PricesCommand, ReportTotalsFollowThePriceBook) {
  TempDir dir;
  WriteCluster(dir.path());
  WritePrices(dir.path() / "prices.yaml");
  const RunResult r =
      RunShell(kBinary + " report --input " + (dir.path() / "ksm.prom").string() + " --prices " +
               (dir.path() / "prices.yaml").string() + " --window 2026-10-01T00:00:00Z,2026-10-01T01:00:00Z --accumulate --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto json = nlohmann::json::parse(r.output);
  // One hour: 8 GPUs at $55.04/8 less 31 %, and 4 GPUs at $4.6016/4 less 55 %.
  const double expected = 55.04 * 0.69 + 4.6016 * 0.45;
  EXPECT_NEAR(json["totals"]["cost_usd"].get<double>(), expected, 1e-9) << r.output;

  // Without the catalog and with nothing else, the price is unknown, never zero.
  const RunResult off = RunShell(kBinary + " report --input " +
                                 (dir.path() / "ksm.prom").string() +
                                 " --no-catalog --accumulate --format json");
  ASSERT_EQ(off.exit_code, 0) << off.output;
  EXPECT_TRUE(nlohmann::json::parse(off.output)["totals"]["cost_usd"].is_null()) << off.output;
}

TEST(PricesCommand, BadPriceFileIsNamed) {
  TempDir dir;
  WriteCluster(dir.path());
  {
    std::ofstream out(dir.path() / "bad.yaml");
    out << "spot:\n  discount: 2\n";
  }
  const RunResult r = RunShell(kBinary + " prices --input " + (dir.path() / "ksm.prom").string() +
                               " --prices " + (dir.path() / "bad.yaml").string() + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "bad.yaml:2: spot: discount: must be a fraction")) << r.output;
}

}  // namespace
}  // namespace gpucost
