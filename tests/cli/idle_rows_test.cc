// Idle rows of a report whose input holds two clusters, east and west (the whole_gpu golden case
// twice: two A100s a cluster, one held, at $4 and $6 a GPU-hour): grouped by a capacity
// dimension each cluster's or node's idle is its own row, with the idle that cluster alone
// reports, from files, from a ledger and from the OpenCost API; grouped by holders only, idle
// stays one row. The rows add up to the same totals either way.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "core/time.h"
#include "serve/opencost_api.h"

namespace gpucost {
namespace {

using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

constexpr const char* kIdleWindow = "--window 1790812800,1790813400";

std::string ReplaceEvery(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The whole_gpu case's scrape as cluster `cluster` sees it: every series labelled with it, and
// for west another node, GPUs and pod uid (the same namespace and pod name).
std::string ClusterScrape(const std::string& cluster) {
  std::ifstream in(std::string(GPUCOST_SOURCE_DIR) +
                   "/tests/golden/cases/whole_gpu/input/scrape.prom");
  std::ostringstream out;
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("#")) {
      const size_t brace = line.find('{');
      if (brace != std::string::npos) line.insert(brace + 1, "cluster=\"" + cluster + "\",");
      if (cluster == "west") {
        line = ReplaceEvery(line, "\"n1\"", "\"w1\"");
        line = ReplaceEvery(line, "GPU-aaaa", "GPU-bbbb");
        line = ReplaceEvery(line, "uid-ml-train-0", "uid-west-train-0");
      }
    }
    out << line << '\n';
  }
  return out.str();
}

class IdleRowsByCluster : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    dir_->Write("both/east.prom", ClusterScrape("east"));
    dir_->Write("both/west.prom", ClusterScrape("west"));
    dir_->Write("east.prom", ClusterScrape("east"));
    dir_->Write("west.prom", ClusterScrape("west"));
    prices_ = " --prices " + dir_->Write("prices.yaml",
                                         "prices:\n"
                                         "  - match: {cluster: east}\n"
                                         "    usd_per_gpu_hour: 4\n"
                                         "  - match: {cluster: west}\n"
                                         "    usd_per_gpu_hour: 6\n");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static std::string Path(const std::string& name) { return (dir_->path() / name).string(); }

  // `gpucost report ... --format json` over the case's window, parsed.
  static nlohmann::json Report(const std::string& args) {
    const RunResult r = RunShell(kBinary + " report " + args + " " + kIdleWindow +
                                 " --accumulate --format json 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    return r.exit_code == 0 ? nlohmann::json::parse(r.output) : nlohmann::json::object();
  }
  static nlohmann::json ReportOf(const std::string& input, const std::string& by) {
    return Report("--input " + Path(input) + prices_ + " --by " + by);
  }

  // The one __idle__ row's cost of a report grouped by namespace: what a report without
  // capacity dimensions says is idle.
  static double OneIdleRow(const nlohmann::json& by_namespace) {
    double usd = NAN;
    int rows = 0;
    for (const nlohmann::json& row : by_namespace["rows"]) {
      if (row["namespace"] != "__idle__") continue;
      usd = row["idle_usd"].get<double>();
      ++rows;
    }
    EXPECT_EQ(rows, 1);
    return usd;
  }

  // The idle rows (marked "idle": true) by the values of `key`, joined with "/".
  static std::map<std::string, double> IdleRows(const nlohmann::json& report,
                                                const std::vector<std::string>& key) {
    std::map<std::string, double> out;
    for (const nlohmann::json& row : report["rows"]) {
      if (!row.value("idle", false)) continue;
      std::string k;
      for (const std::string& d : key) k += (k.empty() ? "" : "/") + row[d].get<std::string>();
      out[k] += row["idle_usd"].get<double>();
    }
    return out;
  }

  static TempDir* dir_;
  static std::string prices_;
};
TempDir* IdleRowsByCluster::dir_ = nullptr;
std::string IdleRowsByCluster::prices_;

TEST_F(IdleRowsByCluster, ByClusterEachClustersIdleIsItsOwnRow) {
  // Each cluster's idle, reported from its own file alone: one unheld A100 for 10 minutes.
  const double east = OneIdleRow(ReportOf("east.prom", "namespace"));
  const double west = OneIdleRow(ReportOf("west.prom", "namespace"));
  EXPECT_NEAR(east, 4.0 / 6, 1e-9);
  EXPECT_NEAR(west, 6.0 / 6, 1e-9);

  const nlohmann::json report = ReportOf("both", "cluster");
  const nlohmann::json& rows = report["rows"];
  ASSERT_EQ(rows.size(), 4u) << report.dump(1);
  EXPECT_EQ(rows[0]["cluster"], "west");  // holders by allocated cost, then idle by cluster
  EXPECT_EQ(rows[0]["idle"], false);
  EXPECT_EQ(rows[1]["cluster"], "east");
  EXPECT_EQ(rows[2]["cluster"], "east");
  EXPECT_EQ(rows[2]["idle"], true);
  EXPECT_EQ(rows[3]["cluster"], "west");
  EXPECT_EQ(rows[3]["idle"], true);
  EXPECT_NEAR(rows[2]["idle_usd"].get<double>(), east, 1e-9);
  EXPECT_NEAR(rows[3]["idle_usd"].get<double>(), west, 1e-9);
  EXPECT_DOUBLE_EQ(rows[2]["allocated_usd"].get<double>(), 0.0);

  // Together they are the one idle row of the same input grouped by namespace, and the totals
  // are that report's.
  const nlohmann::json by_namespace = ReportOf("both", "namespace");
  EXPECT_NEAR(rows[2]["idle_usd"].get<double>() + rows[3]["idle_usd"].get<double>(),
              OneIdleRow(by_namespace), 1e-9);
  for (const char* total : {"cost_usd", "idle_usd", "allocated_usd", "gpu_hours", "waste_usd"}) {
    EXPECT_NEAR(report["totals"][total].get<double>(), by_namespace["totals"][total].get<double>(),
                1e-9)
        << total;
  }
}

TEST_F(IdleRowsByCluster, ByNodeEachNodesIdleIsItsOwnRow) {
  const nlohmann::json report = ReportOf("both", "node");
  const std::map<std::string, double> idle = IdleRows(report, {"node"});
  ASSERT_EQ(idle.size(), 2u) << report.dump(1);
  EXPECT_NEAR(idle.at("n1"), OneIdleRow(ReportOf("east.prom", "namespace")), 1e-9);
  EXPECT_NEAR(idle.at("w1"), OneIdleRow(ReportOf("west.prom", "namespace")), 1e-9);
  EXPECT_EQ(report["rows"].back()["idle"], true);
}

TEST_F(IdleRowsByCluster, ByNamespaceIdleStaysOneRow) {
  const nlohmann::json report = ReportOf("both", "namespace");
  ASSERT_EQ(report["rows"].size(), 2u) << report.dump(1);
  const nlohmann::json& idle = report["rows"][1];
  EXPECT_EQ(idle["namespace"], "__idle__");
  EXPECT_FALSE(idle.contains("idle"));  // no capacity dimension: no idle column
  EXPECT_NEAR(idle["idle_usd"].get<double>(), 4.0 / 6 + 6.0 / 6, 1e-9);
}

TEST_F(IdleRowsByCluster, ByClusterAndNamespaceHolderDimensionsAreIdle) {
  const nlohmann::json report = ReportOf("both", "cluster,namespace");
  const std::map<std::string, double> idle = IdleRows(report, {"cluster", "namespace"});
  ASSERT_EQ(idle.size(), 2u) << report.dump(1);
  EXPECT_NEAR(idle.at("east/__idle__"), 4.0 / 6, 1e-9);
  EXPECT_NEAR(idle.at("west/__idle__"), 6.0 / 6, 1e-9);
}

TEST_F(IdleRowsByCluster, FromALedgerAndItsOpenCostApi) {
  const std::string ledger = Path("costs.db");
  const RunResult written = RunShell(kBinary + " ledger write " + ledger + " --input " +
                                     Path("both") + prices_ + " " + kIdleWindow + " 2>&1");
  ASSERT_EQ(written.exit_code, 0) << written.output;
  const double east = 4.0 / 6;
  const double west = 6.0 / 6;

  // The report read back from the ledger has the files' idle rows.
  const nlohmann::json report = Report("--ledger " + ledger + " --by cluster");
  const std::map<std::string, double> idle = IdleRows(report, {"cluster"});
  ASSERT_EQ(idle.size(), 2u) << report.dump(1);
  EXPECT_NEAR(idle.at("east"), east, 1e-9);
  EXPECT_NEAR(idle.at("west"), west, 1e-9);

  // OpenCost's /allocation names a cluster's idle "<cluster>/__idle__", as OpenCost does when it
  // keeps idle apart by cluster, and one "__idle__" when the grouping has no capacity dimension.
  const auto allocation = [&](const std::string& aggregate) {
    const std::map<std::string, std::string> params = {
        {"window", "2026-10-01T00:00:00Z,2026-10-01T00:10:00Z"},
        {"aggregate", aggregate},
        {"includeIdle", "true"}};
    const serve::ApiResponse r = serve::OpenCostAllocation(
        ledger,
        [&params](const char* name) {
          const auto it = params.find(name);
          return it == params.end() ? std::string() : it->second;
        },
        InstantFromUnixMs(1790899200000));
    EXPECT_EQ(r.status, 200) << r.body;
    const nlohmann::json doc = nlohmann::json::parse(r.body);
    return doc["data"].empty() ? nlohmann::json::object() : doc["data"][0];
  };
  const nlohmann::json by_cluster = allocation("cluster");
  ASSERT_TRUE(by_cluster.contains("east/__idle__")) << by_cluster.dump(1);
  ASSERT_TRUE(by_cluster.contains("west/__idle__")) << by_cluster.dump(1);
  EXPECT_FALSE(by_cluster.contains("__idle__"));
  EXPECT_EQ(by_cluster["east/__idle__"]["name"], "east/__idle__");
  EXPECT_EQ(by_cluster["east/__idle__"]["properties"]["cluster"], "east");
  EXPECT_NEAR(by_cluster["east/__idle__"]["gpuCost"].get<double>(), east, 1e-5);
  EXPECT_NEAR(by_cluster["west/__idle__"]["gpuCost"].get<double>(), west, 1e-5);
  EXPECT_NEAR(by_cluster["east"]["gpuCost"].get<double>(), 4.0 / 6, 1e-5);

  const nlohmann::json by_node = allocation("cluster,node");
  EXPECT_TRUE(by_node.contains("east/n1/__idle__")) << by_node.dump(1);
  EXPECT_EQ(by_node["west/w1/__idle__"]["properties"]["node"], "w1");

  const nlohmann::json by_namespace = allocation("namespace");
  ASSERT_TRUE(by_namespace.contains("__idle__")) << by_namespace.dump(1);
  EXPECT_NEAR(by_namespace["__idle__"]["gpuCost"].get<double>(), east + west, 1e-5);
  EXPECT_TRUE(by_namespace["__idle__"]["properties"].empty());
}

}  // namespace
}  // namespace gpucost
