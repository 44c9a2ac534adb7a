#include "ledger/ledger.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <unordered_set>
#include <utility>

#include "core/strings.h"
#include "ledger/ledger_sink.h"
#include "ledger/migrations.h"
#include "ledger/record_flags.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

using nlohmann::json;

static_assert(kLatestSchemaVersion == Ledger::kSchemaVersion,
              "a new migration bumps Ledger::kSchemaVersion");

std::string LabelsJson(const LabelSet& labels) {
  json o = json::object();
  for (const Label& l : labels) o[l.name] = l.value;
  // Label values are bytes from outside: one that is not UTF-8 is kept with U+FFFD for what is
  // not, rather than failing the write (docs/report.md, "Text that is not UTF-8").
  return o.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Records go in as multi-row upserts, `kBatchRows` at a time (then 16, then 1 for the rest):
// one round trip per batch to a PostgreSQL server, fewer statement steps for SQLite.
constexpr int kRecordColumns = 12;
constexpr int kBatchSizes[] = {256, 16, 1};

std::string UpsertRecordsSql(int rows) {
  std::string sql =
      "INSERT INTO cost_records (step_start_ms, step_ms, unit_id, holder_id, gpu_hours, "
      "allocated_usd, effective_usd, list_usd, unmeasured_gpu_hours, activity_gpu_hours, flags, "
      "price_source) VALUES ";
  for (int r = 0; r < rows; ++r) {
    sql += r == 0 ? "(" : ",(";
    for (int c = 1; c <= kRecordColumns; ++c) {
      sql += StrCat(c == 1 ? "$" : ",$", r * kRecordColumns + c);
    }
    sql += ')';
  }
  sql +=
      " ON CONFLICT (step_start_ms, unit_id, holder_id) DO UPDATE SET "
      "step_ms=excluded.step_ms, gpu_hours=excluded.gpu_hours, "
      "allocated_usd=excluded.allocated_usd, effective_usd=excluded.effective_usd, "
      "list_usd=excluded.list_usd, unmeasured_gpu_hours=excluded.unmeasured_gpu_hours, "
      "activity_gpu_hours=excluded.activity_gpu_hours, flags=excluded.flags, "
      "price_source=excluded.price_source";
  return sql;
}

// One cost_records row, as stored.
struct Row {
  int64_t step_start_ms, step_ms, unit_id, holder_id;
  double gpu_hours, allocated_usd, effective_usd, list_usd, unmeasured_gpu_hours,
      activity_gpu_hours;
  int64_t flags, price_source;

  bool operator==(const Row& o) const {
    return step_start_ms == o.step_start_ms && unit_id == o.unit_id && holder_id == o.holder_id;
  }
};
struct RowKeyHash {
  size_t operator()(const Row& r) const {
    return std::hash<int64_t>()(r.step_start_ms) ^ (std::hash<int64_t>()(r.unit_id) * 31) ^
           (std::hash<int64_t>()(r.holder_id) * 1'000'003);
  }
};

void BindRow(Statement& s, int row, const Row& r) {
  const int b = row * kRecordColumns;
  s.Bind(b + 1, r.step_start_ms).Bind(b + 2, r.step_ms).Bind(b + 3, r.unit_id)
      .Bind(b + 4, r.holder_id).Bind(b + 5, r.gpu_hours).Bind(b + 6, r.allocated_usd)
      .Bind(b + 7, r.effective_usd).Bind(b + 8, r.list_usd).Bind(b + 9, r.unmeasured_gpu_hours)
      .Bind(b + 10, r.activity_gpu_hours).Bind(b + 11, r.flags).Bind(b + 12, r.price_source);
}

}  // namespace

Ledger::Ledger(std::unique_ptr<Database> db) : db_(std::move(db)), path_(db_->target()) {}

Ledger::~Ledger() = default;

Status Ledger::Begin() {
  const auto start = std::chrono::steady_clock::now();
  Status s = db_->Begin();
  lock_wait_ += std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - start);
  return s;
}

Status Ledger::Fail(std::string_view what, const Status& cause) const {
  std::string message = StrCat(path_, ": ", what, ": ", cause.message());
  // Damage the backend found keeps its code: it is not a database that may come back.
  if (cause.code() == StatusCode::kDataLoss) {
    return Status::DataLoss(StrCat(message, " (docs/ledger.md, \"A damaged ledger\")"));
  }
  return Status::Unavailable(std::move(message));
}

Result<std::unique_ptr<Ledger>> Ledger::Open(const std::string& target) {
  GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, OpenDatabase(target));
  GPUCOST_RETURN_IF_ERROR(Migrate(*db));
  return std::unique_ptr<Ledger>(new Ledger(std::move(db)));
}

Result<std::unique_ptr<Ledger>> Ledger::OpenExisting(const std::string& target) {
  std::error_code ec;
  if (!IsPostgresTarget(target) && !std::filesystem::exists(target, ec)) {
    return Status::NotFound(StrCat(target,
                                   ": no ledger there (`gpucost ledger write` or "
                                   "`gpucost serve --ledger` makes one)"));
  }
  return Open(target);
}

Result<int64_t> Ledger::SizeBytes() {
  Result<int64_t> bytes = db_->Size();
  if (!bytes.ok()) return Fail("reading its size", bytes.status());
  return bytes;
}

Status Ledger::ExecForTesting(std::string_view sql) { return db_->Exec(sql); }

Result<int64_t> Ledger::UnitId(const Inventory& inv, UnitIndex unit) {
  const GpuUnit& u = inv.units[unit];
  const Node& n = inv.nodes[u.node];
  const std::string key = UnitIdentity(n, u);
  if (auto it = unit_ids_.find(key); it != unit_ids_.end()) return it->second;
  // An upsert that returns the id whether it inserted or updated: atomic on both backends, so
  // two writers naming the same node get the same row.
  Result<std::unique_ptr<Statement>> node = db_->Prepare(
      "INSERT INTO nodes (cluster, name, gpu_model, physical_gpus, gpu_memory_mib, "
      "instance_type, capacity_type, region, zone, provider_id, sharing, replicas, "
      "mig_single) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13) ON CONFLICT (cluster, "
      "name) DO UPDATE SET gpu_model=excluded.gpu_model, physical_gpus=excluded.physical_gpus, "
      "gpu_memory_mib=excluded.gpu_memory_mib, instance_type=excluded.instance_type, "
      "capacity_type=excluded.capacity_type, region=excluded.region, "
      "zone=excluded.zone, provider_id=excluded.provider_id, sharing=excluded.sharing, "
      "replicas=excluded.replicas, mig_single=excluded.mig_single RETURNING id");
  if (!node.ok()) return Fail("writing a node", node.status());
  (*node)->Bind(1, n.cluster).Bind(2, n.name).Bind(3, n.gpu_model).Bind(4, n.physical_gpus)
      .Bind(5, n.gpu_memory_mib).Bind(6, n.instance_type).Bind(7, n.capacity_type)
      .Bind(8, n.region).Bind(9, n.zone).Bind(10, n.provider_id)
      .Bind(11, static_cast<int64_t>(n.sharing)).Bind(12, n.replicas)
      .Bind(13, n.mig_single ? 1 : 0);
  Result<bool> row = (*node)->Step();
  if (!row.ok()) return Fail("writing a node", row.status());
  const int64_t node_id = (*node)->Int(0);
  Result<std::unique_ptr<Statement>> q = db_->Prepare(
      "INSERT INTO units (node_id, gpu_uuid, partition, fraction, gpu_model, mig_profile, "
      "resource, holdable, gpu_instance_id) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT "
      "(node_id, gpu_uuid, partition) DO UPDATE SET fraction=excluded.fraction, "
      "gpu_model=excluded.gpu_model, mig_profile=excluded.mig_profile, "
      "resource=excluded.resource, holdable=excluded.holdable, "
      "gpu_instance_id=excluded.gpu_instance_id RETURNING id");
  if (!q.ok()) return Fail("writing a GPU unit", q.status());
  (*q)->Bind(1, node_id).Bind(2, u.gpu_uuid).Bind(3, u.partition.ToString()).Bind(4, u.fraction)
      .Bind(5, u.gpu_model).Bind(6, u.mig_profile).Bind(7, u.resource)
      .Bind(8, u.holdable ? 1 : 0).Bind(9, u.gpu_instance_id);
  row = (*q)->Step();
  if (!row.ok()) return Fail("writing a GPU unit", row.status());
  const int64_t id = (*q)->Int(0);
  unit_ids_.emplace(key, id);
  return id;
}

Result<int64_t> Ledger::HolderId(const Holder& h) {
  const std::string key = HolderIdentity(h);
  if (auto it = holder_ids_.find(key); it != holder_ids_.end()) return it->second;
  Result<std::unique_ptr<Statement>> q = db_->Prepare(
      "INSERT INTO holders (kind, cluster, namespace, pod, container, pod_uid, workload, "
      "workload_kind, team, labels, billing_per_gpu_hour) VALUES "
      "($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) ON CONFLICT (kind, cluster, namespace, pod, "
      "container, pod_uid) DO UPDATE SET workload=excluded.workload, "
      "workload_kind=excluded.workload_kind, team=excluded.team, labels=excluded.labels, "
      "billing_per_gpu_hour=excluded.billing_per_gpu_hour RETURNING id");
  if (!q.ok()) return Fail("writing a holder", q.status());
  (*q)->Bind(1, static_cast<int64_t>(h.kind)).Bind(2, h.cluster).Bind(3, h.namespace_name)
      .Bind(4, h.pod).Bind(5, h.container).Bind(6, h.pod_uid).Bind(7, h.workload)
      .Bind(8, h.workload_kind).Bind(9, h.team).Bind(10, LabelsJson(h.labels))
      .Bind(11, h.billing_per_gpu_hour);
  Result<bool> row = (*q)->Step();
  if (!row.ok()) return Fail("writing a holder", row.status());
  const int64_t id = (*q)->Int(0);
  holder_ids_.emplace(key, id);
  return id;
}

Status Ledger::Write(const Inventory& inventory, Window window, Duration step,
                     std::span<const CostRecord> records, WriteGaps* gaps,
                     const WriteScope& scope) {
  if (step.count() <= 0) return Status::InvalidArgument("ledger write: the step must be positive");
  // Writers take turns (Begin takes the write lock), but a PostgreSQL server may still abort a
  // write for a conflict with another client of the database: it is written again, a little
  // later each time.
  constexpr int kAttempts = 5;
  Status s;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20 << attempt));
    s = WriteOnce(inventory, window, step, records, gaps, scope);
    if (s.ok() || !db_->LastErrorRetryable()) break;
  }
  return s;
}

Status Ledger::WriteOnce(const Inventory& inventory, Window window, Duration step,
                         std::span<const CostRecord> records, WriteGaps* gaps,
                         const WriteScope& scope) {
  const int64_t start_ms = UnixMs(window.start);
  const int64_t step_ms = std::chrono::duration_cast<std::chrono::milliseconds>(step).count();
  // The write's clusters: its inventory's and the scope's. Each cluster's source is what its
  // holders are (a cluster of Slurm jobs is a Slurm cluster's).
  std::set<std::string> cluster_set(scope.clusters.begin(), scope.clusters.end());
  for (const Node& n : inventory.nodes) cluster_set.insert(n.cluster);
  const std::vector<std::string> clusters(cluster_set.begin(), cluster_set.end());
  std::map<std::string, std::string> sources;
  for (const Holder& h : inventory.holders) {
    std::string& source = sources[h.cluster];
    if (source.empty()) source = h.kind == HolderKind::kSlurmJob ? "slurm" : "kubernetes";
  }
  if (Status s = Begin(); !s.ok()) return Fail("starting a write", s);
  // Ids handed out inside a transaction that rolls back would point nowhere: forget them then.
  auto rollback = [this](Status s) {
    (void)db_->Rollback();
    ForgetCachedIds();
    return s;
  };
  if (Status s = CheckCachedIds(); !s.ok()) return rollback(Fail("starting a write", s));
  // One grid of steps: a window off it would leave the old step that runs across its start beside
  // the new one (billing that time twice) and a hole at its end, and would give readers two grids.
  {
    Result<std::optional<int64_t>> grid = GridOffset(step);
    if (!grid.ok()) return rollback(grid.status());
    if (*grid && (FloorMod(start_ms - **grid, step_ms) != 0 ||
                  FloorMod(UnixMs(window.end) - **grid, step_ms) != 0)) {
      return rollback(Status::InvalidArgument(
          StrCat(path_, ": the window ", FormatRfc3339(window.start), " to ",
                 FormatRfc3339(window.end), " is not on the ledger's grid of ", step_ms / 1000,
                 " s steps: write ", FormatRfc3339(GridFloor(window.start, step, **grid)), " to ",
                 FormatRfc3339(GridCeil(window.end, step, **grid)), " instead")));
    }
  }
  // The window is replaced, not merged: records a new attribution no longer has (a holder that
  // late data moved, an idle unit now held) go with the rest, after leaving the totals.
  const int64_t end_ms = UnixMs(window.end);
  if (Status s = ClaimScopes(clusters, sources, scope); !s.ok()) return rollback(s);
  if (Status s = MakePartitions(start_ms, end_ms); !s.ok()) return rollback(s);
  if (Status s = AddToTotals(start_ms, end_ms, -1, clusters); !s.ok()) return rollback(s);
  if (Status s = ClearOutsideGaps(start_ms, end_ms, gaps, clusters); !s.ok()) return rollback(s);
  std::map<std::string, int64_t> newest;  // per cluster, the newest step written
  // The units and holders whose last step (for retention) this write moves, up to an hour past
  // its end: a writer of every step moves each one hourly, not at every write.
  const int64_t last_step_ms = end_ms + kHourMs;
  std::vector<int64_t> units_named, holders_named;
  const auto name = [&](std::unordered_map<int64_t, int64_t>& known, int64_t id,
                        std::vector<int64_t>& named) {
    int64_t& last = known[id];
    if (last >= end_ms) return;
    last = last_step_ms;
    named.push_back(id);
  };
  std::unique_ptr<Statement> put[std::size(kBatchSizes)];
  std::vector<Row> pending;
  pending.reserve(kBatchSizes[0]);
  // PostgreSQL refuses to upsert one key twice in a statement: a repeated key (the later record
  // wins, as it would one by one) sends what is pending first.
  std::unordered_set<Row, RowKeyHash> keys;
  const auto flush = [&]() -> Status {
    size_t done = 0;
    for (size_t b = 0; b < std::size(kBatchSizes); ++b) {
      const size_t rows = static_cast<size_t>(kBatchSizes[b]);
      while (pending.size() - done >= rows) {
        if (put[b] == nullptr) {
          Result<std::unique_ptr<Statement>> p =
              db_->Prepare(UpsertRecordsSql(static_cast<int>(rows)));
          if (!p.ok()) return Fail("preparing a write", p.status());
          put[b] = std::move(*p);
        }
        put[b]->Reset();
        for (size_t i = 0; i < rows; ++i) BindRow(*put[b], static_cast<int>(i), pending[done + i]);
        if (Result<bool> r = put[b]->Step(); !r.ok()) {
          return Fail("writing cost records", r.status());
        }
        done += rows;
      }
    }
    pending.clear();
    keys.clear();
    return Status::Ok();
  };
  for (const CostRecord& r : records) {
    if (r.unit >= inventory.units.size() ||
        (!r.is_idle() && r.holder >= inventory.holders.size())) {
      return rollback(Status::InvalidArgument("ledger write: a record names no unit or holder"));
    }
    Result<int64_t> unit = UnitId(inventory, r.unit);
    if (!unit.ok()) return rollback(unit.status());
    name(unit_last_steps_, *unit, units_named);
    int64_t holder = 0;
    if (!r.is_idle()) {
      Result<int64_t> h = HolderId(inventory.holders[r.holder]);
      if (!h.ok()) return rollback(h.status());
      holder = *h;
      name(holder_last_steps_, holder, holders_named);
    }
    const int64_t flags = (r.estimated ? kEstimated : 0) |
                          (r.oversubscribed ? kOversubscribed : 0) |
                          (r.price_known ? kPriceKnown : 0);
    const Row row{start_ms + r.step * step_ms, step_ms, *unit, holder, r.gpu_hours,
                  r.allocated_usd, r.effective_usd, r.list_usd, r.unmeasured_gpu_hours,
                  r.activity_gpu_hours, flags, static_cast<int64_t>(r.price_source)};
    int64_t& last =
        newest.try_emplace(inventory.nodes[inventory.units[r.unit].node].cluster, row.step_start_ms)
            .first->second;
    last = std::max(last, row.step_start_ms);
    if (keys.contains(row)) {
      if (Status s = flush(); !s.ok()) return rollback(s);
    }
    keys.insert(row);
    pending.push_back(row);
    if (pending.size() == static_cast<size_t>(kBatchSizes[0])) {
      if (Status s = flush(); !s.ok()) return rollback(s);
    }
  }
  if (Status s = flush(); !s.ok()) return rollback(s);
  for (auto& p : put) p.reset();
  if (Status s = KeepLastSteps(units_named, holders_named, last_step_ms); !s.ok()) {
    return rollback(s);
  }
  if (gaps != nullptr) {
    gaps->carried_steps = 0;
    if (Status s = CarryOver(step_ms, *gaps, clusters); !s.ok()) return rollback(s);
  }
  if (Status s = RerollTouched(start_ms, end_ms, clusters); !s.ok()) return rollback(s);
  if (Status s = AddToTotals(start_ms, end_ms, +1, clusters); !s.ok()) return rollback(s);
  if (Status s = NoteNewestSteps(newest, step_ms); !s.ok()) return rollback(s);
  if (Status s = db_->Commit(); !s.ok()) return rollback(Fail("committing a write", s));
  return Status::Ok();
}

LedgerSink::LedgerSink(Ledger& ledger, const Inventory& inventory, Window window, Duration step)
    : ledger_(&ledger), inventory_(&inventory), window_(window), step_(step) {}

void LedgerSink::Consume(std::span<const CostRecord> records) {
  records_.insert(records_.end(), records.begin(), records.end());
}

std::vector<bool> LedgerSink::StepsWithRecords() const {
  const int64_t steps = (window_.end - window_.start + step_ - Duration(1)) / step_;
  std::vector<bool> out(static_cast<size_t>(std::max<int64_t>(steps, 0)), false);
  for (const CostRecord& r : records_) {
    if (r.step >= 0 && static_cast<size_t>(r.step) < out.size()) out[r.step] = true;
  }
  return out;
}

Status LedgerSink::Commit(WriteGaps* gaps, const WriteScope& scope) {
  Status s = ledger_->Write(*inventory_, window_, step_, records_, gaps, scope);
  records_.clear();
  return s;
}

}  // namespace gpucost::ledger
