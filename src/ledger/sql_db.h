// The SQL seam under the ledger: a Database (a connection) and its Statements, implemented for
// SQLite (one file, WAL) and PostgreSQL (libpqxx), so that the ledger's SQL and its migrations are
// written once. SQL uses `$1, $2, …` placeholders, portable types (BIGINT, DOUBLE PRECISION,
// TEXT) and `INSERT … ON CONFLICT`. Errors carry the backend's message only; callers add the
// target and what they were doing. Damage the backend finds in its storage is DataLoss. Internal to
// the ledger; one Database per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace gpucost::ledger {

// A prepared statement. Bind by position (1-based) and Step() through the rows; Reset() to run it
// again with other values. Columns are 0-based and read the current row.
class Statement {
 public:
  virtual ~Statement() = default;

  virtual void BindInt(int index, int64_t value) = 0;
  virtual void BindDouble(int index, double value) = 0;  // NaN or infinite binds NULL
  virtual void BindText(int index, std::string_view value) = 0;
  virtual void BindNull(int index) = 0;

  // Runs the statement on the first call after binding; true while there is a row to read.
  virtual Result<bool> Step() = 0;
  // Forgets the rows and the bound values.
  virtual void Reset() = 0;

  virtual bool IsNull(int col) const = 0;
  virtual int64_t Int(int col) const = 0;       // 0 when NULL
  virtual double Double(int col) const = 0;     // NaN when NULL, so unknown stays unknown
  virtual std::string Text(int col) const = 0;  // "" when NULL

  // Chainable binds for the ledger's value types.
  Statement& Bind(int index, int64_t v) {
    BindInt(index, v);
    return *this;
  }
  Statement& Bind(int index, int v) {
    BindInt(index, v);
    return *this;
  }
  Statement& Bind(int index, double v) {
    BindDouble(index, v);
    return *this;
  }
  Statement& Bind(int index, std::string_view v) {
    BindText(index, v);
    return *this;
  }
  Statement& Bind(int index, const std::string& v) {
    BindText(index, v);
    return *this;
  }
  Statement& Bind(int index, const char* v) {
    BindText(index, v);
    return *this;
  }
};

class Database {
 public:
  virtual ~Database() = default;

  // Runs `sql`, one or more statements without parameters.
  virtual Status Exec(std::string_view sql) = 0;
  // Prepares one statement (the same SQL may be prepared again cheaply).
  virtual Result<std::unique_ptr<Statement>> Prepare(std::string_view sql) = 0;

  // A write transaction, which takes the ledger's write lock at once (SQLite: BEGIN IMMEDIATE;
  // PostgreSQL: an advisory lock), so that writers take turns and readers go on.
  virtual Status Begin() = 0;
  // A read-only transaction: its statements see one snapshot, and writers go on. Ends with
  // Rollback().
  virtual Status BeginRead() = 0;
  virtual Status Commit() = 0;
  virtual Status Rollback() = 0;
  // Inside a transaction: waits until no other connection is migrating the schema (PostgreSQL
  // takes an advisory lock; SQLite's write lock already excludes the others).
  virtual Status LockSchema() = 0;
  // Whether the last error was a conflict with another writer (deadlock, serialization failure)
  // after which the whole transaction may simply be tried again.
  virtual bool LastErrorRetryable() const = 0;

  virtual Result<bool> HasTable(std::string_view name) = 0;
  // The backend's own check of its storage, the problems it finds (at most 10; none: sound).
  // SQLite: PRAGMA quick_check, which reads every page (about 5 s a GB); PostgreSQL checks its
  // pages as it reads them (data checksums), so nothing.
  virtual Result<std::vector<std::string>> QuickCheck() = 0;
  // Bytes the ledger takes: SQLite its file and WAL; PostgreSQL the tables of its schema with
  // their indexes and TOAST.
  virtual Result<int64_t> Size() = 0;

  // Dialect: the type of an auto-assigned integer primary key, and what ends a CREATE TABLE
  // whose rows are found by their primary key only.
  virtual std::string_view AutoIdType() const = 0;
  virtual std::string_view KeyedTableSuffix() const = 0;

  // The file, or the URI as RedactUri shows it (password ***): safe to print.
  virtual const std::string& target() const = 0;
};

// "$first,$first+1,…": `count` positional parameters, for an IN (…) list.
std::string Params(int first, size_t count);
// Binds `values` to the parameters from `first` on.
void BindAll(Statement& s, int first, std::span<const std::string> values);
// " AND <unit_column> IN (the units of nodes in clusters $first,…)", or "" for no clusters: the
// records of a write's clusters.
std::string UnitsOfClusters(std::string_view unit_column, int first, size_t count);

// The unit kind of the unit row `u` (UnitKindOfResource, model/capacity.h, in SQL): 'gpu', or
// 'neuron_device' for an AWS Neuron device's units, the same on both backends.
inline constexpr std::string_view kUnitKindOfU =
    "CASE WHEN u.resource LIKE 'aws.amazon.com/neuron%' THEN 'neuron_device' ELSE 'gpu' END";

// A postgresql:// or postgres:// URI rather than a file path.
bool IsPostgresTarget(std::string_view target);

// Opens (creating) the SQLite file at `path`: WAL, synchronous=NORMAL, a 10 s busy timeout.
Result<std::unique_ptr<Database>> OpenSqlite(const std::string& path);
// Connects to PostgreSQL with a libpq connection URI; the password may also come from
// PGPASSWORD or ~/.pgpass, as libpq does.
Result<std::unique_ptr<Database>> OpenPostgres(const std::string& uri);
// One of the two, by the form of `target`.
Result<std::unique_ptr<Database>> OpenDatabase(const std::string& target);

}  // namespace gpucost::ledger
