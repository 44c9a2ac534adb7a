// /metrics keeps AWS Neuron devices apart from GPUs (docs/metrics.md): from a ledger written from
// a GPU node and a Neuron node, the Neuron series carry unit_kind="neuron_device" and GPU series
// no unit_kind, and each kind's counters hold the dollars and hours `gpucost report --by
// unit_kind` gives for the same inputs, to 1e-9.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "alerts/budgets.h"
#include "cli/cli_test_util.h"
#include "ledger/ledger.h"
#include "serve/serve_metrics.h"

namespace gpucost::serve {
namespace {

using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

constexpr const char* kWindow = "1790812800,1790813400";
const std::string kNeuron = "unit_kind=\"neuron_device\"";

// Sum of `name`'s samples of Neuron devices (`neuron`) or of GPUs (no unit_kind label).
double SumOfKind(const std::string& text, const std::string& name, bool neuron) {
  double sum = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(name + "{")) continue;
    if (neuron ? line.find(kNeuron) == std::string::npos
               : line.find("unit_kind=") != std::string::npos) {
      continue;
    }
    sum += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

TEST(UnitKindMetrics, NeuronSeriesCarryTheirUnitKindAndTheReportsDollars) {
  TempDir dir;
  const std::string input =
      std::string(GPUCOST_SOURCE_DIR) + "/tests/golden/cases/neuron_and_gpu_by_unit_kind/input";
  const std::string db = (dir.path() / "costs.db").string();
  const RunResult wrote = RunShell(kBinary + " ledger write " + db + " --input " + input +
                                   " --window " + kWindow + " --step 60s 2>&1");
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  const RunResult report = RunShell(kBinary + " report --input " + input + " --window " + kWindow +
                                    " --step 60s --by unit_kind --format json 2>/dev/null");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const nlohmann::json doc = nlohmann::json::parse(report.output);
  std::map<std::string, nlohmann::json> want;
  for (const nlohmann::json& r : doc["rows"]) {
    want[r["unit_kind"].get<std::string>() + (r.value("idle", false) ? "/idle" : "")] = r;
  }
  ASSERT_EQ(want.size(), 4u) << report.output;

  Result<std::unique_ptr<ledger::Ledger>> l = ledger::Ledger::Open(db);
  ASSERT_TRUE(l.ok()) << l.status().message();
  Result<ledger::LedgerTotals> totals = (*l)->Totals();
  ASSERT_TRUE(totals.ok()) << totals.status().message();
  Result<ledger::LedgerLatest> latest = (*l)->Latest();
  ASSERT_TRUE(latest.ok()) << latest.status().message();
  const std::string text = ServeMetricsText(*totals, *latest, {}, ServeHealth{});

  const auto expect = [&](const char* metric, bool neuron, const std::string& row,
                          const char* field) {
    const double w = want.at(row)[field].get<double>();
    EXPECT_NEAR(SumOfKind(text, metric, neuron), w, 1e-9 * std::max(1.0, std::abs(w)))
        << metric << (neuron ? " of Neuron devices" : " of GPUs") << "\n"
        << text;
  };
  expect("gpucost_allocated_usd_total", true, "neuron_device", "allocated_usd");
  expect("gpucost_allocated_usd_total", false, "gpu", "allocated_usd");
  expect("gpucost_allocated_gpu_hours_total", true, "neuron_device", "gpu_hours");
  expect("gpucost_allocated_gpu_hours_total", false, "gpu", "gpu_hours");
  expect("gpucost_unmeasured_gpu_hours_total", true, "neuron_device", "unmeasured_gpu_hours");
  expect("gpucost_idle_usd_total", true, "neuron_device/idle", "idle_usd");
  expect("gpucost_idle_usd_total", false, "gpu/idle", "idle_usd");
  expect("gpucost_idle_gpu_hours_total", true, "neuron_device/idle", "gpu_hours");

  // The gauges of the newest step: the Neuron node's and its holder's series only carry the kind.
  int nodes = 0;
  int holders = 0;
  int neuron_holders = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const bool neuron = line.find(kNeuron) != std::string::npos;
    if (line.starts_with("gpucost_node_gpus{")) {
      ++nodes;
      EXPECT_EQ(neuron, line.find("node=\"inf-b\"") != std::string::npos) << line;
    }
    if (line.starts_with("gpucost_allocated_gpus{")) {
      ++holders;
      neuron_holders += neuron ? 1 : 0;
    }
  }
  EXPECT_EQ(nodes, 2) << text;
  EXPECT_EQ(holders, 2) << text;  // ml/train-0 on an A100, ml/embed-0 on a NeuronCore
  EXPECT_EQ(neuron_holders, 1) << text;
}

// A SQLite ledger `name`.db in `dir` written by `gpucost ledger write FLAGS`, open, with its totals
// and newest step.
struct Written {
  std::unique_ptr<ledger::Ledger> ledger;
  ledger::LedgerTotals totals;
  ledger::LedgerLatest latest;
};
Written WriteLedger(const TempDir& dir, const std::string& name, const std::string& flags) {
  const std::string db = (dir.path() / (name + ".db")).string();
  const RunResult wrote = RunShell(kBinary + " ledger write " + db + " " + flags + " 2>&1");
  EXPECT_EQ(wrote.exit_code, 0) << wrote.output;
  Written w;
  Result<std::unique_ptr<ledger::Ledger>> l = ledger::Ledger::Open(db);
  if (!l.ok()) {
    ADD_FAILURE() << l.status().ToString();
    return w;
  }
  w.ledger = std::move(*l);
  Result<ledger::LedgerTotals> totals = w.ledger->Totals();
  Result<ledger::LedgerLatest> latest = w.ledger->Latest();
  EXPECT_TRUE(totals.ok() && latest.ok());
  if (totals.ok()) w.totals = std::move(*totals);
  if (latest.ok()) w.latest = std::move(*latest);
  return w;
}

// Unknown is absent, never zero: the money counters of holders and of idle capacity whose hours
// have no price are left out of /metrics, while their GPU-hours are there; with a price they hold
// its money.
TEST(UnknownMoneyMetrics, CountersOfHoursWithoutAPriceAreAbsentNotZero) {
  TempDir dir;
  const std::string input = std::string(GPUCOST_SOURCE_DIR) + "/tests/golden/cases/whole_gpu/input";
  const auto metrics = [&](const std::string& name, const std::string& price) {
    const Written w = WriteLedger(dir, name, "--input " + input + " " + price);
    return ServeMetricsText(w.totals, w.latest, {}, ServeHealth{});
  };
  const std::string unpriced = metrics("unpriced", "");
  EXPECT_EQ(unpriced.find("\ngpucost_allocated_usd_total{"), std::string::npos) << unpriced;
  EXPECT_EQ(unpriced.find("\ngpucost_effective_usd_total{"), std::string::npos) << unpriced;
  EXPECT_EQ(unpriced.find("\ngpucost_idle_usd_total{"), std::string::npos) << unpriced;
  EXPECT_GT(SumOfKind(unpriced, "gpucost_allocated_gpu_hours_total", false), 0) << unpriced;
  EXPECT_GT(SumOfKind(unpriced, "gpucost_idle_gpu_hours_total", false), 0) << unpriced;

  const std::string priced = metrics("priced", "--price-per-gpu-hour 4");
  EXPECT_NEAR(SumOfKind(priced, "gpucost_allocated_usd_total", false) +
                  SumOfKind(priced, "gpucost_idle_usd_total", false),
              4.0 / 3, 1e-9)
      << priced;
}

// A team's month-to-date and forecast gauges are its priced money, with its unpriced hours beside
// them, never a silent part: ml holds an A100 (priced) and a T4 (no price) in mixed_gpu_models; its
// gauges are the report's priced dollars and unpriced hours, and with no price at all the dollar
// gauges are absent while the hours are there.
TEST(UnknownMoneyMetrics, TeamMonthToDateSaysItsUnpricedHours) {
  TempDir dir;
  const std::string input =
      std::string(GPUCOST_SOURCE_DIR) + "/tests/golden/cases/mixed_gpu_models/input";
  const std::string a100_only = dir.Write(
      "prices.yaml", "prices:\n  - match: {gpu_model: \"*A100*\"}\n    usd_per_gpu_hour: 4.10\n");
  Result<alerts::BudgetFile> budgets = alerts::ParseBudgets("budgets:\n  ml: 100\n", "budgets");
  ASSERT_TRUE(budgets.ok());
  const auto gauges = [&](const std::string& name, const std::string& price) {
    const Written w = WriteLedger(
        dir, name, "--input " + input + " --window " + kWindow + " --step 60s " + price);
    if (w.ledger == nullptr) return std::pair(TeamBudgetGauge{}, std::string());
    const std::vector<TeamBudgetGauge> teams =
        TeamBudgetGauges(*w.ledger, *budgets, std::chrono::hours(24), "c", w.latest, {});
    EXPECT_EQ(teams.size(), 1u);
    return std::pair(teams.empty() ? TeamBudgetGauge{} : teams[0],
                     ServeMetricsText(w.totals, w.latest, teams, ServeHealth{}));
  };
  const RunResult report =
      RunShell(kBinary + " report --input " + input + " --window " + kWindow +
               " --step 60s --by namespace --format json --prices " + a100_only + " 2>/dev/null");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  double usd = 0;
  double unpriced = 0;
  const nlohmann::json doc = nlohmann::json::parse(report.output);
  for (const nlohmann::json& r : doc["rows"]) {
    if (r.value("namespace", std::string()) != "ml") continue;
    usd += r["allocated_usd"].get<double>();
    unpriced += r["unpriced_gpu_hours"].get<double>();
  }
  ASSERT_GT(usd, 0) << report.output;
  ASSERT_GT(unpriced, 0) << report.output;

  const auto [part, part_text] = gauges("part", "--prices " + a100_only);
  EXPECT_NEAR(part.month_to_date_usd, usd, 1e-9);
  EXPECT_NEAR(part.month_to_date_unpriced_gpu_hours, unpriced, 1e-9);
  EXPECT_GE(part.forecast_usd, usd);
  EXPECT_NE(
      part_text.find("gpucost_team_month_to_date_unpriced_gpu_hours{cluster=\"c\",team=\"ml\"}"),
      std::string::npos)
      << part_text;

  const auto [none, none_text] = gauges("none", "");
  EXPECT_TRUE(std::isnan(none.month_to_date_usd));
  EXPECT_TRUE(std::isnan(none.forecast_usd));
  EXPECT_GT(none.month_to_date_unpriced_gpu_hours, unpriced);  // the A100's hours too
  EXPECT_EQ(none_text.find("\ngpucost_team_month_to_date_usd{"), std::string::npos) << none_text;
  EXPECT_EQ(none_text.find("\ngpucost_team_month_forecast_usd{"), std::string::npos) << none_text;
  EXPECT_NE(none_text.find("\ngpucost_team_budget_usd{"), std::string::npos) << none_text;
}

}  // namespace
}  // namespace gpucost::serve
