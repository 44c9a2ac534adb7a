// The ledger on a real PostgreSQL (tests/common/postgres_server.h): reopening resumes with the
// same ids; a server that is not there is named by host and port, never with the password; two
// writers of the same window leave one copy of each record; and `gpucost ledger write` then
// `gpucost report --ledger` give from a postgresql:// ledger what they give from a SQLite file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "core/money.h"
#include "core/redact.h"
#include "ledger/ledger_test_util.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

using testing::At;
using testing_util::Contains;
using testing_util::PostgresServer;
using testing_util::RunResult;
using testing_util::RunShell;

class PostgresLedger : public LedgerBackendTest {};
INSTANTIATE_TEST_SUITE_P(Backend, PostgresLedger, ::testing::Values(Backend::kPostgres),
                         BackendName);

double KnownAllocatedUsd(const LedgerWindow& w) {
  CompensatedSum total;
  for (const CostRecord& r : w.records) {
    if (r.price_known) total.Add(r.allocated_usd);
  }
  return total.value();
}

TEST_P(PostgresLedger, ReopeningResumesWithTheSameUnitsAndHolders) {
  const auto run = Attributed();
  const std::string uri = NewTarget("reopen");
  const size_t per_window = run->sink.records.size();
  {
    auto ledger = Ledger::Open(uri);
    ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
    ASSERT_TRUE(
        (*ledger)
            ->Write(run->b.inventory, run->options.window, run->options.step, run->sink.records)
            .ok());
  }
  auto ledger = Ledger::Open(uri);
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  Result<LedgerInfo> info = (*ledger)->Info();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->records, static_cast<int64_t>(per_window));
  EXPECT_EQ(info->schema_version, Ledger::kSchemaVersion);
  ASSERT_TRUE(
      (*ledger)
          ->Write(run->b.inventory, {At(7200), At(14400)}, run->options.step, run->sink.records)
          .ok());
  info = (*ledger)->Info();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->records, 2 * static_cast<int64_t>(per_window));
  EXPECT_EQ(info->units, static_cast<int64_t>(run->b.inventory.units.size()));
  EXPECT_EQ(info->holders, static_cast<int64_t>(run->b.inventory.holders.size()));
  ASSERT_TRUE(info->span.has_value());
  EXPECT_EQ(info->span->start, At(0));
  EXPECT_EQ(info->span->end, At(14400));
  const Result<LedgerWindow> all = (*ledger)->Read(std::nullopt);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_NEAR(KnownAllocatedUsd(*all), 2 * 5.0, 1e-9);
}

TEST_P(PostgresLedger, NoServerIsNamedByHostAndPortWithoutThePassword) {
  const int port = testing_util::FreePort();
  const std::string uri =
      "postgresql://gpucost:s3cret-pw@127.0.0.1:" + std::to_string(port) + "/costs";
  const auto ledger = Ledger::Open(uri);
  ASSERT_FALSE(ledger.ok());
  const std::string message = ledger.status().ToString();
  EXPECT_TRUE(Contains(message, "127.0.0.1:" + std::to_string(port))) << message;
  EXPECT_TRUE(Contains(message, "cannot connect")) << message;
  EXPECT_TRUE(Contains(message, "Connection refused")) << message;
  EXPECT_FALSE(Contains(message, "s3cret")) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST_P(PostgresLedger, ThePasswordIsMaskedWhereverTheTargetIsPrinted) {
  // The forms themselves: tests/core/redact_test.cc.
  EXPECT_EQ(RedactUri("postgresql://u:pw@db:5432/costs"), "postgresql://u:***@db:5432/costs");
  EXPECT_EQ(RedactUri("postgres://u@db/costs?sslmode=require&password=pw"),
            "postgres://u@db/costs?sslmode=require&password=***");

  // The test server trusts every local connection: the password is sent and ignored.
  const std::string plain = NewTarget("masked");
  std::string uri = plain;
  uri.replace(uri.find("postgres@"), 9, "postgres:s3cret-pw@");
  auto ledger = Ledger::Open(uri);
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  EXPECT_FALSE(Contains((*ledger)->path(), "s3cret")) << (*ledger)->path();
  EXPECT_TRUE(Contains((*ledger)->path(), "postgres:***@127.0.0.1")) << (*ledger)->path();
  // An error that names the target names it masked.
  const Result<LedgerWindow> empty = (*ledger)->Read(std::nullopt);
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(Contains(empty.status().ToString(), "postgres:***@")) << empty.status().ToString();
  EXPECT_FALSE(Contains(empty.status().ToString(), "s3cret"));
}

TEST_P(PostgresLedger, TwoWritersOfTheSameWindowsLeaveOneCopyOfEachRecord) {
  const auto run = Attributed();
  const std::string uri = NewTarget("race");  // empty: the two also race to create the schema
  constexpr int kWindows = 20;
  // One writes the windows forwards, the other backwards: they meet in the middle, on the same
  // rows, and both name the same nodes, units and holders from their first write on.
  Status results[2];
  auto writer = [&](int which) {
    auto ledger = Ledger::Open(uri);
    if (!ledger.ok()) {
      results[which] = ledger.status();
      return;
    }
    for (int i = 0; i < kWindows; ++i) {
      const int w = which == 0 ? i : kWindows - 1 - i;
      Status s = (*ledger)->Write(run->b.inventory, {At(7200 * w), At(7200 * (w + 1))},
                                  run->options.step, run->sink.records);
      if (!s.ok()) {
        results[which] = s;
        return;
      }
    }
  };
  std::thread a(writer, 0);
  std::thread b(writer, 1);
  a.join();
  b.join();
  ASSERT_TRUE(results[0].ok()) << results[0].ToString();
  ASSERT_TRUE(results[1].ok()) << results[1].ToString();

  auto ledger = Ledger::Open(uri);
  ASSERT_TRUE(ledger.ok());
  const Result<LedgerInfo> info = (*ledger)->Info();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->records, kWindows * static_cast<int64_t>(run->sink.records.size()));
  EXPECT_EQ(info->units, static_cast<int64_t>(run->b.inventory.units.size()));
  EXPECT_EQ(info->holders, static_cast<int64_t>(run->b.inventory.holders.size()));
  const Result<LedgerWindow> all = (*ledger)->Read(std::nullopt);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->inventory.nodes.size(), run->b.inventory.nodes.size());
  EXPECT_NEAR(KnownAllocatedUsd(*all), kWindows * 5.0, 1e-9);  // $2.50 x 2 h a window, once
}

TEST_P(PostgresLedger, TheCommandLineGivesFromPostgresWhatItGivesFromSqlite) {
  const std::string binary = GPUCOST_BINARY;
  const std::string input = (dir_.path() / "demo.om").string();
  const std::string file = (dir_.path() / "costs.db").string();
  const std::string uri = NewTarget("cli");
  RunResult r = RunShell(binary + " demo --write-openmetrics " + input + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string from_input = " --input " + input + " --price-per-gpu-hour 12 --step 5m";
  for (const std::string& target : {file, uri}) {
    r = RunShell(binary + " ledger write " + target + from_input + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(Contains(r.output, "wrote 84 cost records")) << r.output;
  }
  const auto report = [&](const std::string& target) {
    const RunResult out = RunShell(binary + " report --by team,workload --format json --ledger " +
                                   target + " 2>/dev/null");
    EXPECT_EQ(out.exit_code, 0) << out.output;
    return nlohmann::json::parse(out.output, nullptr, false);
  };
  const nlohmann::json a = report(file);
  const nlohmann::json b = report(uri);
  ASSERT_TRUE(a.contains("rows")) << a.dump();
  EXPECT_EQ(a["rows"], b["rows"]);
  EXPECT_EQ(a["totals"], b["totals"]);
  EXPECT_GT(a["rows"].size(), 0u);

  r = RunShell(binary + " ledger info --format json " + uri + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json info = nlohmann::json::parse(r.output, nullptr, false);
  EXPECT_EQ(info["records"], 84);
  EXPECT_EQ(info["steps_s"], nlohmann::json::array({300}));
}

}  // namespace
}  // namespace gpucost::ledger
