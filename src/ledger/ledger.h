// The cost ledger: CostRecords kept durably in SQLite (one file, WAL) or PostgreSQL (a
// postgresql:// URI), with the units and holders they refer to, so that any sink can be fed again
// later without the inputs or the engine (docs/ledger.md). Writes are idempotent per (step start,
// unit, holder): writing a window again (late data re-attributed) replaces its records, never adds
// to them. Reading a window back gives an Inventory of the units and holders it mentions and the
// records, ready for the same sinks an engine run feeds. One Ledger per thread; several processes
// may read while one writes (on PostgreSQL, several may also write).
//
//   GPUCOST_ASSIGN_OR_RETURN(auto ledger, Ledger::Open("costs.db"));
//   LedgerSink sink(*ledger, inventory, window, step);   // a CostSink (ledger/ledger_sink.h)
//   Attribute(inventory, usage, price, options, sink);
//   GPUCOST_RETURN_IF_ERROR(sink.Commit());
//   GPUCOST_ASSIGN_OR_RETURN(LedgerWindow w, ledger->Read(window));
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attribution/attributor.h"
#include "attribution/inventory_union.h"
#include "core/result.h"
#include "ledger/ledger_summaries.h"
#include "ledger/ledger_types.h"
#include "model/inventory.h"
#include "report/row_accumulator.h"

namespace gpucost::ledger {

class Database;
class RollupCache;
class Statement;
struct PeriodCheck;
struct StoredRollup;

class Ledger {
 public:
  // Opens (creating and migrating when needed) the ledger at `target`: a SQLite file path, or a
  // postgresql:// or postgres:// URI (a libpq connection URI; the password may also come from
  // PGPASSWORD or ~/.pgpass). Errors name the target, never its password: not a database, a
  // newer schema than this gpucost knows, no permission, disk full, no server.
  static Result<std::unique_ptr<Ledger>> Open(const std::string& target);
  // The same for commands that only read: a SQLite path with no file is NotFound (naming the
  // path and what makes a ledger) rather than a new empty ledger left behind.
  static Result<std::unique_ptr<Ledger>> OpenExisting(const std::string& target);
  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Writes `records` of an engine run over `window` cut in `step`s, whose indexes refer to
  // `inventory`, in one transaction: all or nothing. The window's records of the write's
  // clusters (see WriteScope) are replaced; other clusters' are untouched. With `gaps`, also fills
  // their steps (see WriteGaps) in the same transaction.
  Status Write(const Inventory& inventory, Window window, Duration step,
               std::span<const CostRecord> records, WriteGaps* gaps = nullptr,
               const WriteScope& scope = {});

  // Every cluster the ledger holds, by name.
  Result<std::vector<ScopeState>> Scopes();
  // Takes or renews the writer lease of `scope.clusters` for `scope.writer`, all or none, in one
  // transaction: nullopt when taken, else the cluster whose lease another writer holds.
  Result<std::optional<ScopeState>> TakeLease(const WriteScope& scope);
  // Gives the writer's leases of `scope.clusters` back (a clean stop), so that a standby takes
  // over at its next cycle.
  Status ReleaseLease(const WriteScope& scope);

  // How far a continuous writer (serve) has attributed `scope.clusters`, whether or not the
  // source had data: where it resumes, and where what it did not watch begins; with the pool
  // draws of holdings running at the end of its last write (AttributionSummary::open_draws, by
  // identity), so that a writer that restarts draws those holdings' units as the one before it
  // would have. Per cluster, in one transaction (a writer's lease is checked as Write does); the
  // point only moves forward.
  Status SetAttributedThrough(const WriteScope& scope, Instant t,
                              std::span<const KeyedDraw> open_draws);
  // The pool draws kept for `clusters` (their nodes'); empty when none were kept.
  Result<std::vector<KeyedDraw>> OpenDraws(std::span<const std::string> clusters);

  // The records whose steps start in `window` (the whole ledger when nullopt). The window's
  // start must fall on a step boundary of the records; a window holding records of two step
  // lengths is an error that says which. A window beyond the ledger's first or last step is
  // clipped to them by whole steps (whole buckets), and LedgerWindow::window says so.
  Result<LedgerWindow> Read(std::optional<Window> window, const ReadOptions& options = {});

  // Roll-ups: rolls every whole 5 minutes (and hour, and day) that ends at or before `before`
  // and was not rolled yet, 5 minutes per transaction; a write into a rolled period later rolls
  // it again. Gives how many whole hours it rolled.
  Result<int64_t> Seal(Instant before);
  // The end of what Seal has rolled; nullopt before the first Seal.
  Result<std::optional<Instant>> SealedThrough();

  // What the ledger holds; counts every record (a scan): not for every cycle of a loop.
  Result<LedgerInfo> Info();
  // The first step start and the last step end (nullopt: empty), from the index alone.
  Result<std::optional<Window>> Span();
  // The step of the newest record (0 when empty), from the index alone.
  Result<Duration> NewestStep();
  // Where the ledger's steps of length `step` start: the newest record's step start modulo the
  // step (0 for steps on multiples of the step since the Unix epoch, as serve writes them);
  // nullopt when its newest record is of another step length, or it has none. A write of that
  // step must start and end on this grid (Write), so that one step never overlaps another and
  // every reader's steps line up.
  Result<std::optional<int64_t>> GridOffset(Duration step);
  // Totals, gauges and team costs of `clusters`; of every cluster when empty.
  Result<LedgerTotals> Totals(std::span<const std::string> clusters = {});
  // Each cluster's gauges are of its newest step; step_start is the newest of them.
  Result<LedgerLatest> Latest(std::span<const std::string> clusters = {});
  // Allocated cost (known prices) and unpriced hours per team or cluster of the steps in `window`.
  Result<std::map<std::string, CostSum>> Costs(Window window,
                                               std::span<const std::string> clusters = {},
                                               CostGroup by = CostGroup::kTeam);
  // Looks for damage (docs/ledger.md, "A damaged ledger"): the backend's check of its storage
  // (SQLite's quick_check, which reads every page), and with `whole` each rolled period against
  // its roll-up and its records (a read of every record). Reads check what they read anyway,
  // and fail with DataLoss.
  Result<LedgerCheck> Check(bool whole);
  // Bytes the ledger takes: SQLite its file and WAL; PostgreSQL its tables with their indexes.
  Result<int64_t> SizeBytes();

  // Retention: removes the records whose steps start before `t` and their roll-ups, then the
  // holders, units and nodes no record names any more (docs/ledger.md, "Guarantees"); the
  // counters of Totals() keep what they counted. Gives how many records went.
  Result<int64_t> DeleteBefore(Instant t);

  // For tests only: runs `sql` (a pragma, such as SQLite's max_page_count to make a full disk)
  // on this ledger's own connection.
  Status ExecForTesting(std::string_view sql);

  // The target it was opened with, as RedactUri shows it (password ***): safe to print.
  const std::string& path() const { return path_; }

  // Time this Ledger's transactions waited to begin, for other writers of the ledger to finish
  // theirs (they take turns: docs/ledger.md, "Many clusters").
  Duration lock_wait() const { return lock_wait_; }

  static constexpr int kSchemaVersion = 9;
  static constexpr int64_t kFiveMinutesMs = 300'000;
  static constexpr int64_t kHourMs = 3'600'000;
  static constexpr int64_t kDayMs = 24 * kHourMs;

 private:
  explicit Ledger(std::unique_ptr<Database> db);
  // Begins a write transaction (taking the ledger's write lock), counting the wait.
  Status Begin();
  Result<LedgerWindow> ReadSnapshot(std::optional<Window> window, const ReadOptions& options);
  // InvalidArgument where a read of [lo, hi) would cut a step the ledger holds with steps beside
  // it inside the window (or after its end).
  Status CheckEdges(int64_t lo, int64_t hi);
  // The checks of the periods inside [lo, hi) (of `period_ms` only when not 0), and a failed
  // one (ledger_checks.cc).
  Result<std::vector<PeriodCheck>> Checks(int64_t lo, int64_t hi, int64_t period_ms = 0);
  Status CheckRolled(const PeriodCheck* check, int64_t period_ms, int64_t start_ms, int64_t records,
                     double usd) const;
  Status Damaged(std::string_view what) const;
  // "<target>: <what>: <the backend's message>".
  Status Fail(std::string_view what, const Status& cause) const;
  // Adds `sign` x the window's records of `clusters` to the running totals.
  Status AddToTotals(int64_t start_ms, int64_t end_ms, double sign,
                     std::span<const std::string> clusters);
  Status WriteOnce(const Inventory& inventory, Window window, Duration step,
                   std::span<const CostRecord> records, WriteGaps* gaps, const WriteScope& scope);
  // Inside Write's transaction (ledger_scopes.cc): makes sure each of `clusters` has a scope,
  // with its source where `sources` (by cluster) names one, and with `scope.writer`'s lease.
  Status ClaimScopes(std::span<const std::string> clusters,
                     const std::map<std::string, std::string>& sources, const WriteScope& scope);
  Status NoteNewestSteps(const std::map<std::string, int64_t>& newest, int64_t step_ms);
  // Latest's gauges of one step, of `cluster` (all when empty), added to `out`.
  Status AddGauges(Window step, const std::string& cluster, LedgerLatest& out);
  // Inside Write's transaction (ledger_gaps.cc): removes the window's records of `clusters`
  // outside `gaps`, and fills the gaps' empty steps from the step before each.
  Status ClearOutsideGaps(int64_t start_ms, int64_t end_ms, const WriteGaps* gaps,
                          std::span<const std::string> clusters);
  Status CarryOver(int64_t step_ms, WriteGaps& gaps, std::span<const std::string> clusters);
  // PostgreSQL's records are partitioned by UTC day (ledger_partitions.cc). Inside a write's
  // transaction: makes the partitions of the days [start_ms, end_ms) touches.
  Status MakePartitions(int64_t start_ms, int64_t end_ms);
  // Inside DeleteBefore's transaction: drops the partitions that end by `t_ms`.
  Status DropPartitionsBefore(int64_t t_ms);
  // A meta value that is a number; nullopt when absent.
  Result<std::optional<int64_t>> MetaInt(std::string_view key);
  Status SetMetaInt(std::string_view key, int64_t value);
  Result<std::optional<std::string>> MetaText(std::string_view key);
  Status SetMetaText(std::string_view key, const std::string& value);
  Result<int64_t> UnitId(const Inventory& inventory, UnitIndex unit);
  Result<int64_t> HolderId(const Holder& holder);
  // What records name, for retention (ledger_retention.cc). Inside a write's transaction: forgets
  // the ids cached here when retention (of any process) removed rows since they were cached.
  Status CheckCachedIds();
  void ForgetCachedIds();
  // Inside a write's transaction: the records written name these units and holders in steps
  // that start before `last_step_ms`; their last steps are moved up to it where lower.
  Status KeepLastSteps(std::span<const int64_t> units, std::span<const int64_t> holders,
                       int64_t last_step_ms);
  // Inside CarryOver: the units and holders of the records at `step_start_ms` are named there.
  Status KeepCarriedLastSteps(int64_t step_start_ms);
  // Inside DeleteBefore's transaction: removes the holders and units whose last step is before
  // `t_ms`, then the nodes left without units. Gives how many rows went.
  Result<int64_t> RemoveUnnamed(int64_t t_ms);
  // Roll-ups (ledger_rollups.cc), inside an open transaction: (re)computes one period's
  // roll-up, and those of the sealed periods that [start_ms, end_ms) touches.
  // With `clusters`, rolls only their units' rows of the period again (a write's clusters: the
  // other clusters' rows stand); every unit's when empty.
  Status RollPeriod(int64_t period_ms, int64_t start_ms,
                    std::span<const std::string> clusters = {});
  static int64_t SubPeriod(int64_t period_ms);
  Status RerollTouched(int64_t start_ms, int64_t end_ms, std::span<const std::string> clusters);
  Status SetSealedThrough(int64_t through_ms);
  // A rollups row's counts and sums, its columns from `col` on in the order of the table (unit
  // and holder ids first).
  static RolledRecord RolledFromRow(const Statement& q, int col);
  // Read's parts (ledger_read.cc).
  struct Segment {
    int64_t start_ms, end_ms;
    int64_t period_ms;       // 0: the records themselves
    int64_t generation = 0;  // a roll-up's
  };
  Result<std::vector<Segment>> Plan(int64_t lo, int64_t hi, int64_t origin,
                                    const ReadOptions& options, std::set<int64_t>& steps);
  // One rolled period's rows, from `cache` when it holds them at this generation.
  Result<std::shared_ptr<const std::vector<StoredRollup>>> RolledRows(
      const Segment& seg, RollupCache* cache);
  // Indexes by ledger id: kNoIndex for ids not named, kNamed for those to read; Read fills in
  // the inventory's indexes.
  static constexpr uint32_t kNamed = kNoIndex - 1;
  Status ReadInventory(std::vector<UnitIndex>& units, std::vector<HolderIndex>& holders,
                       LedgerWindow& out);
  // Rolled periods (rows, first step) summed per (unit, holder).
  static std::shared_ptr<const std::vector<StoredRollup>> MergeRolled(
      const std::vector<std::pair<std::shared_ptr<const std::vector<StoredRollup>>, int64_t>>&
          periods);

  std::unique_ptr<Database> db_;
  std::string path_;
  std::unordered_map<std::string, int64_t> unit_ids_;
  std::unordered_map<std::string, int64_t> holder_ids_;
  // By id: the last step the ledger keeps each unit and holder for, as this process last set it
  // (it may be higher in the ledger, never lower); and the retention generation the ids are of.
  std::unordered_map<int64_t, int64_t> unit_last_steps_;
  std::unordered_map<int64_t, int64_t> holder_last_steps_;
  std::optional<int64_t> ids_generation_;
  Duration lock_wait_{0};
};

}  // namespace gpucost::ledger
