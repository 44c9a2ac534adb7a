// Retention on both backends, and PostgreSQL's partitions (schema version 5): records live in a
// partition per UTC day, retention drops the days it passes whole and deletes the rest of its
// cut, the counters keep what they counted, and a ledger from before partitions is moved into
// them when it opens.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/strings.h"
#include "ledger/ledger_test_util.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

using testing::At;

class LedgerPartitionTest : public LedgerBackendTest {};
INSTANTIATE_TEST_SUITE_P(Backends, LedgerPartitionTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

constexpr int64_t kDay = 86'400;

// The partitions of cost_records, by name, sorted; none on SQLite.
std::vector<std::string> Partitions(const std::string& target) {
  std::vector<std::string> out;
  if (!IsPostgresTarget(target)) return out;
  auto db = OpenDatabase(target);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (!db.ok()) return out;
  auto q = (*db)->Prepare(
      "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE "
      "i.inhparent = to_regclass('cost_records') ORDER BY 1");
  EXPECT_TRUE(q.ok()) << q.status().ToString();
  if (!q.ok()) return out;
  for (;;) {
    Result<bool> row = (*q)->Step();
    EXPECT_TRUE(row.ok()) << row.status().ToString();
    if (!row.ok() || !*row) break;
    out.push_back((*q)->Text(0));
  }
  return out;
}

double CountedUsd(Ledger& l) {
  Result<LedgerTotals> t = l.Totals();
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  double sum = 0;
  if (!t.ok()) return sum;
  for (const HolderTotal& h : t->holders) sum += h.allocated_usd;
  for (const NodeIdleTotal& n : t->idle) sum += n.idle_usd;
  return sum;
}

// The run's two hours written at the start of days 0, 1 and 2 of October 2026.
void WriteThreeDays(Ledger& l, const Run& run) {
  for (int64_t d = 0; d < 3; ++d) {
    const Window w = {At(d * kDay), At(d * kDay + 7200)};
    const Status s = l.Write(run.b.inventory, w, run.options.step, run.sink.records);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
}

size_t RecordsIn(Ledger& l, Window w) {
  Result<LedgerWindow> read = l.Read(w);
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  return read.ok() ? read->records.size() : 0;
}

TEST_P(LedgerPartitionTest, RetentionDropsTheDaysItPassesAndKeepsTheCounters) {
  const auto run = Attributed();
  const size_t per_day = run->sink.records.size();
  ASSERT_GT(per_day, 0u);
  const std::string target = NewTarget("retention");
  auto opened = Ledger::Open(target);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Ledger& l = **opened;
  WriteThreeDays(l, *run);
  WriteThreeDays(l, *run);  // again: the same records, in the partitions made the first time
  if (GetParam() == Backend::kPostgres) {
    EXPECT_EQ(Partitions(target),
              (std::vector<std::string>{"cost_records_2026_10_01", "cost_records_2026_10_02",
                                        "cost_records_2026_10_03"}));
  }
  const double counted = CountedUsd(l);
  ASSERT_GT(counted, 0);
  const Window all = {At(0), At(3 * kDay)};
  ASSERT_EQ(RecordsIn(l, all), 3 * per_day);

  // Into day 1's first hour: day 0 goes whole, day 1 keeps its steps from the cut on.
  size_t day1_before_cut = 0;
  for (const CostRecord& r : run->sink.records) {
    if (At(kDay) + r.step * run->options.step < At(kDay + 3600)) ++day1_before_cut;
  }
  ASSERT_GT(day1_before_cut, 0u);
  ASSERT_LT(day1_before_cut, per_day);
  Result<int64_t> removed = l.DeleteBefore(At(kDay + 3600));
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, static_cast<int64_t>(per_day + day1_before_cut));
  EXPECT_EQ(RecordsIn(l, {At(kDay + 3600), At(3 * kDay)}), 2 * per_day - day1_before_cut);
  Result<std::optional<Window>> span = l.Span();
  ASSERT_TRUE(span.ok() && *span);
  EXPECT_EQ((*span)->start, At(kDay + 3600));
  if (GetParam() == Backend::kPostgres) {
    EXPECT_EQ(Partitions(target),
              (std::vector<std::string>{"cost_records_2026_10_02", "cost_records_2026_10_03"}));
  }
  EXPECT_NEAR(CountedUsd(l), counted, 1e-9);

  // A write into a day retention dropped makes its partition again.
  const Window day0 = {At(0), At(7200)};
  ASSERT_TRUE(l.Write(run->b.inventory, day0, run->options.step, run->sink.records).ok());
  EXPECT_EQ(RecordsIn(l, day0), per_day);
  if (GetParam() == Backend::kPostgres) {
    EXPECT_EQ(Partitions(target).size(), 3u);
  }
}

TEST_P(LedgerPartitionTest, ALedgerFromBeforePartitionsIsMovedIntoThem) {
  if (GetParam() != Backend::kPostgres) GTEST_SKIP() << "SQLite keeps one table";
  const auto run = Attributed();
  const std::string target = NewTarget("unpartitioned");
  std::vector<CostRecord> before;
  {
    auto opened = Ledger::Open(target);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    WriteThreeDays(**opened, *run);
    Result<LedgerWindow> read = (*opened)->Read(Window{At(0), At(3 * kDay)});
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    before = read->records;
  }
  {
    // As schema version 4 left it: one table.
    auto db = OpenDatabase(target);
    ASSERT_TRUE(db.ok());
    for (const char* sql :
         {"CREATE TABLE plain (LIKE cost_records INCLUDING DEFAULTS, PRIMARY KEY (step_start_ms, "
          "unit_id, holder_id))",
          "INSERT INTO plain SELECT * FROM cost_records", "DROP TABLE cost_records",
          "ALTER TABLE plain RENAME TO cost_records",
          "ALTER TABLE cost_records RENAME CONSTRAINT plain_pkey TO cost_records_pkey",
          "UPDATE meta SET value = '4' WHERE key = 'schema_version'"}) {
      ASSERT_TRUE((*db)->Exec(sql).ok()) << sql;
    }
    ASSERT_TRUE(Partitions(target).empty());
  }
  auto opened = Ledger::Open(target);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(Partitions(target),
            (std::vector<std::string>{"cost_records_2026_10_01", "cost_records_2026_10_02",
                                      "cost_records_2026_10_03"}));
  Result<LedgerInfo> info = (*opened)->Info();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->schema_version, Ledger::kSchemaVersion);
  Result<LedgerWindow> read = (*opened)->Read(Window{At(0), At(3 * kDay)});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->records.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(read->records[i].step, before[i].step);
    EXPECT_TRUE(SameDouble(read->records[i].allocated_usd, before[i].allocated_usd)) << i;
  }
}

}  // namespace
}  // namespace gpucost::ledger
