// One money for the units DRA drivers hand out: the same simulated cluster (NVIDIA's static
// devices and DynamicMIG, AMD's partitions, AWS Neuron devices, their objects beside the series)
// gives each pod the same dollars, to 1e-9, from the files (`report --input --kube-objects`), from
// the ledger those files were written to (`report --ledger`), from serve's API over that ledger
// and in the FOCUS export; a price the catalog lacks is unknown (null) in each, never $0.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
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

const std::string kGpucost = GPUCOST_BINARY;
constexpr const char* kWindow = "2026-10-01T00:00:00Z,2026-10-01T02:00:00Z";

// Each pod's allocated dollars (NaN when unknown) and the unpriced hours of a report document.
struct PodMoney {
  std::map<std::string, double> allocated;
  double unpriced_hours = 0;
  double cost = NAN;
};

PodMoney Money(const json& doc) {
  PodMoney m;
  for (const json& r : doc["rows"]) {
    const std::string pod = r["namespace"].get<std::string>() + "/" + r["pod"].get<std::string>();
    if (pod == "__idle__/__idle__") continue;
    m.allocated[pod] = r["allocated_usd"].is_number() ? r["allocated_usd"].get<double>() : NAN;
  }
  m.unpriced_hours = doc["totals"]["unpriced_gpu_hours"].get<double>();
  if (doc["totals"]["cost_usd"].is_number()) m.cost = doc["totals"]["cost_usd"].get<double>();
  return m;
}

void ExpectSameMoney(const PodMoney& got, const PodMoney& want, const std::string& what) {
  ASSERT_EQ(got.allocated.size(), want.allocated.size()) << what;
  for (const auto& [pod, usd] : want.allocated) {
    ASSERT_TRUE(got.allocated.contains(pod)) << what << ": " << pod;
    const double g = got.allocated.at(pod);
    if (std::isnan(usd)) {
      EXPECT_TRUE(std::isnan(g)) << what << ": " << pod << " has " << g << ", want unknown";
    } else {
      EXPECT_NEAR(g, usd, 1e-9 * std::max(1.0, usd)) << what << ": " << pod;
    }
  }
  EXPECT_NEAR(got.unpriced_hours, want.unpriced_hours, 1e-9) << what;
  EXPECT_NEAR(got.cost, want.cost, 1e-9 * std::max(1.0, want.cost)) << what;
}

json ReportJson(const std::string& args) {
  const RunResult r = RunShell(kGpucost + " report " + args +
                               " --by namespace,pod --accumulate --format json 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
  return r.exit_code == 0 ? json::parse(r.output) : json::object();
}

TEST(DraOneMoney, FilesLedgerServeAndFocusGiveEachPodTheSameDollars) {
  TempDir dir;
  const std::string input = (dir.path() / "sim.om").string();
  const std::string objects = (dir.path() / "objects.json").string();
  const RunResult sim =
      RunShell(kGpucost +
               " simulate --nodes 4 --gpu-models h100-dra:1,h100-dynmig-dra:1,mi300x-dra:1,"
               "trn2-dra:1 --duration 2h -o " +
               input + " --kube-objects-out " + objects + " 2>&1");
  ASSERT_EQ(sim.exit_code, 0) << sim.output;
  const std::string sources = " --input " + input + " --kube-objects " + objects;

  // The catalog prices the H100s; the MI300X and trn2 have no catalog price.
  const PodMoney files = Money(ReportJson(sources + " --window " + kWindow));
  ASSERT_GT(files.allocated.size(), 10u);
  int unknown = 0, known = 0;
  for (const auto& [pod, usd] : files.allocated) (std::isnan(usd) ? unknown : known) += 1;
  EXPECT_GT(unknown, 0) << "the MI300X's and trn2's pods have no price";
  EXPECT_GT(known, 0) << "the H100s' pods are priced";
  EXPECT_GT(files.unpriced_hours, 0);

  const std::string ledger = (dir.path() / "costs.db").string();
  const RunResult wrote =
      RunShell(kGpucost + " ledger write " + ledger + sources + " --window " + kWindow + " 2>&1");
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  ExpectSameMoney(Money(ReportJson("--ledger " + ledger + " --window " + kWindow)), files,
                  "report --ledger");

  const int port = testing_util::FreePort();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  const testing_util::ChildProcess serve({kGpucost, "serve", "--ledger", ledger, "--read-only",
                                          "--listen", "127.0.0.1:" + std::to_string(port)},
                                         (dir.path() / "serve.log").string());
  ASSERT_TRUE(serve_test::WaitFor(base + "/readyz", 200, std::chrono::seconds(60))) << serve.Log();
  const serve_test::Response api =
      serve_test::Get(base + "/api/v1/report?by=namespace,pod&window=" + kWindow);
  ASSERT_EQ(api.status, 200) << api.body;
  ExpectSameMoney(Money(json::parse(api.body)), files, "serve /api/v1/report");

  // FOCUS writes no unknown cost: it names the nodes without a price and stops. At a flat price
  // its BilledCost adds up to the report's cost at that price.
  const RunResult unpriced = RunShell(kGpucost + " report" + sources + " --window " + kWindow +
                                      " --format focus 2>&1 >/dev/null");
  EXPECT_NE(unpriced.exit_code, 0);
  EXPECT_NE(unpriced.output.find("no price for the GPU time of nodes mi300x-dra-"),
            std::string::npos)
      << unpriced.output;
  const std::string flat = sources + " --window " + kWindow + " --price-per-gpu-hour 2";
  const PodMoney priced = Money(ReportJson(flat));
  EXPECT_EQ(priced.unpriced_hours, 0);
  const RunResult focus = RunShell(kGpucost + " report" + flat + " --format focus 2>/dev/null");
  ASSERT_EQ(focus.exit_code, 0) << focus.output;
  std::string error;
  const std::optional<focus_test::Table> table = focus_test::ParseCsv(focus.output, &error);
  ASSERT_TRUE(table.has_value()) << error;
  double billed = 0;
  for (size_t i = 0; i < table->rows.size(); ++i) billed += table->Num(i, "BilledCost");
  EXPECT_NEAR(billed, priced.cost, 1e-6 * priced.cost);
}

}  // namespace
}  // namespace gpucost
