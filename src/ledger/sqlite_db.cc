// The SQLite side of the SQL seam: one file in WAL mode, so that readers do not block the writer,
// with synchronous=NORMAL (a power loss may lose the last transactions, never corrupt the file)
// and a busy timeout for a second writer.
#include <sqlite3.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>
#include <utility>

#include "core/strings.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

// `$1` is a named parameter to SQLite, numbered by first appearance; `?1` is numbered by its
// digits, as `$1` is in PostgreSQL. Quoted text is left alone.
std::string NumberedParameters(std::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  bool quoted = false;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '\'') quoted = !quoted;
    const bool placeholder = !quoted && c == '$' && i + 1 < sql.size() &&
                             std::isdigit(static_cast<unsigned char>(sql[i + 1])) != 0;
    out += placeholder ? '?' : c;
  }
  return out;
}

// A damaged file (SQLITE_CORRUPT, SQLITE_NOTADB) is DataLoss; anything else may pass.
Status ErrorOf(int code, std::string message) {
  const int primary = code & 0xff;
  message = StrCat(message, " (", code, ")");
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
             ? Status::DataLoss(std::move(message))
             : Status::Unavailable(std::move(message));
}

Status Error(sqlite3* db) { return ErrorOf(sqlite3_extended_errcode(db), sqlite3_errmsg(db)); }

class SqliteStatement final : public Statement {
 public:
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~SqliteStatement() override { sqlite3_finalize(stmt_); }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void BindInt(int index, int64_t value) override { sqlite3_bind_int64(stmt_, index, value); }
  void BindDouble(int index, double value) override {
    if (std::isfinite(value)) {
      sqlite3_bind_double(stmt_, index, value);
    } else {
      sqlite3_bind_null(stmt_, index);
    }
  }
  void BindText(int index, std::string_view value) override {
    sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  }
  void BindNull(int index) override { sqlite3_bind_null(stmt_, index); }

  Result<bool> Step() override {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return Error(db_);
  }
  void Reset() override {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  bool IsNull(int col) const override { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int64_t Int(int col) const override { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const override {
    return IsNull(col) ? NAN : sqlite3_column_double(stmt_, col);
  }
  std::string Text(int col) const override {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t != nullptr ? std::string(reinterpret_cast<const char*>(t),
                                      static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
                        : std::string();
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteDatabase() override { sqlite3_close_v2(db_); }
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  Status Exec(std::string_view sql) override {
    char* error = nullptr;
    const std::string text(sql);
    if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      std::string message = error != nullptr ? error : "unknown error";
      sqlite3_free(error);
      const int code = sqlite3_extended_errcode(db_);
      const int primary = code & 0xff;
      if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) return ErrorOf(code, message);
      return Status::Unavailable(std::move(message));
    }
    return Status::Ok();
  }

  Result<std::vector<std::string>> QuickCheck() override {
    GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<Statement> q, Prepare("PRAGMA quick_check(10)"));
    std::vector<std::string> problems;
    for (;;) {
      GPUCOST_ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) break;
      std::string line = q->Text(0);
      if (line != "ok") problems.push_back(std::move(line));
    }
    return problems;
  }

  Result<std::unique_ptr<Statement>> Prepare(std::string_view sql) override {
    const std::string text = NumberedParameters(sql);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, text.c_str(), static_cast<int>(text.size()), &stmt, nullptr) !=
        SQLITE_OK) {
      return Error(db_);
    }
    return std::unique_ptr<Statement>(new SqliteStatement(db_, stmt));
  }

  Status Begin() override { return Exec("BEGIN IMMEDIATE"); }
  Status BeginRead() override { return Exec("BEGIN"); }
  Status Commit() override { return Exec("COMMIT"); }
  Status Rollback() override { return Exec("ROLLBACK"); }
  Status LockSchema() override { return Status::Ok(); }
  bool LastErrorRetryable() const override { return false; }

  Result<bool> HasTable(std::string_view name) override {
    GPUCOST_ASSIGN_OR_RETURN(
        std::unique_ptr<Statement> q,
        Prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1"));
    q->Bind(1, name);
    return q->Step();
  }

  Result<int64_t> Size() override {
    int64_t bytes = 0;
    for (const char* suffix : {"", "-wal"}) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(path_ + suffix, ec);
      if (!ec) bytes += static_cast<int64_t>(size);
    }
    return bytes;
  }

  // Only this spelling makes the column an alias of the rowid, which SQLite assigns.
  std::string_view AutoIdType() const override { return "INTEGER PRIMARY KEY"; }
  std::string_view KeyedTableSuffix() const override { return " WITHOUT ROWID"; }
  const std::string& target() const override { return path_; }

 private:
  sqlite3* db_;
  std::string path_;
};

}  // namespace

Result<std::unique_ptr<Database>> OpenSqlite(const std::string& path) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Status::Unavailable(StrCat(path, ": cannot open the ledger: ", message));
  }
  auto database = std::make_unique<SqliteDatabase>(db, path);
  constexpr int kBusyTimeoutMs = 10'000;
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  // The first statement that reads the file: a file that is no database fails here. Turning a
  // new file to WAL takes an exclusive lock, and SQLite answers SQLITE_BUSY there without calling
  // the busy handler when another process opens the same new ledger at that moment (two serves
  // of a fleet starting together): it is tried again, within the busy timeout.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  Status wal;
  for (;;) {
    wal = database->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
    const int primary = sqlite3_extended_errcode(db) & 0xff;
    if (wal.ok() || (primary != SQLITE_BUSY && primary != SQLITE_LOCKED) ||
        std::chrono::steady_clock::now() >= deadline) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!wal.ok()) return Status::Unavailable(StrCat(path, ": ", wal.message()));
  return std::unique_ptr<Database>(std::move(database));
}

}  // namespace gpucost::ledger
