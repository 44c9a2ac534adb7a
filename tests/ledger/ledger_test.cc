// The ledger on both backends (SQLite and a real PostgreSQL): what an engine run writes comes
// back the same (units, nodes, holders, records, unknown money as unknown); writing a window
// again replaces it; a killed writer leaves whole transactions only; ledgers newer than this
// gpucost are refused by name; the size is known. SQLite files that are not ledgers are refused.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/money.h"
#include "core/strings.h"
#include "ledger/ledger_sink.h"
#include "ledger/ledger_test_util.h"
#include "ledger/migrations.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

using testing::At;
using testing_util::TempDir;

class LedgerTest : public LedgerBackendTest {};
INSTANTIATE_TEST_SUITE_P(Backends, LedgerTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

TEST_P(LedgerTest, WhatIsWrittenComesBackTheSame) {
  const auto run = Attributed();
  const std::string path = NewTarget("ledger");
  {
    auto ledger = Ledger::Open(path);
    ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
    LedgerSink sink(**ledger, run->b.inventory, run->options.window, run->options.step);
    sink.Consume(run->sink.records);
    ASSERT_TRUE(sink.Commit().ok());
  }
  auto ledger = Ledger::Open(path);  // a new connection: what is on disk
  ASSERT_TRUE(ledger.ok());
  const Result<LedgerWindow> back = (*ledger)->Read(std::nullopt);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->window.start, At(0));
  EXPECT_EQ(back->window.end, At(7200));
  EXPECT_EQ(back->step, std::chrono::minutes(10));
  ASSERT_EQ(back->records.size(), run->sink.records.size());

  // Every record matches one written, field by field, by (step, unit identity, holder identity).
  const Inventory& in = run->b.inventory;
  const Inventory& out = back->inventory;
  auto key = [](const Inventory& inv, const CostRecord& r) {
    const GpuUnit& u = inv.units[r.unit];
    std::string k = std::to_string(r.step) + "/" + inv.nodes[u.node].name + "/" + u.gpu_uuid +
                    "/" + u.partition.ToString();
    if (!r.is_idle()) k += "/" + inv.holders[r.holder].pod;
    return k;
  };
  std::map<std::string, CostRecord> written;
  for (const CostRecord& r : run->sink.records) written[key(in, r)] = r;
  for (const CostRecord& r : back->records) {
    const auto it = written.find(key(out, r));
    ASSERT_NE(it, written.end()) << key(out, r);
    const CostRecord& w = it->second;
    EXPECT_EQ(r.is_idle(), w.is_idle());
    EXPECT_TRUE(SameDouble(r.gpu_hours, w.gpu_hours));
    EXPECT_TRUE(SameDouble(r.allocated_usd, w.allocated_usd)) << r.allocated_usd;
    EXPECT_TRUE(SameDouble(r.effective_usd, w.effective_usd));
    EXPECT_TRUE(SameDouble(r.list_usd, w.list_usd));
    EXPECT_TRUE(SameDouble(r.activity_gpu_hours, w.activity_gpu_hours));
    EXPECT_EQ(r.unmeasured_gpu_hours, w.unmeasured_gpu_hours);
    EXPECT_EQ(r.price_known, w.price_known);
    EXPECT_EQ(r.price_source, w.price_source);
    EXPECT_EQ(r.estimated, w.estimated);
  }
  // The unpriced node's money is unknown, not zero.
  bool saw_unknown = false;
  for (const CostRecord& r : back->records) {
    if (!r.price_known) {
      saw_unknown = true;
      EXPECT_TRUE(std::isnan(r.allocated_usd));
    }
  }
  EXPECT_TRUE(saw_unknown);
  // So is its cost rate in the newest step, where only the unpriced node's api-0 holds a GPU
  // (the gauge gpucost_allocated_usd_per_hour is absent, never 0).
  const Result<LedgerLatest> latest = (*ledger)->Latest({});
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  ASSERT_EQ(latest->holders.size(), 1u);
  EXPECT_EQ(latest->holders[0].namespace_name, "web");
  EXPECT_NEAR(latest->holders[0].gpus, 0.5, 1e-12);
  EXPECT_TRUE(std::isnan(latest->holders[0].usd_per_hour)) << latest->holders[0].usd_per_hour;
  // Identity survives: node metadata, the unit's fraction, the holder's workload and labels.
  const Holder* train = nullptr;
  for (const Holder& h : out.holders) {
    if (h.pod == "train-abc") train = &h;
  }
  ASSERT_NE(train, nullptr);
  EXPECT_EQ(train->workload, "train");
  EXPECT_EQ(train->workload_kind, "Job");
  EXPECT_EQ(train->team, "research");
  EXPECT_EQ(train->labels.Get("app.kubernetes.io/name"), "trainer");
  bool saw_replica = false;
  for (const GpuUnit& u : out.units) {
    const Node& n = out.nodes[u.node];
    if (n.name == "n1") {
      EXPECT_EQ(n.capacity_type, "spot");
      EXPECT_EQ(n.gpu_model, "NVIDIA A100-SXM4-80GB");
    }
    if (u.partition.kind == PartitionKind::kReplica) {
      saw_replica = true;
      EXPECT_DOUBLE_EQ(u.fraction, 0.5);
      EXPECT_EQ(n.sharing, SharingMode::kTimeSlicing);
      EXPECT_EQ(n.replicas, 2);
    }
  }
  EXPECT_TRUE(saw_replica);
  // Conservation on the way back: allocated + idle = what the priced nodes cost.
  CompensatedSum total;
  for (const CostRecord& r : back->records) {
    if (r.price_known) total.Add(r.allocated_usd);
  }
  EXPECT_NEAR(total.value(), run->summary.node_cost_usd, 1e-9);
  EXPECT_NEAR(total.value(), 2 * 2.5, 1e-9);  // one GPU on n1 for 2 h at $2.50
}

TEST_P(LedgerTest, WritingAWindowAgainReplacesItAndPartsCanBeRead) {
  const auto run = Attributed();
  auto ledger = Ledger::Open(NewTarget("l"));
  ASSERT_TRUE(ledger.ok());
  Ledger& l = **ledger;
  const Inventory& inv = run->b.inventory;
  ASSERT_TRUE(l.Write(inv, run->options.window, run->options.step, run->sink.records).ok());
  ASSERT_TRUE(l.Write(inv, run->options.window, run->options.step, run->sink.records).ok());
  Result<LedgerInfo> info = l.Info();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->records, static_cast<int64_t>(run->sink.records.size()));
  EXPECT_EQ(info->steps_s, std::vector<int64_t>({600}));

  // Late data: the same window re-attributed with other money replaces the old rows.
  std::vector<CostRecord> again = run->sink.records;
  for (CostRecord& r : again) {
    if (r.price_known) r.allocated_usd *= 2;
  }
  ASSERT_TRUE(l.Write(inv, run->options.window, run->options.step, again).ok());
  Result<LedgerWindow> all = l.Read(std::nullopt);
  ASSERT_TRUE(all.ok());
  CompensatedSum total;
  for (const CostRecord& r : all->records) {
    if (r.price_known) total.Add(r.allocated_usd);
  }
  EXPECT_NEAR(total.value(), 10, 1e-9);

  // The second hour alone: steps renumbered from its start.
  const Result<LedgerWindow> hour = l.Read(Window{At(3600), At(7200)});
  ASSERT_TRUE(hour.ok()) << hour.status().ToString();
  ASSERT_FALSE(hour->records.empty());
  int64_t max_step = 0;
  for (const CostRecord& r : hour->records) {
    EXPECT_GE(r.step, 0);
    max_step = std::max(max_step, r.step);
  }
  EXPECT_EQ(max_step, 5);
  EXPECT_EQ(hour->records.size() * 2, all->records.size());

  // A window that starts between steps is refused.
  const Result<LedgerWindow> off = l.Read(Window{At(300), At(7200)});
  ASSERT_FALSE(off.ok());
  EXPECT_NE(off.status().ToString().find("step boundary"), std::string::npos);

  // Another step length in the same window is refused with both lengths named.
  ASSERT_TRUE(l.Write(inv, {At(7200), At(9000)}, std::chrono::minutes(5), run->sink.records).ok());
  const Result<LedgerWindow> mixed = l.Read(std::nullopt);
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().ToString().find("300 s, 600 s"), std::string::npos)
      << mixed.status().ToString();
}

// A ledger has one grid of steps. A write off it (a window that starts or ends between the
// ledger's steps) would keep the old step across its start beside the new one, billing that time
// twice, so it is refused with the window on the grid to write instead; nothing is changed. A read
// that ends inside a step would cost the whole step, time past its end included: refused too,
// except past the newest record, where no step runs across the end.
TEST_P(LedgerTest, AWindowOffTheGridOfStepsIsRefusedToWriteAndToEndAReadIn) {
  const auto run = Attributed();
  auto ledger = Ledger::Open(NewTarget("l"));
  ASSERT_TRUE(ledger.ok());
  Ledger& l = **ledger;
  const Inventory& inv = run->b.inventory;
  const Duration step = run->options.step;  // 10 minutes
  ASSERT_TRUE(l.Write(inv, run->options.window, step, run->sink.records).ok());
  const Result<std::optional<int64_t>> grid = l.GridOffset(step);
  ASSERT_TRUE(grid.ok());
  ASSERT_TRUE(grid->has_value());
  EXPECT_EQ(**grid, UnixMs(run->options.window.start) % step.count());
  EXPECT_FALSE(l.GridOffset(std::chrono::minutes(1))->has_value());  // no records of that step

  const Result<LedgerInfo> before = l.Info();
  ASSERT_TRUE(before.ok());
  const Status off = l.Write(inv, {At(300), At(3300)}, step, {});
  ASSERT_FALSE(off.ok());
  EXPECT_NE(off.ToString().find("not on the ledger's grid of 600 s steps: write "
                                "2026-10-01T00:00:00Z to 2026-10-01T01:00:00Z instead"),
            std::string::npos)
      << off.ToString();
  const Status off_end = l.Write(inv, {At(0), At(3300)}, step, {});
  ASSERT_FALSE(off_end.ok());
  EXPECT_EQ(l.Info()->records, before->records);
  // On the grid, past the ledger's end too, a write is taken.
  EXPECT_TRUE(l.Write(inv, {At(7200), At(7800)}, step, {}).ok());

  const Result<LedgerWindow> cut = l.Read(Window{At(0), At(3900)});
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().ToString().find("ends inside the step 2026-10-01T01:00:00Z to "
                                         "2026-10-01T01:10:00Z"),
            std::string::npos)
      << cut.status().ToString();
  EXPECT_TRUE(l.Read(Window{At(0), At(3600)}).ok());
  const Result<LedgerWindow> beyond = l.Read(Window{At(0), At(99999)});
  EXPECT_TRUE(beyond.ok()) << beyond.status().ToString();
}

// A ledger written before writes kept to one grid may hold steps of two grids: a read over both
// is refused (a reader going by steps would put two in one) and says what to do.
TEST_P(LedgerTest, AReadOverStepsOfTwoGridsIsRefused) {
  const auto run = Attributed();
  const std::string target = NewTarget("g");
  {
    auto ledger = Ledger::Open(target);
    ASSERT_TRUE(ledger.ok());
    ASSERT_TRUE(
        (*ledger)
            ->Write(run->b.inventory, run->options.window, run->options.step, run->sink.records)
            .ok());
  }
  {
    // The second hour's steps, 30 s later: as an off-grid write used to leave them.
    auto db = OpenDatabase(target);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ASSERT_TRUE((*db)
                    ->Exec(StrCat("UPDATE cost_records SET step_start_ms = step_start_ms + 30000 "
                                  "WHERE step_start_ms >= ",
                                  UnixMs(At(3600))))
                    .ok());
  }
  auto ledger = Ledger::Open(target);
  ASSERT_TRUE(ledger.ok());
  const Result<LedgerWindow> both = (*ledger)->Read(std::nullopt);
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().ToString().find("steps on two grids"), std::string::npos)
      << both.status().ToString();
  EXPECT_TRUE((*ledger)->Read(Window{At(0), At(3600)}).ok());
}

// Known allocated money of the holders' records and of the idle ones.
std::pair<double, double> Money(const std::vector<CostRecord>& records) {
  double held = 0, idle = 0;
  for (const CostRecord& r : records) {
    if (!r.price_known || !std::isfinite(r.allocated_usd)) continue;
    (r.is_idle() ? idle : held) += r.allocated_usd;
  }
  return {held, idle};
}

std::pair<double, double> Money(const LedgerTotals& t) {
  double held = 0, idle = 0;
  for (const HolderTotal& h : t.holders) held += h.allocated_usd;
  for (const NodeIdleTotal& n : t.idle) idle += n.idle_usd;
  return {held, idle};
}

TEST_P(LedgerTest, ARewriteReplacesTheWholeWindowAndTheCountersFollowIt) {
  const auto run = Attributed();
  auto ledger = Ledger::Open(NewTarget("r"));
  ASSERT_TRUE(ledger.ok());
  Ledger& l = **ledger;
  const Inventory& inv = run->b.inventory;
  ASSERT_TRUE(l.Write(inv, run->options.window, run->options.step, run->sink.records).ok());
  const auto [held, idle] = Money(run->sink.records);
  ASSERT_GT(held, 0);
  ASSERT_GT(idle, 0);
  EXPECT_NEAR(Money(*l.Totals()).first, held, 1e-9);
  EXPECT_NEAR(Money(*l.Totals()).second, idle, 1e-9);

  // Late data: the train pod's holding was never there. Its records must go, not linger.
  std::vector<CostRecord> without;
  for (const CostRecord& r : run->sink.records) {
    if (r.is_idle() || inv.holders[r.holder].pod != "train-abc") without.push_back(r);
  }
  ASSERT_LT(without.size(), run->sink.records.size());
  ASSERT_TRUE(l.Write(inv, run->options.window, run->options.step, without).ok());
  const Result<LedgerWindow> back = l.Read(std::nullopt);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->records.size(), without.size());
  for (const CostRecord& r : back->records) {
    if (!r.is_idle()) {
      EXPECT_NE(back->inventory.holders[r.holder].pod, "train-abc");
    }
  }
  EXPECT_NEAR(Money(*l.Totals()).first, Money(without).first, 1e-9);
  EXPECT_NEAR(Money(*l.Totals()).second, Money(without).second, 1e-9);

  // Retention takes records out of the ledger, never out of the counters.
  const Result<int64_t> gone = l.DeleteBefore(At(3600));
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_GT(*gone, 0);
  EXPECT_EQ(l.Info()->records, static_cast<int64_t>(without.size()) - *gone);
  EXPECT_EQ(l.Info()->span->start, At(3600));
  EXPECT_NEAR(Money(*l.Totals()).first, Money(without).first, 1e-9);
  EXPECT_NEAR(Money(*l.Totals()).second, Money(without).second, 1e-9);
  EXPECT_EQ(*l.DeleteBefore(At(3600)), 0);
}

TEST_P(LedgerTest, AKilledWriterLeavesWholeTransactionsOnly) {
  const std::string target = NewTarget("k");
  const auto run = Attributed();
  const size_t per_window = run->sink.records.size();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto ledger = Ledger::Open(target);
    if (!ledger.ok()) _exit(3);
    for (int64_t i = 0;; ++i) {  // one window after another until killed
      const Window w{At(7200 * i), At(7200 * (i + 1))};
      if (!(*ledger)->Write(run->b.inventory, w, run->options.step, run->sink.records).ok()) {
        _exit(4);
      }
    }
  }
  // Let it write for a while (watching from a connection of our own), then kill it mid-stream.
  for (int i = 0; i < 500; ++i) {
    usleep(10'000);
    auto watcher = Ledger::Open(target);
    if (!watcher.ok()) continue;
    const Result<LedgerInfo> seen = (*watcher)->Info();
    if (seen.ok() && seen->records > 50 * static_cast<int64_t>(per_window)) break;
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself: " << status;

  auto ledger = Ledger::Open(target);
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  const Result<LedgerInfo> info = (*ledger)->Info();
  ASSERT_TRUE(info.ok());
  EXPECT_GT(info->records, 0);
  EXPECT_EQ(info->records % static_cast<int64_t>(per_window), 0) << info->records;
  // And the writing goes on where it stopped.
  const int64_t windows = info->records / static_cast<int64_t>(per_window);
  ASSERT_TRUE((*ledger)
                  ->Write(run->b.inventory, {At(7200 * windows), At(7200 * (windows + 1))},
                          run->options.step, run->sink.records)
                  .ok());
  EXPECT_EQ((*ledger)->Info()->records, (windows + 1) * static_cast<int64_t>(per_window));
}

TEST_P(LedgerTest, ALedgerNewerThanThisGpucostIsRefusedByName) {
  const std::string target = NewTarget("newer");
  {
    auto ledger = Ledger::Open(target);
    ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
    EXPECT_EQ((*ledger)->Info()->schema_version, Ledger::kSchemaVersion);
  }
  {
    // A later gpucost migrated it: only the version it records matters.
    auto db = OpenDatabase(target);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    EXPECT_EQ(*SchemaVersion(**db), Ledger::kSchemaVersion);
    ASSERT_TRUE((*db)->Exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'").ok());
  }
  const auto refused = Ledger::Open(target);
  ASSERT_FALSE(refused.ok());
  const std::string message = refused.status().ToString();
  EXPECT_NE(message.find("schema version 99"), std::string::npos) << message;
  EXPECT_NE(message.find("upgrade gpucost"), std::string::npos) << message;
  EXPECT_NE(message.find(target), std::string::npos) << message;
}

TEST_P(LedgerTest, ItsSizeIsKnownAndGrowsWithWhatIsWritten) {
  const auto run = Attributed();
  auto ledger = Ledger::Open(NewTarget("size"));
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  const Result<int64_t> empty = (*ledger)->SizeBytes();
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_GT(*empty, 0);  // the schema
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE((*ledger)
                    ->Write(run->b.inventory, {At(7200 * i), At(7200 * (i + 1))},
                            run->options.step, run->sink.records)
                    .ok());
  }
  const Result<int64_t> full = (*ledger)->SizeBytes();
  ASSERT_TRUE(full.ok());
  EXPECT_GT(*full, *empty + 50 * 12 * 20);  // some bytes per record at least
}

// A measurement, not run by default (docs/ledger.md quotes it):
//   ledger_tests --gtest_also_run_disabled_tests --gtest_filter='*ManyRecords*'
// writes $GPUCOST_BENCH_RECORDS (default 100,000) records in one write, then reads them back.
TEST_P(LedgerTest, DISABLED_WritesAndReadsManyRecords) {
  const char* env = std::getenv("GPUCOST_BENCH_RECORDS");
  const size_t wanted = env != nullptr ? std::strtoull(env, nullptr, 10) : 100'000;
  const auto run = Attributed();
  // The run's records again and again, each copy 12 steps (one run's window) later.
  std::vector<CostRecord> records;
  for (int64_t copy = 0; records.size() < wanted; ++copy) {
    for (CostRecord r : run->sink.records) {
      r.step += copy * 12;
      if (records.size() < wanted) records.push_back(r);
    }
  }
  const int64_t steps = records.back().step + 1;
  const Window window{At(0), At(600 * steps)};
  auto ledger = Ledger::Open(NewTarget("bench"));
  ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE((*ledger)->Write(run->b.inventory, window, run->options.step, records).ok());
  const auto t1 = std::chrono::steady_clock::now();
  const Result<int64_t> once = (*ledger)->SizeBytes();
  ASSERT_TRUE((*ledger)->Write(run->b.inventory, window, run->options.step, records).ok());
  const auto t2 = std::chrono::steady_clock::now();
  const Result<LedgerWindow> back = (*ledger)->Read(std::nullopt);
  const auto t3 = std::chrono::steady_clock::now();
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->records.size(), records.size());
  const Result<int64_t> twice = (*ledger)->SizeBytes();
  ASSERT_TRUE(once.ok() && twice.ok());
  const auto s = [](auto d) { return std::chrono::duration<double>(d).count(); };
  std::printf(
      "%s: %zu records: write %.2f s (%.0f/s), write again %.2f s, read %.2f s; %.1f MB after "
      "one write, %.1f MB after two\n",
      GetParam() == Backend::kSqlite ? "sqlite" : "postgres", records.size(), s(t1 - t0),
      static_cast<double>(records.size()) / s(t1 - t0), s(t2 - t1), s(t3 - t2),
      static_cast<double>(*once) / 1e6, static_cast<double>(*twice) / 1e6);
}

// SQLite only: what a path can be that a URI cannot.
TEST(Ledger, RefusesFilesItCannotUseByName) {
  TempDir dir;
  const std::string junk = dir.Write("junk.db", std::string(4096, 'x'));
  const auto bad = Ledger::Open(junk);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find(junk), std::string::npos) << bad.status().ToString();

  const std::string newer = (dir.path() / "newer.db").string();
  ASSERT_TRUE(Ledger::Open(newer).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const auto refused = Ledger::Open(newer);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().ToString().find("schema version 99"), std::string::npos);

  const auto nowhere = Ledger::Open((dir.path() / "no/such/dir/l.db").string());
  ASSERT_FALSE(nowhere.ok());
  EXPECT_NE(nowhere.status().ToString().find("no/such/dir"), std::string::npos);

  auto empty = Ledger::Open((dir.path() / "empty.db").string());
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE((*empty)->Read(std::nullopt).ok());
}

}  // namespace
}  // namespace gpucost::ledger
