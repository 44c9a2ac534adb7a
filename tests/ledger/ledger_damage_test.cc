// A damaged ledger is an error, never a short total (docs/ledger.md, "A damaged ledger"): on both
// backends, records or roll-ups changed behind the ledger's back fail the read that meets them
// with DataLoss naming the period, while the parts that are whole still read; the checks follow
// rewrites, retention and the migration that adds them; `Check` finds what reads would.
#include <gtest/gtest.h>

#include <string>

#include "core/strings.h"
#include "ledger/ledger_test_util.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

using testing::At;

class LedgerDamageTest : public LedgerBackendTest {
 protected:
  // The run's two hours (10-minute steps) written and rolled up.
  std::unique_ptr<Ledger> Written(const std::string& name) {
    run_ = Attributed();
    target_ = NewTarget(name);
    auto l = Ledger::Open(target_);
    EXPECT_TRUE(l.ok()) << l.status().ToString();
    if (!l.ok()) return nullptr;
    const Status s =
        (*l)->Write(run_->b.inventory, {At(0), At(7200)}, run_->options.step, run_->sink.records);
    EXPECT_TRUE(s.ok()) << s.ToString();
    Result<int64_t> hours = (*l)->Seal(At(7200));
    EXPECT_TRUE(hours.ok()) << hours.status().ToString();
    EXPECT_EQ(hours.ok() ? *hours : 0, 2);
    return std::move(*l);
  }

  // Runs `sql` on the ledger's database directly, as damage from outside would change it.
  void Tamper(const std::string& sql) {
    auto db = OpenDatabase(target_);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    const Status s = (*db)->Exec(sql);
    ASSERT_TRUE(s.ok()) << sql << ": " << s.ToString();
  }

  std::unique_ptr<ledger::Run> run_;
  std::string target_;
};
INSTANTIATE_TEST_SUITE_P(Backends, LedgerDamageTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

ReadOptions FromRollups() {
  ReadOptions o;
  o.rollups = true;
  return o;
}

TEST_P(LedgerDamageTest, RecordsMissingFromAReadFailItRatherThanComingBackShort) {
  auto l = Written("missing");
  ASSERT_NE(l, nullptr);
  const Window both = {At(0), At(7200)};
  ASSERT_TRUE(l->Read(both).ok());
  // One step of the first hour gone, as a range scan past a scribbled page would miss it.
  Tamper(StrCat("DELETE FROM cost_records WHERE step_start_ms = ", UnixMs(At(600))));
  Result<LedgerWindow> read = l->Read(both);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kDataLoss) << read.status().ToString();
  EXPECT_NE(read.status().message().find("the records of the hour from 2026-10-01T00:00:00Z"),
            std::string::npos)
      << read.status().message();
  EXPECT_NE(read.status().message().find("A damaged ledger"), std::string::npos);
  // The second hour is whole and reads; the first hour's roll-up is whole too.
  EXPECT_TRUE(l->Read(Window{At(3600), At(7200)}).ok());
  Result<LedgerWindow> rolled = l->Read(both, FromRollups());
  ASSERT_TRUE(rolled.ok()) << rolled.status().ToString();
  EXPECT_TRUE(rolled->records.empty());
  EXPECT_FALSE(rolled->rolled.empty());
  // The whole check finds it, with where.
  Result<LedgerCheck> check = l->Check(/*whole=*/true);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  ASSERT_FALSE(check->problems.empty());
  EXPECT_NE(check->problems.front().find("2026-10-01T00:"), std::string::npos)
      << check->problems.front();
}

TEST_P(LedgerDamageTest, AChangedRollUpFailsItsCheck) {
  auto l = Written("rollup");
  ASSERT_NE(l, nullptr);
  const Window both = {At(0), At(7200)};
  ASSERT_TRUE(l->Read(both, FromRollups()).ok());
  Tamper(StrCat("UPDATE rollups SET allocated_usd = allocated_usd + 1000 WHERE period_ms = ",
                Ledger::kHourMs, " AND start_ms = ", UnixMs(At(3600))));
  Result<LedgerWindow> read = l->Read(both, FromRollups());
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kDataLoss) << read.status().ToString();
  EXPECT_NE(read.status().message().find("the roll-up of the hour from 2026-10-01T01:00:00Z"),
            std::string::npos)
      << read.status().message();
  // Its records are whole.
  EXPECT_TRUE(l->Read(both).ok());
  Result<LedgerCheck> check = l->Check(/*whole=*/true);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  ASSERT_EQ(check->problems.size(), 1u);
  EXPECT_NE(check->problems.front().find("roll-up of the hour from 2026-10-01T01:00:00Z"),
            std::string::npos)
      << check->problems.front();
}

TEST_P(LedgerDamageTest, AnEndOfTheLedgerThatIsGoneIsFound) {
  auto l = Written("ends");
  ASSERT_NE(l, nullptr);
  // The whole first hour gone: a read of "the whole ledger" would start at the second and say
  // nothing.
  Tamper(StrCat("DELETE FROM cost_records WHERE step_start_ms < ", UnixMs(At(3600))));
  Result<LedgerWindow> read = l->Read(std::nullopt);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kDataLoss) << read.status().ToString();
  EXPECT_NE(read.status().message().find("are missing"), std::string::npos)
      << read.status().message();
}

TEST_P(LedgerDamageTest, TheChecksFollowRewritesRetentionAndTheMigration) {
  auto l = Written("follow");
  ASSERT_NE(l, nullptr);
  // A rewrite of the sealed second hour with fewer records rolls it again, with its check.
  std::vector<CostRecord> first_hour;
  for (const CostRecord& r : run_->sink.records) {
    if (r.step < 6) first_hour.push_back(r);
  }
  ASSERT_LT(first_hour.size(), run_->sink.records.size());
  ASSERT_TRUE(l->Write(run_->b.inventory, {At(0), At(7200)}, run_->options.step, first_hour).ok());
  Result<LedgerCheck> check = l->Check(/*whole=*/true);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_TRUE(check->problems.empty()) << Join(check->problems, "\n");
  EXPECT_EQ(check->periods, 2);  // the second hour's says it holds none
  ASSERT_TRUE(l->Read(Window{At(0), At(7200)}).ok());
  // And back.
  ASSERT_TRUE(
      l->Write(run_->b.inventory, {At(0), At(7200)}, run_->options.step, run_->sink.records).ok());
  check = l->Check(/*whole=*/true);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_TRUE(check->problems.empty()) << Join(check->problems, "\n");
  EXPECT_EQ(check->periods, 2);
  ASSERT_TRUE(l->Read(Window{At(0), At(7200)}).ok());
  // Retention through the middle of the first hour.
  ASSERT_TRUE(l->DeleteBefore(At(1800)).ok());
  check = l->Check(/*whole=*/true);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_TRUE(check->problems.empty()) << Join(check->problems, "\n");
  EXPECT_TRUE(l->Read(std::nullopt).ok());
  // A ledger from before the checks gets them from its roll-ups.
  l.reset();
  Tamper("DROP TABLE period_checks");
  Tamper("UPDATE meta SET value = '5' WHERE key = 'schema_version'");
  auto again = Ledger::Open(target_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  check = (*again)->Check(/*whole=*/true);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_TRUE(check->problems.empty()) << Join(check->problems, "\n");
  EXPECT_GT(check->periods, 0);
  // And reads check against them.
  Tamper(StrCat("DELETE FROM cost_records WHERE step_start_ms = ", UnixMs(At(4200))));
  Result<LedgerWindow> read = (*again)->Read(Window{At(3600), At(7200)});
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kDataLoss) << read.status().ToString();
}

}  // namespace
}  // namespace gpucost::ledger
