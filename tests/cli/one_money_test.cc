// One money across commands: on one simulated cluster priced from the built-in catalog (several
// rates, spot and on-demand), `gpucost report --by team`, `gpucost chargeback --by team` and
// `gpucost whatif`'s "before" give each team the same dollars to 1e-9 in JSON and the same
// printed cents in text, over the same default period; and every statement line multiplies out
// (printed hours x printed rate rounds to the printed amount).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"
#include "common/sanitizer.h"
#include "core/money.h"

namespace gpucost {
namespace {

using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

// "1,234.56" -> 123456 (units of 10^-decimals, decimals as printed).
int64_t Units(std::string text, int* decimals = nullptr) {
  std::erase(text, ',');
  const size_t dot = text.find('.');
  const int d = dot == std::string::npos ? 0 : static_cast<int>(text.size() - dot - 1);
  if (decimals != nullptr) *decimals = d;
  if (dot != std::string::npos) text.erase(dot, 1);
  return std::stoll(text);
}

class OneMoney : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    input_ = (dir_->path() / "week.om").string();
    // Under ASan (several times slower, and checking memory, not money) a quarter of the time.
    const std::string duration = testing_util::kUnderAsan ? "12h" : "2d";
    const RunResult sim = RunShell(kBinary + " simulate --nodes 8 --duration " + duration +
                                   " --seed 11 --out " + input_ + " 2>&1");
    ASSERT_EQ(sim.exit_code, 0) << sim.output;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string Run(const std::string& args) {
    const RunResult r = RunShell(kBinary + " " + args + " --input " + input_ + " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    return r.output;
  }

  static TempDir* dir_;
  static std::string input_;
};
TempDir* OneMoney::dir_ = nullptr;
std::string OneMoney::input_;

TEST_F(OneMoney, ReportChargebackAndWhatIfGiveEachTeamTheSameDollarsAndCents) {
  const nlohmann::json report =
      nlohmann::json::parse(Run("report --by team --accumulate --format json"));
  const nlohmann::json charge = nlohmann::json::parse(Run("chargeback --by team --format json"));
  const nlohmann::json whatif =
      nlohmann::json::parse(Run("whatif --policy spot-batch --format json"));

  // One default period: the input's span, the same in both.
  EXPECT_EQ(charge["period"]["start"], report["window"]["start"]);
  EXPECT_EQ(charge["period"]["end"], report["window"]["end"]);

  std::map<std::string, nlohmann::json> rows;
  for (const nlohmann::json& r : report["rows"]) {
    if (r["team"] != "__idle__") rows[r["team"].get<std::string>()] = r;
  }
  ASSERT_GE(rows.size(), 4u);
  ASSERT_EQ(charge["statements"].size(), rows.size());
  for (const nlohmann::json& s : charge["statements"]) {
    const std::string team = s["team"].get<std::string>();
    ASSERT_TRUE(rows.contains(team)) << team;
    for (const char* field : {"gpu_hours", "allocated_usd", "effective_usd"}) {
      EXPECT_NEAR(s[field].get<double>(), rows[team][field].get<double>(), 1e-9)
          << team << " " << field;
    }
    // The statement's printed total is the report's figure rounded by the one rule.
    EXPECT_EQ(std::llround(s["total_usd"].get<double>() * 100),
              RoundUnits(rows[team]["allocated_usd"].get<double>(), 2))
        << team;
  }
  ASSERT_EQ(whatif["by_team"].size(), rows.size());
  for (const nlohmann::json& w : whatif["by_team"]) {
    const std::string team = w["team"].get<std::string>();
    ASSERT_TRUE(rows.contains(team)) << team;
    EXPECT_NEAR(w["before_usd"].get<double>(), rows[team]["allocated_usd"].get<double>(), 1e-9)
        << team;
  }

  // Printed: the same cents for each team in the three commands' text.
  std::map<std::string, int64_t> printed;  // from the report's table
  {
    std::istringstream table(Run("report --by team --accumulate"));
    std::string line;
    std::getline(table, line);  // header: team gpu_hours allocated_usd ...
    while (std::getline(table, line) && line[0] != '-') {
      std::istringstream words(line);
      std::string team, hours, allocated;
      words >> team >> hours >> allocated;
      printed[team] = Units(allocated);
    }
  }
  const std::string statements = Run("chargeback --by team");
  const std::regex total(R"(GPU Report — (\S+)\n(?:.*\n)*?Total: \$([0-9,.]+))");
  int teams = 0;
  for (auto it = std::sregex_iterator(statements.begin(), statements.end(), total);
       it != std::sregex_iterator(); ++it, ++teams) {
    const std::string team = (*it)[1];
    EXPECT_EQ(Units((*it)[2]), printed[team]) << team;
  }
  EXPECT_EQ(teams, static_cast<int>(rows.size())) << statements;
  std::istringstream whatif_text(Run("whatif --policy spot-batch"));
  int seen = 0;
  bool in_teams = false;
  for (std::string line; std::getline(whatif_text, line);) {
    std::istringstream words(line);
    std::string key, before;
    words >> key >> before;
    if (key == "team") {
      in_teams = true;
    } else if (in_teams && key != "total" && !key.empty()) {
      EXPECT_EQ(Units(before), printed[key]) << key;
      ++seen;
    } else if (in_teams) {
      break;
    }
  }
  EXPECT_EQ(seen, static_cast<int>(rows.size()));
}

TEST_F(OneMoney, StatementLinesMultiplyOutAndTheRoundingLineClosesTheTotal) {
  const std::string text = Run("chargeback --by team");
  // "├── A100 on-demand: 814.71 hrs × $3.430881 = $2,795.17"
  const std::regex line(R"((?:├|└)── [^:]+: +([0-9,.]+) hrs × +\$([0-9.]+) = \$([0-9,.]+))");
  const std::regex rounding(R"(── Rounding: +([+-])\$([0-9.]+))");
  const std::regex total(R"(Total: \$([0-9,.]+))");
  int lines = 0;
  int64_t sum = 0;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, line)) {
      int hd = 0, rd = 0;
      const int64_t hours = Units(m[1], &hd);
      const int64_t rate = Units(m[2], &rd);
      const int64_t amount = Units(m[3]);
      const double product = static_cast<double>(hours) / std::pow(10.0, hd) *
                             static_cast<double>(rate) / std::pow(10.0, rd);
      EXPECT_EQ(RoundUnits(product, 2), amount) << l;
      sum += amount;
      ++lines;
    } else if (std::regex_search(l, m, rounding)) {
      sum += (m[1] == "-" ? -1 : 1) * Units(m[2]);
    } else if (std::regex_search(l, m, total)) {
      EXPECT_EQ(sum, Units(m[1])) << "the lines and the rounding line add up to the total: " << l;
      sum = 0;
    }
  }
  EXPECT_GE(lines, 8) << text;
}

// The statements and the cluster summary after them make up the cluster's cost, under each idle
// policy: teams stated + other teams + idle no team was charged = the report's cost_usd, and
// with idle shared each statement's total is the team's allocated cost in the report under the
// same policy.
TEST_F(OneMoney, StatementsAndTheClusterSummaryAddUpToTheClustersCost) {
  // Held and unheld GPU-hours: the report's hours with idle kept apart.
  const double capacity = nlohmann::json::parse(Run(
      "report --by team --accumulate --format json"))["totals"]["gpu_hours"]
                              .get<double>();
  for (const std::string idle : {"separate", "proportional --idle-scope node", "even"}) {
    SCOPED_TRACE(idle);
    const nlohmann::json report =
        nlohmann::json::parse(Run("report --by team --accumulate --format json --idle " + idle));
    const nlohmann::json some =
        nlohmann::json::parse(Run("chargeback --team ads,search --format json --idle " + idle));
    ASSERT_TRUE(some.contains("cluster"));
    const nlohmann::json& c = some["cluster"];
    const double cost = report["totals"]["cost_usd"].get<double>();
    EXPECT_NEAR(c["cost_usd"].get<double>(), cost, 1e-9 * cost);
    EXPECT_NEAR(c["stated_teams_usd"].get<double>() + c["other_teams_usd"].get<double>() +
                    c["idle_usd"].get<double>(),
                cost, 1e-9 * cost);
    EXPECT_GT(c["other_teams_usd"].get<double>(), 0);
    std::map<std::string, double> allocated;
    std::map<std::string, nlohmann::json> rows;
    for (const nlohmann::json& r : report["rows"]) {
      allocated[r["team"].get<std::string>()] = r["allocated_usd"].get<double>();
      rows[r["team"].get<std::string>()] = r;
    }
    double stated = 0;
    for (const nlohmann::json& s : some["statements"]) {
      const std::string team = s["team"].get<std::string>();
      const double total = s["allocated_usd"].get<double>() + s["shared_idle_usd"].get<double>();
      EXPECT_NEAR(total, allocated[team], 1e-9 * cost) << team;
      // The statement's waste and efficiency are of what the team held; the report's, of its
      // allocated money with the idle share: the two differ by that share and no more
      // (docs/chargeback.md, "Shared idle and the report").
      const nlohmann::json& row = rows[team];
      EXPECT_NEAR(s["effective_usd"].get<double>(), row["effective_usd"].get<double>(), 1e-9 * cost)
          << team;
      EXPECT_NEAR(s["waste_usd"].get<double>() + s["shared_idle_usd"].get<double>(),
                  row["waste_usd"].get<double>(), 1e-9 * cost)
          << team;
      EXPECT_NEAR(row["efficiency"].get<double>(), s["effective_usd"].get<double>() / total, 1e-9)
          << team;
      EXPECT_EQ(std::llround(s["total_usd"].get<double>() * 100), RoundUnits(total, 2)) << team;
      if (idle == "separate") {
        EXPECT_EQ(s["shared_idle_usd"].get<double>(), 0) << team;
      } else {
        EXPECT_GT(s["shared_idle_usd"].get<double>(), 0) << team;
      }
      stated += total;
    }
    EXPECT_NEAR(c["stated_teams_usd"].get<double>(), stated, 1e-9 * cost);
    // The prices the money rests on, as the report counts them.
    double priced_hours = 0;
    for (const auto& [source, hours] : c["price_sources"].items()) {
      EXPECT_NEAR(hours.get<double>(), report["price_sources"][source].get<double>(), 1e-9)
          << source;
      priced_hours += hours.get<double>();
    }
    EXPECT_NEAR(priced_hours, capacity, 1e-6);
    if (idle == "separate") {
      EXPECT_NEAR(c["idle_gpu_hours"].get<double>(),
                  capacity - report["totals"]["gpu_hours"].get<double>() +
                      report["rows"].back()["gpu_hours"].get<double>(),
                  1e-6);
    }
  }
  // In text, the summary's parts and its total are the report's figures, and add up (with a
  // rounding line when they need one) to the printed cost.
  const std::string text = Run("chargeback --by team");
  const size_t at = text.find("\nCluster — ");
  ASSERT_NE(at, std::string::npos) << text;
  std::istringstream summary(text.substr(at + 1));
  int64_t parts = 0;
  int64_t total = -1;
  for (std::string line; std::getline(summary, line);) {
    const size_t dollar = line.rfind('$');
    if (dollar == std::string::npos || line.starts_with("Prices")) continue;
    const int64_t cents = Units(line.substr(dollar + 1)) * (line[dollar - 1] == '-' ? -1 : 1);
    if (line.starts_with("Total GPU cost: ")) {
      total = cents;
    } else {
      parts += cents;
    }
  }
  const nlohmann::json report = nlohmann::json::parse(Run("report --by team --format json"));
  EXPECT_EQ(total, RoundUnits(report["totals"]["cost_usd"].get<double>(), 2));
  EXPECT_EQ(parts, total);
}

}  // namespace
}  // namespace gpucost
