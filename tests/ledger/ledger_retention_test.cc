// Retention on both backends: records before the cutoff go with their roll-ups, and so do the
// holders, units and nodes no record names any more (pods churn: thousands of holders a day);
// what a record still names stays, carried-over records included; another Ledger of the same
// ledger that cached an id retention removed writes it again rather than pointing nowhere; a
// ledger from before (schema 6) gets the same retention.
#include <gtest/gtest.h>

#include <set>

#include "attribution/cluster_builder.h"
#include "ledger/ledger_test_util.h"

namespace gpucost::ledger {
namespace {

using testing::At;

constexpr int64_t kRetentionStepS = 600;
constexpr Duration kRetentionStep = std::chrono::seconds(kRetentionStepS);

// n1 with GPU-1 (train-a holds it the first hour, then it is idle) and GPU-2 (serve-b holds it
// throughout); n2, gone after the first hour, with GPU-3 held by api-c meanwhile.
struct RetentionFleet {
  testing::ClusterBuilder b;
  UnitIndex g1, g2, g3;
  HolderIndex a, bh, c;
  RetentionFleet() {
    const NodeIndex n1 = b.AddNode("n1");
    const NodeIndex n2 = b.AddNode("n2");
    g1 = b.AddWhole(n1, "GPU-1");
    g2 = b.AddWhole(n1, "GPU-2");
    g3 = b.AddWhole(n2, "GPU-3");
    a = b.AddHolder("ml", "train-a");
    bh = b.AddHolder("ml", "serve-b");
    c = b.AddHolder("web", "api-c");
  }
  // The records of step k (10 minutes from At(0)), as their own window's step 0.
  std::vector<CostRecord> Step(int64_t k, bool a_holds) const {
    const auto record = [](UnitIndex u, HolderIndex h) {
      CostRecord r;
      r.unit = u;
      r.holder = h;
      r.gpu_hours = 1.0 / 6;
      r.allocated_usd = 0.5;
      r.effective_usd = 0.25;
      r.unmeasured_gpu_hours = 0;
      r.activity_gpu_hours = 0.5 / 6;
      r.price_source = PriceSource::kCatalog;
      return r;
    };
    std::vector<CostRecord> out = {record(g1, a_holds ? a : kNoIndex), record(g2, bh)};
    if (k < 6) out.push_back(record(g3, c));
    return out;
  }
  // Writes steps [from, to) one window each, as serve writes its chunks.
  void Write(Ledger& l, int64_t from, int64_t to) const {
    for (int64_t k = from; k < to; ++k) {
      const Window w{At(k * kRetentionStepS), At((k + 1) * kRetentionStepS)};
      const Status s = l.Write(b.inventory, w, kRetentionStep, Step(k, k < 6 || k >= 24));
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
  }
};

std::set<std::string> PodsNamed(Ledger& l) {
  std::set<std::string> out;
  Result<LedgerWindow> w = l.Read(std::nullopt);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return out;
  for (const CostRecord& r : w->records) {
    if (!r.is_idle()) out.insert(w->inventory.holders[r.holder].pod);
  }
  return out;
}

class LedgerRetentionTest : public LedgerBackendTest {};
INSTANTIATE_TEST_SUITE_P(Backends, LedgerRetentionTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

TEST_P(LedgerRetentionTest, RemovesTheHoldersUnitsAndNodesNoRecordNames) {
  const std::string target = NewTarget("retention");
  auto writer = Ledger::Open(target);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  RetentionFleet f;
  f.Write(**writer, 0, 24);  // four hours
  Result<LedgerInfo> info = (*writer)->Info();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->holders, 3);
  EXPECT_EQ(info->units, 3);
  EXPECT_EQ(info->nodes, 2);
  const LedgerTotals before = *(*writer)->Totals();

  // Another process's retention (a second serve of the ledger). train-a and api-c were named in
  // the first hour only, GPU-3 and n2 too; a write keeps what it names for an hour past its end
  // (moved hourly, not every step), here 1h10 from the first write: kept by a cutoff at 1h,
  // gone at 1h20.
  auto other = Ledger::Open(target);
  ASSERT_TRUE(other.ok());
  Result<int64_t> gone = (*other)->DeleteBefore(At(3600));
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_EQ(*gone, 18) << "6 steps of 3 records";
  EXPECT_EQ((*other)->Info()->holders, 3);
  gone = (*other)->DeleteBefore(At(4800));
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_EQ(*gone, 4) << "2 steps of 2 records";
  info = (*other)->Info();
  EXPECT_EQ(info->holders, 1) << "serve-b only";
  EXPECT_EQ(info->units, 2);
  EXPECT_EQ(info->nodes, 1);
  EXPECT_EQ(PodsNamed(**other), std::set<std::string>{"serve-b"});
  // The counters keep what they counted.
  const LedgerTotals after = *(*other)->Totals();
  ASSERT_EQ(after.holders.size(), before.holders.size());
  for (size_t i = 0; i < after.holders.size(); ++i) {
    EXPECT_DOUBLE_EQ(after.holders[i].allocated_usd, before.holders[i].allocated_usd);
  }

  // train-a comes back: the writer had its id cached, which retention removed; the write names
  // it anew rather than pointing nowhere.
  f.Write(**writer, 24, 26);
  EXPECT_EQ(PodsNamed(**other), (std::set<std::string>{"serve-b", "train-a"}));
  EXPECT_EQ((*other)->Info()->holders, 2);
  // And the writer's own retention forgets what it removed too.
  ASSERT_TRUE((*writer)->DeleteBefore(At(26 * kRetentionStepS)).ok());
  EXPECT_EQ((*writer)->Info()->records, 0);
  EXPECT_EQ((*writer)->Info()->holders, 2) << "both named within the hour";
  f.Write(**writer, 26, 27);
  EXPECT_EQ(PodsNamed(**writer), (std::set<std::string>{"serve-b", "train-a"}));
}

TEST_P(LedgerRetentionTest, KeepsWhatCarriedOverRecordsName) {
  const std::string target = NewTarget("carried");
  auto l = Ledger::Open(target);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  RetentionFleet f;
  f.Write(**l, 0, 6);  // the first hour, then no data: a hole serve did not watch
  WriteGaps carry{{{{At(3600), At(3 * 3600)}, true}}, 0};
  WriteScope scope;
  scope.clusters = {"c1"};
  ASSERT_TRUE(
      (*l)->Write(Inventory{}, {At(3600), At(3 * 3600)}, kRetentionStep, {}, &carry, scope).ok());
  ASSERT_EQ(carry.carried_steps, 12);
  // Records until 3h name train-a and api-c, carried: retention at 2h10 keeps them.
  ASSERT_TRUE((*l)->DeleteBefore(At(7800)).ok());
  EXPECT_EQ((*l)->Info()->holders, 3);
  EXPECT_EQ(PodsNamed(**l), (std::set<std::string>{"api-c", "serve-b", "train-a"}));
  ASSERT_TRUE((*l)->DeleteBefore(At(3 * 3600)).ok());
  EXPECT_EQ((*l)->Info()->records, 0);
  EXPECT_EQ((*l)->Info()->holders, 0);
  EXPECT_EQ((*l)->Info()->units, 0);
  EXPECT_EQ((*l)->Info()->nodes, 0);
}

TEST_P(LedgerRetentionTest, ALedgerFromBeforeIsPrunedOnceRetentionPassesItsNewestStep) {
  const std::string target = NewTarget("before");
  RetentionFleet f;
  {
    auto l = Ledger::Open(target);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    f.Write(**l, 0, 12);
    // As schema 6 left it: no last steps.
    ASSERT_TRUE((*l)->ExecForTesting("DROP TABLE holder_last_steps; DROP TABLE unit_last_steps; "
                                     "UPDATE meta SET value = '6' WHERE key = 'schema_version'")
                    .ok());
  }
  auto l = Ledger::Open(target);  // migrates: every row's last step is the newest step, 1h50
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  ASSERT_TRUE((*l)->DeleteBefore(At(6600)).ok());
  EXPECT_EQ((*l)->Info()->holders, 3) << "the newest step still names its holders";
  ASSERT_TRUE((*l)->DeleteBefore(At(6601)).ok());
  EXPECT_EQ((*l)->Info()->records, 0);
  EXPECT_EQ((*l)->Info()->holders, 0);
  EXPECT_EQ((*l)->Info()->nodes, 0);
}

}  // namespace
}  // namespace gpucost::ledger
