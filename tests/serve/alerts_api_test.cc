// serve's /api/v1/alerts is `gpucost alerts --ledger` over the same window, with serve's budgets
// and its run-rate window (--forecast-lookback), as its /metrics budget gauges take them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "alerts/budgets.h"
#include "cli/cli_test_util.h"
#include "pricing/price_fn.h"
#include "serve/ledger_api.h"
#include "serve/serve_server.h"

namespace gpucost::serve {
namespace {

using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

TEST(AlertsApi, TakesServesBudgetsAndRunRateWindow) {
  TempDir dir;
  const std::string om = (dir.path() / "sim.om").string();
  const std::string db = (dir.path() / "costs.db").string();
  ASSERT_EQ(RunShell(kBinary +
                     " simulate --nodes 2 --seed 4 --duration 3d --scrape-interval 300s"
                     " --out " +
                     om + " 2>&1")
                .exit_code,
            0);
  const RunResult wrote = RunShell(kBinary + " ledger write " + db + " --input " + om +
                                   " --step 5m --price-per-gpu-hour 2 2>&1");
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  const std::string budgets = dir.Write("budgets.yaml", "default: 100\n");
  const std::string window = "2026-10-01T00:00:00Z,2026-10-04T00:00:00Z";
  const RunResult cli =
      RunShell(kBinary + " alerts --ledger " + db + " --window " + window + " --budgets " +
               budgets + " --forecast-lookback 1d --format json 2>/dev/null");
  ASSERT_FALSE(cli.output.empty());
  const nlohmann::json want = nlohmann::json::parse(cli.output);

  ServeOptions s;
  s.ledger = db;
  s.price = FlatPriceFn(2);
  Result<alerts::BudgetFile> file = alerts::LoadBudgets(budgets);
  ASSERT_TRUE(file.ok());
  s.budgets = *file;
  s.forecast_lookback = std::chrono::hours(24);
  Result<std::string> api = AlertsJson(s, [&](const std::string& name) {
    return name == "window" ? std::optional<std::string>(window) : std::nullopt;
  });
  ASSERT_TRUE(api.ok()) << api.status().ToString();
  const nlohmann::json got = nlohmann::json::parse(*api);
  ASSERT_EQ(got["budgets"]["teams"].size(), want["budgets"]["teams"].size());
  ASSERT_GE(want["budgets"]["teams"].size(), 2u);
  for (size_t i = 0; i < want["budgets"]["teams"].size(); ++i) {
    const nlohmann::json& w = want["budgets"]["teams"][i];
    const nlohmann::json& g = got["budgets"]["teams"][i];
    EXPECT_EQ(g["team"], w["team"]);
    EXPECT_EQ(g["rate_days"], w["rate_days"]);
    EXPECT_NEAR(g["forecast_usd"].get<double>(), w["forecast_usd"].get<double>(), 1e-9)
        << w["team"];
  }
  EXPECT_DOUBLE_EQ(got["budgets"]["teams"][0]["rate_days"].get<double>(), 1);
}

}  // namespace
}  // namespace gpucost::serve
