// Applies the ledger's migrations (migrations.h) to either backend.
#include "ledger/migrations.h"

#include <charconv>
#include <iterator>
#include <string>

#include "core/strings.h"

namespace gpucost::ledger {

namespace {

// The schema as one ordered list of steps.
struct Migration {
  int version;      // 1, 2, … in order, no gaps
  const char* sql;  // {id}: an auto-assigned id column; {keyed}: ends a table found by its key
  // What PostgreSQL runs after `sql`, for what only it has (partitions); idempotent too.
  const char* postgres_sql = "";
};

constexpr Migration kMigrations[] = {
    {1, R"sql(
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (
  id {id},
  cluster TEXT NOT NULL, name TEXT NOT NULL,
  gpu_model TEXT NOT NULL, physical_gpus BIGINT NOT NULL, gpu_memory_mib BIGINT NOT NULL,
  instance_type TEXT NOT NULL, capacity_type TEXT NOT NULL, region TEXT NOT NULL,
  zone TEXT NOT NULL, provider_id TEXT NOT NULL, sharing BIGINT NOT NULL,
  replicas BIGINT NOT NULL, mig_single BIGINT NOT NULL,
  UNIQUE (cluster, name));
CREATE TABLE IF NOT EXISTS units (
  id {id},
  node_id BIGINT NOT NULL REFERENCES nodes(id),
  gpu_uuid TEXT NOT NULL, partition TEXT NOT NULL, fraction DOUBLE PRECISION NOT NULL,
  gpu_model TEXT NOT NULL, mig_profile TEXT NOT NULL, resource TEXT NOT NULL,
  holdable BIGINT NOT NULL, gpu_instance_id BIGINT NOT NULL,
  UNIQUE (node_id, gpu_uuid, partition));
CREATE TABLE IF NOT EXISTS holders (
  id {id},
  kind BIGINT NOT NULL, cluster TEXT NOT NULL, namespace TEXT NOT NULL, pod TEXT NOT NULL,
  container TEXT NOT NULL, pod_uid TEXT NOT NULL, workload TEXT NOT NULL,
  workload_kind TEXT NOT NULL, team TEXT NOT NULL, labels TEXT NOT NULL,
  billing_per_gpu_hour DOUBLE PRECISION,
  UNIQUE (kind, cluster, namespace, pod, container, pod_uid));
CREATE TABLE IF NOT EXISTS cost_records (
  step_start_ms BIGINT NOT NULL, step_ms BIGINT NOT NULL,
  unit_id BIGINT NOT NULL, holder_id BIGINT NOT NULL,
  gpu_hours DOUBLE PRECISION NOT NULL, allocated_usd DOUBLE PRECISION,
  effective_usd DOUBLE PRECISION, list_usd DOUBLE PRECISION,
  unmeasured_gpu_hours DOUBLE PRECISION NOT NULL, activity_gpu_hours DOUBLE PRECISION,
  flags BIGINT NOT NULL, price_source BIGINT NOT NULL,
  PRIMARY KEY (step_start_ms, unit_id, holder_id)){keyed};
)sql"},
    // Counters since the ledger began, kept up to date by every write (a rewrite takes its old
    // records out first), so /metrics does not sum the whole ledger and retention cannot make a
    // counter go down. Idempotent, as every step must be: two processes opening a new ledger at
    // once may both apply it.
    {2, R"sql(
CREATE TABLE IF NOT EXISTS holder_totals (
  cluster TEXT NOT NULL, namespace TEXT NOT NULL, team TEXT NOT NULL, workload TEXT NOT NULL,
  workload_kind TEXT NOT NULL, gpu_model TEXT NOT NULL, capacity_type TEXT NOT NULL,
  allocated_usd DOUBLE PRECISION NOT NULL, effective_usd DOUBLE PRECISION NOT NULL,
  waste_usd DOUBLE PRECISION NOT NULL, gpu_hours DOUBLE PRECISION NOT NULL,
  unmeasured_gpu_hours DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (cluster, namespace, team, workload, workload_kind, gpu_model, capacity_type));
CREATE TABLE IF NOT EXISTS idle_totals (
  cluster TEXT NOT NULL, node TEXT NOT NULL, gpu_model TEXT NOT NULL,
  capacity_type TEXT NOT NULL, idle_usd DOUBLE PRECISION NOT NULL,
  idle_gpu_hours DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (cluster, node, gpu_model, capacity_type));
INSERT INTO holder_totals
SELECT h.cluster, h.namespace, COALESCE(NULLIF(h.team, ''), h.namespace), h.workload,
  h.workload_kind, n.gpu_model, n.capacity_type, COALESCE(SUM(r.allocated_usd), 0),
  COALESCE(SUM(r.effective_usd), 0), COALESCE(SUM(r.allocated_usd - r.effective_usd), 0),
  COALESCE(SUM(r.gpu_hours), 0), COALESCE(SUM(r.unmeasured_gpu_hours), 0)
FROM cost_records r JOIN holders h ON h.id = r.holder_id JOIN units u ON u.id = r.unit_id
  JOIN nodes n ON n.id = u.node_id
WHERE r.holder_id <> 0 GROUP BY 1, 2, 3, 4, 5, 6, 7 ON CONFLICT DO NOTHING;
INSERT INTO idle_totals
SELECT n.cluster, n.name, n.gpu_model, n.capacity_type, COALESCE(SUM(r.allocated_usd), 0),
  COALESCE(SUM(r.gpu_hours), 0)
FROM cost_records r JOIN units u ON u.id = r.unit_id JOIN nodes n ON n.id = u.node_id
WHERE r.holder_id = 0 GROUP BY 1, 2, 3, 4 ON CONFLICT DO NOTHING;
)sql"},
    // Hourly and daily roll-ups: per (period, unit, holder) the report's additive state
    // (RowSums) of the records whose steps start in the period, and per period whether it was
    // rolled, at which step (-1: records of several steps, not rolled) and in which generation
    // (a counter in meta, so a reader's cache can tell a period rolled again). Filled by
    // Ledger::Seal; a write into a sealed period rolls it again. And per node the end of the
    // newest step with a usage sample, kept by every write, for the gauges (Ledger::Latest).
    {3, R"sql(
CREATE TABLE IF NOT EXISTS rollup_periods (
  period_ms BIGINT NOT NULL, start_ms BIGINT NOT NULL, step_ms BIGINT NOT NULL,
  generation BIGINT NOT NULL,
  PRIMARY KEY (period_ms, start_ms));
CREATE TABLE IF NOT EXISTS rollups (
  period_ms BIGINT NOT NULL, start_ms BIGINT NOT NULL,
  unit_id BIGINT NOT NULL, holder_id BIGINT NOT NULL,
  records BIGINT NOT NULL, unpriced_records BIGINT NOT NULL,
  unit_oversubscribed_steps BIGINT NOT NULL,
  priced_hours DOUBLE PRECISION NOT NULL, unpriced_hours DOUBLE PRECISION NOT NULL,
  unmeasured_hours DOUBLE PRECISION NOT NULL, measured_hours DOUBLE PRECISION NOT NULL,
  used_hours DOUBLE PRECISION NOT NULL, activity_hours DOUBLE PRECISION NOT NULL,
  allocated_usd DOUBLE PRECISION NOT NULL, measured_allocated_usd DOUBLE PRECISION NOT NULL,
  effective_usd DOUBLE PRECISION NOT NULL, idle_usd DOUBLE PRECISION NOT NULL,
  flags BIGINT NOT NULL,
  PRIMARY KEY (period_ms, start_ms, unit_id, holder_id)){keyed};
CREATE TABLE IF NOT EXISTS node_usage (
  node_id BIGINT PRIMARY KEY, last_usage_end_ms BIGINT NOT NULL);
INSERT INTO node_usage
SELECT u.node_id, MAX(r.step_start_ms + r.step_ms) FROM cost_records r
  JOIN units u ON u.id = r.unit_id WHERE r.activity_gpu_hours IS NOT NULL
GROUP BY u.node_id ON CONFLICT DO NOTHING;
)sql"},
    // Writers' scopes: a ledger holds many clusters, and a write replaces only its own clusters'
    // records. Per cluster: the source that writes it (kubernetes, slurm; '' not yet known), how
    // far its continuous writer attributed and the pool draws open there (meta held these for
    // the whole ledger before), its newest step (for the gauges, without a scan), and the writer
    // lease: which writer may write it, until when (docs/ledger.md, "Many clusters"). A ledger
    // from before gets a scope per cluster it names, with the resume point it had.
    {4, R"sql(
CREATE TABLE IF NOT EXISTS scopes (
  cluster TEXT PRIMARY KEY, source TEXT NOT NULL,
  attributed_through_ms BIGINT, open_draws TEXT NOT NULL,
  newest_step_start_ms BIGINT, newest_step_ms BIGINT,
  writer TEXT NOT NULL, lease_until_ms BIGINT NOT NULL);
INSERT INTO scopes
SELECT c.cluster, '',
  (SELECT CAST(m.value AS BIGINT) FROM meta m WHERE m.key = 'attributed_through_ms'),
  COALESCE((SELECT m.value FROM meta m WHERE m.key = 'open_draws'), '[]'),
  (SELECT MAX(r.step_start_ms) FROM cost_records r JOIN units u ON u.id = r.unit_id
     JOIN nodes n ON n.id = u.node_id WHERE n.cluster = c.cluster),
  NULL, '', 0
FROM (SELECT DISTINCT cluster FROM nodes) c WHERE 1 = 1 ON CONFLICT DO NOTHING;
UPDATE scopes SET newest_step_ms = (SELECT MAX(r.step_ms) FROM cost_records r
  JOIN units u ON u.id = r.unit_id JOIN nodes n ON n.id = u.node_id
  WHERE n.cluster = scopes.cluster AND r.step_start_ms = scopes.newest_step_start_ms);
DELETE FROM meta WHERE key IN ('attributed_through_ms', 'open_draws');
)sql"},
    // PostgreSQL keeps cost records in a partition per UTC day of their step's start, so that
    // retention drops whole days and a window's scan reads its days only. A write makes the
    // partitions of its window (Ledger::MakePartitions); this moves a ledger's records into
    // theirs. SQLite keeps one table.
    {5, "", R"sql(
DO $$
DECLARE
  first_ms BIGINT;
  last_ms BIGINT;
  day_ms BIGINT;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_partitioned_table p WHERE p.partrelid = to_regclass('cost_records'))
  THEN
    RETURN;
  END IF;
  ALTER TABLE cost_records RENAME TO cost_records_unpartitioned;
  ALTER TABLE cost_records_unpartitioned RENAME CONSTRAINT cost_records_pkey
    TO cost_records_unpartitioned_pkey;
  CREATE TABLE cost_records (LIKE cost_records_unpartitioned INCLUDING DEFAULTS,
    PRIMARY KEY (step_start_ms, unit_id, holder_id)) PARTITION BY RANGE (step_start_ms);
  SELECT MIN(step_start_ms), MAX(step_start_ms) INTO first_ms, last_ms
    FROM cost_records_unpartitioned;
  day_ms := first_ms - ((first_ms % 86400000) + 86400000) % 86400000;
  WHILE day_ms <= last_ms LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF cost_records FOR VALUES FROM (%s) TO (%s)',
      'cost_records_' || to_char(to_timestamp(day_ms / 1000) AT TIME ZONE 'UTC', 'YYYY_MM_DD'),
      day_ms, day_ms + 86400000);
    day_ms := day_ms + 86400000;
  END LOOP;
  INSERT INTO cost_records SELECT * FROM cost_records_unpartitioned;
  DROP TABLE cost_records_unpartitioned;
END
$$;
)sql"},
    // Per rolled period, the number of records it sums and their known USD (allocated and idle):
    // what a read of the period's records or of its roll-up must find again, so that a damaged
    // ledger is an error rather than a short total (docs/ledger.md, "A damaged ledger").
    {6, R"sql(
CREATE TABLE IF NOT EXISTS period_checks (
  start_ms BIGINT NOT NULL, period_ms BIGINT NOT NULL,
  records BIGINT NOT NULL, usd DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (start_ms, period_ms)){keyed};
INSERT INTO period_checks
SELECT start_ms, period_ms, SUM(records), SUM(allocated_usd + idle_usd) FROM rollups
GROUP BY start_ms, period_ms ON CONFLICT DO NOTHING;
)sql"},
    // Retention of what records name: per holder and per unit, a step start at or after that of
    // the newest record naming it (kept up to an hour ahead, so that a write moves it hourly, not
    // every step). Retention removes the holders and units whose records are all gone by it, and
    // then the nodes left without units, without scanning the records. A ledger from before gets
    // its newest step for every row: they go once retention passes it. Idempotent.
    {7, R"sql(
CREATE TABLE IF NOT EXISTS holder_last_steps (
  holder_id BIGINT PRIMARY KEY, last_step_ms BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS unit_last_steps (
  unit_id BIGINT PRIMARY KEY, last_step_ms BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS holder_last_steps_by_step ON holder_last_steps (last_step_ms);
CREATE INDEX IF NOT EXISTS unit_last_steps_by_step ON unit_last_steps (last_step_ms);
INSERT INTO holder_last_steps
SELECT h.id, COALESCE((SELECT MAX(r.step_start_ms) FROM cost_records r), 0) FROM holders h
WHERE 1 = 1 ON CONFLICT DO NOTHING;
INSERT INTO unit_last_steps
SELECT u.id, COALESCE((SELECT MAX(r.step_start_ms) FROM cost_records r), 0) FROM units u
WHERE 1 = 1 ON CONFLICT DO NOTHING;
)sql"},
    // Unit kinds in the counters: the totals keep GPU-hours and accelerator-hours of AWS Neuron
    // devices apart (unit_kind 'gpu' or 'neuron_device', from the unit's resource), so that
    // /metrics labels Neuron series as such (docs/metrics.md). A ledger from before gets the kind
    // of the nodes its totals name ('gpu' where none is left). The tables are made again with
    // the kind in their key; applied again, the step sums rows that come to share a key, so it
    // is idempotent and moves no money (their keys' names are left to the backend, which picks
    // a free one).
    {8, R"sql(
ALTER TABLE holder_totals RENAME TO holder_totals_v7;
CREATE TABLE holder_totals (
  cluster TEXT NOT NULL, namespace TEXT NOT NULL, team TEXT NOT NULL, workload TEXT NOT NULL,
  workload_kind TEXT NOT NULL, gpu_model TEXT NOT NULL, capacity_type TEXT NOT NULL,
  allocated_usd DOUBLE PRECISION NOT NULL, effective_usd DOUBLE PRECISION NOT NULL,
  waste_usd DOUBLE PRECISION NOT NULL, gpu_hours DOUBLE PRECISION NOT NULL,
  unmeasured_gpu_hours DOUBLE PRECISION NOT NULL, unit_kind TEXT NOT NULL,
  PRIMARY KEY (cluster, namespace, team, workload, workload_kind, gpu_model, capacity_type,
    unit_kind));
INSERT INTO holder_totals
SELECT cluster, namespace, team, workload, workload_kind, gpu_model, capacity_type,
  SUM(allocated_usd), SUM(effective_usd), SUM(waste_usd), SUM(gpu_hours),
  SUM(unmeasured_gpu_hours), kind
FROM (SELECT t.cluster, t.namespace, t.team, t.workload, t.workload_kind, t.gpu_model,
    t.capacity_type, t.allocated_usd, t.effective_usd, t.waste_usd, t.gpu_hours,
    t.unmeasured_gpu_hours,
    CASE WHEN EXISTS (SELECT 1 FROM nodes n JOIN units u ON u.node_id = n.id
      WHERE n.cluster = t.cluster AND n.gpu_model = t.gpu_model
        AND u.resource LIKE 'aws.amazon.com/neuron%') THEN 'neuron_device' ELSE 'gpu' END AS kind
  FROM holder_totals_v7 t) x
GROUP BY cluster, namespace, team, workload, workload_kind, gpu_model, capacity_type, kind;
DROP TABLE holder_totals_v7;
ALTER TABLE idle_totals RENAME TO idle_totals_v7;
CREATE TABLE idle_totals (
  cluster TEXT NOT NULL, node TEXT NOT NULL, gpu_model TEXT NOT NULL,
  capacity_type TEXT NOT NULL, idle_usd DOUBLE PRECISION NOT NULL,
  idle_gpu_hours DOUBLE PRECISION NOT NULL, unit_kind TEXT NOT NULL,
  PRIMARY KEY (cluster, node, gpu_model, capacity_type, unit_kind));
INSERT INTO idle_totals
SELECT cluster, node, gpu_model, capacity_type, SUM(idle_usd), SUM(idle_gpu_hours), kind
FROM (SELECT t.cluster, t.node, t.gpu_model, t.capacity_type, t.idle_usd, t.idle_gpu_hours,
    CASE WHEN EXISTS (SELECT 1 FROM nodes n JOIN units u ON u.node_id = n.id
      WHERE n.cluster = t.cluster AND n.name = t.node
        AND u.resource LIKE 'aws.amazon.com/neuron%') THEN 'neuron_device' ELSE 'gpu' END AS kind
  FROM idle_totals_v7 t) x
GROUP BY cluster, node, gpu_model, capacity_type, kind;
DROP TABLE idle_totals_v7;
)sql"},
    // v9: the totals keep the GPU-hours whose price was known, so that /metrics leaves out the
    // cost counters of a group none of whose hours has a price (unknown is absent, never $0).
    // Totals from before knew only their money: a group with money had its hours priced. Made
    // again and filled as v8 does, so that applying it twice changes nothing.
    {9, R"sql(
ALTER TABLE holder_totals RENAME TO holder_totals_v8;
CREATE TABLE holder_totals (
  cluster TEXT NOT NULL, namespace TEXT NOT NULL, team TEXT NOT NULL, workload TEXT NOT NULL,
  workload_kind TEXT NOT NULL, gpu_model TEXT NOT NULL, capacity_type TEXT NOT NULL,
  allocated_usd DOUBLE PRECISION NOT NULL, effective_usd DOUBLE PRECISION NOT NULL,
  waste_usd DOUBLE PRECISION NOT NULL, gpu_hours DOUBLE PRECISION NOT NULL,
  unmeasured_gpu_hours DOUBLE PRECISION NOT NULL, unit_kind TEXT NOT NULL,
  priced_gpu_hours DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (cluster, namespace, team, workload, workload_kind, gpu_model, capacity_type,
    unit_kind));
INSERT INTO holder_totals
SELECT cluster, namespace, team, workload, workload_kind, gpu_model, capacity_type,
  allocated_usd, effective_usd, waste_usd, gpu_hours, unmeasured_gpu_hours, unit_kind,
  CASE WHEN allocated_usd <> 0 THEN gpu_hours ELSE 0 END
FROM holder_totals_v8;
DROP TABLE holder_totals_v8;
ALTER TABLE idle_totals RENAME TO idle_totals_v8;
CREATE TABLE idle_totals (
  cluster TEXT NOT NULL, node TEXT NOT NULL, gpu_model TEXT NOT NULL,
  capacity_type TEXT NOT NULL, idle_usd DOUBLE PRECISION NOT NULL,
  idle_gpu_hours DOUBLE PRECISION NOT NULL, unit_kind TEXT NOT NULL,
  priced_gpu_hours DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (cluster, node, gpu_model, capacity_type, unit_kind));
INSERT INTO idle_totals
SELECT cluster, node, gpu_model, capacity_type, idle_usd, idle_gpu_hours, unit_kind,
  CASE WHEN idle_usd <> 0 THEN idle_gpu_hours ELSE 0 END
FROM idle_totals_v8;
DROP TABLE idle_totals_v8;
)sql"},
};

static_assert(std::end(kMigrations)[-1].version == kLatestSchemaVersion,
              "kLatestSchemaVersion (migrations.h) is the last migration's version");

}  // namespace
namespace {

// The migration's SQL in `db`'s dialect.
std::string Spelled(const Database& db, std::string_view sql) {
  std::string out;
  for (size_t i = 0; i < sql.size();) {
    if (sql.substr(i).starts_with("{id}")) {
      out += db.AutoIdType();
      i += 4;
    } else if (sql.substr(i).starts_with("{keyed}")) {
      out += db.KeyedTableSuffix();
      i += 7;
    } else {
      out += sql[i++];
    }
  }
  return out;
}

Status Newer(const Database& db, int version) {
  return Status::FailedPrecondition(StrCat(db.target(), ": ledger schema version ", version,
                                           " is newer than this gpucost's (", kLatestSchemaVersion,
                                           "): upgrade gpucost"));
}

// Every migration after `from`, in the open transaction.
Status Apply(Database& db, int from) {
  for (const Migration& m : kMigrations) {
    if (m.version <= from) continue;
    const auto fail = [&](const Status& s) {
      return Status::Unavailable(StrCat(db.target(), ": migrating the ledger to schema version ",
                                        m.version, ": ", s.message()));
    };
    if (Status s = db.Exec(Spelled(db, m.sql)); !s.ok()) return fail(s);
    if (*m.postgres_sql != '\0' && IsPostgresTarget(db.target())) {
      if (Status s = db.Exec(m.postgres_sql); !s.ok()) return fail(s);
    }
    Result<std::unique_ptr<Statement>> put = db.Prepare(
        "INSERT INTO meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO "
        "UPDATE SET value = excluded.value");
    if (!put.ok()) return fail(put.status());
    (*put)->Bind(1, std::to_string(m.version));
    if (Result<bool> done = (*put)->Step(); !done.ok()) return fail(done.status());
  }
  return Status::Ok();
}

}  // namespace

Result<int> SchemaVersion(Database& db) {
  const auto fail = [&](const Status& s) {
    return Status::Unavailable(StrCat(db.target(), ": reading the schema version: ", s.message()));
  };
  Result<bool> has_meta = db.HasTable("meta");
  if (!has_meta.ok()) return fail(has_meta.status());
  if (!*has_meta) return 0;
  Result<std::unique_ptr<Statement>> q =
      db.Prepare("SELECT value FROM meta WHERE key = 'schema_version'");
  if (!q.ok()) return fail(q.status());
  Result<bool> row = (*q)->Step();
  if (!row.ok()) return fail(row.status());
  if (!*row) return 0;
  const std::string text = (*q)->Text(0);
  int version = 0;
  std::from_chars(text.data(), text.data() + text.size(), version);
  return version;
}

Status Migrate(Database& db) {
  GPUCOST_ASSIGN_OR_RETURN(int version, SchemaVersion(db));
  if (version > kLatestSchemaVersion) return Newer(db, version);
  if (version == kLatestSchemaVersion) return Status::Ok();
  // Another process may be migrating the same ledger: wait for it, then look again.
  if (Status s = db.Begin(); !s.ok()) {
    return Status::Unavailable(StrCat(db.target(), ": migrating the ledger: ", s.message()));
  }
  Status s = db.LockSchema();
  if (!s.ok()) {
    s = Status::Unavailable(StrCat(db.target(), ": migrating the ledger: ", s.message()));
  }
  Result<int> now = s.ok() ? SchemaVersion(db) : Result<int>(s);
  if (!now.ok()) s = now.status();
  if (s.ok() && *now > kLatestSchemaVersion) s = Newer(db, *now);
  if (s.ok()) s = Apply(db, *now);
  if (s.ok()) {
    if (Status c = db.Commit(); !c.ok()) {
      s = Status::Unavailable(StrCat(db.target(), ": migrating the ledger: ", c.message()));
    }
  }
  if (!s.ok()) (void)db.Rollback();
  return s;
}

}  // namespace gpucost::ledger
