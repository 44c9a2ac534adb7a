#include "ledger/ledger.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "ledger/statement.h"

namespace gpucost::ledger {
namespace {

using nlohmann::json;

// Schema version 1. Later versions add a step to Migrate(); the version lives in `meta`.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (
  id INTEGER PRIMARY KEY,
  cluster TEXT NOT NULL, name TEXT NOT NULL,
  gpu_model TEXT NOT NULL, physical_gpus INTEGER NOT NULL, gpu_memory_mib INTEGER NOT NULL,
  instance_type TEXT NOT NULL, capacity_type TEXT NOT NULL, region TEXT NOT NULL,
  zone TEXT NOT NULL, provider_id TEXT NOT NULL, sharing INTEGER NOT NULL,
  replicas INTEGER NOT NULL, mig_single INTEGER NOT NULL,
  UNIQUE (cluster, name));
CREATE TABLE IF NOT EXISTS units (
  id INTEGER PRIMARY KEY,
  node_id INTEGER NOT NULL REFERENCES nodes(id),
  gpu_uuid TEXT NOT NULL, partition TEXT NOT NULL, fraction REAL NOT NULL,
  gpu_model TEXT NOT NULL, mig_profile TEXT NOT NULL, resource TEXT NOT NULL,
  holdable INTEGER NOT NULL, gpu_instance_id INTEGER NOT NULL,
  UNIQUE (node_id, gpu_uuid, partition));
CREATE TABLE IF NOT EXISTS holders (
  id INTEGER PRIMARY KEY,
  kind INTEGER NOT NULL, cluster TEXT NOT NULL, namespace TEXT NOT NULL, pod TEXT NOT NULL,
  container TEXT NOT NULL, pod_uid TEXT NOT NULL, workload TEXT NOT NULL,
  workload_kind TEXT NOT NULL, team TEXT NOT NULL, labels TEXT NOT NULL,
  billing_per_gpu_hour REAL,
  UNIQUE (kind, cluster, namespace, pod, container, pod_uid));
CREATE TABLE IF NOT EXISTS cost_records (
  step_start_ms INTEGER NOT NULL, step_ms INTEGER NOT NULL,
  unit_id INTEGER NOT NULL, holder_id INTEGER NOT NULL,
  gpu_hours REAL NOT NULL, allocated_usd REAL, effective_usd REAL, list_usd REAL,
  unmeasured_gpu_hours REAL NOT NULL, activity_gpu_hours REAL,
  flags INTEGER NOT NULL, price_source INTEGER NOT NULL,
  PRIMARY KEY (step_start_ms, unit_id, holder_id)) WITHOUT ROWID;
)sql";

enum Flag : int { kEstimated = 1, kOversubscribed = 2, kPriceKnown = 4 };

std::string LabelsJson(const LabelSet& labels) {
  json o = json::object();
  for (const Label& l : labels) o[l.name] = l.value;
  return o.dump();
}

LabelSet LabelsFromJson(const std::string& text) {
  const json o = json::parse(text, nullptr, false);
  if (!o.is_object()) return {};
  std::vector<Label> labels;
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (it.value().is_string()) labels.push_back({it.key(), it.value().get<std::string>()});
  }
  Result<LabelSet> set = LabelSet::Make(std::move(labels));
  return set.ok() ? std::move(*set) : LabelSet();
}

Partition ParsePartition(const std::string& text) {
  Partition p;
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return p;
  const std::string kind = text.substr(0, colon);
  p.index = std::atoi(text.c_str() + colon + 1);
  p.kind = kind == "mig" ? PartitionKind::kMig
           : kind == "replica" ? PartitionKind::kReplica
                               : PartitionKind::kWhole;
  return p;
}

double NullableDouble(sqlite3_stmt* s, int col) {
  return sqlite3_column_type(s, col) == SQLITE_NULL ? NAN : sqlite3_column_double(s, col);
}

}  // namespace

Ledger::Ledger(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

Ledger::~Ledger() { sqlite3_close_v2(db_); }

Status Ledger::Fail(const char* what) const {
  return Status::Unavailable(StrCat(path_, ": ", what, ": ", sqlite3_errmsg(db_), " (",
                                    sqlite3_extended_errcode(db_), ")"));
}

Status Ledger::Exec(const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error != nullptr ? error : "unknown error";
    sqlite3_free(error);
    return Status::Unavailable(StrCat(path_, ": ", message));
  }
  return Status::Ok();
}

Result<std::unique_ptr<Ledger>> Ledger::Open(const std::string& path) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                 nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Status::Unavailable(StrCat(path, ": cannot open the ledger: ", message));
  }
  std::unique_ptr<Ledger> ledger(new Ledger(db, path));
  sqlite3_busy_timeout(db, 10'000);
  GPUCOST_RETURN_IF_ERROR(ledger->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
  // The schema version: absent in a new file, else what the file was written with.
  int version = 0;
  {
    Statement q(db, "SELECT value FROM meta WHERE key = 'schema_version'");
    if (q.ok() && q.Step() == SQLITE_ROW) version = std::atoi(q.Text(0).c_str());
  }
  if (version > kSchemaVersion) {
    return Status::FailedPrecondition(
        StrCat(path, ": ledger schema version ", version, " is newer than this gpucost's (",
               kSchemaVersion, "): upgrade gpucost"));
  }
  if (version < 1) {
    GPUCOST_RETURN_IF_ERROR(ledger->Exec("BEGIN IMMEDIATE"));
    Status created = ledger->Exec(kSchemaV1);
    if (created.ok()) {
      created = ledger->Exec(
          "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', '1')");
    }
    if (!created.ok()) {
      (void)ledger->Exec("ROLLBACK");
      return created;
    }
    GPUCOST_RETURN_IF_ERROR(ledger->Exec("COMMIT"));
  }
  return ledger;
}

Result<int64_t> Ledger::UnitId(const Inventory& inv, UnitIndex unit) {
  const GpuUnit& u = inv.units[unit];
  const Node& n = inv.nodes[u.node];
  const std::string key = StrCat(n.cluster, '\x1f', n.name, '\x1f', u.gpu_uuid, '\x1f',
                                 u.partition.ToString());
  if (auto it = unit_ids_.find(key); it != unit_ids_.end()) return it->second;
  Statement node(db_,
                 "INSERT INTO nodes (cluster, name, gpu_model, physical_gpus, gpu_memory_mib, "
                 "instance_type, capacity_type, region, zone, provider_id, sharing, replicas, "
                 "mig_single) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (cluster, name) DO "
                 "UPDATE SET gpu_model=excluded.gpu_model, physical_gpus=excluded.physical_gpus, "
                 "gpu_memory_mib=excluded.gpu_memory_mib, instance_type=excluded.instance_type, "
                 "capacity_type=excluded.capacity_type, region=excluded.region, "
                 "zone=excluded.zone, provider_id=excluded.provider_id, sharing=excluded.sharing, "
                 "replicas=excluded.replicas, mig_single=excluded.mig_single RETURNING id");
  node.Bind(1, n.cluster).Bind(2, n.name).Bind(3, n.gpu_model).Bind(4, n.physical_gpus)
      .Bind(5, n.gpu_memory_mib).Bind(6, n.instance_type).Bind(7, n.capacity_type)
      .Bind(8, n.region).Bind(9, n.zone).Bind(10, n.provider_id)
      .Bind(11, static_cast<int64_t>(n.sharing)).Bind(12, n.replicas)
      .Bind(13, n.mig_single ? 1 : 0);
  if (!node.ok() || node.Step() != SQLITE_ROW) return Fail("writing a node");
  const int64_t node_id = node.Int(0);
  Statement q(db_,
              "INSERT INTO units (node_id, gpu_uuid, partition, fraction, gpu_model, mig_profile, "
              "resource, holdable, gpu_instance_id) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT "
              "(node_id, gpu_uuid, partition) DO UPDATE SET fraction=excluded.fraction, "
              "gpu_model=excluded.gpu_model, mig_profile=excluded.mig_profile, "
              "resource=excluded.resource, holdable=excluded.holdable, "
              "gpu_instance_id=excluded.gpu_instance_id RETURNING id");
  q.Bind(1, node_id).Bind(2, u.gpu_uuid).Bind(3, u.partition.ToString()).Bind(4, u.fraction)
      .Bind(5, u.gpu_model).Bind(6, u.mig_profile).Bind(7, u.resource).Bind(8, u.holdable ? 1 : 0)
      .Bind(9, u.gpu_instance_id);
  if (!q.ok() || q.Step() != SQLITE_ROW) return Fail("writing a GPU unit");
  const int64_t id = q.Int(0);
  unit_ids_.emplace(key, id);
  return id;
}

Result<int64_t> Ledger::HolderId(const Holder& h) {
  const std::string key = StrCat(static_cast<int>(h.kind), '\x1f', h.cluster, '\x1f',
                                 h.namespace_name, '\x1f', h.pod, '\x1f', h.container, '\x1f',
                                 h.pod_uid);
  if (auto it = holder_ids_.find(key); it != holder_ids_.end()) return it->second;
  Statement q(db_,
              "INSERT INTO holders (kind, cluster, namespace, pod, container, pod_uid, workload, "
              "workload_kind, team, labels, billing_per_gpu_hour) VALUES (?,?,?,?,?,?,?,?,?,?,?) "
              "ON CONFLICT (kind, cluster, namespace, pod, container, pod_uid) DO UPDATE SET "
              "workload=excluded.workload, workload_kind=excluded.workload_kind, "
              "team=excluded.team, labels=excluded.labels, "
              "billing_per_gpu_hour=excluded.billing_per_gpu_hour RETURNING id");
  q.Bind(1, static_cast<int64_t>(h.kind)).Bind(2, h.cluster).Bind(3, h.namespace_name)
      .Bind(4, h.pod).Bind(5, h.container).Bind(6, h.pod_uid).Bind(7, h.workload)
      .Bind(8, h.workload_kind).Bind(9, h.team).Bind(10, LabelsJson(h.labels))
      .Bind(11, h.billing_per_gpu_hour);
  if (!q.ok() || q.Step() != SQLITE_ROW) return Fail("writing a holder");
  const int64_t id = q.Int(0);
  holder_ids_.emplace(key, id);
  return id;
}

Status Ledger::Write(const Inventory& inventory, Window window, Duration step,
                     std::span<const CostRecord> records) {
  if (step.count() <= 0) return Status::InvalidArgument("ledger write: the step must be positive");
  const int64_t start_ms = UnixMs(window.start);
  const int64_t step_ms = std::chrono::duration_cast<std::chrono::milliseconds>(step).count();
  GPUCOST_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  // Ids handed out inside a transaction that rolls back would point nowhere: forget them then.
  auto rollback = [this](Status s) {
    (void)Exec("ROLLBACK");
    unit_ids_.clear();
    holder_ids_.clear();
    return s;
  };
  Statement put(db_,
                "INSERT INTO cost_records (step_start_ms, step_ms, unit_id, holder_id, gpu_hours, "
                "allocated_usd, effective_usd, list_usd, unmeasured_gpu_hours, "
                "activity_gpu_hours, flags, price_source) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT (step_start_ms, unit_id, holder_id) DO UPDATE SET "
                "step_ms=excluded.step_ms, gpu_hours=excluded.gpu_hours, "
                "allocated_usd=excluded.allocated_usd, effective_usd=excluded.effective_usd, "
                "list_usd=excluded.list_usd, unmeasured_gpu_hours=excluded.unmeasured_gpu_hours, "
                "activity_gpu_hours=excluded.activity_gpu_hours, flags=excluded.flags, "
                "price_source=excluded.price_source");
  if (!put.ok()) return rollback(Fail("preparing a write"));
  for (const CostRecord& r : records) {
    if (r.unit >= inventory.units.size() ||
        (!r.is_idle() && r.holder >= inventory.holders.size())) {
      return rollback(Status::InvalidArgument("ledger write: a record names no unit or holder"));
    }
    Result<int64_t> unit = UnitId(inventory, r.unit);
    if (!unit.ok()) return rollback(unit.status());
    int64_t holder = 0;
    if (!r.is_idle()) {
      Result<int64_t> h = HolderId(inventory.holders[r.holder]);
      if (!h.ok()) return rollback(h.status());
      holder = *h;
    }
    const int flags = (r.estimated ? kEstimated : 0) | (r.oversubscribed ? kOversubscribed : 0) |
                      (r.price_known ? kPriceKnown : 0);
    put.Reset();
    put.Bind(1, start_ms + r.step * step_ms).Bind(2, step_ms).Bind(3, *unit).Bind(4, holder)
        .Bind(5, r.gpu_hours).Bind(6, r.allocated_usd).Bind(7, r.effective_usd)
        .Bind(8, r.list_usd).Bind(9, r.unmeasured_gpu_hours).Bind(10, r.activity_gpu_hours)
        .Bind(11, flags).Bind(12, static_cast<int64_t>(r.price_source));
    if (put.Step() != SQLITE_DONE) return rollback(Fail("writing cost records"));
  }
  put.Finalize();
  Status committed = Exec("COMMIT");
  if (!committed.ok()) return rollback(committed);
  return Status::Ok();
}

Result<LedgerWindow> Ledger::Read(std::optional<Window> window) {
  LedgerWindow out;
  // The span and the step lengths of what is asked for.
  int64_t lo = INT64_MIN;
  int64_t hi = INT64_MAX;
  if (window) {
    lo = UnixMs(window->start);
    hi = UnixMs(window->end);
  }
  std::set<int64_t> steps;
  int64_t first = INT64_MAX;
  int64_t last_end = INT64_MIN;
  {
    Statement q(db_,
                "SELECT step_ms, MIN(step_start_ms), MAX(step_start_ms + step_ms) FROM "
                "cost_records WHERE step_start_ms >= ? AND step_start_ms < ? GROUP BY step_ms");
    q.Bind(1, lo).Bind(2, hi);
    if (!q.ok()) return Fail("reading");
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      steps.insert(q.Int(0));
      first = std::min(first, q.Int(1));
      last_end = std::max(last_end, q.Int(2));
    }
    if (rc != SQLITE_DONE) return Fail("reading");
  }
  if (steps.size() > 1) {
    std::string list;
    for (int64_t s : steps) list += StrCat(list.empty() ? "" : ", ", s / 1000, " s");
    return Status::InvalidArgument(StrCat(path_, ": the window holds records of steps ", list,
                                          ": read a window written with one step"));
  }
  if (steps.empty()) {
    if (!window) return Status::NotFound(StrCat(path_, ": the ledger holds no cost records"));
    out.window = *window;
    return out;
  }
  const int64_t step_ms = *steps.begin();
  out.step = std::chrono::milliseconds(step_ms);
  out.window = window ? *window : Window{InstantFromUnixMs(first), InstantFromUnixMs(last_end)};
  const int64_t origin = UnixMs(out.window.start);
  if ((first - origin) % step_ms != 0) {
    return Status::InvalidArgument(StrCat(path_, ": the window starts between steps of ",
                                          step_ms / 1000, " s: start it on a step boundary"));
  }

  std::map<int64_t, NodeIndex> nodes;
  std::map<int64_t, UnitIndex> units;
  std::map<int64_t, HolderIndex> holders;
  Statement q(db_,
              "SELECT r.step_start_ms, r.unit_id, r.holder_id, r.gpu_hours, r.allocated_usd, "
              "r.effective_usd, r.list_usd, r.unmeasured_gpu_hours, r.activity_gpu_hours, "
              "r.flags, r.price_source FROM cost_records r WHERE r.step_start_ms >= ? AND "
              "r.step_start_ms < ? ORDER BY r.unit_id, r.step_start_ms, r.holder_id");
  q.Bind(1, lo).Bind(2, hi);
  if (!q.ok()) return Fail("reading");
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) {
    const int64_t unit_id = q.Int(1);
    const int64_t holder_id = q.Int(2);
    units.try_emplace(unit_id, kNoIndex);
    if (holder_id != 0) holders.try_emplace(holder_id, kNoIndex);
    CostRecord r;
    r.step = (q.Int(0) - origin) / step_ms;
    r.unit = static_cast<UnitIndex>(unit_id);       // ledger ids for now, remapped below
    r.holder = holder_id == 0 ? kNoIndex : static_cast<HolderIndex>(holder_id);
    r.gpu_hours = sqlite3_column_double(q.get(), 3);
    r.allocated_usd = NullableDouble(q.get(), 4);
    r.effective_usd = NullableDouble(q.get(), 5);
    r.list_usd = NullableDouble(q.get(), 6);
    r.unmeasured_gpu_hours = sqlite3_column_double(q.get(), 7);
    r.activity_gpu_hours = NullableDouble(q.get(), 8);
    const int64_t flags = q.Int(9);
    r.estimated = (flags & kEstimated) != 0;
    r.oversubscribed = (flags & kOversubscribed) != 0;
    r.price_known = (flags & kPriceKnown) != 0;
    r.price_source = static_cast<PriceSource>(q.Int(10));
    out.records.push_back(r);
  }
  if (rc != SQLITE_DONE) return Fail("reading cost records");

  // The units, their nodes and the holders the records name.
  Statement u(db_,
              "SELECT u.id, u.gpu_uuid, u.partition, u.fraction, u.gpu_model, u.mig_profile, "
              "u.resource, u.holdable, u.gpu_instance_id, n.id, n.cluster, n.name, n.gpu_model, "
              "n.physical_gpus, n.gpu_memory_mib, n.instance_type, n.capacity_type, n.region, "
              "n.zone, n.provider_id, n.sharing, n.replicas, n.mig_single FROM units u JOIN "
              "nodes n ON n.id = u.node_id WHERE u.id = ?");
  for (auto& [id, index] : units) {
    u.Reset();
    u.Bind(1, id);
    if (!u.ok() || u.Step() != SQLITE_ROW) return Fail("reading a GPU unit");
    const int64_t node_id = u.Int(9);
    auto [nit, fresh] =
        nodes.try_emplace(node_id, static_cast<NodeIndex>(out.inventory.nodes.size()));
    if (fresh) {
      Node n;
      n.cluster = u.Text(10);
      n.name = u.Text(11);
      n.gpu_model = u.Text(12);
      n.physical_gpus = static_cast<int>(u.Int(13));
      n.gpu_memory_mib = u.Int(14);
      n.instance_type = u.Text(15);
      n.capacity_type = u.Text(16);
      n.region = u.Text(17);
      n.zone = u.Text(18);
      n.provider_id = u.Text(19);
      n.sharing = static_cast<SharingMode>(u.Int(20));
      n.replicas = static_cast<int>(u.Int(21));
      n.mig_single = u.Int(22) != 0;
      n.present.push_back(out.window.start < out.window.end
                              ? Interval{out.window.start, out.window.end}
                              : Interval{});
      out.inventory.nodes.push_back(std::move(n));
    }
    GpuUnit g;
    g.node = nit->second;
    g.gpu_uuid = u.Text(1);
    g.partition = ParsePartition(u.Text(2));
    g.fraction = sqlite3_column_double(u.get(), 3);
    g.gpu_model = u.Text(4);
    g.mig_profile = u.Text(5);
    g.resource = u.Text(6);
    g.holdable = u.Int(7) != 0;
    g.gpu_instance_id = static_cast<int>(u.Int(8));
    index = static_cast<UnitIndex>(out.inventory.units.size());
    out.inventory.units.push_back(std::move(g));
  }
  Statement h(db_,
              "SELECT kind, cluster, namespace, pod, container, pod_uid, workload, workload_kind, "
              "team, labels, billing_per_gpu_hour FROM holders WHERE id = ?");
  for (auto& [id, index] : holders) {
    h.Reset();
    h.Bind(1, id);
    if (!h.ok() || h.Step() != SQLITE_ROW) return Fail("reading a holder");
    Holder x;
    x.kind = static_cast<HolderKind>(h.Int(0));
    x.cluster = h.Text(1);
    x.namespace_name = h.Text(2);
    x.pod = h.Text(3);
    x.container = h.Text(4);
    x.pod_uid = h.Text(5);
    x.workload = h.Text(6);
    x.workload_kind = h.Text(7);
    x.team = h.Text(8);
    x.labels = LabelsFromJson(h.Text(9));
    x.billing_per_gpu_hour = NullableDouble(h.get(), 10);
    index = static_cast<HolderIndex>(out.inventory.holders.size());
    out.inventory.holders.push_back(std::move(x));
  }
  for (CostRecord& r : out.records) {
    r.unit = units.at(r.unit);
    if (!r.is_idle()) r.holder = holders.at(r.holder);
  }
  return out;
}

LedgerSink::LedgerSink(Ledger& ledger, const Inventory& inventory, Window window, Duration step)
    : ledger_(&ledger), inventory_(&inventory), window_(window), step_(step) {}

void LedgerSink::Consume(std::span<const CostRecord> records) {
  records_.insert(records_.end(), records.begin(), records.end());
}

Status LedgerSink::Commit() {
  Status s = ledger_->Write(*inventory_, window_, step_, records_);
  records_.clear();
  return s;
}

}  // namespace gpucost::ledger
