// /api/v1/report's bound on rows: a report of more rows than one answer carries is a 400 that says
// how many and what to ask instead, not half a gigabyte of JSON; the same query within the bound
// is answered.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/cli_test_util.h"
#include "core/strings.h"
#include "serve/ledger_api.h"

namespace gpucost::serve {
namespace {

using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

TEST(ReportApiBounds, MoreRowsThanAnAnswerCarriesAreRefusedWithWhatToAsk) {
  TempDir dir;
  const std::string input = (dir.path() / "sim.om").string();
  const std::string ledger = (dir.path() / "costs.db").string();
  const RunResult made =
      RunShell(StrCat(kBinary, " simulate --nodes 1 --duration 1h --seed 3 ", "--out ", input,
                      " 2>&1 && ", kBinary, " ledger write ", ledger, " --input ", input, " 2>&1"));
  ASSERT_EQ(made.exit_code, 0) << made.output;
  ServeOptions s;
  s.ledger = ledger;
  s.step = std::chrono::seconds(60);
  const std::map<std::string, std::string> query = {{"by", "pod"}, {"accumulate", "false"}};
  const QueryParam param = [&query](const std::string& name) -> std::optional<std::string> {
    const auto it = query.find(name);
    return it == query.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  const Result<std::string> all = ReportJson(s, param, nullptr, 1'000'000);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  const size_t rows = nlohmann::json::parse(*all)["rows"].size();
  ASSERT_GT(rows, 60u);  // a row per pod and minute
  const Result<std::string> refused = ReportJson(s, param, nullptr, rows - 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find(StrCat("has ", rows, " rows, at most ", rows - 1)),
            std::string::npos)
      << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("a longer step="), std::string::npos);
  EXPECT_TRUE(ReportJson(s, param, nullptr, rows).ok());
}

}  // namespace
}  // namespace gpucost::serve
