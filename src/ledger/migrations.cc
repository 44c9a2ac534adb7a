// Applies the ledger's migrations (migrations.h) to either backend.
#include "ledger/migrations.h"

#include <charconv>
#include <string>

#include "core/strings.h"

namespace gpucost::ledger {
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
